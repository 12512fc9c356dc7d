// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics: per-operation counts, throughput, latency percentiles from a
 * log-linear histogram, log2 histograms, errors by status.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "stats.h"
#include "out.h"

#define SUB	IOT_HIST_SUB_BITS
#define HALF	(1u << (SUB - 1))

unsigned int iot_hist_index(uint64_t v)
{
	unsigned int e;

	if (v < (1u << SUB))
		return (unsigned int)v;
	e = 63 - __builtin_clzll(v);
	return (1u << SUB) + (e - SUB) * HALF +
		(unsigned int)((v >> (e - (SUB - 1))) - HALF);
}

/* Lowest value and width of bucket @i. */
static void hist_bucket(unsigned int i, uint64_t *low, uint64_t *width)
{
	unsigned int k, e;

	if (i < (1u << SUB)) {
		*low = i;
		*width = 1;
		return;
	}
	k = i - (1u << SUB);
	e = SUB + k / HALF;
	*low = (uint64_t)(HALF + k % HALF) << (e - (SUB - 1));
	*width = 1ull << (e - (SUB - 1));
}

int iot_hist_init(struct iot_hist *h)
{
	h->b = calloc(IOT_HIST_BUCKETS, sizeof(*h->b));
	if (!h->b)
		return -1;
	h->n = 0;
	h->sum = 0;
	h->min = UINT64_MAX;
	h->max = 0;
	return 0;
}

void iot_hist_free(struct iot_hist *h)
{
	free(h->b);
	h->b = NULL;
}

void iot_hist_reset(struct iot_hist *h)
{
	memset(h->b, 0, IOT_HIST_BUCKETS * sizeof(*h->b));
	h->n = 0;
	h->sum = 0;
	h->min = UINT64_MAX;
	h->max = 0;
}

/**
 * iot_pct_rank() - the nearest rank of percentile @p of @n (> 0) values,
 * ceil(p / 100 x n), at least 1: the one rank of every report.
 * @n: values.
 * @p: percentile, 0 to 100, taken to a millionth of a percent.
 *
 * In integers: p / 100 is not a binary fraction (99.9 / 100.0 is
 * 0.99900000000000011), and a product just above a whole number would
 * take the rank above it (p99.9 of 1,000 values the 1,000th).
 *
 * Return: the rank, 1 to @n.
 */
uint64_t iot_pct_rank(uint64_t n, double p)
{
	unsigned __int128 q, d = 100000000;	/* millionths of a percent */
	uint64_t rank;

	if (!(p > 0))
		p = 0;
	if (p > 100)
		p = 100;
	q = (unsigned __int128)llround(p * 1e6) * n;
	rank = (uint64_t)((q + d - 1) / d);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return rank;
}

/* what a histogram reports of its bucket of @v: the midpoint, clamped */
static uint64_t hist_report(unsigned int i, uint64_t min, uint64_t max)
{
	uint64_t low, width, v;

	hist_bucket(i, &low, &width);
	v = low + width / 2;
	if (v < min)
		v = min;
	if (v > max)
		v = max;
	return v;
}

/**
 * iot_hist_percentile() - nearest-rank percentile.
 * @h: histogram.
 * @p: percentile, 0 < p <= 100.
 *
 * The value of rank ceil(p / 100 * n) in sorted order, to within half a
 * bucket: exact below 2048, else within 1/2048 relative; the first rank
 * is the minimum and the last the maximum, exactly.
 *
 * Return: the value, 0 for an empty histogram.
 */
uint64_t iot_hist_percentile(const struct iot_hist *h, double p)
{
	uint64_t rank, seen = 0;
	unsigned int i;

	if (!h->n)
		return 0;
	rank = iot_pct_rank(h->n, p);
	if (rank == h->n)
		return h->max;
	if (rank == 1)
		return h->min;
	for (i = 0; i < IOT_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank)
			break;
	}
	return hist_report(i, h->min, h->max);
}

