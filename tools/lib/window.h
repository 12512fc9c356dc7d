/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reordering window (window.c): records that come nearly in order
 * (a trace file's merged streams) put in order through a bounded window.
 */
#ifndef IOT_WINDOW_H
#define IOT_WINDOW_H

#include <stddef.h>
#include <stdint.h>
#include "iot.h"
#include "bq.h"
#include "pq.h"

/**
 * struct xrec - one record and the index of its disk in the source.
 * @r: the record.
 * @disk: disk index.
 */
struct xrec {
	struct iotrace_record r;
	unsigned int disk;
};

/* The completion order of show and the interval statistics: its key. */
static inline uint64_t iot_xrec_complete_key(const struct xrec *e)
{
	return e->r.complete_ns;
}

/*
 * qsort() and window order of records by completion: completion time,
 * issue time, disk, CPU, sequence number.
 */
static inline int iot_xrec_cmp_complete(const void *a, const void *b)
{
	const struct xrec *x = a, *y = b;

	if (x->r.complete_ns != y->r.complete_ns)
		return x->r.complete_ns < y->r.complete_ns ? -1 : 1;
	if (x->r.issue_ns != y->r.issue_ns)
		return x->r.issue_ns < y->r.issue_ns ? -1 : 1;
	if (x->disk != y->disk)
		return x->disk < y->disk ? -1 : 1;
	if (x->r.complete_cpu != y->r.complete_cpu)
		return x->r.complete_cpu < y->r.complete_cpu ? -1 : 1;
	return x->r.seq < y->r.seq ? -1 : x->r.seq > y->r.seq;
}

/*
 * The start order of export: a record's start, its issue, or its
 * completion when it has no issue (export.h's xrec_start()).
 */
static inline uint64_t iot_xrec_start_key(const struct xrec *e)
{
	return e->r.rflags & IOTRACE_RF_NO_ISSUE ? e->r.complete_ns :
	       e->r.issue_ns;
}

/*
 * qsort() and window order of records by start: start, disk, completion
 * time, CPU, sequence number.
 */
static inline int iot_xrec_cmp_start(const void *a, const void *b)
{
	const struct xrec *x = a, *y = b;
	uint64_t sx = iot_xrec_start_key(x), sy = iot_xrec_start_key(y);

	if (sx != sy)
		return sx < sy ? -1 : 1;
	if (x->disk != y->disk)
		return x->disk < y->disk ? -1 : 1;
	if (x->r.complete_ns != y->r.complete_ns)
		return x->r.complete_ns < y->r.complete_ns ? -1 : 1;
	if (x->r.complete_cpu != y->r.complete_cpu)
		return x->r.complete_cpu < y->r.complete_cpu ? -1 : 1;
	return x->r.seq < y->r.seq ? -1 : x->r.seq > y->r.seq;
}

/**
 * struct iot_win - the reordering window (window.c).
 * @v: record slots.
 * @pq: the order of the records that came out of order (pq.c): a slot's
 *	entry has the record's primary key.
 * @fifo: the records that came in order (each not before the one pushed
 *	into @fifo before it), oldest first: a ring of @slots entries.
 * @fhead: @fifo's oldest.
 * @fn: entries in @fifo.
 * @bq: the other records that came out of order, in time buckets
 *	(bq.c; those it does not take go to @pq).
 * @staged: the slot of the record that left last, handed out at the next
 *	call (its memory fetched meanwhile), when @nstaged.
 * @out: the slot of the record handed out, freed at the next call, when
 *	@nout.
 * @nstaged: see @staged.
 * @nout: see @out.
 * @free: free slots.
 * @cap: records held before the earliest leaves.
 * @slots: slots allocated.
 * @used: slots used so far.
 * @nfree: free slots.
 * @key: primary key.
 * @cmp: full order (of two &struct xrec).
 */
struct iot_win {
	struct xrec *v;
	struct iot_pq pq;
	struct iot_win_ent {
		uint64_t key;
		uint32_t slot;
	} *fifo;
	size_t fhead, fn;
	struct iot_bq bq;
	uint32_t staged, out;
	int nstaged, nout;
	uint32_t *free;
	size_t cap, slots, used, nfree;
	uint64_t (*key)(const struct xrec *e);
	int (*cmp)(const void *a, const void *b);
};

int iot_win_init(struct iot_win *w, size_t cap,
		 uint64_t (*key)(const struct xrec *),
		 int (*cmp)(const void *, const void *));
void iot_win_free(struct iot_win *w);
int iot_win_push(struct iot_win *w, unsigned int disk,
		 const struct iotrace_record *r, const struct xrec **out);
const struct xrec *iot_win_pop(struct iot_win *w);

#endif /* IOT_WINDOW_H */
