// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace_floor - the floor under iotrace's per-request cost, for the
 * bench only (selftests/bench/bench.sh, configurations floor0..floor6).
 *
 * Attaches probes to the block tracepoints iotrace attaches to (found and
 * registered as module/probe.c does), doing no more than @level says:
 *   0  nothing: the tracepoint dispatch itself (static key, the probe
 *      array, an indirect call per tracepoint and request);
 *   1  preempt_disable()/preempt_enable(), iotrace's guard, in each probe;
 *   2  and one ktime_get_ns() at issue and one at completion;
 *   3  and 128 bytes stored per request at completion into a per-CPU
 *      slot picked by a per-CPU counter: no lookup, no reservation;
 *   4  and one ktime_get_ns() at block_io_start: the allocation stamp
 *      iotrace's queue time starts from on 6.9+ (IOTRACE_QUEUE_STAMP),
 *      which makes it the floor of iotrace's design on those kernels;
 *   5  as 4, the stamps and the issue's sector, length and flags kept
 *      per request, in a slot found from the request's hardware queue
 *      and tag (no disk lookup, no bounds but masks), and the record
 *      filled from it: the least a tracer pays to carry a request's
 *      issue to its completion;
 *   6  the default features at their least, a spike of the design's bound
 *      (Documentation/benchmark.rst, "The floor"): as 4, and in each probe
 *      the disk (@disk) found in a hash by its gendisk and its state
 *      tested, the request's slot found from its hardware queue and tag
 *      with bounds; at block_io_start the submitter's pid (not its
 *      command name); at issue the queue time, the op and its flags
 *      translated, the cgroup id; at completion the owner tested, the
 *      metrics (four per-CPU counters, two histogram buckets) and the
 *      record written in a per-CPU ring marked busy, then published.
 *      None of iotrace's chunks, nesting counts, generations, requeue,
 *      flush or command handling.
 * Everything is attached at load and detached at unload.
 */
#include <linux/module.h>
#include <linux/tracepoint.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/timekeeping.h>
#include <linux/percpu.h>
#include <linux/vmalloc.h>
#include <linux/overflow.h>
#include <linux/hash.h>
#include <linux/blk-cgroup.h>
#include <linux/cgroup.h>
#include <linux/sched.h>
#include <trace/events/block.h>

/* block_rq_complete's error, as module/compat.h has it */
#ifdef FLOOR_RQ_COMPLETE_ERRNO
#define floor_error_t	int
#else
#define floor_error_t	blk_status_t
#endif

static unsigned int level;
module_param(level, uint, 0444);
MODULE_PARM_DESC(level, "0 empty probes, 1 + preemption guard, 2 + two clock reads, 3 + a 128-byte store, 4 + a clock read at block_io_start, 5 + per-request slots, 6 the default features at their least");

static char *disk = "nullb0";
module_param(disk, charp, 0444);
MODULE_PARM_DESC(disk, "level 6: the disk traced (default nullb0)");

#define FLOOR_LEVELS	7
#define FLOOR_SLOTS	64	/* records per CPU, a power of two */

/* A record's worth of bytes: two cache lines. */
struct floor_rec {
	u64	w[16];
} __aligned(64);

struct floor_cpu {
	u64		start_ns;
	u64		issue_ns;
	u64		complete_ns;
	unsigned long	n;
	struct floor_rec rec[FLOOR_SLOTS];
};

static struct floor_cpu __percpu *floor_cpu;

/* level 5: a slot per (hardware queue, tag), masks in place of bounds */
#define FLOOR_HWQS	16
#define FLOOR_TAGS	1024

struct floor_slot {
	u64	start_ns;
	u64	issue_ns;
	u64	sector;
	u64	flags;
	u32	bytes;
} __aligned(64);

static struct floor_slot *floor_slots;

static __always_inline struct floor_slot *floor_slot_of(struct request *rq)
{
	u32 hwq = rq->mq_hctx ? rq->mq_hctx->queue_num : 0;

	return &floor_slots[(hwq & (FLOOR_HWQS - 1)) * FLOOR_TAGS +
			    (rq->tag & (FLOOR_TAGS - 1))];
}

static void floor_slot_start(void *data, struct request *rq)
{
	preempt_disable();
	floor_slot_of(rq)->start_ns = ktime_get_ns();
	preempt_enable();
}

