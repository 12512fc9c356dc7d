// SPDX-License-Identifier: GPL-2.0
/*
 * The output layer: a small JSON writer (in the manner of bpftool's
 * json_writer), and the record schema every CSV and JSON output of a
 * request uses (show -o csv|json, export -f csv, follow mode).  The
 * schema is one table, rec_fields[]: the CSV header is its names, a JSON
 * record has them as keys in the same order, so the two cannot drift.
 *
 * Documents: -o json writes one JSON document (an array of records or
 * of statistics objects); --jsonl writes its elements one per line
 * instead, as the streaming modes (show -f, stats --interval) always do.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "macros.h"
#include "numfmt.h"
#include "out.h"

/* ---- JSON writer ------------------------------------------------------- */

void jw_init(struct iot_jw *w, FILE *fp)
{
	memset(w, 0, sizeof(*w));
	w->fp = fp;
	w->first[0] = 1;
}

/* separator before a value or a key at the current depth */
static void jw_sep(struct iot_jw *w)
{
	if (w->after_key) {
		w->after_key = 0;
		return;
	}
	if (!w->first[w->depth])
		fputc_unlocked(',', w->fp);
	w->first[w->depth] = 0;
}

static void jw_open(struct iot_jw *w, int c)
{
	jw_sep(w);
	fputc_unlocked(c, w->fp);
	if (w->depth < IOT_JW_DEPTH - 1)
		w->depth++;
	w->first[w->depth] = 1;
}

void jw_obj_start(struct iot_jw *w)
{
	jw_open(w, '{');
}

void jw_arr_start(struct iot_jw *w)
{
	jw_open(w, '[');
}

static void jw_close(struct iot_jw *w, int c)
{
	fputc_unlocked(c, w->fp);
	if (w->depth)
		w->depth--;
	if (!w->depth) {
		/* a top-level value is done: the next starts afresh */
		w->first[0] = 1;
	}
}

void jw_obj_end(struct iot_jw *w)
{
	jw_close(w, '}');
}

void jw_arr_end(struct iot_jw *w)
{
	jw_close(w, ']');
}

void jw_key(struct iot_jw *w, const char *k)
{
	jw_sep(w);
	iot_json_str(w->fp, k);
	fputc_unlocked(':', w->fp);
	w->after_key = 1;
}

void jw_u64(struct iot_jw *w, uint64_t v)
{
	char t[IOT_FMT_ROOM + 8];

	jw_sep(w);
	fwrite_unlocked(t, 1, (size_t)(iot_fmt_u64(t, v) - t), w->fp);
}

void jw_s64(struct iot_jw *w, int64_t v)
{
	char t[IOT_FMT_ROOM + 8], *p = t;

	jw_sep(w);
	if (v < 0) {
		*p++ = '-';
		p = iot_fmt_u64(p, -(uint64_t)v);
	} else {
		p = iot_fmt_u64(p, (uint64_t)v);
	}
	fwrite_unlocked(t, 1, (size_t)(p - t), w->fp);
}

void jw_float(struct iot_jw *w, const char *fmt, double v)
{
	jw_sep(w);
	fprintf(w->fp, fmt, v);
}

void jw_str(struct iot_jw *w, const char *s)
{
	jw_sep(w);
	iot_json_str(w->fp, s);
}

void jw_bool(struct iot_jw *w, int v)
{
	jw_sep(w);
	fputs(v ? "true" : "false", w->fp);
}

void jw_null(struct iot_jw *w)
{
	jw_sep(w);
	fputs("null", w->fp);
}

void jw_kv_u64(struct iot_jw *w, const char *k, uint64_t v)
{
	jw_key(w, k);
	jw_u64(w, v);
}

void jw_kv_str(struct iot_jw *w, const char *k, const char *s)
{
	jw_key(w, k);
	jw_str(w, s);
}

void jw_kv_float(struct iot_jw *w, const char *k, const char *fmt, double v)
{
	jw_key(w, k);
	jw_float(w, fmt, v);
}

/* ---- documents ----------------------------------------------------------- */