/**
 * iot_pct_sorted() - the percentile iot_hist_percentile() gives, from
 * values held sorted: every report's percentiles are one method (the
 * histogram's), whether it holds the values or not.
 * @v: values, ascending.
 * @n: how many.
 * @p: percentile, 0 < p <= 100.
 *
 * Return: the value, 0 for none.
 */
uint64_t iot_pct_sorted(const uint64_t *v, size_t n, double p)
{
	uint64_t rank;

	if (!n)
		return 0;
	rank = iot_pct_rank(n, p);
	if (rank == n || rank == 1)
		return v[rank - 1];
	return hist_report(iot_hist_index(v[rank - 1]), v[0], v[n - 1]);
}

/**
 * iot_hist_value() - what a histogram reports of a value in the bucket
 * of @v, between @min and @max (iot_pct_sorted() of one rank).
 * @v: the value.
 * @min: smallest value.
 * @max: largest value.
 *
 * Return: the bucket's midpoint, clamped to [@min, @max].
 */
uint64_t iot_hist_value(uint64_t v, uint64_t min, uint64_t max)
{
	return hist_report(iot_hist_index(v), min, max);
}

/* the bounds of histogram bucket @i: [*low, *low + *width) */
void iot_hist_bucket(unsigned int i, uint64_t *low, uint64_t *width)
{
	hist_bucket(i, low, width);
}

int iot_stats_slot(unsigned int op)
{
	return op < IOT_NR_OPS - 1 ? (int)op : IOT_NR_OPS - 1;
}

/* the completed requests of an operation */
uint64_t iot_stats_count(const struct iot_opstats *o)
{
	uint64_t n = 0;
	int j;

	for (j = 0; j < 64; j++)
		n += o->size_log2[j];
	return n;
}

/**
 * iot_rec_total() - a record's total latency: its queue time (allocation
 * to issue) and device latency (issue to completion), what biolatency -Q
 * gives.
 * @r: the record.
 * @ns: the total, ns.
 *
 * A record without a device latency (no completion, no issue seen) or
 * without a queue time (none recorded: a request allocated before its
 * disk was enabled, a passthrough request without the kernel's stamp;
 * or one saturated at U32_MAX, IOTRACE_RF_QUEUE_SAT) has none: it is
 * left out of the totals, not counted as a queue time of 0.
 *
 * Return: 1 and *@ns, or 0: none.
 */
int iot_rec_total(const struct iotrace_record *r, uint64_t *ns)
{
	if ((r->rflags & (IOTRACE_RF_COMPLETE | IOTRACE_RF_NO_ISSUE |
			  IOTRACE_RF_QUEUE_VALID | IOTRACE_RF_QUEUE_SAT)) !=
	    (IOTRACE_RF_COMPLETE | IOTRACE_RF_QUEUE_VALID))
		return 0;
	*ns = (uint64_t)r->queue_ns + (r->complete_ns > r->issue_ns ?
				       r->complete_ns - r->issue_ns : 0);
	return 1;
}

int iot_stats_init(struct iot_stats *s)
{
	int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < IOT_NR_OPS; i++)
		if (iot_hist_init(&s->op[i].lat) ||
		    iot_hist_init(&s->op[i].tot))
			return -1;
	s->first_ns = UINT64_MAX;
	return 0;
}

void iot_stats_free(struct iot_stats *s)
{
	int i;

	for (i = 0; i < IOT_NR_OPS; i++) {
		iot_hist_free(&s->op[i].lat);
		iot_hist_free(&s->op[i].tot);
	}
}

void iot_stats_reset(struct iot_stats *s)
{
	uint64_t *b[IOT_NR_OPS], *t[IOT_NR_OPS];
	int i;

	for (i = 0; i < IOT_NR_OPS; i++) {
		b[i] = s->op[i].lat.b;
		t[i] = s->op[i].tot.b;
	}
	memset(s, 0, sizeof(*s));
	for (i = 0; i < IOT_NR_OPS; i++) {
		s->op[i].lat.b = b[i];
		s->op[i].tot.b = t[i];
		iot_hist_reset(&s->op[i].lat);
		iot_hist_reset(&s->op[i].tot);
	}
	s->first_ns = UINT64_MAX;
}

