// SPDX-License-Identifier: GPL-2.0
/*
 * diff A B: two recordings (or rings) side by side, per operation and
 * request size class: counts, IOPS, latency percentiles, and whether the
 * two latency distributions differ (two-sample Kolmogorov-Smirnov
 * statistic and its asymptotic p-value); then per operation the latency
 * histograms of A and B side by side.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "export.h"
#include "out.h"

#define SZ_ALL		64	/* the size class "all sizes" */
#define NR_SZ		65
#define DIFF_BAR	20

/* a record's (operation, size class) key and its latency */
struct dkey {
	uint32_t key;
	int has_lat;
	uint64_t lat;
};

/**
 * struct dside - one of A and B.
 * @x: its records.
 * @v: (key, latency) twice per record: its size class and "all".
 * @n: entries in @v.
 * @span_ns: first start to last completion.
 * @hist: latency bins per operation (the bins of stats and plot).
 */
struct dside {
	struct xset x;
	struct dkey *v;
	size_t n;
	uint64_t span_ns;
	uint64_t hist[IOT_NR_OPS][IOT_LAT_BINS];
};

static unsigned int size_class(uint32_t bytes)
{
	return bytes ? 64 - __builtin_clzll(bytes) : 0;	/* [2^(k-1), 2^k) */
}

static int cmp_dkey(const void *a, const void *b)
{
	const struct dkey *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->has_lat != y->has_lat)
		return x->has_lat < y->has_lat ? -1 : 1;
	return x->lat < y->lat ? -1 : x->lat > y->lat;
}

static int side_load(struct dside *s, const struct iot_opts *o,
		     const char *arg)
{
	uint64_t t0 = UINT64_MAX, t1 = 0;
	size_t i;
	int rc;

	memset(s, 0, sizeof(*s));
	rc = xset_load(&s->x, o, arg);
	if (rc)
		return rc;	/* 2: a --disk it does not hold */
	s->v = malloc((2 * s->x.n + 1) * sizeof(*s->v));
	if (!s->v) {
		iot_err("out of memory");
		return 1;
	}
	for (i = 0; i < s->x.n; i++) {
		const struct iotrace_record *r = &s->x.v[i].r;
		uint32_t op = iot_stats_slot(r->op);
		int lat = iot_rec_has_lat(r);
		uint64_t st = xrec_start(r);
		uint64_t e = r->rflags & IOTRACE_RF_COMPLETE ? r->complete_ns : st;

		if (st < t0)
			t0 = st;
		if (e > t1)
			t1 = e;
		s->v[s->n].key = op * NR_SZ + size_class(r->bytes);
		s->v[s->n].has_lat = lat;
		s->v[s->n++].lat = lat ? r->complete_ns - r->issue_ns : 0;
		s->v[s->n] = s->v[s->n - 1];
		s->v[s->n++].key = op * NR_SZ + SZ_ALL;
		if (lat)
			s->hist[op][iot_lat_bin(r->complete_ns - r->issue_ns)]++;
	}
	s->span_ns = t1 > t0 ? t1 - t0 : 0;
	qsort(s->v, s->n, sizeof(*s->v), cmp_dkey);
	return 0;
}

static void side_free(struct dside *s)
{
	free(s->v);
	xset_free(&s->x);
}

/**
 * struct dgroup - one (operation, size class) of one side.
 * @n: requests.
 * @lat: their latencies, sorted (requests with one).
 * @nl: entries in @lat.
 */
struct dgroup {
	size_t n;
	const struct dkey *lat;
	size_t nl;
};

/* the group of @key in @s starting at *@pos (entries sorted by key) */
static void group_at(const struct dside *s, size_t *pos, uint32_t key,
		     struct dgroup *g)
{
	size_t i = *pos, j;

