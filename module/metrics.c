// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace - in-kernel metrics: per disk and operation, request and byte
 * counts, errors, and device and queue latency histograms, kept at every
 * final completion of an enabled disk whatever happens to its ring.
 *
 * The hot path (iotrace_metrics_complete(), inline in the completion
 * probe: iotrace.h has it and the per-CPU layout) touches only the
 * completing CPU's storage with this_cpu operations: single instructions
 * that an interrupt on the same CPU cannot split, no LOCK prefix.  Histogram
 * buckets are u16 per CPU (half the memory of u32, Documentation/abi.rst
 * gives the figures); a bucket that reaches IOTRACE_MFOLD is folded into
 * the disk's shared u64 totals under @fold_lock, inside the write side of
 * @fold_seq, so that a reader summing shared totals and per-CPU buckets
 * retries instead of seeing a request twice or not at all.  Everything
 * else is a per-CPU u64 that only grows.
 *
 * A reset does not write the per-CPU storage (it would race with the
 * probes): it takes a snapshot as the new base, and readers subtract it.
 * Errors are rare: a small table of kinds under a spinlock.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/seqlock.h>
#include <linux/seq_file.h>
#include <linux/timekeeping.h>
#include <linux/bitops.h>
#include <linux/moduleparam.h>
#include <linux/jump_label.h>
#include "iotrace.h"

/*
 * metrics=N keeps none: no disk gets metrics (d->metrics NULL), the
 * completion probe skips their counters and histograms (issue 22's
 * per-feature line), GET_METRICS and RESET_METRICS fail with ENODATA and
 * no disk has a metrics file.  Triggers still work.
 */
bool iotrace_metrics_on = true;
module_param_named(metrics, iotrace_metrics_on, bool, 0444);
MODULE_PARM_DESC(metrics,
		 "keep the in-kernel metrics of every enabled disk (default Y; N: none kept, fewer instructions per request, buf_size 0 refused)");

DEFINE_STATIC_KEY_TRUE(iotrace_metrics_key);

/**
 * iotrace_metrics_init() - set iotrace_metrics_key from the metrics
 *	parameter, before any disk or probe exists.
 */
void iotrace_metrics_init(void)
{
	if (!iotrace_metrics_on)
		static_branch_disable(&iotrace_metrics_key);
}

/* Lower bound of bucket @b in ns. */
static u64 iotrace_hist_lo(unsigned int b)
{
	unsigned int o;

	if (!b)
		return 0;
	if (b >= IOTRACE_HIST_BUCKETS - 1)
		return BIT_ULL(IOTRACE_HIST_MAX_SHIFT);
	o = IOTRACE_HIST_MIN_SHIFT + ((b - 1) >> IOTRACE_HIST_SUB_SHIFT);
	return BIT_ULL(o) + (u64)((b - 1) & ((1U << IOTRACE_HIST_SUB_SHIFT) - 1))
		* BIT_ULL(o - IOTRACE_HIST_SUB_SHIFT);
}

static const char * const iotrace_mop_names[IOTRACE_NR_MOPS] = {
	[IOTRACE_MOP_READ]	= "read",
	[IOTRACE_MOP_WRITE]	= "write",
	[IOTRACE_MOP_FLUSH]	= "flush",
	[IOTRACE_MOP_DISCARD]	= "discard",
	[IOTRACE_MOP_PASSTHRU]	= "passthrough",
};

/**
 * iotrace_metrics_alloc() - metrics for a new disk, all zero.
 *
 * Return: the metrics or NULL.
 */
struct iotrace_metrics *iotrace_metrics_alloc(void)
{
	struct iotrace_metrics *m;

	m = kvzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return NULL;
	m->pcpu = alloc_percpu(struct iotrace_mcpu);
	if (!m->pcpu)
		goto err_free;
	raw_spin_lock_init(&m->fold_lock);
	seqcount_init(&m->fold_seq);
	mutex_init(&m->lock);
	raw_spin_lock_init(&m->err_lock);
	m->reset_ns = ktime_get_real_ns();
	return m;

err_free:
	kvfree(m);
	return NULL;
}

/**
 * iotrace_metrics_free() - free metrics no probe can reach any more.
 * @m: the metrics, or NULL.
 */
void iotrace_metrics_free(struct iotrace_metrics *m)
{
	if (!m)
		return;
	free_percpu(m->pcpu);
	mutex_destroy(&m->lock);
	kvfree(m);
}

/*
 * Move this CPU's bucket @b of @mop/@h into the shared totals.  Interrupts
 * are off, so no completion on this CPU adds to the bucket meanwhile, and
 * no other CPU writes it.
 */
