/* SPDX-License-Identifier: GPL-2.0 */
/* export and plot: records of a source, loaded and sorted by start time. */
#ifndef IOT_EXPORT_H
#define IOT_EXPORT_H

#include "cmd.h"

/**
 * struct xrec - one record and the index of its disk in the source.
 * @r: the record.
 * @disk: disk index.
 */
struct xrec {
	struct iotrace_record r;
	unsigned int disk;
};

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

int xset_load(struct xset *x, const struct iot_opts *o, const char *arg);
void xset_free(struct xset *x);
uint64_t xrec_start(const struct iotrace_record *r);
int xrec_has_lat(const struct iotrace_record *r);
FILE *x_open_out(const char *path);

int export_blktrace(const struct xset *x, const char *prefix);
int export_fio(const struct xset *x, FILE *fp, int version);
int export_perfetto(const struct xset *x, FILE *fp);
int plot_svg(const struct xset *x, FILE *fp);

#endif /* IOT_EXPORT_H */
