// SPDX-License-Identifier: GPL-2.0
/*
 * libapi_test: a program of libiotrace's public header alone (built by
 * tests/libapi.sh against the shared library, the static one, and the
 * installed one through pkg-config), whose output tests/libapi.sh
 * compares with "iotracectl show -o csv" and "iotracectl info".
 *   libapi_test show SOURCE [ORDER [MAX [BATCH]]]
 *                                           the source, its disks, their
 *                                           loss accounting and records
 *                                           (at most MAX), tab-separated;
 *                                           ORDER: complete, start, stored;
 *                                           BATCH: read BATCH records at a
 *                                           time (iotrace_source_read()),
 *                                           their fields as columns
 *                                           (iotrace_rec_columns())
 *                                           checked against the record
 *                                           and the functions (exit 2
 *                                           when they differ)
 *   libapi_test open SOURCE [strict]        "ok", or the error, exit 1
 *   libapi_test disk SOURCE NAME            the index of disk NAME, or the
 *                                           error, exit 1
 *   libapi_test stop SOURCE N               stops after N records: the
 *                                           callback's value comes back
 *   libapi_test threads SOURCE N            N threads, a handle each, read
 *                                           SOURCE at once: their counts
 *                                           and sums must agree
 *   libapi_test inflight SOURCE             the requests in flight at its
 *                                           end as "iotracectl inflight -o
 *                                           csv" prints them, then a line
 *                                           "# requests R at A torn T
 *                                           damaged D"
 *   libapi_test boot SOURCE                 "boot ID FLAGS FIRST LAST" of
 *                                           a previous boot's source,
 *                                           "boot none" of another
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <iotrace/libiotrace.h>

/**
 * struct show - what "show" prints records with.
 * @src: the source.
 * @disks: its disks' names.
 * @count: per disk, records handed out.
 * @max: records to print at most.
 * @n: records printed.
 */
struct show {
	struct iotrace_source *src;
	struct iotrace_disk *disks;
	unsigned long *count;
	unsigned long max, n;
};

/* @s as a field: a tab, a line end and a backslash as \t, \n, \\ */
static void put_field(const char *s)
{
	putchar('\t');
	for (; *s; s++) {
		if (*s == '\t' || *s == '\n' || *s == '\\') {
			putchar('\\');
			putchar(*s == '\t' ? 't' : *s == '\n' ? 'n' : '\\');
		} else {
			putchar(*s);
		}
	}
}

static int show_rec(void *arg, const struct iotrace_rec *r)
{
	char cmd[256], status[256], err[32], sector[24] = "";
	struct show *s = arg;

	s->count[r->disk]++;
	if (s->n++ >= s->max)
		return 0;
	if (r->sector != UINT64_MAX)
		snprintf(sector, sizeof(sector), "%llu",
			 (unsigned long long)r->sector);
	iotrace_rec_command(r, cmd, sizeof(cmd));
	iotrace_rec_status(r, status, sizeof(status));
	iotrace_rec_errno(r, err, sizeof(err));
	printf("rec");
	put_field(s->disks[r->disk].name);
	printf("\t%u\t%s\t%s\t%u", r->seq, iotrace_op_name(r->op), sector,
	       r->bytes);
	put_field(err);
	put_field(status);
	put_field(cmd);
	put_field(iotrace_source_comm(s->src, r));
	putchar('\n');
	return 0;
}

