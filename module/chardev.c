// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace - /dev/iotrace/<disk>: one character device per ring.
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
 * A character device region of iotrace's own (IOTRACE_CDEV_MINORS minors
 * of a dynamic major) and the class "iotrace", not misc devices: the
 * dynamic misc minors are one pool that every driver shares (128 on 5.10
 * and 6.1), which a host with many disks would empty, failing the other
 * drivers that need one (nvme-fabrics, vsock, udmabuf).  An open finds
 * its ring by minor in iotrace_cdevs, under the xarray's lock, which the
 * removal takes to erase it: the disk reference is taken before the device
 * can be removed and its disk freed.  A ring whose device cannot be made
 * keeps its debugfs files (a warning is logged).
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/idr.h>
#include <linux/xarray.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/uaccess.h>
#include <linux/timekeeping.h>
#include "iotrace.h"
#include "compat.h"

/* minors of the region: one per ring at a time */
#define IOTRACE_CDEV_MINORS	BIT(16)

/**
 * struct iotrace_cdev - the device of one ring.
 * @cdev: its character device (cdev_alloc(): open files hold it after the
 *	removal, and its last reference frees it).
 * @dev: the class device, "iotrace-<disk>" (/sys/class/iotrace/).
 * @d: the ring; the disk list's reference outlives the device.
 * @minor: its minor in the region, its index in iotrace_cdevs.
 */
struct iotrace_cdev {
	struct cdev		*cdev;
	struct device		*dev;
	struct iotrace_disk	*d;
	u32			minor;
};

static dev_t iotrace_cdev_base;		/* the region; 0: none */
static DEFINE_IDA(iotrace_cdev_ida);
/* the devices by minor; the lock orders opens with removals */
static DEFINE_XARRAY(iotrace_cdevs);

/* /dev/iotrace/<disk>, mode 0400 (devtmpfs) */
static char *iotrace_cdev_devnode(IOTRACE_DEVNODE_CONST struct device *dev,
				  umode_t *mode)
{
	const struct iotrace_cdev *c = dev_get_drvdata(dev);

	if (mode)
		*mode = 0400;
	return c ? kasprintf(GFP_KERNEL, "iotrace/%s", c->d->name) : NULL;
}

static struct class iotrace_class = {
	.name		= "iotrace",
	.devnode	= iotrace_cdev_devnode,
};

/*
 * The ring of the device @inode opens, if it is still there: found under
 * the xarray's lock, which iotrace_chardev_remove() takes to erase it, so
 * the disk reference is taken before the disk can be freed.  The cdev is
 * compared, so that a minor a new ring took meanwhile is not opened
 * through an inode of the old one.
 */
static int iotrace_cdev_open(struct inode *inode, struct file *file)
{
	struct iotrace_cdev *c;
	int ret = -ENXIO;

	xa_lock(&iotrace_cdevs);
	c = xa_load(&iotrace_cdevs, iminor(inode));
	if (c && c->cdev == inode->i_cdev)
		ret = iotrace_ringf_open(c->d, file);
	xa_unlock(&iotrace_cdevs);
	return ret;
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
 * iotrace_chardev_init() - the region and the class of the devices.
 *
 * Without them no ring has a device (said once); the module loads all
 * the same, its rings read through debugfs.
 */
void iotrace_chardev_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&iotrace_cdev_base, 0, IOTRACE_CDEV_MINORS,
				  "iotrace");
	if (ret)
		goto err;
	ret = class_register(&iotrace_class);
	if (ret)
		goto err_region;
	return;

err_region:
	unregister_chrdev_region(iotrace_cdev_base, IOTRACE_CDEV_MINORS);
	iotrace_cdev_base = 0;
err:
	pr_warn("iotrace: no /dev/iotrace devices: %d\n", ret);
}

/**
 * iotrace_chardev_exit() - undo iotrace_chardev_init(), every device
 *	removed.
 */
void iotrace_chardev_exit(void)
{
	if (!iotrace_cdev_base)
		return;
	class_unregister(&iotrace_class);
	unregister_chrdev_region(iotrace_cdev_base, IOTRACE_CDEV_MINORS);
	iotrace_cdev_base = 0;
}

/**
 * iotrace_chardev_add() - create /dev/iotrace/<disk> for a ring.
 * @d: the ring, being published.
 *
 * Return: 0 or a negative errno (the ring stays usable through debugfs).
 */
int iotrace_chardev_add(struct iotrace_disk *d)
{
	struct iotrace_cdev *c;
	dev_t devt;
	int ret;

	if (!iotrace_cdev_base)
		return -ENODEV;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->d = d;
	ret = ida_alloc_max(&iotrace_cdev_ida, IOTRACE_CDEV_MINORS - 1,
			    GFP_KERNEL);
	if (ret < 0)
		goto err_free;
	c->minor = ret;
	devt = iotrace_cdev_base + c->minor;
	c->cdev = cdev_alloc();
	if (!c->cdev) {
		ret = -ENOMEM;
		goto err_minor;
	}
	c->cdev->owner = THIS_MODULE;
	c->cdev->ops = &iotrace_cdev_fops;
	ret = cdev_add(c->cdev, devt, 1);
	if (ret)
		goto err_cdev;
	/* opens find it from here on; the node comes with the device */
	ret = xa_err(xa_store(&iotrace_cdevs, c->minor, c, GFP_KERNEL));
	if (ret)
		goto err_del;
	c->dev = device_create(&iotrace_class, NULL, devt, c, "iotrace-%s",
			       d->name);
	if (IS_ERR(c->dev)) {
		ret = PTR_ERR(c->dev);
		goto err_erase;
	}
	d->cdev = c;
	return 0;

err_erase:
	xa_erase(&iotrace_cdevs, c->minor);
err_del:
	cdev_del(c->cdev);
	goto err_minor;
err_cdev:
	kobject_put(&c->cdev->kobj);
err_minor:
	ida_free(&iotrace_cdev_ida, c->minor);
err_free:
	kfree(c);
	return ret;
}

/**
 * iotrace_chardev_remove() - remove the device of a ring, if it has one.
 * @d: the ring, detached.
 *
 * Open files and mappings of the device keep working on the ring (they
 * hold it, and the cdev).
 */
void iotrace_chardev_remove(struct iotrace_disk *d)
{
	struct iotrace_cdev *c = d->cdev;

	if (!c)
		return;
	d->cdev = NULL;
	/* after this, no open takes a reference on @d through the device */
	xa_erase(&iotrace_cdevs, c->minor);
	device_destroy(&iotrace_class, iotrace_cdev_base + c->minor);
	cdev_del(c->cdev);
	ida_free(&iotrace_cdev_ida, c->minor);
	kfree(c);
}
