// SPDX-License-Identifier: GPL-2.0
/*
 * iores_claim - test-only module: claims a range of /proc/iomem as a
 * driver would (IORESOURCE_BUSY), inserted into the resource tree: over a
 * "Reserved" range it covers (as x86 lists the PCI configuration space,
 * ECAM, over the firmware's reservation), or as a child of one it lies
 * in.  persist_devmem.sh checks that iotrace's persist= refuses both.
 */
#include <linux/module.h>
#include <linux/ioport.h>

static unsigned long start;
module_param(start, ulong, 0444);
MODULE_PARM_DESC(start, "First byte of the range claimed");

static unsigned long size;
module_param(size, ulong, 0444);
MODULE_PARM_DESC(size, "Bytes claimed (non-zero)");

static struct resource iores_claim_res = {
	.name	= "iores_claim",
	.flags	= IORESOURCE_MEM | IORESOURCE_BUSY,
};

static int __init iores_claim_init(void)
{
	if (!size || start + size - 1 < start)
		return -EINVAL;
	iores_claim_res.start = start;
	iores_claim_res.end = start + size - 1;
	return insert_resource(&iomem_resource, &iores_claim_res);
}

static void __exit iores_claim_exit(void)
{
	remove_resource(&iores_claim_res);
}

module_init(iores_claim_init);
module_exit(iores_claim_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("iotrace selftests: claim an iomem range");
