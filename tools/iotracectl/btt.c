// SPDX-License-Identifier: GPL-2.0
/*
 * btt's breakdown in stats: Q2D (queued to issued to the device) and D2C
 * (issued to completed) percentiles per operation, per hardware queue
 * and per issuing CPU, and the seek distance and sequential fraction of
 * the requests in issue order.  Exact (nearest-rank over the sorted
 * values), from a compact copy of every record's times.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "btt.h"

int iot_btt_add(struct iot_btt *b, const struct iotrace_record *r)
{
	struct iot_btt_rec *e;

	if (!(r->rflags & IOTRACE_RF_COMPLETE) || !iot_rec_has_lat(r))
		return 0;
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		struct iot_btt_rec *v = realloc(b->v, cap * sizeof(*v));

		if (!v)
			return -2;
		b->v = v;
		b->cap = cap;
	}
	e = &b->v[b->n++];
	e->issue_ns = r->issue_ns;
	e->sector = r->sector;
	e->d2c = r->complete_ns - r->issue_ns;
	e->q2d = r->rflags & IOTRACE_RF_QUEUE_VALID ? r->queue_ns : UINT64_MAX;
	e->bytes = r->bytes;
	e->hwq = r->hwq;
	e->cpu = r->issue_cpu;
	e->op = (uint8_t)iot_stats_slot(r->op);
	return 0;
}

void iot_btt_free(struct iot_btt *b)
{
	free(b->v);
	memset(b, 0, sizeof(*b));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t rank(const uint64_t *v, size_t n, double p)
{
	size_t r = (size_t)ceil(p * n / 100.0);

	if (!n)
		return 0;
	if (r < 1)
		r = 1;
	if (r > n)
		r = n;
	return v[r - 1];
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
		fprintf(fp, "btt breakdown (us; Q2D: queued to issued, D2C: issued to completed):\n");
		for (by = BY_OP; by <= BY_CPU; by++)
			grp_text(fp, head[by], g[by], ng[by], by);
		fprintf(fp, "seeks (issue order, sectors): %llu, mean %.1f, p50 %llu, p90 %llu; sequential %llu (%.1f%%)\n",
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
