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

/* (bucket, op) key and a latency, to sort for exact percentiles */
struct lat_key {
	uint64_t key, lat;
};

static int cmp_lat_key(const void *a, const void *b)
{
	const struct lat_key *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->lat < y->lat ? -1 : x->lat > y->lat;
}

/*
 * Nearest rank ceil(p/100 x n) of sorted @v, as the histogram of every
 * other report gives it (iot_pct_sorted(): within 1/2048).
 */
static uint64_t rank(const struct lat_key *v, size_t n, double p)
{
	uint64_t r = iot_pct_rank(n, p);

	if (r == n || r == 1)
		return v[r - 1].lat;
	return iot_hist_value(v[r - 1].lat, v[0].lat, v[n - 1].lat);
}

/*
 * The time series of one disk's records over the window [@lo, @hi],
 * intervals from @anchor (<= @lo): see iot_series_build().
 */
static int series_build(struct iot_series *s, const struct xset *x,
			unsigned int disk, uint64_t anchor, uint64_t lo,
			uint64_t hi, uint64_t width)
{
	struct lat_key *lk = NULL;
	size_t i, nl = 0, j;
	uint64_t nb;

	memset(s, 0, sizeof(*s));
	s->disk = disk;
	s->t0 = anchor;
	s->lo = lo;
	s->hi = hi;
	s->width = width;
	nb = (hi > anchor ? (hi - anchor) / width : 0) + 1;
	/* a window ending on an interval's boundary ends with that interval */
	if (nb > 1 && hi > anchor && !((hi - anchor) % width))
		nb--;
	if (nb > IOT_SERIES_MAX)
		return -2;
	s->nb = nb;
	s->b = calloc(nb * IOT_NR_OPS, sizeof(*s->b));
	s->depth = calloc(nb, sizeof(*s->depth));
	lk = malloc((x->n ? x->n : 1) * sizeof(*lk));
	if (!s->b || !s->depth || !lk) {
		free(lk);
		return -1;
	}
	for (i = 0; i < x->n; i++) {
		const struct iotrace_record *r = &x->v[i].r;
		struct iot_series_op *b;
		uint64_t k, l, h;
		int op;

		if (x->v[i].disk != disk || !(r->rflags & IOTRACE_RF_COMPLETE) ||
		    r->complete_ns < anchor)
			continue;
		k = (r->complete_ns - anchor) / width;
		if (k >= nb)
			k = nb - 1;	/* the window's end itself */
		op = iot_stats_slot(r->op);
		b = &s->b[k * IOT_NR_OPS + op];
		b->n++;
		b->bytes += r->bytes;
		if (!iot_rec_has_lat(r))
			continue;
		b->lat_n++;
		b->lat_sum += r->complete_ns - r->issue_ns;
		if (r->complete_ns - r->issue_ns > b->lat_max)
			b->lat_max = r->complete_ns - r->issue_ns;
		lk[nl].key = k * IOT_NR_OPS + op;
		lk[nl++].lat = r->complete_ns - r->issue_ns;
		/* in flight from issue to completion, within the window */
		l = r->issue_ns > lo ? r->issue_ns : lo;
		h = r->complete_ns;
		for (k = (l - anchor) / width; k < nb && l < h; k++) {
			uint64_t end = anchor + (k + 1) * width;
			uint64_t e = h < end ? h : end;

			s->b[k * IOT_NR_OPS + op].inflight_ns += e - l;
			s->depth[k] += (double)(e - l);
			l = e;
		}
	}
	for (i = 0; i < nb; i++)
		s->depth[i] /= iot_series_len(s, i);
	qsort(lk, nl, sizeof(*lk), cmp_lat_key);
	for (i = 0; i < nl; i = j) {
		for (j = i; j < nl && lk[j].key == lk[i].key; j++)
			;
		s->b[lk[i].key].p50 = rank(lk + i, j - i, 50);
		s->b[lk[i].key].p99 = rank(lk + i, j - i, 99);
	}
	free(lk);
	return 0;
}

/**
 * iot_series_build() - the time series of one disk's records.
 * @s: series to fill (iot_series_free() it, also on error).
 * @x: records (any order).
 * @disk: the disk.
 * @t0: start of the first interval (CLOCK_MONOTONIC ns).
 * @t1: end of the recording: the last interval holds it.
 * @width: interval, ns (> 0).
 *
 * A request belongs to the interval it completed in; its time in flight
 * (issue to completion) adds to the queue depth of every interval it
 * overlaps, in proportion.
 *
 * Return: 0, -1 (out of memory) or -2 (more than IOT_SERIES_MAX
 * intervals).
 */