/* the text of field @f of @r as the per-record functions spell it */
static const char *want_text(struct iotrace_source *src,
			     const struct iotrace_disk *disks,
			     const struct iotrace_rec *r, unsigned int f,
			     char *buf, size_t size)
{
	const char *comm;

	switch (f) {
	case IOTRACE_FIELD_DISK:
		return disks[r->disk].name;
	case IOTRACE_FIELD_OP:
		return iotrace_op_name(r->op);
	case IOTRACE_FIELD_OPFLAGS:
		iotrace_rec_opflags(r, buf, size);
		return buf;
	case IOTRACE_FIELD_STATUS:
		iotrace_rec_errno(r, buf, size);
		return strcmp(buf, "-") ? buf : "";
	case IOTRACE_FIELD_DEV_STATUS_STR:
		iotrace_rec_status(r, buf, size);
		return buf;
	case IOTRACE_FIELD_COMMAND:
		iotrace_rec_command(r, buf, size);
		return buf;
	default:
		/* the schema's comm: the pid's name (the kernel's I/O apart) */
		comm = iotrace_source_comm(src, r);
		return strcmp(comm, "-") ? comm : "";
	}
}

/* the number field @f of @r, 0 where the schema's field is empty */
static uint64_t want_num(const struct iotrace_rec *r, unsigned int f)
{
	int done = r->rflags & IOTRACE_REC_COMPLETE;
	int wait = (r->rflags & IOTRACE_REC_NO_ISSUE) &&
		   (r->rflags & IOTRACE_REC_PREFLUSH) && r->issue_ns;

	switch (f) {
	case IOTRACE_FIELD_SEQ:
		return r->seq;
	case IOTRACE_FIELD_ISSUE_NS:
		return r->issue_ns;
	case IOTRACE_FIELD_COMPLETE_NS:
		return done ? r->complete_ns : 0;
	case IOTRACE_FIELD_QUEUE_NS:
		return r->rflags & IOTRACE_REC_QUEUE_VALID ? r->queue_ns : 0;
	case IOTRACE_FIELD_LATENCY_NS:
		return done && (!(r->rflags & IOTRACE_REC_NO_ISSUE) || wait) &&
		       r->complete_ns >= r->issue_ns ?
		       r->complete_ns - r->issue_ns : 0;
	case IOTRACE_FIELD_SECTOR:
		return r->sector == UINT64_MAX ? 0 : r->sector;
	case IOTRACE_FIELD_BYTES:
		return r->bytes;
	case IOTRACE_FIELD_ERROR:
		return (uint64_t)(int64_t)r->error;
	case IOTRACE_FIELD_RFLAGS:
		return r->rflags;
	case IOTRACE_FIELD_ISSUE_CPU:
		return r->issue_cpu;
	case IOTRACE_FIELD_COMPLETE_CPU:
		return r->complete_cpu;
	case IOTRACE_FIELD_HWQ:
		return r->hwq;
	case IOTRACE_FIELD_TAG:
		return r->tag;
	case IOTRACE_FIELD_RETRIES:
		return r->retries;
	case IOTRACE_FIELD_CMD_TYPE:
		return r->cmd_type;
	case IOTRACE_FIELD_DEV_STATUS:
		return r->dev_status;
	case IOTRACE_FIELD_PID:
		return r->pid;
	default:
		return r->cgroup;
	}
}

static int is_text(unsigned int f)
{
	return f == IOTRACE_FIELD_DISK || f == IOTRACE_FIELD_OP ||
	       f == IOTRACE_FIELD_OPFLAGS || f == IOTRACE_FIELD_STATUS ||
	       f == IOTRACE_FIELD_DEV_STATUS_STR ||
	       f == IOTRACE_FIELD_COMMAND || f == IOTRACE_FIELD_COMM;
}

/*
 * Every field of @n records as columns by iotrace_rec_columns(), checked
 * against the record and the per-record functions: 0, or -1 with a line
 * that says what differs.
 */
static int check_columns(struct iotrace_source *src,
			 const struct iotrace_disk *disks,
			 const struct iotrace_rec *recs, size_t n,
			 struct iotrace_strtab *tab)
{
	struct iotrace_column cols[IOTRACE_FIELD_NR];
	uint64_t *vals = malloc((n ? n : 1) * IOTRACE_FIELD_NR * 8);
	uint8_t *present = malloc((n ? n : 1) * IOTRACE_FIELD_NR);
	const char **str = NULL;
	const char *data, *p;
	size_t i, k, size;
	unsigned int f;
	int ret = -1;