/**
 * iot_out_begin() - start a document of items.
 * @out: output state to set up.
 * @fp: stream.
 * @fmt: FMT_JSON or FMT_CSV (others: the caller prints itself).
 * @jsonl: JSON Lines: one item per line, no enclosing array.
 */
void iot_out_begin(struct iot_out *out, FILE *fp, enum iot_fmt fmt,
		   int jsonl)
{
	memset(out, 0, sizeof(*out));
	out->fp = fp;
	out->fmt = fmt;
	out->jsonl = jsonl;
	jw_init(&out->jw, fp);
	if (fmt == FMT_JSON && !jsonl)
		jw_arr_start(&out->jw);
}

/* Before an item: nothing to do for JSON Lines (a fresh top level). */
void iot_out_item_end(struct iot_out *out)
{
	out->items++;
	if (out->fmt == FMT_JSON && out->jsonl)
		fputc('\n', out->fp);
}

/*
 * CSV lines from now on gathered in large blocks, written block by block
 * (a stream of many records): the document must end with iot_out_end().
 */
void iot_out_batch(struct iot_out *out, const char *what)
{
	out->batch = 1;
	out->what = what;
}

/*
 * The CSV lines gathered so far into the stream (before any other write).
 * A block larger than the stream's buffer goes straight to write(2): a
 * failure is said now, while errno tells why (iot_write_error(), once).
 */
void iot_out_sync(struct iot_out *out)
{
	if (out->len &&
	    fwrite_unlocked(out->buf, 1, out->len, out->fp) != out->len)
		iot_write_error(out->what, errno);
	out->len = 0;
}

/* The end of a document: its lines written, the JSON array closed. */
void iot_out_end(struct iot_out *out)
{
	iot_out_sync(out);
	free(out->buf);
	out->buf = NULL;
	if (out->fmt == FMT_JSON && !out->jsonl) {
		jw_arr_end(&out->jw);
		fputc('\n', out->fp);
	}
}

/**
 * iot_kv_json() - one object of the netlink replies and events (state,
 * events -o json): @ns strings first (the disk's name, what happened),
 * then @n numbers, each key with its one type whatever its value.
 * @w: JSON writer, at a value.
 * @skeys: the keys of the strings.
 * @svals: the strings (a name as the kernel gave it: escaped here).
 * @ns: how many.
 * @kv: the numbers.
 * @n: how many.
 */
void iot_kv_json(struct iot_jw *w, const char *const *skeys,
		 const char *const *svals, size_t ns, const struct iot_kv *kv,
		 size_t n)
{
	size_t i;

	jw_obj_start(w);
	for (i = 0; i < ns; i++)
		jw_kv_str(w, skeys[i], svals[i]);
	for (i = 0; i < n; i++)
		jw_kv_u64(w, kv[i].k, kv[i].v);
	jw_obj_end(w);
}

/* ---- the record schema ------------------------------------------------- */

enum { V_NULL, V_U64, V_S64, V_STR };

struct rec_val {
	int t;
	uint64_t u;
	int64_t s;
	const char *str;
};

/* The fields of a request, in order: CSV columns and JSON keys. */
static const char *const rec_fields[] = {
	"disk", "seq", "issue_ns", "complete_ns", "queue_ns", "latency_ns",
	"op", "opflags", "sector", "bytes", "error", "status", "rflags",
	"issue_cpu", "complete_cpu", "hwq", "tag", "retries", "cmd_type",
	"dev_status", "dev_status_str", "command", "pid", "comm", "cgroup",
};

#define NR_REC_FIELDS	ARRAY_SIZE(rec_fields)

/* the decoded strings of a record, which the values point into */
struct rec_bufs {
	char opflags[128], status[32], ds[160], cmd[256];
};

