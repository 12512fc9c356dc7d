// SPDX-License-Identifier: GPL-2.0
/*
 * show: one line per request, merged across parts and sorted by completion
 * time (ties by issue time, disk, CPU), in the table, hex, binary, JSON or
 * CSV form; show --around-trigger: the records around a snapshot's trigger
 * (its trigger chunk, util/trigfile.c).
 */
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "numfmt.h"
#include "window.h"
#include "out.h"
#include "trigger.h"
#include "stack.h"

/**
 * struct show_ctx - records collected for show.
 * @o: options.
 * @src: the source.
 * @v: records.
 * @n: used.
 * @cap: allocated.
 * @disk: disk index to keep (-1 = all).
 * @window: streaming (a trace file): records held in the reordering
 *	window @win before the earliest is printed; 0: all, sorted at the end.
 * @multi: a DISK column (normal output).
 * @started: the header is out.
 * @doc: JSON/CSV document.
 * @last: the last record printed (streaming).
 * @ooo: records that came after a later one was printed (the window was
 *	too small for them).
 * @win: streaming: the window.
 * @tr: -o trace: the file's writer and chunks (NULL for other outputs).
 * @dname: the disk name last printed in the DISK column, @dtext as text.
 * @dtext: see @dname.
 * @stk: show --stack: the device stack of the source.
 */
struct show_trace;

struct show_ctx {
	const struct iot_opts *o;
	const struct iot_src *src;
	struct xrec *v;
	size_t n, cap;
	int disk;
	size_t window;
	int multi, started;
	struct iot_out doc;
	struct xrec last;
	uint64_t ooo;
	struct iot_win win;
	struct show_trace *tr;
	const char *dname;
	char dtext[IOT_TEXT_ROOM(IOTRACE_NAME_LEN)];
	struct iot_stack stk;
};

/* records of a disk written to -o trace's file a chunk at a time */
#define TRACE_CHUNK	1024

/**
 * struct show_trace - show -o trace: a trace file of the records shown.
 * @w: its writer.
 * @buf: per disk, TRACE_CHUNK records (allocated with the disk's first).
 * @n: per disk, records in @buf.
 * @seq: per disk, the records written before @buf's: a chunk's first
 *	sequence number, so the chunks of a disk follow on without a gap
 *	(the records keep their own numbers).
 * @counts: per disk, the trailer's counts (what was written).
 * @nomem: a disk's chunk could not be allocated (its records are lost).
 * @end_mono: a ring's trailer end time (its last record's end).
 * @end_real: that in wall-clock time (0: unknown).
 */
struct show_trace {
	struct iot_writer w;
	int nomem;
	struct iotrace_record *buf[IOT_MAX_DISKS];
	uint32_t n[IOT_MAX_DISKS];
	uint64_t seq[IOT_MAX_DISKS];
	struct iot_counts counts[IOT_MAX_DISKS];
	uint64_t end_mono, end_real;
};

/* records a trace file is read ahead by, to print them in order */
#define SHOW_WINDOW	16384

static void win_emit(struct show_ctx *c, const struct xrec *e);

static int collect(void *arg, unsigned int disk,
		   const struct iotrace_record *r)
{
	struct show_ctx *c = arg;

	if (c->disk >= 0 && (int)disk != c->disk)
		return 0;
	if (!iot_filter(c->o, r))
		return 0;
	if (c->window) {
		const struct xrec *e;

		if (iot_win_push(&c->win, disk, r, &e))
			return -2;
		if (e)
			win_emit(c, e);
		return 0;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 4096;
		struct xrec *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return -2;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n].r = *r;
	c->v[c->n].disk = disk;
	c->n++;
	return 0;
}

/* print one record in the output format (its header first) */
static void emit(struct show_ctx *c, const struct xrec *sr);

/* the earliest record of the window out, printed */
static void win_emit(struct show_ctx *c, const struct xrec *e)
{
	if (c->started && e->r.complete_ns <= c->last.r.complete_ns &&
	    iot_xrec_cmp_complete(e, &c->last) < 0)
		c->ooo++;
	c->last = *e;
	emit(c, e);
}

/*
 * The table's line is made by hand in a buffer, as the CSV line is: the
 * fields, widths and digits of the printf formats it replaced ("%10s %9s
 * %-14s ...", "%.3f" of ns / 1000.0), which cost some 17,000 instructions
 * a record (the doubles most of it).
 */

/*
 * The most a table line takes: a disk name and a submitter's name (as
 * iot_text_str() prints them: 4 bytes for a byte at most), the decoders'
 * strings (their buffers below) and the numbers.
 */
#define TAB_LINE	(1280 + 16 + IOT_TEXT_ROOM(IOTRACE_STACK_NAME_LEN))

/* @s (@n bytes) at @p, right-aligned in @w columns (none cut); the end */
static inline char *tab_r(char *p, const char *s, size_t n, size_t w)
{
	if (n < w) {
		memset(p, ' ', w - n);
		p += w - n;
	}
	memcpy(p, s, n);
	return p + n;
}

