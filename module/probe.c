// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace - the hot path: block tracepoint probes and the slot table.
 *
 * block_io_start (where the kernel has it) notes the request's submitter
 * (and, since 6.9, its allocation time) in its slot in the disk's
 * in-flight table, block_rq_issue fills the
 * rest of the slot, block_rq_requeue counts a retry, block_rq_complete
 * (the final one of a request) writes the record into the completing
 * CPU's current chunk (ring.c) and frees the slot.  No lock, and no atomic read-modify-write
 * on a line another CPU writes except one per chunk: the reservation is a
 * local64_t that only the chunk's CPU updates, and local64 operations are
 * safe against a probe nesting on the same CPU.
 *
 * That holds only while the probe stays on its CPU: since 7.x tracepoint
 * probes run under SRCU, preemptible, and a task migrated between
 * reserving and publishing the record would write into another CPU's
 * chunk beside that CPU's own probes.  Every probe (and the command
 * probes around iotrace_note_cmd(), iotrace_cmd_slot() and
 * iotrace_note_status()) disables preemption once, for its whole run;
 * the helpers only assert it.
 *
 * That preempt-disabled run is also the probes' RCU read-side critical
 * section (since 4.20 synchronize_rcu(), call_rcu() and kfree_rcu() wait
 * for preempt-disabled code too): no rcu_read_lock(), which is a function
 * call and a store on a preemptible-RCU kernel, and rcu_dereference_sched()
 * for the disk's filter and triggers.
 */
#include <linux/kernel.h>
#include <linux/tracepoint.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/timekeeping.h>
#include <linux/smp.h>
#include <asm/local64.h>
#include <trace/events/block.h>
#include "iotrace.h"
#include "cmd.h"
#include "compat.h"

/* A tracepoint iotrace attaches to; an optional one may be missing. */
struct iotrace_tp {
	const char		*name;
	void			*probe;
	struct tracepoint	*tp;
	bool			optional;
};

static void iotrace_probe_io_start(void *data, struct request *rq);
static void iotrace_probe_io_stamp(void *data, struct request *rq);
static void iotrace_probe_merge(void *data, struct request *rq);
static void iotrace_probe_issue(void *data, struct request *rq);
static void iotrace_probe_requeue(void *data, struct request *rq);
static void iotrace_probe_complete(void *data, struct request *rq,
				   iotrace_rq_error_t error, unsigned int nr_bytes);

static struct iotrace_tp iotrace_tps[] = {
	{ .name = IOTRACE_TP_IO_START,	.probe = iotrace_probe_io_start,
	  .optional = true },
	{ .name = IOTRACE_TP_RQ_MERGE,	.probe = iotrace_probe_merge,
	  .optional = true },
	{ .name = "block_rq_issue",	.probe = iotrace_probe_issue },
	{ .name = "block_rq_requeue",	.probe = iotrace_probe_requeue },
	{ .name = "block_rq_complete",	.probe = iotrace_probe_complete },
};

/* Disks enabled; probes are registered while it is not zero. */
static unsigned int iotrace_probe_users;

/*
 * submitter=N: every record's pid 0 (unknown).  block_io_start and
 * block_rq_merge get no probe, one tracepoint and probe fewer per
 * request, unless the queue time needs block_io_start's clock read
 * (IOTRACE_QUEUE_STAMP): then block_io_start notes that stamp only.
 */
static bool iotrace_submitter = true;
module_param_named(submitter, iotrace_submitter, bool, 0444);
MODULE_PARM_DESC(submitter,
		 "note each request's submitter (pid, command name) at block_io_start (default Y; N: one tracepoint fewer per request, every record has pid 0, unknown)");

static const char * const iotrace_op_names[] = {
	[IOTRACE_OP_READ]		= "READ",
	[IOTRACE_OP_WRITE]		= "WRITE",
	[IOTRACE_OP_FLUSH]		= "FLUSH",
	[IOTRACE_OP_DISCARD]		= "DISCARD",
	[IOTRACE_OP_SECURE_ERASE]	= "SECERASE",
	[IOTRACE_OP_WRITE_ZEROES]	= "WZEROES",
	[IOTRACE_OP_ZONE_OPEN]		= "ZOPEN",
	[IOTRACE_OP_ZONE_CLOSE]		= "ZCLOSE",
	[IOTRACE_OP_ZONE_FINISH]	= "ZFINISH",
	[IOTRACE_OP_ZONE_APPEND]	= "ZAPPEND",
	[IOTRACE_OP_ZONE_RESET]		= "ZRESET",
	[IOTRACE_OP_ZONE_RESET_ALL]	= "ZRESETALL",
	[IOTRACE_OP_DRV_IN]		= "DRV_IN",
	[IOTRACE_OP_DRV_OUT]		= "DRV_OUT",
};

const char *iotrace_op_name(u8 op)
{
	if (op < ARRAY_SIZE(iotrace_op_names) && iotrace_op_names[op])
		return iotrace_op_names[op];
	return "UNKNOWN";
}

static u8 iotrace_op(const struct request *rq)
{
	switch (req_op(rq)) {
	case REQ_OP_READ:		return IOTRACE_OP_READ;
	case REQ_OP_WRITE:		return IOTRACE_OP_WRITE;
	case REQ_OP_FLUSH:		return IOTRACE_OP_FLUSH;
	case REQ_OP_DISCARD:		return IOTRACE_OP_DISCARD;
	case REQ_OP_SECURE_ERASE:	return IOTRACE_OP_SECURE_ERASE;
	case REQ_OP_WRITE_ZEROES:	return IOTRACE_OP_WRITE_ZEROES;
	case REQ_OP_ZONE_OPEN:		return IOTRACE_OP_ZONE_OPEN;
	case REQ_OP_ZONE_CLOSE:		return IOTRACE_OP_ZONE_CLOSE;
	case REQ_OP_ZONE_FINISH:	return IOTRACE_OP_ZONE_FINISH;
	case REQ_OP_ZONE_APPEND:	return IOTRACE_OP_ZONE_APPEND;
	case REQ_OP_ZONE_RESET:		return IOTRACE_OP_ZONE_RESET;
	case REQ_OP_ZONE_RESET_ALL:	return IOTRACE_OP_ZONE_RESET_ALL;
	case REQ_OP_DRV_IN:		return IOTRACE_OP_DRV_IN;
	case REQ_OP_DRV_OUT:		return IOTRACE_OP_DRV_OUT;
	default:			return iotrace_op_scsi(req_op(rq));
	}
}

/*
 * The metrics op (iotrace_rq_mop()) of each op iotrace_op() gives: the
 * kernel's direction of its REQ_OP_* number (op_is_write()) where the op
 * is not a group of its own.  The completion of a request that owns its
 * slot reads it from the op its issue noted.
 */
#define IOTRACE_MOP_DIR(op)	(((__force u32)(op) & 1) ? IOTRACE_MOP_WRITE : \
				 IOTRACE_MOP_READ)
static const u8 iotrace_op_mops[] = {
	[IOTRACE_OP_READ]		= IOTRACE_MOP_READ,
	[IOTRACE_OP_WRITE]		= IOTRACE_MOP_WRITE,
	[IOTRACE_OP_FLUSH]		= IOTRACE_MOP_FLUSH,
	[IOTRACE_OP_DISCARD]		= IOTRACE_MOP_DISCARD,
	[IOTRACE_OP_SECURE_ERASE]	= IOTRACE_MOP_DIR(REQ_OP_SECURE_ERASE),
	[IOTRACE_OP_WRITE_ZEROES]	= IOTRACE_MOP_DIR(REQ_OP_WRITE_ZEROES),
	[IOTRACE_OP_ZONE_OPEN]		= IOTRACE_MOP_DIR(REQ_OP_ZONE_OPEN),
	[IOTRACE_OP_ZONE_CLOSE]		= IOTRACE_MOP_DIR(REQ_OP_ZONE_CLOSE),
	[IOTRACE_OP_ZONE_FINISH]	= IOTRACE_MOP_DIR(REQ_OP_ZONE_FINISH),
	[IOTRACE_OP_ZONE_APPEND]	= IOTRACE_MOP_DIR(REQ_OP_ZONE_APPEND),
	[IOTRACE_OP_ZONE_RESET]		= IOTRACE_MOP_DIR(REQ_OP_ZONE_RESET),
	[IOTRACE_OP_ZONE_RESET_ALL]	= IOTRACE_MOP_DIR(REQ_OP_ZONE_RESET_ALL),
	[IOTRACE_OP_DRV_IN]		= IOTRACE_MOP_PASSTHRU,
	[IOTRACE_OP_DRV_OUT]		= IOTRACE_MOP_PASSTHRU,
};

/* The metrics op of @rq, whose op @op its issue noted. */
static __always_inline u8 iotrace_op_mop(struct request *rq, u8 op)
{
	u8 mop = likely(op < ARRAY_SIZE(iotrace_op_mops)) ?
		iotrace_op_mops[op] : iotrace_rq_mop(rq);

	iotrace_assert(mop == iotrace_rq_mop(rq));
	return mop;
}

