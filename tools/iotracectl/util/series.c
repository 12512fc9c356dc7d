// SPDX-License-Identifier: GPL-2.0
/*
 * Time series of a recording: per interval, per disk and per operation,
 * the requests completed in it (count, IOPS, MB/s, latency average, p50,
 * p99, maximum) and the average number of requests in flight (queue
 * depth).  stats FILE --interval prints them, plot draws them.
 */
#include <stdlib.h>
#include <string.h>
#include "series.h"
#include "out.h"

/*
 * Latencies of one disk and operation in the interval that completes
 * now: the first SERIES_EXACT_MAX held, then a log-linear histogram
 * (struct iot_hist) that gives the same percentiles (iot_pct_sorted()).
 */
#ifndef SERIES_EXACT_MAX
#define SERIES_EXACT_MAX	65536u
#endif

struct ser_lat {
	uint64_t *v;
	size_t n, cap;
	struct iot_hist h;
};

/*
 * One interval of a disk, allocated when a request first adds to it (an
 * interval without one has nothing but, perhaps, requests in flight
 * through the whole of it: struct iot_series's @run).
 * @op: per operation, its summaries; @inflight_ns the time in flight of
 *	the requests that begin or end in the interval, until it is final.
 * @span: per operation, the requests in flight through the whole of
 *	the intervals from this one on, less those through the whole of
 *	the previous one (a difference: +1 in the interval after a
 *	request's first, -1 in its last).
 * @depth: the time in flight (all operations) of the requests that
 *	begin or end in the interval, ns; once the interval is final, its
 *	average queue depth.
 * @next: the next summaries to use again (struct iot_series_set's
 *	@free).
 */
struct ser_blk {
	struct iot_series_op op[IOT_NR_OPS];
	int64_t span[IOT_NR_OPS];
	double depth;
	struct ser_blk *next;
};

/* the records iot_sweep_run() puts in completion order at a time */
#define SWEEP_WINDOW	16384

/*
 * Put the value of 0-based rank @k of @v[0..@n) at @v[@k], the smaller
 * ones before it and the larger after (quickselect with a three-way
 * partition, so that runs of equal latencies take one pass): linear on
 * average, where sorting the interval's latencies was not.
 */
static void select_rank(uint64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n;	/* the rank is in [lo, hi) */

	while (hi - lo > 1) {
		uint64_t a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi - 1];
		uint64_t pv = a < b ? (b < c ? b : a < c ? c : a) :
				      (a < c ? a : b < c ? c : b);
		size_t lt = lo, i = lo, gt = hi;

		/* [lo, lt) < pv, [lt, i) == pv, [gt, hi) > pv */
		while (i < gt) {
			uint64_t x = v[i];

			if (x < pv) {
				v[i++] = v[lt];
				v[lt++] = x;
			} else if (x > pv) {
				v[i] = v[--gt];
				v[gt] = x;
			} else {
				i++;
			}
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return;
	}
}

/*
 * p50 and p99 of @n (> 0) latencies as iot_pct_sorted() gives them of
 * the sorted values (the nearest rank, reported as the histogram
 * does), by selection; @v is reordered.
 */
static void pct_select(uint64_t *v, size_t n, uint64_t *p50, uint64_t *p99)
{
	uint64_t min = UINT64_MAX, max = 0, r50, r99;
	size_t i;

	for (i = 0; i < n; i++) {
		if (v[i] < min)
			min = v[i];
		if (v[i] > max)
			max = v[i];
	}
	r50 = iot_pct_rank(n, 50);
	r99 = iot_pct_rank(n, 99);
	select_rank(v, n, r99 - 1);
	/* the smaller ranks are all before it now */
	select_rank(v, r99 - 1, r50 - 1);
	*p99 = r99 == 1 ? min : r99 == n ? max :
	       iot_hist_value(v[r99 - 1], min, max);
	*p50 = r50 == 1 ? min : r50 == n ? max :
	       iot_hist_value(v[r50 - 1], min, max);
}

/**
 * iot_series_init() - set up the time series of the disks of a source.
 * @ss: the set (iot_series_free() it, also on error).
 * @src: the source (its disks).
 * @disk: the disk kept, -1: all.
 * @anchor: start of the first interval (CLOCK_MONOTONIC ns).
 * @lo: start of the window (>= @anchor).
 * @hi: end of the window: the last interval holds it.
 * @width: interval, ns (> 0).
 * @maxlat: the longest latency of the requests to come (iot_sweep).
 * @keep: the intervals kept, the first @keep of the window's (stats
 *	--count); 0: all of them.
 * @emit: NULL: keep every interval; else called with each interval once
 *	no request to come can change it (then its slot is used again).
 * @arg: its argument.
 *
 * A request belongs to the interval it completed in; its time in flight
 * (issue to completion) adds to the queue depth of every interval it
 * overlaps, in proportion: in constant time, whatever it spans (the
 * parts of its first and last interval, and a difference that the
 * intervals between sum as they are made final).  Memory: a slot (8
 * bytes) per interval held (those kept, or those @maxlat spans) per
 * disk; about 1.8 KB per interval held in which a request completes or
 * its time in flight begins or ends (until it is final; out of memory,
 * @ss->nomem, its part is left out); and the latencies of one
 * interval (SERIES_EXACT_MAX per disk and operation, then a histogram
 * of 450 KB; as many again for the total latencies, when the caller
 * sets @ss->totals after this).
 *
 * Return: 0, -1 (out of memory) or -2 (more than IOT_SERIES_MAX
 * intervals kept).
 */