static unsigned int log2_bucket(uint64_t v)
{
	unsigned int k = v ? 64 - __builtin_clzll(v) : 0;

	return k > 63 ? 63 : k;
}

/**
 * iot_lat_bin() - the latency histogram bin of @ns, the one definition
 * that stats (text and "lat_log2_us" in JSON) and plot use.
 * @ns: latency, nanoseconds.
 *
 * Bin 0 holds [0, 1) us, bin k >= 1 holds [2^(k-1), 2^k) us.
 *
 * Return: the bin, 0 to IOT_LAT_BINS - 1.
 */
unsigned int iot_lat_bin(uint64_t ns)
{
	return log2_bucket(ns / 1000);
}

/* The bounds of latency bin @k in ns: [*lo, *hi). */
void iot_lat_bin_range(unsigned int k, uint64_t *lo, uint64_t *hi)
{
	*lo = k ? (1ull << (k - 1)) * 1000 : 0;
	*hi = k < 63 ? (1ull << k) * 1000 : UINT64_MAX;
}

/* Account one record. */
void iot_stats_add(struct iot_stats *s, const struct iotrace_record *r)
{
	struct iot_opstats *o = &s->op[iot_stats_slot(r->op)];
	uint64_t start, tot;

	s->records++;
	start = (r->rflags & IOTRACE_RF_NO_ISSUE) ? r->complete_ns :
		r->issue_ns;
	if (start < s->first_ns)
		s->first_ns = start;
	if (!(r->rflags & IOTRACE_RF_COMPLETE)) {
		s->incomplete++;
		return;
	}
	if (r->complete_ns > s->last_ns)
		s->last_ns = r->complete_ns;
	o->bytes += r->bytes;
	o->size_log2[log2_bucket(r->bytes)]++;
	if (!(r->rflags & IOTRACE_RF_NO_ISSUE) || iot_rec_flush_wait(r)) {
		uint64_t lat = r->complete_ns > r->issue_ns ?
			r->complete_ns - r->issue_ns : 0;

		iot_hist_add(&o->lat, lat);
		o->lat_log2[iot_lat_bin(lat)]++;
	}
	if (iot_rec_total(r, &tot)) {
		iot_hist_add(&o->tot, tot);
		o->tot_log2[iot_lat_bin(tot)]++;
	}
	if (r->rflags & IOTRACE_RF_QUEUE_VALID) {
		o->queue_sum += r->queue_ns;
		o->queue_n++;
		if (r->queue_ns > o->queue_max)
			o->queue_max = r->queue_ns;
	}
	if (r->error || (r->rflags & IOTRACE_RF_ERROR)) {
		unsigned int i;
		uint32_t st = (r->rflags & IOTRACE_RF_STATUS_VALID) ?
			r->dev_status : 0;

		for (i = 0; i < s->nr_errs; i++)
			if (s->errs[i].error == r->error &&
			    s->errs[i].cmd_type == r->cmd_type &&
			    s->errs[i].dev_status == st)
				break;
		if (i == s->nr_errs) {
			if (i == IOT_MAX_ERRS)
				i--;	/* last slot collects the rest */
			else
				s->nr_errs++;
			s->errs[i].error = r->error;
			s->errs[i].cmd_type = r->cmd_type;
			s->errs[i].dev_status = st;
		}
		s->errs[i].n++;
	}
}

static const char *slot_name(int i)
{
	return i == IOT_NR_OPS - 1 ? "other" : iot_op_name(i);
}

static void fmt_ns(char *out, size_t len, uint64_t v)
{
	if (v < 1000)
		snprintf(out, len, "%lluns", (unsigned long long)v);
	else if (v < 1000000)
		snprintf(out, len, "%lluus", (unsigned long long)v / 1000);
	else if (v < 1000000000)
		snprintf(out, len, "%llums", (unsigned long long)v / 1000000);
	else
		snprintf(out, len, "%llus", (unsigned long long)v / 1000000000);
}

