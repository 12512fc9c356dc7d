// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace - NVMe controller rings: the requests of a controller's admin
 * queue (nvme id-ctrl, smart-log, admin-passthru, the driver's own admin
 * commands), which have no gendisk.
 *
 * Discovery: a notifier on the PCI bus reports every device as a driver
 * binds to it and before a driver unbinds from it.  For a device bound to
 * the "nvme" driver, the controller is its child device of class "nvme"
 * ("nvme0"); the ring is created then (and at load for devices already
 * bound) and detached when the driver is about to unbind, before the
 * driver frees its admin queue and controller.  The PCI bus type lives in
 * the kernel image, so nvme-core and nvme may come and go at any time;
 * nothing of theirs is referenced.
 *
 * Mapping a request to its ring uses public fields only: an admin request
 * has no gendisk, and its queue's tag set carries the driver's data
 * pointer.  That is the nvme_ctrl on 6.12 (every transport, through
 * nvme_alloc_admin_tag_set()) and on 6.1 for the fabrics transports, and
 * nvme-pci's nvme_dev on 6.1 (its own admin tag set).  The controller
 * device's driver data is the nvme_ctrl (nvme_init_ctrl() in both) and
 * the PCI device's is the nvme_dev (pci_set_drvdata() in nvme_probe() in
 * both): a ring keeps both pointers and matches either, never
 * dereferencing them.  Checked in Debian's 6.1.192 and 6.12.117 sources.
 *
 * The ring is created only when the driver has finished binding: admin
 * commands of the driver's probe (the first Identify, on 6.12 all of
 * them) come before and are not recorded.
 */
#include <linux/kernel.h>
#include <linux/device.h>
#include <linux/pci.h>
#include <linux/kdev_t.h>
#include <linux/rculist.h>
#include "iotrace.h"
#include "compat.h"

/* Controller rings, for the probes (RCU); changed under iotrace_mutex. */
static HLIST_HEAD(iotrace_ctrl_list);

/**
 * iotrace_ctrl_lookup() - the controller ring of an admin queue.
 * @key: the driver data of the request queue's tag set.
 *
 * Context: rcu_read_lock() (or preemption disabled) held.
 * Return: the ring or NULL.
 */
struct iotrace_disk *iotrace_ctrl_lookup(const void *key)
{
	struct iotrace_disk *d;

	if (!key)
		return NULL;
	hlist_for_each_entry_rcu(d, &iotrace_ctrl_list, hnode)
		if (d->ctrl_key == key || d->bus_key == key)
			return d;
	return NULL;
}

/* Under iotrace_mutex: the ring of @bus_dev, if any. */
static struct iotrace_disk *iotrace_ctrl_find(const struct device *bus_dev)
{
	struct iotrace_disk *d;

	lockdep_assert_held(&iotrace_mutex);
	list_for_each_entry(d, &iotrace_disks, node)
		if (d->bus_dev == bus_dev)
			return d;
	return NULL;
}

static int iotrace_ctrl_is_nvme(struct device *dev, IOTRACE_FIND_CHILD_DATA *data)
{
	return dev->class && dev->class->name &&
	       !strcmp(dev->class->name, "nvme");
}

static bool iotrace_ctrl_driver_is_nvme(const struct device *dev)
{
	return dev->driver && dev->driver->name &&
	       !strcmp(dev->driver->name, "nvme");
}

/*
 * A driver is bound to @bus_dev.  Context: device_lock(@bus_dev) held, so
 * adds and removes of one device never race.
 */
