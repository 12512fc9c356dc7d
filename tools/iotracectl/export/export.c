// SPDX-License-Identifier: GPL-2.0
/*
 * export: the records of a DISK or FILE in formats other tools read:
 * blktrace binary files (blkparse, btt), fio iologs (fio --read_iolog),
 * Chrome/Perfetto trace JSON, Perfetto protobuf (export_pftrace.c) and CSV.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "export.h"
#include "out.h"

void xset_free(struct xset *x)
{
	free(x->v);
	iot_src_close(&x->src);
	memset(x, 0, sizeof(*x));
}

/* ---- the stream -------------------------------------------------------- */

/*
 * The exports are streams: the records in start order through a
 * reordering window of XWINDOW (export.h) records of a trace file, in
 * bounded memory (a ring is read part after part: all of it is held).
 */

/**
 * xstream_open() - open @arg for a streaming export.
 * @xs: the stream to set up (xstream_close() it, also on error).
 * @o: options (filters, --disk).
 * @arg: DISK or FILE.
 *
 * Return: 0, or 2 or 1 after printing what failed (as xset_load()).
 */
int xstream_open(struct xstream *xs, const struct iot_opts *o,
		 const char *arg)
{
	memset(xs, 0, sizeof(*xs));
	xs->x.o = o;
	xs->x.disk = -1;
	xs->label = arg;
	if (cmd_src_open(&xs->x.src, arg))
		return 1;
	cmd_src_times((struct iot_opts *)o, &xs->x.src);
	if (o->disk) {
		xs->x.disk = cmd_src_disk(&xs->x.src, o->disk);
		if (xs->x.disk < 0)
			return 2;
	}
	if (iot_win_init(&xs->win, xs->x.src.is_file ? XWINDOW : 0,
			 iot_xrec_start_key, iot_xrec_cmp_start)) {
		iot_err("out of memory");
		return 1;
	}
	return 0;
}

void xstream_close(struct xstream *xs)
{
	iot_win_free(&xs->win);
	xset_free(&xs->x);
}

/* a record out of the window: to the export's function, in order */
static int xstream_out(struct xstream *xs, const struct xrec *e)
{
	if (xs->n && xrec_start(&e->r) <= xrec_start(&xs->last.r) &&
	    iot_xrec_cmp_start(e, &xs->last) < 0)
		xs->ooo++;
	xs->last.disk = e->disk;
	xs->last.r.rflags = e->r.rflags;
	xs->last.r.issue_ns = e->r.issue_ns;
	xs->last.r.complete_ns = e->r.complete_ns;
	xs->last.r.complete_cpu = e->r.complete_cpu;
	xs->last.r.seq = e->r.seq;
	return xs->fn(xs, e, xs->n++);
}

static int xstream_cb(void *arg, unsigned int disk,
		      const struct iotrace_record *r)
{
	struct xstream *xs = arg;
	const struct xrec *e;

	if (xs->x.disk >= 0 && (int)disk != xs->x.disk)
		return 0;
	if (!iot_filter(xs->x.o, r))
		return 0;
	if (iot_win_push(&xs->win, disk, r, &e))
		return -2;
	return e ? xstream_out(xs, e) : 0;
}

/**
 * xstream_run() - hand the records that pass the filters to @fn, in
 * start order (issue, or completion without issue; ties by disk,
 * completion, CPU, sequence).
 * @xs: an open stream.
 * @fn: called for every record with its index in that order; non-zero
 *	stops (it said why).
 * @arg: its argument (@xs->arg).
 *
 * Return: 0, or 1 after printing what failed.
 */
int xstream_run(struct xstream *xs, xrec_fn fn, void *arg)
{
	char err[IOT_ERR_LEN];
	const struct xrec *e;
	int ret;

	xs->fn = fn;
	xs->arg = arg;
	ret = iot_src_read_merged(&xs->x.src, 1, xstream_cb, xs, err,
				  sizeof(err));
	if (ret == -1 || ret == -2) {
		iot_err("%s", ret == -2 ? "out of memory" : err);
		return 1;
	}
	if (ret)
		return 1;
	while ((e = iot_win_pop(&xs->win)))
		if (xstream_out(xs, e))
			return 1;
	if (xs->ooo)
		fprintf(stderr,
			"iotracectl: %s: %llu records came more than %u records late in the file and were written out of order\n",
			xs->label, (unsigned long long)xs->ooo, XWINDOW);
	if (!xs->x.src.is_file && xs->x.src.counts[0].cleared)
		fprintf(stderr,
			"iotracectl: %s: the ring was cleared while it was read: the records written are those it held before the clear, up to it\n",
			xs->label);
	return 0;
}