noinline void iotrace_metrics_fold(struct iotrace_metrics *m, u8 mop,
				   unsigned int h, unsigned int b)
{
	unsigned long flags;
	u16 *p;

	raw_spin_lock_irqsave(&m->fold_lock, flags);
	p = &this_cpu_ptr(m->pcpu)->hist[mop][h][b];
	write_seqcount_begin(&m->fold_seq);
	m->shared[mop][h][b] += READ_ONCE(*p);
	WRITE_ONCE(*p, 0);
	write_seqcount_end(&m->fold_seq);
	raw_spin_unlock_irqrestore(&m->fold_lock, flags);
}

/*
 * An error (@errno_val, device status @status of @status_kind) of an op
 * @mop: its op's count and its kind's in the table, together (rare, out of
 * line).
 */
noinline void iotrace_metrics_error(struct iotrace_metrics *m, u8 mop,
				    u32 errno_val, u8 status_kind, u16 status)
{
	unsigned long flags;
	unsigned int i;

	raw_spin_lock_irqsave(&m->err_lock, flags);
	m->op_errors[mop]++;
	for (i = 0; i < m->nr_err; i++) {
		struct iotrace_mkind *k = &m->err[i];

		if (k->mop == mop && k->status_kind == status_kind &&
		    k->status == status && k->errno_val == errno_val)
			break;
	}
	if (i < m->nr_err) {
		m->err[i].count++;
	} else if (i < IOTRACE_MERR_MAX) {
		m->err[i].mop = mop;
		m->err[i].status_kind = status_kind;
		m->err[i].status = status;
		m->err[i].errno_val = errno_val;
		m->err[i].count = 1;
		m->nr_err++;
	} else {
		m->err_over++;
	}
	raw_spin_unlock_irqrestore(&m->err_lock, flags);
}

/**
 * iotrace_metrics_requeue() - count a requeue.
 * @m: the metrics of the request's disk, or NULL (metrics=N).
 *
 * Context: the requeue probe, preemption disabled.
 */
void iotrace_metrics_requeue(struct iotrace_metrics *m)
{
	if (m)
		this_cpu_inc(m->pcpu->requeues);
}

/* The raw sums over CPUs and the shared totals, base not subtracted. */
static void iotrace_metrics_sum(struct iotrace_metrics *m,
				struct iotrace_msnap *s)
{
	unsigned int seq, i, h, b;
	int cpu;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < IOTRACE_NR_MOPS; i++)
		s->op[i].mop = i;
	for_each_possible_cpu(cpu) {
		const struct iotrace_mcpu *c = per_cpu_ptr(m->pcpu, cpu);

		for (i = 0; i < IOTRACE_NR_MOPS; i++) {
			const struct iotrace_mcpu_op *o = &c->op[i];
			struct iotrace_metrics_op *t = &s->op[i];

			t->requests += READ_ONCE(o->requests);
			t->bytes += READ_ONCE(o->bytes);
			t->dev_sum_ns += READ_ONCE(o->dev_sum_ns);
			t->queue_sum_ns += READ_ONCE(o->queue_sum_ns);
		}
		s->timeouts += READ_ONCE(c->timeouts);
		s->requeues += READ_ONCE(c->requeues);
	}
	/*
	 * A fold meanwhile: read again rather than count a bucket twice.
	 * Marked reads: KCSAN takes only the first 1,000 accesses after
	 * read_seqcount_begin() as the seqcount's, fewer than this copy makes.
	 */
	do {
		seq = read_seqcount_begin(&m->fold_seq);
		for (i = 0; i < IOTRACE_NR_MOPS; i++) {
			for (b = 0; b < IOTRACE_HIST_BUCKETS; b++) {
				s->op[i].dev_hist[b] =
					READ_ONCE(m->shared[i][IOTRACE_MH_DEV][b]);
				s->op[i].queue_hist[b] =
					READ_ONCE(m->shared[i][IOTRACE_MH_QUEUE][b]);
			}
		}
		for_each_possible_cpu(cpu) {
			const struct iotrace_mcpu *c = per_cpu_ptr(m->pcpu, cpu);

			for (i = 0; i < IOTRACE_NR_MOPS; i++) {
				for (h = 0; h < IOTRACE_NR_MH; h++) {
					u64 *t = h == IOTRACE_MH_DEV ?
						s->op[i].dev_hist :
						s->op[i].queue_hist;

					for (b = 0; b < IOTRACE_HIST_BUCKETS;
					     b++)
						t[b] += READ_ONCE(c->hist[i][h][b]);
				}
			}
		}
	} while (read_seqcount_retry(&m->fold_seq, seq));
	/* a latency was counted where its histogram's bucket was */
	for (i = 0; i < IOTRACE_NR_MOPS; i++) {
		for (b = 0; b < IOTRACE_HIST_BUCKETS; b++) {
			s->op[i].dev_count += s->op[i].dev_hist[b];
			s->op[i].queue_count += s->op[i].queue_hist[b];
		}
	}
}