static void rec_values(const char *disk, const struct iotrace_record *r,
		       struct rec_val *v, struct rec_bufs *b)
{
	unsigned int i = 0;
	const char *comm;
#define U(x)	(v[i].t = V_U64, v[i++].u = (x))
#define S(x)	(v[i].t = V_S64, v[i++].s = (x))
#define STR(x)	(v[i].t = V_STR, v[i++].str = (x))
#define NUL()	(v[i++].t = V_NULL)
	iot_opflags_str(r, b->opflags, sizeof(b->opflags));
	iot_errno_name(r->error, b->status, sizeof(b->status));
	iot_decode_status(r, b->ds, sizeof(b->ds));
	iot_decode_cmd(r, b->cmd, sizeof(b->cmd));
	STR(disk);
	U(r->seq);
	U(r->issue_ns);
	/* no completion (in flight when read): no time, no status */
	if (r->rflags & IOTRACE_RF_COMPLETE)
		U(r->complete_ns);
	else
		NUL();
	if (r->rflags & IOTRACE_RF_QUEUE_VALID)
		U(r->queue_ns);
	else
		NUL();
	if (iot_rec_has_lat(r))
		U(r->complete_ns - r->issue_ns);
	else
		NUL();
	STR(iot_op_name(r->op));
	STR(b->opflags);
	if (r->sector == UINT64_MAX)
		NUL();
	else
		U(r->sector);
	U(r->bytes);
	S(r->error);
	if (r->rflags & IOTRACE_RF_COMPLETE)
		STR(b->status);
	else
		NUL();
	U(r->rflags);
	U(r->issue_cpu);
	U(r->complete_cpu);
	U(r->hwq);
	U(r->tag);
	U(r->retries);
	U(r->cmd_type);
	U(r->dev_status);
	STR(b->ds);
	STR(b->cmd);
	U(r->pid);
	comm = iot_comm_get(r->pid);
	if (comm)
		STR(comm);
	else
		NUL();
	U(r->cgroup);
#undef U
#undef S
#undef STR
#undef NUL
}

/*
 * @s as a CSV field at @p (at most @room bytes, cut beyond): quoted when
 * it holds a comma, a quote or a line end (\n, \r); the end
 */
static char *put_csv_str(char *p, ptrdiff_t room, const char *s)
{
	const char *q;
	char *d = p;

	if (room < 2)
		return p;
	/* copied as it is scanned: no quoting is the common case */
	for (q = s; *q && d < p + room; q++) {
		if (*q == ',' || *q == '"' || *q == '\n' || *q == '\r')
			break;
		*d++ = *q;
	}
	if (!*q || d == p + room) {
		if (!*q || !strpbrk(q, ",\"\n\r"))
			return d;
	}
	*p++ = '"';
	room -= 2;
	for (; *s && room > 1; s++) {
		if (*s == '"') {
			*p++ = '"';
			room--;
		}
		*p++ = *s;
		room--;
	}
	*p++ = '"';
	return p;
}

/*
 * Whether the record has a latency, complete_ns - issue_ns: issued and
 * completed, or an empty PREFLUSH write with its allocation time, whose
 * latency is the wait of the fsync() that sent it (iot_rec_flush_wait()).
 */
int iot_rec_has_lat(const struct iotrace_record *r)
{
	return (r->rflags & IOTRACE_RF_COMPLETE) &&
	       (!(r->rflags & IOTRACE_RF_NO_ISSUE) || iot_rec_flush_wait(r)) &&
	       r->complete_ns >= r->issue_ns;
}

/* The CSV header of the record schema. */
void iot_rec_csv_header(FILE *fp)
{
	size_t i;

	for (i = 0; i < NR_REC_FIELDS; i++)
		fprintf(fp, "%s%s", i ? "," : "", rec_fields[i]);
	fputc('\n', fp);
}

/* a signed decimal */
static char *put_s64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return iot_fmt_u64(p, -(uint64_t)v);
	}
	return iot_fmt_u64(p, (uint64_t)v);
}

/*
 * Strings in the CSV line are scanned 8 bytes at a time: a line is
 * formatted at most CSV_LINE - 8 bytes into its buffer, so the 7 bytes
 * after a string's NUL are in it.  A byte of a word is flagged when it is
 * zero (z8()): exactly for the first such byte, perhaps wrongly for bytes
 * after it (the borrow), which are never looked at.
 */
#define B8(c)	(0x0101010101010101ull * (uint8_t)(c))

static inline uint64_t z8(uint64_t w)
{
	return (w - B8(1)) & ~w & B8(0x80);
}

