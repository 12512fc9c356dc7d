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
 *
 * The hold (ring ABI 2.1): a hit of triggers with a hold_chunks keeps the
 * newest chunks of the ring, the history before it, from being recycled
 * (iotrace_hold_set(), one cmpxchg and a few stores, at the hit); the
 * taker skips them (ring.c).  It ends by iotrace_hold_release(): netlink
 * RELEASE_HOLD, clear, resize, disable, new triggers, or the expiry work.
 */
#include <linux/kernel.h>
#include <linux/irq_work.h>
#include <linux/workqueue.h>
#include <linux/timekeeping.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include "iotrace.h"
#include "compat.h"

/* iotrace_hold_release() spins this often for a hold being set, then sleeps. */
#define IOTRACE_HOLD_SPINS	1000

/* The stuck scan runs at most this often. */
#define IOTRACE_TRIG_SCAN_MIN_NS	(100 * NSEC_PER_MSEC)

static void iotrace_trig_workfn(struct work_struct *work);
static DECLARE_WORK(iotrace_trig_work, iotrace_trig_workfn);
static void iotrace_trig_scan_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(iotrace_trig_scan, iotrace_trig_scan_fn);
static struct irq_work iotrace_trig_irq_work;
static void iotrace_hold_expire_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(iotrace_hold_work, iotrace_hold_expire_fn);

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

	if ((x->flags & IOTRACE_MD_DEV) && x->dev_ns > t->lat_ns[x->mop])
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
 *	event (with the hold its triggers ask for) unless the rate limit or
 *	an event still unsent says no.
 * @d: the disk.
 * @t: its triggers (the rate limit).
 * @ev: the event's facts, copied.
 *
 * Lockless: test_and_set_bit() takes the disk's event slot; its holder
 * alone reads and writes @last_ns and @ev, until the work releases it
 * (and iotrace_trig_set(), which zeroes @last_ns, with no set armed).
 *
 * Context: any (a probe, possibly in hard IRQ).
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
	ts->ev.epoch = t->epoch;
	/* the history before the event is held before the event is sent */
	iotrace_hold_set(d, t, ev->time_ns);
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
	queue_work(IOTRACE_WQ, &iotrace_trig_work);
}

/* Send the ready events of the attached disks and free their slots. */
static void iotrace_trig_workfn(struct work_struct *work)
{
	struct iotrace_trig_evt ev;
	struct iotrace_trig_state *ts;
	struct iotrace_disk *d;
	bool hold = false;
	u64 supp, n;

	mutex_lock(&iotrace_mutex);
	list_for_each_entry(d, &iotrace_disks, node) {
		ts = &d->tstate;
		if (test_and_clear_bit(IOTRACE_TS_HOLD, &ts->flags))
			hold = true;
		/* fully ordered: the facts are read after the bit */
		if (!test_and_clear_bit(IOTRACE_TS_READY, &ts->flags))
			continue;
		ev = ts->ev;
		/*
		 * Posted by a set replaced since: its hit was counted under
		 * that set's epoch, whose counts are gone; not sent, and the
		 * hits it held back are the new set's, left for its next.
		 */
		if (ev.epoch != ts->epoch) {
			clear_bit_unlock(IOTRACE_TS_PENDING, &ts->flags);
			continue;
		}
		supp = atomic_long_xchg(&ts->suppressed, 0);
		clear_bit_unlock(IOTRACE_TS_PENDING, &ts->flags);
		/* counted, sent or not (no memory): a listener sees the gap */
		n = atomic_long_inc_return(&ts->events);
		iotrace_nl_trig_send(d, &ev, supp, n);
	}
	/*
	 * A new hold: the expiry work finds when it ends.  Under the mutex,
	 * as the expiry work arms itself: its later call would put this one
	 * off until the end of another disk's hold.
	 */
	if (hold)
		mod_delayed_work(IOTRACE_WQ, &iotrace_hold_work, 0);
	mutex_unlock(&iotrace_mutex);
}

/* ---- the hold ------------------------------------------------------------ */

