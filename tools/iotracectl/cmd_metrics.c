// SPDX-License-Identifier: GPL-2.0
/*
 * stats DISK --kernel: the in-kernel metrics of a disk (genl version 3):
 * counts, bytes, errors and latency percentiles per operation, exact since
 * the last reset whatever the ring overwrote.
 *
 * Percentiles are estimated from the kernel's log-linear histogram the way
 * Prometheus' histogram_quantile() does it: linear interpolation inside the
 * bucket that holds the rank (so the figures agree with a PromQL query on
 * the exporter's histograms); max is the upper bound of the highest bucket
 * used.  Every figure is within one bucket (at most 25%) of the truth.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "macros.h"
#include "metrics.h"
#include "out.h"

static const double pcts[] = { 0.5, 0.9, 0.99, 0.999 };
static const char *const pct_names[] = { "p50", "p90", "p99", "p99.9" };
#define NR_PCTS	ARRAY_SIZE(pcts)

static uint64_t since_reset_ns(const struct iot_metrics *m)
{
	uint64_t now = iot_now(CLOCK_REALTIME);

	return now > m->reset_ns ? now - m->reset_ns : 0;
}

static uint64_t oldest_age_ns(const struct iot_metrics *m)
{
	return m->have_oldest && m->now_ns > m->oldest_ns ?
		m->now_ns - m->oldest_ns : 0;
}

static uint64_t hist_n(const __u64 *h)
{
	uint64_t n = 0;
	unsigned int b;

	for (b = 0; b < IOTRACE_HIST_BUCKETS; b++)
		n += h[b];
	return n;
}

/* a latency in us, "-" when the histogram is empty */
static void put_us(FILE *fp, double ns)
{
	if (ns < 0)
		fprintf(fp, " %10s", "-");
	else
		fprintf(fp, " %10.1f", ns / 1000.0);
}

static void print_lat(FILE *fp, const struct iot_metrics *m, int queue)
{
	unsigned int op, k;

	fprintf(fp, "%s latency, us:\n%-11s %12s", queue ? "queue" : "device",
		"op", "count");
	for (k = 0; k < NR_PCTS; k++)
		fprintf(fp, " %10s", pct_names[k]);
	fprintf(fp, " %10s %10s\n", "max", "mean");
	for (op = 0; op < IOTRACE_NR_MOPS; op++) {
		const struct iotrace_metrics_op *o = &m->op[op];
		const __u64 *h = queue ? o->queue_hist : o->dev_hist;
		uint64_t n = hist_n(h), sum = queue ? o->queue_sum_ns :
			o->dev_sum_ns;

		if (!o->requests && !n)
			continue;
		fprintf(fp, "%-11s %12" PRIu64, iot_mop_name(op), n);
		for (k = 0; k < NR_PCTS; k++)
			put_us(fp, iot_hist_quantile_ns(h, pcts[k]));
		put_us(fp, iot_hist_max_ns(h));
		put_us(fp, n ? (double)sum / (double)n : -1);
		fputc('\n', fp);
	}
}

