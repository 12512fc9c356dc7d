// SPDX-License-Identifier: GPL-2.0
/*
 * lib_count: a program of the installed libiotrace, as one outside the
 * tree is written: built by selftests/pkg/lib_installed.sh with nothing
 * but "pkg-config --cflags --libs libiotrace" (libiotrace-dev), run
 * against libiotrace1's libiotrace.so.1.
 *   lib_count FILE     the trace file's records per disk, "NAME COUNT" a
 *                      line in the order of its disk table, then
 *                      "total COUNT"
 * Exit 0; 1 when FILE cannot be read as a trace file (the library's
 * message on standard error), 2 for a wrong usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <iotrace/libiotrace.h>

/**
 * struct count - the records handed out so far.
 * @disk: per disk of the source's disk table.
 * @nr_disks: the table's size.
 * @total: all of them.
 */
struct count {
	unsigned long long *disk;
	unsigned int nr_disks;
	unsigned long long total;
};

static int count_rec(void *arg, const struct iotrace_rec *rec)
{
	struct count *c = arg;

	if (rec->disk >= c->nr_disks)
		return 1;	/* a disk the table does not hold: stop */
	c->disk[rec->disk]++;
	c->total++;
	return 0;
}

int main(int argc, char **argv)
{
	struct iotrace_source_info info;
	struct iotrace_source *src;
	struct iotrace_disk disk;
	struct count c = { NULL, 0, 0 };
	const char *why = NULL;
	unsigned int i;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: lib_count FILE\n");
		return 2;
	}
	src = iotrace_source_new();
	if (!src) {
		fprintf(stderr, "lib_count: out of memory\n");
		return 1;
	}
	if (iotrace_source_open(src, argv[1], NULL) ||
	    iotrace_source_info(src, &info)) {
		why = iotrace_source_error(src);
		goto out;
	}
	if (info.kind != IOTRACE_KIND_FILE) {
		why = "not a trace file";
		goto out;
	}
	c.nr_disks = info.nr_disks;
	c.disk = calloc(c.nr_disks ? c.nr_disks : 1, sizeof(*c.disk));
	if (!c.disk) {
		why = "out of memory";
		goto out;
	}
	ret = iotrace_source_foreach(src, IOTRACE_ORDER_COMPLETE, count_rec, &c);
	if (ret) {
		why = ret < 0 ? iotrace_source_error(src) :
			"a record of a disk beyond the disk table";
		goto out;
	}
	for (i = 0; i < c.nr_disks; i++) {
		if (iotrace_source_disk(src, i, &disk)) {
			why = iotrace_source_error(src);
			goto out;
		}
		printf("%s %llu\n", disk.name, c.disk[i]);
	}
	printf("total %llu\n", c.total);
out:
	if (why)
		fprintf(stderr, "lib_count: %s: %s\n", argv[1], why);
	free(c.disk);
	iotrace_source_free(src);
	return why ? 1 : 0;
}
