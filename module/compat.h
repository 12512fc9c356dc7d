/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iotrace - the differences between the kernels iotrace builds for (the
 * matrix: 5.10 to 7.3), and nothing else.  No other file tests a kernel
 * version or an IOTRACE_HAVE_* flag.
 *
 * Each difference is keyed on what really tells it: a macro the kernel
 * defines, the type of a member, or a flag module/Kbuild sets from the
 * headers (IOTRACE_HAVE_*: vendor kernels such as RHEL 9's 5.14 backport
 * newer block and driver-core APIs, so a release number would be wrong).
 * The table of every difference is in Documentation/module.rst.
 */
#ifndef _IOTRACE_COMPAT_H
#define _IOTRACE_COMPAT_H

#include <linux/mm.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/blk-cgroup.h>
#include <linux/cgroup.h>
#include <linux/device.h>
#include <linux/err.h>
#include <net/genetlink.h>
#include <scsi/scsi_cmnd.h>
#include <linux/iotrace.h>

/*
 * system_wq was renamed system_percpu_wq in 6.17 (and the name backported
 * to 6.12.y); from 7.2 a work queued on the old name logs "enqueued on
 * deprecated workqueue".  Every work of iotrace is queued on IOTRACE_WQ
 * by name (queue_work(), queue_delayed_work(), mod_delayed_work()), never
 * through schedule_work(), whose queue a kernel may switch separately: a
 * work stays on one queue.
 */
#ifdef IOTRACE_HAVE_SYSTEM_PERCPU_WQ
#define IOTRACE_WQ	system_percpu_wq
#else
#define IOTRACE_WQ	system_wq
#endif

/*
 * REQ_HIPRI (polled I/O) was renamed REQ_POLLED in 5.16.  Both are macros.
 */
#ifdef REQ_POLLED
#define IOTRACE_REQ_POLLED	REQ_POLLED
#else
#define IOTRACE_REQ_POLLED	REQ_HIPRI
#endif

/*
 * SCSI passthrough requests (sd's own commands, SG_IO, sg) were
 * REQ_OP_SCSI_IN and REQ_OP_SCSI_OUT until 5.14, enum members (no macro
 * to test), REQ_OP_DRV_IN and REQ_OP_DRV_OUT since, as every other
 * passthrough request: recorded as IOTRACE_OP_DRV_IN/IOTRACE_OP_DRV_OUT on
 * every kernel.  The op of @op when it is one of them, else
 * IOTRACE_OP_UNKNOWN (iotrace_op()'s last resort, off the common ops).
 */
static inline u8 iotrace_op_scsi(unsigned int op)
{
#ifdef IOTRACE_HAVE_REQ_OP_SCSI
	if (op == REQ_OP_SCSI_IN)
		return IOTRACE_OP_DRV_IN;
	if (op == REQ_OP_SCSI_OUT)
		return IOTRACE_OP_DRV_OUT;
#endif
	return IOTRACE_OP_UNKNOWN;
}

/*
 * block_rq_complete reports the request's blk_status_t on 6.1 and later;
 * 5.10 passes a negative errno.  Detected from the tracepoint's prototype,
 * which iotrace_probes_find() checks against the probe's at compile time.
 */
#ifdef IOTRACE_HAVE_RQ_COMPLETE_ERRNO
#define iotrace_rq_error_t		int
#define iotrace_rq_errno(error)		(error)
#else
#define iotrace_rq_error_t		blk_status_t
#define iotrace_rq_errno(error)		blk_status_to_errno(error)
#endif

/*
 * Whether a queue's tags, the driver's and the scheduler's, are shared by
 * all its hardware queues (a host-wide tag space, BLK_MQ_F_TAG_HCTX_SHARED),
 * so that a tag is unique across them: the scheduler's since 5.16
 * (request_queue::sched_shared_tags).  Before, its scheduler tags were
 * per hardware queue: the in-flight table keeps a table per queue.
 */
