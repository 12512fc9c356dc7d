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
	uint64_t (*key)(const struct xrec *);
	int (*cmp)(const void *, const void *);
};

int iot_win_init(struct iot_win *w, size_t cap,
		 uint64_t (*key)(const struct xrec *),
		 int (*cmp)(const void *, const void *));
void iot_win_free(struct iot_win *w);
int iot_win_push(struct iot_win *w, unsigned int disk,
		 const struct iotrace_record *r, const struct xrec **out);
const struct xrec *iot_win_pop(struct iot_win *w);

#endif /* IOT_WINDOW_H */