/**
 * iotrace_hold_max() - the most chunks a hold may keep in the ring of @d.
 * @d: the disk.
 *
 * Half the pool, and never so much that fewer than two chunks per
 * possible CPU and two more are left to the writers.  A disk never
 * enabled has no ring yet: the limit is that of the ring its first
 * enable makes (@d->buf_size), so that a trigger with a hold can be set
 * before the enable, as the watcher does.
 *
 * Context: any; the ring and its geometry do not change under the
 *	caller (iotrace_mutex held, or a probe of a recording disk).
 * Return: chunks, 0 when the ring is too small for any hold.
 */
u32 iotrace_hold_max(const struct iotrace_disk *d)
{
	u32 n = d->nr_chunks, cpus = d->nr_cpus, keep;
	struct iotrace_geom g;

	if (!d->ring) {
		if (iotrace_ring_geometry(d->buf_size, &g))
			return 0;
		n = g.nr_chunks;
		cpus = g.nr_cpus;
	}
	keep = 2 * cpus + 2;

	if (n <= keep)
		return 0;
	return min(n / 2, n - keep);
}

/**
 * iotrace_hold_set() - a hit of @t: hold the newest chunks of the ring of
 *	@d, unless @t asks for no hold or a hold is active.
 * @d: the disk.
 * @t: its triggers (hold_chunks, hold_ns).
 * @now: CLOCK_MONOTONIC of the hit.
 *
 * The range ends at chunks_taken now, so it covers every chunk taken
 * before the hit: every CPU's current chunk and the chunk of the hit's
 * record.  Published with a store-release of hold_hi (lo first), then a
 * full barrier: a take that claims a chunk after that sees the hold
 * (iotrace_chunk_take() reads it again after its cmpxchg); only a claim
 * already made on another CPU can still recycle a chunk of the range,
 * in practice the oldest chunk of the pool, outside it (module.rst, "The
 * hold").  Nothing on the per-record path: hits only.
 *
 * Context: any; the caller holds its CPU (a probe, or preemption
 *	disabled), so that iotrace_hold_release() waits for a few stores
 *	at most.
 * Return: true when this hit set the hold.
 */
bool iotrace_hold_set(struct iotrace_disk *d, const struct iotrace_trig *t,
		      u64 now)
{
	struct iotrace_ring_hdr *h;
	u64 hi;
	u32 n;

	if (!t->hold_chunks || READ_ONCE(d->hold_state) != IOTRACE_HOLD_NONE)
		return false;
	/* the ring is live: a clear or resize waits for us (grace period) */
	if (!(smp_load_acquire(&d->state) & IOTRACE_ST_RECORD))
		return false;
	/* the first hit of an episode wins */
	if (cmpxchg(&d->hold_state, IOTRACE_HOLD_NONE,
		    IOTRACE_HOLD_SETTING) != IOTRACE_HOLD_NONE)
		return false;
	h = d->hdr;
	n = min(t->hold_chunks, iotrace_hold_max(d));
	hi = atomic64_read((atomic64_t *)&h->chunks_taken);
	if (!n || !hi) {
		/* nothing was written: back to no hold */
		smp_store_release(&d->hold_state, IOTRACE_HOLD_NONE);
		return false;
	}
	WRITE_ONCE(h->hold_lo, hi > n ? hi - n + 1 : 1);
	/* with hold_hi, a name no hold of this ring had before */
	now = max(now, READ_ONCE(h->hold_ns) + 1);
	WRITE_ONCE(h->hold_ns, now);
	d->hold_until_ns = now + t->hold_ns;
	/* the range before the hold is seen; pairs with iotrace_chunk_held() */
	smp_store_release(&h->hold_hi, hi);
	/* the hold before any later claim's second look at it */
	smp_mb();
	/* hold_until_ns and the header before ACTIVE; pairs with the readers */
	smp_store_release(&d->hold_state, IOTRACE_HOLD_ACTIVE);
	/* its expiry is armed from process context */
	set_bit(IOTRACE_TS_HOLD, &d->tstate.flags);
	irq_work_queue(&iotrace_trig_irq_work);
	return true;
}

/**
 * iotrace_hold_release() - end the hold of @d, if it has one.
 * @d: the disk.
 * @hi: release only the hold whose hold_hi is @hi; 0: any.
 * @ns: and only the hold set at @ns (its hold_ns); 0: any.  Two holds in
 *	a row have the same hold_hi when no chunk was taken between them:
 *	a watcher that names the hold by both never ends the next one.
 *
 * Takers that read the hold before still skip its chunks once; nothing
 * else depends on it.  A hit may set a new hold right after.
 *
 * Context: iotrace_mutex held.
 * Return: true when a hold was released.
 */
