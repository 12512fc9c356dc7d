// SPDX-License-Identifier: GPL-2.0
/*
 * The reordering window of the readers (show, export, plot): records of a
 * trace file's merged streams come nearly in order -- a nested completion
 * takes a later sequence number with an earlier time, a part's issue order
 * is not its completion order -- and are put in order through a window of
 * a bounded number of records: a record leaves once more than @cap came
 * after it, the earliest of the window first.
 *
 * A record not earlier than the last one that came in order goes to a
 * FIFO (a sorted run: most of them, O(1)), the others to a binary heap;
 * the earliest of the window is the first of the FIFO or the top of the
 * heap.  Both hold (64-bit key, slot) pairs: the key (a time) orders
 * almost every pair without touching the records, the full comparison
 * breaks ties.  Records are copied into @cap + 1 slots, so the one handed
 * out stays valid until the next call.
 */
#include <stdlib.h>
#include <string.h>
#include "export.h"

/**
 * iot_win_init() - set up a window.
 * @w: the window.
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
	void *m;

	memset(w, 0, sizeof(*w));
	w->cap = cap ? cap : SIZE_MAX;
	w->key = key;
	w->cmp = cmp;
	w->v = malloc(n * sizeof(*w->v));
	if (!posix_memalign(&m, 64, (n + 3) * sizeof(*w->hbase))) {
		w->hbase = m;
		w->h = w->hbase + 3;
	}
	w->free = malloc(n * sizeof(*w->free));
	for (w->fcap = 1; w->fcap < n; w->fcap *= 2)
		;
	w->fifo = malloc(w->fcap * sizeof(*w->fifo));
	if (!w->v || !w->h || !w->free || !w->fifo) {
		iot_win_free(w);
		return -1;
	}
	w->slots = n;
	return 0;
}

void iot_win_free(struct iot_win *w)
{
	free(w->v);
	free(w->hbase);
	free(w->free);
	free(w->fifo);
	memset(w, 0, sizeof(*w));
}

static inline int ent_less(const struct iot_win *w, const struct iot_win_ent *a,
			   const struct iot_win_ent *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	return w->cmp(&w->v[a->slot], &w->v[b->slot]) < 0;
}

/*
 * The records that can leave next, the first of the FIFO and the top of
 * the heap, into the cache: a record leaves the heap in a time order
 * unrelated to the order of its slot (show's completion order of records
 * that came in issue order), and would be read from memory when printed.
 */
static inline __attribute__((always_inline)) void
prefetch_rec(const struct xrec *x)
{
	const char *p = (const char *)x;

	__builtin_prefetch(p);
	__builtin_prefetch(p + 64);
	__builtin_prefetch(p + sizeof(*x) - 1);
}

static inline __attribute__((always_inline)) void
win_prefetch(const struct iot_win *w)
{
	if (w->n)
		prefetch_rec(&w->v[w->h[0].slot]);
	if (w->fn)
		prefetch_rec(&w->v[w->fifo[w->fhead].slot]);
}

/* the earliest record out of the window (one is there); its slot freed */
static const struct xrec *win_pop(struct iot_win *w)
{
	struct iot_win_ent top, e;
	size_t i = 0, l;

	if (w->fn && (!w->n ||
		      ent_less(w, &w->fifo[w->fhead], &w->h[0]))) {
		top = w->fifo[w->fhead];
		w->fhead = (w->fhead + 1) & (w->fcap - 1);
		w->fn--;
		w->free[w->nfree++] = top.slot;
		win_prefetch(w);
		return &w->v[top.slot];
	}
	top = w->h[0];
	e = w->h[--w->n];
	/*
	 * Bottom-up: the hole goes down to a leaf by the smallest of the
	 * four children (a cache line), then the last entry up from there
	 * (it belongs near the bottom: a level or two).
	 */
	while ((l = 4 * i + 1) < w->n) {
		size_t m = l, j, end = l + 4 < w->n ? l + 4 : w->n;

		/*
		 * The grandchildren (four lines) into the cache while the
		 * children are compared: the lower levels of a large heap
		 * are not in it.  (Prefetches do not fault.)
		 */
		__builtin_prefetch(&w->h[16 * i + 5]);
		__builtin_prefetch(&w->h[16 * i + 9]);
		__builtin_prefetch(&w->h[16 * i + 13]);
		__builtin_prefetch(&w->h[16 * i + 17]);
		for (j = l + 1; j < end; j++) {
			uint64_t a = w->h[m].key, b = w->h[j].key;

			/* no branch on the keys, but for a tie */
			if (a == b)
				m = ent_less(w, &w->h[j], &w->h[m]) ? j : m;
			else
				m = b < a ? j : m;
		}
		w->h[i] = w->h[m];
		i = m;
	}
	while (i) {
		size_t p = (i - 1) / 4;

		if (!ent_less(w, &e, &w->h[p]))
			break;
		w->h[i] = w->h[p];
		i = p;
	}
	if (w->n)
		w->h[i] = e;
	w->free[w->nfree++] = top.slot;
	win_prefetch(w);
	return &w->v[top.slot];
}

/* more slots for an unbounded window */
static int win_grow(struct iot_win *w)
{
	size_t n = w->slots * 2;
	struct xrec *v = realloc(w->v, n * sizeof(*v));
	struct iot_win_ent *h;
	uint32_t *f;
	void *m;

	if (!v)
		return -1;
	w->v = v;
	if (posix_memalign(&m, 64, (n + 3) * sizeof(*h)))
		return -1;
	h = m;
	memcpy(h + 3, w->h, w->n * sizeof(*h));
	free(w->hbase);
	w->hbase = h;
	w->h = h + 3;
	f = realloc(w->free, n * sizeof(*f));
	if (!f)
		return -1;
	w->free = f;
	if (n > w->fcap) {
		/* the FIFO doubles: its wrapped part moves up */
		struct iot_win_ent *q = realloc(w->fifo,
						2 * w->fcap * sizeof(*q));
		size_t k;

		if (!q)
			return -1;
		for (k = 0; k < w->fn; k++)
			if (w->fhead + k >= w->fcap)
				q[w->fhead + k] = q[w->fhead + k - w->fcap];
		w->fifo = q;
		w->fcap *= 2;
	}
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
	struct iot_win_ent e;
	size_t i;
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
	e.key = w->key(&w->v[slot]);
	e.slot = slot;
	if (!w->fn || !ent_less(w, &e, &w->ftail)) {
		w->fifo[(w->fhead + w->fn++) & (w->fcap - 1)] = e;
		w->ftail = e;
		goto out;
	}
	i = w->n++;
	while (i) {
		size_t p = (i - 1) / 4;

		if (!ent_less(w, &e, &w->h[p]))
			break;
		w->h[i] = w->h[p];
		i = p;
	}
	w->h[i] = e;
out:
	if (w->n + w->fn > w->cap)
		*out = win_pop(w);
	return 0;
}

/* The earliest record left (at the end), NULL when none. */
const struct xrec *iot_win_pop(struct iot_win *w)
{
	return w->n || w->fn ? win_pop(w) : NULL;
}