static void floor_slot_issue(void *data, struct request *rq)
{
	struct floor_slot *s;

	preempt_disable();
	s = floor_slot_of(rq);
	s->issue_ns = ktime_get_ns();
	s->sector = blk_rq_pos(rq);
	s->bytes = blk_rq_bytes(rq);
	s->flags = rq->cmd_flags;
	preempt_enable();
}

static void floor_rq_empty(void *data, struct request *rq)
{
}

static void floor_rq_guard(void *data, struct request *rq)
{
	preempt_disable();
	preempt_enable();
}

static void floor_start_clock(void *data, struct request *rq)
{
	preempt_disable();
	this_cpu_write(floor_cpu->start_ns, ktime_get_ns());
	preempt_enable();
}

static void floor_issue_clock(void *data, struct request *rq)
{
	preempt_disable();
	this_cpu_write(floor_cpu->issue_ns, ktime_get_ns());
	preempt_enable();
}

static void floor_complete_empty(void *data, struct request *rq,
				 floor_error_t error, unsigned int nr_bytes)
{
}

static void floor_complete_guard(void *data, struct request *rq,
				 floor_error_t error, unsigned int nr_bytes)
{
	preempt_disable();
	preempt_enable();
}

static void floor_complete_clock(void *data, struct request *rq,
				 floor_error_t error, unsigned int nr_bytes)
{
	preempt_disable();
	this_cpu_write(floor_cpu->complete_ns, ktime_get_ns());
	preempt_enable();
}

/* Words 9 to 14 of a record, which no level fills: stored zero. */
static __always_inline void floor_zero_tail(struct floor_rec *r)
{
	r->w[9] = 0;
	r->w[10] = 0;
	r->w[11] = 0;
	r->w[12] = 0;
	r->w[13] = 0;
	r->w[14] = 0;
}

/*
 * The 128 bytes of a record into the next slot of @c, this CPU's: the
 * completion time @now, the issue's @issue_ns, @sector, @bytes and
 * @flags, the allocation stamp @start_ns, @rq's error, tag and CPU, a
 * counter.
 */
static __always_inline void floor_store(struct floor_cpu *c,
					struct request *rq, u64 now,
					u64 issue_ns, u64 sector, u64 bytes,
					u64 flags, u64 error, u64 start_ns)
{
	struct floor_rec *r = &c->rec[c->n++ & (FLOOR_SLOTS - 1)];

	r->w[0] = now;
	r->w[1] = issue_ns;
	r->w[2] = sector;
	r->w[3] = bytes;
	r->w[4] = flags;
	r->w[5] = error;
	r->w[6] = rq->tag;
	r->w[7] = smp_processor_id();
	r->w[8] = start_ns;
	floor_zero_tail(r);
	r->w[15] = c->n;
}

static void floor_complete_record(void *data, struct request *rq,
				  floor_error_t error, unsigned int nr_bytes)
{
	struct floor_cpu *c;
	u64 now;

	preempt_disable();
	now = ktime_get_ns();
	c = this_cpu_ptr(floor_cpu);
	floor_store(c, rq, now, c->issue_ns, blk_rq_pos(rq), nr_bytes,
		    rq->cmd_flags, (__force u64)error, c->start_ns);
	preempt_enable();
}

static void floor_slot_complete(void *data, struct request *rq,
				floor_error_t error, unsigned int nr_bytes)
{
	struct floor_slot *s;
	u64 now;

	preempt_disable();
	now = ktime_get_ns();
	s = floor_slot_of(rq);
	floor_store(this_cpu_ptr(floor_cpu), rq, now, s->issue_ns, s->sector,
		    s->bytes, s->flags, (__force u64)error, s->start_ns);
	preempt_enable();
}

/*
 * Level 6.  The disk is found as iotrace finds it (a hash of its gendisk,
 * a state word); it is taken when its first request is seen (a miss,
 * out of the measured path).
 */
#define FLOOR_HASH_BITS	6
#define FLOOR_MOPS	5
#define FLOOR_HIST_MIN	10
#define FLOOR_HIST_MAX	37
#define FLOOR_HIST_SUB	2
#define FLOOR_BUCKETS	(((FLOOR_HIST_MAX - FLOOR_HIST_MIN) << FLOOR_HIST_SUB) + 2)