int iot_series_init(struct iot_series_set *ss, const struct iot_src *src,
		    int disk, uint64_t anchor, uint64_t lo, uint64_t hi,
		    uint64_t width, uint64_t maxlat, uint64_t keep,
		    void (*emit)(void *arg, uint64_t k), void *arg)
{
	uint64_t nb, cap;
	unsigned int d;

	memset(ss, 0, sizeof(*ss));
	for (d = 0; d < IOT_MAX_DISKS; d++)
		ss->slot[d] = -1;
	nb = (hi > anchor ? (hi - anchor) / width : 0) + 1;
	/* a window ending on an interval's boundary ends with that interval */
	if (nb > 1 && hi > anchor && !((hi - anchor) % width))
		nb--;
	if (!keep || keep > nb)
		keep = nb;
	if (keep > IOT_SERIES_MAX)
		return -2;
	cap = emit ? maxlat / width + 2 : keep;
	if (cap > keep)
		cap = keep;
	ss->anchor = anchor;
	ss->width = width;
	ss->nb = nb;
	ss->keep = keep;
	ss->maxlat = maxlat;
	ss->emit = emit;
	ss->arg = arg;
	ss->s = calloc(src->nr_disks ? src->nr_disks : 1, sizeof(*ss->s));
	ss->nlat = (src->nr_disks ? src->nr_disks : 1) * IOT_NR_OPS;
	ss->lat = calloc(2 * ss->nlat, sizeof(*ss->lat));
	ss->dirty = calloc(2 * ss->nlat, sizeof(*ss->dirty));
	if (!ss->s || !ss->lat || !ss->dirty)
		return -1;
	for (d = 0; d < src->nr_disks; d++) {
		struct iot_series *s = &ss->s[ss->nd];

		if (disk >= 0 && (int)d != disk)
			continue;
		ss->slot[d] = (int)ss->nd++;
		s->disk = d;
		s->t0 = anchor;
		s->lo = lo;
		s->hi = hi;
		s->width = width;
		s->nb = nb;
		s->cap = cap;
		s->blk = calloc(cap, sizeof(*s->blk));
		if (!s->blk)
			return -1;
	}
	return 0;
}

/* the percentiles of interval @ss->cur from the latencies held */
static void lat_close(struct iot_series_set *ss)
{
	size_t i;

	for (i = 0; i < ss->ndirty; i++) {
		struct ser_lat *l = &ss->lat[ss->dirty[i]];
		uint32_t idx = ss->dirty[i] % ss->nlat;
		const struct iot_series *s = &ss->s[idx / IOT_NR_OPS];
		struct iot_series_op *b;
		uint64_t p50, p99;

		/* a latency held: the interval's summaries are there */
		b = &s->blk[ss->cur % s->cap]->op[idx % IOT_NR_OPS];
		if (l->h.b) {
			p50 = iot_hist_percentile(&l->h, 50);
			p99 = iot_hist_percentile(&l->h, 99);
			iot_hist_free(&l->h);
		} else {
			pct_select(l->v, l->n, &p50, &p99);
		}
		if (ss->dirty[i] < ss->nlat) {
			b->p50 = p50;
			b->p99 = p99;
		} else {
			b->tp50 = p50;
			b->tp99 = p99;
		}
		l->n = 0;
	}
	ss->ndirty = 0;
}

/*
 * a latency of interval @ss->cur, disk slot @sl, operation @op: a device
 * latency (@tot 0) or a total one (1)
 */
static void lat_push(struct iot_series_set *ss, int sl, int op, int tot,
		     uint64_t v)
{
	uint32_t idx = (uint32_t)(tot * ss->nlat) + (uint32_t)sl * IOT_NR_OPS +
		       (uint32_t)op;
	struct ser_lat *l = &ss->lat[idx];
	size_t i;

	if (!l->n && !l->h.b)
		ss->dirty[ss->ndirty++] = idx;
	if (l->h.b) {
		iot_hist_add(&l->h, v);
		return;
	}
	if (l->n == SERIES_EXACT_MAX) {
		/* as many again would not be bounded: to the histogram */
		if (iot_hist_init(&l->h)) {
			ss->nomem = 1;
			return;
		}
		for (i = 0; i < l->n; i++)
			iot_hist_add(&l->h, l->v[i]);
		l->n = 0;
		iot_hist_add(&l->h, v);
		return;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		uint64_t *nv = realloc(l->v, cap * sizeof(*nv));

		if (!nv) {
			ss->nomem = 1;
			return;
		}
		l->v = nv;
		l->cap = cap;
	}
	l->v[l->n++] = v;
}

/* interval @k's summaries (NULL: none, nothing in it yet) */
static struct ser_blk *blk_of(const struct iot_series *s, uint64_t k)
{
	return s->blk[k % s->cap];
}

/* interval @k's summaries, made if it has none (NULL: out of memory) */
static struct ser_blk *blk_get(struct iot_series_set *ss,
			       struct iot_series *s, uint64_t k)
{
	struct ser_blk **p = &s->blk[k % s->cap], *b = *p;

