// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace - control over the generic netlink family "iotrace": list,
 * enable, disable, clear, resize, filters, and the "events" multicast
 * group (disk added, disk removed, ring overflow; trigger events are sent
 * by trigger.c through iotrace_nl_trig_send()).
 *
 * Enable, disable and clear call the same functions as the debugfs files
 * (disk.c).  A resize stops the ring from being written the way clear
 * does (IOTRACE_ST_SLOTS without IOTRACE_ST_RECORD, then an RCU grace
 * period): the probes keep the in-flight table and count what they cannot
 * record in d->held (per CPU), so nothing completed while enabled goes
 * uncounted.  A filter change publishes a new filter through one RCU
 * pointer and stops nothing: every completion is recorded or filtered by
 * the old filter or the new one.
 *
 * Every request is validated against one strict family policy: unknown
 * attributes, reply-only attributes, wrong lengths and bits outside the
 * operation mask are refused with -EINVAL before the handler runs.  The
 * handlers check ranges (-EINVAL too: the kernel's range policies would
 * answer -ERANGE) and the rest before changing anything.
 */
#include <linux/kernel.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/capability.h>
#include <linux/irq_work.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <linux/timekeeping.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include "iotrace.h"
#include "compat.h"
#include "cmd.h"

static struct genl_family iotrace_nl_family;
/* set once the family is registered: events before it have no listener */
static bool iotrace_nl_registered;

static const struct nla_policy iotrace_nl_policy[IOTRACE_A_MAX + 1] = {
	[IOTRACE_A_PAD]			= { .type = NLA_REJECT },
	[IOTRACE_A_DISK_NAME]		= { .type = NLA_NUL_STRING,
					    .len = IOTRACE_NAME_LEN - 1 },
	[IOTRACE_A_DEV_MAJOR]		= { .type = NLA_REJECT },
	[IOTRACE_A_DEV_MINOR]		= { .type = NLA_REJECT },
	[IOTRACE_A_ENABLED]		= { .type = NLA_REJECT },
	/* range checked by the handler: EINVAL, where policies say ERANGE */
	[IOTRACE_A_BUF_SIZE]		= { .type = NLA_U64 },
	[IOTRACE_A_RING_SIZE]		= { .type = NLA_REJECT },
	[IOTRACE_A_NR_PARTS]		= { .type = NLA_REJECT },
	[IOTRACE_A_PART_RECORDS]	= { .type = NLA_REJECT },
	[IOTRACE_A_GENERATION]		= { .type = NLA_REJECT },
	[IOTRACE_A_RECORDED]		= { .type = NLA_REJECT },
	[IOTRACE_A_PRESENT]		= { .type = NLA_REJECT },
	[IOTRACE_A_OVERWRITTEN]		= { .type = NLA_REJECT },
	[IOTRACE_A_DROPPED]		= { .type = NLA_REJECT },
	[IOTRACE_A_FILTERED]		= { .type = NLA_REJECT },
	[IOTRACE_A_INFLIGHT]		= { .type = NLA_REJECT },
	[IOTRACE_A_TOTAL_COMPLETED]	= { .type = NLA_REJECT },
	[IOTRACE_A_TOTAL_RECORDED]	= { .type = NLA_REJECT },
	[IOTRACE_A_TOTAL_OVERWRITTEN]	= { .type = NLA_REJECT },
	[IOTRACE_A_TOTAL_DROPPED]	= { .type = NLA_REJECT },
	[IOTRACE_A_TOTAL_FILTERED]	= { .type = NLA_REJECT },
	[IOTRACE_A_RESIZES]		= { .type = NLA_REJECT },
	[IOTRACE_A_FILTER_OPS]		=
		NLA_POLICY_MASK(NLA_U32, IOTRACE_FILTER_OPS_ALL),
	[IOTRACE_A_FILTER_SECTOR_MIN]	= { .type = NLA_U64 },
	[IOTRACE_A_FILTER_SECTOR_MAX]	= { .type = NLA_U64 },
	/* at most SZ_1G, checked by the handler */
	[IOTRACE_A_FILTER_MIN_BYTES]	= { .type = NLA_U32 },
	/* checked by iotrace_nvme_set_layout() */
	[IOTRACE_A_NVME_STATUS_OFF]	= { .type = NLA_U32 },
	[IOTRACE_A_NVME_STATUS_SIZE]	= { .type = NLA_U32 },
	[IOTRACE_A_NVME_RESULT_OFF]	= { .type = NLA_U32 },
	[IOTRACE_A_NVME_RESULT_SIZE]	= { .type = NLA_U32 },
	[IOTRACE_A_NVME_STATUS]		= { .type = NLA_REJECT },
	[IOTRACE_A_M_RESET_NS]		= { .type = NLA_REJECT },
	[IOTRACE_A_M_NOW_NS]		= { .type = NLA_REJECT },
	[IOTRACE_A_M_OP]		= { .type = NLA_REJECT },
	[IOTRACE_A_M_TIMEOUTS]		= { .type = NLA_REJECT },
	[IOTRACE_A_M_REQUEUES]		= { .type = NLA_REJECT },
	[IOTRACE_A_M_INFLIGHT]		= { .type = NLA_REJECT },
	[IOTRACE_A_M_INFLIGHT_OLDEST_NS] = { .type = NLA_REJECT },
	[IOTRACE_A_M_ERROR]		= { .type = NLA_REJECT },
	/* triggers: ranges checked by iotrace_nl_set_trigger() */
	[IOTRACE_A_TRIG_LAT_READ]	= { .type = NLA_U64 },
	[IOTRACE_A_TRIG_LAT_WRITE]	= { .type = NLA_U64 },
	[IOTRACE_A_TRIG_LAT_FLUSH]	= { .type = NLA_U64 },
	[IOTRACE_A_TRIG_LAT_DISCARD]	= { .type = NLA_U64 },
	[IOTRACE_A_TRIG_LAT_OTHER]	= { .type = NLA_U64 },
	[IOTRACE_A_TRIG_ERROR]		= { .type = NLA_U8 },
	[IOTRACE_A_TRIG_ERRNO]		= { .type = NLA_U32 },
	[IOTRACE_A_TRIG_DEVSTATUS]	= { .type = NLA_U8 },
	[IOTRACE_A_TRIG_TIMEOUT]	= { .type = NLA_U8 },
	[IOTRACE_A_TRIG_REQUEUES]	= { .type = NLA_U32 },
	[IOTRACE_A_TRIG_STUCK_NS]	= { .type = NLA_U64 },
	[IOTRACE_A_TRIG_RATE_NS]	= { .type = NLA_U64 },
	[IOTRACE_A_TRIG_HITS]		= { .type = NLA_REJECT },
	[IOTRACE_A_TRIG_EVENTS]		= { .type = NLA_REJECT },
	[IOTRACE_A_TRIG_SUPPRESSED_TOTAL] = { .type = NLA_REJECT },
	[IOTRACE_A_TRIG_REASON]		= { .type = NLA_REJECT },
	[IOTRACE_A_TRIG_SUPPRESSED]	= { .type = NLA_REJECT },
	[IOTRACE_A_TRIG_CPU]		= { .type = NLA_REJECT },
	[IOTRACE_A_TRIG_SEQ]		= { .type = NLA_REJECT },
	[IOTRACE_A_TRIG_OP]		= { .type = NLA_REJECT },
	[IOTRACE_A_TRIG_TIME_NS]	= { .type = NLA_REJECT },
	[IOTRACE_A_TRIG_ISSUE_NS]	= { .type = NLA_REJECT },
	[IOTRACE_A_TRIG_LATENCY_NS]	= { .type = NLA_REJECT },
	[IOTRACE_A_TRIG_DEV_STATUS]	= { .type = NLA_REJECT },
	[IOTRACE_A_TRIG_SECTOR]		= { .type = NLA_REJECT },
	[IOTRACE_A_TRIG_BYTES]		= { .type = NLA_REJECT },
	[IOTRACE_A_TRIG_HWQ]		= { .type = NLA_REJECT },
	[IOTRACE_A_TRIG_TAG]		= { .type = NLA_REJECT },
	[IOTRACE_A_TRIG_RETRIES]	= { .type = NLA_REJECT },
	/* checked by iotrace_nl_set_trigger() against the disk's ring */
	[IOTRACE_A_TRIG_HOLD_CHUNKS]	= { .type = NLA_U32 },
	[IOTRACE_A_TRIG_HOLD_NS]	= { .type = NLA_U64 },
	[IOTRACE_A_HOLD_LO]		= { .type = NLA_REJECT },
	/* RELEASE_HOLD: release only this hold */
	[IOTRACE_A_HOLD_HI]		= { .type = NLA_U64 },
	[IOTRACE_A_HOLD_NS]		= { .type = NLA_U64 },
	[IOTRACE_A_TRIG_EPOCH]		= { .type = NLA_REJECT },
	[IOTRACE_A_MEM_RING]		= { .type = NLA_REJECT },
	[IOTRACE_A_MEM_SLOTS]		= { .type = NLA_REJECT },
	[IOTRACE_A_MEM_METRICS]		= { .type = NLA_REJECT },
	[IOTRACE_A_ID_MODEL]		= { .type = NLA_NUL_STRING,
					    .len = IOTRACE_FILE_ID_LEN - 1 },
	[IOTRACE_A_ID_SERIAL]		= { .type = NLA_NUL_STRING,
					    .len = IOTRACE_FILE_ID_LEN - 1 },
	[IOTRACE_A_ID_WWN]		= { .type = NLA_NUL_STRING,
					    .len = IOTRACE_FILE_ID_LEN - 1 },
	[IOTRACE_A_TRIG_PID]		= { .type = NLA_REJECT },
};