struct floor_slot6 {
	struct request	*rq;
	struct request	*sub_rq;
	u64		start_ns;
	u64		issue_ns;
	u64		sector;
	u64		cgroup;
	u32		bytes;
	u32		queue_ns;
	u32		pid;
	u16		opflags;
	u16		cpu;
	u16		tag;
	u16		hwq;
	u8		op;
	u8		mop;
} __aligned(64);

struct floor_mcpu {
	u64	op[FLOOR_MOPS][4];
	u16	hist[FLOOR_MOPS][2][FLOOR_BUCKETS];
};

struct floor_ring {
	local64_t	head;
	struct floor_rec rec[FLOOR_SLOTS];
};

struct floor_disk {
	struct gendisk		*gd;
	unsigned int		state;
	u32			nr_hwq;
	u32			depth;
	struct floor_slot6	*slots;
	struct floor_mcpu __percpu *m;
	struct floor_ring __percpu *ring;
};

static struct floor_disk *floor_hash[1 << FLOOR_HASH_BITS];
static struct floor_disk floor_d;
static atomic_t floor_taken;

static noinline void floor_take(struct gendisk *gd)
{
	struct blk_mq_tag_set *set = gd->queue->tag_set;

	if (strcmp(gd->disk_name, disk) || !set ||
	    set->nr_hw_queues > FLOOR_HWQS || set->queue_depth > FLOOR_TAGS ||
	    atomic_cmpxchg(&floor_taken, 0, 1))
		return;
	floor_d.nr_hwq = set->nr_hw_queues;
	floor_d.depth = set->queue_depth;
	floor_d.gd = gd;
	floor_d.state = 1;
	/* the disk whole before the probes can find it */
	smp_store_release(&floor_hash[hash_ptr(gd, FLOOR_HASH_BITS)],
			  &floor_d);
}

#ifdef FLOOR_HAVE_Q_DISK
#define floor_rq_gd(rq)	((rq)->q->disk)
#else
#define floor_rq_gd(rq)	((rq)->rq_disk)
#endif

static __always_inline struct floor_slot6 *floor_lookup6(struct request *rq)
{
	struct gendisk *gd = floor_rq_gd(rq);
	struct floor_disk *d;
	u32 hwq, tag;

	if (!gd)
		return NULL;
	/* pairs with the store-release in floor_take() */
	d = smp_load_acquire(&floor_hash[hash_ptr(gd, FLOOR_HASH_BITS)]);
	if (unlikely(!d || d->gd != gd)) {
		if (!d)
			floor_take(gd);
		return NULL;
	}
	if (!(READ_ONCE(d->state) & 1) || !rq->mq_hctx)
		return NULL;
	hwq = rq->mq_hctx->queue_num;
	tag = rq->tag;
	if (hwq >= d->nr_hwq || tag >= d->depth)
		return NULL;
	return &d->slots[hwq * d->depth + tag];
}

static void floor_start6(void *data, struct request *rq)
{
	struct floor_slot6 *s;

	preempt_disable();
	s = floor_lookup6(rq);
	if (s) {
		s->start_ns = ktime_get_ns();
		s->pid = in_task() && !(current->flags & PF_KTHREAD) ?
			current->pid : 0;
		WRITE_ONCE(s->sub_rq, rq);
	}
	preempt_enable();
}

static u8 floor_op6(const struct request *rq)
{
	switch (req_op(rq)) {
	case REQ_OP_READ:	return 0;
	case REQ_OP_WRITE:	return 1;
	case REQ_OP_FLUSH:	return 2;
	case REQ_OP_DISCARD:	return 3;
	default:		return 4;
	}
}

static __always_inline u16 floor_opflags6(const struct request *rq)
{
	typeof(rq->cmd_flags) f = rq->cmd_flags;
	u16 o = 0;

	o |= (f & REQ_SYNC) ? BIT(0) : 0;
	o |= (f & REQ_META) ? BIT(1) : 0;
	o |= (f & REQ_PRIO) ? BIT(2) : 0;
	o |= (f & REQ_NOMERGE) ? BIT(3) : 0;
	o |= (f & REQ_IDLE) ? BIT(4) : 0;
	o |= (f & REQ_FUA) ? BIT(5) : 0;
	o |= (f & REQ_PREFLUSH) ? BIT(6) : 0;
	o |= (f & REQ_RAHEAD) ? BIT(7) : 0;
	o |= (f & REQ_BACKGROUND) ? BIT(8) : 0;
	o |= (f & REQ_NOWAIT) ? BIT(9) : 0;
	o |= (f & REQ_NOUNMAP) ? BIT(11) : 0;
	return o;
}

