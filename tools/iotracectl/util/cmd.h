/* SPDX-License-Identifier: GPL-2.0 */
/* iotracectl commands: options and entry points. */
#ifndef IOT_CMD_H
#define IOT_CMD_H

#include <stdatomic.h>
#include "iot.h"
#include "macros.h"

enum iot_fmt { FMT_NORMAL, FMT_JSON, FMT_CSV, FMT_HEX, FMT_BINARY, FMT_TRACE };

/* exit status: the output is from a trace file cut short or damaged */
#define IOT_EXIT_SALVAGED	3

#define IOT_MAX_PIDS	64	/* --pid list entries */

/* the shortest --interval of a live mode (live stats, the exporter's file) */
#define IOT_LIVE_INTERVAL_MIN	0.001

/**
 * struct iot_opts - command line options of all commands.
 * @fmt: output format.
 * @op_mask: operations shown (bit per enum iotrace_op slot); 0 = all.
 * @status: 0 any, 1 ok only, 2 errors only, 3 the errno in @status_errno.
 * @status_errno: positive errno for @status 3.
 * @lat_min_ns: only latency above this (ns), if @have_lat.
 * @have_lat: @lat_min_ns is set.
 * @sec_lo: sector range start (inclusive).
 * @sec_hi: sector range end (exclusive).
 * @from_ns: time window start, complete_ns, inclusive.
 * @to_ns: time window end, complete_ns, exclusive.
 * @from_rel: --from +T: @from_ns is T after the trace's start until
 *	cmd_src_times() makes it a time.
 * @to_rel: --to +T, as @from_rel.  Both: IOT_TIME_REL (+T) or
 *	IOT_TIME_WALL (a UTC date: CLOCK_REALTIME ns until then), else 0.
 * @disk: only this disk of a multi-disk file.
 * @interval: seconds between stats reports; 0 = once.
 * @count: reports to print with @interval (0 = until interrupted).
 * @out: record output file.
 * @duration: record duration in seconds (0 = until SIGINT).
 * @size: record size limit in bytes (0 = none).
 * @poll_ms: record polling period.
 * @realtime: show trace-file times as UTC wall-clock time.
 * @xfmt: export/plot: the format of -f (blktrace, fio, perfetto, pftrace,
 *	csv, svg).
 * @show: nvme-layout: print the layout found, do not give it.
 * @quiet: nvme-layout: print nothing (the exit status tells).
 * @jsonl: -o json as JSON Lines (one item per line), not one document.
 * @follow: show -f: a live ring's requests as they complete.
 * @kernel: stats --kernel: the in-kernel metrics, not the ring.
 * @listen: exporter --listen ADDR:PORT.
 * @include: exporter --disk-include REGEX.
 * @exclude: exporter --disk-exclude REGEX.
 * @textfile: exporter --textfile DIR.
 * @once: exporter --once (with --textfile).
 * @pids: --pid: only requests of these submitters (thread group ids).
 * @nr_pids: entries in @pids; 0 = any.
 * @comm: --comm: only requests of submitters of this command name.
 * @cgroup: --cgroup: only requests charged to this cgroup id, if
 *	@have_cgroup.
 * @have_cgroup: @cgroup is set.
 * @top: stats: processes in the per-process table.
 * @sync_interval: record: seconds between two fdatasync()s of new data.
 * @sync_bytes: record: bytes written between two fdatasync()s at most.
 * @w_config: watch, snapshot --config FILE.
 * @w_dir: watch --dir DIR.
 * @w_post: watch --post S (checked by watch, as the file's value).
 * @w_episode: watch --episode S.
 * @w_max_per_hour: watch --max-per-hour N.
 * @w_max_files: watch --max-files N.
 * @w_max_bytes: watch --max-bytes SIZE.
 * @around: show --around-trigger[=N]: records each side; 0 = not given.
 * @stack: show --stack: the logical device and sector of each request.
 * @release: previous --release: free the module's copy once read.
 * @rings: previous --rings DIR: the directory of the ring copies.
 * @no_filter: none of the filters above is set (main() sets it; 0 has
 *	iot_filter() check them all).
 */
