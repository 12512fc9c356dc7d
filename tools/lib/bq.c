// SPDX-License-Identifier: GPL-2.0
/*
 * A bucket queue of times (see struct iot_bq): input whose keys are spread
 * over a window of time in no particular order (the start times of
 * records that came in completion order, completions of records that come
 * in start order) goes into a bucket in a few instructions, and leaves
 * from the first bucket that is not empty, found in a bitmap.  The order
 * entries leave in is the order of (key, tie) whatever the buckets are.
 */
#include <stdlib.h>
#include <string.h>
#include "bq.h"

/**
 * iot_bq_init() - set up an empty bucket queue.
 * @q: the queue.
 * @tie: the order of two entries of the same key: whether slot a goes
 *	before slot b (their &struct iot_bq_node is written).
 * @arg: for @tie.
 * @spill: where the entries that no longer fit when the buckets widen go.
 *
 * Return: 0, or -1 out of memory.
 */
int iot_bq_init(struct iot_bq *q, int (*tie)(void *arg, uint32_t a, uint32_t b),
		void *arg, struct iot_pq *spill)
{
	memset(q, 0, sizeof(*q));
	q->tie = tie;
	q->arg = arg;
	q->spill = spill;
	q->head = malloc(IOT_BQ_BUCKETS * sizeof(*q->head));
	q->map = calloc(IOT_BQ_BUCKETS / 64, sizeof(*q->map));
	if (!q->head || !q->map) {
		iot_bq_free(q);
		return -1;
	}
	memset(q->head, 0xff, IOT_BQ_BUCKETS * sizeof(*q->head));
	q->shift = 10;	/* 1 us; wider when too many fall beyond */
	return 0;
}

/* Room for slots 0 .. @slots - 1 (keeps what waits); 0, or -1. */
int iot_bq_reserve(struct iot_bq *q, size_t slots)
{
	struct iot_bq_node *node = realloc(q->node, slots * sizeof(*node));

	if (!node)
		return -1;
	q->node = node;
	return 0;
}

void iot_bq_free(struct iot_bq *q)
{
	free(q->node);
	free(q->head);
	free(q->map);
	memset(q, 0, sizeof(*q));
}

/*
 * The first bucket that is not empty (an entry is waiting), from @q->base
 * on: buckets before it are empty, so it becomes @q->base.  Its first
 * entry's slot.
 */
uint32_t iot_bq_seek(struct iot_bq *q)
{
	unsigned int i = (unsigned int)(q->base % IOT_BQ_BUCKETS), k;
	uint64_t word = q->map[i / 64] >> (i % 64);

	if (word) {
		k = i + (unsigned int)__builtin_ctzll(word);
	} else {
		unsigned int j = i / 64;

		do {
			j = (j + 1) % (IOT_BQ_BUCKETS / 64);
		} while (!q->map[j]);
		k = j * 64 + (unsigned int)__builtin_ctzll(q->map[j]);
	}
	q->base += (k - i) % IOT_BQ_BUCKETS;
	return q->head[k % IOT_BQ_BUCKETS];
}

/* in order into bucket @b's list, walking at most 16; 0, or -1: crowded */
static int bq_insert(struct iot_bq *q, uint64_t b, uint32_t slot,
		     uint64_t key, uint64_t aux)
{
	unsigned int k = (unsigned int)(b % IOT_BQ_BUCKETS), n = 0;
	uint32_t *at = &q->head[k];

	/* first: the tie function may read them */
	q->node[slot].key = key;
	q->node[slot].aux = aux;
	while (*at != UINT32_MAX &&
	       !iot_bq_less(q, key, slot, q->node[*at].key, *at)) {
		if (++n == 16)
			return -1;
		at = &q->node[*at].next;
	}
	q->node[slot].next = *at;
	*at = slot;
	q->map[k / 64] |= 1ull << (k % 64);
	q->count++;
	return 0;
}

/* the buckets' entries again, @q->shift one larger */
static void bq_widen(struct iot_bq *q)
{
	uint32_t list = UINT32_MAX, s, k;

	for (k = 0; k < IOT_BQ_BUCKETS; k++) {
		while ((s = q->head[k]) != UINT32_MAX) {
			q->head[k] = q->node[s].next;
			q->node[s].next = list;
			list = s;
		}
	}
	memset(q->map, 0, IOT_BQ_BUCKETS / 8);
	q->count = 0;
	q->shift++;
	q->base >>= 1;
	while ((s = list) != UINT32_MAX) {
		list = q->node[s].next;
		/* in range still (half the width); crowded: the spill queue */
		if (bq_insert(q, q->node[s].key >> q->shift, s,
			      q->node[s].key, q->node[s].aux))
			iot_pq_push(q->spill, s, q->node[s].key,
				    q->node[s].aux);
	}
}

/**
 * iot_bq_push() - an entry into its bucket.
 * @q: the queue (room reserved for @slot).
 * @slot: the caller's slot of it.
 * @key: its key (a time).
 * @aux: the caller's.
 *
 * Return: 0, or -1: not taken (before the buckets' range, beyond it, or
 * its bucket crowded): the caller queues it elsewhere.
 */
int iot_bq_push(struct iot_bq *q, uint32_t slot, uint64_t key, uint64_t aux)
{
	uint64_t b = key >> q->shift;

	if (!q->count) {
		/*
		 * Empty: the range starts at the bucket of what left last if
		 * @key is at most half the range after it, else half the
		 * range before @key.
		 */
		uint64_t lo = q->lastout >> q->shift;
		uint64_t half = IOT_BQ_BUCKETS / 2;

		if (lo <= b && b - lo <= half)
			q->base = lo;
		else
			q->base = b > half ? b - half : 0;
	}
	q->npush++;
	if (b < q->base)
		return -1;
	if (b - q->base >= IOT_BQ_BUCKETS) {
		/* beyond the range: wider buckets if that is common */
		if (++q->nover >= 64 && q->nover * 16 > q->npush &&
		    q->shift < 40) {
			bq_widen(q);
			q->nover = 0;
			q->npush = 0;
		}
		return -1;
	}
	return bq_insert(q, b, slot, key, aux);
}