int iot_series_build(struct iot_series *s, const struct xset *x,
		     unsigned int disk, uint64_t t0, uint64_t t1,
		     uint64_t width)
{
	return series_build(s, x, disk, t0, t0, t1, width);
}

/**
 * iot_series_len() - how much of interval @k the window covers: the
 * time its rates and queue depth are over.
 * @s: series.
 * @k: interval.
 *
 * Return: ns, > 0 (a window of one instant counts as one interval).
 */
uint64_t iot_series_len(const struct iot_series *s, size_t k)
{
	uint64_t a = s->t0 + k * s->width, b = a + s->width;

	if (a < s->lo)
		a = s->lo;
	if (b > s->hi && k == s->nb - 1)
		b = s->hi;
	return b > a ? b - a : s->width;
}

void iot_series_free(struct iot_series *s)
{
	free(s->b);
	free(s->depth);
	memset(s, 0, sizeof(*s));
}

/* The span of the records: first start and last completion (or start). */
void iot_series_span(const struct xset *x, uint64_t *t0, uint64_t *t1)
{
	size_t i;

	*t0 = UINT64_MAX;
	*t1 = 0;
	for (i = 0; i < x->n; i++) {
		const struct iotrace_record *r = &x->v[i].r;
		uint64_t s = xrec_start(r), e = r->rflags & IOTRACE_RF_COMPLETE ?
			r->complete_ns : s;

		if (s < *t0)
			*t0 = s;
		if (e > *t1)
			*t1 = e;
	}
	if (*t0 == UINT64_MAX)
		*t0 = *t1 = 0;
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
		jw_obj_end(w);
	}
	jw_obj_end(w);
	jw_obj_end(w);
}

/* The header of the interval table; @disk: with a DISK column. */
void iot_ival_header(FILE *fp, int disk)
{
	fprintf(fp, "%-10s %s%-8s %9s %10s %9s %9s %9s %9s %9s %7s %9s\n",
		"TIME_S", disk ? "DISK         " : "", "OP", "COUNT", "IOPS",
		"MB/s", "AVG_US", "P50_US", "P99_US", "MAX_US", "QD", "LOST");
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
		fprintf(fp, " %7s %9s\n", qd, ls);
	}
	if (depth < 0)
		snprintf(qd, sizeof(qd), "-");
	else
		snprintf(qd, sizeof(qd), "%.2f", depth);
	if (!any)
		fprintf(fp, "%10.*f %s%-8s %9u %10.1f %9.2f %9s %9s %9s %9s %7s %9s\n",
			dec, time_ns / 1e9, dk, "-", 0, 0.0, 0.0, "-", "-",
			"-", "-", qd, ls);
}

/**
 * struct ser_load - stats FILE --interval: the records read.
 * @x: those that pass the filters (and --disk).
 * @first: the earliest start of any record of the disks kept, filtered
 *	or not (UINT64_MAX: none).
 * @last: the latest completion (or start) of any of them.
 */
struct ser_load {
	struct xset *x;
	uint64_t first, last;
};

static int ser_collect(void *arg, unsigned int disk,
		       const struct iotrace_record *r)
{
	struct ser_load *l = arg;
	struct xset *x = l->x;
	uint64_t s = xrec_start(r);
	uint64_t e = r->rflags & IOTRACE_RF_COMPLETE ? r->complete_ns : s;

	if (x->disk >= 0 && (int)disk != x->disk)
		return 0;
	/* the trace's own span, which the window is cut to */
	if (s < l->first)
		l->first = s;
	if (e > l->last)
		l->last = e;
	if (!iot_filter(x->o, r))
		return 0;
	if (x->n == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 4096;
		struct xrec *v = realloc(x->v, cap * sizeof(*v));

		if (!v)
			return -2;
		x->v = v;
		x->cap = cap;
	}
	x->v[x->n].r = *r;
	x->v[x->n].disk = disk;
	x->n++;
	return 0;
}

/* xset_load_src() for stats_series(), with the trace's own span */
static int ser_load(struct ser_load *l, const struct iot_opts *o,
		    struct iot_src *src)
{
	struct xset *x = l->x;
	char err[IOT_ERR_LEN];
	int ret;

