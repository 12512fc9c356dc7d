// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of iot_nvme_btf_layout() (iotracectl/util/btf.c): small BTF blobs
 * made with libbpf's writer, a "vmlinux" base and an "nvme_core" split on
 * top of it, in a temporary directory.  Prints "PASS name" or
 * "FAIL name: why" lines like unit.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "btf.h"

static int fails;

static void result(const char *name, int ok, const char *why)
{
	if (ok) {
		printf("PASS %s\n", name);
	} else {
		printf("FAIL %s: %s\n", name, why);
		fails++;
	}
}

static int write_btf(const struct btf *btf, const char *dir, const char *name)
{
	char path[4096];
	const void *data;
	__u32 size;
	FILE *fp;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	data = btf__raw_data(btf, &size);
	fp = fopen(path, "wb");
	if (!data || !fp)
		return -1;
	ok = fwrite(data, 1, size, fp) == size;
	return fclose(fp) || !ok ? -1 : 0;
}

/* The base: the integer types (and a decoy struct). */
static struct btf *base_btf(int with_request)
{
	struct btf *b = btf__new_empty();
	int u8, u16, u32, u64, cmd, res, s;

	if (!b)
		return NULL;
	u8 = btf__add_int(b, "unsigned char", 1, 0);
	u16 = btf__add_int(b, "unsigned short", 2, 0);
	u32 = btf__add_int(b, "unsigned int", 4, 0);
	u64 = btf__add_int(b, "long long unsigned int", 8, 0);
	s = btf__add_struct(b, "nvme_command", 64);
	cmd = btf__add_ptr(b, s);
	if (u8 < 0 || u16 < 0 || u32 < 0 || u64 < 0 || cmd < 0)
		goto err;
	if (with_request) {
		/* nvme_core built in: the request type is the kernel's */
		res = btf__add_union(b, "nvme_result", 8);
		if (res < 0 || btf__add_field(b, "u16", u16, 0, 0) ||
		    btf__add_field(b, "u32", u32, 0, 0) ||
		    btf__add_field(b, "u64", u64, 0, 0))
			goto err;
		if (btf__add_struct(b, "nvme_request", 32) < 0 ||
		    btf__add_field(b, "cmd", cmd, 0, 0) ||
		    btf__add_field(b, "result", res, 64, 0) ||
		    btf__add_field(b, "genctr", u8, 128, 0) ||
		    btf__add_field(b, "retries", u8, 136, 0) ||
		    btf__add_field(b, "flags", u8, 144, 0) ||
		    btf__add_field(b, "status", u16, 160, 0))
			goto err;
	}
	return b;
err:
	btf__free(b);
	return NULL;
}

/*
 * nvme_core's split BTF.  @variant: 0 like 6.x (status @20, result @8),
 * 1 status as a bit field, 2 no status member, 3 a typedef'd u16 status
 * at another offset (@24), 4 no struct nvme_request at all.
 */
static struct btf *split_btf(struct btf *base, int variant)
{
	struct btf *b = btf__new_empty_split(base);
	int u16, u32, u64, u8, cmd, res, td;

	if (!b)
		return NULL;
	u8 = btf__find_by_name_kind(b, "unsigned char", BTF_KIND_INT);
	u16 = btf__find_by_name_kind(b, "unsigned short", BTF_KIND_INT);
	u32 = btf__find_by_name_kind(b, "unsigned int", BTF_KIND_INT);
	u64 = btf__find_by_name_kind(b, "long long unsigned int", BTF_KIND_INT);
	cmd = btf__find_by_name_kind(b, "nvme_command", BTF_KIND_STRUCT);
	cmd = btf__add_ptr(b, cmd);
	if (variant == 4)
		return b;
	td = btf__add_typedef(b, "__u16", u16);
	res = btf__add_union(b, "nvme_result", 8);
	if (res < 0 || td < 0 || btf__add_field(b, "u16", u16, 0, 0) ||
	    btf__add_field(b, "u32", u32, 0, 0) ||
	    btf__add_field(b, "u64", u64, 0, 0))
		goto err;
	if (btf__add_struct(b, "nvme_request", 40) < 0 ||
	    btf__add_field(b, "cmd", cmd, 0, 0) ||
	    btf__add_field(b, "result", res, 64, 0) ||
	    btf__add_field(b, "genctr", u8, 128, 0))
		goto err;
	switch (variant) {
	case 0:
		if (btf__add_field(b, "status", u16, 160, 0))
			goto err;
		break;
	case 1:
		if (btf__add_field(b, "status", u16, 160, 15))
			goto err;
		break;
	case 3:
		if (btf__add_field(b, "status", td, 192, 0))
			goto err;
		break;
	}
	return b;
err:
	btf__free(b);
	return NULL;
}