/* ---- CSV ---------------------------------------------------------------- */

static int csv_rec(struct xstream *xs, const struct xrec *e, size_t i)
{
	(void)i;
	iot_out_rec(xs->arg, xs->x.src.disks[e->disk].name, &e->r);
	return 0;
}

static int export_csv_stream(const struct iot_opts *o, const char *arg)
{
	struct xstream xs;
	struct iot_out doc;
	FILE *fp = NULL;
	int rc;

	rc = xstream_open(&xs, o, arg);
	if (rc)
		goto out;
	rc = 1;
	fp = x_open_out(o->out);	/* once the source is known good */
	if (!fp)
		goto out;
	iot_out_begin(&doc, fp, FMT_CSV, 0);
	iot_out_batch(&doc, fp == stdout ? "standard output" : o->out);
	iot_rec_csv_header(fp);
	rc = xstream_run(&xs, csv_rec, &doc);
	iot_out_end(&doc);
out:
	if (fp && fp != stdout && iot_out_close(fp, o->out))
		rc = 1;
	xstream_close(&xs);
	return rc;
}

/* ---- fio iolog ---------------------------------------------------------- */

/**
 * export_fio() - an iolog that fio --read_iolog replays.
 * @xs: the records, streamed in issue order.
 * @fp: output.
 * @version: 2 (no times) or 3 (microseconds since the first request
 *	first, as fio writes and reads them).
 *
 * Reads, writes, discards (trim) and flushes (sync) of each disk, on the
 * file /dev/<disk>; other operations (passthrough, zone management) have
 * no fio equivalent and are left out, counted on stderr; so is a read or
 * write of no data (an fsync's empty PREFLUSH write): fio aborts on a line
 * of length 0, and its flush is a sync line already.  fio reads "trim"
 * lines as its documentation says; fio 3.34 and newer replay them
 * (fio commit dd6500e9), fio 3.33 and older do not ("bad ddir: 2").  Their
 * count is said on stderr, with the route for older fio: it replays the
 * discards of a blktrace log (export -f blktrace, blkparse -d, then fio
 * --read_iolog onto a block device), but opens the target of a job with
 * trims without O_DIRECT (until fio commit 85c1cf35, in 3.34), so that
 * log's writes go through the page cache.
 * fio ignores --filename when replaying and opens the file the log
 * names, so stderr says to replay with --replay_redirect.  A disk whose
 * name fio would not read back as /dev/<disk> is refused before anything
 * is written (export_fio_check()).
 *
 * Version 3: fio sleeps between two lines for the difference of their
 * times, but not after a line of time 0 (its previous time 0 means "no
 * previous line"), so the times start at 1 us and the first gap is kept.
 * A request that came out of order (more than the window late in a
 * trace file, said on stderr) has the time of the line before it: the
 * times never go back, nor below the first.
 *
 * Return: 0, or 1 after printing what failed.
 */
struct fio_ctx {
	FILE *fp;
	int version;
	uint64_t t0, last, skipped, trims, empty;
};

/* the time of a line of @f, for a request started at @start */
static unsigned long long fio_time(struct fio_ctx *f, uint64_t start)
{
	if (start > f->last)
		f->last = start;
	return 1 + (f->last - f->t0) / 1000;
}

static int fio_rec(struct xstream *xs, const struct xrec *e, size_t i)
{
	static const char *const act[] = {
		[IOTRACE_OP_READ] = "read", [IOTRACE_OP_WRITE] = "write",
		[IOTRACE_OP_FLUSH] = "sync", [IOTRACE_OP_DISCARD] = "trim",
	};
	struct fio_ctx *f = xs->arg;
	const struct iotrace_record *r = &e->r;

	if (!i) {
		f->t0 = xrec_start(r);
		f->last = f->t0;
	}
	if (r->op > IOTRACE_OP_DISCARD) {
		fio_time(f, xrec_start(r));
		f->skipped++;
		return 0;
	}
	/*
	 * A read or write of no data (an fsync's empty PREFLUSH write): its
	 * flush is a FLUSH record of its own (a sync line), and fio aborts
	 * on a line of length 0 (3.33: "Assertion `fio_file_open(f)'")
	 */
	if (!r->bytes && r->op != IOTRACE_OP_FLUSH &&
	    r->op != IOTRACE_OP_DISCARD) {
		fio_time(f, xrec_start(r));
		f->empty++;
		return 0;
	}
	if (r->op == IOTRACE_OP_DISCARD)
		f->trims++;
	if (f->version == 3)
		fprintf(f->fp, "%llu ", fio_time(f, xrec_start(r)));
	/* no media address (a flush): offset 0, which fio's sync ignores */
	fprintf(f->fp, "/dev/%s %s %llu %u\n",
		xs->x.src.disks[e->disk].name, act[r->op],
		r->sector == UINT64_MAX ? 0ull :
		(unsigned long long)r->sector * 512, r->bytes);
	return 0;
}