/* @s at @p, left-aligned in @w columns (none cut); the end */
static inline char *tab_l(char *p, const char *s, size_t w)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	p += n;
	if (n < w) {
		memset(p, ' ', w - n);
		p += w - n;
	}
	return p;
}

/* @v at @p, right-aligned in @w columns; the end */
static inline char *tab_u(char *p, uint64_t v, size_t w)
{
	char t[24 + IOT_FMT_ROOM];

	return tab_r(p, t, (size_t)(iot_fmt_u64(t, v) - t), w);
}

/*
 * "%.3f" of @ns / 1000.0 (microseconds) into @t (32 bytes); its length.
 * Below 10^15 ns that is the exact decimal (the double is within half a
 * unit of its last place of it, less than 0.0005); beyond, the double's.
 */
static size_t us3(char *t, uint64_t ns)
{
	uint32_t f = (uint32_t)(ns % 1000);
	char *p;

	if (ns >= 1000000000000000ull)
		return (size_t)snprintf(t, 32, "%.3f", ns / 1000.0);
	p = iot_fmt_u64(t, ns / 1000);
	*p++ = '.';
	*p++ = (char)('0' + f / 100);
	memcpy(p, iot_d2 + f % 100 * 2, 2);
	return (size_t)(p + 2 - t);
}

/* the latency column into @t (32 bytes); its length */
static size_t lat_str(const struct iotrace_record *r, char *t)
{
	if (!iot_rec_has_lat(r)) {
		*t = '-';
		return 1;
	}
	return us3(t, r->complete_ns - r->issue_ns);
}

/* the queue time column into @t (32 bytes); its length */
static size_t q_str(const struct iotrace_record *r, char *t)
{
	if (!(r->rflags & IOTRACE_RF_QUEUE_VALID)) {
		*t = '-';
		return 1;
	}
	return us3(t, r->queue_ns);
}

static void normal_header(const struct show_ctx *c, int multi)
{
	printf("%-*s %s%10s %9s %-14s %12s %8s %s%-10s %7s %4s %5s %7s %-15s %-16s %s\n",
	       c->o->realtime && c->src->is_file ? 27 : 17,
	       c->o->realtime && c->src->is_file ? "TIME_UTC" : "TIME_S",
	       multi ? "DISK         " : "", "LAT_US", "Q_US", "OP",
	       "SECTOR", "BYTES",
	       c->o->stack ? "LOGICAL              L_SECTOR " : "",
	       "STATUS", "CPU", "HWQ", "TAG", "PID", "COMM",
	       "DEVSTATUS", "COMMAND");
}

/*
 * show --stack: the device a user knows (the topmost dm or md device, or
 * partition, above the record's sector) and the sector there, "+" after
 * it when the request runs past the mapped range; "-" for none.
 */
static char *stack_cols(struct show_ctx *c, const struct xrec *sr, char *p)
{
	char t[IOT_TEXT_ROOM(IOTRACE_STACK_NAME_LEN)];
	const char *name;
	uint64_t sec;
	int partial;

	if (!iot_stack_top(&c->stk, &c->src->disks[sr->disk], &sr->r, &name,
			   &sec, &partial)) {
		p = tab_l(p, "-", 16);
		*p++ = ' ';
		p = tab_r(p, "-", 1, 12);
		*p++ = ' ';
		return p;
	}
	p = tab_l(p, iot_text_str(t, sizeof(t), name), 16);
	*p++ = ' ';
	if (partial) {
		char u[IOT_FMT_ROOM + 2], *q = iot_fmt_u64(u, sec);

		*q++ = '+';
		p = tab_r(p, u, (size_t)(q - u), 12);
	} else {
		p = tab_u(p, sec, 12);
	}
	*p++ = ' ';
	return p;
}