static void iotrace_ctrl_add(struct device *bus_dev)
{
	struct iotrace_disk *d;
	struct device *cdev;
	bool known;
	int ret;

	if (!iotrace_ctrl_driver_is_nvme(bus_dev))
		return;
	cdev = device_find_child(bus_dev, NULL, iotrace_ctrl_is_nvme);
	if (!cdev)
		return;
	mutex_lock(&iotrace_mutex);
	known = iotrace_ctrl_find(bus_dev);
	mutex_unlock(&iotrace_mutex);
	if (known)
		goto out;
	/* One hardware queue; NVMe admin queues are at most 4096 deep. */
	d = iotrace_disk_alloc(dev_name(cdev), 1, IOTRACE_MIN_TAGS);
	if (IS_ERR(d)) {
		pr_warn("iotrace: %s: not traced: %ld\n", dev_name(cdev),
			PTR_ERR(d));
		goto out;
	}
	d->ctrl_key = dev_get_drvdata(cdev);
	d->bus_key = dev_get_drvdata(bus_dev);
	d->bus_dev = bus_dev;
	d->rec_rflags = IOTRACE_RF_ADMIN;
	d->hdr_flags = IOTRACE_RING_CONTROLLER;
	d->dev_major = MAJOR(cdev->devt);
	d->dev_minor = MINOR(cdev->devt);
	ret = iotrace_disk_publish(d, &iotrace_ctrl_list);
	if (ret)
		pr_warn("iotrace: %s: not traced: %d\n", dev_name(cdev), ret);
out:
	put_device(cdev);
}

/* A driver is about to unbind from @bus_dev (or it is being removed). */
static void iotrace_ctrl_remove(struct device *bus_dev)
{
	struct iotrace_disk *d;

	mutex_lock(&iotrace_mutex);
	d = iotrace_ctrl_find(bus_dev);
	if (d)
		iotrace_disk_detach_locked(d);
	mutex_unlock(&iotrace_mutex);
	if (d)
		iotrace_disk_detached(d);
}

static int iotrace_ctrl_notify(struct notifier_block *nb,
			       unsigned long action, void *data)
{
	struct device *dev = data;

	switch (action) {
	case BUS_NOTIFY_BOUND_DRIVER:
		iotrace_ctrl_add(dev);
		break;
	case BUS_NOTIFY_UNBIND_DRIVER:
		iotrace_ctrl_remove(dev);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block iotrace_ctrl_nb = {
	.notifier_call	= iotrace_ctrl_notify,
};

static int iotrace_ctrl_scan(struct device *dev, void *data)
{
	device_lock(dev);
	iotrace_ctrl_add(dev);
	device_unlock(dev);
	return 0;
}

/**
 * iotrace_ctrls_init() - create rings for NVMe PCI controllers, now and
 *	as they are bound.
 *
 * The notifier is registered before the scan: a controller bound in
 * between is seen by both, and the second add finds its ring.
 *
 * Return: 0 or the errno of bus_register_notifier().
 */
int iotrace_ctrls_init(void)
{
	int ret;

	ret = bus_register_notifier(&pci_bus_type, &iotrace_ctrl_nb);
	if (ret) {
		pr_err("iotrace: cannot watch PCI devices: %d\n", ret);
		return ret;
	}
	bus_for_each_dev(&pci_bus_type, NULL, NULL, iotrace_ctrl_scan);
	return 0;
}

/* Stop watching and detach every controller ring. */
void iotrace_ctrls_exit(void)
{
	struct iotrace_disk *d;

	bus_unregister_notifier(&pci_bus_type, &iotrace_ctrl_nb);
	for (;;) {
		mutex_lock(&iotrace_mutex);
		d = NULL;
		if (!hlist_empty(&iotrace_ctrl_list))
			d = hlist_entry(iotrace_ctrl_list.first,
					struct iotrace_disk, hnode);
		if (d)
			iotrace_disk_detach_locked(d);
		mutex_unlock(&iotrace_mutex);
		if (!d)
			break;
		iotrace_disk_detached(d);
	}
}

/*
 * Controller rings attached (for the status file), counted on the list: a
 * count kept beside it was raised outside the mutex, and nvme-pci binds
 * controllers in parallel (asynchronous probing).
 */
unsigned int iotrace_ctrls_count(void)
{
	struct iotrace_disk *d;
	unsigned int n = 0;

	mutex_lock(&iotrace_mutex);
	hlist_for_each_entry(d, &iotrace_ctrl_list, hnode)
		n++;
	mutex_unlock(&iotrace_mutex);
	return n;
}