/* Whether a path component of @name is "..": /dev/@name is not in /dev. */
static int fio_name_leaves_dev(const char *name)
{
	size_t n;

	for (;; name += n + 1) {
		n = strcspn(name, "/");
		if (n == 2 && name[0] == '.' && name[1] == '.')
			return 1;
		if (!name[n])
			return 0;
	}
}

/*
 * Why the iolog line of /dev/@name would not be replayed onto that file
 * (what fio reads of it), or NULL.  fio reads a line's file name as
 * sscanf("%256s") does: up to the first blank (which a locale may widen
 * beyond ASCII), whatever the bytes before it.
 */
static const char *fio_name_why(const char *name)
{
	static const char *const why[] = {
		"is empty (the log would name /dev/)",
		"has a blank, a control character or a byte outside ASCII, which fio does not read back as one file name",
		"has a '..' component (the log would name a file outside /dev)",
	};
	const unsigned char *p;

	if (!*name)
		return why[0];
	for (p = (const unsigned char *)name; *p; p++)
		if (*p <= ' ' || *p >= 0x7f)
			return why[1];
	return fio_name_leaves_dev(name) ? why[2] : NULL;
}

/**
 * export_fio_check() - refuse a fio export of a disk whose name fio would
 *	not read back from the iolog (fio_name_why()), before any output is
 *	made.
 * @x: the records' source and --disk.
 * @fmt: "fio" or "fio3".
 * @arg: the DISK or FILE argument.
 *
 * Return: 0, or 1 after saying which disk and what to do instead.
 */
static int export_fio_check(const struct xset *x, const char *fmt,
			    const char *arg)
{
	char text[IOT_TEXT_ROOM(IOTRACE_NAME_LEN)];
	const char *why;
	unsigned int d;

	for (d = 0; d < x->src.nr_disks; d++) {
		if (x->disk >= 0 && (int)d != x->disk)
			continue;
		why = fio_name_why(x->src.disks[d].name);
		if (!why)
			continue;
		iot_err("export -f %s: %s holds a disk named %s, whose name %s: no iolog written; export another of its disks with --disk NAME, or this one with -f blktrace, whose events name no file, and replay those with fio --read_iolog=PREFIX.bin --replay_redirect=TARGET (blkparse -i PREFIX -d PREFIX.bin -O first)",
			fmt, arg, iot_text_str(text, sizeof(text),
					       x->src.disks[d].name), why);
		return 1;
	}
	return 0;
}

int export_fio(struct xstream *xs, FILE *fp, int version)
{
	const struct xset *x = &xs->x;
	struct fio_ctx f = { .fp = fp, .version = version };
	unsigned int d;

	fprintf(fp, "fio version %d iolog\n", version);
	for (d = 0; d < x->src.nr_disks; d++) {
		if (x->disk >= 0 && (int)d != x->disk)
			continue;
		if (version == 3)
			fprintf(fp, "0 ");
		fprintf(fp, "/dev/%s add\n", x->src.disks[d].name);
	}
	for (d = 0; d < x->src.nr_disks; d++) {
		if (x->disk >= 0 && (int)d != x->disk)
			continue;
		if (version == 3)
			fprintf(fp, "0 ");
		fprintf(fp, "/dev/%s open\n", x->src.disks[d].name);
	}
	if (xstream_run(xs, fio_rec, &f))
		return 1;
	for (d = 0; d < x->src.nr_disks; d++) {
		if (x->disk >= 0 && (int)d != x->disk)
			continue;
		if (version == 3)
			fprintf(fp, "%llu ", xs->n ? (unsigned long long)
				(1 + (f.last - f.t0) / 1000) : 0ull);
		fprintf(fp, "/dev/%s close\n", x->src.disks[d].name);
	}
	if (f.skipped)
		fprintf(stderr,
			"iotracectl: export: %llu requests with no fio equivalent (passthrough, zone, write-zeroes, ...) left out\n",
			(unsigned long long)f.skipped);
	if (f.empty)
		fprintf(stderr,
			"iotracectl: export: %llu reads or writes of no data (an fsync's empty PREFLUSH writes: their flushes are sync lines) left out\n",
			(unsigned long long)f.empty);
	if (f.trims)
		fprintf(stderr,
			"iotracectl: export: %llu trims (discards) in the iolog, which fio replays onto a block device only: fio 3.34 and newer replay them; 3.33 and older do not (\"bad ddir: 2\") but replay a blktrace log's, that log's writes through the page cache (before 3.34 a job with trims ignores --direct): iotracectl export -f blktrace --disk DISK -o PREFIX FILE; blkparse -i PREFIX -d PREFIX.bin -O; fio --name=replay --read_iolog=PREFIX.bin --replay_redirect=/dev/SCRATCH --ioengine=psync --direct=1\n",
			(unsigned long long)f.trims);
	fprintf(stderr,
		"iotracectl: export: the iolog names /dev/DISK and fio replays onto it, whatever --filename says: replay with fio --read_iolog=LOG --replay_redirect=TARGET (a scratch device or file)\n");
	return 0;
}

