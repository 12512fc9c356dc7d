/* SPDX-License-Identifier: GPL-2.0 */
/* Time series of a recording (series.c): stats --interval, plot. */
#ifndef IOT_SERIES_H
#define IOT_SERIES_H

#include "cmd.h"
#include "window.h"
#include "out.h"

#define IOT_SERIES_MAX	1000000u	/* intervals kept at most */

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
 * @tot_n: those with a total latency (queue + device, iot_rec_total());
 *	@n - @tot_n were left out (no queue time).
 * @tot_sum: sum of their total latencies, ns.
 * @tot_max: the largest.
 * @tp50: their median, as @p50.
 * @tp99: their 99th percentile, as @p99.
 */
struct iot_series_op {
	uint64_t n, bytes, lat_n, lat_sum, lat_max, p50, p99, inflight_ns;
	uint64_t tot_n, tot_sum, tot_max, tp50, tp99;
};

struct ser_blk;

/**
 * struct iot_series - a disk's intervals.
 * @disk: disk index.
 * @t0: start of interval 0.
 * @lo: start of the window (>= @t0): interval 0 covers [@lo, @t0 + @width).
 * @hi: end of the window: the last interval ends there.
 * @width: interval, ns.
 * @nb: intervals.
 * @cap: intervals held: interval k is in slot k % @cap (all those kept,
 *	or those a request still to come can reach: struct iot_series_set).
 * @blk: @cap slots, each NULL (nothing in that interval yet) or the
 *	interval's summaries (series.c), allocated when a request first
 *	adds to it.
 * @run: per operation, the requests in flight through the whole of the
 *	interval being made final (series.c: the sum of their differences).
 */
struct iot_series {
	unsigned int disk;
	uint64_t t0, lo, hi, width;
	uint64_t nb, cap;
	struct ser_blk **blk;
	int64_t run[IOT_NR_OPS];
};

const struct iot_series_op *iot_series_ops(const struct iot_series *s,
					   uint64_t k);
double iot_series_depth(const struct iot_series *s, uint64_t k);

struct ser_lat;

/**
 * struct iot_series_set - the time series of the disks of a source, fed
 * a request at a time in completion order (iot_series_add()).
 * @nd: disks kept.
 * @s: their series (@nd).
 * @slot: a disk's index in @s, -1: not kept.
 * @anchor: start of interval 0.
 * @width: interval, ns.
 * @nb: intervals of the window.
 * @keep: those kept, the first @keep of them (stats --count): a request
 *	that completes after them adds to none but their queue depth.
 * @maxlat: the longest latency of the requests to come: an interval
 *	that ends @maxlat before the last completion is final.
 * @base: the intervals before it are final (handed to @emit).
 * @cur: the interval whose latencies @lat holds.
 * @n: requests added.
 * @work: the intervals the requests' time in flight was added to one
 *	at a time (at most three a request, whatever it spans: a cost, for
 *	the tests).
 * @late_out: requests left out, their interval final when they came.
 * @late_pct: requests left out of their interval's P50/P99 only.
 * @nomem: out of memory (a histogram).
 * @totals: keep the total latencies (queue + device) too (stats; not
 *	plot, which draws none).
 * @emit: called with each interval once it is final, in order; NULL:
 *	every interval is kept (@cap = @keep), final after iot_series_end().
 * @arg: its argument.
 * @free: summaries of intervals already handed to @emit, to use again.
 * @lat: latencies of interval @cur: @nlat device latencies (per disk
 *	and operation), then @nlat total latencies.
 * @nlat: disks x IOT_NR_OPS.
 * @dirty: the entries of @lat that hold some.
 * @ndirty: entries in @dirty.
 */
struct iot_series_set {
	unsigned int nd;
	struct iot_series *s;
	int slot[IOT_MAX_DISKS];
	uint64_t anchor, width, nb, keep, maxlat, base, cur, n, work;
	uint64_t late_out, late_pct;
	int nomem, totals;
	void (*emit)(void *arg, uint64_t k);
	void *arg;
	struct ser_blk *free;
	struct ser_lat *lat;
	size_t nlat;
	uint32_t *dirty;
	size_t ndirty;
};

struct iot_src;
int iot_series_init(struct iot_series_set *ss, const struct iot_src *src,
		    int disk, uint64_t anchor, uint64_t lo, uint64_t hi,
		    uint64_t width, uint64_t maxlat, uint64_t keep,
		    void (*emit)(void *arg, uint64_t k), void *arg);
void iot_series_add(struct iot_series_set *ss, const struct xrec *e);
void iot_series_end(struct iot_series_set *ss);
void iot_series_free(struct iot_series_set *ss);
uint64_t iot_series_len(const struct iot_series *s, uint64_t k);
void iot_series_late(const struct iot_series_set *ss, const char *label);

/**
 * struct iot_sweep - a source read twice, for stats --interval and plot
 * in memory that does not grow with it (iot_sweep_run()).
 * @o: options (filters).
 * @src: the source, open.
 * @disk: the disk kept (--disk), -1: all.
 * @pre: first, every record of the disks kept, filtered or not, in any
 *	order; non-zero stops.
 * @start: then once, before @each; non-zero (an exit status) stops.
 * @each: then the records that pass the filters, in completion order.
 * @arg: their argument.
 * @n: the records that pass the filters.
 * @maxlat: their longest latency (issue to completion).
 * @win: the window that puts the records in order.
 */
struct iot_sweep {
	const struct iot_opts *o;
	struct iot_src *src;
	int disk;
	int (*pre)(void *arg, unsigned int disk,
		   const struct iotrace_record *r);
	int (*start)(void *arg);
	void (*each)(void *arg, const struct xrec *e);
	void *arg;
	uint64_t n, maxlat;
	struct iot_win win;
};

int iot_sweep_run(struct iot_sweep *sw);
void iot_ival_json(struct iot_jw *w, const char *source, uint64_t time_ns,
		   uint64_t start_ns, uint64_t width,
		   const struct iot_series_op *ops, double depth, int64_t lost);
void iot_ival_header(FILE *fp, int disk);
void iot_ival_csv_header(FILE *fp);
void iot_ival_csv(FILE *fp, const char *disk, uint64_t time_ns,
		  uint64_t start_ns, uint64_t width,
		  const struct iot_series_op *ops, double depth, int64_t lost);
void iot_ival_text(FILE *fp, const char *disk, uint64_t time_ns,
		   uint64_t step, uint64_t width,
		   const struct iot_series_op *ops, double depth, int64_t lost);
int stats_series(const struct iot_opts *o, struct iot_src *src);

#endif /* IOT_SERIES_H */