#ifdef IOTRACE_HAVE_SCHED_SHARED_TAGS
static inline bool iotrace_tags_shared(struct request_queue *q)
{
	return q->tag_set->flags & BLK_MQ_F_TAG_HCTX_SHARED;
}
#else
static inline bool iotrace_tags_shared(struct request_queue *q)
{
	return false;
}
#endif

/*
 * The gendisk of a request queue (iotrace_q_disk()) or of a request
 * (iotrace_rq_gd()), or NULL (an NVMe admin queue):
 * request_queue::disk since 5.15.  Before, the queue's backing_dev_info
 * is owned by the disk's device from add_disk() to del_gendisk() (NULL
 * outside that, and for queues without a disk).  Used as a lookup key
 * only, never dereferenced.
 */
#ifdef IOTRACE_HAVE_Q_DISK
static inline struct gendisk *iotrace_q_disk(struct request_queue *q)
{
	return q->disk;
}

static inline struct gendisk *iotrace_rq_gd(struct request *rq)
{
	return rq->q->disk;
}
#else
static inline struct gendisk *iotrace_q_disk(struct request_queue *q)
{
	struct device *owner = READ_ONCE(q->backing_dev_info->owner);

	return owner ? dev_to_disk(owner) : NULL;
}

/*
 * Before 5.15 the queue's disk is gone from del_gendisk() on, while the
 * disk's requests may still be in flight (and a namespace's I/O queue
 * shares its tag set's driver data with the controller's admin queue):
 * the request's own rq_disk first (set from its bio, and by
 * blk_execute_rq() when given a disk), the queue's for the requests a
 * driver sends without one (sd's MODE SENSE).
 */
static inline struct gendisk *iotrace_rq_gd(struct request *rq)
{
	return rq->rq_disk ?: iotrace_q_disk(rq->q);
}
#endif

/*
 * Whether the disk of @q has a volatile write cache: bdev_write_cache()
 * since 6.0, the QUEUE_FLAG_WC queue flag before.
 */
static inline bool iotrace_q_write_cache(struct request_queue *q)
{
	struct gendisk *gd = iotrace_q_disk(q);

	if (!gd)
		return false;
#ifdef IOTRACE_HAVE_BDEV_WRITE_CACHE
	return bdev_write_cache(gd->part0);
#else
	return test_bit(QUEUE_FLAG_WC, &q->queue_flags);
#endif
}

/*
 * class_interface callbacks lost their interface argument in 6.4.
 */
#ifdef IOTRACE_HAVE_INTF_DEV_ONLY
#define IOTRACE_CLASS_INTF_ARGS(dev)	struct device *(dev)
#else
#define IOTRACE_CLASS_INTF_ARGS(dev)	struct device *(dev), \
					struct class_interface *intf
#endif

/*
 * device_find_child() match callbacks take const data since 6.14.
 */
#ifdef IOTRACE_HAVE_FIND_CHILD_CONST
#define IOTRACE_FIND_CHILD_DATA	const void
#else
#define IOTRACE_FIND_CHILD_DATA	void
#endif

/*
 * vma->vm_flags became const with the vm_flags_set() wrappers in 6.3.
 */
static inline void iotrace_vma_make_ro(struct vm_area_struct *vma)
{
#ifdef IOTRACE_HAVE_VM_FLAGS_SET
	vm_flags_clear(vma, VM_MAYWRITE);
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
#else
	vma->vm_flags &= ~VM_MAYWRITE;
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
#endif
}

/*
 * Allocate a gendisk that is never added, only to learn its class and
 * device type: alloc_disk() until blk_alloc_disk(node) replaced it in
 * 5.14 (a macro, for its lockdep key), blk_alloc_disk(limits, node) since
 * 6.9.
 */
static inline struct gendisk *iotrace_alloc_probe_disk(void)
{
#if defined(IOTRACE_HAVE_ALLOC_DISK_LIM)
	struct gendisk *disk = blk_alloc_disk(NULL, NUMA_NO_NODE);

	return IS_ERR(disk) ? NULL : disk;
#elif defined(blk_alloc_disk)
	return blk_alloc_disk(NUMA_NO_NODE);
#else
	return alloc_disk(1);
#endif
}