static void normal_rec(struct show_ctx *c, const struct xrec *sr, int multi)
{
	const struct iotrace_record *r = &sr->r;
	char line[TAB_LINE], t[32 + IOT_FMT_ROOM], f[128], ds[160], cmd[256];
	char comm[IOT_TEXT_ROOM(IOT_COMM_LEN)];
	char *p = line, *q;
	size_t n;

	if (!(r->rflags & IOTRACE_RF_COMPLETE)) {
		/* in flight when read: no completion time */
		p = tab_r(p, "-", 1, c->o->realtime && c->src->is_file ?
			  27 : 17);
		*p++ = ' ';
	} else if (c->o->realtime && c->src->is_file) {
		const struct iotrace_file_hdr *h = &c->src->fi->hdr;
		uint64_t ts = r->complete_ns - h->anchor_mono_ns +
			h->anchor_real_ns;
		time_t sec = (time_t)(ts / 1000000000ull);
		struct tm tm;

		gmtime_r(&sec, &tm);
		p += strftime(p, 32, "%Y-%m-%dT%H:%M:%S", &tm);
		p += snprintf(p, 16, ".%06lluZ ",
			      (unsigned long long)(ts % 1000000000ull) / 1000);
	} else {
		/* "%10llu.%06llu " */
		p = tab_u(p, r->complete_ns / 1000000000ull, 10);
		*p++ = '.';
		iot_fmt_8(t, (uint32_t)(r->complete_ns % 1000000000ull / 1000));
		memcpy(p, t + 2, 6);
		p += 6;
		*p++ = ' ';
	}
	if (multi) {
		/* the name as text, made again when the disk changes */
		if (c->dname != c->src->disks[sr->disk].name) {
			c->dname = c->src->disks[sr->disk].name;
			iot_text_str(c->dtext, sizeof(c->dtext), c->dname);
		}
		p = tab_l(p, c->dtext, 12);
		*p++ = ' ';
	}
	n = lat_str(r, t);
	p = tab_r(p, t, n, 10);
	*p++ = ' ';
	n = q_str(r, t);
	p = tab_r(p, t, n, 9);
	*p++ = ' ';
	/* the operation and its flags, "%-14s" */
	q = p;
	p = stpcpy(p, iot_op_name(r->op));
	iot_opflags_str(r, f, sizeof(f));
	p = stpcpy(p, f);
	if (p - q < 14) {
		memset(p, ' ', 14 - (p - q));
		p = q + 14;
	}
	*p++ = ' ';
	if (r->sector == UINT64_MAX)
		p = tab_r(p, "-", 1, 12);
	else
		p = tab_u(p, r->sector, 12);
	*p++ = ' ';
	p = tab_u(p, r->bytes, 8);
	*p++ = ' ';
	if (c->o->stack)
		p = stack_cols(c, sr, p);
	if (r->rflags & IOTRACE_RF_COMPLETE)
		iot_errno_name(r->error, t, 32);
	else
		memcpy(t, "-", 2);	/* no status yet */
	p = tab_l(p, t, 10);
	*p++ = ' ';
	/* "%u>%u", "%7s" */
	q = iot_fmt_u32(t, r->issue_cpu);
	*q++ = '>';
	q = iot_fmt_u32(q, r->complete_cpu);
	p = tab_r(p, t, (size_t)(q - t), 7);
	*p++ = ' ';
	p = tab_u(p, r->hwq, 4);
	*p++ = ' ';
	p = tab_u(p, r->tag, 5);
	*p++ = ' ';
	if (r->pid)
		p = tab_u(p, r->pid, 7);
	else
		p = tab_r(p, "-", 1, 7);
	*p++ = ' ';
	p = tab_l(p, iot_text_str(comm, sizeof(comm), iot_rec_comm(r)), 15);
	*p++ = ' ';
	iot_decode_status(r, ds, sizeof(ds));
	p = tab_l(p, ds, 16);
	*p++ = ' ';
	iot_decode_cmd(r, cmd, sizeof(cmd));
	p = stpcpy(p, cmd);
	if (r->rflags & IOTRACE_RF_ADMIN)
		p = stpcpy(p, " [admin]");
	if (r->rflags & IOTRACE_RF_REQUEUED)
		p = stpcpy(p, " [requeued]");
	if (r->rflags & IOTRACE_RF_TIMEOUT)
		p = stpcpy(p, " [timeout]");
	if (r->rflags & IOTRACE_RF_PREFLUSH)
		p = stpcpy(p, " [preflush]");
	if (r->rflags & IOTRACE_RF_POSTFLUSH)
		p = stpcpy(p, " [postflush]");
	if (r->rflags & IOTRACE_RF_TRIGGER)
		p = stpcpy(p, " [trigger]");
	if (iot_rec_path(c->src->disks[sr->disk].name, r, t, sizeof(t)))
		p += sprintf(p, " [path %s]", t);
	*p++ = '\n';
	fwrite_unlocked(line, 1, (size_t)(p - line), stdout);
}

static void hex_header(void)
{
	printf("%-4s %-8s %-16s %-16s %-8s %-16s %-8s %-2s %-4s %-4s %-4s ",
	       "DISK", "SEQ", "ISSUE_NS", "COMPLETE_NS", "QUEUE_NS", "SECTOR",
	       "BYTES", "OP", "RFL", "OPF", "ERR");
	printf("%-8s %-8s %-2s %-4s %-4s %-4s %-4s %-2s %-8s %-16s %s\n",
	       "DEVSTAT", "RESULT", "CT", "ICPU", "CCPU", "HWQ", "TAG", "RT",
	       "PID", "CGROUP", "CMD");
}

static const char hex_digit[] = "0123456789abcdef";

/* @v in lower-case hex, at least @w digits ("%0*llx"), and a space at @p */
static char *put_hex(char *p, uint64_t v, int w)
{
	char t[16];
	int n = 0;

	do {
		t[n++] = hex_digit[v & 15];
		v >>= 4;
	} while (v);
	while (n < w)
		t[n++] = '0';
	while (n)
		*p++ = t[--n];
	*p++ = ' ';
	return p;
}

