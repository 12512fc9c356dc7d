/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The statistics of the commands (stats.c): the log-linear latency
 * histogram and the per-operation statistics of a set of records.
 */
#ifndef IOT_STATS_H
#define IOT_STATS_H

#include <stdint.h>
#include <stdio.h>
#include "iot.h"

/* the log-linear latency histogram */
#define IOT_HIST_SUB_BITS	11
#define IOT_HIST_BUCKETS	((1u << IOT_HIST_SUB_BITS) + \
				 (64 - IOT_HIST_SUB_BITS) * \
				 (1u << (IOT_HIST_SUB_BITS - 1)))

/**
 * struct iot_hist - log-linear histogram: values below 2^11 are exact,
 * above it every power of two is split into 1024 buckets, so a reported
 * percentile (bucket midpoint, clamped to min/max; the first and last
 * rank exact) is within 1/2048 of the exact value.
 * @n: values.
 * @sum: sum of values.
 * @min: smallest value.
 * @max: largest value.
 * @b: bucket counts.
 */
struct iot_hist {
	uint64_t n, sum, min, max;
	uint64_t *b;
};

unsigned int iot_hist_index(uint64_t v);
/* the latency bins of stats and plot: [2^(k-1), 2^k) us, bin 0 [0, 1 us) */
#define IOT_LAT_BINS	64
unsigned int iot_lat_bin(uint64_t ns);
void iot_lat_bin_range(unsigned int k, uint64_t *lo, uint64_t *hi);
int iot_hist_init(struct iot_hist *h);
void iot_hist_free(struct iot_hist *h);
void iot_hist_reset(struct iot_hist *h);
uint64_t iot_hist_percentile(const struct iot_hist *h, double p);
uint64_t iot_pct_rank(uint64_t n, double p);
uint64_t iot_pct_sorted(const uint64_t *v, size_t n, double p);
uint64_t iot_hist_value(uint64_t v, uint64_t min, uint64_t max);
void iot_hist_bucket(unsigned int i, uint64_t *low, uint64_t *width);
static inline void iot_hist_add(struct iot_hist *h, uint64_t v)
{
	h->b[iot_hist_index(v)]++;
	h->n++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

#define IOT_NR_OPS	16	/* stats slots: ops 0..14 each, 15 = other (IOTRACE_OP_UNKNOWN) */

/**
 * struct iot_opstats - statistics of one operation.
 * @lat: device latency (issue to completion), ns.
 * @tot: total latency (queue + device: allocation to completion, what
 *	biolatency -Q gives), ns, of the requests with a device latency and
 *	a queue time (IOTRACE_RF_QUEUE_VALID, not saturated); the others
 *	are left out, not taken as 0 (iot_stats_no_queue()).
 * @queue_sum: sum of valid queue times, ns.
 * @queue_n: records with a valid queue time.
 * @queue_max: largest queue time.
 * @bytes: bytes transferred.
 * @lat_log2: log2 histogram of latency in us: bucket k holds [2^(k-1), 2^k),
 *	bucket 0 holds [0, 1).
 * @tot_log2: that of the total latency.
 * @size_log2: log2 histogram of request size in bytes, same buckets.
 */
struct iot_opstats {
	struct iot_hist lat, tot;
	uint64_t queue_sum, queue_n, queue_max, bytes;
	uint64_t lat_log2[64];
	uint64_t tot_log2[64];
	uint64_t size_log2[64];
};

#define IOT_MAX_ERRS	64

/**
 * struct iot_stats - statistics over a set of records.
 * @op: per operation slot.
 * @first_ns: earliest issue time.
 * @last_ns: latest completion time.
 * @records: records.
 * @incomplete: records without a completion.
 * @nr_errs: distinct error kinds in @errs.
 * @errs: errors by (errno, device status).
 */
struct iot_stats {
	struct iot_opstats op[IOT_NR_OPS];
	uint64_t first_ns, last_ns, records, incomplete;
	unsigned int nr_errs;
	struct {
		int16_t error;
		uint8_t cmd_type;
		uint32_t dev_status;
		uint64_t n;
	} errs[IOT_MAX_ERRS];
};

int iot_stats_init(struct iot_stats *s);
void iot_stats_free(struct iot_stats *s);
void iot_stats_reset(struct iot_stats *s);
void iot_stats_add(struct iot_stats *s, const struct iotrace_record *r);
int iot_stats_slot(unsigned int op);
uint64_t iot_stats_count(const struct iot_opstats *o);
int iot_rec_total(const struct iotrace_record *r, uint64_t *ns);
void iot_stats_print(FILE *fp, const struct iot_stats *s,
		     const char *title, const struct iot_counts *c, int file,
		     uint64_t span_ns);

#endif /* IOT_STATS_H */
