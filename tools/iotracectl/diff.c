// SPDX-License-Identifier: GPL-2.0
/*
 * diff A B: two recordings (or rings) side by side, per operation and
 * request size class: counts, IOPS, latency mean, percentiles and
 * maximum, each with B's change relative to A; whether the two latency
 * distributions differ (two-sample Kolmogorov-Smirnov statistic and its
 * asymptotic p-value); then per operation the latency histograms of A
 * and B side by side.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "out.h"
#include "stats.h"

#define SZ_ALL		64	/* the size class "all sizes" */
#define NR_SZ		65
#define DIFF_BAR	20

#define NR_KEYS		(IOT_NR_OPS * NR_SZ)

/*
 * The latencies of a side are kept exactly, for exact percentiles and an
 * exact KS statistic, up to DIFF_EXACT_MAX of them (two per request: its
 * size class and "all"; 8 MB); beyond, in a log-linear histogram per
 * (operation, size class): values below 2^(LH_BITS + 1) ns exact, above
 * 2^LH_BITS buckets per power of two, whose middle stands for them (at
 * most 1/2^(LH_BITS + 1) = 0.2% off), in memory that does not grow with
 * the recording.
 */
#ifndef DIFF_EXACT_MAX
#define DIFF_EXACT_MAX	(1u << 19)
#endif
#define LH_BITS		8
#define LH_COLS		(1u << LH_BITS)
#define LH_ROWS		(64 - LH_BITS + 2)

/* a record's (operation, size class) key and its latency */
struct dkey {
	uint32_t key;
	int has_lat;
	uint64_t lat;
};

/**
 * struct lh - the latencies of one (operation, size class) of one side,
 *	as a log-linear histogram.
 * @row: LH_COLS counts each, allocated when one of its buckets is used.
 * @min: smallest latency (UINT64_MAX: none yet).
 * @max: largest.
 */
struct lh {
	uint64_t *row[LH_ROWS];
	uint64_t min, max;
};

static unsigned int lh_index(uint64_t v)
{
	unsigned int shift;

	if (v < 2 * LH_COLS)
		return (unsigned int)v;
	shift = 63 - __builtin_clzll(v) - LH_BITS;
	return (shift << LH_BITS) + (unsigned int)(v >> shift);
}

/* the values of bucket @i: [*@lo, *@hi] */
static void lh_range(unsigned int i, uint64_t *lo, uint64_t *hi)
{
	unsigned int shift;

	if (i < 2 * LH_COLS) {
		*lo = *hi = i;
		return;
	}
	shift = (i >> LH_BITS) - 1;
	*lo = (uint64_t)(LH_COLS + (i & (LH_COLS - 1))) << shift;
	*hi = *lo + ((1ull << shift) - 1);
}

static int lh_add(struct lh *h, uint64_t v)
{
	unsigned int i = lh_index(v), r = i >> LH_BITS;

	if (!h->row[r]) {
		h->row[r] = calloc(LH_COLS, sizeof(uint64_t));
		if (!h->row[r])
			return -1;
	}
	h->row[r][i & (LH_COLS - 1)]++;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	return 0;
}

static uint64_t lh_count(const struct lh *h, unsigned int i)
{
	const uint64_t *r = h->row[i >> LH_BITS];

	return r ? r[i & (LH_COLS - 1)] : 0;
}

/**
 * struct dcount - the requests of one (operation, size class) of a side.
 * @n: requests.
 * @nl: those with a latency.
 * @sum: the sum of their latencies, ns.
 * @h: their latencies, once the side keeps histograms.
 */
struct dcount {
	uint64_t n, nl, sum;
	struct lh h;
};