	if (b)
		return b;
	b = ss->free;
	if (b)
		ss->free = b->next;
	else
		b = malloc(sizeof(*b));
	if (!b) {
		ss->nomem = 1;
		return NULL;
	}
	memset(b, 0, sizeof(*b));
	*p = b;
	return b;
}

/* interval @k was handed to @emit: its summaries, to use again */
static void blk_put(struct iot_series_set *ss, struct iot_series *s,
		    uint64_t k)
{
	struct ser_blk **p = &s->blk[k % s->cap];

	if (!*p)
		return;
	(*p)->next = ss->free;
	ss->free = *p;
	*p = NULL;
}

/**
 * iot_series_ops() - interval @k's IOT_NR_OPS summaries.
 * @s: series.
 * @k: interval, held (final, or not yet: then what is known of it).
 *
 * Return: the summaries, all zero for an interval without any.
 */
const struct iot_series_op *iot_series_ops(const struct iot_series *s,
					   uint64_t k)
{
	static const struct iot_series_op none[IOT_NR_OPS];
	const struct ser_blk *b = blk_of(s, k);

	return b ? b->op : none;
}

/* interval @k's average queue depth, all operations, once it is final */
double iot_series_depth(const struct iot_series *s, uint64_t k)
{
	const struct ser_blk *b = blk_of(s, k);

	return b ? b->depth : 0;
}

/*
 * Interval @k of @s is final: the requests in flight through the whole
 * of it (the differences summed so far) add to its time in flight, and
 * the time in flight becomes its queue depth.
 */
static void series_close(struct iot_series_set *ss, struct iot_series *s,
			 uint64_t k)
{
	struct ser_blk *b = blk_of(s, k);
	uint64_t all = 0;
	int op;

	for (op = 0; op < IOT_NR_OPS; op++) {
		if (b)
			s->run[op] += b->span[op];
		all += (uint64_t)s->run[op];
	}
	if (all && !b)
		b = blk_get(ss, s, k);
	if (!b)
		return;
	for (op = 0; op < IOT_NR_OPS; op++)
		b->op[op].inflight_ns += (uint64_t)s->run[op] * ss->width;
	b->depth = (b->depth + (double)(all * ss->width)) /
		   (double)iot_series_len(s, k);
}

/*
 * The intervals before @stop are final: their depth, to @emit.  Those
 * past the ones kept are neither held nor handed out, but @base passes
 * them all the same: what comes late is what it was without --count.
 */
static void series_final(struct iot_series_set *ss, uint64_t stop)
{
	uint64_t end = stop < ss->keep ? stop : ss->keep;
	unsigned int d;

	for (; ss->base < end; ss->base++) {
		uint64_t k = ss->base;

		for (d = 0; d < ss->nd; d++)
			series_close(ss, &ss->s[d], k);
		if (!ss->emit)
			continue;
		ss->emit(ss->arg, k);
		for (d = 0; d < ss->nd; d++)
			blk_put(ss, &ss->s[d], k);
	}
	if (ss->base < stop)
		ss->base = stop;
}

/* @t ns of a request of operation @op in flight in interval @k */
static void inflight_part(struct iot_series_set *ss, struct iot_series *s,
			  int op, uint64_t k, uint64_t t)
{
	struct ser_blk *b = blk_get(ss, s, k);

	ss->work++;
	if (!b)
		return;
	b->op[op].inflight_ns += t;
	b->depth += (double)t;
}

/*
 * A request of operation @op of @s in flight from @l to @h: its time in
 * each interval it overlaps, within the window, the intervals kept and
 * those not final yet (the time before is left out).  Its first and
 * last interval get their part; those between, whole, a difference:
 * +1 from the second on, -1 from the last on (series_close() sums them).
 */
static void series_inflight(struct iot_series_set *ss, struct iot_series *s,
			    int op, uint64_t l, uint64_t h)
{
	uint64_t w = ss->width, x, y, a, z;
	struct ser_blk *b, *bz;

	if (l < s->lo)
		l = s->lo;
	/* from the window's grid: ns from its interval 0 */
	x = l - ss->anchor;
	y = h - ss->anchor;
	if (x < ss->base * w)
		x = ss->base * w;
	if (y > ss->keep * w)
		y = ss->keep * w;
	if (h <= l || x >= y)
		return;
	a = x / w;
	z = (y - 1) / w;
	if (a == z) {
		inflight_part(ss, s, op, a, y - x);
		return;
	}
	inflight_part(ss, s, op, a, (a + 1) * w - x);
	inflight_part(ss, s, op, z, y - z * w);
	if (a + 1 == z)
		return;
	/* the intervals a + 1 to z - 1: whole (out of memory: none) */
	b = blk_get(ss, s, a + 1);
	bz = blk_of(s, z);
	ss->work++;
	if (!b || !bz)
		return;
	b->span[op]++;
	bz->span[op]--;
}

/**
 * iot_series_add() - one request, in completion order (one that comes
 * late still counts, but in no interval already final, nor in the
 * percentiles of one already past: @ss->late_out, @ss->late_pct).
 * @ss: the set.
 * @e: the request and its disk.
 */