	memset(g, 0, sizeof(*g));
	if (i >= s->n || s->v[i].key != key)
		return;
	for (j = i; j < s->n && s->v[j].key == key; j++)
		if (s->v[j].has_lat && !g->lat)
			g->lat = &s->v[j];
	g->n = j - i;
	g->nl = g->lat ? (size_t)(&s->v[j] - g->lat) : 0;
	*pos = j;
}

static uint64_t pct(const struct dgroup *g, double p)
{
	size_t r;

	if (!g->nl)
		return 0;
	r = (size_t)ceil(p / 100.0 * g->nl);
	if (r < 1)
		r = 1;
	if (r > g->nl)
		r = g->nl;
	return g->lat[r - 1].lat;
}

/* the two-sample Kolmogorov-Smirnov statistic: sup |F_a - F_b| */
static double ks_stat(const struct dgroup *a, const struct dgroup *b)
{
	size_t i = 0, j = 0;
	double d = 0;

	while (i < a->nl && j < b->nl) {
		uint64_t v = a->lat[i].lat < b->lat[j].lat ? a->lat[i].lat :
			     b->lat[j].lat;
		double f;

		while (i < a->nl && a->lat[i].lat == v)
			i++;
		while (j < b->nl && b->lat[j].lat == v)
			j++;
		f = fabs((double)i / a->nl - (double)j / b->nl);
		if (f > d)
			d = f;
	}
	return d;
}

/*
 * Its p-value: the asymptotic Kolmogorov distribution with Stephens'
 * small-sample correction, Q(lambda) = 2 sum (-1)^(j-1) exp(-2 j^2
 * lambda^2), lambda = (sqrt(ne) + 0.12 + 0.11 / sqrt(ne)) D, ne = nm/(n+m)
 * (Numerical Recipes' probks).
 */
static double ks_p(double d, size_t n, size_t m)
{
	double ne = (double)n * m / (n + m), en = sqrt(ne);
	double lam = (en + 0.12 + 0.11 / en) * d, a2 = -2 * lam * lam;
	double fac = 2, sum = 0, prev = 0, term;
	int j;

	if (lam < 1e-3)
		return 1;
	for (j = 1; j <= 100; j++) {
		term = fac * exp(a2 * j * j);
		sum += term;
		if (fabs(term) <= 0.001 * prev || fabs(term) <= 1e-8 * sum)
			return sum < 0 ? 0 : sum > 1 ? 1 : sum;
		fac = -fac;
		prev = fabs(term);
	}
	return 1;
}

static const char *slot_name(int k)
{
	return k == IOT_NR_OPS - 1 ? "other" : iot_op_name(k);
}

static void size_label(char *out, size_t len, unsigned int c)
{
	uint64_t lo = c ? 1ull << (c - 1) : 0;

	if (c == SZ_ALL)
		snprintf(out, len, "all");
	else if (lo < 1024)
		snprintf(out, len, "%llu", (unsigned long long)lo);
	else if (lo < 1024 * 1024)
		snprintf(out, len, "%lluK", (unsigned long long)lo >> 10);
	else
		snprintf(out, len, "%lluM", (unsigned long long)lo >> 20);
}

static void us_str(char *out, size_t len, const struct dgroup *g, double p)
{
	if (!g->nl)
		snprintf(out, len, "-");
	else
		snprintf(out, len, "%.1f", pct(g, p) / 1000.0);
}

static void side_json(struct iot_jw *w, const struct dgroup *g,
		      uint64_t span_ns)
{
	jw_obj_start(w);
	jw_kv_u64(w, "count", g->n);
	jw_kv_float(w, "iops", "%.3f", span_ns ? g->n / (span_ns / 1e9) : 0);
	jw_key(w, "lat_ns");
	jw_obj_start(w);
	jw_kv_u64(w, "n", g->nl);
	jw_kv_u64(w, "p50", pct(g, 50));
	jw_kv_u64(w, "p90", pct(g, 90));
	jw_kv_u64(w, "p99", pct(g, 99));
	jw_kv_u64(w, "max", g->nl ? g->lat[g->nl - 1].lat : 0);
	jw_obj_end(w);
	jw_obj_end(w);
}