static void print_normal(FILE *fp, const struct iot_metrics *m)
{
	char when[64], st[48];
	time_t t = (time_t)(m->reset_ns / 1000000000u);
	struct tm tm;
	unsigned int op, i;

	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	fprintf(fp, "%s: in-kernel metrics since %s (%.3f s ago)\n", m->disk,
		when, (double)since_reset_ns(m) / 1e9);
	fprintf(fp, "%-11s %12s %16s %10s\n", "op", "requests", "bytes",
		"errors");
	for (op = 0; op < IOTRACE_NR_MOPS; op++)
		fprintf(fp, "%-11s %12" PRIu64 " %16" PRIu64 " %10" PRIu64 "\n",
			iot_mop_name(op), (uint64_t)m->op[op].requests,
			(uint64_t)m->op[op].bytes, (uint64_t)m->op[op].errors);
	print_lat(fp, m, 0);
	print_lat(fp, m, 1);
	fprintf(fp, "timeouts %" PRIu64 ", requeues %" PRIu64 ", in flight %"
		PRIu64, m->timeouts, m->requeues, m->inflight);
	if (m->have_oldest)
		fprintf(fp, ", oldest issued %.3f ms ago",
			(double)oldest_age_ns(m) / 1e6);
	fputc('\n', fp);
	if (m->nr_err)
		fprintf(fp, "errors by status:\n");
	for (i = 0; i < m->nr_err; i++) {
		char en[32];

		iot_metrics_status(&m->err[i], st, sizeof(st));
		iot_errno_name((int)m->err[i].errno_val, en, sizeof(en));
		fprintf(fp, "  %-11s %-24s %-12s %12" PRIu64 "\n",
			iot_mop_name(m->err[i].mop), st,
			m->err[i].errno_val ? en : "-",
			(uint64_t)m->err[i].count);
	}
	fprintf(fp,
		"(percentiles interpolated inside the kernel's histogram buckets, each at most 25%% wide; max: the upper bound of the highest bucket used)\n");
}

static void json_lat(struct iot_jw *w, const char *key, const __u64 *h,
		     uint64_t sum)
{
	uint64_t n = hist_n(h);
	unsigned int k;
	double v;

	jw_key(w, key);
	jw_obj_start(w);
	jw_kv_u64(w, "count", n);
	jw_kv_u64(w, "sum_ns", sum);
	for (k = 0; k < NR_PCTS; k++) {
		char name[16];

		snprintf(name, sizeof(name), "%s_ns", pct_names[k]);
		v = iot_hist_quantile_ns(h, pcts[k]);
		jw_key(w, name);
		if (v < 0)
			jw_null(w);
		else
			jw_float(w, "%.1f", v);
	}
	v = iot_hist_max_ns(h);
	jw_key(w, "max_ns");
	if (v < 0)
		jw_null(w);
	else
		jw_float(w, "%.0f", v);
	jw_key(w, "hist");
	jw_arr_start(w);
	for (k = 0; k < IOTRACE_HIST_BUCKETS; k++)
		jw_u64(w, h[k]);
	jw_arr_end(w);
	jw_obj_end(w);
}