/* made by hand as the table's line is: printf per command byte was most */
static void hex_rec(const struct xrec *sr)
{
	const struct iotrace_record *r = &sr->r;
	int n = r->cmd_len > IOTRACE_CMD_LEN ? IOTRACE_CMD_LEN : r->cmd_len;
	char line[400], *p = line;
	int j;

	/*
	 * "%04x %08x %016llx %016llx %08x %016llx %08x %02x %04x %04x %04x
	 * %08x %08x %02x %04x %04x %04x %04x %02x %08x %016llx "
	 */
	p = put_hex(p, sr->disk, 4);
	p = put_hex(p, r->seq, 8);
	p = put_hex(p, r->issue_ns, 16);
	p = put_hex(p, r->complete_ns, 16);
	p = put_hex(p, r->queue_ns, 8);
	p = put_hex(p, r->sector, 16);
	p = put_hex(p, r->bytes, 8);
	p = put_hex(p, r->op, 2);
	p = put_hex(p, r->rflags, 4);
	p = put_hex(p, r->opflags, 4);
	p = put_hex(p, (uint16_t)r->error, 4);
	p = put_hex(p, r->dev_status, 8);
	p = put_hex(p, r->dev_result, 8);
	p = put_hex(p, r->cmd_type, 2);
	p = put_hex(p, r->issue_cpu, 4);
	p = put_hex(p, r->complete_cpu, 4);
	p = put_hex(p, r->hwq, 4);
	p = put_hex(p, r->tag, 4);
	p = put_hex(p, r->retries, 2);
	p = put_hex(p, r->pid, 8);
	p = put_hex(p, r->cgroup, 16);
	if (!(r->rflags & IOTRACE_RF_CMD_VALID))
		n = 0;
	for (j = 0; j < n; j++) {
		*p++ = hex_digit[r->cmd[j] >> 4];
		*p++ = hex_digit[r->cmd[j] & 15];
	}
	if (!n)
		*p++ = '-';
	*p++ = '\n';
	fwrite_unlocked(line, 1, (size_t)(p - line), stdout);
}

/* the time a record ends (its completion, else its issue) */
static uint64_t rec_end(const struct iotrace_record *r)
{
	return r->rflags & IOTRACE_RF_COMPLETE ? r->complete_ns : r->issue_ns;
}

/*
 * -o trace: the file's header, as the source's (a trace file's host,
 * kernel and clock anchor).  A ring has none: the file starts at its
 * first record's start and ends (trace_finish()) at its last record's
 * end; a live ring is this machine's (host, kernel, the offset between
 * its clocks now), a ring copy's host, kernel and wall-clock time are
 * unknown (empty, 0).  A ring's records are all read (c->v) before the
 * first is written.
 */
static void trace_start(struct show_ctx *c)
{
	const struct iot_src *src = c->src;
	const struct iotrace_file_hdr *h = src->fi ? &src->fi->hdr : NULL;
	uint64_t mono, real = 0, lo = UINT64_MAX, hi = 0;
	struct utsname u;
	size_t i;

	memset(&u, 0, sizeof(u));
	if (h) {
		iot_writer_start(&c->tr->w, stdout,
				 sizeof(struct iotrace_record), src->disks,
				 src->nr_disks, h->anchor_mono_ns,
				 h->anchor_real_ns, h->release, h->host);
		return;
	}
	for (i = 0; i < c->n; i++) {
		uint64_t a = iot_rec_start(&c->v[i].r), b = rec_end(&c->v[i].r);

		if (a < lo)
			lo = a;
		if (b > hi)
			hi = b;
	}
	mono = iot_now(CLOCK_MONOTONIC);
	if (src->live) {
		real = iot_now(CLOCK_REALTIME) - mono;
		if (uname(&u))
			memset(&u, 0, sizeof(u));
	}
	if (!c->n) {	/* no record: an empty span, now for a live ring */
		lo = src->live ? mono : 0;
		hi = lo;
	}
	c->tr->end_mono = hi;
	c->tr->end_real = src->live ? hi + real : 0;
	iot_writer_start(&c->tr->w, stdout, sizeof(struct iotrace_record),
			 src->disks, src->nr_disks, lo, src->live ? lo + real : 0,
			 u.release, u.nodename);
}

/* -o trace: the records of disk @d gathered so far into a chunk */
static void trace_flush(struct show_trace *t, unsigned int d)
{
	iot_writer_chunk(&t->w, d, 0, t->seq[d], t->buf[d], t->n[d]);
	t->seq[d] += t->n[d];
	t->counts[d].written += t->n[d];
	t->counts[d].recorded += t->n[d];
	t->counts[d].completed += t->n[d];
	t->n[d] = 0;
}