/* the end of the string at @s */
static inline char *csv_end(char *s)
{
	uint64_t w;

	for (;; s += 8) {
		memcpy(&w, s, 8);
		if (z8(w))
			return s + __builtin_ctzll(z8(w)) / 8;
	}
}

/* whether @s needs CSV quotes; *@end set to its end when not */
static inline int csv_special(char *s, char **end)
{
	uint64_t w, m;

	for (;; s += 8) {
		memcpy(&w, s, 8);
		m = z8(w) | z8(w ^ B8(',')) | z8(w ^ B8('"')) |
		    z8(w ^ B8('\n')) | z8(w ^ B8('\r'));
		if (m) {
			s += __builtin_ctzll(m) / 8;
			*end = s;
			return *s != 0;
		}
	}
}

/* a number, a digit without a call (most of a record's small fields) */
static __always_inline char *put_u(char *p, uint64_t v)
{
	if (v < 10) {
		*p++ = (char)('0' + v);
		return p;
	}
	return iot_fmt_u64(p, v);
}

/* a string of a record's field, written as iot_decode_cmd() writes it */
typedef void (*csv_dec_fn)(const struct iotrace_record *r, char *out,
			   size_t len);

/* iot_errno_name() of the record's error, as a csv_dec_fn */
static void dec_errno(const struct iotrace_record *r, char *out, size_t len)
{
	iot_errno_name(r->error, out, len);
}

/*
 * A string none of whose possible values needs quotes (the names of the
 * request flags and errnos, the operations, digits, '+' and '-'): written
 * by @dec from @r at @p (at most @cap bytes with its NUL, within @end),
 * no scan for quotes.  Return: its end (@p when there is no room).
 */
static __always_inline char *
csv_plain(char *p, char *end, ptrdiff_t cap, csv_dec_fn dec,
	  const struct iotrace_record *r)
{
	ptrdiff_t room = end - p;

	if (room < 2)
		return p;
	dec(r, p, (size_t)(room + 1 < cap ? room + 1 : cap));
	return csv_end(p);
}

/* the largest @cap of csv_dec() */
#define CSV_DEC_MAX	256

/*
 * A decoded string as a CSV field: @dec writes it from @r (at most @cap
 * bytes with its NUL, as into the buffer of struct rec_bufs; @cap at most
 * CSV_DEC_MAX) straight into the line at @p, before @end; moved aside and
 * quoted in the rare case it needs quotes.  Return: the field's end (@p
 * when there is no room).
 */
static __always_inline char *
csv_dec(char *p, char *end, ptrdiff_t cap, csv_dec_fn dec,
	const struct iotrace_record *r)
{
	ptrdiff_t room = end - p;
	char t[CSV_DEC_MAX], *q;

	if (room < 2)
		return p;
	dec(r, p, (size_t)(room + 1 < cap ? room + 1 : cap));
	if (!csv_special(p, &q))
		return q;
	memcpy(t, p, strlen(p) + 1);
	return put_csv_str(p, room, t);
}

/* the most a CSV line takes (its strings are cut to fit) */
#define CSV_LINE	2048

/*
 * One record as a CSV line at @line, the fields of rec_fields[] in their
 * order (the rows of rec_values(), the golden tests hold them equal),
 * formatted by hand: no printf, no intermediate strings.
 */