static void fmt_size(char *out, size_t len, uint64_t v)
{
	if (v < 1024)
		snprintf(out, len, "%llu", (unsigned long long)v);
	else if (v < 1024 * 1024)
		snprintf(out, len, "%lluK", (unsigned long long)v >> 10);
	else
		snprintf(out, len, "%lluM", (unsigned long long)v >> 20);
}

#define LAT2_BAR	30

static void print_log2(FILE *fp, const char *what, const uint64_t *b,
		       int ns)
{
	uint64_t max = 0;
	int i, lo = -1, hi = -1;

	for (i = 0; i < 64; i++) {
		if (!b[i])
			continue;
		if (lo < 0)
			lo = i;
		hi = i;
		if (b[i] > max)
			max = b[i];
	}
	if (lo < 0)
		return;
	fprintf(fp, "  %s:\n", what);
	for (i = lo; i <= hi; i++) {
		char l[16], h[16], bar[41];
		uint64_t low = i ? 1ull << (i - 1) : 0;
		uint64_t high = i ? (i < 63 ? 1ull << i : UINT64_MAX) : 1;
		int w = (int)((b[i] * 40 + max - 1) / max);

		if (ns) {
			iot_lat_bin_range((unsigned int)i, &low, &high);
			fmt_ns(l, sizeof(l), low);
			fmt_ns(h, sizeof(h), high);
		} else {
			fmt_size(l, sizeof(l), low);
			fmt_size(h, sizeof(h), high);
		}
		memset(bar, '#', w);
		bar[w] = 0;
		fprintf(fp, "    %7s .. %-7s |%-40s| %llu\n", l, h, bar,
			(unsigned long long)b[i]);
	}
}

/*
 * The device and total latency histograms of an operation side by side,
 * in the bins of iot_lat_bin(), on one scale.
 */
static void print_lat2(FILE *fp, const char *op, const uint64_t *d,
		       const uint64_t *t, uint64_t left_out)
{
	uint64_t max = 0;
	int i, lo = -1, hi = -1;

	for (i = 0; i < 64; i++) {
		if (!d[i] && !t[i])
			continue;
		if (lo < 0)
			lo = i;
		hi = i;
		if (d[i] > max)
			max = d[i];
		if (t[i] > max)
			max = t[i];
	}
	if (lo < 0)
		return;
	fprintf(fp,
		"  %s latency (log2 us): device (issue to completion) | total (queue + device; %llu without a queue time left out):\n",
		op, (unsigned long long)left_out);
	for (i = lo; i <= hi; i++) {
		char l[16], h[16], bd[LAT2_BAR + 1], bt[LAT2_BAR + 1];
		int wd = (int)((d[i] * LAT2_BAR + max - 1) / max);
		int wt = (int)((t[i] * LAT2_BAR + max - 1) / max);
		uint64_t low, high;

		iot_lat_bin_range((unsigned int)i, &low, &high);
		fmt_ns(l, sizeof(l), low);
		fmt_ns(h, sizeof(h), high);
		memset(bd, '#', wd);
		bd[wd] = 0;
		memset(bt, '#', wt);
		bt[wt] = 0;
		fprintf(fp, "    %7s .. %-7s |%-*s| %-9llu |%-*s| %llu\n", l, h,
			LAT2_BAR, bd, (unsigned long long)d[i], LAT2_BAR, bt,
			(unsigned long long)t[i]);
	}
}

static void print_err_status(char *out, size_t len, uint8_t type,
			     uint32_t st)
{
	struct iotrace_record r;

	memset(&r, 0, sizeof(r));
	r.cmd_type = type;
	r.dev_status = st;
	r.rflags = st ? IOTRACE_RF_STATUS_VALID : 0;
	iot_decode_status(&r, out, len);
}