bool iotrace_hold_release(struct iotrace_disk *d, u64 hi, u64 ns)
{
	struct iotrace_ring_hdr *h = d->hdr;
	unsigned int spins;

	lockdep_assert_held(&iotrace_mutex);
	might_sleep();
	/*
	 * A hit setting it is a few stores away: iotrace_hold_set() runs
	 * with its CPU held (preemption off: a probe, or the stuck scan's
	 * preempt_disable()) and leaves SETTING on every path, so the wait
	 * is those stores plus the interrupts that CPU takes meanwhile.  We
	 * may sleep (the mutex is held): after a few spins, yield, so that a
	 * waiter never keeps a CPU the setter's interrupt threads (RT) or a
	 * vCPU sharing its host CPU need.
	 */
	for (spins = 0; READ_ONCE(d->hold_state) == IOTRACE_HOLD_SETTING;
	     spins++) {
		if (spins < IOTRACE_HOLD_SPINS)
			cpu_relax();
		else
			schedule_timeout_uninterruptible(1);
	}
	/* pairs with the store-release of ACTIVE in iotrace_hold_set() */
	if (smp_load_acquire(&d->hold_state) != IOTRACE_HOLD_ACTIVE)
		return false;
	if ((hi && READ_ONCE(h->hold_hi) != hi) ||
	    (ns && READ_ONCE(h->hold_ns) != ns))
		return false;
	WRITE_ONCE(h->hold_hi, 0);
	/* the header says "no hold" before another hit may set one */
	smp_store_release(&d->hold_state, IOTRACE_HOLD_NONE);
	return true;
}

/*
 * The expiry of the holds: release every hold past its time, come back
 * for the next one.  Armed (at once) by the trigger work when a hit set a
 * hold.
 */
static void iotrace_hold_expire_fn(struct work_struct *work)
{
	struct iotrace_disk *d;
	u64 now, left, next = 0;

	mutex_lock(&iotrace_mutex);
	now = ktime_get_ns();
	list_for_each_entry(d, &iotrace_disks, node) {
		/* pairs with the store-release of ACTIVE: hold_until_ns set */
		if (smp_load_acquire(&d->hold_state) != IOTRACE_HOLD_ACTIVE)
			continue;
		if ((s64)(d->hold_until_ns - now) <= 0) {
			iotrace_hold_release(d, 0, 0);
			continue;
		}
		left = d->hold_until_ns - now;
		if (!next || left < next)
			next = left;
	}
	/*
	 * Armed under the mutex: a hold the trigger work sees after this
	 * scan arms the work at once after this (iotrace_trig_workfn()).
	 */
	if (next)
		mod_delayed_work(IOTRACE_WQ, &iotrace_hold_work,
				 nsecs_to_jiffies(next) + 1);
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
	preempt_disable();
	iotrace_hold_set(d, t, ev->time_ns);
	preempt_enable();
	iotrace_nl_trig_send(d, ev, atomic_long_xchg(&ts->suppressed, 0),
			     atomic_long_inc_return(&ts->events));
}

/**
 * struct iotrace_scan_disk - a disk the stuck scan walks, as its triggers
 *	were when the scan started.
 * @d: the disk, referenced.
 * @epoch: the epoch of its triggers: a new set (or none) ends the walk.
 * @stuck_ns: their stuck threshold.
 * @since: the previous scan's time: a request whose threshold passed
 *	before it was found then.
 */
struct iotrace_scan_disk {
	struct iotrace_disk	*d;
	u64			epoch;
	u64			stuck_ns;
	u64			since;
};

/*
 * The triggers of @s->d if still those the scan started with, on a disk
 * still attached and enabled, else NULL.  Context: iotrace_mutex held.
 */
static const struct iotrace_trig *
iotrace_trig_scan_current(const struct iotrace_scan_disk *s)
{
	const struct iotrace_trig *t;

	t = rcu_dereference_protected(s->d->trig,
				      lockdep_is_held(&iotrace_mutex));
	if (!t || t->epoch != s->epoch || !s->d->attached ||
	    !(s->d->state & IOTRACE_ST_SLOTS))
		return NULL;
	return t;
}