void iot_series_add(struct iot_series_set *ss, const struct xrec *e)
{
	const struct iotrace_record *r = &e->r;
	uint64_t k, c = r->complete_ns, lat, tot;
	struct iot_series_op *b = NULL;
	struct ser_blk *bk;
	struct iot_series *s;
	int op, sl = e->disk < IOT_MAX_DISKS ? ss->slot[e->disk] : -1;

	if (sl < 0 || !(r->rflags & IOTRACE_RF_COMPLETE) || c < ss->anchor)
		return;
	s = &ss->s[sl];
	k = (c - ss->anchor) / ss->width;
	if (k >= ss->nb)
		k = ss->nb - 1;	/* the window's end itself */
	if (k < ss->base) {
		ss->late_out++;
		return;
	}
	if (k > ss->cur || !ss->n) {
		lat_close(ss);
		ss->cur = k;
	}
	ss->n++;
	/* what ends @maxlat before this completion is final */
	if (ss->emit && c - ss->anchor >= ss->maxlat) {
		uint64_t stop = (c - ss->anchor - ss->maxlat) / ss->width;

		series_final(ss, stop < k ? stop : k);
	}
	op = iot_stats_slot(r->op);
	/* past the intervals kept: its time in flight before them only */
	if (k < ss->keep) {
		bk = blk_get(ss, s, k);
		b = bk ? &bk->op[op] : NULL;
	}
	if (b) {
		b->n++;
		b->bytes += r->bytes;
	}
	if (!iot_rec_has_lat(r))
		return;
	lat = c - r->issue_ns;
	if (b) {
		b->lat_n++;
		b->lat_sum += lat;
		if (lat > b->lat_max)
			b->lat_max = lat;
	}
	if (k != ss->cur)
		ss->late_pct++;
	else if (b)
		lat_push(ss, sl, op, 0, lat);
	if (b && ss->totals && iot_rec_total(r, &tot)) {
		b->tot_n++;
		b->tot_sum += tot;
		if (tot > b->tot_max)
			b->tot_max = tot;
		if (k == ss->cur)
			lat_push(ss, sl, op, 1, tot);
	}
	/* in flight from issue to completion, within the window */
	series_inflight(ss, s, op, r->issue_ns, c);
}

/**
 * iot_series_end() - no request comes any more: every interval is final
 * (handed to @ss->emit, or kept).
 * @ss: the set.
 */
void iot_series_end(struct iot_series_set *ss)
{
	lat_close(ss);
	series_final(ss, ss->nb);
}

/**
 * iot_series_len() - how much of interval @k the window covers: the
 * time its rates and queue depth are over.
 * @s: series.
 * @k: interval.
 *
 * Return: ns, > 0 (a window of one instant counts as one interval).
 */
uint64_t iot_series_len(const struct iot_series *s, uint64_t k)
{
	uint64_t a = s->t0 + k * s->width, b = a + s->width;

	if (a < s->lo)
		a = s->lo;
	if (b > s->hi && k == s->nb - 1)
		b = s->hi;
	return b > a ? b - a : s->width;
}

void iot_series_free(struct iot_series_set *ss)
{
	size_t i;

	for (i = 0; ss->s && i < ss->nd; i++) {
		const struct iot_series *s = &ss->s[i];
		uint64_t k;

		for (k = 0; s->blk && k < s->cap; k++)
			free(s->blk[k]);
		free(s->blk);
	}
	while (ss->free) {
		struct ser_blk *b = ss->free;

		ss->free = b->next;
		free(b);
	}
	/* a slot not kept was never filled: zeroed by calloc() */
	for (i = 0; ss->lat && i < 2 * ss->nlat; i++) {
		free(ss->lat[i].v);
		iot_hist_free(&ss->lat[i].h);
	}
	free(ss->s);
	free(ss->lat);
	free(ss->dirty);
	memset(ss, 0, sizeof(*ss));
}

/* ---- the two reads of a source ------------------------------------------ */

/* every record of the disks kept: to @pre; those that pass, counted */
static int sweep_pre(struct iot_sweep *sw, unsigned int disk,
		     const struct iotrace_record *r)
{
	int ret = sw->pre(sw->arg, disk, r);

	if (ret || !iot_filter(sw->o, r))
		return ret;
	sw->n++;
	if (iot_rec_has_lat(r) && r->complete_ns - r->issue_ns > sw->maxlat)
		sw->maxlat = r->complete_ns - r->issue_ns;
	return 0;
}

static int sweep_pre_cb(void *arg, unsigned int disk,
			const struct iotrace_record *r)
{
	struct iot_sweep *sw = arg;

	if (sw->disk >= 0 && (int)disk != sw->disk)
		return 0;
	return sweep_pre(sw, disk, r);
}

static int sweep_cb(void *arg, unsigned int disk,
		    const struct iotrace_record *r)
{
	struct iot_sweep *sw = arg;
	const struct xrec *e;
	int ret;

	if (sw->disk >= 0 && (int)disk != sw->disk)
		return 0;
	/* a ring is read once: held whole in the window meanwhile */
	if (!sw->src->is_file) {
		ret = sweep_pre(sw, disk, r);
		if (ret)
			return ret;
	}
	if (!iot_filter(sw->o, r))
		return 0;
	if (iot_win_push(&sw->win, disk, r, &e))
		return -2;
	if (e)
		sw->each(sw->arg, e);
	return 0;
}