/**
 * struct dside - one of A and B.
 * @o: options (filters).
 * @src: the source.
 * @disk: --disk's index in it, or -1.
 * @records: requests that passed the filters.
 * @t0: earliest start.
 * @t1: latest completion (or start).
 * @c: per (operation, size class) key, allocated when seen.
 * @v: (key, latency) twice per record, while exact: its size class and
 *	"all"; NULL once the side keeps histograms (@lh).
 * @n: entries in @v.
 * @cap: room in @v.
 * @lh: the latencies are in @c's histograms.
 * @span_ns: first start to last completion.
 * @hist: latency bins per operation (the bins of stats and plot).
 * @own_disk: @disk was given with the side (A:DISK), not by --disk.
 */
struct dside {
	const struct iot_opts *o;
	struct iot_opts own;
	struct iot_src src;
	int disk;
	uint64_t records, t0, t1;
	struct dcount *c[NR_KEYS];
	struct dkey *v;
	size_t n, cap;
	int lh;
	uint64_t span_ns;
	uint64_t hist[IOT_NR_OPS][IOT_LAT_BINS];
	int own_disk;
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

/* latency @lat of key @key into its histogram: 0, or -1 out of memory */
static int side_lh_add(struct dside *s, uint32_t key, uint64_t lat)
{
	return lh_add(&s->c[key]->h, lat);
}

/* from exact latencies to histograms: 0, or -1 out of memory */
static int side_to_lh(struct dside *s)
{
	size_t i;

	if (s->lh)
		return 0;
	s->lh = 1;
	for (i = 0; i < s->n; i++)
		if (s->v[i].has_lat &&
		    side_lh_add(s, s->v[i].key, s->v[i].lat))
			return -1;
	free(s->v);
	s->v = NULL;
	s->n = 0;
	s->cap = 0;
	return 0;
}

/* one (key, latency) of a record: 0, or -1 out of memory */
static int side_key(struct dside *s, uint32_t key, int lat, uint64_t ns)
{
	struct dcount *c = s->c[key];

	if (!c) {
		c = calloc(1, sizeof(*c));
		s->c[key] = c;
		if (!c)
			return -1;
		c->h.min = UINT64_MAX;
	}
	c->n++;
	c->nl += lat;
	c->sum += ns;
	if (s->lh)
		return lat ? side_lh_add(s, key, ns) : 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 4096;
		struct dkey *v;

		if (s->n >= DIFF_EXACT_MAX)
			return side_to_lh(s) || (lat && side_lh_add(s, key, ns)) ?
			       -1 : 0;
		if (cap > DIFF_EXACT_MAX)
			cap = DIFF_EXACT_MAX;
		v = realloc(s->v, cap * sizeof(*v));
		if (!v)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n].key = key;
	s->v[s->n].has_lat = lat;
	s->v[s->n++].lat = lat ? ns : 0;
	return 0;
}

static int side_add(void *arg, unsigned int disk,
		    const struct iotrace_record *r)
{
	struct dside *s = arg;
	uint32_t op = iot_stats_slot(r->op);
	int lat = iot_rec_has_lat(r);
	uint64_t st = xrec_start(r);
	uint64_t e = r->rflags & IOTRACE_RF_COMPLETE ? r->complete_ns : st;
	uint64_t ns = lat ? r->complete_ns - r->issue_ns : 0;

	if (s->disk >= 0 && (int)disk != s->disk)
		return 0;
	if (!iot_filter(s->o, r))
		return 0;
	s->records++;
	if (st < s->t0)
		s->t0 = st;
	if (e > s->t1)
		s->t1 = e;
	if (side_key(s, op * NR_SZ + size_class(r->bytes), lat, ns) ||
	    side_key(s, op * NR_SZ + SZ_ALL, lat, ns))
		return -2;
	if (lat)
		s->hist[op][iot_lat_bin(ns)]++;
	return 0;
}

/*
 * A side's argument: a DISK or a FILE, or FILE:DISK, one disk of a trace
 * file (its --disk), when FILE:DISK is no file itself but FILE is (or is
 * -, standard input).  Return: the DISK or FILE (@arg, or @path), and in
 * *@disk the disk (NULL: none given).
 */
