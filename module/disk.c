// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace - disks: discovery through a class_interface on the block class,
 * attach/detach, and the one code path for enable, disable and clear.
 *
 * block_class is not exported.  Its address is learnt from a gendisk that
 * iotrace allocates and never adds (alloc_disk sets the class and the
 * device type of every disk), then a class_interface on it reports every
 * device of the class, at registration and later; the device type tells a
 * whole disk from a partition.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <linux/hash.h>
#include <linux/irq_work.h>
#include <linux/workqueue.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/device.h>
#include <linux/rcupdate.h>
#include <linux/timekeeping.h>
#include "iotrace.h"
#include "compat.h"

/* Serializes enable state, the disk list and probe registration. */
DEFINE_MUTEX(iotrace_mutex);
LIST_HEAD(iotrace_disks);

struct hlist_head iotrace_disk_hash[1 << IOTRACE_HASH_BITS];
static const struct device_type *iotrace_disk_type;
/* Until the disks= selection was checked, nothing is enabled. */
static bool iotrace_loading = true;
/*
 * Disks get their files at attach (iotrace_mutex): set by
 * iotrace_disks_publish() once the load cannot fail.
 */
static bool iotrace_files_on;

static void iotrace_disk_release(struct kref *kref)
{
	struct iotrace_disk *d = container_of(kref, struct iotrace_disk, kref);

	iotrace_nl_release(d);
	/* no probe holds @d: detach waited for an RCU grace period */
	iotrace_metrics_free(d->metrics);
	iotrace_ring_free(d);
	kfree(d->rb);
	/* NULL: the detach disabled the disk */
	iotrace_slots_put(d->slot_table);
	iotrace_preg_forget(d);
	kfree(d);
}

void iotrace_disk_put(struct iotrace_disk *d)
{
	kref_put(&d->kref, iotrace_disk_release);
}

/**
 * struct iotrace_slots_geo - the shape of an in-flight table: the fields
 *	of the same names in struct iotrace_disk.
 * @nr_hwq: hardware queues its tag slots cover.
 * @depth: tags per hardware queue.
 * @nr_flush: flush slots, one per hardware queue.
 * @hwq_stride: tag slots between two hardware queues' first ones.
 * @tags_shared: one table of @depth for every queue.
 */
struct iotrace_slots_geo {
	u32	nr_hwq;
	u32	depth;
	u32	nr_flush;
	u32	hwq_stride;
	bool	tags_shared;
};

/* Slots of a table of geometry @g (tag slots, then flush slots). */
static u64 iotrace_slots_geo_nr(const struct iotrace_slots_geo *g)
{
	return (u64)g->nr_hwq * g->depth + g->nr_flush;
}

/* The geometry of @d's table (or of the one its next enable makes). */
static void iotrace_slots_geo_cur(const struct iotrace_disk *d,
				  struct iotrace_slots_geo *g)
{
	g->nr_hwq = d->nr_hwq;
	g->depth = d->depth;
	g->nr_flush = d->nr_flush;
	g->hwq_stride = d->hwq_stride;
	g->tags_shared = d->tags_shared;
}

/*
 * The in-flight table's geometry for @d now: the tag set as it is (a
 * disk's queue count and depths may change while it is disabled, and
 * while it is enabled, see iotrace_slots_regrow()).  A tag set whose
 * driver and scheduler tags are shared by its hardware queues (a
 * host-wide tag space) has one table of its depth, not one per queue.
 * The IOTRACE_MIN_TAGS floor covers a scheduler switched on later (its
 * nr_requests is twice the depth, up to 256).  A controller's and a
 * multipath head's are @d's own (set at the attach).
 */
static void iotrace_slots_geometry(const struct iotrace_disk *d,
				   struct iotrace_slots_geo *g)
{
	struct request_queue *q;
	struct blk_mq_tag_set *set;
	u32 nr_hwq, depth;

	iotrace_slots_geo_cur(d, g);
	if (!d->gd || d->mpath_head)
		return;
	q = d->gd->queue;
	set = q->tag_set;
	nr_hwq = max(q->nr_hw_queues, set->nr_hw_queues);
	depth = max_t(u32, set->queue_depth, IOTRACE_MIN_TAGS);
	depth = max_t(u32, depth, q->nr_requests);
	g->tags_shared = iotrace_tags_shared(q);
	g->nr_flush = nr_hwq;
	g->nr_hwq = g->tags_shared ? 1 : nr_hwq;
	g->depth = depth;
	g->hwq_stride = g->tags_shared ? 0 : depth;
}

/**
 * iotrace_slots_get() - the in-flight table of @d, for a walk without
 *	iotrace_mutex.
 * @d: the disk, referenced.
 *
 * Context: process.
 * Return: the table with a reference the caller drops with
 * iotrace_slots_put(), or NULL while @d keeps none (disabled).
 */
struct iotrace_slot_table *iotrace_slots_get(struct iotrace_disk *d)
{
	struct iotrace_slot_table *t;

	spin_lock(&d->slots_lock);
	t = d->slot_table;
	if (t)
		refcount_inc(&t->users);
	spin_unlock(&d->slots_lock);
	return t;
}

/**
 * iotrace_slots_put() - drop a reference on an in-flight table.
 * @t: the table, or NULL.
 *
 * The last reference frees it: the disk's own at a disable when nobody
 * walks it, else the last walk's.
 *
 * Context: process.
 */
