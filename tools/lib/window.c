// SPDX-License-Identifier: GPL-2.0
/*
 * The reordering window of the readers (show, export, plot): records of a
 * trace file's merged streams come nearly in order -- a nested completion
 * takes a later sequence number with an earlier time, a part's issue order
 * is not its completion order -- and are put in order through a window of
 * a bounded number of records: a record leaves once more than @cap came
 * after it, the earliest of the window first.
 *
 * A record that is not before the last one that came in order goes to
 * the end of a FIFO (input in order, e.g. show's completion order of a
 * file the recorder wrote: nearly every record).  The others (export's
 * start order of the same file: a record's place is some hundreds of
 * records back) go to time buckets (bq.c).  A record the buckets do not
 * take (before their range, beyond it, or into a crowded bucket) goes to
 * pq.c: sorted runs whose first records are in a small heap.  The
 * earliest of the three firsts leaves.  Keys are 64-bit times: they order
 * almost every pair without touching the records, the full comparison
 * breaks ties, so the order out is the order of (key, full comparison)
 * whatever structure held a record.  A record that leaves is handed out
 * one call later, its memory fetched into the cache meanwhile: it was
 * written @cap records before (2.5 MB for export's window), and reading
 * it was a quarter of export -f blktrace's CPU.
 * Records are copied into @cap + 3 slots (the window's, one coming in,
 * the one leaving and the one handed out), so the one handed out stays
 * valid until the next call.
 */
#include <stdlib.h>
#include <string.h>
#include "window.h"

/* two entries of the same key: the full comparison of their records */
static int win_tie(void *arg, const struct iot_pq_ent *a,
		   const struct iot_pq_ent *b)
{
	const struct iot_win *w = arg;

	return w->cmp(&w->v[a->slot], &w->v[b->slot]) < 0;
}

/* two records of the same key in the buckets: the full comparison */
static int win_btie(void *arg, uint32_t a, uint32_t b)
{
	const struct iot_win *w = arg;

	return w->cmp(&w->v[a], &w->v[b]) < 0;
}

/**
 * iot_win_init() - set up a window.
 * @w: the window (not moved while in use).
 * @cap: records held before the earliest leaves; 0: all of them (a ring,
 *	which comes part after part), the storage grows.
 * @key: the primary sort key of a record.
 * @cmp: the full order, consistent with @key.
 *
 * Return: 0, or -1 out of memory.
 */
int iot_win_init(struct iot_win *w, size_t cap,
		 uint64_t (*key)(const struct xrec *),
		 int (*cmp)(const void *, const void *))
{
	size_t n = cap ? cap + 3 : 4096;

	memset(w, 0, sizeof(*w));
	w->cap = cap ? cap : SIZE_MAX;
	w->key = key;
	w->cmp = cmp;
	iot_pq_init(&w->pq, win_tie, w);
	w->v = malloc(n * sizeof(*w->v));
	w->free = malloc(n * sizeof(*w->free));
	w->fifo = malloc(n * sizeof(*w->fifo));
	if (!w->v || !w->free || !w->fifo || iot_pq_reserve(&w->pq, n) ||
	    iot_bq_init(&w->bq, win_btie, w, &w->pq) ||
	    iot_bq_reserve(&w->bq, n)) {
		iot_win_free(w);
		return -1;
	}
	w->slots = n;
	return 0;
}

void iot_win_free(struct iot_win *w)
{
	free(w->v);
	free(w->free);
	free(w->fifo);
	iot_bq_free(&w->bq);
	iot_pq_free(&w->pq);
	memset(w, 0, sizeof(*w));
}

/* whether the record of (@ka, @sa) goes before that of (@kb, @sb) */
static inline int win_less(const struct iot_win *w, uint64_t ka, uint32_t sa,
			   uint64_t kb, uint32_t sb)
{
	if (ka != kb)
		return ka < kb;
	return w->cmp(&w->v[sa], &w->v[sb]) < 0;
}

/* the @i-th entry of the FIFO (@i < @w->slots) */
static inline struct iot_win_ent *fifo_at(const struct iot_win *w, size_t i)
{
	size_t k = w->fhead + i;

	return &w->fifo[k >= w->slots ? k - w->slots : k];
}

/* where the earliest record is */
enum { FROM_FIFO, FROM_BUCKET, FROM_PQ };

/* the slot of the earliest record (one is there), where it is, its key */
static inline uint32_t win_first(struct iot_win *w, int *from, uint64_t *k)
{
	uint32_t slot = 0;
	uint64_t key = 0;

	*from = -1;
	if (w->fn) {
		slot = w->fifo[w->fhead].slot;
		key = w->fifo[w->fhead].key;
		*from = FROM_FIFO;
	}
	if (w->bq.count) {
		uint32_t b = iot_bq_first(&w->bq);

		if (*from < 0 || win_less(w, w->bq.node[b].key, b, key, slot)) {
			slot = b;
			key = w->bq.node[b].key;
			*from = FROM_BUCKET;
		}
	}
	if (w->pq.count) {
		const struct iot_pq_ent *t = iot_pq_top(&w->pq);

		if (*from < 0 || win_less(w, t->key, t->slot, key, slot)) {
			slot = t->slot;
			key = t->key;
			*from = FROM_PQ;
		}
	}
	*k = key;
	return slot;
}