static const char *side_arg(const char *arg, char *path, size_t len,
			    const char **disk)
{
	const char *c = strrchr(arg, ':');
	struct stat st;

	*disk = NULL;
	if (!c || c == arg || !c[1] || (size_t)(c - arg) >= len ||
	    !stat(arg, &st))
		return arg;
	memcpy(path, arg, c - arg);
	path[c - arg] = 0;
	if (strcmp(path, "-") && stat(path, &st))
		return arg;
	*disk = c + 1;
	return path;
}

/*
 * Read @arg's records that pass the filters, one at a time: counts, the
 * latencies (exact, or histograms beyond DIFF_EXACT_MAX).  Return: 0, or
 * after printing what failed 2 (a --disk @arg does not hold) or 1.
 */
static int side_load(struct dside *s, const struct iot_opts *o,
		     const char *arg)
{
	char err[IOT_ERR_LEN], path[4096];
	const char *disk;
	int ret;

	memset(s, 0, sizeof(*s));
	s->own = *o;
	s->o = &s->own;
	s->disk = -1;
	s->t0 = UINT64_MAX;
	arg = side_arg(arg, path, sizeof(path), &disk);
	s->own_disk = !!disk;
	if (!disk)
		disk = o->disk;
	if (cmd_src_open(&s->src, arg)) {
		s->src.fd = -1;
		return 1;
	}
	/* --from/--to +T: after this side's start */
	cmd_src_times(&s->own, &s->src);
	if (disk) {
		s->disk = cmd_src_disk(&s->src, disk);
		if (s->disk < 0)
			return 2;
	}
	ret = iot_src_read(&s->src, side_add, s, err, sizeof(err));
	if (ret) {
		iot_err("%s", ret == -2 ? "out of memory" : err);
		return 1;
	}
	s->span_ns = s->t1 > s->t0 ? s->t1 - s->t0 : 0;
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_dkey);
	return 0;
}

/* the disks a side keeps, as text: --disk's (A:DISK's), or all */
static void side_disks(const struct dside *s, char *out, size_t len)
{
	if (s->disk >= 0)
		iot_text_str(out, len, s->src.disks[s->disk].name);
	else
		iot_src_disk_list(&s->src, out, len);
}

/*
 * Two sides of other disks (A: sda, B: nvme0n1) compare the devices as
 * much as the runs: said, but for disks given with both sides (A:DISK
 * B:DISK), which is asking for it.
 */
static void sides_disks_differ(const struct dside *a, const struct dside *b)
{
	char da[1024], db[1024];

	if (a->own_disk && b->own_disk)
		return;
	side_disks(a, da, sizeof(da));
	side_disks(b, db, sizeof(db));
	if (!strcmp(da, db))
		return;
	fprintf(stderr,
		"iotracectl: diff: warning: A and B are of different disks (A: %s; B: %s): the changes are the disks' as much as the runs'\n",
		da, db);
}

static void side_free(struct dside *s)
{
	unsigned int i, r;

	for (i = 0; i < NR_KEYS; i++) {
		if (!s->c[i])
			continue;
		for (r = 0; r < LH_ROWS; r++)
			free(s->c[i]->h.row[r]);
		free(s->c[i]);
	}
	free(s->v);
	iot_src_close(&s->src);
}

/**
 * struct dgroup - one (operation, size class) of one side.
 * @n: requests.
 * @lat: their latencies, sorted (requests with one), when exact.
 * @h: their histogram, else (NULL: none).
 * @nl: requests with a latency.
 * @sum: the sum of their latencies, ns.
 */
struct dgroup {
	size_t n;
	const struct dkey *lat;
	const struct lh *h;
	size_t nl;
	uint64_t sum;
};

/* the group of @key in @s starting at *@pos (entries sorted by key) */
static void group_at(const struct dside *s, size_t *pos, uint32_t key,
		     struct dgroup *g)
{
	size_t i = *pos, j;