static __always_inline u16 iotrace_opflags(const struct request *rq)
{
	typeof(rq->cmd_flags) f = rq->cmd_flags;
	u16 o = 0;

	o |= (f & REQ_SYNC) ? IOTRACE_OPF_SYNC : 0;
	o |= (f & REQ_META) ? IOTRACE_OPF_META : 0;
	o |= (f & REQ_PRIO) ? IOTRACE_OPF_PRIO : 0;
	o |= (f & REQ_NOMERGE) ? IOTRACE_OPF_NOMERGE : 0;
	o |= (f & REQ_IDLE) ? IOTRACE_OPF_IDLE : 0;
	o |= (f & REQ_FUA) ? IOTRACE_OPF_FUA : 0;
	o |= (f & REQ_PREFLUSH) ? IOTRACE_OPF_PREFLUSH : 0;
	o |= (f & REQ_RAHEAD) ? IOTRACE_OPF_RAHEAD : 0;
	o |= (f & REQ_BACKGROUND) ? IOTRACE_OPF_BACKGROUND : 0;
	o |= (f & REQ_NOWAIT) ? IOTRACE_OPF_NOWAIT : 0;
	o |= (f & IOTRACE_REQ_POLLED) ? IOTRACE_OPF_POLLED : 0;
	o |= (f & REQ_NOUNMAP) ? IOTRACE_OPF_NOUNMAP : 0;
	return o;
}

/*
 * The flush request of the block layer's flush machinery (one per flush
 * queue, blk-flush.c): REQ_OP_FLUSH in a flush sequence.  Requests of a
 * sequence keep their own op (a write), and no bio is REQ_OP_FLUSH.
 */
static bool iotrace_is_flush_rq(const struct request *rq)
{
	return req_op(rq) == REQ_OP_FLUSH && (rq->rq_flags & RQF_FLUSH_SEQ);
}

/* The data phase of a request in a flush sequence (PREFLUSH/FUA write). */
static bool iotrace_is_flush_data(const struct request *rq)
{
	return (rq->rq_flags & RQF_FLUSH_SEQ) && req_op(rq) != REQ_OP_FLUSH;
}

/*
 * The flushes the machinery runs for @rq, a request of a flush sequence:
 * the submitted bio keeps REQ_PREFLUSH and REQ_FUA, the request loses
 * them (and keeps REQ_FUA when the device has FUA).
 */
static u16 iotrace_flush_rflags(const struct request *rq)
{
	typeof(rq->bio->bi_opf) f;

	if (!rq->bio)
		return 0;
	f = rq->bio->bi_opf;
	return ((f & REQ_PREFLUSH) ? IOTRACE_RF_PREFLUSH : 0) |
		((f & REQ_FUA) && !(rq->cmd_flags & REQ_FUA) ?
		 IOTRACE_RF_POSTFLUSH : 0);
}

/*
 * The slot of the flush request @rq of @d: the flush slot kept for it, or
 * the first free one, claimed; NULL if none is left.  The block layer
 * keeps a flush request per flush queue (one per hardware queue, chosen
 * by the submitting CPU), but runs it on the hardware queue of the write
 * it borrows its tag from (blk_kick_flush()): two CPUs' polled writes go
 * to one poll queue, and their flush queues' requests can be in flight
 * on it at the same time.
 * So a flush slot is kept for a flush request, not for a hardware queue;
 * there are as many as hardware queues, so as flush queues.  None left
 * (the queues were replaced, and their new flush requests are not those
 * the slots are kept for): a new table is asked for.  Out of line: flush
 * requests are few.
 */
static noinline struct iotrace_slot *
iotrace_flush_slot(struct iotrace_disk *d, struct request *rq)
{
	struct request **keys = d->flush_keys;
	u32 i;

	for (i = 0; i < d->nr_flush; i++) {
		struct request *k = READ_ONCE(keys[i]);

		/* claimed once, by whichever CPU meets it first */
		if (!k)
			k = cmpxchg(&keys[i], NULL, rq);
		if (!k || k == rq)
			return &d->slots[d->nr_hwq * d->depth + i];
	}
	return NULL;
}

/*
 * The slot key must stay the same from issue to completion: the scheduler
 * tag when there is one (the driver tag is given back on requeue), else the
 * driver tag (kept across requeue).  Both are per hardware queue; no tag
 * is -1 (BLK_MQ_NO_TAG, private to the block layer).  The flush request
 * borrows the tag of the first request waiting for it, which keeps its
 * slot until its own flush sequence ends: it has a flush slot of its own
 * (iotrace_flush_slot()).
 */
static __always_inline bool
iotrace_slot_find(struct iotrace_disk *d, struct request *rq,
		  struct iotrace_slot **sp)
{
	u32 hwq, tag;

	if (!rq->mq_hctx || !d->slots)
		return false;
	/* the slot returned, not stored through @sp: no stack canary */
	if (unlikely(iotrace_is_flush_rq(rq))) {
		*sp = iotrace_flush_slot(d, rq);
		return !!*sp;
	}
	hwq = rq->mq_hctx->queue_num;
	/* nr_flush: the disk's hardware queues */
	if (hwq >= d->nr_flush)
		return false;
	tag = rq->internal_tag >= 0 ? rq->internal_tag : rq->tag;
	if (tag >= d->depth)
		return false;
	/* a shared tag set's tags are unique across its queues: stride 0 */
	*sp = &d->slots[hwq * d->hwq_stride + tag];
	return true;
}

/*
 * @rq of the enabled disk @d found no slot at its issue: if its tag or its
 * hardware queue is above the table (not a request the table never
 * covers), ask for a table that covers it; if it is a flush request that
 * found every flush slot kept for another, for a table with new flush
 * slots.  Out of line: only a request without a slot comes here.
 */
static noinline void iotrace_slot_missed(struct iotrace_disk *d,
					 struct request *rq)
{
	u32 tag;

	if (!rq->mq_hctx || !d->slots)
		return;
	if (iotrace_is_flush_rq(rq)) {
		/* every flush slot kept for another flush request */
		set_bit(IOTRACE_SLOTS_REKEY, &d->slots_flags);
		iotrace_slots_outgrown(d);
		return;
	}
	tag = rq->internal_tag >= 0 ? rq->internal_tag : rq->tag;
	if (rq->mq_hctx->queue_num >= d->nr_flush || tag >= d->depth)
		iotrace_slots_outgrown(d);
}

/*
 * The slot of @rq on @d, NULL if none.  The probes' own paths use
 * iotrace_slot_find(), whose success needs no NULL test of the slot.
 */
static __always_inline struct iotrace_slot *
iotrace_slot_of(struct iotrace_disk *d, struct request *rq)
{
	struct iotrace_slot *s;

	return iotrace_slot_find(d, rq, &s) ? s : NULL;
}

/*
 * The ring of @rq, enabled or not: its disk's, or for a request without a
 * disk on a queue without queuedata (an NVMe admin queue: passthrough
 * only) its controller's, found by the tag set's driver data.  A
 * namespace's queue has its namespace as queuedata: a command nvme-core
 * sends there without a disk (a reservation, a zone report; on 5.10 any
 * request of a hidden path's queue) is no admin command.  The caller has
 * preemption disabled (an RCU read-side critical section, see the top of
 * this file).
 */
static __always_inline struct iotrace_disk *
iotrace_rq_lookup(struct request *rq)
{
	struct request_queue *q = rq->q;
	struct gendisk *gd = iotrace_rq_gd(rq);

	if (likely(gd))
		return iotrace_disk_lookup(gd);
	if (!blk_rq_is_passthrough(rq) || !q->tag_set || q->queuedata)
		return NULL;
	return iotrace_ctrl_lookup(q->tag_set->driver_data);
}

/*
 * Look the ring of @rq up if its slots are kept (the disk is enabled and
 * its table not being regrown, whatever happens to the ring); the caller
 * has preemption disabled.
 */
static __always_inline struct iotrace_disk *
iotrace_rq_disk(struct request *rq)
{
	struct iotrace_disk *d = iotrace_rq_lookup(rq);

	/* pairs with the store-release in iotrace_disk_set_state() */
	if (!d || !(smp_load_acquire(&d->state) & IOTRACE_ST_SLOTS))
		return NULL;
	return d;
}

/* The slot of @rq on an enabled disk; the caller has preemption disabled. */
static __always_inline struct iotrace_slot *
iotrace_rq_slot(struct request *rq)
{
	struct iotrace_disk *d = iotrace_rq_disk(rq);

	return d ? iotrace_slot_of(d, rq) : NULL;
}

static inline void iotrace_slot_begin(struct iotrace_slot *s)
{
	WRITE_ONCE(s->gen, s->gen + 1);
	/* odd generation visible before the slot changes */
	smp_wmb();
}

static inline void iotrace_slot_end(struct iotrace_slot *s)
{
	/* slot contents visible before the even generation */
	smp_wmb();
	WRITE_ONCE(s->gen, s->gen + 1);
}

/*
 * The allocation time of @rq, noted at its block_io_start where the
 * kernel's own stamp may be stale (IOTRACE_QUEUE_STAMP): a clock read,
 * the clock of the issue and completion times.  A passthrough request's
 * block_io_start is its execution (blk_execute_rq()), right after its
 * submitter mapped its buffer: the queue time starts there.  Its kernel
 * stamp is no better on these kernels: on 7.3 it was seen seconds older
 * than the process that allocated the request.
 */
static __always_inline u64 iotrace_start_stamp(void)
{
	return ktime_get_ns();
}

/*
 * Note in slot @s what block_io_start gives: the submitter (@pid,
 * @rflags) of @rq and, with IOTRACE_QUEUE_STAMP, its allocation time.
 * No generation bump: these are read only by the request's own issue and
 * completion, through sub_rq; the inflight and stuck readers, which
 * check the generation, copy none of them.
 */
static __always_inline void iotrace_slot_start(struct iotrace_slot *s,
					       struct request *rq, u32 pid,
					       u16 rflags)
{
	IOTRACE_PROF_P(t1);

	iotrace_assert_cpu_held();
	WRITE_ONCE(s->sub_rq, NULL);
	/* old owner gone before the fields change */
	smp_wmb();
	if (IOTRACE_QUEUE_STAMP) {
		iotrace_prof_pstart(t1);
		s->start_ns = iotrace_start_stamp();
		iotrace_prof_part(IOTRACE_PF_IO_START_CLOCK, t1);
	}
	s->pid = pid;
	s->sub_rflags = rflags;
	/* fields complete before they are tagged with their request */
	smp_wmb();
	WRITE_ONCE(s->sub_rq, rq);
}

