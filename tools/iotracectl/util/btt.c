// SPDX-License-Identifier: GPL-2.0
/*
 * btt's breakdown in stats: Q2D (queued to issued to the device) and D2C
 * (issued to completed) percentiles per operation, per hardware queue
 * and per issuing CPU, and the seek distance and sequential fraction of
 * the requests in issue order.  Percentiles are those of the main
 * table's histogram (stats.c: nearest rank, within 1/2048 of the exact
 * value), from a compact copy of every record's times up to
 * IOT_BTT_EXACT requests; beyond, in bounded memory: per group the same
 * histogram, and the seeks of the requests put in issue order through a
 * window of BTT_WIN of them (pq.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "btt.h"
#include "pq.h"

#define BTT_WIN		16384

/* a histogram's buckets (those of struct iot_hist) in pages, as used */
#define BH_SUB		IOT_HIST_SUB_BITS
#define BH_PAGE0	(1u << BH_SUB)		/* values below 2^BH_SUB */
#define BH_PAGE		(1u << (BH_SUB - 1))	/* a power of two above */
#define BH_PAGES	(1 + 64 - BH_SUB)

/*
 * A histogram of the streaming mode: the buckets of struct iot_hist, so
 * that a percentile is the one the exact mode and the main table give
 * (within 1/2048 of the exact value), its pages allocated as values
 * come (latencies span a few powers of two).
 */
struct btt_h {
	uint64_t n, min, max;
	uint64_t *page[BH_PAGES];
};

/**
 * struct btt_g - a group's histograms (streaming mode).
 * @n: requests.
 * @d2c: their D2C.
 * @q2d: their Q2D (those the kernel had).
 */
struct btt_g {
	uint64_t n;
	struct btt_h d2c, q2d;
};

/* the seeks (streaming mode) */
struct btt_seekh {
	uint64_t seq;
	double sum;
	struct btt_h d;
};

