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
 * file the recorder wrote: nearly every record); the others are ordered
 * by pq.c: sorted runs whose first records are in a small heap (records
 * that come in issue order leave in completion order through a few tens
 * of runs).  The earliest leaves: the FIFO's first or the queue's, one
 * comparison.  Entries are (64-bit key, slot) pairs: the key (a time)
 * orders almost every pair without touching the records, the full
 * comparison breaks ties.  Records are copied into @cap + 1 slots, so the
 * one handed out stays valid until the next call.
 */
#include <stdlib.h>
#include <string.h>
#include "export.h"

/* two entries of the same key: the full comparison of their records */
static int win_tie(void *arg, const struct iot_pq_ent *a,
		   const struct iot_pq_ent *b)
{
	const struct iot_win *w = arg;

	return w->cmp(&w->v[a->slot], &w->v[b->slot]) < 0;
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
	size_t n = cap ? cap + 1 : 4096;

	memset(w, 0, sizeof(*w));
	w->cap = cap ? cap : SIZE_MAX;
	w->key = key;
	w->cmp = cmp;
	iot_pq_init(&w->pq, win_tie, w);
	w->v = malloc(n * sizeof(*w->v));
	w->free = malloc(n * sizeof(*w->free));
	w->fifo = malloc(n * sizeof(*w->fifo));
	if (!w->v || !w->free || !w->fifo || iot_pq_reserve(&w->pq, n)) {
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

/* the @i-th entry of the FIFO (@i may be its size, or -1 when empty) */
static inline struct iot_win_ent *fifo_at(const struct iot_win *w, size_t i)
{
	size_t k = w->fhead + i;

	if (k >= w->slots)
		k -= w->slots;
	return &w->fifo[k < w->slots ? k : 0];
}

/* the slot of the earliest record (one is there) */
static inline uint32_t win_first(const struct iot_win *w, int *from_fifo)
{
	const struct iot_win_ent *f = &w->fifo[w->fhead];
	const struct iot_pq_ent *t = iot_pq_top(&w->pq);

	*from_fifo = w->fn && (!w->pq.count ||
			       win_less(w, f->key, f->slot, t->key, t->slot));
	return *from_fifo ? f->slot : t->slot;
}

/*
 * The record that leaves next into the cache: a record leaves in a time
 * order unrelated to the order of its slot (show's completion order of
 * records that came in issue order), and would be read from memory when
 * printed.
 */
static inline __attribute__((always_inline)) void
win_prefetch(const struct iot_win *w)
{
	const char *p;

	if (!w->pq.count)
		return;
	p = (const char *)&w->v[iot_pq_top(&w->pq)->slot];
	__builtin_prefetch(p);
	__builtin_prefetch(p + 64);
	__builtin_prefetch(p + sizeof(struct xrec) - 1);
}

/* the earliest record out of the window (one is there); its slot freed */
static const struct xrec *win_pop(struct iot_win *w)
{
	int from_fifo;
	uint32_t slot = win_first(w, &from_fifo);

	if (from_fifo) {
		w->fhead = fifo_at(w, 1) - w->fifo;
		w->fn--;
	} else {
		iot_pq_pop(&w->pq);
		win_prefetch(w);
	}
	w->free[w->nfree++] = slot;
	return &w->v[slot];
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
	if (iot_pq_reserve(&w->pq, n) || fifo_grow(w, n))
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
 *	call), else NULL.
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
	last = fifo_at(w, w->fn - 1);
	if (!w->fn || !win_less(w, key, slot, last->key, last->slot)) {
		/* in order: at the end of the FIFO */
		last = fifo_at(w, w->fn);
		last->key = key;
		last->slot = slot;
		w->fn++;
	} else {
		iot_pq_push(&w->pq, slot, key, 0);
		if (w->pq.count == 1)
			win_prefetch(w);
	}
	if (w->pq.count + w->fn > w->cap)
		*out = win_pop(w);
	return 0;
}

/* The earliest record left (at the end), NULL when none. */
const struct xrec *iot_win_pop(struct iot_win *w)
{
	return w->pq.count || w->fn ? win_pop(w) : NULL;
}