static char *csv_rec(struct iot_out *out, char *line, size_t size,
		     const char *disk, const struct iotrace_record *r)
{
	char *p = line, *end = line + size - 8;
	const char *comm, *op;

	/* the disk's field, made once per disk */
	if (disk != out->disk) {
		out->disk = disk;
		out->disk_len = put_csv_str(out->disk_csv,
					    sizeof(out->disk_csv), disk) -
				out->disk_csv;
	}
	memcpy(p, out->disk_csv, out->disk_len);
	p += out->disk_len;
	*p++ = ',';
	p = iot_fmt_u64(p, r->seq);
	*p++ = ',';
	p = iot_fmt_u64(p, r->issue_ns);
	*p++ = ',';
	if (r->rflags & IOTRACE_RF_COMPLETE)
		p = iot_fmt_u64(p, r->complete_ns);
	*p++ = ',';
	if (r->rflags & IOTRACE_RF_QUEUE_VALID)
		p = iot_fmt_u64(p, r->queue_ns);
	*p++ = ',';
	if (iot_rec_has_lat(r))
		p = iot_fmt_u64(p, r->complete_ns - r->issue_ns);
	*p++ = ',';
	for (op = iot_op_name(r->op); *op; )
		*p++ = *op++;
	*p++ = ',';
	if (r->opflags)
		p = csv_plain(p, end, 128, iot_opflags_str, r);
	*p++ = ',';
	if (r->sector != UINT64_MAX)
		p = iot_fmt_u64(p, r->sector);
	*p++ = ',';
	p = put_u(p, r->bytes);
	*p++ = ',';
	if (!(r->rflags & IOTRACE_RF_COMPLETE)) {
		p = put_s64(p, r->error);
		*p++ = ',';
	} else if (!r->error) {
		memcpy(p, "0,ok", 4);
		p += 4;
	} else {
		p = put_s64(p, r->error);
		*p++ = ',';
		p = csv_plain(p, end, 32, dec_errno, r);
	}
	*p++ = ',';
	p = put_u(p, r->rflags);
	*p++ = ',';
	p = put_u(p, r->issue_cpu);
	*p++ = ',';
	p = put_u(p, r->complete_cpu);
	*p++ = ',';
	p = put_u(p, r->hwq);
	*p++ = ',';
	p = put_u(p, r->tag);
	*p++ = ',';
	p = put_u(p, r->retries);
	*p++ = ',';
	p = put_u(p, r->cmd_type);
	*p++ = ',';
	p = put_u(p, r->dev_status);
	*p++ = ',';
	p = csv_dec(p, end, 160, iot_decode_status, r);
	*p++ = ',';
	p = csv_dec(p, end, 256, iot_decode_cmd, r);
	*p++ = ',';
	p = put_u(p, r->pid);
	*p++ = ',';
	comm = iot_comm_get(r->pid);
	if (comm)
		p = put_csv_str(p, end - p, comm);
	*p++ = ',';
	p = put_u(p, r->cgroup);
	*p++ = '\n';
	return p;
}

/**
 * iot_out_rec() - one request in the record schema.
 * @out: a document begun with iot_out_begin() (JSON or CSV).
 * @disk: its disk's name.
 * @r: the record.
 *
 * CSV: an absent value (JSON null) is an empty field.  "sector" is null
 * for a request without a media address (UINT64_MAX in the record), so
 * JSON readers never see a number they would round.
 */
void iot_out_rec(struct iot_out *out, const char *disk,
		 const struct iotrace_record *r)
{
	struct rec_val v[NR_REC_FIELDS];
	struct rec_bufs b;
	FILE *fp = out->fp;
	size_t i;

	if (out->fmt == FMT_CSV) {
		char line[CSV_LINE], *p;

		/* formatted in place in a large block, written block by block */
		if (out->batch && !out->buf)
			out->buf = malloc(IOT_OUT_BUF);
		if (out->buf) {
			if (IOT_OUT_BUF - out->len < CSV_LINE)
				iot_out_sync(out);
			p = csv_rec(out, out->buf + out->len, CSV_LINE, disk,
				    r);
			out->len = p - out->buf;
		} else {
			p = csv_rec(out, line, sizeof(line), disk, r);
			fwrite_unlocked(line, 1, p - line, fp);
		}
		out->items++;
		return;
	}
	memset(v, 0, sizeof(v));
	rec_values(disk, r, v, &b);
	jw_obj_start(&out->jw);
	for (i = 0; i < NR_REC_FIELDS; i++) {
		jw_key(&out->jw, rec_fields[i]);
		switch (v[i].t) {
		case V_NULL:
			jw_null(&out->jw);
			break;
		case V_U64:
			jw_u64(&out->jw, v[i].u);
			break;
		case V_S64:
			jw_s64(&out->jw, v[i].s);
			break;
		case V_STR:
			jw_str(&out->jw, v[i].str);
			break;
		}
	}
	jw_obj_end(&out->jw);
	iot_out_item_end(out);
}