/**
 * iotrace_filter_pass() - does a completed request pass a disk's filter?
 * @f: the filter.
 * @op: enum iotrace_op of the request.
 * @sector: its start sector.
 * @bytes: its byte count.
 *
 * Context: the completion probe, any context.
 * Return: true to record it.
 */
bool iotrace_filter_pass(const struct iotrace_filter *f, u8 op, u64 sector,
			 u32 bytes)
{
	u32 bit = op <= IOTRACE_OP_DRV_OUT ? BIT(op) : IOTRACE_FILTER_OP_OTHER;

	return (f->ops & bit) && sector >= f->sector_min &&
		sector <= f->sector_max && bytes >= f->min_bytes;
}

/* ---- overflow events: probe -> irq_work -> work -> multicast ---------- */

static void iotrace_nl_ovf_workfn(struct work_struct *work);
static DECLARE_WORK(iotrace_nl_ovf_work, iotrace_nl_ovf_workfn);

static void iotrace_nl_ovf_irq(struct irq_work *w)
{
	queue_work(IOTRACE_WQ, &iotrace_nl_ovf_work);
}

static struct irq_work iotrace_nl_ovf_irq_work;

/**
 * iotrace_nl_note_overflow() - the ring of @d overwrote a record.
 * @d: the disk.
 *
 * Called by the completion probe when a part overwrites for the first
 * time.  Only the first call after an enable, clear or resize does more
 * than a test_bit(); the event is sent later from a work item.
 *
 * Context: any (the completion probe, possibly in hard IRQ).
 */
void iotrace_nl_note_overflow(struct iotrace_disk *d)
{
	if (test_bit(IOTRACE_NL_OVERFLOW, &d->nl_flags) ||
	    test_and_set_bit(IOTRACE_NL_OVERFLOW, &d->nl_flags))
		return;
	irq_work_queue(&iotrace_nl_ovf_irq_work);
}

/**
 * iotrace_nl_reset() - a clear: the totals and the overflow event start
 *	again.
 * @d: the disk, its ring not written.
 * @held: iotrace_nl_held() read before the ring stopped being written.
 *
 * Completions the probes counted in d->held since the ring stopped (while
 * it was reset) and count until it is written again are dropped ones of
 * the new period: the totals after a clear count every completion from
 * the moment the clear stopped the ring.
 *
 * Context: iotrace_mutex held.
 */
void iotrace_nl_reset(struct iotrace_disk *d, u64 held)
{
	lockdep_assert_held(&iotrace_mutex);
	memset(&d->totals, 0, sizeof(d->totals));
	d->held_base += held;
	WRITE_ONCE(d->nl_flags, 0);
}

/**
 * iotrace_nl_release() - free what netlink.c added to a disk.
 * @d: the disk, unreferenced.
 */
void iotrace_nl_release(struct iotrace_disk *d)
{
	struct iotrace_ringbuf *rb, *tmp;

	/* no file, so no mapping and no read(), is left */
	list_for_each_entry_safe(rb, tmp, &d->retired, node) {
		list_del(&rb->node);
		iotrace_ring_mem_free(rb->mem);
		kfree(rb);
	}
	free_percpu(d->held);
	d->held = NULL;
	kfree(rcu_dereference_protected(d->filter, true));
	iotrace_trig_release(d);
}

/**
 * iotrace_nl_held() - completions the probes could not record since the
 *	last clear because the ring was being reset or replaced.
 * @d: the disk.
 *
 * Return: the count, exact once the probes are quiet.
 */
u64 iotrace_nl_held(struct iotrace_disk *d)
{
	u64 n = 0;
	int cpu;

	if (d->held)
		for_each_possible_cpu(cpu)
			n += READ_ONCE(*per_cpu_ptr(d->held, cpu));
	return n - d->held_base;
}

/* ---- messages ---------------------------------------------------------- */

static int iotrace_nl_put_u64(struct sk_buff *skb, int attr, u64 v)
{
	return nla_put_u64_64bit(skb, attr, v, IOTRACE_A_PAD);
}

/*
 * The hold of @d while it has one (LIST replies, trigger events); the
 * mutex keeps it from being released meanwhile.
 */
static int iotrace_nl_fill_hold(struct sk_buff *skb, struct iotrace_disk *d)
{
	struct iotrace_ring_hdr *h = d->hdr;

	lockdep_assert_held(&iotrace_mutex);
	/* pairs with the store-release of ACTIVE in iotrace_hold_set() */
	if (smp_load_acquire(&d->hold_state) != IOTRACE_HOLD_ACTIVE)
		return 0;
	if (iotrace_nl_put_u64(skb, IOTRACE_A_HOLD_LO, READ_ONCE(h->hold_lo)) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_HOLD_HI, READ_ONCE(h->hold_hi)) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_HOLD_NS, READ_ONCE(h->hold_ns)))
		return -EMSGSIZE;
	return 0;
}

/* The triggers of @d and their counters, if it has any (LIST replies). */
static int iotrace_nl_fill_trig(struct sk_buff *skb, struct iotrace_disk *d)
{
	const struct iotrace_trig *t;
	struct iotrace_trig_state *ts = &d->tstate;
	unsigned int i;

	if (iotrace_nl_fill_hold(skb, d))
		return -EMSGSIZE;
	t = rcu_dereference_protected(d->trig, lockdep_is_held(&iotrace_mutex));
	if (!t)
		return 0;
	if ((t->hold_chunks &&
	     (nla_put_u32(skb, IOTRACE_A_TRIG_HOLD_CHUNKS, t->hold_chunks) ||
	      iotrace_nl_put_u64(skb, IOTRACE_A_TRIG_HOLD_NS, t->hold_ns))))
		return -EMSGSIZE;
	for (i = 0; i < IOTRACE_NR_MOPS; i++)
		if (t->mop_lat_ns[i] &&
		    iotrace_nl_put_u64(skb, IOTRACE_A_TRIG_LAT_READ + i,
				       t->mop_lat_ns[i]))
			return -EMSGSIZE;
	if (nla_put_u8(skb, IOTRACE_A_TRIG_ERROR,
		       !!(t->md_flags & IOTRACE_MD_ERROR)) ||
	    nla_put_u8(skb, IOTRACE_A_TRIG_DEVSTATUS,
		       !!(t->md_flags & IOTRACE_MD_DEVSTATUS)) ||
	    nla_put_u8(skb, IOTRACE_A_TRIG_TIMEOUT,
		       !!(t->md_flags & IOTRACE_MD_TIMEOUT)) ||
	    nla_put_u32(skb, IOTRACE_A_TRIG_REQUEUES, t->requeues) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_TRIG_STUCK_NS, t->stuck_ns) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_TRIG_RATE_NS, t->rate_ns) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_TRIG_HITS,
			       atomic_long_read(&ts->hits)) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_TRIG_EVENTS,
			       atomic_long_read(&ts->events)) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_TRIG_EPOCH, ts->epoch) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_TRIG_SUPPRESSED_TOTAL,
			       atomic_long_read(&ts->suppressed_total)))
		return -EMSGSIZE;
	for (i = 0; i < t->nr_errnos; i++)
		if (nla_put_u32(skb, IOTRACE_A_TRIG_ERRNO, t->errnos[i]))
			return -EMSGSIZE;
	return 0;
}