	if (!vals || !present)
		goto out;
	for (f = 0; f < IOTRACE_FIELD_NR; f++) {
		cols[f].field = f;
		/* the numbers as uint64_t and int64_t in turn */
		cols[f].type = is_text(f) ? IOTRACE_COL_STRING :
			       f & 1 ? IOTRACE_COL_UINT64 : IOTRACE_COL_INT64;
		cols[f].data = vals + f * n;
		cols[f].present = present + f * n;
	}
	if (iotrace_rec_columns(src, recs, n, cols, IOTRACE_FIELD_NR, tab))
		goto out;
	data = iotrace_strtab_data(tab, &size);
	str = calloc(iotrace_strtab_count(tab) + 1, sizeof(*str));
	if (!str)
		goto out;
	for (p = data, k = 0; p < data + size; p += strlen(p) + 1)
		str[k++] = p;
	if (k != iotrace_strtab_count(tab)) {
		printf("strtab: %zu strings in its data, count %zu\n", k,
		       iotrace_strtab_count(tab));
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct iotrace_rec *r = &recs[i];

		for (f = 0; f < IOTRACE_FIELD_NR; f++) {
			int pres = present[f * n + i];
			char buf[256], got[32], want[32];
			const char *t, *w;
			uint64_t v;

			if (is_text(f)) {
				if (f == IOTRACE_FIELD_COMM &&
				    (r->rflags & IOTRACE_REC_KERNEL))
					continue;
				t = str[((uint32_t *)cols[f].data)[i]];
				w = want_text(src, disks, r, f, buf,
					      sizeof(buf));
				if (strcmp(t, w) || pres != !!*w) {
					printf("record seq %u: field %u ",
					       r->seq, f);
					printf("\"%s\" (present %d), not \"%s\"\n",
					       t, pres, w);
					goto out;
				}
				continue;
			}
			v = vals[f * n + i];
			if (v != want_num(r, f) || (!pres && v)) {
				snprintf(got, sizeof(got), "%llu",
					 (unsigned long long)v);
				snprintf(want, sizeof(want), "%llu",
					 (unsigned long long)want_num(r, f));
				printf("record seq %u: field %u %s (present %d), not %s\n",
				       r->seq, f, got, pres, want);
				goto out;
			}
		}
	}
	ret = 0;
out:
	free(vals);
	free(present);
	free(str);
	return ret;
}

/* the records by iotrace_source_read(), @batch at a time, to show_rec() */
static int read_batches(struct iotrace_source *src, int order,
			struct show *s, size_t batch)
{
	struct iotrace_rec *recs = calloc(batch, sizeof(*recs));
	struct iotrace_strtab *tab = iotrace_strtab_new();
	long n, i;
	int ret = -1;

	if (!recs || !tab || iotrace_source_rewind(src, order))
		goto out;
	while ((n = iotrace_source_read(src, recs, batch)) > 0) {
		for (i = 0; i < n; i++)
			show_rec(s, &recs[i]);
		if (check_columns(src, s->disks, recs, (size_t)n, tab)) {
			ret = -2;
			goto out;
		}
	}
	if (n == 0 && iotrace_source_read(src, recs, batch) == 0)
		ret = 0;
out:
	free(recs);
	iotrace_strtab_free(tab);
	return ret;
}

static int order_of(const char *s)
{
	if (!s || !strcmp(s, "complete"))
		return IOTRACE_ORDER_COMPLETE;
	if (!strcmp(s, "start"))
		return IOTRACE_ORDER_START;
	if (!strcmp(s, "stored"))
		return IOTRACE_ORDER_STORED;
	return -1;
}

static int infl_rec_count(void *arg, const struct iotrace_rec *r)
{
	(void)arg;
	(void)r;
	return 0;
}

/* what "inflight" prints requests with */
struct infl {
	struct iotrace_disk *disks;
	uint64_t at_ns;
};