/*
 * block_io_start: @rq is started by the task that created it (its first
 * bio's submitter, or the caller of blk_execute_rq()), in that task's
 * context.  A kernel thread's I/O (writeback, the journal, a driver's own
 * commands) is the kernel's: pid 0 and IOTRACE_RF_KERNEL, not the thread's
 * pid.  Outside a task (an interrupt) the submitter is unknown: pid 0.
 */
static void iotrace_probe_io_start(void *data, struct request *rq)
{
	IOTRACE_PROF_T(t0);
	IOTRACE_PROF_P(t1);
	struct iotrace_disk *d;
	struct iotrace_slot *s;
	u16 rflags = 0;
	u32 pid = 0;

	preempt_disable_notrace();
	iotrace_prof_pstart(t1);
	d = iotrace_rq_disk(rq);
	if (!d || !iotrace_slot_find(d, rq, &s))
		goto out;
	iotrace_prof_part(IOTRACE_PF_IO_START_LOOKUP, t1);
	iotrace_assert_cpu_held();
	if (in_task()) {
		if (current->flags & PF_KTHREAD) {
			rflags = IOTRACE_RF_KERNEL;
		} else {
			pid = task_tgid_nr(current);
			iotrace_comm_note(pid);
		}
	}
	iotrace_slot_start(s, rq, pid, rflags);
out:
	preempt_enable_notrace();
	iotrace_prof(IOTRACE_PF_IO_START, t0);
}

/*
 * block_io_start with submitter=N where the queue time needs its stamp
 * (IOTRACE_QUEUE_STAMP): the allocation time only, no submitter (pid 0).
 */
static void iotrace_probe_io_stamp(void *data, struct request *rq)
{
	IOTRACE_PROF_T(t0);
	struct iotrace_slot *s;

	preempt_disable_notrace();
	s = iotrace_rq_slot(rq);
	if (s)
		iotrace_slot_start(s, rq, 0, 0);
	preempt_enable_notrace();
	iotrace_prof(IOTRACE_PF_IO_START, t0);
}

/*
 * block_rq_merge: @rq is merged into another request and freed without a
 * completion; its submitter and allocation time must not outlive it (the
 * tag's next request is the same struct request).  The request it merged
 * into keeps its own.
 */
static void iotrace_probe_merge(void *data, struct request *rq)
{
	struct iotrace_slot *s;

	preempt_disable_notrace();
	s = iotrace_rq_slot(rq);
	/* no generation bump, as in iotrace_probe_io_start() */
	if (s && READ_ONCE(s->sub_rq) == rq)
		WRITE_ONCE(s->sub_rq, NULL);
	preempt_enable_notrace();
}

/* The submitter noted for @rq in @s (may be NULL): true if there is one. */
static __always_inline bool iotrace_slot_sub(const struct iotrace_slot *s,
					     const struct request *rq)
{
	if (!s || READ_ONCE(s->sub_rq) != rq)
		return false;
	/* pairs with the smp_wmb() before sub_rq is set */
	smp_rmb();
	return true;
}

/*
 * The allocation time of @rq, where its queue time starts (0: unknown):
 * with IOTRACE_QUEUE_STAMP (compat.h) the stamp its block_io_start noted
 * in slot @s (may be NULL), else, and for a request allocated before its
 * disk was enabled, the kernel's rq->start_time_ns; never that of a
 * passthrough request there (iotrace_start_stamp()).
 */
static __always_inline u64 iotrace_rq_start(const struct iotrace_slot *s,
					    struct request *rq)
{
	if (IOTRACE_QUEUE_STAMP && iotrace_slot_sub(s, rq))
		return s->start_ns;
	if (IOTRACE_QUEUE_STAMP && blk_rq_is_passthrough(rq))
		return 0;
	return rq->start_time_ns;
}

/*
 * persist=: the copy of @rq's slot @s of @d in the persistent region, as
 * the record its completion would write (abi.rst, "The persistent
 * region"), for the next boot to find the requests in flight at a crash.
 * Written at issue, again when a command is captured after it (SCSI), and
 * emptied at completion.  Odd generation while it is written.
 */
static noinline void iotrace_preg_issue(struct iotrace_disk *d,
					struct iotrace_slot *s,
					struct request *rq)
{
	struct iotrace_preg_slot *p = d->pslots;
	struct iotrace_record *r;
	size_t i = s - d->slots;
	u16 rflags;

	if (!p || i >= d->nr_pslots)
		return;
	p += i;
	r = &p->rec;
	WRITE_ONCE(p->gen, 1);
	/* odd generation before the copy changes */
	smp_wmb();
	rflags = iotrace_slot_rec(r, s, rq);
	p->flags = rflags & IOTRACE_RF_CMD_VALID ? IOTRACE_PREG_S_CMD : 0;
	rflags |= (s->rflags | d->rec_rflags) & ~IOTRACE_RF_COMPLETE;
	if (blk_rq_is_passthrough(rq))
		rflags |= IOTRACE_RF_PASSTHRU;
	r->rflags = rflags;
	/* the copy whole before the even generation */
	smp_wmb();
	WRITE_ONCE(p->gen, 2);
}

/* persist=: @rq, which owned slot @s of @d, completed. */
static noinline void iotrace_preg_done(struct iotrace_disk *d,
				       struct iotrace_slot *s)
{
	size_t i = s - d->slots;

	if (!d->pslots || i >= d->nr_pslots)
		return;
	/* the record written before the copy goes */
	smp_store_release(&d->pslots[i].gen, 0);
}

/**
 * iotrace_cmd_issued() - a command was written into @rq's slot @s while
 *	@rq owns it (captured after the issue, SCSI; or again before a
 *	re-issue).
 * @s: the slot.
 * @rq: the request.
 *
 * Ends the odd generation iotrace_cmd_slot_of() began for it (only the
 * tag's owner, the caller, writes the generation, and it is even outside
 * the owner's updates), so that a reader of the slot
 * (iotrace_slot_read_rec()) keeps no command half rewritten; with
 * persist=, the request's persistent copy gets it too.
 *
 * Context: a probe, preemption disabled (iotrace_cmd_publish()).
 */
void iotrace_cmd_issued(struct iotrace_slot *s, struct request *rq)
{
	struct iotrace_disk *d;

	iotrace_slot_end(s);
	if (!static_branch_unlikely(&iotrace_preg_key) ||
	    READ_ONCE(s->rq) != rq)
		return;
	d = iotrace_rq_disk(rq);
	if (d && d->slots && s >= d->slots && s < d->slots + d->nr_pslots)
		iotrace_preg_issue(d, s, rq);
}

static void iotrace_probe_issue(void *data, struct request *rq)
{
	IOTRACE_PROF_T(t0);
	IOTRACE_PROF_P(t1);
	struct iotrace_disk *d;
	struct iotrace_slot *s;
	u64 now, start, queue = 0;
	u16 rflags = 0;
	u8 retries = 0;

	preempt_disable_notrace();
	iotrace_prof_pstart(t1);
	d = iotrace_rq_disk(rq);
	if (!d)
		goto out;
	if (!iotrace_slot_find(d, rq, &s)) {
		iotrace_slot_missed(d, rq);
		goto out;
	}
	iotrace_prof_part(IOTRACE_PF_ISSUE_LOOKUP, t1);
	iotrace_assert_cpu_held();
	iotrace_prof_pstart(t1);
	now = ktime_get_ns();
	iotrace_prof_part(IOTRACE_PF_ISSUE_CLOCK, t1);
	/*
	 * A re-issue after requeue keeps the retry count, a timeout, a
	 * requeue trigger's mark (iotrace_probe_requeue()) and the queue
	 * time of the first issue.
	 */
	if (READ_ONCE(s->rq) == rq && (s->rflags & IOTRACE_RF_REQUEUED)) {
		rflags = s->rflags & (IOTRACE_RF_REQUEUED | IOTRACE_RF_TIMEOUT |
				      IOTRACE_RF_TRIGGER |
				      IOTRACE_RF_QUEUE_VALID |
				      IOTRACE_RF_QUEUE_SAT);
		retries = s->retries;
		queue = s->queue_ns;
	} else {
		start = iotrace_rq_start(s, rq);
		if (start && start <= now) {
			queue = now - start;
			rflags |= IOTRACE_RF_QUEUE_VALID;
			if (queue > U32_MAX) {
				queue = U32_MAX;
				rflags |= IOTRACE_RF_QUEUE_SAT;
			}
		}
	}
	if (iotrace_is_flush_data(rq))
		rflags |= iotrace_flush_rflags(rq);
	iotrace_slot_begin(s);
	s->queue_ns = queue;
	s->issue_ns = now;
	s->sector = blk_rq_pos(rq);
	s->bytes = blk_rq_bytes(rq);
	s->op = iotrace_op(rq);
	s->opflags = iotrace_opflags(rq);
	s->issue_cpu = smp_processor_id();
	s->tag = rq->tag;
	s->hwq = rq->mq_hctx->queue_num;
	s->retries = retries;
	s->rflags = rflags;
	WRITE_ONCE(s->seq_wait, 0);
	s->cgroup = rq->bio ? iotrace_bio_cgroup_id(rq->bio) : 0;
	/* seq_wait cleared before: see iotrace_slot_recorded() */
	smp_store_release(&s->rq, rq);
	iotrace_slot_end(s);
	if (static_branch_unlikely(&iotrace_preg_key))
		iotrace_preg_issue(d, s, rq);
out:
	preempt_enable_notrace();
	iotrace_prof(IOTRACE_PF_ISSUE, t0);
}

