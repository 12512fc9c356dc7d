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

/**
 * struct iot_btt - the requests of one disk.
 * @v: records.
 * @n: used.
 * @cap: allocated.
 */
struct iot_btt {
	struct iot_btt_rec *v;
	size_t n, cap;
};

int iot_btt_add(struct iot_btt *b, const struct iotrace_record *r);
void iot_btt_free(struct iot_btt *b);
int iot_btt_report(struct iot_btt *b, FILE *fp, struct iot_jw *w);

#endif /* IOT_BTT_H */