static int infl_rec(void *arg, const struct iotrace_rec *r)
{
	struct infl *f = arg;
	char cmd[256];

	iotrace_rec_command(r, cmd, sizeof(cmd));
	printf("%s,%llu,%.1f,%s,", f->disks[r->disk].name,
	       (unsigned long long)r->issue_ns,
	       f->at_ns > r->issue_ns ?
	       (double)((f->at_ns - r->issue_ns) / 1000) : 0.0,
	       iotrace_op_name(r->op));
	if (r->sector != UINT64_MAX)
		printf("%llu", (unsigned long long)r->sector);
	printf(",%u,%u,%u,%u,%u,%s\n", r->bytes, r->hwq, r->tag, r->issue_cpu,
	       r->pid, cmd);
	return (r->rflags & IOTRACE_REC_COMPLETE) || r->complete_ns ? 1 : 0;
}

static int cmd_inflight(struct iotrace_source *src)
{
	struct iotrace_inflight_info fi;
	struct iotrace_source_info info;
	struct infl f = { 0 };
	unsigned int i;
	int ret;

	if (iotrace_source_info(src, &info))
		return -1;
	f.disks = calloc(info.nr_disks + 1, sizeof(*f.disks));
	if (!f.disks)
		return -1;
	for (i = 0; i < info.nr_disks; i++)
		if (iotrace_source_disk(src, i, &f.disks[i]))
			goto err;
	/* a first pass for the time (the ages), a second prints */
	if (iotrace_source_inflight(src, infl_rec_count, NULL, &fi))
		goto err;
	f.at_ns = fi.at_ns;
	printf("disk,issue_ns,age_us,op,sector,bytes,hwq,tag,cpu,pid,command\n");
	ret = iotrace_source_inflight(src, infl_rec, &f, &fi);
	free(f.disks);
	if (ret)
		return ret > 0 ? -2 : -1;
	printf("# requests %llu at %llu torn %llu damaged %u\n",
	       (unsigned long long)fi.requests, (unsigned long long)fi.at_ns,
	       (unsigned long long)fi.torn, fi.damaged);
	return 0;
err:
	free(f.disks);
	return -1;
}

static int cmd_boot(struct iotrace_source *src)
{
	struct iotrace_boot b;
	int r = iotrace_source_boot(src, &b);

	if (r < 0)
		return -1;
	if (!r) {
		printf("boot none\n");
		return b.boot_id[0] || b.flags || b.first_ns || b.last_ns ?
		       -2 : 0;
	}
	printf("boot %s %s %llu %llu\n", b.boot_id,
	       b.flags & IOTRACE_BOOT_PANICKED ? "panicked" : "-",
	       (unsigned long long)b.first_ns, (unsigned long long)b.last_ns);
	return 0;
}

/* "room REFUSED EVICTED", "-" for a count the source does not hold */
static int cmd_room(struct iotrace_source *src)
{
	struct iotrace_room m;
	int r = iotrace_source_room(src, &m);
	unsigned int i;

	if (r < 0)
		return -1;
	if (!r) {
		printf("room none\n");
		return m.flags || m.refused || m.evicted ? -2 : 0;
	}
	for (i = 0; i < sizeof(m.reserved); i++)
		if (((const unsigned char *)m.reserved)[i])
			return -2;
	printf("room");
	if (m.flags & IOTRACE_ROOM_REFUSED)
		printf(" %u", m.refused);
	else
		printf(" -");
	if (m.flags & IOTRACE_ROOM_EVICTED)
		printf(" %u\n", m.evicted);
	else
		printf(" -\n");
	return 0;
}