/**
 * iot_sweep_run() - read @sw->src for @sw: a trace file twice, first for
 * @sw->pre (the span, the scales), then merged by completion through a
 * window of SWEEP_WINDOW records for @sw->each, in memory that does not
 * grow with the file; a ring (its records held: it is bounded) once.
 * @sw: what to do (@o, @src, @disk, @pre, @start, @each, @arg).
 *
 * Return: 0, @sw->start's non-zero value, or 1 after printing what failed.
 */
int iot_sweep_run(struct iot_sweep *sw)
{
	char err[IOT_ERR_LEN];
	const struct xrec *e;
	int ret;

	sw->n = 0;
	sw->maxlat = 0;
	if (iot_win_init(&sw->win, sw->src->is_file ? SWEEP_WINDOW : 0,
			 iot_xrec_complete_key, iot_xrec_cmp_complete)) {
		iot_err("out of memory");
		return 1;
	}
	if (sw->src->is_file) {
		ret = iot_src_read(sw->src, sweep_pre_cb, sw, err, sizeof(err));
		if (ret)
			goto fail;
		ret = sw->start(sw->arg);
		if (ret)
			goto out;
	}
	ret = iot_src_read_merged(sw->src, 0, sweep_cb, sw, err, sizeof(err));
	if (ret)
		goto fail;
	if (!sw->src->is_file) {
		ret = sw->start(sw->arg);
		if (ret)
			goto out;
	}
	while ((e = iot_win_pop(&sw->win)))
		sw->each(sw->arg, e);
	goto out;
fail:
	iot_err("%s", ret == -2 ? "out of memory" : err);
	ret = 1;
out:
	iot_win_free(&sw->win);
	return ret;
}

static const char *slot_name(int k)
{
	return k == IOT_NR_OPS - 1 ? "other" : iot_op_name(k);
}

/**
 * iot_ival_json() - one interval object (stats --interval -o json, live
 * and over a file alike).
 * @w: JSON writer, at a value.
 * @source: what the numbers are of.
 * @time_ns: end of the interval (CLOCK_MONOTONIC).
 * @start_ns: start of the part of it the data covers.
 * @width: the time from @start_ns the data covers, ns (the rates are
 *	over it; the interval itself, but for a trace's first and last).
 * @ops: IOT_NR_OPS summaries.
 * @depth: average requests in flight, < 0: unknown (null; and the
 *	operations' own, from their @inflight_ns, left out).
 * @lost: records lost in the interval, < 0: unknown (null).
 */
void iot_ival_json(struct iot_jw *w, const char *source, uint64_t time_ns,
		   uint64_t start_ns, uint64_t width,
		   const struct iot_series_op *ops, double depth, int64_t lost)
{
	double sec = width / 1e9;
	uint64_t n = 0;
	int k;

	for (k = 0; k < IOT_NR_OPS; k++)
		n += ops[k].n;
	jw_obj_start(w);
	jw_kv_str(w, "source", source);
	jw_kv_u64(w, "time_ns", time_ns);
	jw_kv_u64(w, "start_ns", start_ns);
	jw_kv_u64(w, "interval_ns", width);
	jw_kv_u64(w, "records", n);
	jw_key(w, "lost");
	if (lost < 0)
		jw_null(w);
	else
		jw_u64(w, (uint64_t)lost);
	jw_key(w, "queue_depth");
	if (depth < 0)
		jw_null(w);
	else
		jw_float(w, "%.3f", depth);
	jw_key(w, "ops");
	jw_obj_start(w);
	for (k = 0; k < IOT_NR_OPS; k++) {
		const struct iot_series_op *o = &ops[k];

		/* in flight through the interval, none completed: its QD */
		if (!o->n && (depth < 0 || !o->inflight_ns))
			continue;
		jw_key(w, slot_name(k));
		jw_obj_start(w);
		jw_kv_u64(w, "count", o->n);
		jw_kv_float(w, "iops", "%.3f", o->n / sec);
		jw_kv_float(w, "mbps", "%.3f", o->bytes / sec / 1e6);
		jw_kv_u64(w, "bytes", o->bytes);
		if (depth >= 0)
			jw_kv_float(w, "queue_depth", "%.3f",
				    (double)o->inflight_ns / width);
		jw_key(w, "lat_ns");
		jw_obj_start(w);
		jw_kv_u64(w, "n", o->lat_n);
		jw_kv_float(w, "avg", "%.1f",
			    o->lat_n ? (double)o->lat_sum / o->lat_n : 0);
		jw_kv_u64(w, "p50", o->p50);
		jw_kv_u64(w, "p99", o->p99);
		jw_kv_u64(w, "max", o->lat_max);
		jw_obj_end(w);
		jw_key(w, "total_ns");
		jw_obj_start(w);
		jw_kv_u64(w, "n", o->tot_n);
		jw_kv_u64(w, "no_queue", o->n - o->tot_n);
		jw_kv_float(w, "avg", "%.1f",
			    o->tot_n ? (double)o->tot_sum / o->tot_n : 0);
		jw_kv_u64(w, "p50", o->tp50);
		jw_kv_u64(w, "p99", o->tp99);
		jw_kv_u64(w, "max", o->tot_max);
		jw_obj_end(w);
		jw_obj_end(w);
	}
	jw_obj_end(w);
	jw_obj_end(w);
}

/*
 * The header of the interval table; @disk: with a DISK column.  The
 * total latency's columns (queue + device; NO_QTIME: the requests left
 * out, without a queue time) come last.
 */