static double us(uint64_t ns)
{
	return ns / 1000.0;
}

static const double pcts[] = { 50, 90, 99, 99.9 };

/*
 * A latency object of iot_stats_json(): n, min, avg, the percentiles,
 * max; with @left_out >= 0 also "no_queue", the requests left out.
 */
/* "@k": @v, or null when there is none (@have 0) */
static void kv_u64_or_null(struct iot_jw *w, const char *k, uint64_t have,
			   uint64_t v)
{
	jw_key(w, k);
	if (have)
		jw_u64(w, v);
	else
		jw_null(w);
}

static void hist_json(struct iot_jw *w, const char *k,
		      const struct iot_hist *h, int64_t left_out)
{
	int j;

	jw_key(w, k);
	jw_obj_start(w);
	jw_kv_u64(w, "n", h->n);
	if (left_out >= 0)
		jw_kv_u64(w, "no_queue", (uint64_t)left_out);
	/* none: null, as the CSV's empty fields */
	kv_u64_or_null(w, "min", h->n, h->min);
	jw_key(w, "avg");
	if (h->n)
		jw_float(w, "%.1f", (double)h->sum / h->n);
	else
		jw_null(w);
	for (j = 0; j < 4; j++) {
		char key[16];

		snprintf(key, sizeof(key), "p%g", pcts[j]);
		kv_u64_or_null(w, key, h->n,
			       h->n ? iot_hist_percentile(h, pcts[j]) : 0);
	}
	kv_u64_or_null(w, "max", h->n, h->max);
	jw_obj_end(w);
}

/* a CSV row's latency fields: min, avg, the percentiles, max (empty: none) */
static void hist_csv(FILE *fp, const struct iot_hist *h)
{
	int j;

	if (!h->n) {
		fputs(",,,,,,,", fp);
		return;
	}
	fprintf(fp, ",%llu,%.1f", (unsigned long long)h->min,
		(double)h->sum / h->n);
	for (j = 0; j < 4; j++)
		fprintf(fp, ",%llu",
			(unsigned long long)iot_hist_percentile(h, pcts[j]));
	fprintf(fp, ",%llu", (unsigned long long)h->max);
}

/* a table row's latency columns, microseconds ("-": none) */
static void hist_text(FILE *fp, const struct iot_hist *h)
{
	int j;

	if (!h->n) {
		fprintf(fp, " %9s %9s %9s %9s %9s %9s %9s", "-", "-", "-", "-",
			"-", "-", "-");
		return;
	}
	fprintf(fp, " %9.1f %9.1f", us(h->min), us(h->sum / h->n));
	for (j = 0; j < 4; j++)
		fprintf(fp, " %9.1f", us(iot_hist_percentile(h, pcts[j])));
	fprintf(fp, " %9.1f", us(h->max));
}

/**
 * iot_stats_json() - the fields of one statistics object (the caller
 * opens and closes the object, and may add its own fields).
 * @w: JSON writer, inside an object.
 * @s: statistics.
 * @title: what the statistics are of ("source").
 * @c: what the reader knows of records it could not get (may be NULL).
 * @file: @c comes from a trace file's trailer.
 * @span_ns: the span IOPS and MB/s are over; 0: from the earliest issue
 *	to the latest completion.
 */
