/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-kernel metrics (genl version 3): one disk's IOTRACE_CMD_GET_METRICS
 * reply parsed, its histograms' bounds and quantiles, and the Prometheus /
 * OpenMetrics text exposition of a set of disks (metrics.c).  Nothing here
 * needs libnl: the parser walks the reply's attributes itself, so the host
 * tests and the exporter's canned source use the same code as the kernel's
 * answers.
 */
#ifndef IOT_METRICS_H
#define IOT_METRICS_H

#include "stats.h"

/* error kinds kept per disk; the kernel's table is smaller */
#define IOT_M_MAX_ERRORS	256
/* model, serial, wwn label values: at most this many bytes each */
#define IOT_M_INFO_LEN		128

/**
 * struct iot_metrics - the metrics of one disk.
 * @disk: its name.
 * @reset_ns: IOTRACE_A_M_RESET_NS (CLOCK_REALTIME).
 * @now_ns: IOTRACE_A_M_NOW_NS (CLOCK_MONOTONIC of the reading).
 * @op: per enum iotrace_mop (zero when the reply had none).
 * @timeouts: IOTRACE_A_M_TIMEOUTS.
 * @requeues: IOTRACE_A_M_REQUEUES.
 * @inflight: IOTRACE_A_M_INFLIGHT.
 * @oldest_ns: IOTRACE_A_M_INFLIGHT_OLDEST_NS, if @have_oldest.
 * @have_oldest: a request is in flight.
 * @err: the IOTRACE_A_M_ERROR entries.
 * @nr_err: entries in @err.
 * @overwritten: IOTRACE_A_TOTAL_OVERWRITTEN of the disk's LIST reply.
 * @dropped: IOTRACE_A_TOTAL_DROPPED of the disk's LIST reply.
 * @have_ring: @overwritten and @dropped are known.
 * @model: sysfs model ("" if unknown); exporter only.
 * @serial: sysfs serial.
 * @wwn: sysfs wwid.
 */
struct iot_metrics {
	char disk[IOTRACE_NAME_LEN + 1];
	uint64_t reset_ns, now_ns;
	struct iotrace_metrics_op op[IOTRACE_NR_MOPS];
	uint64_t timeouts, requeues, inflight, oldest_ns;
	int have_oldest;
	struct iotrace_metrics_error err[IOT_M_MAX_ERRORS];
	unsigned int nr_err;
	uint64_t overwritten, dropped;
	int have_ring;
	char model[IOT_M_INFO_LEN], serial[IOT_M_INFO_LEN], wwn[IOT_M_INFO_LEN];
};

const char *iot_mop_name(unsigned int mop);
int iot_metrics_parse(struct iot_metrics *m, const void *attrs, size_t len,
		      char *err, size_t errlen);
int iot_metrics_load(struct iot_metrics *m, const char *path, char *err,
		     size_t errlen);
uint64_t iot_hist_lo_ns(unsigned int b);
uint64_t iot_hist_hi_ns(unsigned int b);
double iot_hist_quantile_ns(const __u64 *h, double q);
double iot_hist_max_ns(const __u64 *h);
void iot_metrics_status(const struct iotrace_metrics_error *e, char *out,
			size_t len);
void iot_metrics_sysfs_info(struct iot_metrics *m, const char *sysfs);
void iot_sysfs_identity(const char *sysfs, const char *name, char *model,
			char *serial, char *wwn, size_t len);
void iot_sysfs_ctrl_identity(const char *sysfs, const char *name,
			     char *model, char *serial, size_t len);

/* exposition formats of iot_prom_write() */
enum iot_prom_fmt { IOT_PROM_TEXT, IOT_PROM_OPENMETRICS };

#define IOT_PROM_CT_TEXT	"text/plain; version=0.0.4; charset=utf-8"
#define IOT_PROM_CT_OM \
	"application/openmetrics-text; version=1.0.0; charset=utf-8"

int iot_prom_write(FILE *fp, const struct iot_metrics *m, size_t n, int up,
		   unsigned int errors, enum iot_prom_fmt fmt);

#endif /* IOT_METRICS_H */
