/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A priority queue for nearly sorted input (pq.c): the reordering window
 * of show and export, and the waiting events of the blktrace export.
 */
#ifndef IOT_PQ_H
#define IOT_PQ_H

#include <stddef.h>
#include <stdint.h>

/* sorted runs at most; what fits none waits in the heap alone */
#define IOT_PQ_RUNS	32

/**
 * struct iot_pq_ent - an entry: its order is (@key, then the tie function).
 * @key: primary key.
 * @aux: the caller's (e.g. a secondary key).
 * @slot: the caller's slot of the entry: unique among those waiting,
 *	below the capacity given to iot_pq_reserve().
 * @run: the sorted run it heads in the heap, -1: alone.
 */
struct iot_pq_ent {
	uint64_t key, aux;
	uint32_t slot;
	int32_t run;
};

/* a waiting entry's key, secondary key and the next of its run */
struct iot_pq_node {
	uint64_t key, aux;
	uint32_t next;
};

/**
 * struct iot_pq - entries in sorted runs (a new entry goes at the end of
 *	the run whose last entry is the greatest not above it, as in
 *	patience sorting) whose first entries, and the entries that fit no
 *	run, are in a binary heap.  Input in order or a bounded distance
 *	from it (completions of requests that came in issue order) makes
 *	few runs: a push is a binary search of the runs' ends, a pop a
 *	sift-down in a heap of some tens of entries, not of thousands.
 * @tie: the order of two entries with the same key (@arg passed).
 * @arg: for @tie.
 * @h: the heap.
 * @n: entries in it.
 * @node: per slot.
 * @cap: slots (and the heap's size, plus IOT_PQ_RUNS).
 * @count: entries waiting.
 * @tails: the last entries of the runs, ascending; @tails[i].run names
 *	the run.
 * @nruns: runs.
 * @head: per run, its first entry's slot.
 * @tail: its last's.
 * @live: whether it has entries (an empty run keeps its place in @tails).
 */
struct iot_pq {
	int (*tie)(void *arg, const struct iot_pq_ent *a,
		   const struct iot_pq_ent *b);
	void *arg;
	struct iot_pq_ent *h;
	size_t n;
	struct iot_pq_node *node;
	size_t cap, count;
	struct iot_pq_ent tails[IOT_PQ_RUNS];
	unsigned int nruns;
	uint32_t head[IOT_PQ_RUNS], tail[IOT_PQ_RUNS];
	uint8_t live[IOT_PQ_RUNS];
};

void iot_pq_init(struct iot_pq *q,
		 int (*tie)(void *arg, const struct iot_pq_ent *a,
			    const struct iot_pq_ent *b), void *arg);
int iot_pq_reserve(struct iot_pq *q, size_t slots);
void iot_pq_free(struct iot_pq *q);
void iot_pq_push(struct iot_pq *q, uint32_t slot, uint64_t key, uint64_t aux);
void iot_pq_pop(struct iot_pq *q);

/* the first entry (one is waiting) */
static inline const struct iot_pq_ent *iot_pq_top(const struct iot_pq *q)
{
	return &q->h[0];
}

static inline int iot_pq_less(const struct iot_pq *q,
			      const struct iot_pq_ent *a,
			      const struct iot_pq_ent *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	return q->tie(q->arg, a, b);
}

#endif