	memset(g, 0, sizeof(*g));
	if (key < NR_KEYS && s->c[key])
		g->sum = s->c[key]->sum;
	if (s->lh) {
		if (s->c[key]) {
			g->n = s->c[key]->n;
			g->nl = s->c[key]->nl;
			g->h = &s->c[key]->h;
		}
		return;
	}
	if (i >= s->n || s->v[i].key != key)
		return;
	for (j = i; j < s->n && s->v[j].key == key; j++)
		if (s->v[j].has_lat && !g->lat)
			g->lat = &s->v[j];
	g->n = j - i;
	g->nl = g->lat ? (size_t)(&s->v[j] - g->lat) : 0;
	*pos = j;
}

/* the first key at or after @key that @s has, NR_KEYS when none */
static uint32_t next_key(const struct dside *s, size_t pos, uint32_t key)
{
	if (!s->lh)
		return pos < s->n ? s->v[pos].key : NR_KEYS;
	while (key < NR_KEYS && !s->c[key])
		key++;
	return key;
}

/* the latency of rank @r (1 to @g->nl) of a histogram group */
static uint64_t lh_rank(const struct dgroup *g, size_t r)
{
	unsigned int i;
	uint64_t k = 0, lo, hi, v;

	for (i = 0; i < LH_ROWS * LH_COLS; i++) {
		if (!g->h->row[i >> LH_BITS]) {
			i |= LH_COLS - 1;
			continue;
		}
		k += lh_count(g->h, i);
		if (k >= r)
			break;
	}
	lh_range(i, &lo, &hi);
	v = lo + (hi - lo) / 2;
	return v < g->h->min ? g->h->min : v > g->h->max ? g->h->max : v;
}

static uint64_t pct(const struct dgroup *g, double p)
{
	size_t r;

	if (!g->nl)
		return 0;
	r = iot_pct_rank(g->nl, p);	/* stats' nearest rank */
	if (g->h)
		return lh_rank(g, r);
	return g->lat[r - 1].lat;
}

static uint64_t lat_max(const struct dgroup *g)
{
	if (!g->nl)
		return 0;
	return g->h ? g->h->max : g->lat[g->nl - 1].lat;
}

/*
 * KS_D of two histogram groups: the distance of the distributions at the
 * buckets' edges, at most the largest share of one bucket below the
 * exact one (at no edge inside a bucket); exact below 512 ns.
 */