void iot_stats_json(struct iot_jw *w, const struct iot_stats *s,
		    const char *title, const struct iot_counts *c, int file,
		    uint64_t span_ns)
{
	uint64_t span = s->last_ns > s->first_ns && s->first_ns != UINT64_MAX ?
		s->last_ns - s->first_ns : 0;
	double sec;
	unsigned int i;
	int k, j;

	if (span_ns)
		span = span_ns;
	sec = span / 1e9;
	jw_kv_str(w, "source", title);
	jw_kv_u64(w, "records", s->records);
	jw_kv_u64(w, "incomplete", s->incomplete);
	jw_kv_u64(w, "span_ns", span);
	if (c) {
		jw_key(w, "loss");
		jw_obj_start(w);
		jw_kv_u64(w, "completed", c->completed);
		if (file) {
			jw_kv_u64(w, "recorded", c->recorded);
			jw_kv_u64(w, "written", c->written);
			jw_kv_u64(w, "lost", c->lost);
		} else {
			jw_kv_u64(w, "present", c->present);
			jw_key(w, "cleared");
			jw_bool(w, c->cleared);
		}
		jw_kv_u64(w, "overwritten", c->overwritten);
		jw_kv_u64(w, "torn", c->torn);
		jw_kv_u64(w, "dropped", c->dropped);
		jw_kv_u64(w, "filtered", c->filtered);
		if (file) {
			/* provable loss between chunks; damaged chunks */
			jw_kv_u64(w, "gaps", c->gaps);
			jw_kv_u64(w, "gap_records", c->gap_records);
			jw_kv_u64(w, "unread", c->unread);
			jw_kv_u64(w, "trailer", !c->no_trailer);
		}
		jw_obj_end(w);
	}
	jw_key(w, "ops");
	jw_obj_start(w);
	for (k = 0; k < IOT_NR_OPS; k++) {
		const struct iot_opstats *o = &s->op[k];
		uint64_t n = 0;

		for (j = 0; j < 64; j++)
			n += o->size_log2[j];
		if (!n)
			continue;
		jw_key(w, slot_name(k));
		jw_obj_start(w);
		jw_kv_u64(w, "count", n);
		jw_kv_float(w, "iops", "%.3f", sec > 0 ? n / sec : 0);
		jw_kv_float(w, "mbps", "%.3f", sec > 0 ? o->bytes / sec / 1e6 : 0);
		jw_kv_u64(w, "bytes", o->bytes);
		hist_json(w, "lat_ns", &o->lat, -1);
		hist_json(w, "total_ns", &o->tot, (int64_t)(n - o->tot.n));
		jw_key(w, "queue_ns");
		jw_obj_start(w);
		jw_kv_u64(w, "n", o->queue_n);
		jw_key(w, "avg");
		if (o->queue_n)
			jw_float(w, "%.1f", (double)o->queue_sum / o->queue_n);
		else
			jw_null(w);
		kv_u64_or_null(w, "max", o->queue_n, o->queue_max);
		jw_obj_end(w);
		jw_key(w, "lat_log2_us");
		jw_arr_start(w);
		for (j = 0; j < 64; j++)
			jw_u64(w, o->lat_log2[j]);
		jw_arr_end(w);
		jw_key(w, "total_log2_us");
		jw_arr_start(w);
		for (j = 0; j < 64; j++)
			jw_u64(w, o->tot_log2[j]);
		jw_arr_end(w);
		jw_key(w, "size_log2");
		jw_arr_start(w);
		for (j = 0; j < 64; j++)
			jw_u64(w, o->size_log2[j]);
		jw_arr_end(w);
		jw_obj_end(w);
	}
	jw_obj_end(w);
	jw_key(w, "errors");
	jw_arr_start(w);
	for (i = 0; i < s->nr_errs; i++) {
		char e[32], st[160];

		iot_errno_name(s->errs[i].error, e, sizeof(e));
		print_err_status(st, sizeof(st), s->errs[i].cmd_type,
				 s->errs[i].dev_status);
		jw_obj_start(w);
		jw_kv_str(w, "errno", e);
		jw_kv_str(w, "status", st);
		jw_kv_u64(w, "dev_status", s->errs[i].dev_status);
		jw_kv_u64(w, "count", s->errs[i].n);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

/**
 * iot_stats_csv_header() - the header line of iot_stats_csv()'s rows.
 * @fp: output.
 */
void iot_stats_csv_header(FILE *fp)
{
	fputs("disk,op,count,iops,mbps,bytes,", fp);
	fputs("lat_n,lat_min_ns,lat_avg_ns,lat_p50_ns,lat_p90_ns,lat_p99_ns,", fp);
	fputs("lat_p99.9_ns,lat_max_ns,queue_n,queue_avg_ns,queue_max_ns,", fp);
	fputs("span_ns,total_n,total_no_queue,total_min_ns,total_avg_ns,", fp);
	fputs("total_p50_ns,total_p90_ns,total_p99_ns,total_p99.9_ns,", fp);
	fputs("total_max_ns\n", fp);
}

/**
 * iot_stats_csv() - statistics as CSV rows, one per operation seen: the
 *	numbers of iot_stats_json()'s "ops" (latency fields empty without
 *	a latency, queue fields without a queue time).
 * @fp: output.
 * @s: statistics.
 * @disk: the disk's name (the first field).
 * @span_ns: the span rates are over (0: first issue to last completion).
 */
void iot_stats_csv(FILE *fp, const struct iot_stats *s, const char *disk,
		   uint64_t span_ns)
{
	uint64_t span = s->last_ns > s->first_ns && s->first_ns != UINT64_MAX ?
		s->last_ns - s->first_ns : 0;
	double sec;
	int k, j;

	if (span_ns)
		span = span_ns;
	sec = span / 1e9;
	for (k = 0; k < IOT_NR_OPS; k++) {
		const struct iot_opstats *o = &s->op[k];
		uint64_t n = 0;

		for (j = 0; j < 64; j++)
			n += o->size_log2[j];
		if (!n)
			continue;
		iot_csv_str(fp, disk);
		fprintf(fp, ",%s,%llu,%.3f,%.3f,%llu,%llu", slot_name(k),
			(unsigned long long)n, sec > 0 ? n / sec : 0,
			sec > 0 ? o->bytes / sec / 1e6 : 0,
			(unsigned long long)o->bytes,
			(unsigned long long)o->lat.n);
		hist_csv(fp, &o->lat);
		fprintf(fp, ",%llu", (unsigned long long)o->queue_n);
		if (o->queue_n)
			fprintf(fp, ",%.1f,%llu",
				(double)o->queue_sum / o->queue_n,
				(unsigned long long)o->queue_max);
		else
			fputs(",,", fp);
		fprintf(fp, ",%llu,%llu,%llu", (unsigned long long)span,
			(unsigned long long)o->tot.n,
			(unsigned long long)(n - o->tot.n));
		hist_csv(fp, &o->tot);
		fputc('\n', fp);
	}
}

/**
 * iot_stats_print() - print statistics as a table (JSON: iot_stats_json()).
 * @fp: output.
 * @s: statistics.
 * @title: what the statistics are of (disk or file name).
 * @c: what the reader knows of records it could not get (may be NULL).
 * @file: @c comes from a trace file's trailer.
 * @span_ns: the span IOPS and MB/s are over (a --from/--to window); 0:
 *	from the earliest issue to the latest completion.
 */
void iot_stats_print(FILE *fp, const struct iot_stats *s,
		     const char *title, const struct iot_counts *c, int file,
		     uint64_t span_ns)
{
	uint64_t span = s->last_ns > s->first_ns && s->first_ns != UINT64_MAX ?
		s->last_ns - s->first_ns : 0;
	double sec = (span_ns ? span_ns : span) / 1e9;
	unsigned int i;
	int k, any;

	fprintf(fp, "%s: %llu records, %llu incomplete, span %.6f s\n",
		title, (unsigned long long)s->records,
		(unsigned long long)s->incomplete, sec);
	if (c && file && c->no_trailer)
		/* the recording did not finish: the trailer's counts unknown */
		fprintf(fp,
			"loss: unknown (no trailer: the recording did not finish), %llu records read",
			(unsigned long long)c->present);
	else if (c && file)
		fprintf(fp,
			"loss: completed %llu, recorded %llu, written %llu, lost %llu (overwritten %llu, torn %llu), dropped by kernel %llu",
			(unsigned long long)c->completed,
			(unsigned long long)c->recorded,
			(unsigned long long)c->written,
			(unsigned long long)c->lost,
			(unsigned long long)c->overwritten,
			(unsigned long long)c->torn,
			(unsigned long long)c->dropped);
	if (c && file) {
		if (c->gaps)
			fprintf(fp, "; %llu sequence gap%s between chunks: %llu records missing",
				(unsigned long long)c->gaps,
				c->gaps == 1 ? "" : "s",
				(unsigned long long)c->gap_records);
		if (c->unread)
			fprintf(fp, "; %llu written records not read (damaged chunks)",
				(unsigned long long)c->unread);
		fputc('\n', fp);
	} else if (c)
		fprintf(fp,
			"loss: completed %llu, present %llu, overwritten %llu, dropped %llu, torn/skipped %llu%s\n",
			(unsigned long long)c->completed,
			(unsigned long long)c->present,
			(unsigned long long)c->overwritten,
			(unsigned long long)c->dropped,
			(unsigned long long)c->torn,
			c->cleared ? "; cleared while read: the records up to the clear" : "");
	if (c && c->filtered)
		fprintf(fp, "filtered: %llu completions left out by the disk's filter\n",
			(unsigned long long)c->filtered);
	fprintf(fp, "%-8s %9s %10s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n",
		"OP", "COUNT", "IOPS", "MB/s", "MIN_US", "AVG_US",
		"P50_US", "P90_US", "P99_US", "P99.9_US", "MAX_US",
		"QAVG_US", "QMAX_US");
	for (k = 0; k < IOT_NR_OPS; k++) {
		const struct iot_opstats *o = &s->op[k];
		uint64_t n = 0;
		int j;

		for (j = 0; j < 64; j++)
			n += o->size_log2[j];
		if (!n)
			continue;
		fprintf(fp, "%-8s %9llu %10.1f %9.2f", slot_name(k),
			(unsigned long long)n, sec > 0 ? n / sec : 0,
			sec > 0 ? o->bytes / sec / 1e6 : 0);
		hist_text(fp, &o->lat);
		if (o->queue_n)
			fprintf(fp, " %9.1f %9.1f\n",
				us(o->queue_sum / o->queue_n),
				us(o->queue_max));
		else
			fprintf(fp, " %9s %9s\n", "-", "-");
	}
	/* total latency, queue + device (biolatency -Q) */
	for (k = 0, any = 0; k < IOT_NR_OPS; k++) {
		const struct iot_opstats *o = &s->op[k];
		uint64_t n = iot_stats_count(o);

		if (!n)
			continue;
		if (!any++)
			fprintf(fp,
				"total latency (queue + device, allocation to completion; NO_QTIME: requests left out, without a queue time):\n"
				"%-8s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n",
				"OP", "N", "NO_QTIME", "MIN_US", "AVG_US",
				"P50_US", "P90_US", "P99_US", "P99.9_US",
				"MAX_US");
		fprintf(fp, "%-8s %9llu %9llu", slot_name(k),
			(unsigned long long)o->tot.n,
			(unsigned long long)(n - o->tot.n));
		hist_text(fp, &o->tot);
		fputc('\n', fp);
	}
	for (k = 0; k < IOT_NR_OPS; k++) {
		const struct iot_opstats *o = &s->op[k];
		char t[64];

		print_lat2(fp, slot_name(k), o->lat_log2, o->tot_log2,
			   iot_stats_count(o) - o->tot.n);
		snprintf(t, sizeof(t), "%s size (bytes)", slot_name(k));
		print_log2(fp, t, o->size_log2, 0);
	}
	if (s->nr_errs)
		fprintf(fp, "errors:\n");
	for (i = 0; i < s->nr_errs; i++) {
		char e[32], st[160];

		iot_errno_name(s->errs[i].error, e, sizeof(e));
		print_err_status(st, sizeof(st), s->errs[i].cmd_type,
				 s->errs[i].dev_status);
		fprintf(fp, "  %-12s %-50s %llu\n", e, st,
			(unsigned long long)s->errs[i].n);
	}
}
