// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace - per-disk I/O flight recorder: module parameters, init, exit.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/ctype.h>
#include <linux/overflow.h>
#include "iotrace.h"
#include "cmd.h"

#define IOTRACE_MAX_SELECT	64

unsigned long iotrace_buf_size = IOTRACE_DEF_BUF_SIZE;

/* disks=: all (default), none, or a list of names. */
static bool iotrace_select_all = true;
static unsigned int iotrace_nr_select;
static char iotrace_select[IOTRACE_MAX_SELECT][IOTRACE_NAME_LEN];
static char iotrace_disks_str[IOTRACE_MAX_SELECT * IOTRACE_NAME_LEN];

/*
 * Decimal bytes with an optional K, M or G suffix; -EINVAL if not that
 * form, -ERANGE if it does not fit in 64 bits (memparse() would wrap:
 * 17179869185G is 2^64 + 1G).
 */
static int iotrace_parse_size(char *s, unsigned long long *v)
{
	size_t n = strspn(s, "0123456789");
	unsigned int shift = 0;
	char suffix = s[n];
	int ret;

	if (!n)
		return -EINVAL;
	switch (suffix) {
	case '\0':
		break;
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	default:
		return -EINVAL;
	}
	if (suffix && s[n + 1])
		return -EINVAL;
	s[n] = '\0';
	ret = kstrtoull(s, 10, v);
	s[n] = suffix;
	if (ret)
		return ret;
	if (check_shl_overflow(*v, shift, v))
		return -ERANGE;
	return 0;
}

static int iotrace_buf_size_set(const char *val, const struct kernel_param *kp)
{
	unsigned long min = iotrace_ring_min_size();
	unsigned long long v;
	struct iotrace_geom g;
	char buf[32];
	int ret;

	if (strscpy(buf, val ? val : "", sizeof(buf)) < 0) {
		pr_err("iotrace: buf_size=%s: not a size (longer than %zu characters); range %lu..%lu\n",
		       val, sizeof(buf) - 1, min, IOTRACE_MAX_BUF_SIZE);
		return -EINVAL;
	}
	ret = iotrace_parse_size(strim(buf), &v);
	if (ret == -ERANGE) {
		pr_err("iotrace: buf_size=%s: too large for 64 bits, out of range %lu..%lu\n",
		       val, min, IOTRACE_MAX_BUF_SIZE);
		return -ERANGE;
	}
	if (ret) {
		pr_err("iotrace: buf_size=%s: not a size (decimal bytes, or with a K, M or G suffix); range %lu..%lu\n",
		       val, min, IOTRACE_MAX_BUF_SIZE);
		return -EINVAL;
	}
	if (v > IOTRACE_MAX_BUF_SIZE ||
	    iotrace_ring_geometry(v, &g)) {
		pr_err("iotrace: buf_size=%s (%llu bytes) out of range %lu..%lu (2 chunks of at least %u records for each of %u possible CPUs), or 0 for metrics only\n",
		       val, v, min, IOTRACE_MAX_BUF_SIZE,
		       IOTRACE_MIN_CHUNK_RECORDS, nr_cpu_ids);
		return -ERANGE;
	}
	*(unsigned long *)kp->arg = v;
	return 0;
}

static const struct kernel_param_ops iotrace_buf_size_ops = {
	.set	= iotrace_buf_size_set,
	.get	= param_get_ulong,
};
module_param_cb(buf_size, &iotrace_buf_size_ops, &iotrace_buf_size, 0444);
MODULE_PARM_DESC(buf_size,
		 "bytes of ring per disk, K/M/G suffixes (default 4M, or the minimum if more; range 64K..1G, at least two 4K chunks per possible CPU; 0: no ring, in-kernel metrics only)");

static bool iotrace_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= IOTRACE_NAME_LEN)
		return false;
	for (; *s; s++)
		if (!isalnum(*s) && *s != '_' && *s != '-' && *s != '.')
			return false;
	return true;
}

static int iotrace_disks_set(const char *val, const struct kernel_param *kp)
{
	/* Parameter setting is serialized by the kernel_param lock. */
	static char buf[sizeof(iotrace_disks_str)];
	char *p, *tok;
	unsigned int n = 0;
	size_t len;

	if (strscpy(buf, val ? val : "", sizeof(buf)) < 0) {
		pr_err("iotrace: disks=: value too long\n");
		return -EINVAL;
	}
	p = strim(buf);
	if (!*p || !strcmp(p, "all")) {
		iotrace_select_all = true;
		iotrace_nr_select = 0;
		goto done;
	}
	iotrace_select_all = false;
	if (!strcmp(p, "none")) {
		iotrace_nr_select = 0;
		goto done;
	}
	while ((tok = strsep(&p, ",")) != NULL) {
		if (!iotrace_name_ok(tok) || n >= IOTRACE_MAX_SELECT) {
			pr_err("iotrace: disks=%s: bad disk name '%s' (want all, none, or up to %d comma-separated names of [A-Za-z0-9_.-], at most %d characters)\n",
			       val, tok, IOTRACE_MAX_SELECT,
			       IOTRACE_NAME_LEN - 1);
			return -EINVAL;
		}
		strscpy(iotrace_select[n++], tok, IOTRACE_NAME_LEN);
	}
	iotrace_nr_select = n;
done:
	/* as it is read back and logged: the names alone, comma-separated */
	iotrace_disks_str[0] = '\0';
	for (n = 0, len = 0; n < iotrace_nr_select; n++)
		len += scnprintf(iotrace_disks_str + len,
				 sizeof(iotrace_disks_str) - len, "%s%s",
				 n ? "," : "", iotrace_select[n]);
	return 0;
}