/**
 * iotrace_nl_fill() - the attributes of a disk.
 * @skb: the message.
 * @d: the disk.
 * @portid: the receiver.
 * @seq: the sequence number of the request, or 0.
 * @flags: NLM_F_* of the message.
 * @cmd: its command.
 * @full: add the state and counters (list replies, overflow events);
 *	iotrace_mutex must then be held.
 * @inflight: with @full, the requests in flight (iotrace_slots_busy(),
 *	counted before the mutex was taken), or U64_MAX to leave it out.
 * @cb: a dump's callback, for its consistency mark; NULL if not a dump.
 *
 * Under iotrace_mutex the work is bounded: no slot table is walked.
 *
 * Return: 0 or -EMSGSIZE.
 */
static int iotrace_nl_fill(struct sk_buff *skb, struct iotrace_disk *d,
			   u32 portid, u32 seq, int flags, u8 cmd, bool full,
			   u64 inflight, struct netlink_callback *cb)
{
	static const struct iotrace_filter all = {
		.ops		= IOTRACE_FILTER_OPS_ALL,
		.sector_max	= U64_MAX,
	};
	const struct iotrace_filter *f;
	struct iotrace_counts c;
	struct iotrace_totals *t = &d->totals;
	struct iotrace_disk_mem mem;
	u64 held, rec, ovw, drop, filt;
	u32 soff, roff, rsize;
	unsigned int prev_seq = cb ? cb->prev_seq : 0;
	bool layout;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &iotrace_nl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);
	if (nla_put_string(skb, IOTRACE_A_DISK_NAME, d->name) ||
	    nla_put_u32(skb, IOTRACE_A_DEV_MAJOR, d->dev_major) ||
	    nla_put_u32(skb, IOTRACE_A_DEV_MINOR, d->dev_minor))
		goto err;
	if (!full)
		goto done;
	lockdep_assert_held(&iotrace_mutex);
	iotrace_ring_counts(d, &c);
	held = iotrace_nl_held(d);
	f = rcu_dereference_protected(d->filter,
				      lockdep_is_held(&iotrace_mutex)) ?: &all;
	rec = t->recorded + c.recorded;
	ovw = t->overwritten + c.overwritten;
	drop = t->dropped + held + c.dropped;
	filt = t->filtered + c.filtered;
	if (nla_put_u8(skb, IOTRACE_A_ENABLED, d->enabled) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_BUF_SIZE, d->buf_size) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_RING_SIZE, d->ring_size) ||
	    /* ABI 2.0: the CPU count and the chunk size (to be renamed) */
	    nla_put_u32(skb, IOTRACE_A_NR_PARTS, d->nr_cpus) ||
	    nla_put_u32(skb, IOTRACE_A_PART_RECORDS, d->chunk_records) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_GENERATION,
			       d->hdr ? READ_ONCE(d->hdr->generation) : 0) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_RECORDED, c.recorded) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_PRESENT, c.present) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_OVERWRITTEN, c.overwritten) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_DROPPED, c.dropped) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_FILTERED, c.filtered) ||

	    iotrace_nl_put_u64(skb, IOTRACE_A_TOTAL_COMPLETED,
			       rec + drop + filt) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_TOTAL_RECORDED, rec) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_TOTAL_OVERWRITTEN, ovw) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_TOTAL_DROPPED, drop) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_TOTAL_FILTERED, filt) ||
	    nla_put_u32(skb, IOTRACE_A_RESIZES, t->resizes) ||
	    nla_put_u32(skb, IOTRACE_A_FILTER_OPS, f->ops) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_FILTER_SECTOR_MIN,
			       f->sector_min) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_FILTER_SECTOR_MAX,
			       f->sector_max) ||
	    nla_put_u32(skb, IOTRACE_A_FILTER_MIN_BYTES, f->min_bytes))
		goto err;
	/* U64_MAX: not counted (overflow events) */
	if (inflight != U64_MAX &&
	    iotrace_nl_put_u64(skb, IOTRACE_A_INFLIGHT, inflight))
		goto err;
	layout = iotrace_nvme_get_layout(&soff, &roff, &rsize);
	if (nla_put_u8(skb, IOTRACE_A_NVME_STATUS, layout))
		goto err;
	if (layout &&
	    (nla_put_u32(skb, IOTRACE_A_NVME_STATUS_OFF, soff) ||
	     nla_put_u32(skb, IOTRACE_A_NVME_STATUS_SIZE, sizeof(u16)) ||
	     nla_put_u32(skb, IOTRACE_A_NVME_RESULT_OFF, roff) ||
	     nla_put_u32(skb, IOTRACE_A_NVME_RESULT_SIZE, rsize)))
		goto err;
	iotrace_disk_mem(d, &mem);
	if (iotrace_nl_put_u64(skb, IOTRACE_A_MEM_RING, mem.ring) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_MEM_SLOTS, mem.slots) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_MEM_METRICS, mem.metrics))
		goto err;
	if (iotrace_nl_fill_trig(skb, d))
		goto err;
done:
	genlmsg_end(skb, hdr);
	return 0;
err:
	/*
	 * The check marked this message, which is not sent, and noted the
	 * generation as seen: put it back, so that the message that takes
	 * this one's place in the next part of the dump is marked.
	 */
	if (cb)
		cb->prev_seq = prev_seq;
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* Context: iotrace_mutex held (d->hdr cannot change under a resize). */
static void iotrace_nl_send_event(struct iotrace_disk *d, u8 cmd, bool full)
{
	struct sk_buff *skb;

	lockdep_assert_held(&iotrace_mutex);
	if (!READ_ONCE(iotrace_nl_registered))
		return;
	skb = genlmsg_new(full ? NLMSG_GOODSIZE : NLMSG_DEFAULT_SIZE,
			  GFP_KERNEL);
	if (!skb)
		return;
	/* no slot walk under the mutex: an event has no INFLIGHT */
	if (iotrace_nl_fill(skb, d, 0, 0, 0, cmd, full, U64_MAX, NULL)) {
		nlmsg_free(skb);
		return;
	}
	/* -ESRCH: nobody listens, which is fine. */
	genlmsg_multicast(&iotrace_nl_family, skb, 0, 0, GFP_KERNEL);
}

/**
 * iotrace_nl_disk_event() - announce a disk attached or detached.
 * @d: the disk (referenced by the caller).
 * @added: attached if true, else detached.
 *
 * Context: process, iotrace_mutex not held.
 */
void iotrace_nl_disk_event(struct iotrace_disk *d, bool added)
{
	mutex_lock(&iotrace_mutex);
	iotrace_nl_send_event(d, added ? IOTRACE_CMD_EVT_DISK_ADDED :
			      IOTRACE_CMD_EVT_DISK_REMOVED, false);
	mutex_unlock(&iotrace_mutex);
}

static void iotrace_nl_ovf_workfn(struct work_struct *work)
{
	struct iotrace_disk *d;

	mutex_lock(&iotrace_mutex);
	list_for_each_entry(d, &iotrace_disks, node) {
		if (!test_bit(IOTRACE_NL_OVERFLOW, &d->nl_flags) ||
		    test_and_set_bit(IOTRACE_NL_OVF_SENT, &d->nl_flags))
			continue;
		iotrace_nl_send_event(d, IOTRACE_CMD_EVT_OVERFLOW, true);
	}
	mutex_unlock(&iotrace_mutex);
}

/**
 * iotrace_nl_trig_send() - multicast a trigger event of a disk.
 * @d: the disk, attached.
 * @ev: the event's facts.
 * @suppressed: hits not sent since the disk's previous event.
 * @events: the disk's events since its triggers were set, this one
 *	included (IOTRACE_A_TRIG_EVENTS): a listener that misses some
 *	sees the gap.
 *
 * Context: process, iotrace_mutex held (the trigger work).
 */