static int bh_add(struct btt_h *h, uint64_t v)
{
	unsigned int i = iot_hist_index(v), pg, off;

	if (i < BH_PAGE0) {
		pg = 0;
		off = i;
	} else {
		pg = 1 + (i - BH_PAGE0) / BH_PAGE;
		off = (i - BH_PAGE0) % BH_PAGE;
	}
	if (!h->page[pg]) {
		h->page[pg] = calloc(pg ? BH_PAGE : BH_PAGE0, sizeof(uint64_t));
		if (!h->page[pg])
			return -2;
	}
	if (!h->n || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->n++;
	h->page[pg][off]++;
	return 0;
}

static void bh_free(struct btt_h *h)
{
	unsigned int pg;

	for (pg = 0; pg < BH_PAGES; pg++)
		free(h->page[pg]);
}

/* nearest rank, as iot_hist_percentile() gives it */
static uint64_t bh_rank(const struct btt_h *h, double p)
{
	uint64_t r, seen = 0;
	unsigned int pg, k, n;

	if (!h->n)
		return 0;
	r = iot_pct_rank(h->n, p);
	if (r == h->n)
		return h->max;
	if (r == 1)
		return h->min;
	for (pg = 0; pg < BH_PAGES; pg++) {
		if (!h->page[pg])
			continue;
		n = pg ? BH_PAGE : BH_PAGE0;
		for (k = 0; k < n; k++) {
			seen += h->page[pg][k];
			if (seen >= r) {
				unsigned int i = pg ? BH_PAGE0 +
					(pg - 1) * BH_PAGE + k : k;
				uint64_t low, w, v;

				iot_hist_bucket(i, &low, &w);
				v = low + w / 2;
				return v < h->min ? h->min :
				       v > h->max ? h->max : v;
			}
		}
	}
	return h->max;
}

static int win_tie(void *arg, const struct iot_pq_ent *a,
		   const struct iot_pq_ent *b)
{
	(void)arg;
	return a->aux < b->aux;
}

/* the next request in issue order: its seek */
static int seek_visit(struct iot_btt *b, const struct iot_btt_rec *e)
{
	uint64_t x;

	if (e->sector == UINT64_MAX || !e->bytes)
		return 0;
	if (b->have) {
		x = e->sector > b->end ? e->sector - b->end :
		    b->end - e->sector;
		if (bh_add(&b->seek->d, x))
			return -2;
		b->seek->sum += x;
		b->seek->seq += !x;
	}
	b->have = 1;
	b->end = e->sector + e->bytes / 512;
	return 0;
}

/* the earliest request of the window out, to the seeks */
static int win_out(struct iot_btt *b)
{
	uint32_t slot = iot_pq_top(b->win)->slot;

	iot_pq_pop(b->win);
	b->wfree[b->nwfree++] = slot;
	return seek_visit(b, &b->wv[slot]);
}

static unsigned int key_of(const struct iot_btt_rec *e, int by);

/* a request in the streaming mode: into its groups and the window */
static int stream_add(struct iot_btt *b, const struct iot_btt_rec *e)
{
	uint32_t slot;
	int by;

	for (by = 0; by < 3; by++) {
		unsigned int k = key_of(e, by);
		struct btt_g *g;

		if (k >= b->ng[by]) {
			unsigned int n = k + 1 > 2 * b->ng[by] ? k + 1 :
					 2 * b->ng[by];
			struct btt_g **v = realloc(b->g[by], n * sizeof(*v));

			if (!v)
				return -2;
			memset(v + b->ng[by], 0,
			       (n - b->ng[by]) * sizeof(*v));
			b->g[by] = v;
			b->ng[by] = n;
		}
		g = b->g[by][k];
		if (!g) {
			g = calloc(1, sizeof(*g));
			if (!g)
				return -2;
			b->g[by][k] = g;
		}
		g->n++;
		if (bh_add(&g->d2c, e->d2c) ||
		    (e->q2d != UINT64_MAX && bh_add(&g->q2d, e->q2d)))
			return -2;
	}
	if (b->win->count == BTT_WIN && win_out(b))
		return -2;
	slot = b->wfree[--b->nwfree];
	b->wv[slot] = *e;
	iot_pq_push(b->win, slot, e->issue_ns, e->sector);
	return 0;
}

/* past IOT_BTT_EXACT requests: what was kept folded into histograms */
static int stream_start(struct iot_btt *b)
{
	size_t i;

	/* zeroed: freed as a queue even if what follows fails */
	b->win = calloc(1, sizeof(*b->win));
	b->wv = malloc(BTT_WIN * sizeof(*b->wv));
	b->wfree = malloc(BTT_WIN * sizeof(*b->wfree));
	b->seek = calloc(1, sizeof(*b->seek));
	if (!b->win || !b->wv || !b->wfree || !b->seek)
		return -2;
	iot_pq_init(b->win, win_tie, NULL);
	if (iot_pq_reserve(b->win, BTT_WIN))
		return -2;
	for (i = 0; i < BTT_WIN; i++)
		b->wfree[i] = (uint32_t)(BTT_WIN - 1 - i);
	b->nwfree = BTT_WIN;
	b->stream = 1;
	for (i = 0; i < b->n; i++)
		if (stream_add(b, &b->v[i]))
			return -2;
	free(b->v);
	b->v = NULL;
	b->n = 0;
	b->cap = 0;
	return 0;
}

int iot_btt_add(struct iot_btt *b, const struct iotrace_record *r)
{
	struct iot_btt_rec *e, x;

	/* D2C: issued requests only (an empty PREFLUSH write has no D) */
	if ((r->rflags & IOTRACE_RF_NO_ISSUE) || !iot_rec_has_lat(r))
		return 0;
	if (!b->stream && b->n == IOT_BTT_EXACT && stream_start(b))
		return -2;
	if (b->stream) {
		e = &x;
		goto fill;
	}
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		struct iot_btt_rec *v = realloc(b->v, cap * sizeof(*v));

		if (!v)
			return -2;
		b->v = v;
		b->cap = cap;
	}
	e = &b->v[b->n++];
fill:
	e->issue_ns = r->issue_ns;
	e->sector = r->sector;
	e->d2c = r->complete_ns - r->issue_ns;
	e->q2d = r->rflags & IOTRACE_RF_QUEUE_VALID ? r->queue_ns : UINT64_MAX;
	e->bytes = r->bytes;
	e->hwq = r->hwq;
	e->cpu = r->issue_cpu;
	e->op = (uint8_t)iot_stats_slot(r->op);
	return b->stream ? stream_add(b, e) : 0;
}