static __always_inline u64 floor_cgroup6(struct bio *bio)
{
#ifdef FLOOR_HAVE_BIO_BLKCG_CSS
	struct cgroup_subsys_state *css = bio ? bio_blkcg_css(bio) : NULL;

	return css && css->cgroup ? cgroup_id(css->cgroup) : 0;
#else
	return 0;
#endif
}

static void floor_issue6(void *data, struct request *rq)
{
	struct floor_slot6 *s;
	u64 now, q = 0;

	preempt_disable();
	s = floor_lookup6(rq);
	if (!s)
		goto out;
	now = ktime_get_ns();
	if (READ_ONCE(s->sub_rq) == rq && s->start_ns <= now)
		q = min_t(u64, now - s->start_ns, U32_MAX);
	s->queue_ns = q;
	s->issue_ns = now;
	s->sector = blk_rq_pos(rq);
	s->bytes = blk_rq_bytes(rq);
	s->op = floor_op6(rq);
	s->mop = s->op;
	s->opflags = floor_opflags6(rq);
	s->cpu = smp_processor_id();
	s->tag = rq->tag;
	s->hwq = rq->mq_hctx->queue_num;
	s->cgroup = floor_cgroup6(rq->bio);
	WRITE_ONCE(s->rq, rq);
out:
	preempt_enable();
}

static __always_inline unsigned int floor_bucket6(u64 ns)
{
	unsigned int o;

	if (ns < BIT_ULL(FLOOR_HIST_MIN))
		return 0;
	o = __fls(ns);
	if (o >= FLOOR_HIST_MAX)
		return FLOOR_BUCKETS - 1;
	return 1 + ((o - FLOOR_HIST_MIN) << FLOOR_HIST_SUB) +
		((ns >> (o - FLOOR_HIST_SUB)) & ((1U << FLOOR_HIST_SUB) - 1));
}

static void floor_complete6(void *data, struct request *rq,
			    floor_error_t error, unsigned int nr_bytes)
{
	struct floor_slot6 *s;
	struct floor_ring *ring;
	struct floor_rec *r;
	u64 now, dev, idx;
	u16 __percpu *h;
	u8 mop;

	if (nr_bytes < blk_rq_bytes(rq))
		return;
	preempt_disable();
	s = floor_lookup6(rq);
	if (!s || READ_ONCE(s->rq) != rq)
		goto out;
	now = ktime_get_ns();
	dev = now - s->issue_ns;
	mop = s->mop;
	this_cpu_inc(floor_d.m->op[mop][0]);
	this_cpu_add(floor_d.m->op[mop][1], s->bytes);
	this_cpu_add(floor_d.m->op[mop][2], dev);
	this_cpu_add(floor_d.m->op[mop][3], s->queue_ns);
	h = &floor_d.m->hist[mop][0][0];
	this_cpu_inc(h[floor_bucket6(dev)]);
	this_cpu_inc(h[FLOOR_BUCKETS + floor_bucket6(s->queue_ns)]);
	ring = this_cpu_ptr(floor_d.ring);
	idx = local64_inc_return(&ring->head) - 1;
	r = &ring->rec[idx & (FLOOR_SLOTS - 1)];
	WRITE_ONCE(r->w[0], ~idx);
	/* busy before the body changes */
	smp_wmb();
	r->w[1] = s->issue_ns;
	r->w[2] = now;
	r->w[3] = s->sector;
	r->w[4] = (u64)s->bytes << 32 | s->queue_ns;
	r->w[5] = (u64)s->opflags << 48 | (u64)s->cpu << 32 |
		(u64)s->tag << 16 | s->hwq;
	r->w[6] = (u64)s->op << 56 | (u64)(__force u32)error << 16;
	r->w[7] = READ_ONCE(s->sub_rq) == rq ? s->pid : 0;
	r->w[8] = s->cgroup;
	floor_zero_tail(r);
	r->w[15] = 0;
	WRITE_ONCE(s->rq, NULL);
	/* publish: the body before the sequence number */
	smp_store_release(&r->w[0], idx);
out:
	preempt_enable();
}