/*
 * The record that leaves next into the cache: a record leaves in a time
 * order unrelated to the order of its slot (show's completion order of
 * records that came in issue order), and would be read from memory when
 * printed.
 */
static __always_inline void slot_prefetch(const struct iot_win *w,
					  uint32_t slot)
{
	const char *p = (const char *)&w->v[slot];

	__builtin_prefetch(p);
	__builtin_prefetch(p + 64);
	__builtin_prefetch(p + sizeof(struct xrec) - 1);
}

static __always_inline void
win_prefetch(const struct iot_win *w)
{
	if (w->pq.count)
		slot_prefetch(w, iot_pq_top(&w->pq)->slot);
}

/* the earliest record out of the window (one is there): its slot */
static uint32_t win_pop(struct iot_win *w)
{
	int from;
	uint64_t key;
	uint32_t slot = win_first(w, &from, &key);

	if (from == FROM_FIFO) {
		w->fhead = fifo_at(w, 1) - w->fifo;
		w->fn--;
	} else if (from == FROM_BUCKET) {
		iot_bq_pop(&w->bq, slot);
	} else {
		iot_pq_pop(&w->pq);
		win_prefetch(w);
	}
	iot_bq_left(&w->bq, key);
	return slot;
}

/*
 * @slot (or none: UINT32_MAX) is the record that left: staged, its memory
 * fetched; the one staged before is handed out (NULL: none), and the one
 * handed out before goes.
 */
static const struct xrec *win_stage(struct iot_win *w, uint32_t slot)
{
	if (w->nout) {
		w->free[w->nfree++] = w->out;
		w->nout = 0;
	}
	if (w->nstaged) {
		w->out = w->staged;
		w->nout = 1;
		w->nstaged = 0;
	}
	if (slot != UINT32_MAX) {
		w->staged = slot;
		w->nstaged = 1;
		slot_prefetch(w, slot);
	}
	return w->nout ? &w->v[w->out] : NULL;
}

/* @w->fifo as a ring of @n entries, its entries first (in order) */
static int fifo_grow(struct iot_win *w, size_t n)
{
	struct iot_win_ent *f = malloc(n * sizeof(*f));
	size_t i;

	if (!f)
		return -1;
	for (i = 0; i < w->fn; i++)
		f[i] = w->fifo[(w->fhead + i) % w->slots];
	free(w->fifo);
	w->fifo = f;
	w->fhead = 0;
	return 0;
}

/* more slots for an unbounded window */
static int win_grow(struct iot_win *w)
{
	size_t n = w->slots * 2;
	struct xrec *v = realloc(w->v, n * sizeof(*v));
	uint32_t *f;

	if (!v)
		return -1;
	w->v = v;
	f = realloc(w->free, n * sizeof(*f));
	if (!f)
		return -1;
	w->free = f;
	if (iot_pq_reserve(&w->pq, n) || fifo_grow(w, n) ||
	    iot_bq_reserve(&w->bq, n))
		return -1;
	w->slots = n;
	return 0;
}

/**
 * iot_win_push() - a record into the window.
 * @w: the window.
 * @disk: its disk index.
 * @r: the record (copied).
 * @out: set to the earliest record when one leaves (valid until the next
 *	call), else NULL; it is handed out one call after it left.
 *
 * Return: 0, or -1 out of memory.
 */
int iot_win_push(struct iot_win *w, unsigned int disk,
		 const struct iotrace_record *r, const struct xrec **out)
{
	struct iot_win_ent *last;
	uint32_t slot;
	uint64_t key;

	*out = NULL;
	if (w->nfree) {
		slot = w->free[--w->nfree];
	} else {
		if (w->used == w->slots && win_grow(w))
			return -1;
		slot = (uint32_t)w->used++;
	}
	w->v[slot].r = *r;
	w->v[slot].disk = disk;
	key = w->key(&w->v[slot]);
	last = w->fn ? fifo_at(w, w->fn - 1) : NULL;
	if (!last || !win_less(w, key, slot, last->key, last->slot)) {
		/* in order: at the end of the FIFO */
		last = fifo_at(w, w->fn);
		last->key = key;
		last->slot = slot;
		w->fn++;
	} else if (iot_bq_push(&w->bq, slot, key, 0)) {
		iot_pq_push(&w->pq, slot, key, 0);
		if (w->pq.count == 1)
			win_prefetch(w);
	}
	if (w->pq.count + w->fn + w->bq.count > w->cap)
		*out = win_stage(w, win_pop(w));
	return 0;
}

/* The earliest record left (at the end), NULL when none. */
const struct xrec *iot_win_pop(struct iot_win *w)
{
	const struct xrec *e;

	do {
		if (!w->pq.count && !w->fn && !w->bq.count)
			return win_stage(w, UINT32_MAX);
		e = win_stage(w, win_pop(w));
	} while (!e);
	return e;
}