void iot_ival_header(FILE *fp, int disk)
{
	fprintf(fp, "%-10s %s%-8s %9s %10s %9s %9s %9s %9s %9s %7s %9s %9s %9s %9s %9s %8s\n",
		"TIME_S", disk ? "DISK         " : "", "OP", "COUNT", "IOPS",
		"MB/s", "AVG_US", "P50_US", "P99_US", "MAX_US", "QD", "LOST",
		"TAVG_US", "TP50_US", "TP99_US", "TMAX_US", "NO_QTIME");
}

/* The header of iot_ival_csv()'s rows. */
void iot_ival_csv_header(FILE *fp)
{
	fputs("disk,time_ns,start_ns,interval_ns,op,count,iops,mbps,bytes,", fp);
	fputs("queue_depth,lat_n,lat_avg_ns,lat_p50_ns,lat_p99_ns,lat_max_ns,",
	      fp);
	fputs("lost,total_n,total_no_queue,total_avg_ns,total_p50_ns,", fp);
	fputs("total_p99_ns,total_max_ns\n", fp);
}

/* the total latency's fields of a row of iot_ival_csv(), and its end */
static void ival_csv_tot(FILE *fp, const struct iot_series_op *o)
{
	fprintf(fp, ",%llu,%llu", (unsigned long long)o->tot_n,
		(unsigned long long)(o->n - o->tot_n));
	if (o->tot_n)
		fprintf(fp, ",%.1f,%llu,%llu,%llu\n",
			(double)o->tot_sum / o->tot_n,
			(unsigned long long)o->tp50,
			(unsigned long long)o->tp99,
			(unsigned long long)o->tot_max);
	else
		fputs(",,,,\n", fp);
}

/* one row of iot_ival_csv(): from "op" on */
static void ival_csv_row(FILE *fp, const char *op,
			 const struct iot_series_op *o, double sec, double qd)
{
	fprintf(fp, ",%s,%llu,%.3f,%.3f,%llu,", op, (unsigned long long)o->n,
		o->n / sec, o->bytes / sec / 1e6,
		(unsigned long long)o->bytes);
	if (qd >= 0)
		fprintf(fp, "%.3f", qd);
	fprintf(fp, ",%llu", (unsigned long long)o->lat_n);
	if (o->lat_n)
		fprintf(fp, ",%.1f,%llu,%llu,%llu", (double)o->lat_sum / o->lat_n,
			(unsigned long long)o->p50, (unsigned long long)o->p99,
			(unsigned long long)o->lat_max);
	else
		fputs(",,,,", fp);
}

/**
 * iot_ival_csv() - the rows of one interval (stats --interval -o csv,
 * live and over a file alike): one per operation, as the text lines, the
 * numbers of iot_ival_json() in nanoseconds; an interval with none has
 * one row with an empty op.  A field not known is empty (latencies
 * without one, queue depth live, lost over a file).
 * @fp: output.
 * @disk: the disk's name.
 * @time_ns: end of the interval.
 * @start_ns: start of the part of it the data covers.
 * @width: the time from @start_ns the data covers, ns.
 * @ops: IOT_NR_OPS summaries.
 * @depth: average requests in flight, < 0: unknown.
 * @lost: records lost in the interval, < 0: unknown.
 */
void iot_ival_csv(FILE *fp, const char *disk, uint64_t time_ns,
		  uint64_t start_ns, uint64_t width,
		  const struct iot_series_op *ops, double depth, int64_t lost)
{
	static const struct iot_series_op none;
	double sec = width / 1e9;
	char ls[24] = "";
	int k, any = 0;

	if (lost >= 0)
		snprintf(ls, sizeof(ls), "%llu", (unsigned long long)lost);
	for (k = 0; k < IOT_NR_OPS; k++) {
		const struct iot_series_op *o = &ops[k];

		/* in flight through the interval, none completed: its QD */
		if (!o->n && (depth < 0 || !o->inflight_ns))
			continue;
		any = 1;
		iot_csv_str(fp, disk);
		fprintf(fp, ",%llu,%llu,%llu", (unsigned long long)time_ns,
			(unsigned long long)start_ns, (unsigned long long)width);
		ival_csv_row(fp, slot_name(k), o, sec,
			     depth < 0 ? -1 : (double)o->inflight_ns / width);
		fprintf(fp, ",%s", ls);
		ival_csv_tot(fp, o);
	}
	if (any)
		return;
	iot_csv_str(fp, disk);
	fprintf(fp, ",%llu,%llu,%llu", (unsigned long long)time_ns,
		(unsigned long long)start_ns, (unsigned long long)width);
	ival_csv_row(fp, "", &none, sec, depth);
	fprintf(fp, ",%s", ls);
	ival_csv_tot(fp, &none);
}

/**
 * iot_ival_text() - the lines of one interval, one per operation.
 * @fp: output.
 * @disk: NULL, or the DISK column (as text).
 * @time_ns: end of the interval.
 * @step: the --interval asked, ns: TIME_S has the decimals it needs.
 * @width: the time the interval covers, ns (the rates are over it).
 * @ops: IOT_NR_OPS summaries.
 * @depth: >= 0: each operation's QD is its @inflight_ns over @width;
 *	< 0: unknown ("-").
 * @lost: records lost in the interval, < 0: unknown ("-").
 */
