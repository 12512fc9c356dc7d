// SPDX-License-Identifier: GPL-2.0
/*
 * warn_on_load - test-only module for the VM harness self-test.
 *
 * Loading it prints one kernel WARNING (with a backtrace) and nothing else:
 * the harness must report the test that loaded it as failed.
 */
#include <linux/module.h>
#include <linux/bug.h>

static int __init warn_on_load_init(void)
{
	WARN(1, "warn_on_load: deliberate warning for the harness self-test\n");
	return 0;
}

static void __exit warn_on_load_exit(void)
{
}

module_init(warn_on_load_init);
module_exit(warn_on_load_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("iotrace harness self-test: WARN on load");
