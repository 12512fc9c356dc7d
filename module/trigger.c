// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace - triggers (issue 21): the conditions a completion, a requeue
 * or a request in flight too long fires, and their events.
 *
 * The completion probe decides with two compares against the disk's
 * struct iotrace_trig (probe.c); a hit marks its record with
 * IOTRACE_RF_TRIGGER and posts the event's facts in the disk's one event
 * slot (iotrace_trig_post(), any context, no allocation), which the
 * module's irq_work hands to a work item that sends IOTRACE_CMD_EVT_TRIGGER
 * (netlink.c) from process context.  A hit that finds the slot taken, or
 * comes sooner than the rate limit after the last event, is counted as
 * suppressed and reported with the next event.
 *
 * Stuck requests are found by a delayed work that scans the in-flight
 * table of every disk with a stuck threshold, never by the hot path, and
 * sends their events itself, with a rate limit of their own.
 */
#include <linux/kernel.h>
#include <linux/irq_work.h>
#include <linux/workqueue.h>
#include <linux/timekeeping.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include "iotrace.h"

/* The stuck scan runs at most this often. */
#define IOTRACE_TRIG_SCAN_MIN_NS	(100 * NSEC_PER_MSEC)

static void iotrace_trig_workfn(struct work_struct *work);
static DECLARE_WORK(iotrace_trig_work, iotrace_trig_workfn);
static void iotrace_trig_scan_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(iotrace_trig_scan, iotrace_trig_scan_fn);
static struct irq_work iotrace_trig_irq_work;

/**
 * iotrace_trig_reason() - the conditions of @t that the completion @x
 *	fires.
 * @t: the disk's triggers.
 * @x: what the completion probe learnt (see struct iotrace_mdone).
 *
 * Context: the completion probe, after iotrace_trig_test() said maybe.
 * Return: IOTRACE_TRIG_* bits, 0 for none.
 */
u32 iotrace_trig_reason(const struct iotrace_trig *t,
			const struct iotrace_mdone *x)
{
	u32 r = 0;
	u8 i;

	if ((x->flags & IOTRACE_MD_DEV) && x->dev_ns > t->lat_ns[x->op])
		r |= IOTRACE_TRIG_LATENCY;
	if ((t->md_flags & IOTRACE_MD_ERROR) && x->errno_val) {
		if (!t->nr_errnos) {
			r |= IOTRACE_TRIG_ERROR;
		} else {
			for (i = 0; i < t->nr_errnos; i++)
				if (t->errnos[i] == x->errno_val)
					r |= IOTRACE_TRIG_ERROR;
		}
	}
	if (x->flags & t->md_flags & IOTRACE_MD_DEVSTATUS)
		r |= IOTRACE_TRIG_DEVSTATUS;
	if (x->flags & t->md_flags & IOTRACE_MD_TIMEOUT)
		r |= IOTRACE_TRIG_TIMEOUT;
	return r;
}

/**
 * iotrace_trig_post() - a trigger of @d fired: count it, and make it an
 *	event unless the rate limit or an event still unsent says no.
 * @d: the disk.
 * @t: its triggers (the rate limit).
 * @ev: the event's facts, copied.
 *
 * Lockless: test_and_set_bit() takes the disk's event slot; its holder
 * alone reads and writes @last_ns and @ev, until the work releases it.
 *
 * Context: any (a probe, possibly in hard IRQ; the stuck scan).
 */
void iotrace_trig_post(struct iotrace_disk *d, const struct iotrace_trig *t,
		       const struct iotrace_trig_evt *ev)
{
	struct iotrace_trig_state *ts = &d->tstate;

	atomic_long_inc(&ts->hits);
	if (test_and_set_bit(IOTRACE_TS_PENDING, &ts->flags))
		goto suppressed;
	if (ts->last_ns && (s64)(ev->time_ns - ts->last_ns) < (s64)t->rate_ns) {
		clear_bit_unlock(IOTRACE_TS_PENDING, &ts->flags);
		goto suppressed;
	}
	ts->last_ns = ev->time_ns;
	ts->ev = *ev;
	/* the facts visible before the slot is seen ready */
	smp_mb__before_atomic();
	set_bit(IOTRACE_TS_READY, &ts->flags);
	irq_work_queue(&iotrace_trig_irq_work);
	return;
suppressed:
	atomic_long_inc(&ts->suppressed);
	atomic_long_inc(&ts->suppressed_total);
}

static void iotrace_trig_irq(struct irq_work *w)
{
	schedule_work(&iotrace_trig_work);
}

/* Send the ready events of the attached disks and free their slots. */
static void iotrace_trig_workfn(struct work_struct *work)
{
	struct iotrace_trig_evt ev;
	struct iotrace_trig_state *ts;
	struct iotrace_disk *d;
	u64 supp;

	mutex_lock(&iotrace_mutex);
	list_for_each_entry(d, &iotrace_disks, node) {
		ts = &d->tstate;
		/* fully ordered: the facts are read after the bit */
		if (!test_and_clear_bit(IOTRACE_TS_READY, &ts->flags))
			continue;
		ev = ts->ev;
		supp = atomic_long_xchg(&ts->suppressed, 0);
		clear_bit_unlock(IOTRACE_TS_PENDING, &ts->flags);
		iotrace_nl_trig_send(d, &ev, supp);
		atomic_long_inc(&ts->events);
	}
	mutex_unlock(&iotrace_mutex);
}

/*
 * A stuck request of @d found by the scan (process context): sent at once
 * unless sooner than the rate limit after the previous stuck event.  Its
 * own rate (@stuck_ns of the state), so that the event slot, which only
 * the completions need, never holds one stuck request back for another.
 */