/* ---- Chrome / Perfetto trace JSON --------------------------------------- */

static void json_us(FILE *fp, uint64_t ns)
{
	fprintf(fp, "%llu.%03llu", (unsigned long long)(ns / 1000),
		(unsigned long long)(ns % 1000));
}

/**
 * export_perfetto() - Chrome trace event JSON (Perfetto, chrome://tracing).
 * @xs: the records, streamed in start order.
 * @fp: output.
 *
 * A process per disk (pid = disk index + 1) and in it one track per
 * hardware queue: every request is an async slice (a "b" and an "e"
 * event of one id) named "hwq N", so the requests a queue had in flight
 * at once overlap on its one track (Perfetto and chrome://tracing merge
 * async slices of one name in a process into one track and stack the
 * overlapping ones), from issue to completion (a request without a
 * completion or issue gets a zero-length slice at the time known).  The
 * operation, sector, length and the rest are the slice's arguments.
 * Times are microseconds from the earliest request: the first written.
 * A request that came out of order, more than the window late in a trace
 * file (said on stderr), and started before that one, starts at 0 (and
 * ends there too if it ended before): no viewer reads a negative time.
 *
 * Return: 0, or 1 after printing what failed.
 */
static int perfetto_rec(struct xstream *xs, const struct xrec *e, size_t i)
{
	const struct iotrace_record *r = &e->r;
	uint64_t *t0 = xs->arg, s = xrec_start(r);
	uint64_t end = iot_rec_has_lat(r) ? r->complete_ns : s;
	unsigned int pid = e->disk + 1;
	char f[128], cmd[512], st[128];
	FILE *fp = xs->fp;

	if (!i)
		*t0 = s;
	iot_opflags_str(r, f, sizeof(f));
	iot_decode_cmd(r, cmd, sizeof(cmd));
	iot_decode_status(r, st, sizeof(st));
	fprintf(fp,
		",\n{\"name\":\"hwq %u\",\"cat\":\"io\",\"ph\":\"b\",\"id\":\"0x%zx\",\"pid\":%u,\"tid\":0,\"ts\":",
		r->hwq, i + 1, pid);
	json_us(fp, s > *t0 ? s - *t0 : 0);
	fprintf(fp, ",\"args\":{\"op\":\"%s\",\"sector\":",
		iot_op_name(r->op));
	if (r->sector == UINT64_MAX)
		fprintf(fp, "null");
	else
		fprintf(fp, "%llu", (unsigned long long)r->sector);
	fprintf(fp, ",\"bytes\":%u,\"opflags\":", r->bytes);
	iot_json_str(fp, f);
	fprintf(fp,
		",\"hwq\":%u,\"tag\":%u,\"seq\":%u,\"issue_cpu\":%u,\"complete_cpu\":%u,\"error\":%d,\"complete\":%s",
		r->hwq, r->tag, r->seq, r->issue_cpu, r->complete_cpu,
		r->error, r->rflags & IOTRACE_RF_COMPLETE ? "true" : "false");
	if (r->rflags & IOTRACE_RF_QUEUE_VALID)
		fprintf(fp, ",\"queue_ns\":%u", r->queue_ns);
	/* the submitter: an argument of the slice (tracks stay per hwq) */
	fprintf(fp, ",\"submitter_pid\":%u,\"submitter\":", r->pid);
	iot_json_str(fp, iot_rec_comm(r));
	if (r->cgroup)
		fprintf(fp, ",\"cgroup\":%llu", (unsigned long long)r->cgroup);
	if (cmd[0]) {
		fprintf(fp, ",\"command\":");
		iot_json_str(fp, cmd);
	}
	if (st[0]) {
		fprintf(fp, ",\"dev_status_str\":");
		iot_json_str(fp, st);
	}
	fprintf(fp,
		"}},\n{\"name\":\"hwq %u\",\"cat\":\"io\",\"ph\":\"e\",\"id\":\"0x%zx\",\"pid\":%u,\"tid\":0,\"ts\":",
		r->hwq, i + 1, pid);
	json_us(fp, end > *t0 ? end - *t0 : 0);
	fprintf(fp, "}");
	return 0;
}