static int cmd_show(struct iotrace_source *src, int order, unsigned long max,
		    size_t batch)
{
	struct iotrace_source_info info;
	struct iotrace_loss l;
	struct show s = { .src = src, .max = max };
	unsigned int i;
	int ret;

	if (iotrace_source_info(src, &info))
		return -1;
	printf("source\t%u\t%u\t%s\t%s\t%llu\n", info.kind, info.nr_disks,
	       info.host, info.release, (unsigned long long)info.start_ns);
	s.disks = calloc(info.nr_disks + 1, sizeof(*s.disks));
	s.count = calloc(info.nr_disks + 1, sizeof(*s.count));
	if (!s.disks || !s.count)
		return -1;
	for (i = 0; i < info.nr_disks; i++) {
		if (iotrace_source_disk(src, i, &s.disks[i]))
			return -1;
		printf("disk\t%u", i);
		put_field(s.disks[i].name);
		printf("\t%u:%u\t%u", s.disks[i].dev_major,
		       s.disks[i].dev_minor, s.disks[i].logical_block_size);
		put_field(s.disks[i].model);
		put_field(s.disks[i].serial);
		put_field(s.disks[i].wwn);
		putchar('\n');
	}
	if (batch)
		ret = read_batches(src, order, &s, batch);
	else
		ret = iotrace_source_foreach(src, order, show_rec, &s);
	if (ret)
		return ret == -2 ? -2 : -1;
	for (i = 0; i < info.nr_disks; i++) {
		if (iotrace_source_loss(src, (int)i, &l))
			return -1;
		printf("count");
		put_field(s.disks[i].name);
		printf("\t%lu\nloss", s.count[i]);
		put_field(s.disks[i].name);
		printf("\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\n",
		       (unsigned long long)l.completed,
		       (unsigned long long)l.present,
		       (unsigned long long)l.overwritten,
		       (unsigned long long)l.dropped,
		       (unsigned long long)l.torn,
		       (unsigned long long)l.valid,
		       (unsigned long long)l.written,
		       (unsigned long long)l.lost,
		       (unsigned long long)l.late);
	}
	free(s.disks);
	free(s.count);
	return 0;
}

static int stop_rec(void *arg, const struct iotrace_rec *r)
{
	unsigned long *left = arg;

	(void)r;
	return --*left ? 0 : 42;
}

/**
 * struct reader - one thread of "threads".
 * @path: the source.
 * @n: records read.
 * @sum: their sectors and sizes summed.
 * @ret: 0, or -1.
 * @err: the error.
 */
struct reader {
	const char *path;
	unsigned long n;
	unsigned long long sum;
	int ret;
	char err[512];
};

static int sum_rec(void *arg, const struct iotrace_rec *r)
{
	struct reader *t = arg;

	t->n++;
	t->sum += r->sector * 31 + r->bytes + r->complete_ns;
	return 0;
}

static void *reader_run(void *arg)
{
	struct reader *t = arg;
	struct iotrace_source *src = iotrace_source_new();
	int i;

	t->ret = -1;
	if (!src)
		return NULL;
	/* each twice: a handle reads its source again */
	for (i = 0; i < 2; i++) {
		t->n = 0;
		t->sum = 0;
		if (iotrace_source_open(src, t->path, NULL) ||
		    iotrace_source_foreach(src, i ? IOTRACE_ORDER_START :
					   IOTRACE_ORDER_COMPLETE,
					   sum_rec, t)) {
			snprintf(t->err, sizeof(t->err), "%s",
				 iotrace_source_error(src));
			iotrace_source_free(src);
			return NULL;
		}
	}
	t->ret = 0;
	iotrace_source_free(src);
	return NULL;
}

