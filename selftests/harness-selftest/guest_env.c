// SPDX-License-Identifier: GPL-2.0
/*
 * guest_env - the guest environment promised by Documentation/testing.rst,
 * checked with the kselftest harness (this is also the harness's own test
 * of the TEST_GEN_PROGS path: built on the host, run in the guest).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>

#include "kselftest_harness.h"

#define DEBUGFS_MAGIC	0x64626720
#define CONFIGFS_MAGIC	0x62656570
#define TMPFS_MAGIC	0x01021994

static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

static int fs_type(const char *path, long *type)
{
	struct statfs sfs;

	if (statfs(path, &sfs))
		return -errno;
	*type = sfs.f_type;
	return 0;
}

TEST(variables)
{
	struct utsname u;

	ASSERT_NE(NULL, env("IOTRACE_SRC"));
	ASSERT_NE(NULL, env("IOTRACE_KO"));
	ASSERT_NE(NULL, env("IOTRACECTL"));
	ASSERT_NE(NULL, env("IOTRACE_OUT"));
	ASSERT_NE(NULL, env("KVER"));
	ASSERT_EQ(0, uname(&u));
	EXPECT_STREQ(u.release, env("KVER"));
	EXPECT_EQ(0, access(env("IOTRACE_KO"), R_OK));
	EXPECT_EQ(0, geteuid());
}

TEST(output_dir_writable)
{
	char path[4096];
	static const char msg[] = "written by the guest\n";
	int fd;

	ASSERT_NE(NULL, env("IOTRACE_OUT"));
	snprintf(path, sizeof(path), "%s/guest_env.txt", env("IOTRACE_OUT"));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	EXPECT_EQ((ssize_t)sizeof(msg) - 1, write(fd, msg, sizeof(msg) - 1));
	EXPECT_EQ(0, close(fd));
}

TEST(source_tree_read_only)
{
	char path[4096];
	int fd;

	ASSERT_NE(NULL, env("IOTRACE_SRC"));
	snprintf(path, sizeof(path), "%s/guest_env.must-not-exist", env("IOTRACE_SRC"));
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EROFS, errno);
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
}

TEST(file_systems)
{
	long type = 0;

	ASSERT_EQ(0, fs_type("/sys/kernel/debug", &type));
	EXPECT_EQ(DEBUGFS_MAGIC, type);
	ASSERT_EQ(0, fs_type("/sys/kernel/config", &type));
	EXPECT_EQ(CONFIGFS_MAGIC, type);
	ASSERT_EQ(0, fs_type("/tmp", &type));
	EXPECT_EQ(TMPFS_MAGIC, type);
	EXPECT_EQ(0, access("/tmp", W_OK));
}

TEST(modprobe_from_host_tree)
{
	/*
	 * null_blk is a Debian module: found through the host's /lib/modules.
	 * udev probes the new disk (blkid) and holds it open meanwhile: let it
	 * finish before unloading.
	 */
	static const char cmd[] =
		"modprobe null_blk nr_devices=1 && test -b /dev/nullb0 && udevadm settle && for i in 1 2 3 4 5;"
		" do rmmod null_blk && exit 0;"
		" sleep 1; done; exit 1";

	ASSERT_EQ(0, system(cmd));
}

/*
 * guest_env.vm asks for "VM-CPU: max,-cx16" (the bench's model, see
 * selftests/bench/bench.sh): the guest's CPU must not have CMPXCHG16B.
 */
TEST(cpu_model_from_header)
{
	char line[4096];
	int flags = 0;
	FILE *f;

	f = fopen("/proc/cpuinfo", "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		flags++;
		/* "cx16" as a word: not cx8, not part of another flag */
		EXPECT_EQ(NULL, strstr(line, " cx16 ")) {
			TH_LOG("CPU has cx16: VM-CPU not applied");
		}
		EXPECT_NE(NULL, strstr(line, " cx8 "));
	}
	fclose(f);
	EXPECT_LT(0, flags);
}

TEST_HARNESS_MAIN