/*
 * Scan the in-flight table @tbl of @s->d, or of a path of the multipath
 * head @s->d, for requests whose age passed the threshold since the
 * previous scan: each is found once per issue.  The walk holds a
 * reference on the table, not iotrace_mutex, which is taken for a
 * request found, to send its event (as the completions' triggers do, a
 * reader of the table never waits for the walk, however large).
 *
 * Return: false when the disk's triggers changed, or it was disabled or
 * removed, meanwhile: the walk ends (a new set restarts the scan).
 */
static bool iotrace_trig_scan_slots(const struct iotrace_scan_disk *s,
				    struct iotrace_slot_table *tbl, u64 now)
{
	const struct iotrace_trig *t;
	struct iotrace_trig_evt ev;
	bool on = true;
	u32 i;

	for (i = 0; on && i < tbl->nr; i++) {
		struct iotrace_slot_issue v;
		u64 due;

		if (!((i + 1) % IOTRACE_SLOT_BATCH))
			cond_resched();
		if (!iotrace_slot_read(&tbl->slots[i], &v))
			continue;
		due = v.issue_ns + s->stuck_ns;
		if (due > now || due <= s->since)
			continue;
		memset(&ev, 0, sizeof(ev));
		ev.issue_ns = v.issue_ns;
		ev.sector = v.sector;
		ev.bytes = v.bytes;
		ev.tag = v.tag;
		ev.op = v.op;
		ev.retries = v.retries;
		ev.hwq = v.hwq;
		ev.reason = IOTRACE_TRIG_STUCK;
		ev.time_ns = now;
		ev.lat_ns = now - ev.issue_ns;
		ev.has = IOTRACE_TE_ISSUE | IOTRACE_TE_LAT;
		if (v.sub & IOTRACE_INFL_SUBMITTER) {
			ev.pid = v.pid;
			ev.has |= IOTRACE_TE_PID;
		}
		mutex_lock(&iotrace_mutex);
		t = iotrace_trig_scan_current(s);
		if (t)
			iotrace_trig_stuck(s->d, t, &ev);
		on = !!t;
		mutex_unlock(&iotrace_mutex);
	}
	return on;
}

/*
 * Scan the requests of @s->d in flight: its own table, or a multipath
 * head's, which has none, its enabled paths' (their requests are its),
 * each on a reference (iotrace_slot_tables_get()).
 * Context: the scan's work, iotrace_mutex not held.
 */
static void iotrace_trig_scan_disk(const struct iotrace_scan_disk *s,
				   u64 now)
{
	const struct iotrace_trig *t;
	struct iotrace_slot_tables w;
	bool on = true;
	u32 i;

	/* out of memory: this scan looks again next time */
	if (iotrace_slot_tables_get(s->d, &w))
		return;
	for (i = 0; on && i < w.nr; i++)
		on = iotrace_trig_scan_slots(s, w.v[i].t, now);
	iotrace_slot_tables_put(&w);
	mutex_lock(&iotrace_mutex);
	t = rcu_dereference_protected(s->d->trig,
				      lockdep_is_held(&iotrace_mutex));
	/*
	 * The same set: what came due by @now was found, or the disk was
	 * disabled meanwhile, whose requests the scan passes over as
	 * iotrace_trig_scan_wants() does (a multipath head's stay in its
	 * paths' tables: not found again after a quick enable).  A new set
	 * starts from 0.
	 */
	if (t && t->epoch == s->epoch && s->d->attached)
		s->d->tstate.scan_ns = now;
	mutex_unlock(&iotrace_mutex);
}

/*
 * Whether the scan walks @d (its triggers @t), and the time until the
 * next scan in *@next.  A disk disabled has nothing in flight (its table
 * is empty, or wiped at the next enable).  Context: iotrace_mutex held.
 */
static bool iotrace_trig_scan_wants(struct iotrace_disk *d,
				    const struct iotrace_trig *t, u64 now,
				    u64 *next)
{
	if (!t || !t->stuck_ns)
		return false;
	if (!*next || t->stuck_ns / 2 < *next)
		*next = t->stuck_ns / 2;
	if (d->state & IOTRACE_ST_SLOTS)
		return true;
	d->tstate.scan_ns = now;
	return false;
}

/*
 * The disks with a stuck threshold are noted, each referenced, under
 * iotrace_mutex; their tables are walked after it is let go.
 */