int export_perfetto(struct xstream *xs, FILE *fp)
{
	const struct xset *x = &xs->x;
	uint64_t t0 = 0;
	int first = 1;
	unsigned int d;

	fprintf(fp, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	for (d = 0; d < x->src.nr_disks; d++) {
		if (x->disk >= 0 && (int)d != x->disk)
			continue;
		fprintf(fp,
			"%s\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":0,\"args\":{\"name\":",
			first ? "" : ",", d + 1);
		iot_json_str(fp, x->src.disks[d].name);
		fprintf(fp, "}}");
		first = 0;
	}
	xs->fp = fp;
	if (xstream_run(xs, perfetto_rec, &t0))
		return 1;
	fprintf(fp, "\n]}\n");
	return 0;
}

/* ---- the command -------------------------------------------------------- */

/* Whether @path names a Perfetto trace file (.pftrace, .perfetto-trace). */
static int is_pftrace_name(const char *path)
{
	static const char *const ext[] = { ".pftrace", ".perfetto-trace", NULL };
	size_t n = path ? strlen(path) : 0, i, k;

	for (i = 0; ext[i]; i++) {
		k = strlen(ext[i]);
		if (n > k && !strcmp(path + n - k, ext[i]))
			return 1;
	}
	return 0;
}

int cmd_export(struct iot_opts *o, int argc, char **argv)
{
	const char *f = o->xfmt ? o->xfmt : "";
	struct xstream xs;
	FILE *fp = NULL;
	int rc;

	if (argc != 1) {
		iot_err("export needs one DISK or FILE argument and -f blktrace|fio|fio3|perfetto|pftrace|csv");
		return 2;
	}
	/* no -f: an OUT named *.pftrace or *.perfetto-trace says it */
	if (!*f && is_pftrace_name(o->out))
		f = "pftrace";
	if (!*f) {
		iot_err("export needs -f FORMAT: blktrace, fio, fio3, perfetto, pftrace or csv");
		return 2;
	}
	if (strcmp(f, "blktrace") && strcmp(f, "fio") && strcmp(f, "fio3") &&
	    strcmp(f, "perfetto") && strcmp(f, "pftrace") && strcmp(f, "csv")) {
		iot_err("export -f %s: unknown format (use blktrace, fio, fio3, perfetto, pftrace or csv)",
			f);
		return 2;
	}
	if (!strcmp(f, "blktrace") && (!o->out || !strcmp(o->out, "-"))) {
		iot_err("export -f blktrace writes files: give their prefix with -o DIR/NAME (blkparse -i NAME -D DIR reads them)");
		return 2;
	}
	if (!strcmp(f, "pftrace") && (!o->out || !strcmp(o->out, "-")) &&
	    isatty(STDOUT_FILENO)) {
		iot_err("export -f pftrace writes a binary file: give it with -o FILE.pftrace or redirect standard output");
		return 2;
	}
	if (!strcmp(f, "csv"))
		return export_csv_stream(o, argv[0]);
	rc = xstream_open(&xs, o, argv[0]);
	if (rc)
		goto out;
	if (!strcmp(f, "blktrace")) {
		rc = export_blktrace(&xs, o->out);
		goto out;
	}
	/* before the output is made: a refused iolog leaves no file */
	if (f[0] == 'f') {
		rc = export_fio_check(&xs.x, f, argv[0]);
		if (rc)
			goto out;
	}
	fp = x_open_out(o->out);
	if (!fp) {
		rc = 1;
		goto out;
	}
	if (!strcmp(f, "perfetto"))
		rc = export_perfetto(&xs, fp);
	else if (!strcmp(f, "pftrace"))
		rc = export_pftrace(&xs, fp);
	else
		rc = export_fio(&xs, fp, f[3] == '3' ? 3 : 2);
	if (fp != stdout && iot_out_close(fp, o->out))
		rc = 1;
out:
	xstream_close(&xs);
	return rc;
}