static void trace_rec(struct show_ctx *c, const struct xrec *sr)
{
	struct show_trace *t = c->tr;
	unsigned int d = sr->disk;

	if (!t->buf[d]) {
		t->buf[d] = malloc(TRACE_CHUNK * sizeof(*t->buf[d]));
		if (!t->buf[d]) {
			t->nomem = 1;
			return;
		}
	}
	t->buf[d][t->n[d]++] = sr->r;
	if (t->n[d] == TRACE_CHUNK)
		trace_flush(t, d);
}

/*
 * -o trace of a snapshot file: its trigger chunks (those of --disk's
 * disk with --disk), before the trailer as watch writes them.
 */
static void trace_triggers(struct show_ctx *c)
{
	const struct iot_src *src = c->src;
	struct iotrace_file_trigger *t = calloc(IOT_MAX_DISKS, sizeof(*t));
	unsigned int disks[IOT_MAX_DISKS];
	int n, i;

	if (!t) {
		c->tr->nomem = 1;
		return;
	}
	n = iot_file_triggers(src->buf, src->len, src->fi, t, disks,
			      IOT_MAX_DISKS);
	if (n < 0)
		iot_err("%s: its trigger chunks could not be read: the trace file lacks them",
			src->label);
	for (i = 0; i < n; i++)
		if (disks[i] < src->nr_disks &&
		    (c->disk < 0 || (int)disks[i] == c->disk))
			iot_writer_trigger(&c->tr->w, disks[i], &t[i]);
	free(t);
}

/*
 * -o trace: the last chunks, the names of the submitters, the trailer
 * (the source's end time for a trace file).  Returns 1 after saying what
 * failed.
 */
static int trace_finish(struct show_ctx *c)
{
	struct show_trace *t = c->tr;
	const struct iot_file_info *fi = c->src->fi;
	struct iotrace_file_comm *v = NULL;
	unsigned int d;
	int n;

	for (d = 0; d < c->src->nr_disks; d++)
		if (t->n[d])
			trace_flush(t, d);
	n = iot_comm_take_dirty(&v);
	if (n > 0)
		iot_writer_comms(&t->w, v, (uint32_t)n);
	free(v);
	if (fi)
		trace_triggers(c);
	if (fi && fi->has_trailer)
		iot_writer_finish(&t->w, t->counts, fi->trailer.end_mono_ns,
				  fi->trailer.end_real_ns);
	else if (fi)
		iot_writer_finish(&t->w, t->counts, iot_now(CLOCK_MONOTONIC),
				  iot_now(CLOCK_REALTIME));
	else
		iot_writer_finish(&t->w, t->counts, t->end_mono, t->end_real);
	for (d = 0; d < c->src->nr_disks; d++)
		free(t->buf[d]);
	if (t->nomem) {
		iot_err("out of memory: the trace file lacks records");
		return 1;
	}
	return 0;
}

/* the header of the output, before its first record */
static void emit_header_only(struct show_ctx *c)
{
	c->started = 1;
	if (c->o->fmt == FMT_TRACE) {
		trace_start(c);
		return;
	}
	if (c->o->fmt == FMT_NORMAL) {
		normal_header(c, c->multi);
	} else if (c->o->fmt == FMT_HEX) {
		hex_header();
	} else if (c->o->fmt != FMT_BINARY) {
		iot_out_begin(&c->doc, stdout, c->o->fmt, c->o->jsonl);
		/* cmd_show() ends it */
		iot_out_batch(&c->doc, "standard output");
	}
	if (c->o->fmt == FMT_CSV)
		iot_rec_csv_header(stdout);
}

static void emit(struct show_ctx *c, const struct xrec *sr)
{
	if (!c->started)
		emit_header_only(c);
	switch (c->o->fmt) {
	case FMT_NORMAL:
		normal_rec(c, sr, c->multi);
		break;
	case FMT_HEX:
		hex_rec(sr);
		break;
	case FMT_BINARY:
		fwrite(&sr->r, sizeof(sr->r), 1, stdout);
		break;
	case FMT_TRACE:
		trace_rec(c, sr);
		break;
	default:
		iot_out_rec(&c->doc, c->src->disks[sr->disk].name, &sr->r);
	}
}

static volatile sig_atomic_t fstop;

static void on_sig(int sig)
{
	(void)sig;
	fstop = 1;
}

/*
 * show -f DISK: the requests of a live ring as they complete, from now
 * on: every 50 ms the new records of every part, filtered, in completion
 * order within the batch, until SIGINT/SIGTERM, --count records, or the
 * ring turns DETACHED (said; the records it holds then are shown first).
 * Records the kernel overwrote before they could be read are counted and
 * said on standard error at the end.
 */