	memset(x, 0, sizeof(*x));
	x->o = o;
	x->disk = -1;
	x->src = *src;
	memset(src, 0, sizeof(*src));
	src->fd = -1;
	l->first = UINT64_MAX;
	l->last = 0;
	if (o->disk) {
		x->disk = iot_src_disk(&x->src, o->disk);
		if (x->disk < 0)
			return 2;
	}
	ret = iot_src_read(&x->src, ser_collect, l, err, sizeof(err));
	if (ret) {
		iot_err("%s", ret == -2 ? "out of memory" : err);
		return 1;
	}
	return 0;
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
 * stats_series() - stats FILE --interval: the intervals of a recording,
 * every disk (or --disk) interleaved in time order.
 * @o: options.
 * @src: the FILE (or DISK, read once), opened by the caller: taken over
 *	(closed here), so that standard input is read once.
 *
 * Return: exit status.
 */
int stats_series(const struct iot_opts *o, struct iot_src *src)
{
	uint64_t width = (uint64_t)(o->interval * 1e9 + 0.5), t0, t1;
	uint64_t anchor, lo, hi, tick;
	struct iot_series *s = NULL;
	struct ser_load l = { 0 };
	struct iot_out doc;
	unsigned int d, nd = 0, multi;
	struct xset x;
	uint64_t k;
	int rc = 1, ret;

	if (!width)
		width = 1;
	l.x = &x;
	ret = ser_load(&l, o, src);
	if (ret) {
		rc = ret;
		goto out;
	}
	t0 = l.first == UINT64_MAX ? 0 : l.first;
	t1 = l.last;
	/*
	 * The window: the trace's span (every record of the disks kept,
	 * filtered or not), cut to --from/--to; the intervals from --from
	 * (whole intervals of it before the trace skipped), else from the
	 * trace's first request.
	 */
	lo = t0 > o->from_ns ? t0 : o->from_ns;
	hi = t1 < o->to_ns ? t1 : o->to_ns;
	if (hi < lo)
		hi = lo;
	anchor = o->from_ns ? o->from_ns + (lo - o->from_ns) / width * width :
		 lo;
	tick = time_tick(anchor, width);
	s = calloc(x.src.nr_disks ? x.src.nr_disks : 1, sizeof(*s));
	if (!s) {
		iot_err("out of memory");
		goto out;
	}
	for (d = 0; x.n && d < x.src.nr_disks; d++) {
		if (x.disk >= 0 && (int)d != x.disk)
			continue;
		ret = series_build(&s[nd++], &x, d, anchor, lo, hi, width);
		if (ret == -2) {
			iot_err("--interval %g: more than %u intervals over the %.3f s of %s: give a longer interval",
				o->interval, IOT_SERIES_MAX, (hi - lo) / 1e9,
				x.src.label);
			rc = 2;
			goto out;
		}
		if (ret) {
			iot_err("out of memory");
			goto out;
		}
	}
	multi = x.src.nr_disks > 1 && x.disk < 0;
	if (o->fmt == FMT_JSON)
		iot_out_begin(&doc, stdout, FMT_JSON, o->jsonl);
	else
		iot_ival_header(stdout, multi);
	/* nothing matched: no interval */
	for (k = 0; nd && k < s[0].nb; k++) {
		uint64_t len = iot_series_len(&s[0], k);
		uint64_t ts = s[0].t0 + k * width, tn = ts + width;

		if (o->count && k >= (uint64_t)o->count)
			break;
		/* the part of the interval the window covers: from ts */
		if (ts < lo)
			ts = lo;
		for (d = 0; d < nd; d++) {
			const struct iot_disk *dk = &x.src.disks[s[d].disk];
			char src[320];

			if (o->fmt == FMT_JSON) {
				snprintf(src, sizeof(src), "%s:%s", x.src.label,
					 dk->name);
				iot_ival_json(&doc.jw, src, tn, ts, len,
					      &s[d].b[k * IOT_NR_OPS],
					      s[d].depth[k], -1);
				iot_out_item_end(&doc);
			} else {
				iot_ival_text(stdout, multi ? dk->name : NULL,
					      tn, tick, len,
					      &s[d].b[k * IOT_NR_OPS],
					      s[d].depth[k], -1);
			}
		}
	}
	if (o->fmt == FMT_JSON)
		iot_out_end(&doc);
	rc = 0;
out:
	if (s)
		for (d = 0; d < nd; d++)
			iot_series_free(&s[d]);
	free(s);
	xset_free(&x);
	return rc;
}