void iot_ival_text(FILE *fp, const char *disk, uint64_t time_ns,
		   uint64_t step, uint64_t width,
		   const struct iot_series_op *ops, double depth, int64_t lost)
{
	double sec = width / 1e9;
	char qd[16], ls[24], dk[IOT_TEXT_ROOM(IOTRACE_NAME_LEN) + 1] = "";
	char dt[IOT_TEXT_ROOM(IOTRACE_NAME_LEN)];
	int k, any = 0, dec = step >= 1000000 ? 3 : step >= 1000 ? 6 : 9;

	if (lost < 0)
		snprintf(ls, sizeof(ls), "-");
	else
		snprintf(ls, sizeof(ls), "%llu", (unsigned long long)lost);
	if (disk)
		snprintf(dk, sizeof(dk), "%-12s ",
			 iot_text_str(dt, sizeof(dt), disk));
	for (k = 0; k < IOT_NR_OPS; k++) {
		const struct iot_series_op *o = &ops[k];

		/* in flight through the interval, none completed: its QD */
		if (!o->n && (depth < 0 || !o->inflight_ns))
			continue;
		any = 1;
		if (depth < 0)
			snprintf(qd, sizeof(qd), "-");
		else
			snprintf(qd, sizeof(qd), "%.2f",
				 (double)o->inflight_ns / width);
		fprintf(fp, "%10.*f %s%-8s %9llu %10.1f %9.2f", dec,
			time_ns / 1e9, dk, slot_name(k),
			(unsigned long long)o->n, o->n / sec,
			o->bytes / sec / 1e6);
		if (o->lat_n)
			fprintf(fp, " %9.1f %9.1f %9.1f %9.1f",
				o->lat_sum / 1000.0 / o->lat_n, o->p50 / 1000.0,
				o->p99 / 1000.0, o->lat_max / 1000.0);
		else
			fprintf(fp, " %9s %9s %9s %9s", "-", "-", "-", "-");
		fprintf(fp, " %7s %9s", qd, ls);
		if (o->tot_n)
			fprintf(fp, " %9.1f %9.1f %9.1f %9.1f",
				o->tot_sum / 1000.0 / o->tot_n,
				o->tp50 / 1000.0, o->tp99 / 1000.0,
				o->tot_max / 1000.0);
		else
			fprintf(fp, " %9s %9s %9s %9s", "-", "-", "-", "-");
		fprintf(fp, " %8llu\n", (unsigned long long)(o->n - o->tot_n));
	}
	if (depth < 0)
		snprintf(qd, sizeof(qd), "-");
	else
		snprintf(qd, sizeof(qd), "%.2f", depth);
	if (!any)
		fprintf(fp,
			"%10.*f %s%-8s %9u %10.1f %9.2f %9s %9s %9s %9s %7s %9s %9s %9s %9s %9s %8u\n",
			dec, time_ns / 1e9, dk, "-", 0, 0.0, 0.0, "-", "-",
			"-", "-", qd, ls, "-", "-", "-", "-", 0);
}

/**
 * iot_series_late() - say what came too late in the file to be in its
 * interval (more than SWEEP_WINDOW records out of completion order).
 * @ss: the set, at its end.
 * @label: the source.
 */
void iot_series_late(const struct iot_series_set *ss, const char *label)
{
	if (ss->late_out || ss->late_pct)
		fprintf(stderr,
			"iotracectl: %s: %llu requests came more than %u records out of completion order in the file: %llu left out of the intervals, %llu out of their interval's P50 and P99\n",
			label,
			(unsigned long long)(ss->late_out + ss->late_pct),
			SWEEP_WINDOW, (unsigned long long)ss->late_out,
			(unsigned long long)ss->late_pct);
}

/*
 * The decimals TIME_S needs to tell the intervals apart: those of the
 * boundaries of a grid of @width from @anchor.
 */
static uint64_t time_tick(uint64_t anchor, uint64_t width)
{
	if (!(anchor % 1000000) && !(width % 1000000))
		return 1000000;
	if (!(anchor % 1000) && !(width % 1000))
		return 1000;
	return 1;
}

/**
 * struct ser_ctx - stats FILE --interval.
 * @o: options.
 * @sw: the reads of the source.
 * @ss: the intervals.
 * @first: the earliest start of any record of the disks kept, filtered
 *	or not (UINT64_MAX: none).
 * @last: the latest completion (or start) of any of them.
 * @lo: start of the window.
 * @tick: the resolution TIME_S shows.
 * @multi: with a DISK column (every disk of a multi-disk source).
 * @doc: the JSON document.
 * @rc: exit status.
 */
struct ser_ctx {
	const struct iot_opts *o;
	struct iot_sweep sw;
	struct iot_series_set ss;
	uint64_t first, last, lo, tick;
	unsigned int multi;
	struct iot_out doc;
	int rc;
};

static int ser_pre(void *arg, unsigned int disk,
		   const struct iotrace_record *r)
{
	struct ser_ctx *c = arg;
	uint64_t s = xrec_start(r);
	uint64_t e = r->rflags & IOTRACE_RF_COMPLETE ? r->complete_ns : s;

	(void)disk;
	/* the trace's own span, which the window is cut to */
	if (s < c->first)
		c->first = s;
	if (e > c->last)
		c->last = e;
	return 0;
}