static int show_follow(struct show_ctx *c, struct iot_src *src)
{
	const struct iot_opts *o = c->o;
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	struct iot_ring_follow f;
	uint64_t shown = 0;
	struct iot_out doc;
	size_t i;
	int rc = 0;

	if (iot_ring_follow_init(&f, &src->ring)) {
		iot_err("out of memory");
		return 1;
	}
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);
	/* a closed output pipe is said, not a silent end */
	iot_out_no_sigpipe();
	if (o->fmt == FMT_NORMAL)
		normal_header(c, 0);
	else if (o->fmt == FMT_HEX)
		hex_header();
	/* JSON: a stream of lines, whatever --jsonl */
	iot_out_begin(&doc, stdout, o->fmt == FMT_CSV ? FMT_CSV : FMT_JSON, 1);
	/* synced every poll, ended at the end */
	iot_out_batch(&doc, "standard output");
	if (o->fmt == FMT_CSV)
		iot_rec_csv_header(stdout);
	if (iot_out_flush(stdout, "standard output"))
		goto out;
	while (!fstop && (!o->count || shown < (uint64_t)o->count)) {
		int detached;

		nanosleep(&ts, NULL);
		/* final before this poll: it reads all there will be */
		detached = iot_ring_detached(&src->ring);
		c->n = 0;
		/* names noted before the completions this poll reads */
		iot_comm_load_kernel();
		if (iot_ring_follow_poll(&f, collect, c)) {
			iot_err("out of memory");
			rc = 1;
			goto out;
		}
		if (c->n > 1)
			qsort(c->v, c->n, sizeof(*c->v),
			      iot_xrec_cmp_complete);
		for (i = 0; i < c->n; i++) {
			if (o->count && shown >= (uint64_t)o->count)
				break;
			shown++;
			if (o->fmt == FMT_NORMAL)
				normal_rec(c, &c->v[i], 0);
			else if (o->fmt == FMT_HEX)
				hex_rec(&c->v[i]);
			else if (o->fmt == FMT_BINARY)
				fwrite(&c->v[i].r, sizeof(c->v[i].r), 1, stdout);
			else
				iot_out_rec(&doc, src->disks[0].name,
					    &c->v[i].r);
		}
		iot_out_sync(&doc);
		if (iot_out_flush(stdout, "standard output")) {
			rc = 1;
			break;
		}
		if (detached) {
			fprintf(stderr,
				"show: %s: the ring was detached (disk removed or ring resized): following it ends here\n",
				src->label);
			break;
		}
	}
	if (f.lost)
		fprintf(stderr,
			"iotracectl: %s: %llu records overwritten or torn before they could be read\n",
			src->label, (unsigned long long)f.lost);
out:
	iot_out_end(&doc);
	iot_ring_follow_free(&f);
	return rc;
}

/*
 * show DISK|FILE; @opened: the source of argv[0] already open (show
 * --around-trigger's, which read it first: standard input is read once),
 * taken over, else NULL.
 */
static int show_run(struct iot_opts *o, int argc, char **argv,
		    struct iot_src *opened)
{
	struct show_ctx c = { .o = o, .disk = -1 };
	char err[IOT_ERR_LEN];
	struct iot_src src = { .fd = -1 };
	unsigned int i;
	uint64_t skipped = 0;
	int ret;