void iotrace_nl_trig_send(struct iotrace_disk *d,
			  const struct iotrace_trig_evt *ev, u64 suppressed,
			  u64 events)
{
	struct sk_buff *skb;
	void *hdr;

	lockdep_assert_held(&iotrace_mutex);
	if (!READ_ONCE(iotrace_nl_registered))
		return;
	skb = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &iotrace_nl_family, 0,
			  IOTRACE_CMD_EVT_TRIGGER);
	if (!hdr)
		goto err;
	if (nla_put_string(skb, IOTRACE_A_DISK_NAME, d->name) ||
	    nla_put_u32(skb, IOTRACE_A_DEV_MAJOR, d->dev_major) ||
	    nla_put_u32(skb, IOTRACE_A_DEV_MINOR, d->dev_minor) ||
	    nla_put_u32(skb, IOTRACE_A_TRIG_REASON, ev->reason) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_TRIG_SUPPRESSED, suppressed) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_TRIG_EVENTS, events) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_TRIG_EPOCH, d->tstate.epoch))
		goto err_cancel;
	/* any local user may listen: a notice, no request's details */
	if (!IOTRACE_MCGRP_PRIVATE)
		goto hold;
	if (nla_put_u8(skb, IOTRACE_A_TRIG_OP, ev->op) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_TRIG_TIME_NS, ev->time_ns) ||
	    iotrace_nl_put_u64(skb, IOTRACE_A_TRIG_SECTOR, ev->sector) ||
	    nla_put_u32(skb, IOTRACE_A_TRIG_BYTES, ev->bytes) ||
	    nla_put_u32(skb, IOTRACE_A_TRIG_HWQ, ev->hwq) ||
	    nla_put_u32(skb, IOTRACE_A_TRIG_TAG, ev->tag) ||
	    nla_put_u32(skb, IOTRACE_A_TRIG_RETRIES, ev->retries))
		goto err_cancel;
	if (ev->errno_val &&
	    nla_put_u32(skb, IOTRACE_A_TRIG_ERRNO, ev->errno_val))
		goto err_cancel;
	if ((ev->has & IOTRACE_TE_SEQ) &&
	    (nla_put_u32(skb, IOTRACE_A_TRIG_CPU, ev->cpu) ||
	     iotrace_nl_put_u64(skb, IOTRACE_A_TRIG_SEQ, ev->seq) ||
	     iotrace_nl_put_u64(skb, IOTRACE_A_GENERATION, ev->generation)))
		goto err_cancel;
	if ((ev->has & IOTRACE_TE_ISSUE) &&
	    iotrace_nl_put_u64(skb, IOTRACE_A_TRIG_ISSUE_NS, ev->issue_ns))
		goto err_cancel;
	if ((ev->has & IOTRACE_TE_LAT) &&
	    iotrace_nl_put_u64(skb, IOTRACE_A_TRIG_LATENCY_NS, ev->lat_ns))
		goto err_cancel;
	if ((ev->has & IOTRACE_TE_STATUS) &&
	    nla_put_u32(skb, IOTRACE_A_TRIG_DEV_STATUS, ev->dev_status))
		goto err_cancel;
	if ((ev->has & IOTRACE_TE_PID) &&
	    nla_put_u32(skb, IOTRACE_A_TRIG_PID, ev->pid))
		goto err_cancel;
hold:
	if (iotrace_nl_fill_hold(skb, d))
		goto err_cancel;
	genlmsg_end(skb, hdr);
	/* -ESRCH: nobody listens, which is fine. */
	genlmsg_multicast(&iotrace_nl_family, skb, 0, 0, GFP_KERNEL);
	return;
err_cancel:
	genlmsg_cancel(skb, hdr);
err:
	nlmsg_free(skb);
}

/* ---- requests ------------------------------------------------------------ */

/* The traced disk named by @a, referenced; NULL and *@err if none. */
static struct iotrace_disk *iotrace_nl_disk_named(const struct nlattr *a,
						  struct netlink_ext_ack *extack,
						  int *err)
{
	struct iotrace_disk *d, *found = NULL;

	mutex_lock(&iotrace_mutex);
	list_for_each_entry(d, &iotrace_disks, node) {
		if (!nla_strcmp(a, d->name)) {
			found = d;
			kref_get(&d->kref);
			break;
		}
	}
	mutex_unlock(&iotrace_mutex);
	if (!found) {
		NL_SET_ERR_MSG_ATTR(extack, a, "no such traced disk");
		*err = -ENODEV;
	}
	return found;
}

/* Find the disk named in @info, referenced; NULL with the errno in @err. */
static struct iotrace_disk *iotrace_nl_disk(struct genl_info *info, int *err)
{
	struct nlattr *a = info->attrs[IOTRACE_A_DISK_NAME];

	if (!a) {
		NL_SET_ERR_MSG(info->extack, "IOTRACE_A_DISK_NAME is required");
		*err = -EINVAL;
		return NULL;
	}
	return iotrace_nl_disk_named(a, info->extack, err);
}

/* State changes need CAP_SYS_ADMIN (GENL_ADMIN_PERM checked CAP_NET_ADMIN). */
static int iotrace_nl_admin(struct sk_buff *skb, struct genl_info *info)
{
	if (netlink_capable(skb, CAP_SYS_ADMIN))
		return 0;
	NL_SET_ERR_MSG(info->extack, "changing iotrace state needs CAP_SYS_ADMIN");
	return -EPERM;
}

/*
 * The disk a state-changing request names, referenced, once its sender is
 * found to have CAP_SYS_ADMIN; NULL with *@err set else.
 */
static struct iotrace_disk *iotrace_nl_admin_disk(struct sk_buff *skb,
						  struct genl_info *info,
						  int *err)
{
	*err = iotrace_nl_admin(skb, info);
	if (*err)
		return NULL;
	return iotrace_nl_disk(info, err);
}

/*
 * The list of disks changes (a disk attached or detached): a LIST dump
 * that resumes by index across the change is marked NLM_F_DUMP_INTR.
 * Never 0, which a dump's callback reads as "no sequence yet".
 */
static unsigned int iotrace_nl_list_gen = 1;

/**
 * iotrace_nl_list_changed() - a disk joined or left iotrace_disks.
 *
 * Context: iotrace_mutex held, in the same hold as the list change.
 */
void iotrace_nl_list_changed(void)
{
	lockdep_assert_held(&iotrace_mutex);
	if (!++iotrace_nl_list_gen)
		iotrace_nl_list_gen = 1;
}

/**
 * iotrace_nl_list_fill() - a LIST reply for one disk.
 * @skb: the message.
 * @d: the disk, referenced.
 * @portid: the receiver.
 * @seq: the sequence number of the request.
 * @flags: NLM_F_* of the message.
 * @cb: a dump's callback, or NULL.
 *
 * LIST needs no privilege: the slot table, which can be millions of slots
 * for a large tag set, is counted without any lock (the CPU yielded as it
 * goes); only the bounded rest is read under iotrace_mutex.
 *
 * Return: 0, -EMSGSIZE, or -ENODEV when @d was detached meanwhile.
 */
static int iotrace_nl_list_fill(struct sk_buff *skb, struct iotrace_disk *d,
				u32 portid, u32 seq, int flags,
				struct netlink_callback *cb)
{
	u64 inflight = iotrace_slots_busy(d);
	int ret = -ENODEV;

	mutex_lock(&iotrace_mutex);
	if (d->attached)
		ret = iotrace_nl_fill(skb, d, portid, seq, flags,
				      IOTRACE_CMD_LIST, true, inflight, cb);
	mutex_unlock(&iotrace_mutex);
	return ret;
}

static int iotrace_nl_list_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct iotrace_disk *d;
	struct sk_buff *msg;
	int ret;

	d = iotrace_nl_disk(info, &ret);
	if (!d)
		return ret;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		ret = -ENOMEM;
		goto out;
	}
	ret = iotrace_nl_list_fill(msg, d, info->snd_portid, info->snd_seq, 0,
				   NULL);
	if (ret) {
		nlmsg_free(msg);
		goto out;
	}
	ret = genlmsg_reply(msg, info);
out:
	iotrace_disk_put(d);
	return ret;
}

/*
 * The disk at index @i of iotrace_disks, referenced, or NULL past the end.
 * Context: iotrace_mutex held.
 */
static struct iotrace_disk *iotrace_nl_list_nth(long i)
{
	struct iotrace_disk *d;

	list_for_each_entry(d, &iotrace_disks, node)
		if (!i--) {
			kref_get(&d->kref);
			return d;
		}
	return NULL;
}

/**
 * iotrace_nl_list_dumpit() - LIST without a disk name: every disk.
 * @skb: the part of the dump to fill.
 * @cb: the dump; cb->args[0] is the index of the next disk to send.
 *
 * One disk at a time: its reference taken under iotrace_mutex, its slots
 * counted without it (iotrace_nl_list_fill()).  The dump resumes by index
 * while the list may change: cb->seq is the list's generation when the
 * disk was looked up, and a message (or the final NLMSG_DONE) after a
 * change is marked NLM_F_DUMP_INTR (genl_dump_check_consistent()): the
 * reader dumps again.
 *
 * Return: the length of @skb, 0 at the end.
 */