static double ks_stat_lh(const struct dgroup *a, const struct dgroup *b)
{
	uint64_t ka = 0, kb = 0;
	unsigned int i;
	double d = 0, f;

	for (i = 0; i < LH_ROWS * LH_COLS; i++) {
		if (!a->h->row[i >> LH_BITS] && !b->h->row[i >> LH_BITS]) {
			i |= LH_COLS - 1;
			continue;
		}
		ka += lh_count(a->h, i);
		kb += lh_count(b->h, i);
		f = fabs((double)ka / a->nl - (double)kb / b->nl);
		if (f > d)
			d = f;
	}
	return d;
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

	if (lam < 0.001)
		return 1;
	for (j = 1; j <= 100; j++) {
		term = fac * exp(a2 * j * j);
		sum += term;
		if (fabs(term) <= 0.001 * prev ||
		    fabs(term) <= 0.00000001 * sum)
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

/* the numbers of a row compared: count, rate, latency mean, percentiles, max */
enum { M_COUNT, M_IOPS, M_AVG, M_P50, M_P90, M_P99, M_MAX, NR_M };

static const char *const m_text[NR_M] = {
	"count", "IOPS", "avg_us", "p50_us", "p90_us", "p99_us", "max_us",
};

static const char *const m_json[NR_M] = {
	"count", "iops", "avg", "p50", "p90", "p99", "max",
};

static const double m_pct[NR_M] = { 0, 0, 0, 50, 90, 99, 0 };

/*
 * Number @m of group @g of a side whose span is @span_ns (latencies in
 * ns); *@known is 0 for a latency of a group without one.
 */
static double metric(const struct dgroup *g, uint64_t span_ns, int m,
		     int *known)
{
	*known = 1;
	if (m == M_COUNT)
		return (double)g->n;
	if (m == M_IOPS)
		return span_ns ? g->n / (span_ns / 1e9) : 0;
	*known = g->nl > 0;
	if (!g->nl)
		return 0;
	if (m == M_AVG)
		return (double)g->sum / g->nl;
	if (m == M_MAX)
		return (double)lat_max(g);
	return (double)pct(g, m_pct[m]);
}

/*
 * B's change relative to A, in percent, into *@pc: 0 when there is none
 * (A is 0, or a side has no such number), else 1.
 */
static int change(const struct dgroup *ga, uint64_t span_a,
		  const struct dgroup *gb, uint64_t span_b, int m, double *pc)
{
	int ka, kb;
	double a = metric(ga, span_a, m, &ka), b = metric(gb, span_b, m, &kb);

	if (!ka || !kb || a == 0)
		return 0;
	*pc = (b - a) / a * 100;
	return 1;
}

/* number @m of a side as text: microseconds for latencies; "-": none */
static void metric_str(char *out, size_t len, const struct dgroup *g,
		       uint64_t span_ns, int m)
{
	int known;
	double v = metric(g, span_ns, m, &known);

	if (!known)
		snprintf(out, len, "-");
	else if (m == M_COUNT)
		snprintf(out, len, "%zu", g->n);
	else
		snprintf(out, len, "%.1f", m == M_IOPS ? v : v / 1000.0);
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
	/* none: null (CSV: empty) */
	if (!g->nl) {
		static const char *const none[] = {
			"avg", "p50", "p90", "p99", "max",
		};
		size_t i;

		for (i = 0; i < ARRAY_SIZE(none); i++) {
			jw_key(w, none[i]);
			jw_null(w);
		}
	} else {
		jw_kv_float(w, "avg", "%.1f", (double)g->sum / g->nl);
		jw_kv_u64(w, "p50", pct(g, 50));
		jw_kv_u64(w, "p90", pct(g, 90));
		jw_kv_u64(w, "p99", pct(g, 99));
		jw_kv_u64(w, "max", lat_max(g));
	}
	jw_obj_end(w);
	jw_obj_end(w);
}

/* a row's "change": B relative to A in percent per number, or null */
static void change_json(struct iot_jw *w, const struct dgroup *ga,
			uint64_t span_a, const struct dgroup *gb,
			uint64_t span_b)
{
	double pc;
	int m;

	jw_key(w, "change_pct");
	jw_obj_start(w);
	for (m = 0; m < NR_M; m++) {
		jw_key(w, m_json[m]);
		if (change(ga, span_a, gb, span_b, m, &pc))
			jw_float(w, "%.3f", pc);
		else
			jw_null(w);
	}
	jw_obj_end(w);
}

/* a row's lines of text: each number of A and B, and B's change */
static void row_text(const char *op, const char *sz, const struct dgroup *ga,
		     uint64_t span_a, const struct dgroup *gb,
		     uint64_t span_b)
{
	char va[32], vb[32], c[32];
	double pc;
	int m;

	for (m = 0; m < NR_M; m++) {
		metric_str(va, sizeof(va), ga, span_a, m);
		metric_str(vb, sizeof(vb), gb, span_b, m);
		if (change(ga, span_a, gb, span_b, m, &pc))
			snprintf(c, sizeof(c), "%+.1f%%", pc);
		else
			snprintf(c, sizeof(c), "-");
		printf("%-8s %-5s %-7s %12s %12s %10s\n", op, sz, m_text[m], va,
		       vb, c);
	}
}

/**
 * struct dks - a row's Kolmogorov-Smirnov test, for the text's table.
 * @key: the row's (operation, size class).
 * @na: latencies in A.
 * @nb: in B.
 * @d: KS_D.
 * @p: KS_P.
 */
struct dks {
	uint32_t key;
	size_t na, nb;
	double d, p;
};

static void src_json(struct iot_jw *w, const char *k, const char *arg,
		     const struct dside *s)
{
	jw_key(w, k);
	jw_obj_start(w);
	jw_kv_str(w, "source", arg);
	jw_kv_u64(w, "records", s->records);
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

/* the text's table of the rows' KS tests */
static void ks_text(const struct dks *v, size_t n)
{
	char sz[16];
	size_t i;

	if (!n)
		return;
	puts("KS test of the latencies, A vs B (a small KS_P: they differ beyond chance):");
	printf("%-8s %-5s %8s %8s %6s %8s\n", "OP", "SIZE", "LAT_N_A",
	       "LAT_N_B", "KS_D", "KS_P");
	for (i = 0; i < n; i++) {
		size_label(sz, sizeof(sz), v[i].key % NR_SZ);
		printf("%-8s %-5s %8zu %8zu %6.3f %8.3g\n",
		       slot_name(v[i].key / NR_SZ), sz, v[i].na, v[i].nb,
		       v[i].d, v[i].p);
	}
}

int cmd_diff(struct iot_opts *o, int argc, char **argv)
{
	struct dside *a, *b;
	struct dks *ksv = NULL;
	struct iot_jw w;
	size_t pa = 0, pb = 0, nks = 0;
	uint32_t next = 0;
	int rc = 1, op;

	if (argc != 2) {
		iot_err("diff needs two arguments, A and B (DISK or FILE each)");
		return 2;
	}
	a = calloc(1, sizeof(*a));
	b = calloc(1, sizeof(*b));
	ksv = calloc(NR_KEYS, sizeof(*ksv));
	if (!a || !b || !ksv) {
		iot_err("out of memory");
		free(a);
		free(b);
		free(ksv);
		return 1;
	}
	rc = side_load(a, o, argv[0]);
	if (!rc)
		rc = side_load(b, o, argv[1]);
	if (rc)
		goto out;
	rc = 1;
	sides_disks_differ(a, b);
	/* both exact, or both histograms: KS_D of like with like */
	if (a->lh != b->lh && (side_to_lh(a) || side_to_lh(b))) {
		iot_err("out of memory");
		goto out;
	}
	if (o->fmt == FMT_JSON) {
		jw_init(&w, stdout);
		jw_obj_start(&w);
		src_json(&w, "a", argv[0], a);
		src_json(&w, "b", argv[1], b);
		jw_key(&w, "rows");
		jw_arr_start(&w);
	} else {
		printf("A: %s, %zu requests over %.6f s\nB: %s, %zu requests over %.6f s\n",
		       argv[0], (size_t)a->records, a->span_ns / 1e9, argv[1],
		       (size_t)b->records,
		       b->span_ns / 1e9);
		printf("%-8s %-5s %-7s %12s %12s %10s\n", "OP", "SIZE", "WHAT",
		       "A", "B", "CHANGE");
	}
	/* the union of the (op, size) keys, in key order */
	for (;;) {
		uint32_t ka = next_key(a, pa, next), kb = next_key(b, pb, next);
		uint32_t key = ka < kb ? ka : kb;
		struct dgroup ga, gb;
		char sz[16];
		double d = 0, p = 1;
		int ks = 0;

		if (key >= NR_KEYS)
			break;
		next = key + 1;
		group_at(a, &pa, key, &ga);
		group_at(b, &pb, key, &gb);
		if (ga.nl && gb.nl) {
			ks = 1;
			d = ga.h ? ks_stat_lh(&ga, &gb) : ks_stat(&ga, &gb);
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
			change_json(&w, &ga, a->span_ns, &gb, b->span_ns);
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
		row_text(slot_name(key / NR_SZ), sz, &ga, a->span_ns, &gb,
			 b->span_ns);
		if (ks) {
			ksv[nks].key = key;
			ksv[nks].na = ga.nl;
			ksv[nks].nb = gb.nl;
			ksv[nks].d = d;
			ksv[nks++].p = p;
		}
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
		ks_text(ksv, nks);
		for (op = 0; op < IOT_NR_OPS; op++)
			hist_text(a, b, op);
	}
	rc = 0;
out:
	side_free(a);
	side_free(b);
	free(a);
	free(b);
	free(ksv);
	return rc;
}