/*
 * The requeue of @rq in slot @s of @d reached the trigger's count: an
 * event for the request in flight (its record will carry
 * IOTRACE_RF_TRIGGER from the slot).
 */
static noinline void iotrace_trig_requeue(struct iotrace_disk *d,
					  const struct iotrace_trig *t,
					  struct request *rq,
					  const struct iotrace_slot *s)
{
	struct iotrace_trig_evt ev = {
		.reason		= IOTRACE_TRIG_REQUEUES,
		.time_ns	= ktime_get_ns(),
		.issue_ns	= s->issue_ns,
		.sector		= s->sector,
		.bytes		= s->bytes,
		.hwq		= rq->mq_hctx ? rq->mq_hctx->queue_num : 0,
		.tag		= s->tag,
		.op		= s->op,
		.retries	= s->retries,
		.has		= IOTRACE_TE_ISSUE | IOTRACE_TE_LAT,
	};

	ev.lat_ns = ev.time_ns > ev.issue_ns ? ev.time_ns - ev.issue_ns : 0;
	/*
	 * Its submitter, as iotrace_fill() takes it (the probe holds @s):
	 * pid 0 without IOTRACE_RF_KERNEL is none noted (submitter=N, or a
	 * request started outside a task), no pid in the event.
	 */
	if (iotrace_slot_sub(s, rq) &&
	    (s->pid || (s->sub_rflags & IOTRACE_RF_KERNEL))) {
		ev.pid = s->pid;
		ev.has |= IOTRACE_TE_PID;
	}
	iotrace_trig_post(d, t, &ev);
}

/*
 * The command of @rq's attempt that is requeued is captured again when it
 * is re-issued, and the status of this attempt must not outlive it: a
 * retry that succeeds records no stale failure.
 */
static __always_inline void iotrace_slot_untag_attempt(struct iotrace_slot *s,
						       struct request *rq)
{
	if (READ_ONCE(s->cmd_rq) == rq)
		WRITE_ONCE(s->cmd_rq, NULL);
	if (READ_ONCE(s->status_rq) == rq)
		WRITE_ONCE(s->status_rq, NULL);
}

/*
 * Whether @rq timed out as far as the block layer knows: RQF_TIMED_OUT,
 * unless the status noted in @s (@status: it is @rq's) is libata's, whose
 * error handler sets it on every command it takes (iotrace_note_eh_status()).
 */
static __always_inline bool iotrace_rq_timed_out(const struct request *rq,
						 const struct iotrace_slot *s,
						 bool status)
{
	if (likely(!(rq->rq_flags & RQF_TIMED_OUT)))
		return false;
	return !status || !s->status_eh;
}

static void iotrace_probe_requeue(void *data, struct request *rq)
{
	const struct iotrace_trig *t;
	struct iotrace_disk *d;
	struct iotrace_slot *s;
	bool counted, fire, status;
	unsigned int state;

	preempt_disable_notrace();
	d = iotrace_rq_lookup(rq);
	if (!d)
		goto out;
	/* pairs with the store-release in iotrace_disk_set_state() */
	state = smp_load_acquire(&d->state);
	if (!state)
		goto out;
	/* counted while the table is regrown too (IOTRACE_ST_RECORD only) */
	iotrace_metrics_requeue(d->metrics);
	if (!(state & IOTRACE_ST_SLOTS))
		goto out;
	s = iotrace_slot_of(d, rq);
	if (!s)
		goto out;
	if (READ_ONCE(s->rq) != rq) {
		/*
		 * Issued before the enable or the table's regrowth: its
		 * retry takes the slot at its issue, where the command and
		 * status of this attempt must not be taken for the retry's
		 * (libata notes no status of a command that succeeds).
		 */
		iotrace_slot_untag_attempt(s, rq);
		goto out;
	}
	iotrace_assert_cpu_held();
	iotrace_slot_begin(s);
	s->rflags |= IOTRACE_RF_REQUEUED;
	/* The block layer clears RQF_TIMED_OUT right after this event. */
	status = READ_ONCE(s->status_rq) == rq;
	if (status) {
		/* pairs with the smp_wmb() before status_rq is set */
		smp_rmb();
	}
	if (iotrace_rq_timed_out(rq, s, status) ||
	    (status && (s->status_rflags & IOTRACE_RF_TIMEOUT)))
		s->rflags |= IOTRACE_RF_TIMEOUT;
	counted = s->retries < U8_MAX;
	if (counted)
		s->retries++;
	iotrace_slot_untag_attempt(s, rq);
	t = rcu_dereference_sched(d->trig);
	/* once: a count that stops at 255 stays equal to 255 */
	fire = unlikely(t) && t->requeues && counted &&
		s->retries == t->requeues;
	if (fire)
		s->rflags |= IOTRACE_RF_TRIGGER;
	iotrace_slot_end(s);
	if (fire)
		iotrace_trig_requeue(d, t, rq, s);
out:
	preempt_enable_notrace();
}

/*
 * Untag what @rq noted in slot @s beside its issue: its submitter,
 * command and device status.
 */
static __always_inline void iotrace_slot_untag(struct iotrace_slot *s,
					       struct request *rq)
{
	if (READ_ONCE(s->sub_rq) == rq)
		WRITE_ONCE(s->sub_rq, NULL);
	iotrace_slot_untag_attempt(s, rq);
}

/* The request is done: nothing of it may be seen by the next one. */
static void iotrace_slot_release(struct iotrace_slot *s, struct request *rq)
{
	bool own;

	if (!s)
		return;
	own = READ_ONCE(s->rq) == rq;
	if (!own && READ_ONCE(s->cmd_rq) != rq &&
	    READ_ONCE(s->status_rq) != rq && READ_ONCE(s->sub_rq) != rq)
		return;
	/*
	 * No generation bump: a reader of the issue's fields checks the
	 * owner again after its copy, and the next owner's issue bumps it.
	 * seq_wait stays as it is (1 at the end of a flush sequence): it
	 * never goes back to 0 under an owner, so that a reader that saw
	 * the owner and seq_wait 0 saw a request in flight (ringfile.c); the
	 * next issue clears it.
	 */
	if (own)
		WRITE_ONCE(s->rq, NULL);
	iotrace_slot_untag(s, rq);
}

/*
 * The data phase of @rq, a flush sequence's request that does not own its
 * slot @s (issued before its disk was enabled), completed: @rq takes the
 * slot, marked, for the end of its sequence to be told from a request of
 * its own (iotrace_slot_done()).  No other request holds its tag meanwhile
 * (the flush request has a slot of its own).  Under an odd generation, as
 * an issue: the readers see the owner with seq_wait set and list nothing.
 */
static void iotrace_slot_wait_unowned(struct iotrace_slot *s,
				      struct request *rq)
{
	iotrace_slot_begin(s);
	WRITE_ONCE(s->seq_wait, 1);
	/* seq_wait set before: see iotrace_slot_recorded() */
	smp_store_release(&s->rq, rq);
	iotrace_slot_end(s);
	iotrace_slot_untag(s, rq);
}

/*
 * A completion of @rq is through with its slot: free it, unless it is the
 * data phase of a flush sequence (@seq_data), whose request still ends
 * once more, with no bytes left, when the sequence ends: then the slot is
 * kept, marked, for that end to be told from a request of its own (and
 * taken, marked, by such a request issued before its disk was enabled).
 */
static void iotrace_slot_done(struct iotrace_slot *s, struct request *rq,
			      bool seq_data)
{
	if (!seq_data || !s) {
		iotrace_slot_release(s, rq);
		return;
	}
	if (READ_ONCE(s->rq) != rq) {
		iotrace_slot_wait_unowned(s, rq);
		return;
	}
	/* no generation bump, as in iotrace_slot_release() */
	WRITE_ONCE(s->seq_wait, 1);
	if (READ_ONCE(s->cmd_rq) == rq)
		WRITE_ONCE(s->cmd_rq, NULL);
	if (READ_ONCE(s->status_rq) == rq)
		WRITE_ONCE(s->status_rq, NULL);
}

/*
 * iotrace_slot_done() for a completion that owns its slot (@own: @s is
 * not NULL and its request is @rq): the common case, inline, where the
 * slot is freed in place; else, and for the data phase of a flush
 * sequence, out of line.
 */
static __always_inline void iotrace_slot_consume(struct iotrace_slot *s,
						 struct request *rq,
						 bool own, bool seq_data)
{
	if (!own || seq_data) {
		iotrace_slot_done(s, rq, seq_data);
		return;
	}
	/* no generation bump, as in iotrace_slot_release(); seq_wait is 0 */
	WRITE_ONCE(s->rq, NULL);
	iotrace_slot_untag(s, rq);
}

/*
 * An empty PREFLUSH write (blkdev_issue_flush()) that the flush machinery
 * ended after its flush: never issued itself, counted by the kernel as a
 * write.
 */
static u16 iotrace_empty_flush_rflags(const struct request *rq)
{
	if (!rq->bio || !(rq->bio->bi_opf & REQ_PREFLUSH) || blk_rq_bytes(rq) ||
	    !iotrace_q_write_cache(rq->q))
		return 0;
	return IOTRACE_RF_PREFLUSH;
}

/*
 * The end of a flush sequence whose data phase made the record, told
 * without a slot of its own (@rq's tag is above the in-flight table, see
 * iotrace_slot_find(), or the table was regrown since its data phase, see
 * iotrace_complete_unowned()): a write with PREFLUSH or FUA (its bio keeps
 * them) out of the sequence, with no bytes left of the segments it had.
 * An empty PREFLUSH write (blkdev_issue_flush()) never had one: its end is
 * its only record.  Out of line: only a request without a slot of its own
 * comes here.
 */