static void iotrace_trig_scan_fn(struct work_struct *work)
{
	struct iotrace_scan_disk *v = NULL;
	const struct iotrace_trig *t;
	struct iotrace_disk *d;
	u64 now, next = 0;
	u32 i, n = 0, want = 0;

	mutex_lock(&iotrace_mutex);
	now = ktime_get_ns();
	list_for_each_entry(d, &iotrace_disks, node) {
		t = rcu_dereference_protected(d->trig,
					      lockdep_is_held(&iotrace_mutex));
		want += iotrace_trig_scan_wants(d, t, now, &next);
	}
	/* out of memory: the next scan tries again */
	if (want)
		v = kmalloc_array(want, sizeof(*v), GFP_KERNEL);
	list_for_each_entry(d, &iotrace_disks, node) {
		if (!v)
			break;
		t = rcu_dereference_protected(d->trig,
					      lockdep_is_held(&iotrace_mutex));
		if (!t || !t->stuck_ns || !(d->state & IOTRACE_ST_SLOTS))
			continue;
		kref_get(&d->kref);
		v[n].d = d;
		v[n].epoch = t->epoch;
		v[n].stuck_ns = t->stuck_ns;
		v[n].since = d->tstate.scan_ns;
		n++;
	}
	mutex_unlock(&iotrace_mutex);
	for (i = 0; i < n; i++) {
		iotrace_trig_scan_disk(&v[i], now);
		iotrace_disk_put(v[i].d);
	}
	kfree(v);
	if (!next)
		return;
	next = max_t(u64, next, IOTRACE_TRIG_SCAN_MIN_NS);
	queue_delayed_work(IOTRACE_WQ, &iotrace_trig_scan,
			   nsecs_to_jiffies(next));
}

/* The epoch of the latest set of any disk's triggers, under iotrace_mutex. */
static u64 iotrace_trig_epochs;

/**
 * iotrace_trig_set() - replace the triggers of a disk.
 * @d: the disk, attached.
 * @t: the new set (consumed), NULL for none.
 *
 * The counters and the rate limit start again, under a new epoch (larger
 * than any disk's before: a listener tells an event sent before its own
 * set by it); a stuck threshold (re)starts the scan, which then looks at
 * every request in flight once more.  A hold the old set made is
 * released.
 *
 * The old set is taken away and a grace period passes before the counts
 * are zeroed and the new set is published: no hit of the old set is
 * counted under the new epoch, and an event the old set posted and the
 * work has not sent yet keeps the old epoch, so it is not sent as the
 * new set's (iotrace_trig_workfn()).  Hits in the grace period, with no
 * set armed, are not seen.
 *
 * Context: iotrace_mutex held.
 */
void iotrace_trig_set(struct iotrace_disk *d, struct iotrace_trig *t)
{
	struct iotrace_trig *old;
	u64 epoch = ++iotrace_trig_epochs;

	lockdep_assert_held(&iotrace_mutex);
	old = rcu_replace_pointer(d->trig, NULL,
				  lockdep_is_held(&iotrace_mutex));
	if (old) {
		/* no hit of the old set is counted or holds after this */
		synchronize_rcu();
		if (old->hold_chunks)
			iotrace_hold_release(d, 0, 0);
		kfree(old);
	}
	atomic_long_set(&d->tstate.hits, 0);
	atomic_long_set(&d->tstate.events, 0);
	atomic_long_set(&d->tstate.suppressed, 0);
	atomic_long_set(&d->tstate.suppressed_total, 0);
	/*
	 * The rate limit starts again too: no probe posts (no set, a grace
	 * period passed) and the work reads neither; a request found stuck
	 * again by the restarted scan is the new set's first event.
	 */
	d->tstate.last_ns = 0;
	d->tstate.stuck_last_ns = 0;
	d->tstate.epoch = epoch;
	d->tstate.scan_ns = 0;
	if (t) {
		t->epoch = epoch;
		/* the zeroed counts before a hit of the new set */
		rcu_assign_pointer(d->trig, t);
	}
	if (t && t->stuck_ns)
		mod_delayed_work(IOTRACE_WQ, &iotrace_trig_scan, 0);
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
	cancel_delayed_work_sync(&iotrace_hold_work);
}