/*
 * The CDB of a SCSI command: scsi_cmnd::cmnd is an array of 32 bytes since
 * 5.19, before a pointer to at least cmd_len bytes.  Told by its type.
 */
#define IOTRACE_SCSI_CDB_MAX	32

static inline const u8 *iotrace_scsi_cdb(const struct scsi_cmnd *cmd)
{
	BUILD_BUG_ON(!__same_type(cmd->cmnd, unsigned char *) &&
		     sizeof(cmd->cmnd) < IOTRACE_SCSI_CDB_MAX);
	return cmd->cmnd;
}

/*
 * The status and error registers a libata command completed with: named
 * status and error in struct ata_taskfile since 5.18 (unions with the
 * command and feature registers that hold them before).
 */
#ifdef IOTRACE_HAVE_ATA_TF_STATUS
#define iotrace_ata_tf_status(tf)	((tf)->status)
#define iotrace_ata_tf_error(tf)	((tf)->error)
#else
#define iotrace_ata_tf_status(tf)	((tf)->command)
#define iotrace_ata_tf_error(tf)	((tf)->feature)
#endif

/*
 * The attributes of a dump request, parsed and validated by genetlink:
 * in genl_dumpit_info::info (a struct genl_info) on 6.12 and 7.3, a
 * member of their own on 5.10 and 6.1.
 */
