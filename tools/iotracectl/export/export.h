/* SPDX-License-Identifier: GPL-2.0 */
/* export: records of a source, streamed in start order. */
#ifndef IOT_EXPORT_H
#define IOT_EXPORT_H

#include "cmd.h"
#include "window.h"

/**
 * struct xset - the records an export or a plot works on.
 * @o: options (filters).
 * @src: the source they came from.
 * @v: records, sorted by start time (issue, or completion without issue).
 * @n: records in @v.
 * @cap: allocated.
 * @disk: disk index kept (--disk), -1 = all.
 */
struct xset {
	const struct iot_opts *o;
	struct iot_src src;
	struct xrec *v;
	size_t n, cap;
	int disk;
};

void xset_free(struct xset *x);

/* records of a trace file an export's reordering window holds */
#define XWINDOW		16384

struct xstream;
typedef int (*xrec_fn)(struct xstream *xs, const struct xrec *e, size_t i);

/**
 * struct xstream - an export's records, streamed in start order
 *	(export.c).
 * @x: the source, options and --disk (@x.v unused).
 * @win: the reordering window.
 * @label: the DISK or FILE argument, for messages.
 * @last: the last record handed out: the fields cmp_start() compares.
 * @n: records handed out.
 * @ooo: of them, those that came after a later one (the window was too
 *	small for them).
 * @fn: the export's function, called for each.
 * @arg: its state.
 * @fp: its output stream, if it has one.
 */
struct xstream {
	struct xset x;
	struct iot_win win;
	const char *label;
	struct xrec last;
	size_t n;
	uint64_t ooo;
	xrec_fn fn;
	void *arg;
	FILE *fp;
};

int xstream_open(struct xstream *xs, const struct iot_opts *o,
		 const char *arg);
int xstream_run(struct xstream *xs, xrec_fn fn, void *arg);
void xstream_close(struct xstream *xs);

int export_blktrace(struct xstream *xs, const char *prefix);
int export_fio(struct xstream *xs, FILE *fp, int version);
int export_perfetto(struct xstream *xs, FILE *fp);
int export_pftrace(struct xstream *xs, FILE *fp);

#endif /* IOT_EXPORT_H */