/* interval @k is final: its lines (objects), a disk after the other */
static void ser_emit(void *arg, uint64_t k)
{
	struct ser_ctx *c = arg;
	const struct iot_series_set *ss = &c->ss;
	const struct iot_src *src = c->sw.src;
	uint64_t len = iot_series_len(&ss->s[0], k);
	uint64_t ts = ss->anchor + k * ss->width, tn = ts + ss->width;
	unsigned int d;

	/* the part of the interval the window covers: from ts */
	if (ts < c->lo)
		ts = c->lo;
	for (d = 0; d < ss->nd; d++) {
		const struct iot_disk *dk = &src->disks[ss->s[d].disk];
		const struct iot_series_op *ops = iot_series_ops(&ss->s[d], k);
		double depth = iot_series_depth(&ss->s[d], k);
		char name[320];

		if (c->o->fmt == FMT_JSON) {
			snprintf(name, sizeof(name), "%s:%s", src->label,
				 dk->name);
			iot_ival_json(&c->doc.jw, name, tn, ts, len, ops, depth,
				      -1);
			iot_out_item_end(&c->doc);
		} else if (c->o->fmt == FMT_CSV) {
			iot_ival_csv(stdout, dk->name, tn, ts, len, ops, depth,
				     -1);
		} else {
			iot_ival_text(stdout, c->multi ? dk->name : NULL, tn,
				      c->tick, len, ops, depth, -1);
		}
	}
}

/* the trace's span is known: the grid, the header */
static int ser_start(void *arg)
{
	struct ser_ctx *c = arg;
	const struct iot_opts *o = c->o;
	uint64_t width = (uint64_t)(o->interval * 1e9 + 0.5), t0, t1;
	uint64_t anchor, hi;
	int ret;

	if (!width)
		width = 1;
	t0 = c->first == UINT64_MAX ? 0 : c->first;
	t1 = c->last;
	/*
	 * The window: the trace's span (every record of the disks kept,
	 * filtered or not), cut to --from/--to; the intervals from --from
	 * (whole intervals of it before the trace skipped), else from the
	 * trace's first request.
	 */
	c->lo = t0 > o->from_ns ? t0 : o->from_ns;
	hi = t1 < o->to_ns ? t1 : o->to_ns;
	if (hi < c->lo)
		hi = c->lo;
	anchor = o->from_ns ? o->from_ns + (c->lo - o->from_ns) / width * width :
		 c->lo;
	c->tick = time_tick(anchor, width);
	/* nothing matched: no interval */
	if (c->sw.n) {
		/* --count: the intervals printed, all that is kept */
		ret = iot_series_init(&c->ss, c->sw.src, c->sw.disk, anchor,
				      c->lo, hi, width, c->sw.maxlat,
				      (uint64_t)o->count, ser_emit, c);
		c->ss.totals = 1;
		if (ret == -2) {
			iot_err("--interval %g: more than %u intervals over the %.3f s of %s: give a longer interval, a --from/--to window or --count",
				o->interval, IOT_SERIES_MAX, (hi - c->lo) / 1e9,
				c->sw.src->label);
			return 2;
		}
		if (ret) {
			iot_err("out of memory");
			return 1;
		}
	}
	c->multi = c->sw.src->nr_disks > 1 && c->sw.disk < 0;
	if (o->fmt == FMT_JSON)
		iot_out_begin(&c->doc, stdout, FMT_JSON, o->jsonl);
	else if (o->fmt == FMT_CSV)
		iot_ival_csv_header(stdout);
	else
		iot_ival_header(stdout, c->multi);
	c->rc = 0;
	return 0;
}

static void ser_each(void *arg, const struct xrec *e)
{
	struct ser_ctx *c = arg;

	iot_series_add(&c->ss, e);
}

/**
 * stats_series() - stats FILE --interval: the intervals of a recording,
 * every disk (or --disk) interleaved in time order, each printed once
 * no request still to come can change it: a trace file (or standard
 * input) is read twice, in memory that does not grow with it
 * (iot_sweep_run()).
 * @o: options.
 * @src: the FILE (or DISK, read once), opened by the caller: taken over
 *	(closed here), so that standard input is read once.
 *
 * Return: exit status.
 */
int stats_series(const struct iot_opts *o, struct iot_src *src)
{
	struct ser_ctx c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.o = o;
	c.first = UINT64_MAX;
	c.rc = 1;
	c.sw.o = o;
	c.sw.src = src;
	c.sw.disk = -1;
	c.sw.pre = ser_pre;
	c.sw.start = ser_start;
	c.sw.each = ser_each;
	c.sw.arg = &c;
	if (o->disk) {
		c.sw.disk = cmd_src_disk(src, o->disk);
		if (c.sw.disk < 0) {
			c.rc = 2;
			goto out;
		}
	}
	ret = iot_sweep_run(&c.sw);
	if (ret) {
		c.rc = ret;
		goto out;
	}
	if (c.sw.n)
		iot_series_end(&c.ss);
	if (c.ss.nomem) {
		iot_err("out of memory");
		c.rc = 1;
	}
	if (o->fmt == FMT_JSON)
		iot_out_end(&c.doc);
	iot_series_late(&c.ss, src->label);
out:
	iot_series_free(&c.ss);
	iot_src_close(src);
	return c.rc;
}
