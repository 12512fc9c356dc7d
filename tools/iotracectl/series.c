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

/* nearest rank: the value of rank ceil(p/100 x n) of sorted @v */
static uint64_t rank(const struct lat_key *v, size_t n, double p)
{
	size_t r = (size_t)((p * n + 99.0) / 100.0);

	if (r < 1)
		r = 1;
	if (r > n)
		r = n;
	return v[r - 1].lat;
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
	struct lat_key *lk = NULL;
	size_t i, nl = 0, j;
	uint64_t nb;

	memset(s, 0, sizeof(*s));
	s->disk = disk;
	s->t0 = t0;
	s->width = width;
	nb = (t1 > t0 ? (t1 - t0) / width : 0) + 1;
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
		uint64_t k, lo, hi;
		int op;

		if (x->v[i].disk != disk || !(r->rflags & IOTRACE_RF_COMPLETE) ||
		    r->complete_ns < t0)
			continue;
		k = (r->complete_ns - t0) / width;
		if (k >= nb)
			continue;
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
		/* in flight from issue to completion */
		lo = r->issue_ns > t0 ? r->issue_ns : t0;
		hi = r->complete_ns;
		for (k = (lo - t0) / width; k < nb && lo < hi; k++) {
			uint64_t end = t0 + (k + 1) * width;
			uint64_t e = hi < end ? hi : end;

			s->b[k * IOT_NR_OPS + op].inflight_ns += e - lo;
			s->depth[k] += (double)(e - lo) / width;
			lo = e;
		}
	}
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
 * @width: interval, ns.
 * @ops: IOT_NR_OPS summaries.
 * @depth: average requests in flight, < 0: unknown (null).
 * @lost: records lost in the interval, < 0: unknown (null).
 */
void iot_ival_json(struct iot_jw *w, const char *source, uint64_t time_ns,
		   uint64_t width, const struct iot_series_op *ops,
		   double depth, int64_t lost)
{
	double sec = width / 1e9;
	uint64_t n = 0;
	int k;

	for (k = 0; k < IOT_NR_OPS; k++)
		n += ops[k].n;
	jw_obj_start(w);
	jw_kv_str(w, "source", source);
	jw_kv_u64(w, "time_ns", time_ns);
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

		if (!o->n)
			continue;
		jw_key(w, slot_name(k));
		jw_obj_start(w);
		jw_kv_u64(w, "count", o->n);
		jw_kv_float(w, "iops", "%.3f", o->n / sec);
		jw_kv_float(w, "mbps", "%.3f", o->bytes / sec / 1e6);
		jw_kv_u64(w, "bytes", o->bytes);
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

/* The lines of one interval; @disk: NULL, or the DISK column (as text). */
void iot_ival_text(FILE *fp, const char *disk, uint64_t time_ns,
		   uint64_t width, const struct iot_series_op *ops,
		   double depth, int64_t lost)
{
	double sec = width / 1e9;
	char qd[16], ls[24], dk[IOT_TEXT_ROOM(IOTRACE_NAME_LEN) + 1] = "";
	char dt[IOT_TEXT_ROOM(IOTRACE_NAME_LEN)];
	int k, any = 0;

	if (depth < 0)
		snprintf(qd, sizeof(qd), "-");
	else
		snprintf(qd, sizeof(qd), "%.2f", depth);
	if (lost < 0)
		snprintf(ls, sizeof(ls), "-");
	else
		snprintf(ls, sizeof(ls), "%llu", (unsigned long long)lost);
	if (disk)
		snprintf(dk, sizeof(dk), "%-12s ",
			 iot_text_str(dt, sizeof(dt), disk));
	for (k = 0; k < IOT_NR_OPS; k++) {
		const struct iot_series_op *o = &ops[k];

		if (!o->n)
			continue;
		any = 1;
		fprintf(fp, "%10.3f %s%-8s %9llu %10.1f %9.2f %9.1f %9.1f %9.1f %9.1f %7s %9s\n",
			time_ns / 1e9, dk, slot_name(k), (unsigned long long)o->n,
			o->n / sec, o->bytes / sec / 1e6,
			o->lat_n ? o->lat_sum / 1000.0 / o->lat_n : 0,
			o->p50 / 1000.0, o->p99 / 1000.0, o->lat_max / 1000.0,
			qd, ls);
	}
	if (!any)
		fprintf(fp, "%10.3f %s%-8s %9u %10.1f %9.2f %9s %9s %9s %9s %7s %9s\n",
			time_ns / 1e9, dk, "-", 0, 0.0, 0.0, "-", "-", "-",
			"-", qd, ls);
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
	struct iot_series *s = NULL;
	struct iot_out doc;
	unsigned int d, nd = 0, multi;
	struct xset x;
	uint64_t k;
	int rc = 1, ret;

	if (!width)
		width = 1;
	if (xset_load_src(&x, o, src))
		goto out;
	iot_series_span(&x, &t0, &t1);
	s = calloc(x.src.nr_disks, sizeof(*s));
	if (!s) {
		iot_err("out of memory");
		goto out;
	}
	for (d = 0; d < x.src.nr_disks; d++) {
		if (x.disk >= 0 && (int)d != x.disk)
			continue;
		ret = iot_series_build(&s[nd++], &x, d, t0, t1, width);
		if (ret == -2) {
			iot_err("--interval %g: more than %u intervals over the %.3f s of %s: give a longer interval",
				o->interval, IOT_SERIES_MAX, (t1 - t0) / 1e9,
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
	for (k = 0; nd && k < s[0].nb; k++) {
		if (o->count && k >= (uint64_t)o->count)
			break;
		for (d = 0; d < nd; d++) {
			const struct iot_disk *dk = &x.src.disks[s[d].disk];
			uint64_t tn = t0 + (k + 1) * width;
			char src[320];

			if (o->fmt == FMT_JSON) {
				snprintf(src, sizeof(src), "%s:%s", x.src.label,
					 dk->name);
				iot_ival_json(&doc.jw, src, tn, width,
					      &s[d].b[k * IOT_NR_OPS],
					      s[d].depth[k], -1);
				iot_out_item_end(&doc);
			} else {
				iot_ival_text(stdout, multi ? dk->name : NULL,
					      tn, width,
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
