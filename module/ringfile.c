// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace - the file operations of a ring, shared by debugfs <disk>/ring
 * and the character device /dev/iotrace/<disk> (chardev.c), and the
 * in-flight table snapshot shared by debugfs <disk>/inflight and the
 * device's IOTRACE_IOC_INFLIGHT.
 *
 * An open ring file holds a reference on the disk (the mapping keeps it
 * through the file until the last unmap), counts itself in ring_opens so
 * that a resize keeps the ring it may have mapped, and refuses writing:
 * the ring is read() or mapped read-only, never writably.  The module
 * stays loaded while such a file exists because its file_operations name
 * THIS_MODULE as their owner.
 */
#include <linux/kernel.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>
#include <linux/timekeeping.h>
#include "iotrace.h"
#include "compat.h"

/**
 * iotrace_ringf_open() - make @file a reader of the ring of @d.
 * @d: the disk; the caller makes sure it cannot be freed meanwhile.
 * @file: the file being opened.
 *
 * Return: 0, or -EPERM for an open for writing.
 */
int iotrace_ringf_open(struct iotrace_disk *d, struct file *file)
{
	if (file->f_mode & FMODE_WRITE)
		return -EPERM;
	kref_get(&d->kref);
	atomic_inc(&d->ring_opens);
	/* counted before d->ring is read: see iotrace_nl_resize() */
	smp_mb__after_atomic();
	file->private_data = d;
	return 0;
}

/**
 * iotrace_ringf_release() - the last reference to an open ring file went.
 * @inode: its inode.
 * @file: the file.
 *
 * Return: 0.
 */
int iotrace_ringf_release(struct inode *inode, struct file *file)
{
	struct iotrace_disk *d = file->private_data;

	if (atomic_dec_and_test(&d->ring_opens))
		iotrace_nl_ring_closed(d);
	iotrace_disk_put(d);
	return 0;
}

/*
 * A resize may replace d->ring at any time; a ring replaced while this
 * file is open stays allocated until the last ring file is closed, and its
 * size is in its own header.
 */
static void *iotrace_ringf_get(struct iotrace_disk *d, size_t *size)
{
	void *ring = READ_ONCE(d->ring);

	*size = ((struct iotrace_ring_hdr *)ring)->ring_size;
	return ring;
}

ssize_t iotrace_ringf_read(struct file *file, char __user *buf, size_t count,
			   loff_t *ppos)
{
	size_t size;
	void *ring = iotrace_ringf_get(file->private_data, &size);

	return simple_read_from_buffer(buf, count, ppos, ring, size);
}

loff_t iotrace_ringf_llseek(struct file *file, loff_t off, int whence)
{
	size_t size;

	iotrace_ringf_get(file->private_data, &size);
	return fixed_size_llseek(file, off, whence, size);
}

/**
 * iotrace_ringf_mmap() - map (part of) the ring read-only.
 * @file: an open ring file.
 * @vma: the new mapping.
 *
 * VM_MAYWRITE is cleared: mprotect(PROT_WRITE) fails later.
 *
 * Return: 0, -EPERM for a writable mapping, -EINVAL outside the ring.
 */
int iotrace_ringf_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long size = vma->vm_end - vma->vm_start;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	size_t ring_size;
	void *ring = iotrace_ringf_get(file->private_data, &ring_size);

	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	if (off >= ring_size || size > ring_size - off)
		return -EINVAL;
	iotrace_vma_make_ro(vma);
	return remap_vmalloc_range(vma, ring, vma->vm_pgoff);
}

static int iotrace_inflight_cmp(const void *a, const void *b)
{
	const struct iotrace_inflight_entry *x = a, *y = b;

	if (x->issue_ns != y->issue_ns)
		return x->issue_ns < y->issue_ns ? -1 : 1;
	return 0;
}

/**
 * iotrace_inflight_collect() - the requests of a disk in flight now.
 * @d: the disk.
 * @nr: set to the number of entries returned.
 *
 * Return: a kvmalloc()ed array of *@nr entries, oldest issue first (free
 * it with kvfree()), or NULL when out of memory.
 */
struct iotrace_inflight_entry *iotrace_inflight_collect(struct iotrace_disk *d,
							u32 *nr)
{
	u32 i, n = 0, total = d->nr_hwq * d->depth;
	struct iotrace_inflight_entry *e;

	e = kvmalloc_array(max(total, 1U), sizeof(*e), GFP_KERNEL);
	if (!e)
		return NULL;
	for (i = 0; i < total; i++) {
		struct iotrace_slot *s = &d->slots[i];
		/* pairs with the smp_wmb() after an odd generation */
		u32 gen = smp_load_acquire(&s->gen);

		if ((gen & 1) || !READ_ONCE(s->rq))
			continue;
		memset(&e[n], 0, sizeof(e[n]));
		e[n].issue_ns = s->issue_ns;
		e[n].sector = s->sector;
		e[n].bytes = s->bytes;
		e[n].hwq = i / d->depth;
		e[n].tag = s->tag;
		e[n].cpu = s->issue_cpu;
		e[n].op = s->op;
		/* copy done before the generation is read again */
		smp_rmb();
		if (READ_ONCE(s->gen) != gen || !READ_ONCE(s->rq))
			continue;
		n++;
	}
	sort(e, n, sizeof(*e), iotrace_inflight_cmp, NULL);
	*nr = n;
	return e;
}