static noinline bool iotrace_flush_end_unslotted(const struct request *rq)
{
	return !(rq->rq_flags & RQF_FLUSH_SEQ) && !blk_rq_bytes(rq) &&
	       rq->nr_phys_segments && req_op(rq) == REQ_OP_WRITE && rq->bio &&
	       (rq->bio->bi_opf & (REQ_PREFLUSH | REQ_FUA));
}

/*
 * The allocation time of @rq (slot @s, may be NULL), an empty PREFLUSH
 * write that completed at @now, for its record's issue_ns: its record
 * then gives the wait for its flush (complete_ns - issue_ns).  0 when
 * unknown.
 */
static u64 iotrace_empty_flush_start(struct request *rq,
				     const struct iotrace_slot *s, u64 now)
{
	u64 start = iotrace_rq_start(s, rq);

	return start <= now ? start : 0;
}

/*
 * Fill @r from @rq and its slot @s (may be NULL), consuming the slot (see
 * iotrace_slot_done() for @seq_data); @own: @s is @rq's (not NULL, its
 * issue noted), known by the caller; @rec_rflags are the ring's own
 * record flags, @now the completion time.  Without @cmds (no command
 * ever noted on the disk) the record's command area is left as it is:
 * zero, as no record of the ring ever had a command.  With @path (the
 * record of a multipath head) the slot is left to the path's own record
 * and @path is stamped at IOTRACE_CMD_PATH_OFF.
 */
static __always_inline void iotrace_fill(struct iotrace_record *r,
					 struct request *rq,
					 struct iotrace_slot *s, bool own,
					 iotrace_rq_error_t error,
					 u16 rec_rflags, bool cmds,
					 bool seq_data, u64 now, u32 path)
{
	u16 rflags = IOTRACE_RF_COMPLETE | rec_rflags;
	/* what @rq noted in @s, read once: its tags stay until it ends */
	bool sub = (own || s) && READ_ONCE(s->sub_rq) == rq;
	bool cmd = (own || s) && READ_ONCE(s->cmd_rq) == rq;
	bool status = (own || s) && READ_ONCE(s->status_rq) == rq;
	__le64 cgroup;

	/* pairs with the smp_wmb() before each of them is set */
	smp_rmb();
	r->complete_ns = now;
	r->error = error ? iotrace_rq_errno(error) : 0;
	if (sub) {
		r->pid = s->pid;
		rflags |= s->sub_rflags;
	} else {
		r->pid = 0;
	}
	if (own) {
		r->hwq = s->hwq;
		r->issue_ns = s->issue_ns;
		r->sector = s->sector;
		r->bytes = s->bytes;
		r->queue_ns = s->queue_ns;
		r->opflags = s->opflags;
		r->issue_cpu = s->issue_cpu;
		r->tag = s->tag;
		r->op = s->op;
		r->retries = s->retries;
		rflags |= s->rflags;
		cgroup = cpu_to_le64(s->cgroup);
	} else {
		r->hwq = rq->mq_hctx ? rq->mq_hctx->queue_num : 0;
		r->issue_ns = 0;
		r->sector = blk_rq_pos(rq);
		r->bytes = blk_rq_bytes(rq);
		r->queue_ns = 0;
		r->opflags = iotrace_opflags(rq);
		r->issue_cpu = U16_MAX;
		r->tag = rq->tag;
		r->op = iotrace_op(rq);
		r->retries = 0;
		rflags |= IOTRACE_RF_NO_ISSUE;
		if (unlikely(iotrace_empty_flush_rflags(rq))) {
			rflags |= IOTRACE_RF_PREFLUSH;
			r->issue_ns = iotrace_empty_flush_start(rq, s, now);
		}
		cgroup = cpu_to_le64(rq->bio ? iotrace_bio_cgroup_id(rq->bio) : 0);
	}
	if (cmd) {
		r->cmd_type = s->cmd_type;
		r->cmd_len = s->cmd_len;
		iotrace_cmd_copy(r->cmd, s->cmd);
		rflags |= s->cmd_rflags;
	} else if (unlikely(cmds)) {
		r->cmd_type = IOTRACE_CMD_NONE;
		r->cmd_len = 0;
		iotrace_cmd_clear(r->cmd);
	}
	/*
	 * ABI 2.0: never a command byte (cmd_scsi.c keeps CDBs to 32 bytes).
	 * A store, not a memcpy() of a local's address: that would give the
	 * probe a stack canary (-fstack-protector-strong).
	 */
	*(__le64 *)(r->cmd + IOTRACE_CMD_CGROUP_OFF) = cgroup;
	if (status) {
		r->dev_status = s->dev_status;
		r->dev_result = s->dev_result;
		rflags |= s->status_rflags | IOTRACE_RF_STATUS_VALID;
	} else {
		r->dev_status = 0;
		r->dev_result = 0;
	}
	if (r->error)
		rflags |= IOTRACE_RF_ERROR;
	if (iotrace_rq_timed_out(rq, s, status))
		rflags |= IOTRACE_RF_TIMEOUT;
	if (blk_rq_is_passthrough(rq))
		rflags |= IOTRACE_RF_PASSTHRU;
	r->rflags = rflags;
	if (path) {
		/* the metadata pointer's bytes, zeroed in a command */
		*(__le32 *)(r->cmd + IOTRACE_CMD_PATH_OFF) = cpu_to_le32(path);
		return;
	}
	if (!own || seq_data) {
		iotrace_slot_done(s, rq, seq_data);
		return;
	}
	/* iotrace_slot_consume() with the tags as read above */
	WRITE_ONCE(s->rq, NULL);
	if (sub)
		WRITE_ONCE(s->sub_rq, NULL);
	if (cmd)
		WRITE_ONCE(s->cmd_rq, NULL);
	if (status)
		WRITE_ONCE(s->status_rq, NULL);
}

/* Device status class of the metrics: see IOTRACE_MSTATUS_*. */
static u16 iotrace_mstatus(u8 kind, u32 st)
{
	switch (kind) {
	case IOTRACE_MSTATUS_NVME:	return st & 0x7ff;	/* SCT, SC */
	case IOTRACE_MSTATUS_SCSI:	return st & 0xff;
	case IOTRACE_MSTATUS_ATA:	return (st & 0xff) << 8 | ((st >> 8) & 0xff);
	default:			return 0;
	}
}

/*
 * Sum up the final completion of @rq at @now in @x (zeroed by the caller)
 * for the metrics and the triggers, from its slot @s (may be NULL; @own:
 * @rq's, see iotrace_fill()) before the record consumes it.
 */
static __always_inline void iotrace_count(struct request *rq,
					  const struct iotrace_slot *s,
					  bool own, iotrace_rq_error_t error,
					  u64 now, struct iotrace_mdone *x)
{
	bool status;

	x->errno_val = error ? -iotrace_rq_errno(error) : 0;
	if (own) {
		x->op = s->op;
		x->mop = iotrace_op_mop(rq, s->op);
		x->bytes = s->bytes;
		if (likely(now >= s->issue_ns)) {
			x->dev_ns = now - s->issue_ns;
			x->flags |= IOTRACE_MD_DEV;
		}
		if (s->rflags & IOTRACE_RF_QUEUE_VALID) {
			x->queue_ns = s->queue_ns;
			x->flags |= IOTRACE_MD_QUEUE;
		}
		if (s->rflags & IOTRACE_RF_TIMEOUT)
			x->flags |= IOTRACE_MD_TIMEOUT;
	} else {
		x->op = iotrace_op(rq);
		x->mop = iotrace_rq_mop(rq);
		x->bytes = blk_rq_bytes(rq);
	}
	/* zeroed: no device status (IOTRACE_MSTATUS_NONE), dev_ns 0, ... */
	status = (own || s) && READ_ONCE(s->status_rq) == rq;
	if (status) {
		/* pairs with the smp_wmb() before status_rq is set */
		smp_rmb();
	}
	if (iotrace_rq_timed_out(rq, s, status))
		x->flags |= IOTRACE_MD_TIMEOUT;
	if (status) {
		if (s->status_rflags & IOTRACE_RF_TIMEOUT)
			x->flags |= IOTRACE_MD_TIMEOUT;
		if (s->status_rflags & IOTRACE_RF_ERROR) {
			x->status_kind = s->status_kind;
			x->status = iotrace_mstatus(s->status_kind,
						    s->dev_status);
			x->flags |= IOTRACE_MD_DEVSTATUS;
		}
	}
	if (x->errno_val || x->status_kind != IOTRACE_MSTATUS_NONE)
		x->flags |= IOTRACE_MD_ERROR;
}

/* The slot of a record not written: consumed, unless for a head (@path). */
static __always_inline void iotrace_unrecorded(struct iotrace_slot *s,
					       struct request *rq, bool own,
					       bool seq_data, u32 path)
{
	if (!path)
		iotrace_slot_consume(s, rq, own, seq_data);
}

/*
 * Whether the filter @f keeps @rq (slot @s; @own: see iotrace_fill()),
 * judged as its record gives it: as issued.  What is left of a request at
 * its final completion after a partial one (a medium error's, a failover's)
 * is not what it asked for.
 */
static noinline bool iotrace_filter_rq(const struct iotrace_filter *f,
				       struct request *rq,
				       const struct iotrace_slot *s, bool own)
{
	if (own)
		return iotrace_filter_pass(f, s->op, s->sector, s->bytes);
	return iotrace_filter_pass(f, iotrace_op(rq), blk_rq_pos(rq),
				   blk_rq_bytes(rq));
}

