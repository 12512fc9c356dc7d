// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace - /dev/iotrace/<disk>: one misc character device per ring.
 *
 * Kernel lockdown (integrity, e.g. Secure Boot) makes debugfs refuse any
 * file that can be mapped or written, so <disk>/ring cannot be opened
 * there; a character device is not restricted.  The device gives exactly
 * what <disk>/ring gives (ringfile.c: read() and a read-only mmap() of the
 * ring, refusing writable opens and mappings) plus IOTRACE_IOC_INFLIGHT,
 * the in-flight table.  It is created with the ring and removed with it;
 * as with debugfs, an open file or a mapping keeps the ring (a disk
 * reference) and the module (the fops owner) after the device is gone.
 *
 * A misc device: misc_open() calls our open with misc_mtx held, the mutex
 * misc_deregister() takes, so the disk reference is taken before the
 * device can be removed and its disk freed; misc needs no class or chrdev
 * region of our own, whose APIs differ between the kernels supported.
 * Its minors are dynamic.  A ring whose device cannot be registered keeps
 * its debugfs files (a warning is logged).
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/uaccess.h>
#include <linux/timekeeping.h>
#include "iotrace.h"

/**
 * struct iotrace_cdev - the device of one ring.
 * @misc: the misc device.
 * @d: the ring; the disk list's reference outlives the device.
 * @name: device name, "iotrace-<disk>" (/sys/class/misc/).
 * @nodename: node under /dev, "iotrace/<disk>".
 */
struct iotrace_cdev {
	struct miscdevice	misc;
	struct iotrace_disk	*d;
	char			name[IOTRACE_NAME_LEN + 8];
	char			nodename[IOTRACE_NAME_LEN + 8];
};

/* Context: misc_mtx held by misc_open(), so @c is still registered. */
static int iotrace_cdev_open(struct inode *inode, struct file *file)
{
	struct iotrace_cdev *c = container_of(file->private_data,
					      struct iotrace_cdev, misc);

	return iotrace_ringf_open(c->d, file);
}

static long iotrace_cdev_inflight(struct iotrace_disk *d,
				  struct iotrace_inflight_req __user *ureq)
{
	struct iotrace_inflight_entry *e;
	struct iotrace_inflight_req req;
	long ret = 0;
	u32 n;

	if (copy_from_user(&req, ureq, sizeof(req)))
		return -EFAULT;
	e = iotrace_inflight_collect(d, &n);
	if (!e)
		return -ENOMEM;
	req.now_ns = ktime_get_ns();
	if (min(n, req.max) &&
	    copy_to_user(u64_to_user_ptr(req.entries), e,
			 (size_t)min(n, req.max) * sizeof(*e))) {
		ret = -EFAULT;
		goto out;
	}
	req.count = n;
	if (copy_to_user(ureq, &req, sizeof(req)))
		ret = -EFAULT;
out:
	kvfree(e);
	return ret;
}

/*
 * Copy the records @v of the in-flight requests to @req's user buffer,
 * @req->record_size bytes apart, each padded with zeroes to it.
 */
static int iotrace_cdev_put_records(const struct iotrace_inflight_records *req,
				    const struct iotrace_record *v, u32 n)
{
	char __user *p = u64_to_user_ptr(req->records);
	size_t pad = req->record_size - sizeof(*v);
	u32 i;

	for (i = 0; i < n; i++, p += req->record_size) {
		if (copy_to_user(p, &v[i], sizeof(*v)))
			return -EFAULT;
		if (pad && clear_user(p + sizeof(*v), pad))
			return -EFAULT;
	}
	return 0;
}

/*
 * IOTRACE_IOC_INFLIGHT_RECORDS: the requests in flight on @d, each as the
 * record its completion would write, without the completion.
 */
static long iotrace_cdev_inflight_records(struct iotrace_disk *d,
					  struct iotrace_inflight_records __user *ureq)
{
	struct iotrace_inflight_records req;
	struct iotrace_record *v;
	u32 n, torn;
	long ret;

	if (copy_from_user(&req, ureq, sizeof(req)))
		return -EFAULT;
	if (req.record_size < sizeof(*v) || req.record_size > PAGE_SIZE ||
	    req.reserved[0] || req.reserved[1])
		return -EINVAL;
	v = iotrace_inflight_records(d, &n, &torn);
	if (!v)
		return -ENOMEM;
	req.now_ns = ktime_get_ns();
	ret = iotrace_cdev_put_records(&req, v, min(n, req.max));
	kvfree(v);
	if (ret)
		return ret;
	req.count = n;
	req.torn = torn;
	req.record_size = sizeof(*v);
	if (copy_to_user(ureq, &req, sizeof(req)))
		return -EFAULT;
	return 0;
}

static long iotrace_cdev_ioctl(struct file *file, unsigned int cmd,
			       unsigned long arg)
{
	switch (cmd) {
	case IOTRACE_IOC_INFLIGHT:
		return iotrace_cdev_inflight(file->private_data,
					     (void __user *)arg);
	case IOTRACE_IOC_INFLIGHT_RECORDS:
		return iotrace_cdev_inflight_records(file->private_data,
						     (void __user *)arg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations iotrace_cdev_fops = {
	.owner		= THIS_MODULE,
	.open		= iotrace_cdev_open,
	.release	= iotrace_ringf_release,
	.read		= iotrace_ringf_read,
	.llseek		= iotrace_ringf_llseek,
	.mmap		= iotrace_ringf_mmap,
	.unlocked_ioctl	= iotrace_cdev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

/**
 * iotrace_chardev_add() - create /dev/iotrace/<disk> for a ring.
 * @d: the ring, being published.
 *
 * Return: 0 or a negative errno (the ring stays usable through debugfs).
 */
int iotrace_chardev_add(struct iotrace_disk *d)
{
	struct iotrace_cdev *c;
	int ret;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->d = d;
	snprintf(c->name, sizeof(c->name), "iotrace-%s", d->name);
	snprintf(c->nodename, sizeof(c->nodename), "iotrace/%s", d->name);
	c->misc.minor = MISC_DYNAMIC_MINOR;
	c->misc.name = c->name;
	c->misc.nodename = c->nodename;
	c->misc.mode = 0400;
	c->misc.fops = &iotrace_cdev_fops;
	ret = misc_register(&c->misc);
	if (ret) {
		kfree(c);
		return ret;
	}
	d->cdev = c;
	return 0;
}

/**
 * iotrace_chardev_remove() - remove the device of a ring, if it has one.
 * @d: the ring, detached.
 *
 * Open files and mappings of the device keep working on the ring.
 */
void iotrace_chardev_remove(struct iotrace_disk *d)
{
	struct iotrace_cdev *c = d->cdev;

	if (!c)
		return;
	d->cdev = NULL;
	misc_deregister(&c->misc);
	kfree(c);
}