static int iotrace_nl_list_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	struct nlattr **attrs = iotrace_genl_dump_attrs(cb);
	struct iotrace_disk *d;
	long i = cb->args[0];
	int ret;

	/* DISK_NAME: that disk only, as the doit gives it */
	if (attrs && attrs[IOTRACE_A_DISK_NAME]) {
		if (i)
			return 0;
		d = iotrace_nl_disk_named(attrs[IOTRACE_A_DISK_NAME], cb->extack,
					  &ret);
		if (!d)
			return ret;
		ret = iotrace_nl_list_fill(skb, d, NETLINK_CB(cb->skb).portid,
					   cb->nlh->nlmsg_seq, NLM_F_MULTI, cb);
		iotrace_disk_put(d);
		if (ret)
			return ret;
		cb->args[0] = 1;
		return skb->len;
	}
	for (;;) {
		mutex_lock(&iotrace_mutex);
		cb->seq = iotrace_nl_list_gen;
		d = iotrace_nl_list_nth(i);
		mutex_unlock(&iotrace_mutex);
		if (!d)
			break;
		ret = iotrace_nl_list_fill(skb, d, NETLINK_CB(cb->skb).portid,
					   cb->nlh->nlmsg_seq, NLM_F_MULTI, cb);
		iotrace_disk_put(d);
		if (ret == -EMSGSIZE)
			break;
		/*
		 * Detached meanwhile: it left the list in the same hold of
		 * iotrace_mutex, so index @i names the next disk now.
		 */
		if (ret == -ENODEV)
			continue;
		i++;
	}
	cb->args[0] = i;
	return skb->len;
}

static int iotrace_nl_enable(struct sk_buff *skb, struct genl_info *info)
{
	struct iotrace_disk *d;
	int ret;

	d = iotrace_nl_admin_disk(skb, info, &ret);
	if (!d)
		return ret;
	ret = iotrace_disk_set_enabled(d, info->genlhdr->cmd ==
				       IOTRACE_CMD_ENABLE);
	iotrace_disk_put(d);
	return ret;
}

static int iotrace_nl_clear(struct sk_buff *skb, struct genl_info *info)
{
	struct iotrace_disk *d;
	int ret;

	d = iotrace_nl_admin_disk(skb, info, &ret);
	if (!d)
		return ret;
	ret = iotrace_disk_clear(d);
	iotrace_disk_put(d);
	return ret;
}

/**
 * iotrace_nl_swap() - replace the ring of a disk by @tmp's.
 * @d: the disk, its ring not written by the probes.
 * @tmp: holds the new ring and its geometry.
 * @new_rb: the new ring's users count, consumed.
 *
 * The old ring's counters go into the totals, it is marked detached (a
 * reader that maps it sees that it is final), and it is freed at once
 * unless it is mapped or being read: then it lives until its own last
 * mapping or read() is gone (iotrace_ringbuf_put()).
 */
static void iotrace_nl_swap(struct iotrace_disk *d, struct iotrace_disk *tmp,
			    struct iotrace_ringbuf **new_rb)
{
	struct iotrace_ring_hdr *old = d->hdr;
	struct iotrace_ringbuf *old_rb;
	struct iotrace_counts c;
	bool unused;

	iotrace_ring_counts(d, &c);
	d->totals.recorded += c.recorded;
	d->totals.overwritten += c.overwritten;
	d->totals.dropped += c.dropped;
	d->totals.filtered += c.filtered;
	d->totals.resizes++;

	tmp->hdr->logical_block_size = old->logical_block_size;
	tmp->hdr->dev_major = old->dev_major;
	tmp->hdr->dev_minor = old->dev_minor;
	tmp->hdr->enabled_ns = old->enabled_ns;
	tmp->hdr->flags = (old->flags & ~IOTRACE_RING_METRICS_ONLY) |
			  (tmp->hdr->flags & IOTRACE_RING_METRICS_ONLY);
	tmp->hdr->generation = old->generation + 1;
	/*
	 * Take numbers go on, as across a clear: a hold's HOLD_HI names one
	 * episode, so a watcher releasing the old ring's hold cannot end a
	 * hold of the new one.
	 */
	tmp->hdr->chunks_taken = old->chunks_taken;
	/* only now the disk's newest ring in the persistent region */
	iotrace_ring_hdr_publish(tmp);

	WRITE_ONCE(old->flags, old->flags | IOTRACE_RING_DETACHED);
	(*new_rb)->mem = tmp->ring;
	spin_lock(&d->ring_lock);
	old_rb = d->rb;
	d->rb = *new_rb;
	WRITE_ONCE(d->ring, tmp->ring);
	d->hdr = tmp->hdr;
	d->cpu_hdrs = tmp->cpu_hdrs;
	d->chunk_hdrs = tmp->chunk_hdrs;
	d->data = tmp->data;
	d->ring_size = tmp->ring_size;
	d->buf_size = tmp->buf_size;
	d->chunk_records = tmp->chunk_records;
	d->nr_chunks = tmp->nr_chunks;
	d->nr_cpus = tmp->nr_cpus;
	d->seq_base = tmp->seq_base;
	old_rb->retired = true;
	unused = !old_rb->users;
	if (!unused)
		list_add_tail(&old_rb->node, &d->retired);
	spin_unlock(&d->ring_lock);
	*new_rb = NULL;
	WRITE_ONCE(d->nl_flags, 0);
	if (unused) {
		iotrace_ring_mem_free(old_rb->mem);
		kfree(old_rb);
	}
}

#ifdef IOTRACE_DEBUG
/*
 * Test hook (debug builds only): a resize waits this long between making
 * its new ring and putting it in place (persist_resize.sh crashes the
 * guest meanwhile).
 */
static unsigned int iotrace_resize_delay_ms;
module_param_named(debug_resize_delay_ms, iotrace_resize_delay_ms, uint, 0644);
MODULE_PARM_DESC(debug_resize_delay_ms,
		 "debug: milliseconds a resize waits between its new ring and the swap");

static void iotrace_nl_resize_delay(const struct iotrace_disk *d)
{
	unsigned int ms = READ_ONCE(iotrace_resize_delay_ms);

	if (!ms)
		return;
	pr_info("iotrace: %s: debug: the resize waits %u ms before the swap\n",
		d->name, ms);
	msleep_interruptible(ms);
}
#else
static inline void iotrace_nl_resize_delay(const struct iotrace_disk *d)
{
}
#endif

/*
 * RESIZE of a disk never enabled, which has no ring: one is made at @size
 * under the mutex, as its enable would make it, not a stand-in made and
 * thrown away first (twice the memory at the peak).
 * Return: true when @d had no ring (*@ret says how the making went).
 */
static bool iotrace_nl_resize_unmade(struct iotrace_disk *d, u64 size,
				     int *ret)
{
	unsigned long old_size;
	bool unmade;

	mutex_lock(&iotrace_mutex);
	unmade = d->attached && !d->ring;
	if (unmade) {
		old_size = d->buf_size;
		d->buf_size = size;
		*ret = iotrace_disk_ring_alloc(d);
		if (*ret)
			d->buf_size = old_size;
	}
	mutex_unlock(&iotrace_mutex);
	return unmade;
}

static int iotrace_nl_resize(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *a = info->attrs[IOTRACE_A_BUF_SIZE];
	struct iotrace_ringbuf *node = NULL;
	struct iotrace_disk *d, *tmp = NULL;
	struct iotrace_geom g;
	unsigned int state;
	int ret;

	ret = iotrace_nl_admin(skb, info);
	if (ret)
		return ret;
	if (!a) {
		NL_SET_ERR_MSG(info->extack, "IOTRACE_A_BUF_SIZE is required");
		return -EINVAL;
	}
	/* no unsigned long truncation of the u64 on a 32-bit kernel */
	if (nla_get_u64(a) > IOTRACE_MAX_BUF_SIZE ||
	    iotrace_ring_geometry(nla_get_u64(a), &g)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "buf_size out of range: 64K..1G and two 4K chunks per possible CPU, or 0 (metrics only)");
		return -EINVAL;
	}
	if (!nla_get_u64(a) && !iotrace_metrics_on) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "buf_size 0 keeps only the metrics, and the module keeps none (loaded with metrics=N)");
		return -EINVAL;
	}
	d = iotrace_nl_disk(info, &ret);
	if (!d)
		return ret;
	if (iotrace_nl_resize_unmade(d, nla_get_u64(a), &ret))
		goto out;
	tmp = kzalloc(sizeof(*tmp), GFP_KERNEL);
	node = kzalloc(sizeof(*node), GFP_KERNEL);
	if (!tmp || !node) {
		ret = -ENOMEM;
		goto out;
	}
	strscpy(tmp->name, d->name, sizeof(tmp->name));
	/* what a ring in the persistent region says of its disk */
	tmp->dev_major = d->dev_major;
	tmp->dev_minor = d->dev_minor;
	tmp->lbs = d->lbs;
	tmp->rec_rflags = d->rec_rflags;
	tmp->mpath_head = d->mpath_head;
	tmp->preg_disk_gen = READ_ONCE(d->preg_disk_gen);
	ret = iotrace_ring_alloc(tmp, nla_get_u64(a));
	if (ret)
		goto out;
	iotrace_nl_resize_delay(d);

	mutex_lock(&iotrace_mutex);
	if (!d->attached) {
		ret = -ENODEV;
		goto out_unlock;
	}
	/* a ring, once made, goes only with its disk (detached above) */
	if (WARN_ON_ONCE(!d->ring)) {
		ret = -ENODEV;
		goto out_unlock;
	}
	state = d->state;
	/* slots kept, completions counted in d->held: nothing goes uncounted */
	iotrace_disk_set_state(d, state & IOTRACE_ST_SLOTS);
	/* the hold is the old ring's; none can be set until the state is back */
	iotrace_hold_release(d, 0, 0);
	iotrace_nl_swap(d, tmp, &node);
	tmp->ring = NULL;
	/* its entry in the region names the disk, as the old one did */
	iotrace_preg_adopt(d);
	/* the new ring visible before probes record again */
	iotrace_disk_set_state(d, state);