	if (opened) {
		src = *opened;
		memset(opened, 0, sizeof(*opened));
		opened->fd = -1;
	}
	if (argc != 1) {
		iot_err("show needs one DISK or FILE argument (try 'iotracectl list' for disks)");
		iot_stack_free(&c.stk);
		iot_src_close(&src);
		return 2;
	}
	if ((o->fmt == FMT_BINARY || o->fmt == FMT_TRACE) &&
	    isatty(STDOUT_FILENO)) {
		iot_err("-o %s writes %s: redirect standard output to a file or a pipe",
			o->fmt == FMT_TRACE ? "trace" : "binary",
			o->fmt == FMT_TRACE ? "a trace file" : "raw records");
		iot_stack_free(&c.stk);
		iot_src_close(&src);
		return 2;
	}
	if (o->fmt == FMT_TRACE && (o->follow || o->around)) {
		iot_err("show -o trace: a trace file of a DISK or FILE read once (not with %s; iotracectl record DISK -o FILE records a live disk)",
			o->follow ? "-f" : "--around-trigger");
		iot_stack_free(&c.stk);
		iot_src_close(&src);
		return 2;
	}
	if (!opened && cmd_src_open(&src, argv[0]))
		return 1;
	cmd_src_times(o, &src);
	if (o->realtime && !src.is_file) {
		iot_err("show --realtime: %s is not a trace file: only a trace file's header has the clock anchor that gives wall-clock times",
			argv[0]);
		iot_stack_free(&c.stk);
		iot_src_close(&src);
		return 2;
	}
	/* before the modes: a --disk the source does not hold is refused */
	if (o->disk) {
		c.disk = cmd_src_disk(&src, o->disk);
		if (c.disk < 0) {
			iot_stack_free(&c.stk);
			iot_src_close(&src);
			return 2;
		}
	}
	if (o->stack) {
		if (iot_src_stack(&src, &c.stk, err, sizeof(err))) {
			iot_err("%s", err);
			iot_src_close(&src);
			return 1;
		}
		if (err[0])
			fprintf(stderr, "iotracectl: %s\n", err);
		if (!c.stk.n)
			fprintf(stderr,
				"iotracectl: %s: no device stack %s: LOGICAL is - throughout\n",
				argv[0], src.is_file ?
				"saved in it that this iotracectl reads (recorded where no dm or md device was, or by an older iotracectl)"
				: "(a ring copy: only a trace file or a live disk has one)");
	}
	if (o->follow || o->count) {
		if (!o->follow) {
			iot_err("show: --count needs --follow (-f)");
			ret = 2;
		} else if (!src.live) {
			iot_err("show -f: %s is not a live disk: follow mode reads a ring as the kernel writes it (a FILE is read whole by show without -f)",
				argv[0]);
			ret = 2;
		} else {
			c.src = &src;
			ret = show_follow(&c, &src);
		}
		free(c.v);
		iot_stack_free(&c.stk);
		iot_src_close(&src);
		return ret;
	}
	if (o->fmt == FMT_BINARY && src.nr_disks > 1 && c.disk < 0) {
		char list[1024];

		/* a raw record has no field for its disk: one disk at a time */
		iot_src_disk_list(&src, list, sizeof(list));
		iot_err("show -o binary: %s holds %u disks (%s) and a raw record does not say which it is on: give --disk NAME, one disk per output, or -o trace (a trace file: every disk, read back by iotracectl)",
			argv[0], src.nr_disks, list);
		iot_stack_free(&c.stk);
		iot_src_close(&src);
		return 2;
	}
	c.src = &src;
	c.multi = src.nr_disks > 1;
	if (o->fmt == FMT_TRACE) {
		c.tr = calloc(1, sizeof(*c.tr));
		if (!c.tr) {
			iot_err("out of memory");
			iot_stack_free(&c.stk);
			iot_src_close(&src);
			return 1;
		}
	}
	/*
	 * A trace file is a stream: its records are printed through a
	 * sorted window of SHOW_WINDOW records, in bounded memory.  A
	 * ring is read part after part (a part holds the requests that
	 * completed on one CPU): all of it is kept and sorted.
	 */
	c.window = src.is_file ? SHOW_WINDOW : 0;
	if (c.window && iot_win_init(&c.win, c.window, iot_xrec_complete_key,
				     iot_xrec_cmp_complete)) {
		iot_err("out of memory");
		iot_stack_free(&c.stk);
		iot_src_close(&src);
		return 1;
	}
	ret = iot_src_read_merged(&src, 0, collect, &c, err, sizeof(err));
	if (ret) {
		iot_err("%s", ret == -2 ? "out of memory" : err);
		iot_out_sync(&c.doc);	/* the lines printed so far */
		free(c.doc.buf);
		if (c.tr)	/* what was read, as a trace file that ends */
			trace_finish(&c);
		free(c.tr);
		free(c.v);
		iot_win_free(&c.win);
		iot_stack_free(&c.stk);
		iot_src_close(&src);
		return 1;
	}
	if (c.window) {
		const struct xrec *e;

		while ((e = iot_win_pop(&c.win)))
			win_emit(&c, e);
	} else {
		if (c.n)
			qsort(c.v, c.n, sizeof(*c.v), iot_xrec_cmp_complete);
		for (i = 0; i < c.n; i++)
			emit(&c, &c.v[i]);
	}
	if (!c.started) {	/* no record: the header alone */
		emit_header_only(&c);
	}
	if (o->fmt == FMT_JSON || o->fmt == FMT_CSV)
		iot_out_end(&c.doc);
	if (c.tr && trace_finish(&c)) {
		free(c.tr);
		iot_win_free(&c.win);
		free(c.v);
		iot_stack_free(&c.stk);
		iot_src_close(&src);
		return 1;
	}
	free(c.tr);
	if (c.ooo)
		fprintf(stderr,
			"iotracectl: %s: %llu records came more than %u records late in the file and were printed out of order\n",
			argv[0], (unsigned long long)c.ooo, SHOW_WINDOW);
	for (i = 0; i < src.nr_disks; i++)
		skipped += src.counts[i].torn;
	if (skipped)
		fprintf(stderr, "iotracectl: %s: %llu torn or overwritten records skipped\n",
			argv[0], (unsigned long long)skipped);
	for (i = 0; i < src.nr_disks; i++)
		if (src.counts[i].cleared)
			break;
	if (i < src.nr_disks)
		fprintf(stderr,
			"iotracectl: %s: the ring was cleared while it was read: the records shown are those it held before the clear, up to it\n",
			argv[0]);
	iot_win_free(&c.win);
	free(c.v);
	iot_stack_free(&c.stk);
	iot_src_close(&src);
	return 0;
}

