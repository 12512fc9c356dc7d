/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bucket queue of times (bq.c): the entries of the reordering window
 * that came out of order, and the waiting events of the blktrace export.
 */
#ifndef IOT_BQ_H
#define IOT_BQ_H

#include <stddef.h>
#include <stdint.h>
#include "pq.h"

/*
 * Buckets (a power of 2): as many as export's window holds records (and
 * the blktrace export's queue holds events, at least), so that a bucket
 * holds about one when the width has grown to span them (4,096 held
 * four: 10% more CPU for export -f csv, walking their lists).
 */
#define IOT_BQ_BUCKETS	16384

/* a waiting entry: its key, the caller's second key, the next of its bucket */
struct iot_bq_node {
	uint64_t key, aux;
	uint32_t next;
};

/**
 * struct iot_bq - entries by key in time buckets: an entry of key K in
 *	bucket K >> @shift, each bucket's few entries in order in a list, a
 *	bitmap of the buckets that are not empty.  The bucket width grows
 *	(@shift, up to 40) once 64 entries and more than one in 16 fell
 *	beyond the buckets' range.  An entry the buckets do not take
 *	(before their range, beyond it, or behind 16 entries of its
 *	bucket) is the caller's to put elsewhere: iot_bq_push() says so;
 *	when the buckets widen, those that no longer fit go to @spill.
 * @tie: the order of two entries of the same key, by slot (@arg passed).
 * @arg: for @tie.
 * @spill: the queue the entries that no longer fit go to (their slot, key
 *	and aux).
 * @node: per slot.
 * @head: per bucket, its first slot; UINT32_MAX: empty.
 * @map: the buckets that are not empty, a bit each.
 * @base: the number of the first bucket in range: a key K is in bucket
 *	K >> @shift when that is @base .. @base + IOT_BQ_BUCKETS - 1.
 * @lastout: the latest key that left the caller's queues
 *	(iot_bq_left()): an empty queue's range starts there when the new
 *	key is at most half the range after it.
 * @shift: see @base.
 * @count: entries in buckets.
 * @npush: entries pushed since @shift was last made larger.
 * @nover: of them, those beyond them.
 */
struct iot_bq {
	int (*tie)(void *arg, uint32_t a, uint32_t b);
	void *arg;
	struct iot_pq *spill;
	struct iot_bq_node *node;
	uint32_t *head;
	uint64_t *map;
	uint64_t base, lastout;
	unsigned int shift;
	size_t count, npush, nover;
};

int iot_bq_init(struct iot_bq *q, int (*tie)(void *arg, uint32_t a, uint32_t b),
		void *arg, struct iot_pq *spill);
int iot_bq_reserve(struct iot_bq *q, size_t slots);
void iot_bq_free(struct iot_bq *q);
int iot_bq_push(struct iot_bq *q, uint32_t slot, uint64_t key, uint64_t aux);
uint32_t iot_bq_seek(struct iot_bq *q);

/*
 * The slot of the first entry (one is waiting): of the first bucket that
 * is not empty, from @q->base on (the first bucket itself, most often).
 */
static inline uint32_t iot_bq_first(struct iot_bq *q)
{
	unsigned int i = (unsigned int)(q->base % IOT_BQ_BUCKETS);

	if (q->map[i / 64] & (1ull << (i % 64)))
		return q->head[i];
	return iot_bq_seek(q);
}

/* whether (@ka, slot @sa) goes before (@kb, slot @sb) */
static inline int iot_bq_less(const struct iot_bq *q, uint64_t ka,
			      uint32_t sa, uint64_t kb, uint32_t sb)
{
	if (ka != kb)
		return ka < kb;
	return q->tie(q->arg, sa, sb);
}

/*
 * The first entry out: @slot is what iot_bq_first() returned, and nothing
 * was pushed since (a push could put an earlier entry first).
 */
static inline void iot_bq_pop(struct iot_bq *q, uint32_t slot)
{
	unsigned int k = (unsigned int)(q->base % IOT_BQ_BUCKETS);

	q->head[k] = q->node[slot].next;
	if (q->head[k] == UINT32_MAX)
		q->map[k / 64] &= ~(1ull << (k % 64));
	q->count--;
}

/* A key left the caller's queues. */
static inline void iot_bq_left(struct iot_bq *q, uint64_t key)
{
	if (key > q->lastout)
		q->lastout = key;
}

#endif
