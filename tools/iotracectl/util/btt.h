/* SPDX-License-Identifier: GPL-2.0 */
/* btt's breakdown in stats (btt.c). */
#ifndef IOT_BTT_H
#define IOT_BTT_H

#include "out.h"

/**
 * struct iot_btt_rec - what the breakdown needs of a completed request.
 * @issue_ns: issue time.
 * @sector: start sector (UINT64_MAX: none).
 * @d2c: issue to completion, ns.
 * @q2d: queue to issue, ns (UINT64_MAX: unknown).
 * @bytes: length.
 * @hwq: hardware queue.
 * @cpu: issuing CPU.
 * @op: operation slot.
 */
struct iot_btt_rec {
	uint64_t issue_ns, sector, d2c, q2d;
	uint32_t bytes;
	uint16_t hwq, cpu;
	uint8_t op;
};

/* requests kept for exact percentiles; beyond, histograms (btt.c) */
#define IOT_BTT_EXACT	(1u << 18)

struct btt_g;
struct iot_pq;

/**
 * struct iot_btt - the requests of one disk.
 * @v: records (up to IOT_BTT_EXACT of them).
 * @n: used.
 * @cap: allocated.
 * @stream: more came: @v was folded into histograms, which take the
 *	rest, in bounded memory.
 * @g: with @stream, per grouping (operation, hwq, CPU), per key, the
 *	group's histograms (NULL: no request).
 * @ng: keys @g has room for.
 * @win: with @stream, the requests put in issue order for the seeks.
 * @wv: its slots: issue time, sector, bytes.
 * @wfree: its free slots.
 * @nwfree: how many.
 * @seek: the seeks so far (a histogram, the sum, counts).
 * @end: where the previous request in issue order ended.
 * @have: there was one.
 */
struct iot_btt {
	struct iot_btt_rec *v;
	size_t n, cap;
	int stream;
	struct btt_g **g[3];
	unsigned int ng[3];
	struct iot_pq *win;
	struct iot_btt_rec *wv;
	uint32_t *wfree;
	size_t nwfree;
	struct btt_seekh *seek;
	uint64_t end;
	int have;
};

int iot_btt_add(struct iot_btt *b, const struct iotrace_record *r);
void iot_btt_free(struct iot_btt *b);
int iot_btt_report(struct iot_btt *b, FILE *fp, struct iot_jw *w);

#endif /* IOT_BTT_H */