void iotrace_slots_put(struct iotrace_slot_table *t)
{
	if (!t || !refcount_dec_and_test(&t->users))
		return;
	kvfree(t->slots);
	kfree(t);
}

/*
 * A new, empty in-flight table of geometry @g for @d, and with persist=
 * its copy in the region (*@pslots, NULL without); refused past
 * IOTRACE_MAX_SLOTS_BYTES (never kvmalloc's warning for a huge tag set).
 * Context: iotrace_mutex held.
 */
static int iotrace_slots_make(struct iotrace_disk *d,
			      const struct iotrace_slots_geo *g,
			      struct iotrace_slot_table **tp, void **pslots)
{
	struct iotrace_slot_table *t;
	struct iotrace_slot *slots;
	u64 n, bytes;

	lockdep_assert_held(&iotrace_mutex);
	n = iotrace_slots_geo_nr(g);
	bytes = n * sizeof(*slots);
	if (bytes > IOTRACE_MAX_SLOTS_BYTES) {
		pr_warn("iotrace: %s: in-flight table of %llu slots (%llu bytes) over the %lu-byte limit: %s\n",
			d->name, n, bytes, IOTRACE_MAX_SLOTS_BYTES,
			d->enabled ? "not regrown" : "not enabled");
		return -E2BIG;
	}
	t = kzalloc(struct_size(t, flush_keys, g->nr_flush), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	/*
	 * Not kvmalloc(): it maps a table of 2 MiB or more with huge pages,
	 * rounding it up to the next 2 MiB (392 KiB more for 3 x 10,240 tags).
	 */
	if (bytes <= IOTRACE_SLOTS_KMALLOC_MAX)
		slots = kzalloc(bytes, GFP_KERNEL | __GFP_NOWARN);
	else
		slots = __vmalloc(bytes, GFP_KERNEL | __GFP_ZERO |
				  __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
	if (!slots)
		goto err_table;
	/*
	 * persist=: a copy of the table in the region, written at issue and
	 * cleared at completion, for the next boot (no kernel address in
	 * it).  A table whose copy finds no room is not made.
	 */
	*pslots = NULL;
	if (static_branch_unlikely(&iotrace_preg_key)) {
		*pslots = iotrace_preg_alloc(d, n * IOTRACE_PREG_SLOT_SIZE, n);
		if (!*pslots)
			goto err_slots;
	}
	refcount_set(&t->users, 1);
	t->nr = n;
	t->slots = slots;
	*tp = t;
	return 0;

err_slots:
	kvfree(slots);
	kfree(t);
	return -ENOSPC;
err_table:
	kfree(t);
	return -ENOMEM;
}

/*
 * Make @t (geometry @g, persistent copy @pslots) the in-flight table of
 * @d, and return the one it replaces (NULL at an enable).
 * Context: iotrace_mutex held, no probe uses the slots of @d.
 */
static struct iotrace_slot_table *
iotrace_slots_install(struct iotrace_disk *d, const struct iotrace_slots_geo *g,
		      struct iotrace_slot_table *t, void *pslots)
{
	struct iotrace_slot_table *old;

	lockdep_assert_held(&iotrace_mutex);
	d->nr_hwq = g->nr_hwq;
	d->depth = g->depth;
	d->nr_flush = g->nr_flush;
	d->flush_keys = t->flush_keys;
	d->hwq_stride = g->hwq_stride;
	d->tags_shared = g->tags_shared;
	d->pslots = pslots;
	d->nr_pslots = pslots ? t->nr : 0;
	spin_lock(&d->slots_lock);
	old = d->slot_table;
	d->slot_table = t;
	d->slots = t->slots;
	spin_unlock(&d->slots_lock);
	return old;
}

/*
 * A new, empty in-flight table for @d, sized now.
 * Context: iotrace_mutex held, @d disabled.
 */
static int iotrace_slots_alloc(struct iotrace_disk *d)
{
	struct iotrace_slots_geo g;
	struct iotrace_slot_table *t;
	void *pslots;
	int ret;

	lockdep_assert_held(&iotrace_mutex);
	if (d->mpath_head)
		return 0;	/* its paths' tables hold its requests */
	iotrace_slots_geometry(d, &g);
	ret = iotrace_slots_make(d, &g, &t, &pslots);
	if (ret)
		return ret;
	/* a request the new table misses asks for a regrowth again */
	clear_bit(IOTRACE_SLOTS_REKEY, &d->slots_flags);
	clear_bit(IOTRACE_SLOTS_OUTGROWN, &d->slots_flags);
	WRITE_ONCE(d->slots_regrown, false);
	iotrace_slots_install(d, &g, t, pslots);
	return 0;
}

/*
 * Drop the in-flight table of @d; a walk in progress keeps it until it is
 * done, and the disable does not wait for it.
 * Context: iotrace_mutex held, no probe can use the slots any more.
 */
static void iotrace_slots_free(struct iotrace_disk *d)
{
	struct iotrace_slot_table *t;

	lockdep_assert_held(&iotrace_mutex);
	spin_lock(&d->slots_lock);
	t = d->slot_table;
	d->slot_table = NULL;
	d->slots = NULL;
	d->flush_keys = NULL;
	spin_unlock(&d->slots_lock);
	iotrace_slots_put(t);
	iotrace_preg_free(d->pslots);
	d->pslots = NULL;
	d->nr_pslots = 0;
}

/*
 * Whether geometry @g has a slot for every request of geometry @now.
 */
static bool iotrace_slots_geo_covers(const struct iotrace_slots_geo *g,
				     const struct iotrace_slots_geo *now)
{
	return g->tags_shared == now->tags_shared &&
	       g->nr_hwq >= now->nr_hwq && g->depth >= now->depth &&
	       g->nr_flush >= now->nr_flush;
}

/**
 * iotrace_slots_regrow() - give the enabled disk @d an in-flight table
 *	for its tag set as it is now.
 * @d: the disk.
 *
 * A probe met a request above the table (iotrace_slots_outgrown()):
 * nr_requests was raised past the table's tags, or hardware queues were
 * added, since the enable.  The new table is made first; then the probes
 * stop using the slots for one RCU grace period, recording every
 * completion meanwhile without its issue (IOTRACE_ST_RECORD without
 * IOTRACE_ST_SLOTS), and the new table takes the old one's place.  A
 * request in flight across the change completes without its issue
 * fields (IOTRACE_RF_NO_ISSUE), as one in flight at an enable does, and
 * without what the old table held for it (its command, device status,
 * requeue count; with persist= its copy in the region); every
 * completion is recorded and counted once.  The table never shrinks
 * while the disk stays enabled.  A table that cannot be made is logged,
 * and the disk keeps the one it has, asking for no other until its next
 * enable.
 *
 * Context: iotrace_mutex held.
 */
static void iotrace_slots_regrow(struct iotrace_disk *d)
{
	struct iotrace_slots_geo g, now;
	struct iotrace_slot_table *t, *old;
	void *pslots, *old_pslots;
	unsigned int state;
	int ret;

	lockdep_assert_held(&iotrace_mutex);
	if (!d->enabled || !d->slots || d->mpath_head)
		return;
	iotrace_slots_geo_cur(d, &g);
	iotrace_slots_geometry(d, &now);
	/* a flush request without a flush slot: new keys, same geometry */
	if (iotrace_slots_geo_covers(&g, &now) &&
	    !test_and_clear_bit(IOTRACE_SLOTS_REKEY, &d->slots_flags)) {
		/* lowered again since: a later raise asks again */
		clear_bit(IOTRACE_SLOTS_OUTGROWN, &d->slots_flags);
		return;
	}
	/* never smaller than the table it replaces */
	if (g.tags_shared == now.tags_shared) {
		g.nr_hwq = max(g.nr_hwq, now.nr_hwq);
		g.depth = max(g.depth, now.depth);
		g.nr_flush = max(g.nr_flush, now.nr_flush);
		g.hwq_stride = g.tags_shared ? 0 : g.depth;
	} else {
		g = now;
	}
	ret = iotrace_slots_make(d, &g, &t, &pslots);
	if (ret) {
		pr_warn("iotrace: %s: in-flight table not regrown for %u queues of %u tags (%d): requests above it are recorded without their issue until the disk is enabled again\n",
			d->name, g.nr_flush, g.depth, ret);
		return;
	}
	state = d->state;
	iotrace_disk_set_state(d, state & IOTRACE_ST_RECORD);
	old_pslots = d->pslots;
	old = iotrace_slots_install(d, &g, t, pslots);
	/* the old copy no longer says what is in flight */
	iotrace_preg_free(old_pslots);
	WRITE_ONCE(d->slots_regrown, true);
	/* the new table and geometry seen with the state */
	iotrace_disk_set_state(d, state);
	iotrace_slots_put(old);
	clear_bit(IOTRACE_SLOTS_REKEY, &d->slots_flags);
	clear_bit(IOTRACE_SLOTS_OUTGROWN, &d->slots_flags);
	pr_info("iotrace: %s: in-flight table regrown to %u queues of %u tags\n",
		d->name, g.nr_flush, g.depth);
}

/*
 * Regrowths asked by the probes: probe -> irq_work -> work, which takes
 * iotrace_mutex and regrows each disk that asked.
 */
static void iotrace_slots_regrow_workfn(struct work_struct *work)
{
	struct iotrace_disk *d;

	mutex_lock(&iotrace_mutex);
	list_for_each_entry(d, &iotrace_disks, node)
		if (test_bit(IOTRACE_SLOTS_OUTGROWN, &d->slots_flags))
			iotrace_slots_regrow(d);
	mutex_unlock(&iotrace_mutex);
}

static DECLARE_WORK(iotrace_slots_regrow_work, iotrace_slots_regrow_workfn);

static void iotrace_slots_regrow_irq(struct irq_work *w)
{
	queue_work(IOTRACE_WQ, &iotrace_slots_regrow_work);
}

static struct irq_work iotrace_slots_regrow_irq_work;

/**
 * iotrace_slots_outgrown() - a request of the enabled disk @d has no slot
 *	in its in-flight table.
 * @d: the disk.
 *
 * Its tag or hardware queue is above the table (nr_requests was raised,
 * or queues added, since the enable): the table is regrown from a work
 * item (iotrace_slots_regrow()).  Only the first call until then does
 * more than a test_bit().
 *
 * Context: a probe, preemption disabled.
 */
void iotrace_slots_outgrown(struct iotrace_disk *d)
{
	if (test_bit(IOTRACE_SLOTS_OUTGROWN, &d->slots_flags) ||
	    test_and_set_bit(IOTRACE_SLOTS_OUTGROWN, &d->slots_flags))
		return;
	irq_work_queue(&iotrace_slots_regrow_irq_work);
}

/**
 * iotrace_disk_ring_alloc() - give @d its ring if it has none yet.
 * @d: the disk.
 *
 * The ring is made at @d->buf_size with the header facts kept since the
 * attach, then published to the file readers (under @d->ring_lock) and,
 * through the state's store-release, to the probes.
 *
 * Context: iotrace_mutex held.
 * Return: 0 or a negative errno.
 */
int iotrace_disk_ring_alloc(struct iotrace_disk *d)
{
	struct iotrace_ringbuf *rb;
	int ret;

	lockdep_assert_held(&iotrace_mutex);
	if (d->ring)
		return 0;
	rb = kzalloc(sizeof(*rb), GFP_KERNEL);
	if (!rb)
		return -ENOMEM;
	ret = iotrace_ring_alloc(d, d->buf_size);
	if (ret) {
		kfree(rb);
		d->ring_size = 0;
		d->nr_cpus = 0;
		d->nr_chunks = 0;
		d->chunk_records = 0;
		return ret;
	}
	d->hdr->logical_block_size = d->lbs;
	d->hdr->dev_major = d->dev_major;
	d->hdr->dev_minor = d->dev_minor;
	d->hdr->flags |= d->hdr_flags;
	if (!d->attached)
		d->hdr->flags |= IOTRACE_RING_DETACHED;
	iotrace_ring_hdr_publish(d);
	rb->mem = d->ring;
	spin_lock(&d->ring_lock);
	d->rb = rb;
	spin_unlock(&d->ring_lock);
	return 0;
}

/*
 * What @d's recording needs, made at its (first) enable: the ring and the
 * metrics once, the in-flight table at every enable.  The table first,
 * the one thing an enable that fails gives back: a ring made for an
 * enable then refused for want of room for the table (in the persistent
 * region, or under IOTRACE_MAX_SLOTS_BYTES) would hold its memory for a
 * disk that records nothing.
 * Context: iotrace_mutex held, @d disabled.
 */
static int iotrace_disk_provision(struct iotrace_disk *d)
{
	struct iotrace_metrics *m;
	int ret;

	ret = iotrace_slots_alloc(d);
	if (ret)
		return ret;
	ret = iotrace_disk_ring_alloc(d);
	if (ret)
		goto err_slots;
	/* metrics=N: none (every user of d->metrics checks for NULL) */
	if (iotrace_metrics_on && !d->metrics) {
		m = iotrace_metrics_alloc();
		if (!m) {
			ret = -ENOMEM;
			goto err_slots;
		}
		/* initialized before a reader sees it */
		smp_store_release(&d->metrics, m);
	}
	return 0;

err_slots:
	iotrace_slots_free(d);
	return ret;
}

/**
 * iotrace_disk_mem() - what the recording of @d costs now.
 * @d: the disk.
 * @m: out, bytes of its ring, in-flight table and metrics.
 *
 * Context: iotrace_mutex held.
 */
void iotrace_disk_mem(struct iotrace_disk *d, struct iotrace_disk_mem *m)
{
	lockdep_assert_held(&iotrace_mutex);
	m->ring = d->ring ? d->ring_size : 0;
	m->slots = d->slots ? (u64)iotrace_nr_slots(d) * sizeof(*d->slots) : 0;
	m->metrics = d->metrics ? sizeof(*d->metrics) +
		(u64)sizeof(struct iotrace_mcpu) * num_possible_cpus() : 0;
}

/**
 * iotrace_disk_set_state() - tell the probes what to do for a disk.
 * @d: the disk.
 * @state: IOTRACE_ST_* bits: 0 (disabled), IOTRACE_ST_SLOTS (the slots are
 *	kept, completions counted in @d->held while the ring is reset or
 *	replaced), IOTRACE_ST_RECORD (recording without the slots, while
 *	the in-flight table is regrown, iotrace_slots_regrow()) or
 *	IOTRACE_ST_SLOTS | IOTRACE_ST_RECORD (recording).
 *
 * One store-release of one word: a probe's load-acquire of it sees
 * everything written before (slots wiped, the new ring), and either the
 * old state or the new one, never a mix (as two flags could be seen on a
 * weakly ordered CPU).  Probes that may still act on the old state are
 * waited for with synchronize_rcu() when the state no longer writes the
 * ring or no longer keeps the slots.
 *
 * Context: iotrace_mutex held.
 */
void iotrace_disk_set_state(struct iotrace_disk *d, unsigned int state)
{
	unsigned int old = d->state;

	lockdep_assert_held(&iotrace_mutex);
	/* pairs with the probes' smp_load_acquire() of the state */
	smp_store_release(&d->state, state);
	if (old & ~state)
		synchronize_rcu();
}

static int iotrace_disk_set_enabled_locked(struct iotrace_disk *d, bool on);

/* The head of the multipath path @d, or NULL.  Context: iotrace_mutex held. */
static struct iotrace_disk *iotrace_mpath_head_of(struct iotrace_disk *d)
{
	return rcu_dereference_protected(d->head,
					 lockdep_is_held(&iotrace_mutex));
}

/* Take the in-flight tables of the paths of the enabled head @h into @w. */
static int iotrace_mpath_tables_get(struct iotrace_disk *h,
				    struct iotrace_slot_tables *w)
{
	struct iotrace_disk *p;
	u32 n = 0;
	int ret = 0;

	mutex_lock(&iotrace_mutex);
	if (!(h->state & IOTRACE_ST_SLOTS))
		goto out;
	list_for_each_entry(p, &iotrace_disks, node)
		n += iotrace_mpath_head_of(p) == h;
	if (n > 1) {
		w->v = kmalloc_array(n, sizeof(*w->v), GFP_KERNEL);
		if (!w->v) {
			w->v = &w->one;
			ret = -ENOMEM;
			goto out;
		}
	}
	list_for_each_entry(p, &iotrace_disks, node) {
		struct iotrace_slot_table *t;

		if (iotrace_mpath_head_of(p) != h)
			continue;
		t = iotrace_slots_get(p);
		if (!t)
			continue;	/* a disabled path feeds no record */
		w->v[w->nr].t = t;
		w->v[w->nr].path = p->path_id;
		w->nr++;
	}
out:
	mutex_unlock(&iotrace_mutex);
	return ret;
}

/**
 * iotrace_slot_tables_get() - the in-flight tables holding the requests
 *	of a disk, for a walk without iotrace_mutex.
 * @d: the disk, referenced.
 * @w: set to the tables, each with a reference (iotrace_slot_tables_put()).
 *
 * A disk's own table (iotrace_slots_get()), or for an enabled NVMe
 * multipath head, which has none, the tables of its enabled paths: their
 * requests are the head's, each table with the path id the head's
 * records carry.  iotrace_mutex is taken only for a head, to find its
 * paths, and not held during the walk.
 *
 * Context: process, iotrace_mutex not held.
 * Return: 0 (@w->nr may be 0: nothing in flight), or -ENOMEM.
 */
int iotrace_slot_tables_get(struct iotrace_disk *d,
			    struct iotrace_slot_tables *w)
{
	w->v = &w->one;
	w->nr = 0;
	if (d->mpath_head)
		return iotrace_mpath_tables_get(d, w);
	w->one.t = iotrace_slots_get(d);
	w->one.path = 0;
	w->nr = w->one.t ? 1 : 0;
	return 0;
}

/**
 * iotrace_slot_tables_put() - drop the tables iotrace_slot_tables_get() took.
 * @w: the tables.
 */
void iotrace_slot_tables_put(struct iotrace_slot_tables *w)
{
	u32 i;

	for (i = 0; i < w->nr; i++)
		iotrace_slots_put(w->v[i].t);
	if (w->v != &w->one)
		kfree(w->v);
	w->v = &w->one;
	w->nr = 0;
}

/*
 * The multipath head @h was enabled: so are its paths, whose completions
 * make its records (a path that cannot be is logged and left out).
 * Context: iotrace_mutex held.
 */
static void iotrace_mpath_enable_paths(struct iotrace_disk *h)
{
	struct iotrace_disk *p;
	int ret;

	list_for_each_entry(p, &iotrace_disks, node) {
		if (iotrace_mpath_head_of(p) != h || p->enabled)
			continue;
		ret = iotrace_disk_set_enabled_locked(p, true);
		if (ret)
			pr_warn("iotrace: %s: path of %s not enabled: %d\n",
				p->name, h->name, ret);
	}
}

static int iotrace_disk_set_enabled_locked(struct iotrace_disk *d, bool on)
{
	int ret;

	lockdep_assert_held(&iotrace_mutex);
	if (!d->attached)
		return -ENODEV;
	if (on == d->enabled)
		return 0;
	if (on) {
		ret = iotrace_disk_provision(d);
		if (ret)
			return ret;
		ret = iotrace_probes_get();
		if (ret) {
			iotrace_slots_free(d);
			return ret;
		}
		/* the next overwrite is announced again */
		WRITE_ONCE(d->nl_flags, 0);
		d->hdr->enabled_ns = ktime_get_ns();
		WRITE_ONCE(d->hdr->flags, d->hdr->flags | IOTRACE_RING_ENABLED);
		d->enabled = true;
		/* slots and header written before probes may use the disk */
		iotrace_disk_set_state(d, IOTRACE_ST_SLOTS | IOTRACE_ST_RECORD);
		if (d->mpath_head)
			iotrace_mpath_enable_paths(d);
	} else {
		iotrace_disk_set_state(d, 0);
		/* no probe can set a hold any more */
		iotrace_hold_release(d, 0, 0);
		d->enabled = false;
		WRITE_ONCE(d->hdr->flags,
			   d->hdr->flags & ~IOTRACE_RING_ENABLED);
		/* the state's grace period is over: no probe uses them */
		iotrace_slots_free(d);
		iotrace_probes_put();
	}
	return 0;
}

/**
 * iotrace_disk_set_enabled() - turn recording of a disk on or off.
 * @d: the disk.
 * @on: the new state.
 *
 * The probes are attached while at least one disk is enabled.  The ring
 * and the metrics are made at the first enable and kept; the slot table
 * is made (empty, sized by the tag set as it is then) at every enable,
 * regrown while enabled if the tag set grows (iotrace_slots_regrow()),
 * and freed at every disable, so a request issued while disabled is
 * recorded with IOTRACE_RF_NO_ISSUE, never with another one's issue.
 *
 * Return: 0, -ENODEV for a detached disk, -ENOMEM, -E2BIG for a slot table
 * over IOTRACE_MAX_SLOTS_BYTES, or the probe registration errno.
 */
int iotrace_disk_set_enabled(struct iotrace_disk *d, bool on)
{
	int ret;

	mutex_lock(&iotrace_mutex);
	ret = iotrace_disk_set_enabled_locked(d, on);
	mutex_unlock(&iotrace_mutex);
	return ret;
}

/**
 * iotrace_disk_clear() - empty the ring of a disk.
 * @d: the disk.
 *
 * The ring stops being written for one RCU grace period, is reset and its
 * generation bumped.  The probes keep the in-flight table all along:
 * requests issued before the clear are recorded with their issue when
 * they complete, and a completion while the ring is reset frees its slot
 * and is counted as dropped after the clear (netlink totals).
 *
 * Return: 0 or -ENODEV for a detached disk.
 */
int iotrace_disk_clear(struct iotrace_disk *d)
{
	unsigned int state;
	u64 held;

	mutex_lock(&iotrace_mutex);
	if (!d->attached) {
		mutex_unlock(&iotrace_mutex);
		return -ENODEV;
	}
	if (!d->ring) {
		/* never enabled: nothing recorded, nothing to clear */
		mutex_unlock(&iotrace_mutex);
		return 0;
	}
	state = d->state;
	/* before the stop: what the probes hold from now on is the new period's */
	held = iotrace_nl_held(d);
	iotrace_disk_set_state(d, state & IOTRACE_ST_SLOTS);
	iotrace_hold_release(d, 0, 0);
	iotrace_ring_reset(d);
	iotrace_nl_reset(d, held);
	/* the reset ring visible before probes write again */
	iotrace_disk_set_state(d, state);
	mutex_unlock(&iotrace_mutex);
	return 0;
}

/**
 * iotrace_disk_alloc() - a new disk or controller, not published.
 * @name: name of the disk or controller.
 * @nr_hwq: hardware queues the in-flight table covers (a controller's;
 *	a disk's is taken from its tag set at each enable).
 * @depth: tags per hardware queue it covers (likewise).
 *
 * Only the structure: the ring, the metrics and the in-flight table are
 * made when the disk is first enabled (iotrace_disk_set_enabled()), so a
 * disk nobody traces costs this and its files.
 *
 * Return: the new disk (one reference) or an ERR_PTR().
 */
struct iotrace_disk *iotrace_disk_alloc(const char *name, u32 nr_hwq,
					u32 depth)
{
	struct iotrace_disk *d;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return ERR_PTR(-ENOMEM);
	kref_init(&d->kref);
	INIT_LIST_HEAD(&d->retired);
	spin_lock_init(&d->ring_lock);
	spin_lock_init(&d->slots_lock);
	strscpy(d->name, name, sizeof(d->name));
	d->held = alloc_percpu(u64);
	if (!d->held) {
		kfree(d);
		return ERR_PTR(-ENOMEM);
	}
	d->buf_size = iotrace_buf_size;
	d->nr_hwq = nr_hwq;
	d->nr_flush = nr_hwq;
	d->depth = depth;
	d->hwq_stride = depth;
	return d;
}

/*
 * NVMe native multipath: the namespace's disk users know is the head,
 * nvme<X>n<Y>, a bio-based disk that sends each bio down one of its paths,
 * the hidden request-based disks nvme<X>c<N>n<Y> of its controllers
 * (subsystem X, controller N, namespace Y: the names nvme-core gives,
 * the same on every kernel).  Each path keeps its ring; the head gets a
 * ring of its own, which the completions of its paths also write, each
 * record stamped with its path's controller.  Head and path find each
 * other by name, not through the driver's private structures.
 */

/* @name is "nvme<X>c<N>n<Y>" (a path): true and X, N, Y. */
static bool iotrace_mpath_path_name(const char *name, u32 *subsys, u32 *ctrl,
				    u32 *ns)
{
	int n = 0;

	return sscanf(name, "nvme%uc%un%u%n", subsys, ctrl, ns, &n) == 3 &&
		n > 0 && !name[n];
}

/* @name is "nvme<X>n<Y>" (a head): true and X, Y. */
static bool iotrace_mpath_head_name(const char *name, u32 *subsys, u32 *ns)
{
	int n = 0;

	return sscanf(name, "nvme%un%u%n", subsys, ns, &n) == 2 && n > 0 &&
		!name[n];
}

/*
 * Link the new multipath head or path @d with the paths or the head
 * already attached.  Context: iotrace_mutex held.
 */
static void iotrace_mpath_link(struct iotrace_disk *d)
{
	struct iotrace_disk *o;

	lockdep_assert_held(&iotrace_mutex);
	if (!d->mpath_head && !d->path_id)
		return;
	list_for_each_entry(o, &iotrace_disks, node) {
		if (o == d || !o->attached || o->mp_subsys != d->mp_subsys ||
		    o->mp_ns != d->mp_ns)
			continue;
		if (d->mpath_head && o->path_id)
			rcu_assign_pointer(o->head, d);
		else if (d->path_id && o->mpath_head)
			rcu_assign_pointer(d->head, o);
	}
}

/*
 * The multipath head @h is being detached: its paths stop writing its
 * ring (the caller waits for an RCU grace period).
 * Context: iotrace_mutex held.
 */
static void iotrace_mpath_unlink(struct iotrace_disk *h)
{
	struct iotrace_disk *p;

	list_for_each_entry(p, &iotrace_disks, node)
		if (iotrace_mpath_head_of(p) == h)
			RCU_INIT_POINTER(p->head, NULL);
}

/*
 * Give @d its debugfs directory and its device.  Without the directory,
 * @need_dir: none of them; else the device all the same (said).
 * Context: iotrace_mutex held.
 * Return: 0 or the errno of the debugfs directory, with @need_dir.
 */
static int iotrace_disk_add_files(struct iotrace_disk *d, bool need_dir)
{
	int ret;

	lockdep_assert_held(&iotrace_mutex);
	ret = iotrace_debugfs_add_disk(d);
	if (ret && need_dir)
		return ret;
	if (ret)
		pr_warn("iotrace: %s: no debugfs directory: %d\n", d->name,
			ret);
	ret = iotrace_chardev_add(d);
	if (ret)
		pr_warn("iotrace: %s: no /dev/iotrace device: %d\n", d->name,
			ret);
	return 0;
}

/**
 * iotrace_disk_publish() - make a new ring visible: debugfs, its device, the list,
 *	the probes' lookup list @head; enable it if selected; announce it.
 * @d: from iotrace_disk_alloc(), its key (@gd or controller keys) set.
 * @head: hash bucket (disks) or controller list, RCU.
 *
 * While the module loads, the files are left to iotrace_disks_publish().
 * On failure @d is freed.
 *
 * Return: 0 or the errno of the debugfs directory.
 */
int iotrace_disk_publish(struct iotrace_disk *d, struct hlist_head *head)
{
	int ret;

	mutex_lock(&iotrace_mutex);
	if (iotrace_files_on) {
		ret = iotrace_disk_add_files(d, true);
		if (ret) {
			mutex_unlock(&iotrace_mutex);
			iotrace_disk_put(d);
			return ret;
		}
	}
	d->attached = true;
	list_add_tail(&d->node, &iotrace_disks);
	iotrace_nl_list_changed();
	hlist_add_head_rcu(&d->hnode, head);
	iotrace_mpath_link(d);
	if (!iotrace_loading && (iotrace_disk_selected(d->name) ||
				 (iotrace_mpath_head_of(d) &&
				  iotrace_mpath_head_of(d)->enabled))) {
		ret = iotrace_disk_set_enabled_locked(d, true);
		if (ret)
			pr_warn("iotrace: %s: not enabled: %d\n", d->name, ret);
	}
	mutex_unlock(&iotrace_mutex);
	iotrace_nl_disk_event(d, true);
	return 0;
}

static int iotrace_disk_attach(struct gendisk *gd, bool mpath_head)
{
	struct request_queue *q = gd->queue;
	struct iotrace_disk *d;
	u32 ctrl;

	/* the in-flight table is sized at each enable */
	d = iotrace_disk_alloc(gd->disk_name, 0, 0);
	if (IS_ERR(d))
		return PTR_ERR(d);
	d->gd = gd;
	d->lbs = queue_logical_block_size(q);
	d->dev_major = gd->major;
	d->dev_minor = gd->first_minor;
	/* a bio-based one (linear, crypt) has no request to trace */
	d->dm_rq = !strncmp(gd->disk_name, "dm-", 3);
	if (mpath_head) {
		d->mpath_head = true;
		d->hdr_flags = IOTRACE_RING_MPATH_HEAD;
		iotrace_mpath_head_name(gd->disk_name, &d->mp_subsys,
					&d->mp_ns);
	} else if ((gd->flags & GENHD_FL_HIDDEN) &&
		   iotrace_mpath_path_name(gd->disk_name, &d->mp_subsys, &ctrl,
					   &d->mp_ns) && ctrl < U32_MAX) {
		d->path_id = ctrl + 1;
	}
	return iotrace_disk_publish(d,
			&iotrace_disk_hash[hash_ptr(gd, IOTRACE_HASH_BITS)]);
}

/**
 * iotrace_disk_detach_locked() - take a ring out of the probes' reach.
 * @d: an attached ring.
 *
 * Context: iotrace_mutex held.  The caller then drops the mutex and calls
 *	iotrace_disk_detached().
 */
void iotrace_disk_detach_locked(struct iotrace_disk *d)
{
	lockdep_assert_held(&iotrace_mutex);
	iotrace_disk_set_enabled_locked(d, false);
	if (d->mpath_head)
		iotrace_mpath_unlink(d);
	hlist_del_rcu(&d->hnode);
	list_del(&d->node);
	iotrace_nl_list_changed();
	d->attached = false;
	/* No probe may still hold @d from the hash after this. */
	synchronize_rcu();
	RCU_INIT_POINTER(d->head, NULL);
	d->gd = NULL;
	d->ctrl_key = NULL;
	d->bus_key = NULL;
	d->bus_dev = NULL;
	if (d->hdr)
		WRITE_ONCE(d->hdr->flags,
			   d->hdr->flags | IOTRACE_RING_DETACHED);
}

/**
 * iotrace_disk_detached() - announce a detached ring, remove its device
 *	and debugfs files and drop the list's reference.
 * @d: a ring iotrace_disk_detach_locked() detached.
 *
 * Context: iotrace_mutex not held (file operations in progress take it).
 */
void iotrace_disk_detached(struct iotrace_disk *d)
{
	iotrace_nl_disk_event(d, false);
	iotrace_chardev_remove(d);
	iotrace_debugfs_remove_disk(d);
	iotrace_disk_put(d);
}

static void iotrace_disk_detach(struct gendisk *gd)
{
	struct iotrace_disk *d, *found = NULL;

	mutex_lock(&iotrace_mutex);
	list_for_each_entry(d, &iotrace_disks, node) {
		if (d->gd == gd) {
			found = d;
			break;
		}
	}
	if (found)
		iotrace_disk_detach_locked(found);
	mutex_unlock(&iotrace_mutex);
	if (found)
		iotrace_disk_detached(found);
}

static int iotrace_add_dev(IOTRACE_CLASS_INTF_ARGS(dev))
{
	struct gendisk *gd;
	bool head = false;
	u32 subsys, ns;
	int ret;

	if (dev->type != iotrace_disk_type)
		return 0;
	gd = dev_to_disk(dev);
	if (!gd->queue)
		return 0;
	if (!queue_is_mq(gd->queue) || !gd->queue->tag_set) {
		/* bio-based: only an NVMe multipath head has a ring */
		if (queue_is_mq(gd->queue) ||
		    !iotrace_mpath_head_name(gd->disk_name, &subsys, &ns))
			return 0;
		head = true;
	}
	ret = iotrace_disk_attach(gd, head);
	if (ret)
		pr_warn("iotrace: %s: not traced: %d\n", gd->disk_name, ret);
	/* Never make the disk's own registration fail. */
	return 0;
}

static void iotrace_remove_dev(IOTRACE_CLASS_INTF_ARGS(dev))
{
	if (dev->type != iotrace_disk_type)
		return;
	iotrace_disk_detach(dev_to_disk(dev));
}

static struct class_interface iotrace_class_intf = {
	.add_dev	= iotrace_add_dev,
	.remove_dev	= iotrace_remove_dev,
};

/**
 * iotrace_disks_init() - attach every whole disk, now and later.
 *
 * Nothing is enabled until iotrace_disks_check_selection() succeeds.
 *
 * Return: 0 or a negative errno.
 */
int iotrace_disks_init(void)
{
	struct gendisk *probe;
	int ret;

	init_irq_work(&iotrace_slots_regrow_irq_work, iotrace_slots_regrow_irq);
	probe = iotrace_alloc_probe_disk();
	if (!probe)
		return -ENOMEM;
	iotrace_class_intf.class = disk_to_dev(probe)->class;
	iotrace_disk_type = disk_to_dev(probe)->type;
	put_disk(probe);
	if (!iotrace_class_intf.class || !iotrace_disk_type)
		return -ENODEV;
	ret = class_interface_register(&iotrace_class_intf);
	if (ret) {
		pr_err("iotrace: cannot watch block devices: %d\n", ret);
		return ret;
	}
	ret = iotrace_ctrls_init();
	if (ret)
		class_interface_unregister(&iotrace_class_intf);
	return ret;
}

/**
 * iotrace_disks_check_selection() - check disks= against the disks found
 *	and enable the selected ones.
 *
 * A disk named in disks= that cannot be enabled fails the load: it was
 * asked for.  With disks=all one that cannot be for want of memory (its
 * ring or in-flight table finds none, ENOMEM; a table over the limit,
 * E2BIG; no room in the persistent region, ENOSPC) is said and left
 * disabled, the others traced, as a disk attached later is: a host short
 * of memory for some of its disks keeps the rest, and its control to
 * resize and enable them.  Any other error fails the load.
 *
 * Return: 0, -ENODEV (logged) when a disk named in disks= is absent, or
 * the errno of one that cannot be enabled (logged).
 */
int iotrace_disks_check_selection(void)
{
	unsigned int failed = 0, enabled = 0;
	struct iotrace_disk *d;
	int ret = 0;

	mutex_lock(&iotrace_mutex);
	ret = iotrace_disks_check_names();
	if (ret)
		goto out;
	iotrace_loading = false;
	list_for_each_entry(d, &iotrace_disks, node) {
		if (!iotrace_disk_selected(d->name))
			continue;
		ret = iotrace_disk_set_enabled_locked(d, true);
		if (!ret) {
			enabled++;
			continue;
		}
		/*
		 * persist=: a disk the region has no room for is left
		 * disabled (said by iotrace_preg_alloc()), the others traced
		 */
		if (ret == -ENOSPC && static_branch_unlikely(&iotrace_preg_key)) {
			ret = 0;
			continue;
		}
		/* what a lack of memory gives; anything else fails the load */
		if (!iotrace_disks_select_all() ||
		    (ret != -ENOMEM && ret != -E2BIG && ret != -ENOSPC)) {
			pr_err("iotrace: %s: cannot enable: %d\n", d->name, ret);
			break;
		}
		pr_warn("iotrace: %s: not enabled: %d\n", d->name, ret);
		failed++;
		ret = 0;
	}
	if (failed)
		pr_warn("iotrace: disks=all: %u disk(s) not enabled, %u enabled: give them a smaller ring (resize) or free memory, then enable them\n",
			failed, enabled);
out:
	mutex_unlock(&iotrace_mutex);
	return ret;
}

/**
 * iotrace_disks_publish() - the load cannot fail any more: give every disk
 *	and controller attached so far its files, and each later one its own
 *	at attach.
 *
 * A file opened during a load that then failed would hold the module's
 * code past its unloading: the load creates no file before this.  A disk
 * whose debugfs directory cannot be made stays traced, through its device
 * and netlink.
 */
void iotrace_disks_publish(void)
{
	struct iotrace_disk *d;

	mutex_lock(&iotrace_mutex);
	iotrace_files_on = true;
	list_for_each_entry(d, &iotrace_disks, node)
		iotrace_disk_add_files(d, false);
	mutex_unlock(&iotrace_mutex);
}

/* Detach everything; the rings live on while files still hold them. */
void iotrace_disks_exit(void)
{
	iotrace_ctrls_exit();
	class_interface_unregister(&iotrace_class_intf);
	/* every disk detached, no probe attached: no regrowth is asked */
	irq_work_sync(&iotrace_slots_regrow_irq_work);
	cancel_work_sync(&iotrace_slots_regrow_work);
}