static void src_json(struct iot_jw *w, const char *k, const char *arg,
		     const struct dside *s)
{
	jw_key(w, k);
	jw_obj_start(w);
	jw_kv_str(w, "source", arg);
	jw_kv_u64(w, "records", s->x.n);
	jw_kv_u64(w, "span_ns", s->span_ns);
	jw_obj_end(w);
}

/* the latency histograms of @op in A and B, side by side */
static void hist_text(const struct dside *a, const struct dside *b, int op)
{
	const uint64_t *ha = a->hist[op], *hb = b->hist[op];
	uint64_t max = 0;
	int k, lo = -1, hi = -1;

	for (k = 0; k < IOT_LAT_BINS; k++) {
		if (!ha[k] && !hb[k])
			continue;
		if (lo < 0)
			lo = k;
		hi = k;
		if (ha[k] > max)
			max = ha[k];
		if (hb[k] > max)
			max = hb[k];
	}
	if (lo < 0)
		return;
	printf("%s latency (issue to completion), A | B:\n", slot_name(op));
	for (k = lo; k <= hi; k++) {
		char bar_a[DIFF_BAR + 1], bar_b[DIFF_BAR + 1], l[16], h[16];
		int wa = (int)((ha[k] * DIFF_BAR + max - 1) / max);
		int wb = (int)((hb[k] * DIFF_BAR + max - 1) / max);
		uint64_t blo, bhi;

		iot_lat_bin_range((unsigned int)k, &blo, &bhi);
		snprintf(l, sizeof(l), "%.4gus", blo / 1000.0);
		snprintf(h, sizeof(h), "%.4gus", bhi / 1000.0);
		memset(bar_a, '#', wa);
		bar_a[wa] = 0;
		memset(bar_b, '#', wb);
		bar_b[wb] = 0;
		printf("  %9s .. %-9s %6llu |%-*s| %6llu |%-*s|\n", l, h,
		       (unsigned long long)ha[k], DIFF_BAR, bar_a,
		       (unsigned long long)hb[k], DIFF_BAR, bar_b);
	}
}

