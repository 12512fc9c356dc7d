// SPDX-License-Identifier: GPL-2.0
/*
 * A priority queue for nearly sorted input: sorted runs whose heads are in
 * a binary heap (see struct iot_pq).  The order it hands entries out in is
 * the order of (key, tie) whatever the runs are: a heap of every entry
 * would give the same.
 */
#include <stdlib.h>
#include <string.h>
#include "pq.h"

void iot_pq_init(struct iot_pq *q,
		 int (*tie)(void *arg, const struct iot_pq_ent *a,
			    const struct iot_pq_ent *b), void *arg)
{
	memset(q, 0, sizeof(*q));
	q->tie = tie;
	q->arg = arg;
}

/* Room for slots 0 .. @slots - 1 (keeps what waits); 0, or -1. */
int iot_pq_reserve(struct iot_pq *q, size_t slots)
{
	struct iot_pq_node *node;
	struct iot_pq_ent *h;

	if (slots <= q->cap)
		return 0;
	node = realloc(q->node, slots * sizeof(*node));
	if (!node)
		return -1;
	q->node = node;
	h = realloc(q->h, (slots + IOT_PQ_RUNS) * sizeof(*h));
	if (!h)
		return -1;
	q->h = h;
	q->cap = slots;
	return 0;
}

void iot_pq_free(struct iot_pq *q)
{
	free(q->node);
	free(q->h);
	q->node = NULL;
	q->h = NULL;
	q->cap = 0;
	q->n = 0;
	q->count = 0;
}

/* @e into the hole at @i, moving the parents it is less than down */
static inline void heap_sift_up(struct iot_pq *q, size_t i,
				struct iot_pq_ent e)
{
	while (i) {
		size_t p = (i - 1) / 2;

		if (!iot_pq_less(q, &e, &q->h[p]))
			break;
		q->h[i] = q->h[p];
		i = p;
	}
	q->h[i] = e;
}

static void heap_up(struct iot_pq *q, struct iot_pq_ent e)
{
	heap_sift_up(q, q->n++, e);
}

/*
 * @e in the root's place, bottom-up: the hole down to a leaf by the
 * smaller child (chosen without a branch on the keys: which is smaller is
 * a coin toss), then @e up from there (it belongs near the bottom).
 */
static void heap_down(struct iot_pq *q, struct iot_pq_ent e)
{
	size_t i = 0, l, n = q->n;

	while ((l = 2 * i + 1) + 1 < n) {
		const struct iot_pq_ent *a = &q->h[l], *b = &q->h[l + 1];
		size_t right;

		if (a->key != b->key)
			right = b->key < a->key;
		else
			right = q->tie(q->arg, b, a);
		l += right;
		q->h[i] = q->h[l];
		i = l;
	}
	if (l < n) {
		q->h[i] = q->h[l];
		i = l;
	}
	heap_sift_up(q, i, e);
}

/**
 * iot_pq_push() - an entry in.
 * @q: the queue (room reserved for @slot).
 * @slot: the caller's slot of it.
 * @key: primary key.
 * @aux: the caller's.
 */
void iot_pq_push(struct iot_pq *q, uint32_t slot, uint64_t key, uint64_t aux)
{
	struct iot_pq_ent e = { .key = key, .aux = aux, .slot = slot,
				.run = -1 };
	unsigned int lo = 0, hi = q->nruns, j, r;

	q->node[slot].key = key;
	q->node[slot].aux = aux;
	q->count++;
	/*
	 * The runs whose last entry is not above @e, a prefix of @tails:
	 * how many, by a binary search without a branch on the keys
	 */
	if (hi && !iot_pq_less(q, &e, &q->tails[hi - 1])) {
		/* not below the last run: input in order, the common case */
		lo = hi;
	} else if (hi) {
		while (hi > 1) {
			unsigned int half = hi / 2;
			const struct iot_pq_ent *t = &q->tails[lo + half];
			unsigned int le;

			if (t->key != key)
				le = t->key < key;
			else
				le = !q->tie(q->arg, &e, t);
			lo += half * le;
			hi -= half;
		}
		lo += !iot_pq_less(q, &e, &q->tails[lo]);
	}
	if (lo) {
		j = lo - 1;
		r = (unsigned int)q->tails[j].run;
	} else if (q->nruns < IOT_PQ_RUNS) {
		/* below every run: a new one, first in @tails */
		memmove(&q->tails[1], &q->tails[0],
			q->nruns * sizeof(q->tails[0]));
		j = 0;
		r = q->nruns++;
		q->tails[0].run = (int32_t)r;
		q->live[r] = 0;
	} else if (!q->live[q->tails[0].run]) {
		j = 0;
		r = (unsigned int)q->tails[0].run;
	} else {
		heap_up(q, e);
		return;
	}
	q->tails[j].key = key;
	q->tails[j].aux = aux;
	q->tails[j].slot = slot;
	if (q->live[r]) {
		q->node[q->tail[r]].next = slot;
		q->tail[r] = slot;
		return;
	}
	q->live[r] = 1;
	q->head[r] = slot;
	q->tail[r] = slot;
	e.run = (int32_t)r;
	heap_up(q, e);
}

/* The first entry out (one is waiting): its run's next takes its place. */
void iot_pq_pop(struct iot_pq *q)
{
	struct iot_pq_ent top = q->h[0], e;
	uint32_t s;

	q->count--;
	if (top.run >= 0) {
		if (q->tail[top.run] != top.slot) {
			s = q->node[top.slot].next;
			q->head[top.run] = s;
			/*
			 * the entry after it into the cache, for when it
			 * leads: entries wait for thousands of others, and
			 * the nodes of a run are scattered
			 */
			if (q->tail[top.run] != s)
				__builtin_prefetch(&q->node[q->node[s].next]);
			e.key = q->node[s].key;
			e.aux = q->node[s].aux;
			e.slot = s;
			e.run = top.run;
			heap_down(q, e);
			return;
		}
		q->live[top.run] = 0;
	}
	e = q->h[--q->n];
	if (q->n)
		heap_down(q, e);
}