/* Make DIR with vmlinux (and nvme_core unless @variant < 0). */
static int make_dir(char *dir, int with_request, int variant)
{
	static const char tmpl[] = "/tmp/iotracectl-btf.XXXXXX";
	struct btf *base, *split = NULL;
	int ret = -1;

	memcpy(dir, tmpl, sizeof(tmpl));
	if (!mkdtemp(dir))
		return -1;
	base = base_btf(with_request);
	if (!base || write_btf(base, dir, "vmlinux"))
		goto out;
	if (variant >= 0) {
		split = split_btf(base, variant);
		if (!split || write_btf(split, dir, "nvme_core"))
			goto out;
	}
	ret = 0;
out:
	btf__free(split);
	btf__free(base);
	return ret;
}

static void clean_dir(const char *dir)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/vmlinux", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/nvme_core", dir);
	unlink(p);
	rmdir(dir);
}

/* what a kernel without module BTF (5.10) is said to be */
#define NO_MODULE_BTF	"/nvme_core: this kernel has no module BTF; NVMe status is not recorded"

int main(void)
{
	struct iot_nvme_layout l;
	char dir[64], err[512], why[1024];
	int ret;

	/* module BTF as on 6.x: status @20, result @8 (8 bytes) */
	if (make_dir(dir, 0, 0))
		return result("btf_setup", 0, strerror(errno)), 1;
	ret = iot_nvme_btf_layout(dir, &l, err, sizeof(err));
	snprintf(why, sizeof(why), "ret %d (%s), status @%u/%u, result @%u/%u",
		 ret, ret ? err : "", l.status_off, l.status_size,
		 l.result_off, l.result_size);
	result("btf_split_layout", !ret && l.status_off == 20 &&
	       l.status_size == 2 && l.result_off == 8 &&
	       l.result_size == 8 && l.struct_size == 40 &&
	       strstr(l.source, "/nvme_core"), why);
	clean_dir(dir);

	/* a typedef'd status elsewhere: resolved, offset from the BTF */
	if (!make_dir(dir, 0, 3)) {
		ret = iot_nvme_btf_layout(dir, &l, err, sizeof(err));
		snprintf(why, sizeof(why), "ret %d (%s), status @%u",
			 ret, ret ? err : "", l.status_off);
		result("btf_typedef_status", !ret && l.status_off == 24 &&
		       l.status_size == 2, why);
		clean_dir(dir);
	}

	/* a bit field, a missing member, no struct: errors, no layout */
	if (!make_dir(dir, 0, 1)) {
		ret = iot_nvme_btf_layout(dir, &l, err, sizeof(err));
		result("btf_bitfield_refused", ret == -1 &&
		       strstr(err, "bit field"), err);
		clean_dir(dir);
	}
	if (!make_dir(dir, 0, 2)) {
		ret = iot_nvme_btf_layout(dir, &l, err, sizeof(err));
		result("btf_no_status_refused", ret == -1 &&
		       strstr(err, "no member 'status'"), err);
		clean_dir(dir);
	}
	if (!make_dir(dir, 0, 4)) {
		ret = iot_nvme_btf_layout(dir, &l, err, sizeof(err));
		result("btf_no_struct_refused", ret == -1 &&
		       strstr(err, "no struct nvme_request"), err);
		clean_dir(dir);
	}

	/* no module BTF (5.10): the message the user sees */
	if (!make_dir(dir, 0, -1)) {
		ret = iot_nvme_btf_layout(dir, &l, err, sizeof(err));
		result("btf_no_module_btf", ret == IOT_BTF_NONE &&
		       strstr(err, NO_MODULE_BTF), err);
		clean_dir(dir);
	}

	/* nvme_core built in: the struct is in vmlinux */
	if (!make_dir(dir, 1, -1)) {
		ret = iot_nvme_btf_layout(dir, &l, err, sizeof(err));
		snprintf(why, sizeof(why), "ret %d (%s), status @%u, %s",
			 ret, ret ? err : "", l.status_off, l.source);
		result("btf_builtin_vmlinux", !ret && l.status_off == 20 &&
		       l.result_off == 8 && strstr(l.source, "/vmlinux"), why);
		clean_dir(dir);
	}

	/* no BTF at all */
	ret = iot_nvme_btf_layout("/nonexistent-btf-dir", &l, err, sizeof(err));
	result("btf_no_btf_at_all", ret == IOT_BTF_NONE &&
	       strstr(err, "no /nonexistent-btf-dir/vmlinux"), err);
	return fails ? 1 : 0;
}