static int iotrace_disks_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", iotrace_select_all ? "all" :
			  iotrace_nr_select ? iotrace_disks_str : "none");
}

static const struct kernel_param_ops iotrace_disks_ops = {
	.set	= iotrace_disks_set,
	.get	= iotrace_disks_get,
};
module_param_cb(disks, &iotrace_disks_ops, NULL, 0444);
MODULE_PARM_DESC(disks,
		 "disks to trace from load: all (default), none, or a comma-separated list of disk names that must exist at load");

/**
 * iotrace_disks_select_all() - is disks= all?
 *
 * Return: true for all (the default), false for none or a list.
 */
bool iotrace_disks_select_all(void)
{
	return iotrace_select_all;
}

/**
 * iotrace_disk_selected() - does disks= select this disk?
 * @name: disk name.
 *
 * Return: true to enable it when it is attached.
 */
bool iotrace_disk_selected(const char *name)
{
	unsigned int i;

	if (iotrace_select_all)
		return true;
	for (i = 0; i < iotrace_nr_select; i++)
		if (!strcmp(iotrace_select[i], name))
			return true;
	return false;
}

/**
 * iotrace_disks_check_names() - every disk named in disks= must exist.
 *
 * Context: iotrace_mutex held.
 * Return: 0 or -ENODEV, with the missing name in the log.
 */
int iotrace_disks_check_names(void)
{
	struct iotrace_disk *d;
	unsigned int i;

	lockdep_assert_held(&iotrace_mutex);
	for (i = 0; i < iotrace_nr_select; i++) {
		bool found = false;

		list_for_each_entry(d, &iotrace_disks, node)
			if (!strcmp(d->name, iotrace_select[i]))
				found = true;
		if (!found) {
			pr_err("iotrace: disks=%s: no traceable disk '%s'\n",
			       iotrace_disks_str, iotrace_select[i]);
			return -ENODEV;
		}
	}
	return 0;
}

static int __init iotrace_init(void)
{
	int ret;

	if (!iotrace_buf_size && !iotrace_metrics_on) {
		pr_err("iotrace: buf_size=0 keeps only the metrics, and metrics=N keeps none: nothing to do (give a ring size or metrics=Y)\n");
		return -EINVAL;
	}
	/*
	 * The default is not checked by iotrace_buf_size_set(): with more
	 * than about 500 possible CPUs it is below the minimum (two chunks
	 * per possible CPU), and every disk would be left without a ring.
	 * A value given below the minimum was refused; the default is raised.
	 */
	if (iotrace_buf_size == IOTRACE_DEF_BUF_SIZE &&
	    iotrace_buf_size < iotrace_ring_min_size()) {
		iotrace_buf_size = iotrace_ring_min_size();
		pr_info("iotrace: buf_size: the default 4M is below the minimum for %u possible CPUs: %lu bytes\n",
			nr_cpu_ids, iotrace_buf_size);
	}
	iotrace_metrics_init();
	ret = iotrace_probes_find();
	if (ret)
		return ret;
	ret = iotrace_comm_init();
	if (ret)
		return ret;
	iotrace_netlink_init();
	iotrace_chardev_init();
	ret = iotrace_preg_init();
	if (ret)
		goto err_netlink;
	ret = iotrace_nvme_init();
	if (ret)
		goto err_preg;
	ret = iotrace_disks_init();
	if (ret)
		goto err_nvme;
	ret = iotrace_disks_check_selection();
	if (ret)
		goto err_disks;
	ret = iotrace_netlink_register();
	if (ret)
		goto err_disks;
	/*
	 * Nothing below fails: a file or netlink dump opened during a load
	 * that fails would call the module's code after it is freed.
	 */
	iotrace_debugfs_init();
	iotrace_preg_publish();
	iotrace_disks_publish();
	return 0;

err_disks:
	iotrace_preg_abort();
	iotrace_disks_exit();
err_nvme:
	iotrace_nvme_exit();
err_preg:
	iotrace_preg_unwind();
err_netlink:
	iotrace_chardev_exit();
	iotrace_netlink_exit();
	iotrace_comm_exit();
	return ret;
}

static void __exit iotrace_exit(void)
{
	iotrace_preg_quiesce();
	iotrace_disks_exit();
	iotrace_chardev_exit();
	iotrace_netlink_exit();
	iotrace_nvme_exit();
	iotrace_preg_exit();
	iotrace_debugfs_exit();
	iotrace_comm_exit();
}

module_init(iotrace_init);
module_exit(iotrace_exit);
MODULE_LICENSE("GPL");
MODULE_VERSION(IOTRACE_VERSION);
MODULE_DESCRIPTION("iotrace: per-disk I/O flight recorder");