struct iot_opts {
	enum iot_fmt fmt;
	uint32_t op_mask;
	int status, status_errno, have_lat;
	uint64_t lat_min_ns, sec_lo, sec_hi, from_ns, to_ns;
	int from_rel, to_rel;
#define IOT_TIME_REL	1
#define IOT_TIME_WALL	2
	const char *disk;
	double interval;
	long count;
	const char *out;
	double duration;
	uint64_t size;
	unsigned int poll_ms;
	int realtime;
	const char *xfmt;
	int show, quiet;
	int jsonl;
	int follow;
	int kernel;
	const char *listen, *include, *exclude, *textfile;
	int once;
	uint32_t pids[IOT_MAX_PIDS];
	unsigned int nr_pids;
	const char *comm;
	uint64_t cgroup;
	int have_cgroup;
	unsigned int top;
	double sync_interval;
	uint64_t sync_bytes;
	const char *w_config, *w_dir, *w_post, *w_episode;
	const char *w_max_per_hour, *w_max_files, *w_max_bytes;
	unsigned int around;
	int stack;
	int release;
	const char *rings;
	int no_filter;
};

int cmd_show(struct iot_opts *o, int argc, char **argv);
int cmd_show_src(struct iot_opts *o, const char *arg, struct iot_src *src);
int iot_around_trigger(struct iot_opts *o, const char *arg, unsigned int n);
int cmd_stats(struct iot_opts *o, int argc, char **argv);
int cmd_record(struct iot_opts *o, int argc, char **argv);
int cmd_list(struct iot_opts *o, int argc, char **argv);
int cmd_inflight(struct iot_opts *o, int argc, char **argv);
int cmd_info(struct iot_opts *o, int argc, char **argv);
int cmd_previous(struct iot_opts *o, int argc, char **argv);
/* export.c, plot.c */
int cmd_export(struct iot_opts *o, int argc, char **argv);
int cmd_plot(struct iot_opts *o, int argc, char **argv);
/* diff.c */
int cmd_diff(struct iot_opts *o, int argc, char **argv);
/* netlink.c: control through the iotrace generic netlink family */
struct nl_sock;
unsigned int iot_genl_version(struct nl_sock *sk);
int cmd_nl_enable(struct iot_opts *o, int argc, char **argv);
int cmd_nl_disable(struct iot_opts *o, int argc, char **argv);
int cmd_nl_clear(struct iot_opts *o, int argc, char **argv);
int cmd_nl_resize(struct iot_opts *o, int argc, char **argv);
int cmd_nl_filter(struct iot_opts *o, int argc, char **argv);
int cmd_nl_trigger(struct iot_opts *o, int argc, char **argv);
int cmd_nl_state(struct iot_opts *o, int argc, char **argv);
int cmd_nl_events(struct iot_opts *o, int argc, char **argv);
int cmd_nl_nvme_layout(struct iot_opts *o, int argc, char **argv);
int cmd_nl_identify(struct iot_opts *o, int argc, char **argv);
int cmd_nl_reset_metrics(struct iot_opts *o, int argc, char **argv);
int iot_nl_enable(struct iot_opts *o, const char *disk, char *err,
		  size_t errlen);
int iot_nl_resize(const char *disk, uint64_t size, char *err, size_t errlen);
/* cmdutil.c: what to do about a refusal (positive errno) */
const char *iot_nl_hint(int err);
/* cmd_metrics.c: stats --kernel; exporter.c */
int cmd_stats_kernel(struct iot_opts *o, int argc, char **argv);
int cmd_exporter(struct iot_opts *o, int argc, char **argv);
/* watch.c: the snapshot service (issue 21) */
int cmd_watch(struct iot_opts *o, int argc, char **argv);
int cmd_snapshot(struct iot_opts *o, int argc, char **argv);

/**
 * struct iot_nl_disk - one disk of iot_nl_list().
 * @name: disk name.
 * @v: attribute values by IOTRACE_A_* (integers).
 * @have: the reply had that attribute.
 * @errnos: the errnos of the error trigger (the repeated
 *	IOTRACE_A_TRIG_ERRNO), @nr_errnos of them.
 * @nr_errnos: entries of @errnos.
 */
struct iot_nl_disk {
	char name[IOTRACE_NAME_LEN + 1];
	uint64_t v[IOTRACE_A_MAX + 1];
	unsigned char have[IOTRACE_A_MAX + 1];
	uint32_t errnos[IOTRACE_TRIG_MAX_ERRNOS];
	unsigned int nr_errnos;
};