/*
 * Record the final completion of @rq at @now in the ring of @d (in
 * state @state), consuming its slot @s (@own: see iotrace_fill()) unless
 * @path (a multipath head's record, see iotrace_fill()); @rflags are
 * added to the record.
 * With @ev, the record's CPU and sequence number are stored there.
 *
 * Return: true when the record was written.
 */
static __always_inline bool iotrace_record(struct iotrace_disk *d,
					   struct request *rq,
					   struct iotrace_slot *s, bool own,
					   iotrace_rq_error_t error,
					   unsigned int state, bool seq_data,
					   u64 now, u16 rflags,
					   struct iotrace_trig_evt *ev,
					   u32 path)
{
	IOTRACE_PROF_P(t1);
	const struct iotrace_filter *f;
	struct iotrace_record *r;
	u64 seq;
	u32 chunk;
	u32 cpu;

	/* The chunk is this CPU's until the record is published. */
	iotrace_assert_cpu_held();
	iotrace_prof_pstart(t1);
	cpu = smp_processor_id();
	if (unlikely(!(state & IOTRACE_ST_RECORD) || cpu >= d->nr_cpus)) {
		/* the ring is being reset or replaced: counted as dropped */
		this_cpu_inc(*d->held);
		iotrace_unrecorded(s, rq, own, seq_data, path);
		return false;
	}
	/* metrics only (buf_size 0): counted above, nothing to record */
	if (unlikely(!d->nr_chunks)) {
		iotrace_unrecorded(s, rq, own, seq_data, path);
		return false;
	}
	f = rcu_dereference_sched(d->filter);
	if (unlikely(f) && !iotrace_filter_rq(f, rq, s, own)) {
		local64_inc((local64_t *)&iotrace_cpu_hdr(d, cpu)->filtered);
		iotrace_unrecorded(s, rq, own, seq_data, path);
		return false;
	}
	iotrace_prof_part(IOTRACE_PF_C_RECORD, t1);
	/* Reserve (marked busy): IRQ-safe on this CPU, no LOCK prefix. */
	iotrace_prof_pstart(t1);
	r = iotrace_ring_reserve(d, cpu, &seq, &chunk);
	if (unlikely(!r)) {
		/* counted as dropped */
		iotrace_unrecorded(s, rq, own, seq_data, path);
		return false;
	}
	iotrace_prof_part(IOTRACE_PF_C_RESERVE, t1);
	iotrace_prof_pstart(t1);
	iotrace_fill(r, rq, s, own, error, d->rec_rflags | rflags,
		     READ_ONCE(d->cmds), seq_data, now, path);
	iotrace_prof_part(IOTRACE_PF_C_FILL, t1);
	if (ev) {
		ev->cpu = cpu;
		ev->seq = seq;
		ev->generation = READ_ONCE(d->hdr->generation);
		ev->has |= IOTRACE_TE_SEQ;
		if (r->rflags & IOTRACE_RF_STATUS_VALID) {
			ev->dev_status = r->dev_status;
			ev->has |= IOTRACE_TE_STATUS;
		}
		ev->retries = r->retries;
		/* pid 0 without IOTRACE_RF_KERNEL: no submitter noted */
		if (r->pid || (r->rflags & IOTRACE_RF_KERNEL)) {
			ev->pid = r->pid;
			ev->has |= IOTRACE_TE_PID;
		}
	}
	/* publish: the body is visible before the sequence number */
	iotrace_prof_pstart(t1);
	iotrace_ring_commit(d, cpu, r, seq, chunk);
	iotrace_prof_part(IOTRACE_PF_C_COMMIT, t1);
	return true;
}

/*
 * A completion that may fire a trigger of @d (out of the hot path): the
 * precise test, the record with IOTRACE_RF_TRIGGER, the hold, the event.
 * Its summary is made again here from the slot, still intact: the
 * caller's stays in registers (neither its address nor a copy of it
 * leaves the probe, which would keep it in memory, zeroed and stored
 * field by field, on every completion).
 */
static noinline void iotrace_complete_trig(struct iotrace_disk *d,
					   const struct iotrace_trig *t,
					   struct request *rq,
					   struct iotrace_slot *s, bool own,
					   iotrace_rq_error_t error,
					   unsigned int state, bool seq_data,
					   u64 now, u32 path)
{
	struct iotrace_mdone xv = { };
	const struct iotrace_mdone *x = &xv;
	struct iotrace_trig_evt ev = { };

	iotrace_count(rq, s, own, error, now, &xv);

	ev.reason = iotrace_trig_reason(t, x);
	if (!ev.reason) {
		iotrace_record(d, rq, s, own, error, state, seq_data, now, 0,
			       NULL, path);
		return;
	}
	/* the request's facts, from its slot before the record consumes it */
	ev.time_ns = now;
	ev.op = x->op;
	ev.bytes = x->bytes;
	ev.errno_val = x->errno_val;
	ev.hwq = rq->mq_hctx ? rq->mq_hctx->queue_num : 0;
	if (x->flags & IOTRACE_MD_DEV) {
		ev.lat_ns = x->dev_ns;
		ev.has |= IOTRACE_TE_LAT;
	}
	if (own) {
		ev.issue_ns = s->issue_ns;
		ev.sector = s->sector;
		ev.tag = s->tag;
		ev.retries = s->retries;
		ev.has |= IOTRACE_TE_ISSUE;
	} else {
		ev.sector = blk_rq_pos(rq);
		ev.tag = rq->tag;
	}
	iotrace_record(d, rq, s, own, error, state, seq_data, now,
		       IOTRACE_RF_TRIGGER, &ev, path);
	/* after the record: its chunk is in the hold the event sets */
	iotrace_trig_post(d, t, &ev);
}

/*
 * Could the completion @x fire a trigger of @t?  Two compares: the
 * device latency against its op's threshold (U64_MAX when off; dev_ns is
 * 0 without an issue), the flags against those that fire.
 */
static __always_inline bool iotrace_trig_test(const struct iotrace_trig *t,
					      const struct iotrace_mdone *x)
{
	return x->dev_ns > t->lat_ns[x->mop] || (x->flags & t->md_flags);
}

/*
 * metrics=N with a trigger armed: the completion's summary is made for
 * the trigger test only.  Out of line, so that the completion probe has
 * one summary and one trigger test, and with metrics=N and no trigger
 * neither.
 */
static noinline void iotrace_complete_nometrics(struct iotrace_disk *d,
						const struct iotrace_trig *t,
						struct request *rq,
						struct iotrace_slot *s,
						bool own,
						iotrace_rq_error_t error,
						unsigned int state,
						bool seq_data, u64 now,
						u32 path)
{
	struct iotrace_mdone x = { };

	iotrace_count(rq, s, own, error, now, &x);
	if (unlikely(iotrace_trig_test(t, &x)))
		iotrace_complete_trig(d, t, rq, s, own, error, state,
				      seq_data, now, path);
	else
		iotrace_record(d, rq, s, own, error, state, seq_data, now, 0,
			       NULL, path);
}

/*
 * The final completion of @rq at @now, in slot @s of the enabled disk @d
 * (state @state; @own: see iotrace_fill()): count it, test the triggers,
 * record it.  With @path, @d is the multipath head of @rq's disk and the
 * slot is left to the path's own record (iotrace_fill()).
 */
static __always_inline void iotrace_complete_at(struct iotrace_disk *d,
						struct request *rq,
						struct iotrace_slot *s,
						bool own,
						iotrace_rq_error_t error,
						unsigned int state,
						bool seq_data, u64 now,
						u32 path)
{
	IOTRACE_PROF_P(t1);
	const struct iotrace_trig *t;

	/*
	 * Counted whatever happens to the record; the slot is still intact.
	 * metrics=N: a jump over it (a static key: nothing more by default),
	 * and no summary unless a trigger is armed.  The summary is zeroed
	 * where it is declared (one set of stores with auto-init).
	 */
	iotrace_prof_pstart(t1);
	if (iotrace_metrics_kept()) {
		struct iotrace_mdone x = { };

		iotrace_count(rq, s, own, error, now, &x);
		iotrace_metrics_complete(d->metrics, &x);
		iotrace_prof_part(IOTRACE_PF_C_COUNT, t1);
		/* triggers: one branch without, two compares with (module.rst) */
		iotrace_prof_pstart(t1);
		t = rcu_dereference_sched(d->trig);
		if (unlikely(t) && unlikely(iotrace_trig_test(t, &x))) {
			/* made again there: see iotrace_complete_trig() */
			iotrace_complete_trig(d, t, rq, s, own, error, state,
					      seq_data, now, path);
			return;
		}
	} else {
		iotrace_prof_part(IOTRACE_PF_C_COUNT, t1);
		iotrace_prof_pstart(t1);
		t = rcu_dereference_sched(d->trig);
		if (unlikely(t)) {
			iotrace_complete_nometrics(d, t, rq, s, own, error,
						   state, seq_data, now, path);
			return;
		}
	}
	iotrace_prof_part(IOTRACE_PF_C_TRIG, t1);
	iotrace_record(d, rq, s, own, error, state, seq_data, now, 0, NULL,
		       path);
}

/*
 * Whether @rq, a path's request completing without error in slot @s, was
 * failed over: nvme_failover_req() moved its bios to the head, to be sent
 * again as a new request of a path, and ends it without error (its bios
 * taken by blk_steal_bios(): no bytes left of a request issued with
 * some), after the device gave it an error status (seen when the NVMe
 * layout is set).
 */
