// SPDX-License-Identifier: GPL-2.0
/*
 * The reordering window of the readers (show, export, plot): records of a
 * trace file's merged streams come nearly in order -- a nested completion
 * takes a later sequence number with an earlier time, a part's issue order
 * is not its completion order -- and are put in order through a window of
 * a bounded number of records: a record leaves once more than @cap came
 * after it, the earliest of the window first.
 *
 * The order is kept by pq.c: sorted runs whose first records are in a
 * small heap (records that come in issue order leave in completion order
 * through a few tens of runs).  Its entries are (64-bit key, slot) pairs:
 * the key (a time) orders almost every pair without touching the records,
 * the full comparison breaks ties.  Records are copied into @cap + 1
 * slots, so the one handed out stays valid until the next call.
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
	if (!w->v || !w->free || iot_pq_reserve(&w->pq, n)) {
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
	iot_pq_free(&w->pq);
	memset(w, 0, sizeof(*w));
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
	uint32_t slot = iot_pq_top(&w->pq)->slot;

	iot_pq_pop(&w->pq);
	w->free[w->nfree++] = slot;
	win_prefetch(w);
	return &w->v[slot];
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
	if (iot_pq_reserve(&w->pq, n))
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
	uint32_t slot;

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
	iot_pq_push(&w->pq, slot, w->key(&w->v[slot]), 0);
	if (w->pq.count > w->cap)
		*out = win_pop(w);
	else if (w->pq.count == 1)
		win_prefetch(w);
	return 0;
}

/* The earliest record left (at the end), NULL when none. */
const struct xrec *iot_win_pop(struct iot_win *w)
{
	return w->pq.count ? win_pop(w) : NULL;
}