int cmd_show(struct iot_opts *o, int argc, char **argv)
{
	return show_run(o, argc, argv, NULL);
}

/**
 * cmd_show_src() - show of @arg, whose source @src is already open.
 * @o: show's options.
 * @arg: the DISK or FILE argument (for the messages).
 * @src: its source, taken over (closed here).
 *
 * Return: show's exit status.
 */
int cmd_show_src(struct iot_opts *o, const char *arg, struct iot_src *src)
{
	char *argv[1] = { (char *)arg };

	return show_run(o, 1, argv, src);
}

/* a snapshot's triggers, one per disk at most */
#define MAX_TRIGS	IOT_MAX_DISKS

/**
 * struct around - the completion times of the records show would print.
 * @o: show's filters.
 * @t: the times.
 * @n: entries.
 * @cap: room.
 * @disk: only this disk index, or -1.
 */
struct around {
	struct iot_opts *o;
	uint64_t *t;
	size_t n, cap;
	int disk;
};

static int around_cb(void *arg, unsigned int disk,
		     const struct iotrace_record *r)
{
	struct around *a = arg;

	if ((a->disk >= 0 && (int)disk != a->disk) || !iot_filter(a->o, r))
		return 0;
	if (a->n == a->cap) {
		size_t c = a->cap ? a->cap * 2 : 4096;
		uint64_t *t = realloc(a->t, c * sizeof(*t));

		if (!t)
			return -2;
		a->t = t;
		a->cap = c;
	}
	a->t[a->n++] = r->complete_ns;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/**
 * iot_around_trigger() - "show FILE --around-trigger N": show with the
 *	time window of the @n records completed before the trigger of the
 *	file and the @n completed at or after it (records that complete in
 *	the same nanosecond as the last of these come too).
 * @o: show's options (the window narrows --from and --to).
 * @arg: the snapshot file.
 * @n: records each side.
 *
 * The trigger is that of --disk, else the file's first.
 *
 * Return: show's exit status, 1 when @arg has no trigger, 2 when it
 * holds no disk named --disk.
 */
int iot_around_trigger(struct iot_opts *o, const char *arg, unsigned int n)
{
	struct iotrace_file_trigger *t = calloc(MAX_TRIGS, sizeof(*t));
	unsigned int disks[MAX_TRIGS];
	struct around a = { .o = o, .disk = -1 };
	char err[IOT_ERR_LEN];
	struct iot_src src;
	size_t i, lo, hi;
	int k, nt, ret = 1;

	if (!t) {
		iot_err("out of memory");
		return 1;
	}
	if (cmd_src_open(&src, arg)) {
		free(t);
		return 1;
	}
	if (!src.is_file) {
		iot_err("show --around-trigger: %s is not a trace file (a snapshot of 'iotracectl watch' has a trigger)",
			arg);
		goto out;
	}
	/* --from/--to +T: times before the trigger's window cuts them */
	cmd_src_times(o, &src);
	/* a --disk the file does not hold: a usage error, as show says */
	if (o->disk && cmd_src_disk(&src, o->disk) < 0) {
		ret = 2;
		goto out;
	}
	nt = iot_file_triggers(src.buf, src.len, src.fi, t, disks, MAX_TRIGS);
	if (nt < 0) {
		iot_src_read_error(&src, err, sizeof(err));
		iot_err("%s", err);
		goto out;
	}
	for (k = 0; k < nt; k++)
		if (!o->disk || (disks[k] < src.fi->nr_disks &&
				 !strcmp(src.fi->disks[disks[k]].name, o->disk)))
			break;
	if (k == nt) {
		iot_err("show --around-trigger: %s has no trigger%s%s (only snapshots of 'iotracectl watch' have one)",
			arg, o->disk ? " for disk " : "", o->disk ? o->disk : "");
		goto out;
	}
	if (o->disk)
		a.disk = (int)disks[k];
	if (iot_src_read(&src, around_cb, &a, err, sizeof(err))) {
		iot_err("%s", err[0] ? err : "out of memory");
		goto out;
	}
	qsort(a.t, a.n, sizeof(*a.t), cmp_u64);
	for (i = 0; i < a.n && a.t[i] < t[k].mono_ns; i++)
		;
	lo = i > n ? i - n : 0;
	hi = i + n < a.n ? i + n : a.n;	/* exclusive */
	if (lo < hi) {
		if (a.t[lo] > o->from_ns)
			o->from_ns = a.t[lo];
		if (a.t[hi - 1] + 1 < o->to_ns)
			o->to_ns = a.t[hi - 1] + 1;
	} else {
		o->to_ns = o->from_ns;	/* nothing to show */
	}
	free(a.t);
	free(t);
	o->no_filter = 0;	/* the window is a filter of its own */
	/* the source as read: standard input is read once */
	return cmd_show_src(o, arg, &src);
out:
	iot_src_close(&src);
	free(a.t);
	free(t);
	return ret;
}