static bool iotrace_failed_over(const struct iotrace_slot *s,
				struct request *rq, iotrace_rq_error_t error)
{
	if (error)
		return false;
	/*
	 * Without its slot (none, or the table was regrown since its issue):
	 * its bios taken, none left of a request mapped with some (the end
	 * of a flush sequence has its bio back, blk_flush_restore_request()).
	 */
	if (!rq->bio && !blk_rq_bytes(rq) && rq->nr_phys_segments)
		return true;
	if (!s)
		return false;
	if (READ_ONCE(s->rq) == rq && s->bytes && !blk_rq_bytes(rq))
		return true;
	if (READ_ONCE(s->status_rq) != rq)
		return false;
	/* pairs with the smp_wmb() before status_rq is set */
	smp_rmb();
	return s->status_rflags & IOTRACE_RF_ERROR;
}

/*
 * The completion of @rq at @now on @d, a path of an NVMe multipath head:
 * the head's metrics, triggers and record, from the slot @s before the
 * path's own record consumes it; none for a request failed over, which
 * the head completes when it is sent again.  Out of line: only a head's
 * paths come here.
 */
static noinline void iotrace_head_complete(struct iotrace_disk *d,
					   struct request *rq,
					   struct iotrace_slot *s, bool own,
					   iotrace_rq_error_t error,
					   bool seq_data, u64 now)
{
	struct iotrace_disk *h = rcu_dereference_sched(d->head);
	unsigned int state;

	if (!h || iotrace_failed_over(s, rq, error))
		return;
	/* pairs with the store-release in iotrace_disk_set_state() */
	state = smp_load_acquire(&h->state);
	if (!(state & IOTRACE_ST_SLOTS))
		return;
	/* before a command reaches the head's ring (iotrace_cmd_slot_of()) */
	if (unlikely(READ_ONCE(d->cmds) && !READ_ONCE(h->cmds)))
		WRITE_ONCE(h->cmds, true);
	iotrace_complete_at(h, rq, s, own, error, state, seq_data, now,
			    d->path_id);
}

/*
 * The final completion of @rq, in slot @s of the enabled disk @d (state
 * @state; @own: see iotrace_fill()): for its multipath head if it has
 * one, then for itself.
 */
static __always_inline void iotrace_complete(struct iotrace_disk *d,
					     struct request *rq,
					     struct iotrace_slot *s, bool own,
					     iotrace_rq_error_t error,
					     unsigned int state)
{
	IOTRACE_PROF_P(t1);
	bool seq_data;
	u64 now;

	seq_data = iotrace_is_flush_data(rq);
	iotrace_prof_pstart(t1);
	now = ktime_get_ns();
	iotrace_prof_part(IOTRACE_PF_C_CLOCK, t1);
	if (unlikely(rcu_access_pointer(d->head)))
		iotrace_head_complete(d, rq, s, own, error, seq_data, now);
	iotrace_complete_at(d, rq, s, own, error, state, seq_data, now, 0);
}

/*
 * iotrace_complete() of a request that does not own a slot (none kept,
 * none while the table is regrown, or issued before its disk was enabled
 * or its table regrown): out of line, so that the probe's inline copy is
 * the common case's, where @s is known.
 */
static noinline void iotrace_complete_unowned(struct iotrace_disk *d,
					      struct request *rq,
					      struct iotrace_slot *s,
					      iotrace_rq_error_t error,
					      unsigned int state)
{
	/*
	 * Request-based device-mapper ends a request twice: its clone's
	 * completion updates it with all its bytes (the final completion,
	 * which made the record and released the slot), then
	 * blk_mq_end_request() ends it again, no bio and no byte left.  The
	 * kernel counts it once.  A flush (its flush machinery's request)
	 * never had a bio: ended once, recorded.
	 */
	if (unlikely(d->dm_rq) && !rq->bio && !blk_rq_bytes(rq) &&
	    req_op(rq) != REQ_OP_FLUSH)
		return;
	/*
	 * The end of a flush sequence whose data phase made the record: in a
	 * slot it does not own only on a table regrown since that data phase
	 * (iotrace_slots_regrow()), which a request issued since owns.
	 */
	if ((!s || READ_ONCE(d->slots_regrown)) &&
	    iotrace_flush_end_unslotted(rq)) {
		iotrace_slot_release(s, rq);
		return;
	}
	iotrace_complete(d, rq, s, false, error, state);
}

static void iotrace_probe_complete(void *data, struct request *rq,
				   iotrace_rq_error_t error, unsigned int nr_bytes)
{
	IOTRACE_PROF_T(t0);
	IOTRACE_PROF_P(t1);
	struct iotrace_slot *s;
	struct iotrace_disk *d;
	unsigned int state;
	bool pown;

	/* Only the final completion of a request makes its record. */
	if (nr_bytes < blk_rq_bytes(rq))
		return;
	preempt_disable_notrace();
	iotrace_prof_pstart(t1);
	d = iotrace_rq_lookup(rq);
	if (!d)
		goto out;
	/*
	 * One load: slots and ring in one consistent state; pairs with the
	 * store-release in iotrace_disk_set_state().
	 */
	state = smp_load_acquire(&d->state);
	if (!(state & IOTRACE_ST_SLOTS)) {
		/* RECORD alone: the table is regrown, recorded without issue */
		if (state)
			iotrace_complete_unowned(d, rq, NULL, error, state);
		goto out;
	}
	if (!iotrace_slot_find(d, rq, &s)) {
		s = NULL;
	} else if (likely(READ_ONCE(s->rq) == rq)) {
		if (unlikely(READ_ONCE(s->seq_wait))) {
			/*
			 * The end of a flush sequence: its data phase made
			 * the record, the kernel counts it once.  On
			 * request-based device-mapper the data phase ends
			 * twice (iotrace_complete_unowned()): the second time
			 * with no bio, which the sequence's end gives back.
			 */
			if (!(unlikely(d->dm_rq) && !rq->bio))
				iotrace_slot_release(s, rq);
			goto out;
		}
		iotrace_prof_part(IOTRACE_PF_C_LOOKUP, t1);
		pown = static_branch_unlikely(&iotrace_preg_key);
		iotrace_complete(d, rq, s, true, error, state);
		/* recorded before its persistent copy goes */
		if (unlikely(pown))
			iotrace_preg_done(d, s);
		goto out;
	}
	iotrace_prof_part(IOTRACE_PF_C_LOOKUP, t1);
	iotrace_complete_unowned(d, rq, s, error, state);
out:
	preempt_enable_notrace();
	iotrace_prof(IOTRACE_PF_COMPLETE, t0);
}

/*
 * The command and status stores below bump no slot generation: only the
 * request's own completion reads them (through cmd_rq and status_rq,
 * which are NULL while they change); the inflight reader and the stuck
 * scan, which check the generation, copy none of them.
 */

/**
 * iotrace_cmd_slot_of() - the slot of a request whose command area a hook
 *	fills in place, then tags with iotrace_cmd_publish().
 * @rq: the request.
 * @ata: the command is libata's taskfile: mark the disk an ATA disk.
 *
 * The area may hold what no record may show (an NVMe entry's addresses)
 * until the hook has cleared it: untagged (cmd_rq NULL) until published,
 * no completion reads it.
 *
 * Context: a probe, preemption disabled; the request's tag owned by the
 * caller, before @rq is completed (after its issue for a SCSI CDB or an
 * ATA taskfile).
 * Return: the slot, its command untagged, or NULL when @rq's disk keeps
 * no slots (not enabled).
 */
static __always_inline struct iotrace_slot *
iotrace_cmd_slot_of(struct request *rq, bool ata)
{
	struct iotrace_disk *d = iotrace_rq_disk(rq);
	struct iotrace_slot *s;

	if (!d)
		return NULL;
	if (ata && unlikely(!READ_ONCE(d->ata)))
		WRITE_ONCE(d->ata, true);
	s = iotrace_slot_of(d, rq);
	if (!s)
		return NULL;
	iotrace_assert_cpu_held();
	/*
	 * Set before the command is tagged (the smp_wmb() before cmd_rq is
	 * set): a record gets command bytes only from a completion that saw
	 * the tag, after @cmds was set, and every later writer of that
	 * record sees @cmds and clears what it left (the chunk is
	 * store-released FULL by one writer and taken with a cmpxchg by the
	 * next).
	 */
	if (unlikely(!READ_ONCE(d->cmds)))
		WRITE_ONCE(d->cmds, true);
	/*
	 * A request that owns its slot already (issued, or requeued and
	 * being dispatched again) gets its command under an odd
	 * generation: iotrace_cmd_publish() ends it (iotrace_cmd_issued()).
	 */
	if (unlikely(READ_ONCE(s->rq) == rq))
		iotrace_slot_begin(s);
	WRITE_ONCE(s->cmd_rq, NULL);
	/* old owner gone before the command changes */
	smp_wmb();
	return s;
}

/* iotrace_cmd_slot_of() for the hooks of NVMe commands and SCSI CDBs */
struct iotrace_slot *iotrace_cmd_slot(struct request *rq)
{
	return iotrace_cmd_slot_of(rq, false);
}

/**
 * iotrace_ata_cmd_slot() - iotrace_cmd_slot() for the taskfile libata
 *	issues for @rq, which also marks its disk an ATA disk (@ata of
 *	struct iotrace_disk).
 * @rq: the request.
 *
 * Context: as iotrace_cmd_slot().
 * Return: as iotrace_cmd_slot().
 */
struct iotrace_slot *iotrace_ata_cmd_slot(struct request *rq)
{
	return iotrace_cmd_slot_of(rq, true);
}

/**
 * iotrace_note_cmd() - remember the command of a request before it is
 *	issued or completed, for its record.
 * @rq: the request.
 * @type: enum iotrace_cmd_type.
 * @cmd: the command, already stripped of addresses.
 * @len: its length; more than IOTRACE_CMD_LEN is truncated and flagged.
 * @rflags: IOTRACE_RF_* to add to the record (e.g. IOTRACE_RF_ADMIN).
 *
 * Context: a probe, preemption disabled; the request's tag owned by the
 * caller.  The completion of @rq consumes the command; a requeue drops it.
 * A command of IOTRACE_CMD_LEN bytes or more is read in 8-byte words:
 * @cmd is then 8-byte aligned.
 */