int cmd_diff(struct iot_opts *o, int argc, char **argv)
{
	struct dside *a, *b;
	struct iot_jw w;
	size_t pa = 0, pb = 0;
	int rc = 1, op;

	if (argc != 2) {
		iot_err("diff needs two arguments, A and B (DISK or FILE each)");
		return 2;
	}
	a = calloc(1, sizeof(*a));
	b = calloc(1, sizeof(*b));
	if (!a || !b) {
		iot_err("out of memory");
		free(a);
		free(b);
		return 1;
	}
	rc = side_load(a, o, argv[0]);
	if (!rc)
		rc = side_load(b, o, argv[1]);
	if (rc)
		goto out;
	rc = 1;
	if (o->fmt == FMT_JSON) {
		jw_init(&w, stdout);
		jw_obj_start(&w);
		src_json(&w, "a", argv[0], a);
		src_json(&w, "b", argv[1], b);
		jw_key(&w, "rows");
		jw_arr_start(&w);
	} else {
		printf("A: %s, %zu requests over %.6f s\nB: %s, %zu requests over %.6f s\n",
		       argv[0], a->x.n, a->span_ns / 1e9, argv[1], b->x.n,
		       b->span_ns / 1e9);
		printf("%-8s %-5s %8s %8s %10s %10s %9s %9s %9s %9s %9s %9s %6s %8s\n",
		       "OP", "SIZE", "COUNT_A", "COUNT_B", "IOPS_A", "IOPS_B",
		       "P50_A_US", "P50_B_US", "P90_A_US", "P90_B_US",
		       "P99_A_US", "P99_B_US", "KS_D", "KS_P");
	}
	/* the union of the (op, size) keys, in key order */
	while (pa < a->n || pb < b->n) {
		uint32_t ka = pa < a->n ? a->v[pa].key : UINT32_MAX;
		uint32_t kb = pb < b->n ? b->v[pb].key : UINT32_MAX;
		uint32_t key = ka < kb ? ka : kb;
		struct dgroup ga, gb;
		char sz[16], s[6][16];
		double d = 0, p = 1;
		int ks = 0;

		group_at(a, &pa, key, &ga);
		group_at(b, &pb, key, &gb);
		if (ga.nl && gb.nl) {
			ks = 1;
			d = ks_stat(&ga, &gb);
			p = ks_p(d, ga.nl, gb.nl);
		}
		size_label(sz, sizeof(sz), key % NR_SZ);
		if (o->fmt == FMT_JSON) {
			unsigned int c = key % NR_SZ;

			jw_obj_start(&w);
			jw_kv_str(&w, "op", slot_name(key / NR_SZ));
			jw_kv_str(&w, "size", sz);
			jw_key(&w, "size_min");
			if (c == SZ_ALL)
				jw_null(&w);
			else
				jw_u64(&w, c ? 1ull << (c - 1) : 0);
			jw_key(&w, "size_max");
			if (c == SZ_ALL)
				jw_null(&w);
			else
				jw_u64(&w, c ? (1ull << c) - 1 : 0);
			jw_key(&w, "a");
			side_json(&w, &ga, a->span_ns);
			jw_key(&w, "b");
			side_json(&w, &gb, b->span_ns);
			jw_key(&w, "ks");
			if (ks) {
				jw_obj_start(&w);
				jw_kv_float(&w, "d", "%.6f", d);
				jw_kv_float(&w, "p", "%.6g", p);
				jw_obj_end(&w);
			} else {
				jw_null(&w);
			}
			jw_obj_end(&w);
			continue;
		}
		us_str(s[0], sizeof(s[0]), &ga, 50);
		us_str(s[1], sizeof(s[1]), &gb, 50);
		us_str(s[2], sizeof(s[2]), &ga, 90);
		us_str(s[3], sizeof(s[3]), &gb, 90);
		us_str(s[4], sizeof(s[4]), &ga, 99);
		us_str(s[5], sizeof(s[5]), &gb, 99);
		printf("%-8s %-5s %8zu %8zu %10.1f %10.1f %9s %9s %9s %9s %9s %9s ",
		       slot_name(key / NR_SZ), sz, ga.n, gb.n,
		       a->span_ns ? ga.n / (a->span_ns / 1e9) : 0,
		       b->span_ns ? gb.n / (b->span_ns / 1e9) : 0,
		       s[0], s[1], s[2], s[3], s[4], s[5]);
		if (ks)
			printf("%6.3f %8.3g\n", d, p);
		else
			printf("%6s %8s\n", "-", "-");
	}
	if (o->fmt == FMT_JSON) {
		jw_arr_end(&w);
		jw_key(&w, "hist");
		jw_obj_start(&w);
		for (op = 0; op < IOT_NR_OPS; op++) {
			int k, any = 0;

			for (k = 0; k < IOT_LAT_BINS; k++)
				any |= a->hist[op][k] || b->hist[op][k];
			if (!any)
				continue;
			jw_key(&w, slot_name(op));
			jw_obj_start(&w);
			jw_key(&w, "a");
			jw_arr_start(&w);
			for (k = 0; k < IOT_LAT_BINS; k++)
				jw_u64(&w, a->hist[op][k]);
			jw_arr_end(&w);
			jw_key(&w, "b");
			jw_arr_start(&w);
			for (k = 0; k < IOT_LAT_BINS; k++)
				jw_u64(&w, b->hist[op][k]);
			jw_arr_end(&w);
			jw_obj_end(&w);
		}
		jw_obj_end(&w);
		jw_obj_end(&w);
		putchar('\n');
	} else {
		for (op = 0; op < IOT_NR_OPS; op++)
			hist_text(a, b, op);
	}
	rc = 0;
out:
	side_free(a);
	side_free(b);
	free(a);
	free(b);
	return rc;
}