int iot_nl_list(struct iot_nl_disk **rows, size_t *n);

/* netlink.c: the source of the in-kernel metrics (see struct iot_msrc) */
struct iot_msrc;
struct iot_metrics;
struct iot_msrc *iot_msrc_open(char *err, size_t errlen);
void iot_msrc_close(struct iot_msrc *s);
int iot_msrc_list(struct iot_msrc *s, struct iot_nl_disk **rows, size_t *n,
		  char *err, size_t errlen);
int iot_msrc_get(struct iot_msrc *s, const char *disk, struct iot_metrics *m,
		 char *err, size_t errlen);
int iot_msrc_reset(struct iot_msrc *s, const char *disk, char *err,
		   size_t errlen);

int iot_filter(const struct iot_opts *o, const struct iotrace_record *r);
/* source.c: a command's DISK|FILE argument, what is said about it */
extern unsigned int iot_salvaged;
int cmd_src_open(struct iot_src *s, const char *arg);
int cmd_src_disk(const struct iot_src *s, const char *name);
void cmd_src_times(struct iot_opts *o, struct iot_src *src);
/* cmdutil.c: a region's counts of what it had no room for, one line */
void iot_print_room(uint32_t refused, int have_evicted, uint32_t evicted);
/* cmdutil.c: output streams, JSON and CSV strings, messages */
void iot_json_str(FILE *fp, const char *s);
void iot_csv_str(FILE *fp, const char *s);
__printf(1, 2) void iot_err(const char *fmt, ...);
int iot_write_error(const char *what, int err);
int iot_out_flush(FILE *fp, const char *what);
int iot_out_durable(FILE *fp, const char *path);
int iot_out_close(FILE *fp, const char *what);
FILE *iot_out_fdopen(int fd);
int iot_out_open(const char *path);
FILE *iot_out_fopen(const char *path);
void iot_out_stdout(void);
int iot_out_fileno(FILE *fp);
void iot_out_no_sigpipe(void);

/* recorder.c: the recording loop, usable on in-memory rings (benchmark) */
/**
 * struct iot_rec_stop - when record stops, and how it makes its file
 *	durable.
 * @stop: set (by a signal handler or another thread) to finish the file
 *	and stop; lock-free, so a signal handler may set it.
 * @max_bytes: stop once the file is this large (0: no limit).
 * @end_mono_ns: stop at this CLOCK_MONOTONIC time (0: none).
 * @poll_ms: the rings are polled this often.
 * @sync_ns: what was written is flushed and fdatasync()ed at most this
 *	long after it was written (0: only at the end).
 * @sync_bytes: and once this much was written since the last time (0: no
 *	such bound).
 * @before_finish: if set, called with the writer before the trailer is
 *	written (watch: its trigger chunks); non-zero fails the write.
 * @arg: its argument.
 * @inflight: save the requests each disk has in flight at the end (its
 *	device's in-flight records, iot_dev_inflight(), taken before the
 *	last pass over the rings) as in-flight chunks before the trailer; not when it ends at
 *	@max_bytes (the records after the cut are still in the rings).
 * @infl_err: if set, says (with @arg) that @disk's table could not be
 *	read and why; else record says it on standard error.
 */
struct iot_rec_stop {
	const atomic_int *stop;
	uint64_t max_bytes;
	uint64_t end_mono_ns;
	unsigned int poll_ms;
	uint64_t sync_ns, sync_bytes;
	int (*before_finish)(struct iot_writer *w, void *arg);
	void *arg;
	int inflight;
	void (*infl_err)(void *arg, const char *disk, const char *why);
};

int iot_record_rings(struct iot_ring *rings, const struct iot_disk *disks,
		     unsigned int nr, FILE *fp, const struct iot_rec_stop *st,
		     struct iot_counts *counts, char *err, size_t errlen);

/* A record's start: its issue, or its completion when it has no issue. */
static inline uint64_t xrec_start(const struct iotrace_record *r)
{
	return r->rflags & IOTRACE_RF_NO_ISSUE ? r->complete_ns : r->issue_ns;
}

/* cmdutil.c: an output stream, @path or stdout for NULL or "-" */
FILE *x_open_out(const char *path);

#endif /* IOT_CMD_H */