void iot_btt_free(struct iot_btt *b)
{
	unsigned int by, k;

	free(b->v);
	for (by = 0; by < 3; by++) {
		for (k = 0; k < b->ng[by]; k++) {
			if (!b->g[by][k])
				continue;
			bh_free(&b->g[by][k]->d2c);
			bh_free(&b->g[by][k]->q2d);
			free(b->g[by][k]);
		}
		free(b->g[by]);
	}
	if (b->win)
		iot_pq_free(b->win);
	free(b->win);
	free(b->wv);
	free(b->wfree);
	if (b->seek)
		bh_free(&b->seek->d);
	free(b->seek);
	memset(b, 0, sizeof(*b));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* every percentile of the report by the histogram's method (stats.c) */
static uint64_t rank(const uint64_t *v, size_t n, double p)
{
	return iot_pct_sorted(v, n, p);
}

/**
 * struct btt_grp - the Q2D and D2C values of one group, sorted.
 * @key: operation slot, hardware queue or CPU.
 * @n: requests.
 * @d2c: their D2C.
 * @q2d: their Q2D (those the kernel had).
 * @nq: entries in @q2d.
 */
struct btt_grp {
	unsigned int key;
	size_t n, nq;
	uint64_t *d2c, *q2d;
};

enum { BY_OP, BY_HWQ, BY_CPU };

static unsigned int key_of(const struct iot_btt_rec *e, int by)
{
	return by == BY_OP ? e->op : by == BY_HWQ ? e->hwq : e->cpu;
}

/* groups by @by, in key order; NULL on allocation failure */
static struct btt_grp *groups(const struct iot_btt *b, int by,
			      unsigned int *ng)
{
	unsigned int max = 0, k, n = 0;
	struct btt_grp *g;
	size_t *cnt, i;

	for (i = 0; i < b->n; i++)
		if (key_of(&b->v[i], by) > max)
			max = key_of(&b->v[i], by);
	cnt = calloc(max + 1, sizeof(*cnt));
	g = calloc(max + 1, sizeof(*g));
	if (!cnt || !g)
		goto fail;
	for (i = 0; i < b->n; i++)
		cnt[key_of(&b->v[i], by)]++;
	for (k = 0; k <= max; k++) {
		if (!cnt[k])
			continue;
		g[n].key = k;
		g[n].d2c = malloc(cnt[k] * sizeof(uint64_t));
		g[n].q2d = malloc(cnt[k] * sizeof(uint64_t));
		if (!g[n].d2c || !g[n].q2d) {
			n++;
			goto fail;
		}
		cnt[k] = n++;	/* now the group index */
	}
	for (i = 0; i < b->n; i++) {
		const struct iot_btt_rec *e = &b->v[i];
		struct btt_grp *x = &g[cnt[key_of(e, by)]];

		x->d2c[x->n++] = e->d2c;
		if (e->q2d != UINT64_MAX)
			x->q2d[x->nq++] = e->q2d;
	}
	for (k = 0; k < n; k++) {
		qsort(g[k].d2c, g[k].n, sizeof(uint64_t), cmp_u64);
		qsort(g[k].q2d, g[k].nq, sizeof(uint64_t), cmp_u64);
	}
	free(cnt);
	*ng = n;
	return g;
fail:
	for (k = 0; g && k < n; k++) {
		free(g[k].d2c);
		free(g[k].q2d);
	}
	free(g);
	free(cnt);
	return NULL;
}

static void groups_free(struct btt_grp *g, unsigned int n)
{
	unsigned int k;

	for (k = 0; k < n; k++) {
		free(g[k].d2c);
		free(g[k].q2d);
	}
	free(g);
}

static int cmp_issue(const void *a, const void *b)
{
	const struct iot_btt_rec *x = a, *y = b;

	if (x->issue_ns != y->issue_ns)
		return x->issue_ns < y->issue_ns ? -1 : 1;
	return x->sector < y->sector ? -1 : x->sector > y->sector;
}

/**
 * struct btt_seek - seeks between requests in issue order.
 * @n: distances (requests with a media address and a length, after the
 *	first).
 * @seq: distances of 0: the request starts where the previous ended.
 * @mean: mean distance, sectors.
 * @p50: median distance.
 * @p90: 90th percentile.
 */
struct btt_seek {
	uint64_t n, seq, p50, p90;
	double mean;
};

static int seeks(struct iot_btt *b, struct btt_seek *s)
{
	uint64_t *d, end = 0, have = 0;
	double sum = 0;
	size_t i;

	memset(s, 0, sizeof(*s));
	/* none issued and completed: no array, and qsort() must not see NULL */
	if (b->n)
		qsort(b->v, b->n, sizeof(*b->v), cmp_issue);
	d = malloc((b->n ? b->n : 1) * sizeof(*d));
	if (!d)
		return -1;
	for (i = 0; i < b->n; i++) {
		const struct iot_btt_rec *e = &b->v[i];

		if (e->sector == UINT64_MAX || !e->bytes)
			continue;
		if (have) {
			uint64_t x = e->sector > end ? e->sector - end :
				     end - e->sector;

			d[s->n++] = x;
			sum += x;
			s->seq += !x;
		}
		have = 1;
		end = e->sector + e->bytes / 512;
	}
	qsort(d, s->n, sizeof(*d), cmp_u64);
	s->mean = s->n ? sum / s->n : 0;
	s->p50 = rank(d, s->n, 50);
	s->p90 = rank(d, s->n, 90);
	free(d);
	return 0;
}

static const char *slot_name(unsigned int k)
{
	return k == IOT_NR_OPS - 1 ? "other" : iot_op_name(k);
}

static void grp_text(FILE *fp, const char *what, const struct btt_grp *g,
		     unsigned int n, int by)
{
	unsigned int k;

	fprintf(fp, "%-8s %9s %9s %9s %9s %9s %9s %9s\n", what, "COUNT",
		"Q2D_P50", "Q2D_P90", "Q2D_P99", "D2C_P50", "D2C_P90",
		"D2C_P99");
	for (k = 0; k < n; k++) {
		char name[16];

		if (by == BY_OP)
			snprintf(name, sizeof(name), "%s", slot_name(g[k].key));
		else
			snprintf(name, sizeof(name), "%u", g[k].key);
		fprintf(fp, "%-8s %9zu", name, g[k].n);
		if (g[k].nq)
			fprintf(fp, " %9.1f %9.1f %9.1f",
				rank(g[k].q2d, g[k].nq, 50) / 1e3,
				rank(g[k].q2d, g[k].nq, 90) / 1e3,
				rank(g[k].q2d, g[k].nq, 99) / 1e3);
		else
			fprintf(fp, " %9s %9s %9s", "-", "-", "-");
		fprintf(fp, " %9.1f %9.1f %9.1f\n",
			rank(g[k].d2c, g[k].n, 50) / 1e3,
			rank(g[k].d2c, g[k].n, 90) / 1e3,
			rank(g[k].d2c, g[k].n, 99) / 1e3);
	}
}

static void pcts_json(struct iot_jw *w, const char *k, const uint64_t *v,
		      size_t n)
{
	jw_key(w, k);
	if (!n) {
		jw_null(w);
		return;
	}
	jw_obj_start(w);
	jw_kv_u64(w, "n", n);
	jw_kv_u64(w, "p50", rank(v, n, 50));
	jw_kv_u64(w, "p90", rank(v, n, 90));
	jw_kv_u64(w, "p99", rank(v, n, 99));
	jw_kv_u64(w, "max", v[n - 1]);
	jw_obj_end(w);
}

static void grp_json(struct iot_jw *w, const char *what,
		     const struct btt_grp *g, unsigned int n, int by)
{
	unsigned int k;

	jw_key(w, what);
	jw_obj_start(w);
	for (k = 0; k < n; k++) {
		char name[16];

		if (by == BY_OP)
			snprintf(name, sizeof(name), "%s", slot_name(g[k].key));
		else
			snprintf(name, sizeof(name), "%u", g[k].key);
		jw_key(w, name);
		jw_obj_start(w);
		jw_kv_u64(w, "count", g[k].n);
		pcts_json(w, "q2d_ns", g[k].q2d, g[k].nq);
		pcts_json(w, "d2c_ns", g[k].d2c, g[k].n);
		jw_obj_end(w);
	}
	jw_obj_end(w);
}

static void bh_json(struct iot_jw *w, const char *k, const struct btt_h *h)
{
	jw_key(w, k);
	if (!h->n) {
		jw_null(w);
		return;
	}
	jw_obj_start(w);
	jw_kv_u64(w, "n", h->n);
	jw_kv_u64(w, "p50", bh_rank(h, 50));
	jw_kv_u64(w, "p90", bh_rank(h, 90));
	jw_kv_u64(w, "p99", bh_rank(h, 99));
	jw_kv_u64(w, "max", h->max);
	jw_obj_end(w);
}

/* the breakdown of the streaming mode, in the form of the exact one */
static int stream_report(struct iot_btt *b, FILE *fp, struct iot_jw *w)
{
	static const char *const what[] = { "ops", "hwq", "cpu" };
	static const char *const head[] = { "OP", "HWQ", "CPU" };
	const struct btt_h *d = &b->seek->d;
	unsigned int by, k;
	char name[16];

	while (b->win->count)
		if (win_out(b))
			return -1;
	if (w) {
		jw_obj_start(w);
		for (by = BY_OP; by <= BY_CPU; by++) {
			jw_key(w, what[by]);
			jw_obj_start(w);
			for (k = 0; k < b->ng[by]; k++) {
				const struct btt_g *g = b->g[by][k];

				if (!g)
					continue;
				if (by == BY_OP)
					snprintf(name, sizeof(name), "%s",
						 slot_name(k));
				else
					snprintf(name, sizeof(name), "%u", k);
				jw_key(w, name);
				jw_obj_start(w);
				jw_kv_u64(w, "count", g->n);
				bh_json(w, "q2d_ns", &g->q2d);
				bh_json(w, "d2c_ns", &g->d2c);
				jw_obj_end(w);
			}
			jw_obj_end(w);
		}
		jw_key(w, "seek");
		jw_obj_start(w);
		jw_kv_u64(w, "n", d->n);
		jw_kv_float(w, "mean_sectors", "%.1f",
			    d->n ? b->seek->sum / d->n : 0);
		jw_kv_u64(w, "p50_sectors", bh_rank(d, 50));
		jw_kv_u64(w, "p90_sectors", bh_rank(d, 90));
		jw_kv_u64(w, "sequential", b->seek->seq);
		jw_kv_float(w, "sequential_fraction", "%.4f",
			    d->n ? (double)b->seek->seq / d->n : 0);
		jw_obj_end(w);
		jw_key(w, "exact");
		jw_bool(w, 0);
		jw_obj_end(w);
		return 0;
	}
	fprintf(fp, "btt breakdown (us; Q2D: queued to issued, D2C: issued to completed):\n");
	for (by = BY_OP; by <= BY_CPU; by++) {
		fprintf(fp, "%-8s %9s %9s %9s %9s %9s %9s %9s\n", head[by],
			"COUNT", "Q2D_P50", "Q2D_P90", "Q2D_P99", "D2C_P50",
			"D2C_P90", "D2C_P99");
		for (k = 0; k < b->ng[by]; k++) {
			const struct btt_g *g = b->g[by][k];

			if (!g)
				continue;
			if (by == BY_OP)
				snprintf(name, sizeof(name), "%s", slot_name(k));
			else
				snprintf(name, sizeof(name), "%u", k);
			fprintf(fp, "%-8s %9llu", name,
				(unsigned long long)g->n);
			if (g->q2d.n)
				fprintf(fp, " %9.1f %9.1f %9.1f",
					bh_rank(&g->q2d, 50) / 1e3,
					bh_rank(&g->q2d, 90) / 1e3,
					bh_rank(&g->q2d, 99) / 1e3);
			else
				fprintf(fp, " %9s %9s %9s", "-", "-", "-");
			fprintf(fp, " %9.1f %9.1f %9.1f\n",
				bh_rank(&g->d2c, 50) / 1e3,
				bh_rank(&g->d2c, 90) / 1e3,
				bh_rank(&g->d2c, 99) / 1e3);
		}
	}
	fprintf(fp,
		"seeks (issue order, sectors): %llu, mean %.1f, p50 %llu, p90 %llu; sequential %llu (%.1f%%)\n",
		(unsigned long long)d->n, d->n ? b->seek->sum / d->n : 0,
		(unsigned long long)bh_rank(d, 50),
		(unsigned long long)bh_rank(d, 90),
		(unsigned long long)b->seek->seq,
		d->n ? 100.0 * b->seek->seq / d->n : 0);
	fprintf(fp,
		"(more than %u requests: seeks through a window of %u requests in issue order)\n",
		IOT_BTT_EXACT, BTT_WIN);
	return 0;
}

/**
 * iot_btt_report() - the breakdown as text (@w NULL) or as the fields of
 * a "btt" object in @w.
 * @b: the records (sorted by issue time on return).
 * @fp: text output.
 * @w: JSON writer, at a key's value, or NULL.
 *
 * Return: 0, or -1 when out of memory (said).
 */
int iot_btt_report(struct iot_btt *b, FILE *fp, struct iot_jw *w)
{
	static const char *const what[] = { "ops", "hwq", "cpu" };
	static const char *const head[] = { "OP", "HWQ", "CPU" };
	struct btt_grp *g[3] = { NULL };
	unsigned int ng[3] = { 0 };
	struct btt_seek s;
	int by, rc = -1;

	if (b->stream) {
		if (stream_report(b, fp, w)) {
			iot_err("out of memory");
			return -1;
		}
		return 0;
	}
	for (by = BY_OP; by <= BY_CPU; by++) {
		g[by] = groups(b, by, &ng[by]);
		if (!g[by])
			goto out;
	}
	if (seeks(b, &s))
		goto out;
	if (w) {
		jw_obj_start(w);
		for (by = BY_OP; by <= BY_CPU; by++)
			grp_json(w, what[by], g[by], ng[by], by);
		jw_key(w, "seek");
		jw_obj_start(w);
		jw_kv_u64(w, "n", s.n);
		jw_kv_float(w, "mean_sectors", "%.1f", s.mean);
		jw_kv_u64(w, "p50_sectors", s.p50);
		jw_kv_u64(w, "p90_sectors", s.p90);
		jw_kv_u64(w, "sequential", s.seq);
		jw_kv_float(w, "sequential_fraction", "%.4f",
			    s.n ? (double)s.seq / s.n : 0);
		jw_obj_end(w);
		jw_obj_end(w);
	} else {
		fprintf(fp,
			"btt breakdown (us; Q2D: queued to issued, D2C: issued to completed):\n");
		for (by = BY_OP; by <= BY_CPU; by++)
			grp_text(fp, head[by], g[by], ng[by], by);
		fprintf(fp,
			"seeks (issue order, sectors): %llu, mean %.1f, p50 %llu, p90 %llu; sequential %llu (%.1f%%)\n",
			(unsigned long long)s.n, s.mean,
			(unsigned long long)s.p50, (unsigned long long)s.p90,
			(unsigned long long)s.seq,
			s.n ? 100.0 * s.seq / s.n : 0);
	}
	rc = 0;
out:
	for (by = BY_OP; by <= BY_CPU; by++)
		if (g[by])
			groups_free(g[by], ng[by]);
	if (rc)
		iot_err("out of memory");
	return rc;
}