out_unlock:
	mutex_unlock(&iotrace_mutex);
out:
	/* a ring no disk had: not kept in the region, even by an unload */
	if (tmp)
		iotrace_ring_mem_discard(tmp->ring);
	kfree(tmp);
	kfree(node);
	iotrace_disk_put(d);
	return ret;
}

/**
 * iotrace_nl_set_filter() - replace the filter of a disk.
 * @skb: the request.
 * @info: its attributes.
 *
 * The new filter is published with one pointer: a completion is filtered
 * by the old filter or by the new one, whole, and counted either way;
 * recording never stops.  "Everything" is the NULL filter (no test on the
 * hot path).
 *
 * Return: 0 or a negative errno.
 */
static int iotrace_nl_set_filter(struct sk_buff *skb, struct genl_info *info)
{
	struct iotrace_filter f = {
		.ops		= IOTRACE_FILTER_OPS_ALL,
		.sector_max	= U64_MAX,
	};
	struct iotrace_filter *nf = NULL, *old;
	struct nlattr **tb = info->attrs;
	struct iotrace_disk *d;
	int ret;

	ret = iotrace_nl_admin(skb, info);
	if (ret)
		return ret;
	if (tb[IOTRACE_A_FILTER_OPS])
		f.ops = nla_get_u32(tb[IOTRACE_A_FILTER_OPS]);
	if (tb[IOTRACE_A_FILTER_SECTOR_MIN])
		f.sector_min = nla_get_u64(tb[IOTRACE_A_FILTER_SECTOR_MIN]);
	if (tb[IOTRACE_A_FILTER_SECTOR_MAX])
		f.sector_max = nla_get_u64(tb[IOTRACE_A_FILTER_SECTOR_MAX]);
	if (tb[IOTRACE_A_FILTER_MIN_BYTES])
		f.min_bytes = nla_get_u32(tb[IOTRACE_A_FILTER_MIN_BYTES]);
	if (f.min_bytes > SZ_1G) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    tb[IOTRACE_A_FILTER_MIN_BYTES],
				    "min-bytes above 1 GiB");
		return -EINVAL;
	}
	if (f.sector_max < f.sector_min) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    tb[IOTRACE_A_FILTER_SECTOR_MAX],
				    "sector range ends before it starts");
		return -EINVAL;
	}
	if (!f.ops) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[IOTRACE_A_FILTER_OPS],
				    "an empty operation mask records nothing");
		return -EINVAL;
	}
	if (f.ops != IOTRACE_FILTER_OPS_ALL || f.min_bytes || f.sector_min ||
	    f.sector_max != U64_MAX) {
		nf = kmemdup(&f, sizeof(f), GFP_KERNEL);
		if (!nf)
			return -ENOMEM;
	}
	d = iotrace_nl_disk(info, &ret);
	if (!d)
		goto out_free;
	mutex_lock(&iotrace_mutex);
	if (!d->attached) {
		mutex_unlock(&iotrace_mutex);
		ret = -ENODEV;
		goto out_put;
	}
	old = rcu_replace_pointer(d->filter, nf,
				  lockdep_is_held(&iotrace_mutex));
	mutex_unlock(&iotrace_mutex);
	nf = NULL;
	if (old)
		kfree_rcu(old, rcu);
out_put:
	iotrace_disk_put(d);
out_free:
	kfree(nf);
	return ret;
}

/*
 * The reply to GET_METRICS: @r read, @n requests in flight, the oldest
 * issued at @oldest.
 */
static int iotrace_nl_fill_metrics(struct sk_buff *msg, struct genl_info *info,
				   struct iotrace_disk *d,
				   const struct iotrace_mread *r,
				   u32 n, u64 oldest, u64 now)
{
	unsigned int i;
	void *hdr;

	hdr = genlmsg_put_reply(msg, info, &iotrace_nl_family, 0,
				IOTRACE_CMD_GET_METRICS);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(msg, IOTRACE_A_DISK_NAME, d->name) ||
	    iotrace_nl_put_u64(msg, IOTRACE_A_M_RESET_NS, r->reset_ns) ||
	    iotrace_nl_put_u64(msg, IOTRACE_A_M_NOW_NS, now))
		goto err;
	for (i = 0; i < IOTRACE_NR_MOPS; i++)
		if (nla_put(msg, IOTRACE_A_M_OP, sizeof(r->snap.op[i]),
			    &r->snap.op[i]))
			goto err;
	if (iotrace_nl_put_u64(msg, IOTRACE_A_M_TIMEOUTS, r->snap.timeouts) ||
	    iotrace_nl_put_u64(msg, IOTRACE_A_M_REQUEUES, r->snap.requeues) ||
	    iotrace_nl_put_u64(msg, IOTRACE_A_M_INFLIGHT, n))
		goto err;
	if (n && iotrace_nl_put_u64(msg, IOTRACE_A_M_INFLIGHT_OLDEST_NS,
				    oldest))
		goto err;
	for (i = 0; i < r->nr_errors; i++)
		if (nla_put(msg, IOTRACE_A_M_ERROR, sizeof(r->errors[i]),
			    &r->errors[i]))
			goto err;
	genlmsg_end(msg, hdr);
	return 0;
err:
	genlmsg_cancel(msg, hdr);
	return -EMSGSIZE;
}

/* A disk of a module loaded with metrics=N has none. */
static int iotrace_nl_no_metrics(struct genl_info *info)
{
	NL_SET_ERR_MSG(info->extack,
		       "the module keeps no metrics (loaded with metrics=N)");
	return -ENODATA;
}

/**
 * iotrace_nl_get_metrics() - GET_METRICS: the metrics of one disk.
 * @skb: the request.
 * @info: its attributes.
 *
 * Needs no privilege: counters and latencies, no addresses, no data.
 *
 * Return: 0 or a negative errno.
 */
static int iotrace_nl_get_metrics(struct sk_buff *skb, struct genl_info *info)
{
	struct iotrace_metrics *m;
	struct iotrace_mread *r;
	struct iotrace_disk *d;
	struct sk_buff *msg;
	size_t size;
	u64 now, oldest;
	u32 n;
	int ret;

	d = iotrace_nl_disk(info, &ret);
	if (!d)
		return ret;
	m = iotrace_disk_metrics(d);
	if (!m && !iotrace_metrics_on) {
		ret = iotrace_nl_no_metrics(info);
		goto out_put;
	}
	r = iotrace_mread_alloc();
	if (!r) {
		ret = -ENOMEM;
		goto out_put;
	}
	n = iotrace_inflight_oldest(d, &oldest);
	/* never enabled: no metrics yet, none counted until now */
	iotrace_metrics_read(m, r);
	now = ktime_get_ns();
	size = IOTRACE_NR_MOPS * nla_total_size(sizeof(r->snap.op[0])) +
		r->nr_errors * nla_total_size(sizeof(r->errors[0])) +
		nla_total_size(IOTRACE_NAME_LEN) +
		6 * nla_total_size_64bit(sizeof(u64));
	msg = genlmsg_new(size, GFP_KERNEL);
	if (!msg) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = iotrace_nl_fill_metrics(msg, info, d, r, n, oldest, now);
	if (ret) {
		nlmsg_free(msg);
		goto out_free;
	}
	ret = genlmsg_reply(msg, info);
out_free:
	kvfree(r);
out_put:
	iotrace_disk_put(d);
	return ret;
}