/* A tracepoint and its probe at each level; NULL where the kernel has none. */
struct floor_tp {
	const char		*name;
	void			*probe[FLOOR_LEVELS];
	struct tracepoint	*tp;
};

#define FLOOR_RQ_PROBES { floor_rq_empty, floor_rq_guard, floor_rq_guard, \
			  floor_rq_guard, floor_rq_guard, floor_rq_guard, \
			  floor_rq_guard }

static struct floor_tp floor_tps[] = {
	{ "block_io_start",	{ floor_rq_empty, floor_rq_guard,
				  floor_rq_guard, floor_rq_guard,
				  floor_start_clock, floor_slot_start,
				  floor_start6 } },
	{ "block_rq_merge",	FLOOR_RQ_PROBES },
	{ "block_rq_issue",	{ floor_rq_empty, floor_rq_guard,
				  floor_issue_clock, floor_issue_clock,
				  floor_issue_clock, floor_slot_issue,
				  floor_issue6 } },
	{ "block_rq_requeue",	FLOOR_RQ_PROBES },
	{ "block_rq_complete",	{ floor_complete_empty, floor_complete_guard,
				  floor_complete_clock,
				  floor_complete_record,
				  floor_complete_record,
				  floor_slot_complete, floor_complete6 } },
};

static void floor_find_tp(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(floor_tps); i++)
		if (!strcmp(tp->name, floor_tps[i].name))
			floor_tps[i].tp = tp;
}

static void floor_detach(int n)
{
	while (--n >= 0)
		if (floor_tps[n].tp)
			tracepoint_probe_unregister(floor_tps[n].tp,
						    floor_tps[n].probe[level],
						    NULL);
	tracepoint_synchronize_unregister();
}

static int __init floor_init(void)
{
	int i, ret;

	check_trace_callback_type_block_rq_issue(floor_rq_empty);
	check_trace_callback_type_block_rq_complete(floor_complete_empty);
	if (level >= FLOOR_LEVELS)
		return -EINVAL;
	floor_cpu = alloc_percpu(struct floor_cpu);
	if (!floor_cpu)
		return -ENOMEM;
	floor_slots = vzalloc(array_size(FLOOR_HWQS * FLOOR_TAGS,
					 sizeof(*floor_slots)));
	if (!floor_slots) {
		ret = -ENOMEM;
		goto free_cpu;
	}
	floor_d.slots = vzalloc(array_size(FLOOR_HWQS * FLOOR_TAGS,
					   sizeof(*floor_d.slots)));
	floor_d.m = alloc_percpu(struct floor_mcpu);
	floor_d.ring = alloc_percpu(struct floor_ring);
	if (!floor_d.slots || !floor_d.m || !floor_d.ring) {
		ret = -ENOMEM;
		goto free_d;
	}
	for_each_kernel_tracepoint(floor_find_tp, NULL);
	/* iotrace attaches block_rq_merge only beside block_io_start */
	if (!floor_tps[0].tp)
		floor_tps[1].tp = NULL;
	for (i = 0; i < ARRAY_SIZE(floor_tps); i++) {
		if (!floor_tps[i].tp)
			continue;
		ret = tracepoint_probe_register(floor_tps[i].tp,
						floor_tps[i].probe[level], NULL);
		if (ret) {
			pr_err("iotrace_floor: cannot attach to %s: %d\n",
			       floor_tps[i].name, ret);
			floor_detach(i);
			goto free_d;
		}
	}
	return 0;
free_d:
	free_percpu(floor_d.ring);
	free_percpu(floor_d.m);
	vfree(floor_d.slots);
	vfree(floor_slots);
free_cpu:
	free_percpu(floor_cpu);
	return ret;
}

static void __exit floor_exit(void)
{
	floor_detach(ARRAY_SIZE(floor_tps));
	free_percpu(floor_d.ring);
	free_percpu(floor_d.m);
	vfree(floor_d.slots);
	vfree(floor_slots);
	free_percpu(floor_cpu);
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_DESCRIPTION("iotrace bench: the cost of the block tracepoint probes alone");
MODULE_LICENSE("GPL");