static void print_json(struct iot_out *doc, const struct iot_metrics *m)
{
	struct iot_jw *w = &doc->jw;
	unsigned int op, i;

	jw_obj_start(w);
	jw_kv_str(w, "disk", m->disk);
	jw_kv_u64(w, "reset_ns", m->reset_ns);
	jw_kv_u64(w, "since_reset_ns", since_reset_ns(m));
	jw_key(w, "ops");
	jw_arr_start(w);
	for (op = 0; op < IOTRACE_NR_MOPS; op++) {
		const struct iotrace_metrics_op *o = &m->op[op];

		jw_obj_start(w);
		jw_kv_str(w, "op", iot_mop_name(op));
		jw_kv_u64(w, "requests", o->requests);
		jw_kv_u64(w, "bytes", o->bytes);
		jw_kv_u64(w, "errors", o->errors);
		json_lat(w, "device", o->dev_hist, o->dev_sum_ns);
		json_lat(w, "queue", o->queue_hist, o->queue_sum_ns);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_kv_u64(w, "timeouts", m->timeouts);
	jw_kv_u64(w, "requeues", m->requeues);
	jw_kv_u64(w, "inflight", m->inflight);
	jw_key(w, "oldest_age_ns");
	if (m->have_oldest)
		jw_u64(w, oldest_age_ns(m));
	else
		jw_null(w);
	jw_key(w, "errors");
	jw_arr_start(w);
	for (i = 0; i < m->nr_err; i++) {
		char st[48];

		iot_metrics_status(&m->err[i], st, sizeof(st));
		jw_obj_start(w);
		jw_kv_str(w, "op", iot_mop_name(m->err[i].mop));
		jw_kv_str(w, "status", st);
		jw_kv_u64(w, "errno", m->err[i].errno_val);
		jw_kv_u64(w, "count", m->err[i].count);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
	iot_out_item_end(doc);
}

static void csv_header(FILE *fp)
{
	unsigned int k, q;

	fprintf(fp, "disk,op,requests,bytes,errors");
	for (q = 0; q < 2; q++) {
		const char *p = q ? "queue" : "dev";

		fprintf(fp, ",%s_count,%s_sum_ns", p, p);
		for (k = 0; k < NR_PCTS; k++)
			fprintf(fp, ",%s_%s_ns", p, pct_names[k]);
		fprintf(fp, ",%s_max_ns", p);
	}
	fprintf(fp, ",timeouts,requeues,inflight,oldest_age_ns,since_reset_ns\n");
}

static void csv_lat(FILE *fp, double v)
{
	if (v < 0)
		fputc(',', fp);
	else
		fprintf(fp, ",%.1f", v);
}

static void print_csv(FILE *fp, const struct iot_metrics *m)
{
	unsigned int op, k, q;

	for (op = 0; op < IOTRACE_NR_MOPS; op++) {
		const struct iotrace_metrics_op *o = &m->op[op];

		fprintf(fp, "%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64, m->disk,
			iot_mop_name(op), (uint64_t)o->requests,
			(uint64_t)o->bytes, (uint64_t)o->errors);
		for (q = 0; q < 2; q++) {
			const __u64 *h = q ? o->queue_hist : o->dev_hist;

			fprintf(fp, ",%" PRIu64 ",%" PRIu64, hist_n(h),
				(uint64_t)(q ? o->queue_sum_ns : o->dev_sum_ns));
			for (k = 0; k < NR_PCTS; k++)
				csv_lat(fp, iot_hist_quantile_ns(h, pcts[k]));
			csv_lat(fp, iot_hist_max_ns(h));
		}
		fprintf(fp, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", m->timeouts,
			m->requeues, m->inflight);
		if (m->have_oldest)
			fprintf(fp, "%" PRIu64, oldest_age_ns(m));
		fprintf(fp, ",%" PRIu64 "\n", since_reset_ns(m));
	}
}

int cmd_stats_kernel(struct iot_opts *o, int argc, char **argv)
{
	char err[IOT_ERR_LEN];
	struct iot_metrics *m;
	struct iot_msrc *s;
	struct iot_out doc;
	int i, rc = 0;

	if (argc < 1) {
		iot_err("stats --kernel needs one or more DISK arguments (try 'iotracectl list' for disks)");
		return 2;
	}
	if (o->interval || o->op_mask || o->status || o->have_lat ||
	    o->sec_lo || o->sec_hi != UINT64_MAX || o->from_ns || o->from_rel ||
	    o->to_ns != UINT64_MAX || o->disk) {
		iot_err("stats --kernel: the in-kernel metrics take no filters and no --interval");
		return 2;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		iot_err("out of memory");
		return 1;
	}
	s = iot_msrc_open(err, sizeof(err));
	if (!s) {
		iot_err("%s", err);
		free(m);
		return 1;
	}
	if (o->fmt == FMT_JSON)
		iot_out_begin(&doc, stdout, FMT_JSON, o->jsonl);
	else if (o->fmt == FMT_CSV)
		csv_header(stdout);
	for (i = 0; i < argc; i++) {
		int ret = iot_msrc_get(s, argv[i], m, err, sizeof(err));

		if (ret == -ENODEV) {
			iot_err("%s: no such disk ('iotracectl list' shows the traced disks)",
				argv[i]);
			rc = 1;
			continue;
		}
		if (ret) {
			iot_err("%s", err);
			rc = 1;
			if (ret == -EOPNOTSUPP)
				break;
			continue;
		}
		if (o->fmt == FMT_JSON) {
			print_json(&doc, m);
		} else if (o->fmt == FMT_CSV) {
			print_csv(stdout, m);
		} else {
			if (i)
				putchar('\n');
			print_normal(stdout, m);
		}
	}
	if (o->fmt == FMT_JSON)
		iot_out_end(&doc);
	iot_msrc_close(s);
	free(m);
	return rc;
}
