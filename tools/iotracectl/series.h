/* SPDX-License-Identifier: GPL-2.0 */
/* Time series of a recording (series.c): stats --interval, plot. */
#ifndef IOT_SERIES_H
#define IOT_SERIES_H

#include "export.h"
#include "out.h"

#define IOT_SERIES_MAX	1000000u	/* intervals at most */

/**
 * struct iot_series_op - one operation in one interval.
 * @n: requests completed in the interval.
 * @bytes: their bytes.
 * @lat_n: those with a latency.
 * @lat_sum: sum of latencies, ns.
 * @lat_max: largest latency.
 * @p50: nearest-rank median latency (exact).
 * @p99: nearest-rank 99th percentile latency (exact).
 * @inflight_ns: time requests of this operation spent in flight within
 *	the interval (divided by the interval: their queue depth).
 */
struct iot_series_op {
	uint64_t n, bytes, lat_n, lat_sum, lat_max, p50, p99, inflight_ns;
};

/**
 * struct iot_series - a disk's intervals.
 * @disk: disk index.
 * @t0: start of interval 0.
 * @lo: start of the window (>= @t0): interval 0 covers [@lo, @t0 + @width).
 * @hi: end of the window: the last interval ends there.
 * @width: interval, ns.
 * @nb: intervals.
 * @b: @nb x IOT_NR_OPS summaries.
 * @depth: @nb average queue depths (all operations), over the part of
 *	the interval the window covers (iot_series_len()).
 */
struct iot_series {
	unsigned int disk;
	uint64_t t0, lo, hi, width;
	size_t nb;
	struct iot_series_op *b;
	double *depth;
};

int iot_series_build(struct iot_series *s, const struct xset *x,
		     unsigned int disk, uint64_t t0, uint64_t t1,
		     uint64_t width);
uint64_t iot_series_len(const struct iot_series *s, size_t k);
void iot_series_free(struct iot_series *s);
void iot_series_span(const struct xset *x, uint64_t *t0, uint64_t *t1);
void iot_ival_json(struct iot_jw *w, const char *source, uint64_t time_ns,
		   uint64_t start_ns, uint64_t width,
		   const struct iot_series_op *ops, double depth, int64_t lost);
void iot_ival_header(FILE *fp, int disk);
void iot_ival_text(FILE *fp, const char *disk, uint64_t time_ns,
		   uint64_t step, uint64_t width,
		   const struct iot_series_op *ops, double depth, int64_t lost);
struct iot_src;
int stats_series(const struct iot_opts *o, struct iot_src *src);

#endif /* IOT_SERIES_H */