/* RESET_METRICS: zero the metrics of a disk; its ring is not touched. */
static int iotrace_nl_reset_metrics(struct sk_buff *skb,
				    struct genl_info *info)
{
	struct iotrace_disk *d;
	int ret;

	d = iotrace_nl_admin_disk(skb, info, &ret);
	if (!d)
		return ret;
	if (iotrace_disk_metrics(d))
		iotrace_metrics_reset(d->metrics);
	else if (!iotrace_metrics_on)
		ret = iotrace_nl_no_metrics(info);
	iotrace_disk_put(d);
	return ret;
}

static int iotrace_nl_set_nvme_layout(struct sk_buff *skb,
				      struct genl_info *info)
{
	static const int attrs[] = {
		IOTRACE_A_NVME_STATUS_OFF, IOTRACE_A_NVME_STATUS_SIZE,
		IOTRACE_A_NVME_RESULT_OFF, IOTRACE_A_NVME_RESULT_SIZE,
	};
	struct nlattr **tb = info->attrs;
	unsigned int i, n = 0;
	int ret;

	ret = iotrace_nl_admin(skb, info);
	if (ret)
		return ret;
	if (tb[IOTRACE_A_DISK_NAME]) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[IOTRACE_A_DISK_NAME],
				    "the NVMe layout is global: no disk name");
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(attrs); i++)
		n += !!tb[attrs[i]];
	if (!n)
		return iotrace_nvme_set_layout(false, 0, 0, 0, 0,
					       info->extack);
	if (n != ARRAY_SIZE(attrs)) {
		NL_SET_ERR_MSG(info->extack,
			       "give status and result offset and size, all four (none forgets the layout)");
		return -EINVAL;
	}
	return iotrace_nvme_set_layout(true,
				       nla_get_u32(tb[IOTRACE_A_NVME_STATUS_OFF]),
				       nla_get_u32(tb[IOTRACE_A_NVME_STATUS_SIZE]),
				       nla_get_u32(tb[IOTRACE_A_NVME_RESULT_OFF]),
				       nla_get_u32(tb[IOTRACE_A_NVME_RESULT_SIZE]),
				       info->extack);
}

/* A string attribute of a request, "" when absent. */
static const char *iotrace_nl_str(struct genl_info *info, int attr)
{
	return info->attrs[attr] ? nla_data(info->attrs[attr]) : "";
}

/*
 * SET_IDENTITY: who the disk is (sysfs, by way of user space), kept in
 * the persistent region for the next boot.
 */
static int iotrace_nl_set_identity(struct sk_buff *skb,
				   struct genl_info *info)
{
	struct iotrace_disk *d;
	int ret;

	d = iotrace_nl_admin_disk(skb, info, &ret);
	if (!d)
		return ret;
	ret = iotrace_preg_set_ident(d,
				     iotrace_nl_str(info, IOTRACE_A_ID_MODEL),
				     iotrace_nl_str(info, IOTRACE_A_ID_SERIAL),
				     iotrace_nl_str(info, IOTRACE_A_ID_WWN));
	iotrace_disk_put(d);
	return ret;
}

/* Limits of the trigger attributes (Documentation/netlink.rst). */
#define IOTRACE_TRIG_LAT_MAX	(3600ULL * NSEC_PER_SEC)
#define IOTRACE_TRIG_STUCK_MIN	(100ULL * NSEC_PER_MSEC)
#define IOTRACE_TRIG_STUCK_MAX	(86400ULL * NSEC_PER_SEC)
#define IOTRACE_TRIG_RATE_MAX	(3600ULL * NSEC_PER_SEC)
#define IOTRACE_TRIG_RATE_DEF	NSEC_PER_SEC
#define IOTRACE_TRIG_HOLD_DEF	(30ULL * NSEC_PER_SEC)
#define IOTRACE_TRIG_HOLD_MAX_NS	(3600ULL * NSEC_PER_SEC)

/* A u8 attribute that is a boolean: 0 or 1, else EINVAL. */
static int iotrace_nl_bool(struct genl_info *info, int attr, bool *on)
{
	struct nlattr *a = info->attrs[attr];

	*on = false;
	if (!a)
		return 0;
	if (nla_get_u8(a) > 1) {
		NL_SET_ERR_MSG_ATTR(info->extack, a, "a flag: 0 or 1");
		return -EINVAL;
	}
	*on = nla_get_u8(a);
	return 0;
}

/*
 * The IOTRACE_A_TRIG_* attributes of a SET_TRIGGER request into @t.
 * Return: 0, or -EINVAL with the extended ack message said.
 */
static int iotrace_nl_parse_trig(struct genl_info *info,
				 struct iotrace_trig *t, bool *any)
{
	struct nlattr **tb = info->attrs;
	bool err, dev, tmo;
	struct nlattr *a;
	unsigned int i;
	int rem, ret;
	u64 v;

	*any = false;
	for (i = 0; i < ARRAY_SIZE(t->lat_ns); i++)
		t->lat_ns[i] = U64_MAX;
	for (i = 0; i < IOTRACE_NR_MOPS; i++) {
		a = tb[IOTRACE_A_TRIG_LAT_READ + i];
		if (!a)
			continue;
		v = nla_get_u64(a);
		if (v > IOTRACE_TRIG_LAT_MAX) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "latency threshold above 1 hour");
			return -EINVAL;
		}
		t->mop_lat_ns[i] = v;
		*any |= v != 0;
	}
	for (i = 0; i < IOTRACE_NR_MOPS; i++)
		if (t->mop_lat_ns[i])
			t->lat_ns[i] = t->mop_lat_ns[i];
	ret = iotrace_nl_bool(info, IOTRACE_A_TRIG_ERROR, &err) ?:
	      iotrace_nl_bool(info, IOTRACE_A_TRIG_DEVSTATUS, &dev) ?:
	      iotrace_nl_bool(info, IOTRACE_A_TRIG_TIMEOUT, &tmo);
	if (ret)
		return ret;
	t->md_flags = (err ? IOTRACE_MD_ERROR : 0) |
		      (dev ? IOTRACE_MD_DEVSTATUS : 0) |
		      (tmo ? IOTRACE_MD_TIMEOUT : 0);
	*any |= t->md_flags != 0;
	/* the errno list: every IOTRACE_A_TRIG_ERRNO of the request */
	nla_for_each_attr(a, genlmsg_data(info->genlhdr),
			  genlmsg_len(info->genlhdr), rem) {
		if (nla_type(a) != IOTRACE_A_TRIG_ERRNO)
			continue;
		v = nla_get_u32(a);
		if (!err) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "an errno list needs the error trigger");
			return -EINVAL;
		}
		if (!v || v > MAX_ERRNO) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "errno out of range: 1..4095");
			return -EINVAL;
		}
		if (t->nr_errnos == IOTRACE_TRIG_MAX_ERRNOS) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "more than 8 errnos");
			return -EINVAL;
		}
		t->errnos[t->nr_errnos++] = v;
	}
	a = tb[IOTRACE_A_TRIG_REQUEUES];
	if (a) {
		v = nla_get_u32(a);
		if (v > U8_MAX) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "requeue count out of range: 1..255 (0: off)");
			return -EINVAL;
		}
		t->requeues = v;
		*any |= v != 0;
	}
	a = tb[IOTRACE_A_TRIG_STUCK_NS];
	if (a) {
		v = nla_get_u64(a);
		if (v && (v < IOTRACE_TRIG_STUCK_MIN ||
			  v > IOTRACE_TRIG_STUCK_MAX)) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "stuck threshold out of range: 100 ms..1 day (0: off)");
			return -EINVAL;
		}
		t->stuck_ns = v;
		*any |= v != 0;
	}
	/* against the disk's ring: iotrace_nl_set_trigger() */
	if (tb[IOTRACE_A_TRIG_HOLD_CHUNKS])
		t->hold_chunks = nla_get_u32(tb[IOTRACE_A_TRIG_HOLD_CHUNKS]);
	t->hold_ns = IOTRACE_TRIG_HOLD_DEF;
	a = tb[IOTRACE_A_TRIG_HOLD_NS];
	if (a) {
		v = nla_get_u64(a);
		if (v < NSEC_PER_SEC || v > IOTRACE_TRIG_HOLD_MAX_NS) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "hold expiry out of range: 1 s..1 hour");
			return -EINVAL;
		}
		t->hold_ns = v;
	}
	t->rate_ns = IOTRACE_TRIG_RATE_DEF;
	a = tb[IOTRACE_A_TRIG_RATE_NS];
	if (a) {
		v = nla_get_u64(a);
		if (v > IOTRACE_TRIG_RATE_MAX) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "rate limit above 1 hour");
			return -EINVAL;
		}
		t->rate_ns = v;
	}
	return 0;
}

