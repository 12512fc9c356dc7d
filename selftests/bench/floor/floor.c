// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace_floor - the floor under iotrace's per-request cost, for the
 * bench only (selftests/bench/bench.sh, configurations floor0..floor3).
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
 *      issue to its completion.
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
#include <trace/events/block.h>

/* block_rq_complete's error, as module/compat.h has it */
#ifdef FLOOR_RQ_COMPLETE_ERRNO
#define floor_error_t	int
#else
#define floor_error_t	blk_status_t
#endif

static unsigned int level;
module_param(level, uint, 0444);
MODULE_PARM_DESC(level, "0 empty probes, 1 + preemption guard, 2 + two clock reads, 3 + a 128-byte store, 4 + a clock read at block_io_start, 5 + per-request slots");

#define FLOOR_LEVELS	6
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
	r->w[9] = 0;
	r->w[10] = 0;
	r->w[11] = 0;
	r->w[12] = 0;
	r->w[13] = 0;
	r->w[14] = 0;
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

/* A tracepoint and its probe at each level; NULL where the kernel has none. */
struct floor_tp {
	const char		*name;
	void			*probe[FLOOR_LEVELS];
	struct tracepoint	*tp;
};

#define FLOOR_RQ_PROBES { floor_rq_empty, floor_rq_guard, floor_rq_guard, \
			  floor_rq_guard, floor_rq_guard, floor_rq_guard }

static struct floor_tp floor_tps[] = {
	{ "block_io_start",	{ floor_rq_empty, floor_rq_guard,
				  floor_rq_guard, floor_rq_guard,
				  floor_start_clock, floor_slot_start } },
	{ "block_rq_merge",	FLOOR_RQ_PROBES },
	{ "block_rq_issue",	{ floor_rq_empty, floor_rq_guard,
				  floor_issue_clock, floor_issue_clock,
				  floor_issue_clock, floor_slot_issue } },
	{ "block_rq_requeue",	FLOOR_RQ_PROBES },
	{ "block_rq_complete",	{ floor_complete_empty, floor_complete_guard,
				  floor_complete_clock,
				  floor_complete_record,
				  floor_complete_record,
				  floor_slot_complete } },
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
			goto free_slots;
		}
	}
	return 0;
free_slots:
	vfree(floor_slots);
free_cpu:
	free_percpu(floor_cpu);
	return ret;
}

static void __exit floor_exit(void)
{
	floor_detach(ARRAY_SIZE(floor_tps));
	vfree(floor_slots);
	free_percpu(floor_cpu);
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_DESCRIPTION("iotrace bench: the cost of the block tracepoint probes alone");
MODULE_LICENSE("GPL");