/**
 * iotrace_metrics_read() - the metrics since the last reset.
 * @m: the metrics; NULL for a disk that has none yet (never enabled).
 * @out: filled; its @errors entries are the error kinds.
 *
 * Counters only grow between resets: a reader never sees one go down.
 * A disk without metrics yet reads as reset now, with nothing counted.
 */
void iotrace_metrics_read(struct iotrace_metrics *m,
			  struct iotrace_mread *out)
{
	struct iotrace_msnap *s = &out->snap;
	unsigned int i, b;
	unsigned long flags;

	if (!m) {
		memset(s, 0, sizeof(*s));
		for (i = 0; i < IOTRACE_NR_MOPS; i++)
			s->op[i].mop = i;
		out->reset_ns = ktime_get_real_ns();
		out->nr_errors = 0;
		return;
	}
	mutex_lock(&m->lock);
	iotrace_metrics_sum(m, s);
	for (i = 0; i < IOTRACE_NR_MOPS; i++) {
		struct iotrace_metrics_op *t = &s->op[i];
		const struct iotrace_metrics_op *z = &m->base.op[i];

		t->requests -= z->requests;
		t->bytes -= z->bytes;
		t->dev_sum_ns -= z->dev_sum_ns;
		t->dev_count -= z->dev_count;
		t->queue_sum_ns -= z->queue_sum_ns;
		t->queue_count -= z->queue_count;
		for (b = 0; b < IOTRACE_HIST_BUCKETS; b++) {
			t->dev_hist[b] -= z->dev_hist[b];
			t->queue_hist[b] -= z->queue_hist[b];
		}
	}
	s->timeouts -= m->base.timeouts;
	s->requeues -= m->base.requeues;
	out->reset_ns = m->reset_ns;
	mutex_unlock(&m->lock);

	out->nr_errors = 0;
	raw_spin_lock_irqsave(&m->err_lock, flags);
	for (i = 0; i < IOTRACE_NR_MOPS; i++)
		s->op[i].errors = m->op_errors[i];
	for (i = 0; i < m->nr_err; i++) {
		struct iotrace_metrics_error *e = &out->errors[out->nr_errors++];

		e->count = m->err[i].count;
		e->mop = m->err[i].mop;
		e->status_kind = m->err[i].status_kind;
		e->status = m->err[i].status;
		e->errno_val = m->err[i].errno_val;
	}
	if (m->err_over) {
		struct iotrace_metrics_error *e = &out->errors[out->nr_errors++];

		memset(e, 0, sizeof(*e));
		e->count = m->err_over;
		e->mop = IOTRACE_MOP_PASSTHRU;
		e->status_kind = IOTRACE_MSTATUS_OVERFLOW;
	}
	raw_spin_unlock_irqrestore(&m->err_lock, flags);
}

/**
 * iotrace_mread_alloc() - room for one reading of the metrics.
 *
 * Return: a kvfree()able struct iotrace_mread or NULL.
 */
struct iotrace_mread *iotrace_mread_alloc(void)
{
	return kvzalloc(sizeof(struct iotrace_mread) +
			(IOTRACE_MERR_MAX + 1) *
			sizeof(struct iotrace_metrics_error), GFP_KERNEL);
}

/**
 * iotrace_metrics_reset() - zero the metrics and note the time.
 * @m: the metrics.
 *
 * Completions racing with the reset count before or after it, once.
 */
void iotrace_metrics_reset(struct iotrace_metrics *m)
{
	unsigned long flags;

	mutex_lock(&m->lock);
	iotrace_metrics_sum(m, &m->base);
	m->reset_ns = ktime_get_real_ns();
	mutex_unlock(&m->lock);
	raw_spin_lock_irqsave(&m->err_lock, flags);
	memset(m->op_errors, 0, sizeof(m->op_errors));
	m->nr_err = 0;
	m->err_over = 0;
	memset(m->err, 0, sizeof(m->err));
	raw_spin_unlock_irqrestore(&m->err_lock, flags);
}

/* The upper bound of the bucket holding the @pct-th percentile, or 0. */
static u64 iotrace_hist_pct(const u64 *hist, u64 count, unsigned int pct)
{
	u64 rank, seen = 0;
	unsigned int b;

	if (!count)
		return 0;
	rank = div_u64(count * pct + 99, 100);
	for (b = 0; b < IOTRACE_HIST_BUCKETS; b++) {
		seen += hist[b];
		if (seen >= rank)
			break;
	}
	if (b >= IOTRACE_HIST_BUCKETS - 1)
		return iotrace_hist_lo(IOTRACE_HIST_BUCKETS - 1);
	return iotrace_hist_lo(b + 1);
}