static void iotrace_trig_stuck(struct iotrace_disk *d,
			       const struct iotrace_trig *t,
			       const struct iotrace_trig_evt *ev)
{
	struct iotrace_trig_state *ts = &d->tstate;

	atomic_long_inc(&ts->hits);
	if (ts->stuck_last_ns &&
	    ev->time_ns - ts->stuck_last_ns < t->rate_ns) {
		atomic_long_inc(&ts->suppressed);
		atomic_long_inc(&ts->suppressed_total);
		return;
	}
	ts->stuck_last_ns = ev->time_ns;
	iotrace_nl_trig_send(d, ev, atomic_long_xchg(&ts->suppressed, 0));
	atomic_long_inc(&ts->events);
}

/*
 * Scan the in-flight table of @d for requests whose age passed
 * @t->stuck_ns since the previous scan: each is found once per issue.
 */
static void iotrace_trig_scan_disk(struct iotrace_disk *d,
				   const struct iotrace_trig *t, u64 now)
{
	u32 i, total = iotrace_nr_slots(d), tags = d->nr_hwq * d->depth;
	struct iotrace_trig_state *ts = &d->tstate;
	struct iotrace_trig_evt ev;

	for (i = 0; i < total; i++) {
		struct iotrace_slot *s = &d->slots[i];
		/* pairs with the smp_wmb() after an odd generation */
		u32 gen = smp_load_acquire(&s->gen);
		u64 due;

		if ((gen & 1) || !READ_ONCE(s->rq))
			continue;
		memset(&ev, 0, sizeof(ev));
		ev.issue_ns = s->issue_ns;
		ev.sector = s->sector;
		ev.bytes = s->bytes;
		ev.tag = s->tag;
		ev.op = s->op;
		ev.retries = s->retries;
		/* copy done before the generation is read again */
		smp_rmb();
		if (READ_ONCE(s->gen) != gen || !READ_ONCE(s->rq))
			continue;
		due = ev.issue_ns + t->stuck_ns;
		if (due > now || due <= ts->scan_ns)
			continue;
		/* the flush slots follow the tag slots, one per queue */
		ev.hwq = i < tags ? i / d->depth : i - tags;
		ev.reason = IOTRACE_TRIG_STUCK;
		ev.time_ns = now;
		ev.lat_ns = now - ev.issue_ns;
		ev.has = IOTRACE_TE_ISSUE | IOTRACE_TE_LAT;
		iotrace_trig_stuck(d, t, &ev);
	}
	ts->scan_ns = now;
}

static void iotrace_trig_scan_fn(struct work_struct *work)
{
	const struct iotrace_trig *t;
	struct iotrace_disk *d;
	u64 now, next = 0;

	mutex_lock(&iotrace_mutex);
	now = ktime_get_ns();
	list_for_each_entry(d, &iotrace_disks, node) {
		t = rcu_dereference_protected(d->trig,
					      lockdep_is_held(&iotrace_mutex));
		if (!t || !t->stuck_ns)
			continue;
		if (!next || t->stuck_ns / 2 < next)
			next = t->stuck_ns / 2;
		/* disabled: the table is empty, or wiped at the next enable */
		if (d->state & IOTRACE_ST_SLOTS)
			iotrace_trig_scan_disk(d, t, now);
		else
			d->tstate.scan_ns = now;
	}
	mutex_unlock(&iotrace_mutex);
	if (!next)
		return;
	next = max_t(u64, next, IOTRACE_TRIG_SCAN_MIN_NS);
	schedule_delayed_work(&iotrace_trig_scan, nsecs_to_jiffies(next));
}

/**
 * iotrace_trig_set() - replace the triggers of a disk.
 * @d: the disk, attached.
 * @t: the new set (consumed), NULL for none.
 *
 * The counters start again; a stuck threshold (re)starts the scan, which
 * then looks at every request in flight once more.
 *
 * Context: iotrace_mutex held.
 */
void iotrace_trig_set(struct iotrace_disk *d, struct iotrace_trig *t)
{
	struct iotrace_trig *old;

	lockdep_assert_held(&iotrace_mutex);
	old = rcu_replace_pointer(d->trig, t, lockdep_is_held(&iotrace_mutex));
	if (old)
		kfree_rcu(old, rcu);
	atomic_long_set(&d->tstate.hits, 0);
	atomic_long_set(&d->tstate.events, 0);
	atomic_long_set(&d->tstate.suppressed, 0);
	atomic_long_set(&d->tstate.suppressed_total, 0);
	d->tstate.scan_ns = 0;
	if (t && t->stuck_ns)
		mod_delayed_work(system_wq, &iotrace_trig_scan, 0);
}

/**
 * iotrace_trig_release() - free the triggers of a disk.
 * @d: the disk, unreferenced (no probe can hold it).
 */
void iotrace_trig_release(struct iotrace_disk *d)
{
	kfree(rcu_dereference_protected(d->trig, true));
	RCU_INIT_POINTER(d->trig, NULL);
}

/* Before the family is registered. */
void iotrace_trig_init(void)
{
	init_irq_work(&iotrace_trig_irq_work, iotrace_trig_irq);
}

/*
 * After the disks are gone (no probe can post any more), before the
 * family goes: nothing left queued or running.
 */
void iotrace_trig_exit(void)
{
	cancel_delayed_work_sync(&iotrace_trig_scan);
	irq_work_sync(&iotrace_trig_irq_work);
	cancel_work_sync(&iotrace_trig_work);
}