static inline struct nlattr **iotrace_genl_dump_attrs(struct netlink_callback *cb)
{
#ifdef IOTRACE_HAVE_GENL_DUMPIT_INFO_INFO
	return genl_dumpit_info(cb)->info.attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

/*
 * genl_family::resv_start_op (6.1): strict validation of the reserved
 * header byte for every command.  Before 6.1 the attributes are validated
 * strictly all the same (the default since 5.2), the reserved byte is not.
 */
static inline void iotrace_genl_resv_start_op(struct genl_family *family,
					      u8 op)
{
#ifdef IOTRACE_HAVE_GENL_RESV_START_OP
	family->resv_start_op = op;
#endif
}

/*
 * A multicast group only CAP_SYS_ADMIN may join: the flag
 * GENL_MCAST_CAP_SYS_ADMIN in genl_multicast_group::flags (6.7, and the
 * stable backports of 6.1.y and 6.6.y), or the bit cap_sys_admin in the
 * group (the backport to older stable series); Kbuild finds the bit in the
 * headers.  IOTRACE_MCGRP_PRIVATE is 1 when one of them exists: the
 * kernel then refuses the subscription of everyone else.  Where neither
 * does, any local user can join, and trigger events carry only a notice
 * (netlink.c).
 */
#if defined(GENL_MCAST_CAP_SYS_ADMIN)
#define IOTRACE_MCGRP_PRIVATE	1
#define IOTRACE_MCGRP_PRIV	.flags = GENL_MCAST_CAP_SYS_ADMIN,
#elif defined(IOTRACE_HAVE_GENL_MCGRP_CAP_SYS_ADMIN)
#define IOTRACE_MCGRP_PRIVATE	1
#define IOTRACE_MCGRP_PRIV	.cap_sys_admin = 1,
#else
#define IOTRACE_MCGRP_PRIVATE	0
#define IOTRACE_MCGRP_PRIV
#endif

/*
 * The cgroup a bio was charged to: bio_blkcg_css() since 5.19 (exported;
 * struct blkcg went private to block/), before that bio_blkcg() and the
 * public struct blkcg.  Either is the blkcg controller's css, whose cgroup
 * is the default-hierarchy one on cgroup v2.  The bio holds its blkg, and
 * so the css, until it ends.
 */
static inline u64 iotrace_bio_cgroup_id(struct bio *bio)
{
	struct cgroup_subsys_state *css = NULL;

#if defined(IOTRACE_HAVE_BIO_BLKCG_CSS)
	css = bio_blkcg_css(bio);
#elif defined(CONFIG_BLK_CGROUP)
	struct blkcg *b = bio_blkcg(bio);

	css = b ? &b->css : NULL;
#endif
	return css && css->cgroup ? cgroup_id(css->cgroup) : 0;
}

/*
 * block_io_start (6.5): a request is started, in the context of the task
 * that created it (blk_mq_bio_to_request() from submit_bio(), and
 * blk_execute_rq() for passthrough).  Earlier kernels have no tracepoint
 * there: their records carry no submitter (pid 0, unknown), and iotrace
 * has no use for block_rq_merge (which forgets the submitter of a request
 * merged into another) either.  The tracepoint's prototype is checked
 * against the probe's at compile time where it exists.
 */
typedef void (*iotrace_rq_probe_t)(void *data, struct request *rq);

#ifdef IOTRACE_HAVE_BLOCK_IO_START
#include <trace/events/block.h>
#define IOTRACE_TP_IO_START	"block_io_start"
#define IOTRACE_TP_RQ_MERGE	"block_rq_merge"
static inline void iotrace_check_io_start(iotrace_rq_probe_t probe)
{
	check_trace_callback_type_block_io_start(probe);
}
#else
#define IOTRACE_TP_IO_START	NULL
#define IOTRACE_TP_RQ_MERGE	NULL
static inline void iotrace_check_io_start(iotrace_rq_probe_t probe)
{
}
#endif

/*
 * The allocation time of a request, where its queue time starts.  Until
 * 6.9 rq->start_time_ns is it (when the kernel keeps it: I/O accounting or
 * a scheduler), free to read.  Since 6.9 the block layer takes its time
 * stamps (blk_time_get_ns()) from the plug's cached clock,
 * blk_plug::cur_ktime, which may be much older than the request: there
 * (IOTRACE_QUEUE_STAMP 1) the block_io_start probe reads the clock itself,
 * right after the request is set up from its bio (blktrace's G), into the
 * request's slot (iotrace_slot::start_ns).  blk_plug is in blkdev.h, in
 * blk_plug.h since 7.x; the plug's clock came after block_io_start (6.5).
 */
#if defined(IOTRACE_HAVE_PLUG_CLOCK) && defined(IOTRACE_HAVE_BLOCK_IO_START)
#define IOTRACE_QUEUE_STAMP	1
#else
#define IOTRACE_QUEUE_STAMP	0
#endif

/*
 * The persistent region (preg.c).  reserve_mem= came in 6.11 with
 * reserve_mem_find_by_name(); before, a region is named by its address.
 * CRC-32C: __crc32c_le() until 6.13, crc32c() of <linux/crc32.h> since;
 * both built in, never libcrc32c's module.
 * The panic notifier list moved to its own header in 5.14.
 */
#include <linux/crc32.h>
#ifdef IOTRACE_HAVE_PANIC_NOTIFIER_H
#include <linux/panic_notifier.h>
#endif

static inline int iotrace_reserve_mem_find(const char *name, phys_addr_t *addr,
					   size_t *size)
{
#ifdef IOTRACE_HAVE_RESERVE_MEM
	phys_addr_t sz;

	if (!reserve_mem_find_by_name(name, addr, &sz))
		return -ENOENT;
	*size = sz;
	return 0;
#else
	return -EOPNOTSUPP;
#endif
}

static inline u32 iotrace_crc32c(u32 crc, const void *p, size_t n)
{
#ifdef IOTRACE_HAVE_CRC32C
	return crc32c(crc, p, n);
#else
	return __crc32c_le(crc, p, n);
#endif
}

/*
 * A class's devnode callback takes a const struct device from 6.2 on
 * (chardev.c).
 */
#ifdef IOTRACE_HAVE_DEVNODE_CONST
#define IOTRACE_DEVNODE_CONST	const
#else
#define IOTRACE_DEVNODE_CONST
#endif

#endif /* _IOTRACE_COMPAT_H */
