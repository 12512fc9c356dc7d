// SPDX-License-Identifier: GPL-2.0
/* iotrace - placeholder, replaced by the core data path. */
#include <linux/module.h>
#include <linux/iotrace.h>

static int __init iotrace_init(void)
{
	BUILD_BUG_ON(sizeof(struct iotrace_record) != IOTRACE_RECORD_SIZE);
	pr_info("iotrace: loaded\n");
	return 0;
}

static void __exit iotrace_exit(void)
{
}

module_init(iotrace_init);
module_exit(iotrace_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("iotrace: per-disk I/O flight recorder");