void iotrace_note_cmd(struct request *rq, u8 type, const void *cmd, u8 len,
		      u16 rflags)
{
	struct iotrace_slot *s = iotrace_cmd_slot(rq);

	if (!s)
		return;
	if (len > IOTRACE_CMD_LEN) {
		rflags |= IOTRACE_RF_CMD_TRUNC;
		len = IOTRACE_CMD_LEN;
	}
	if (likely(len == IOTRACE_CMD_LEN)) {
		/* a whole area: eight stores, not a clear and a copy */
		iotrace_cmd_copy(s->cmd, cmd);
	} else {
		/* the clear in stores too: no rep stos set-up for 64 bytes */
		iotrace_cmd_clear(s->cmd);
		WRITE_ONCE(((u64 *)s->cmd)[4], 0);
		memcpy(s->cmd, cmd, len);
	}
	iotrace_cmd_publish(s, rq, type, len, rflags);
}

/* Note a status in @rq's slot @s: see iotrace_note_status(). */
static void iotrace_slot_status(struct iotrace_slot *s, struct request *rq,
				u32 dev_status, u32 dev_result, u16 rflags,
				u8 status_kind, bool eh)
{
	iotrace_assert_cpu_held();
	WRITE_ONCE(s->status_rq, NULL);
	/* old owner gone before the status changes */
	smp_wmb();
	s->dev_status = dev_status;
	s->dev_result = dev_result;
	s->status_rflags = rflags;
	s->status_kind = status_kind;
	s->status_eh = eh;
	/* status complete before it is tagged with its request */
	smp_wmb();
	WRITE_ONCE(s->status_rq, rq);
}

/**
 * iotrace_note_status() - remember the device status of a request before
 *	its block_rq_complete.
 * @rq: the request.
 * @dev_status: see struct iotrace_record.
 * @dev_result: see struct iotrace_record.
 * @rflags: IOTRACE_RF_* to add (e.g. IOTRACE_RF_ERROR).
 * @status_kind: IOTRACE_MSTATUS_* telling how to read @dev_status.
 *
 * Context: a probe, preemption disabled, before the completion of @rq,
 * which consumes it.
 */
void iotrace_note_status(struct request *rq, u32 dev_status, u32 dev_result,
			 u16 rflags, u8 status_kind)
{
	struct iotrace_slot *s;

	s = iotrace_rq_slot(rq);
	if (s)
		iotrace_slot_status(s, rq, dev_status, dev_result, rflags,
				    status_kind, false);
}

/**
 * iotrace_note_eh_status() - iotrace_note_status() for libata, whose
 *	error handler takes a failed command with blk_abort_request().
 * @rq: the request.
 * @dev_status: see struct iotrace_record.
 * @rflags: IOTRACE_RF_* to add; IOTRACE_RF_TIMEOUT only if libata found
 *	the command timed out (AC_ERR_TIMEOUT).
 * @status_kind: IOTRACE_MSTATUS_ATA, or _SCSI for an ATAPI device.
 *
 * blk_abort_request() runs the block layer's timeout handler, which sets
 * RQF_TIMED_OUT on a command that failed at once: with this status the
 * record and the metrics take the timeout from @rflags instead.
 *
 * Context: as iotrace_note_status().
 */
void iotrace_note_eh_status(struct request *rq, u32 dev_status, u16 rflags,
			    u8 status_kind)
{
	struct iotrace_slot *s;

	s = iotrace_rq_slot(rq);
	if (s)
		iotrace_slot_status(s, rq, dev_status, 0, rflags, status_kind,
				    true);
}

/**
 * iotrace_note_scsi_status() - the SCSI midlayer's status of a request,
 *	unless its disk is an ATA disk.
 * @rq: the request.
 * @dev_status: see struct iotrace_record (SCSI status and sense).
 * @rflags: IOTRACE_RF_* to add.
 *
 * The ATA probes record an ATA disk's status from its registers; the
 * commands libata answers itself (simulated, or refused in translation)
 * are left without one, as before.  Decided per disk, not per SCSI host:
 * a libsas HBA serves SATA disks through libata and SAS disks directly,
 * with one SCSI transport for both.
 *
 * Context: as iotrace_note_status().
 */
void iotrace_note_scsi_status(struct request *rq, u32 dev_status, u16 rflags)
{
	struct iotrace_disk *d = iotrace_rq_disk(rq);
	struct iotrace_slot *s;

	if (!d || READ_ONCE(d->ata))
		return;
	s = iotrace_slot_of(d, rq);
	if (s)
		iotrace_slot_status(s, rq, dev_status, 0, rflags,
				    IOTRACE_MSTATUS_SCSI, false);
}

static void iotrace_find_tp(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(iotrace_tps); i++)
		if (iotrace_tps[i].name && !strcmp(tp->name, iotrace_tps[i].name))
			iotrace_tps[i].tp = tp;
}

/**
 * iotrace_probes_find() - look the block tracepoints up by name.
 *
 * Return: 0, or -ENOENT naming the missing one in the log.
 */
int iotrace_probes_find(void)
{
	int i;

	/*
	 * The probes are registered through void *: the tracepoints'
	 * own prototypes (no CREATE_TRACE_POINTS: nothing is defined)
	 * check theirs here, at compile time.
	 */
	iotrace_check_io_start(iotrace_probe_io_start);
	iotrace_check_io_start(iotrace_probe_io_stamp);
	check_trace_callback_type_block_rq_merge(iotrace_probe_merge);
	check_trace_callback_type_block_rq_issue(iotrace_probe_issue);
	check_trace_callback_type_block_rq_requeue(iotrace_probe_requeue);
	check_trace_callback_type_block_rq_complete(iotrace_probe_complete);

	for_each_kernel_tracepoint(iotrace_find_tp, NULL);
	/* iotrace_tps[0] is block_io_start, [1] block_rq_merge (its undo) */
	if (!iotrace_submitter && IOTRACE_QUEUE_STAMP) {
		/* the allocation time, for the queue time (compat.h) */
		iotrace_tps[0].probe = iotrace_probe_io_stamp;
		pr_info("iotrace: submitter=N: records carry no submitter (pid 0)\n");
	} else if (!iotrace_submitter) {
		iotrace_tps[0].tp = NULL;
		iotrace_tps[1].tp = NULL;
		pr_info("iotrace: submitter=N: records carry no submitter (pid 0)\n");
	} else if (!iotrace_tps[0].tp) {
		pr_info("iotrace: no block_io_start tracepoint: records carry no submitter (pid 0)\n");
	}
	for (i = 0; i < ARRAY_SIZE(iotrace_tps); i++) {
		if (iotrace_tps[i].tp)
			continue;
		if (iotrace_tps[i].optional)
			continue;
		pr_err("iotrace: tracepoint %s not found\n",
		       iotrace_tps[i].name);
		return -ENOENT;
	}
	return 0;
}

/**
 * iotrace_probes_get() - one more enabled disk; attach the probes on the
 *	first: the block tracepoints and the command probes (cmd_attach(),
 *	which also starts watching modules for their tracepoints).
 *
 * Context: iotrace_mutex held; takes tracepoint_module_list_mutex, which
 *	is never held while iotrace_mutex is taken.
 * Return: 0 or the errno of tracepoint_probe_register() or of
 *	iotrace_cmd_attach().
 */
int iotrace_probes_get(void)
{
	int i, ret;

	lockdep_assert_held(&iotrace_mutex);
	if (iotrace_probe_users++)
		return 0;
	for (i = 0; i < ARRAY_SIZE(iotrace_tps); i++) {
		if (!iotrace_tps[i].tp)
			continue;
		ret = tracepoint_probe_register(iotrace_tps[i].tp,
						iotrace_tps[i].probe, NULL);
		if (ret) {
			pr_err("iotrace: cannot attach to %s: %d\n",
			       iotrace_tps[i].name, ret);
			goto unwind;
		}
	}
	/* The command probes note into slots that the block probes free. */
	ret = iotrace_cmd_attach();
	if (ret)
		goto unwind;
	return 0;
unwind:
	while (--i >= 0)
		if (iotrace_tps[i].tp)
			tracepoint_probe_unregister(iotrace_tps[i].tp,
						    iotrace_tps[i].probe, NULL);
	tracepoint_synchronize_unregister();
	iotrace_probe_users--;
	return ret;
}

/**
 * iotrace_probes_put() - one enabled disk less; detach the probes after
 *	the last (command probes first, then the block ones), and wait until
 *	none runs.
 *
 * Context: iotrace_mutex held.
 */
void iotrace_probes_put(void)
{
	int i;

	lockdep_assert_held(&iotrace_mutex);
	if (WARN_ON(!iotrace_probe_users) || --iotrace_probe_users)
		return;
	iotrace_cmd_detach();
	for (i = ARRAY_SIZE(iotrace_tps) - 1; i >= 0; i--)
		if (iotrace_tps[i].tp)
			tracepoint_probe_unregister(iotrace_tps[i].tp,
						    iotrace_tps[i].probe, NULL);
	tracepoint_synchronize_unregister();
}

bool iotrace_probes_registered(void)
{
	return READ_ONCE(iotrace_probe_users) != 0;
}

/**
 * iotrace_probes_submitter() - are submitters noted (block_io_start found
 *	and not turned off by submitter=N)?
 *
 * Return: true when enabled disks' records name their submitters.
 */
bool iotrace_probes_submitter(void)
{
	return iotrace_tps[0].tp && iotrace_submitter;
}
