/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iotrace - the differences between the kernels iotrace builds for
 * (Debian 12's 6.1 and its 6.12 backport), and nothing else.
 */
#ifndef _IOTRACE_COMPAT_H
#define _IOTRACE_COMPAT_H

#include <linux/version.h>
#include <linux/mm.h>
#include <linux/blkdev.h>
#include <linux/device.h>
#include <linux/err.h>

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
/* class_interface callbacks lost their interface argument in 6.3. */
#define IOTRACE_CLASS_INTF_ARGS(dev)	struct device *(dev)
#define iotrace_class_t			const struct class

static inline void iotrace_vma_make_ro(struct vm_area_struct *vma)
{
	vm_flags_clear(vma, VM_MAYWRITE);
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
}

/* Allocate a gendisk that is never added, only to learn its class. */
static inline struct gendisk *iotrace_alloc_probe_disk(void)
{
	struct gendisk *disk = blk_alloc_disk(NULL, NUMA_NO_NODE);

	return IS_ERR(disk) ? NULL : disk;
}
#else
#define IOTRACE_CLASS_INTF_ARGS(dev)	struct device *(dev), \
					struct class_interface *intf
#define iotrace_class_t			struct class

static inline void iotrace_vma_make_ro(struct vm_area_struct *vma)
{
	vma->vm_flags &= ~VM_MAYWRITE;
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
}

static inline struct gendisk *iotrace_alloc_probe_disk(void)
{
	return blk_alloc_disk(NUMA_NO_NODE);
}
#endif

#endif /* _IOTRACE_COMPAT_H */