static void iotrace_metrics_show_hist(struct seq_file *sf, const char *op,
				      const char *what, const u64 *hist,
				      u64 count, u64 sum)
{
	unsigned int b, max = 0;

	for (b = 0; b < IOTRACE_HIST_BUCKETS; b++)
		if (hist[b])
			max = b;
	seq_printf(sf, "%s %s count %llu sum_ns %llu p50_ns %llu p90_ns %llu p99_ns %llu max_ns %llu\n",
		   op, what, count, sum, iotrace_hist_pct(hist, count, 50),
		   iotrace_hist_pct(hist, count, 90),
		   iotrace_hist_pct(hist, count, 99),
		   !count ? 0 : max >= IOTRACE_HIST_BUCKETS - 1 ?
		   iotrace_hist_lo(max) : iotrace_hist_lo(max + 1));
}

static const char *iotrace_mstatus_name(u8 kind)
{
	switch (kind) {
	case IOTRACE_MSTATUS_NONE:	return "none";
	case IOTRACE_MSTATUS_NVME:	return "nvme";
	case IOTRACE_MSTATUS_SCSI:	return "scsi";
	case IOTRACE_MSTATUS_ATA:	return "ata";
	default:			return "overflow";
	}
}

/**
 * iotrace_metrics_show() - debugfs <disk>/metrics.
 * @sf: the seq_file.
 * @d: the disk, kept by the debugfs file.
 *
 * Per op the counters and latency percentiles (upper bounds of the
 * buckets holding them), the disk's timeouts, requeues and requests in
 * flight, the error kinds, then every nonzero bucket as
 * "hist OP dev|queue LO_NS HI_NS COUNT" (HI_NS 0: no upper bound).
 *
 * Return: 0 or -ENOMEM.
 */
int iotrace_metrics_show(struct seq_file *sf, struct iotrace_disk *d)
{
	struct iotrace_mread *r;
	unsigned int i, b, h;
	u64 now, oldest;
	u32 n;

	r = iotrace_mread_alloc();
	if (!r)
		return -ENOMEM;
	n = iotrace_inflight_oldest(d, &oldest);
	/* never enabled: no metrics yet, none counted until now */
	iotrace_metrics_read(iotrace_disk_metrics(d), r);
	now = ktime_get_ns();
	seq_printf(sf, "reset_realtime_ns: %llu\n", r->reset_ns);
	seq_printf(sf, "now_ns: %llu\n", now);
	seq_printf(sf, "timeouts: %llu\n", r->snap.timeouts);
	seq_printf(sf, "requeues: %llu\n", r->snap.requeues);
	seq_printf(sf, "inflight: %u\n", n);
	seq_printf(sf, "inflight_oldest_age_ns: %llu\n",
		   n && now > oldest ? now - oldest : 0);
	for (i = 0; i < IOTRACE_NR_MOPS; i++) {
		const struct iotrace_metrics_op *o = &r->snap.op[i];

		seq_printf(sf, "%s requests %llu bytes %llu errors %llu\n",
			   iotrace_mop_names[i], o->requests, o->bytes,
			   o->errors);
		iotrace_metrics_show_hist(sf, iotrace_mop_names[i], "dev",
					  o->dev_hist, o->dev_count,
					  o->dev_sum_ns);
		iotrace_metrics_show_hist(sf, iotrace_mop_names[i], "queue",
					  o->queue_hist, o->queue_count,
					  o->queue_sum_ns);
	}
	for (i = 0; i < r->nr_errors; i++) {
		const struct iotrace_metrics_error *x = &r->errors[i];

		seq_printf(sf, "error %s errno %u kind %s status 0x%04x count %llu\n",
			   iotrace_mop_names[x->mop], x->errno_val,
			   iotrace_mstatus_name(x->status_kind), x->status,
			   x->count);
	}
	for (i = 0; i < IOTRACE_NR_MOPS; i++) {
		for (h = 0; h < IOTRACE_NR_MH; h++) {
			const u64 *hist = h == IOTRACE_MH_DEV ?
				r->snap.op[i].dev_hist :
				r->snap.op[i].queue_hist;

			for (b = 0; b < IOTRACE_HIST_BUCKETS; b++) {
				if (!hist[b])
					continue;
				seq_printf(sf, "hist %s %s %llu %llu %llu\n",
					   iotrace_mop_names[i],
					   h == IOTRACE_MH_DEV ? "dev" : "queue",
					   iotrace_hist_lo(b),
					   b < IOTRACE_HIST_BUCKETS - 1 ?
					   iotrace_hist_lo(b + 1) : 0,
					   hist[b]);
			}
		}
	}
	kvfree(r);
	return 0;
}