static int cmd_threads(const char *path, unsigned int n)
{
	struct reader *t = calloc(n, sizeof(*t));
	pthread_t *tid = calloc(n, sizeof(*tid));
	unsigned int i;
	int bad = 0;

	if (!t || !tid)
		return 1;
	for (i = 0; i < n; i++) {
		t[i].path = path;
		if (pthread_create(&tid[i], NULL, reader_run, &t[i]))
			return 1;
	}
	for (i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	for (i = 0; i < n; i++) {
		if (t[i].ret) {
			printf("thread %u: %s\n", i, t[i].err);
			bad = 1;
		} else if (t[i].n != t[0].n || t[i].sum != t[0].sum) {
			printf("thread %u: %lu records, sum %llu; thread 0: %lu, %llu\n",
			       i, t[i].n, t[i].sum, t[0].n, t[0].sum);
			bad = 1;
		}
	}
	if (!bad)
		printf("%u threads: %lu records each, sum %llu\n", n, t[0].n,
		       t[0].sum);
	free(t);
	free(tid);
	return bad;
}

int main(int argc, char **argv)
{
	struct iotrace_open_opts opts = { 0 };
	struct iotrace_source *src;
	unsigned long left;
	int ret = 0, order;

	if (argc < 3) {
		fprintf(stderr, "usage: libapi_test show|open|disk|stop|threads SOURCE ...\n");
		return 2;
	}
	if (!strcmp(argv[1], "threads"))
		return cmd_threads(argv[2], argc > 3 ? atoi(argv[3]) : 4);
	if (!strcmp(argv[1], "open") && argc > 3 && !strcmp(argv[3], "strict"))
		opts.flags |= IOTRACE_OPEN_STRICT;
	/* the library reads no environment: the program passes it on */
	opts.debugfs = getenv("IOTRACE_DEBUGFS");
	opts.devdir = getenv("IOTRACE_DEV");
	src = iotrace_source_new();
	if (!src)
		return 1;
	if (iotrace_source_open(src, argv[2], &opts)) {
		printf("error: %s\n", iotrace_source_error(src));
		iotrace_source_free(src);
		return 1;
	}
	if (!strcmp(argv[1], "open")) {
		printf("ok%s%s\n", *iotrace_source_warning(src) ? ": " : "",
		       iotrace_source_warning(src));
	} else if (!strcmp(argv[1], "show")) {
		order = order_of(argc > 3 ? argv[3] : NULL);
		ret = cmd_show(src, order,
			       argc > 4 ? strtoul(argv[4], NULL, 0) : ~0ul,
			       argc > 5 ? strtoul(argv[5], NULL, 0) : 0);
		if (ret == -2) {
			iotrace_source_free(src);
			return 2;
		}
	} else if (!strcmp(argv[1], "inflight")) {
		ret = cmd_inflight(src);
		if (ret == -2) {
			fprintf(stderr, "libapi_test: a request in flight with a completion\n");
			iotrace_source_free(src);
			return 2;
		}
	} else if (!strcmp(argv[1], "boot")) {
		ret = cmd_boot(src);
		if (ret == -2) {
			fprintf(stderr, "libapi_test: not a previous boot's, yet not zeroed\n");
			iotrace_source_free(src);
			return 2;
		}
	} else if (!strcmp(argv[1], "room")) {
		ret = cmd_room(src);
		if (ret == -2) {
			fprintf(stderr, "libapi_test: room not zeroed where it should be\n");
			iotrace_source_free(src);
			return 2;
		}
	} else if (!strcmp(argv[1], "disk") && argc > 3) {
		ret = iotrace_source_disk_index(src, argv[3]);
		if (ret >= 0)
			printf("%d\n", ret);
		ret = ret < 0 ? -1 : 0;
	} else if (!strcmp(argv[1], "stop") && argc > 3) {
		left = strtoul(argv[3], NULL, 0);
		ret = iotrace_source_foreach(src, IOTRACE_ORDER_COMPLETE,
					     stop_rec, &left);
		printf("%d %lu\n", ret, left);
		ret = ret == 42 ? 0 : -1;
	} else {
		fprintf(stderr, "libapi_test: unknown command %s\n", argv[1]);
		ret = -1;
	}
	if (ret < 0 && *iotrace_source_error(src))
		printf("error: %s\n", iotrace_source_error(src));
	iotrace_source_free(src);
	return ret < 0;
}
