/* SPDX-License-Identifier: GPL-2.0 */
/* The output layer: JSON writer, documents, the record schema (out.c). */
#ifndef IOT_OUT_H
#define IOT_OUT_H

#include "cmd.h"
#include "stats.h"

#define IOT_JW_DEPTH	16

/**
 * struct iot_jw - JSON writer state.
 * @fp: stream.
 * @depth: nesting depth.
 * @after_key: a key was written, its value comes next.
 * @first: no value yet at this depth.
 */
struct iot_jw {
	FILE *fp;
	int depth, after_key;
	unsigned char first[IOT_JW_DEPTH];
};

void jw_init(struct iot_jw *w, FILE *fp);
void jw_obj_start(struct iot_jw *w);
void jw_obj_end(struct iot_jw *w);
void jw_arr_start(struct iot_jw *w);
void jw_arr_end(struct iot_jw *w);
void jw_key(struct iot_jw *w, const char *k);
void jw_u64(struct iot_jw *w, uint64_t v);
void jw_s64(struct iot_jw *w, int64_t v);
void jw_float(struct iot_jw *w, const char *fmt, double v);
void jw_str(struct iot_jw *w, const char *s);
void jw_bool(struct iot_jw *w, int v);
void jw_null(struct iot_jw *w);
void jw_kv_u64(struct iot_jw *w, const char *k, uint64_t v);
void jw_kv_str(struct iot_jw *w, const char *k, const char *s);
void jw_kv_float(struct iot_jw *w, const char *k, const char *fmt, double v);

/**
 * struct iot_out - a document of items (records, statistics objects).
 * @fp: stream.
 * @fmt: FMT_JSON or FMT_CSV.
 * @jsonl: JSON Lines (one item per line) rather than one array.
 * @items: items written.
 * @jw: the JSON writer.
 * @batch: CSV lines are gathered in @buf (iot_out_batch()); the caller
 *	ends the document with iot_out_end(), or iot_out_sync() before it
 *	writes anything else to @fp.
 * @what: @fp for a message ("standard output", a path), with @batch: a
 *	block that cannot be written is reported at once, with its errno.
 * @buf: CSV: lines not yet handed to @fp (IOT_OUT_BUF bytes, allocated
 *	with the first record; NULL: each line is written at once).
 * @len: bytes in @buf.
 * @disk: CSV: the disk name of the last record, @disk_csv its field.
 * @disk_csv: that name as a CSV field (quoted if need be).
 * @disk_len: its length.
 */
struct iot_out {
	FILE *fp;
	enum iot_fmt fmt;
	int jsonl;
	uint64_t items;
	struct iot_jw jw;
	int batch;
	const char *what;
	char *buf;
	size_t len;
	const char *disk;
	char disk_csv[2 * IOTRACE_NAME_LEN + 4];
	size_t disk_len;
};

/* CSV lines are gathered in blocks of this size before they are written */
#define IOT_OUT_BUF	(256 * 1024)

void iot_out_begin(struct iot_out *out, FILE *fp, enum iot_fmt fmt,
		   int jsonl);
void iot_out_item_end(struct iot_out *out);
void iot_out_batch(struct iot_out *out, const char *what);
void iot_out_sync(struct iot_out *out);
void iot_out_end(struct iot_out *out);
int iot_rec_has_lat(const struct iotrace_record *r);
void iot_rec_csv_header(FILE *fp);
void iot_out_rec(struct iot_out *out, const char *disk,
		 const struct iotrace_record *r);
/**
 * struct iot_kv - a named number: a value of a netlink reply or event.
 * @k: its name (the JSON key).
 * @v: its value.
 */
struct iot_kv {
	const char *k;
	uint64_t v;
};

void iot_kv_json(struct iot_jw *w, const char *const *skeys,
		 const char *const *svals, size_t ns, const struct iot_kv *kv,
		 size_t n);
void iot_stats_json(struct iot_jw *w, const struct iot_stats *s,
		    const char *title, const struct iot_counts *c, int file,
		    uint64_t span_ns);
void iot_stats_csv_header(FILE *fp);
void iot_stats_csv(FILE *fp, const struct iot_stats *s, const char *disk,
		   uint64_t span_ns);

#endif /* IOT_OUT_H */