/**
 * iotrace_nl_set_trigger() - SET_TRIGGER: replace the triggers of a disk.
 * @skb: the request.
 * @info: its attributes.
 *
 * The new set is published with one pointer, after a grace period
 * without one (iotrace_trig_set()); a request with no condition removes
 * the triggers.
 *
 * Return: 0 or a negative errno.
 */
static int iotrace_nl_set_trigger(struct sk_buff *skb, struct genl_info *info)
{
	struct iotrace_trig *t;
	struct iotrace_disk *d;
	bool any;
	int ret;

	ret = iotrace_nl_admin(skb, info);
	if (ret)
		return ret;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	ret = iotrace_nl_parse_trig(info, t, &any);
	if (ret)
		goto out_free;
	if (!any) {
		kfree(t);
		t = NULL;
	}
	d = iotrace_nl_disk(info, &ret);
	if (!d)
		goto out_free;
	mutex_lock(&iotrace_mutex);
	if (!d->attached) {
		ret = -ENODEV;
	} else if (t && t->hold_chunks != IOTRACE_TRIG_HOLD_MAX &&
		   t->hold_chunks > iotrace_hold_max(d)) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[IOTRACE_A_TRIG_HOLD_CHUNKS],
				    "hold above the most this ring allows (half its chunks, 2 per CPU + 2 left)");
		ret = -EINVAL;
	} else if (t && t->requeues && d->mpath_head) {
		/* the head's requests are its paths': so are their requeues */
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[IOTRACE_A_TRIG_REQUEUES],
				    "a multipath head sees no requeue: set it on its paths");
		ret = -EINVAL;
	} else {
		iotrace_trig_set(d, t);
		t = NULL;
	}
	mutex_unlock(&iotrace_mutex);
	iotrace_disk_put(d);
out_free:
	kfree(t);
	return ret;
}

/**
 * iotrace_nl_release_hold() - RELEASE_HOLD: end the hold of a disk.
 * @skb: the request.
 * @info: its attributes: the disk, optionally the hold (HOLD_HI, HOLD_NS).
 *
 * Return: 0 (also when there was no such hold) or a negative errno.
 */
static int iotrace_nl_release_hold(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *a = info->attrs[IOTRACE_A_HOLD_HI];
	struct nlattr *ns = info->attrs[IOTRACE_A_HOLD_NS];
	struct iotrace_disk *d;
	int ret;

	d = iotrace_nl_admin_disk(skb, info, &ret);
	if (!d)
		return ret;
	/* 0 is "any hold" to iotrace_hold_release(): no hold has it */
	if ((a && !nla_get_u64(a)) || (ns && !nla_get_u64(ns))) {
		NL_SET_ERR_MSG_ATTR(info->extack, a && !nla_get_u64(a) ? a : ns,
				    "no hold has a HOLD_HI or HOLD_NS of 0 (leave it out to end any hold)");
		iotrace_disk_put(d);
		return -EINVAL;
	}
	mutex_lock(&iotrace_mutex);
	if (d->attached)
		iotrace_hold_release(d, a ? nla_get_u64(a) : 0,
				     ns ? nla_get_u64(ns) : 0);
	else
		ret = -ENODEV;
	mutex_unlock(&iotrace_mutex);
	iotrace_disk_put(d);
	return ret;
}

static const struct genl_small_ops iotrace_nl_ops[] = {
	{
		.cmd	= IOTRACE_CMD_LIST,
		.doit	= iotrace_nl_list_doit,
		.dumpit	= iotrace_nl_list_dumpit,
	},
	{
		.cmd	= IOTRACE_CMD_ENABLE,
		.flags	= GENL_ADMIN_PERM,
		.doit	= iotrace_nl_enable,
	},
	{
		.cmd	= IOTRACE_CMD_DISABLE,
		.flags	= GENL_ADMIN_PERM,
		.doit	= iotrace_nl_enable,
	},
	{
		.cmd	= IOTRACE_CMD_CLEAR,
		.flags	= GENL_ADMIN_PERM,
		.doit	= iotrace_nl_clear,
	},
	{
		.cmd	= IOTRACE_CMD_RESIZE,
		.flags	= GENL_ADMIN_PERM,
		.doit	= iotrace_nl_resize,
	},
	{
		.cmd	= IOTRACE_CMD_SET_FILTER,
		.flags	= GENL_ADMIN_PERM,
		.doit	= iotrace_nl_set_filter,
	},
	{
		.cmd	= IOTRACE_CMD_SET_NVME_LAYOUT,
		.flags	= GENL_ADMIN_PERM,
		.doit	= iotrace_nl_set_nvme_layout,
	},
	{
		.cmd	= IOTRACE_CMD_GET_METRICS,
		.doit	= iotrace_nl_get_metrics,
	},
	{
		.cmd	= IOTRACE_CMD_RESET_METRICS,
		.flags	= GENL_ADMIN_PERM,
		.doit	= iotrace_nl_reset_metrics,
	},
	{
		.cmd	= IOTRACE_CMD_SET_TRIGGER,
		.flags	= GENL_ADMIN_PERM,
		.doit	= iotrace_nl_set_trigger,
	},
	{
		.cmd	= IOTRACE_CMD_RELEASE_HOLD,
		.flags	= GENL_ADMIN_PERM,
		.doit	= iotrace_nl_release_hold,
	},
	{
		.cmd	= IOTRACE_CMD_SET_IDENTITY,
		.flags	= GENL_ADMIN_PERM,
		.doit	= iotrace_nl_set_identity,
	},
};

/*
 * Trigger events carry other users' requests: only CAP_SYS_ADMIN may
 * join where the kernel can say so (compat.h).
 */
static const struct genl_multicast_group iotrace_nl_mcgrps[] = {
	{ .name = IOTRACE_GENL_MCGRP, IOTRACE_MCGRP_PRIV },
};

/*
 * parallel_ops: generic netlink does not run the family's requests under
 * its global genl_mutex (which every family without parallel_ops and the
 * family lookup share).  Every handler takes iotrace_mutex itself for
 * what it reads or changes of the disks, the dumps keep their position
 * in their own callback, and the multicasts need no lock: a LIST or
 * GET_METRICS walk without privilege delays no other request.
 */
static struct genl_family iotrace_nl_family = {
	.name		= IOTRACE_GENL_NAME,
	.version	= IOTRACE_GENL_VERSION,
	.maxattr	= IOTRACE_A_MAX,
	.policy		= iotrace_nl_policy,
	.module		= THIS_MODULE,
	.small_ops	= iotrace_nl_ops,
	.n_small_ops	= ARRAY_SIZE(iotrace_nl_ops),
	.mcgrps		= iotrace_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(iotrace_nl_mcgrps),
	.parallel_ops	= true,
};

/**
 * iotrace_netlink_init() - set up the work that sends events (before any
 *	disk is enabled, whose probes queue it).  The family itself is
 *	registered by iotrace_netlink_register(), once the load cannot fail.
 */
void iotrace_netlink_init(void)
{
	init_irq_work(&iotrace_nl_ovf_irq_work, iotrace_nl_ovf_irq);
	iotrace_trig_init();
}

/**
 * iotrace_netlink_register() - register the family: the last step of the
 *	load that can fail.
 *
 * A request or dump started on the family holds a reference to the module
 * that a failing load does not wait for, so nothing after this may fail.
 * Events of disks attached before it are not sent: nobody can listen yet.
 *
 * Return: 0 or a negative errno.
 */
int iotrace_netlink_register(void)
{
	int ret;

	/* every command: strict attributes, reserved header field zero */
	iotrace_genl_resv_start_op(&iotrace_nl_family, IOTRACE_CMD_LIST);
	ret = genl_register_family(&iotrace_nl_family);
	if (ret) {
		pr_err("iotrace: cannot register generic netlink family: %d\n",
		       ret);
		return ret;
	}
	WRITE_ONCE(iotrace_nl_registered, true);
	return 0;
}

/* After the disks are gone: no probe can queue an overflow any more. */
void iotrace_netlink_exit(void)
{
	iotrace_trig_exit();
	irq_work_sync(&iotrace_nl_ovf_irq_work);
	cancel_work_sync(&iotrace_nl_ovf_work);
	if (!iotrace_nl_registered)
		return;
	WRITE_ONCE(iotrace_nl_registered, false);
	genl_unregister_family(&iotrace_nl_family);
}
