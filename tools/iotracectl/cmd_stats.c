// SPDX-License-Identifier: GPL-2.0
/* stats: once over a DISK or FILE, or every --interval seconds (live). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "series.h"
#include "btt.h"
#include "stack.h"

/**
 * struct proc_st - one submitter's requests (stats' per-process table).
 * @key: pid, | 1 << 32 for the kernel's own I/O (pid 0).
 * @n: requests.
 * @reads: read requests.
 * @writes: write requests.
 * @bytes: bytes.
 * @lat_n: requests with a device latency.
 * @lat_sum: their latencies, ns.
 * @lat_max: the largest.
 */
struct proc_st {
	uint64_t key, n, reads, writes, bytes, lat_n, lat_sum, lat_max;
};

/**
 * struct proc_tab - the submitters of one disk's requests.
 * @v: entries, open addressing by key (key 0: empty, pid 0 unknown is
 *	key 1 << 33).
 * @cap: slots (a power of two).
 * @used: entries.
 */
struct proc_tab {
	struct proc_st *v;
	size_t cap, used;
};

#define PROC_UNKNOWN	(1ull << 33)

static size_t proc_slot(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

static int proc_grow(struct proc_tab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256, i, j;
	struct proc_st *v = calloc(cap, sizeof(*v));

	if (!v)
		return -1;
	for (i = 0; i < t->cap; i++) {
		if (!t->v[i].key)
			continue;
		for (j = proc_slot(t->v[i].key, cap); v[j].key;
		     j = (j + 1) & (cap - 1))
			;
		v[j] = t->v[i];
	}
	free(t->v);
	t->v = v;
	t->cap = cap;
	return 0;
}

static int proc_add(struct proc_tab *t, const struct iotrace_record *r)
{
	uint64_t key = r->pid ? r->pid :
		(r->rflags & IOTRACE_RF_KERNEL) ? 1ull << 32 : PROC_UNKNOWN;
	struct proc_st *e;
	size_t i;

	if ((t->used + 1) * 2 > t->cap && proc_grow(t))
		return -1;
	for (i = proc_slot(key, t->cap); t->v[i].key && t->v[i].key != key;
	     i = (i + 1) & (t->cap - 1))
		;
	e = &t->v[i];
	if (!e->key) {
		e->key = key;
		t->used++;
	}
	e->n++;
	e->bytes += r->bytes;
	if (r->op == IOTRACE_OP_READ)
		e->reads++;
	else if (r->op == IOTRACE_OP_WRITE)
		e->writes++;
	if (iot_rec_has_lat(r)) {
		uint64_t l = r->complete_ns - r->issue_ns;

		e->lat_n++;
		e->lat_sum += l;
		if (l > e->lat_max)
			e->lat_max = l;
	}
	return 0;
}

/* most requests first, then most bytes, then by pid */
static int proc_cmp(const void *a, const void *b)
{
	const struct proc_st *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* The entries, sorted, packed at the start of @t->v; their number. */
static size_t proc_sort(struct proc_tab *t)
{
	size_t i, n = 0;

	for (i = 0; i < t->cap; i++)
		if (t->v[i].key)
			t->v[n++] = t->v[i];
	qsort(t->v, n, sizeof(*t->v), proc_cmp);
	return n;
}

static const char *proc_comm(const struct proc_st *e)
{
	const char *c;

	if (e->key == 1ull << 32)
		return "[kernel]";
	if (e->key == PROC_UNKNOWN)
		return "[unknown]";
	c = iot_comm_get((uint32_t)e->key);
	return c ? c : "-";
}

/*
 * The per-process table (biotop's view of the whole trace): the @top
 * submitters with the most requests.  Text only when some submitter is
 * known (a ring or file without any says nothing new).
 */
static void proc_report(struct proc_tab *t, unsigned int top, FILE *fp,
			struct iot_jw *w)
{
	size_t n = t->cap ? proc_sort(t) : 0, i;

	if (!w && (!n || (n == 1 && t->v[0].key == PROC_UNKNOWN) || !top))
		return;
	if (w) {
		jw_key(w, "processes");
		jw_arr_start(w);
	} else {
		fprintf(fp, "processes: top %zu of %zu by requests\n",
			n < top ? n : (size_t)top, n);
		fprintf(fp, "  %8s %-16s %10s %10s %10s %12s %10s %10s\n",
			"PID", "COMM", "REQUESTS", "READS", "WRITES", "BYTES",
			"AVG_US", "MAX_US");
	}
	for (i = 0; i < n && i < top; i++) {
		const struct proc_st *e = &t->v[i];
		uint32_t pid = e->key >> 32 ? 0 : (uint32_t)e->key;
		double avg = e->lat_n ? (double)e->lat_sum / e->lat_n : 0;
		char ps[16], comm[IOT_TEXT_ROOM(IOT_COMM_LEN)];

		if (w) {
			jw_obj_start(w);
			jw_kv_u64(w, "pid", pid);
			jw_kv_str(w, "comm", proc_comm(e));
			jw_kv_u64(w, "kernel", e->key == 1ull << 32);
			jw_kv_u64(w, "requests", e->n);
			jw_kv_u64(w, "reads", e->reads);
			jw_kv_u64(w, "writes", e->writes);
			jw_kv_u64(w, "bytes", e->bytes);
			jw_kv_u64(w, "lat_n", e->lat_n);
			jw_kv_u64(w, "lat_sum_ns", e->lat_sum);
			jw_kv_u64(w, "lat_max_ns", e->lat_max);
			jw_obj_end(w);
			continue;
		}
		if (pid)
			snprintf(ps, sizeof(ps), "%u", pid);
		else
			snprintf(ps, sizeof(ps), "-");
		fprintf(fp, "  %8s %-16s %10llu %10llu %10llu %12llu %10.1f %10.1f\n",
			ps, iot_text_str(comm, sizeof(comm), proc_comm(e)),
			(unsigned long long)e->n,
			(unsigned long long)e->reads,
			(unsigned long long)e->writes,
			(unsigned long long)e->bytes, avg / 1000.0,
			e->lat_max / 1000.0);
	}
	if (w)
		jw_arr_end(w);
}

/* the most logical devices stats --stack gives tables of */
#define STATS_MAX_LOGICAL	256

/**
 * struct stats_lg - stats --stack: one logical device's requests (those
 *	of the disks below it that map to it).
 * @name: the device's name (a dm name, or the kernel's: md0, sda1).
 * @st: its statistics.
 */
struct stats_lg {
	char name[IOTRACE_STACK_NAME_LEN];
	struct iot_stats st;
};

/**
 * struct stats_ctx - per-disk statistics being gathered.
 * @o: options.
 * @src: the source.
 * @stk: stats --stack: the source's device stack.
 * @lg: stats --stack: per logical device.
 * @nr_lg: how many.
 * @lg_over: records of logical devices past STATS_MAX_LOGICAL.
 * @disk: disk index to keep, -1 = all.
 * @st: statistics per disk (allocated when first seen).
 * @btt: per disk, what btt's breakdown needs of every request.
 * @proc: per disk, the submitters.
 * @first: per disk, the earliest start of any record, filtered or not
 *	(UINT64_MAX: none).
 * @last: per disk, the latest completion (or start) of any record.
 * @nomem: an allocation failed.
 */
struct stats_ctx {
	const struct iot_opts *o;
	const struct iot_src *src;
	struct iot_stack stk;
	struct stats_lg *lg;
	unsigned int nr_lg;
	uint64_t lg_over;
	int disk;
	struct iot_stats *st[IOT_MAX_DISKS];
	struct iot_btt btt[IOT_MAX_DISKS];
	struct proc_tab proc[IOT_MAX_DISKS];
	uint64_t first[IOT_MAX_DISKS], last[IOT_MAX_DISKS];
	int nomem;
};

/*
 * stats --stack: add @r of @disk to the table of the logical device it
 * maps to (the topmost), if any.  -2 when out of memory.
 */
static int lg_add(struct stats_ctx *c, unsigned int disk,
		  const struct iotrace_record *r)
{
	const char *name;
	uint64_t sector;
	unsigned int i;
	int partial;

	if (!iot_stack_top(&c->stk, &c->src->disks[disk], r, &name, &sector,
			   &partial))
		return 0;
	for (i = 0; i < c->nr_lg; i++)
		if (!strcmp(c->lg[i].name, name))
			break;
	if (i == c->nr_lg) {
		if (i == STATS_MAX_LOGICAL) {
			c->lg_over++;
			return 0;
		}
		if (!c->lg) {
			c->lg = calloc(STATS_MAX_LOGICAL, sizeof(*c->lg));
			if (!c->lg)
				return -2;
		}
		snprintf(c->lg[i].name, sizeof(c->lg[i].name), "%s", name);
		if (iot_stats_init(&c->lg[i].st))
			return -2;
		c->nr_lg++;
	}
	iot_stats_add(&c->lg[i].st, r);
	return 0;
}

static int add(void *arg, unsigned int disk, const struct iotrace_record *r)
{
	struct stats_ctx *c = arg;
	uint64_t s, e;

	if (c->disk >= 0 && (int)disk != c->disk)
		return 0;
	/* the trace's own span, which a --from/--to window is cut to */
	s = r->rflags & IOTRACE_RF_NO_ISSUE ? r->complete_ns : r->issue_ns;
	e = r->rflags & IOTRACE_RF_COMPLETE ? r->complete_ns : s;
	if (s < c->first[disk])
		c->first[disk] = s;
	if (e > c->last[disk])
		c->last[disk] = e;
	if (!iot_filter(c->o, r))
		return 0;
	if (!c->st[disk]) {
		c->st[disk] = malloc(sizeof(struct iot_stats));
		if (!c->st[disk] || iot_stats_init(c->st[disk])) {
			c->nomem = 1;
			return -2;
		}
	}
	iot_stats_add(c->st[disk], r);
	if (iot_btt_add(&c->btt[disk], r) || proc_add(&c->proc[disk], r) ||
	    (c->o->stack && lg_add(c, disk, r))) {
		c->nomem = 1;
		return -2;
	}
	return 0;
}

/*
 * stats --stack: a table per logical device, after the disks' (no loss
 * counts: those are the disks').
 */
static void lg_report(struct stats_ctx *c, struct iot_out *doc)
{
	char title[512], text[IOT_TEXT_ROOM(IOTRACE_STACK_NAME_LEN)];
	const struct iot_src *src = c->src;
	unsigned int i;

	for (i = 0; i < c->nr_lg; i++) {
		struct iot_stats *st = &c->lg[i].st;

		snprintf(title, sizeof(title), "%s:%s (logical)", src->label,
			 c->o->fmt == FMT_JSON ? c->lg[i].name :
			 iot_text_str(text, sizeof(text), c->lg[i].name));
		if (c->o->fmt == FMT_CSV) {
			iot_stats_csv(stdout, st, c->lg[i].name, 0);
		} else if (c->o->fmt == FMT_JSON) {
			jw_obj_start(&doc->jw);
			iot_stats_json(&doc->jw, st, title, NULL, src->is_file, 0);
			jw_kv_str(&doc->jw, "logical", c->lg[i].name);
			jw_obj_end(&doc->jw);
			iot_out_item_end(doc);
		} else {
			iot_stats_print(stdout, st, title, NULL, src->is_file, 0);
		}
	}
	if (c->lg_over)
		iot_err("stats --stack: %llu records of logical devices past the first %d left out of their tables",
			(unsigned long long)c->lg_over, STATS_MAX_LOGICAL);
}

static volatile sig_atomic_t stop;

static void on_sig(int sig)
{
	(void)sig;
	stop = 1;
}

/* stats --interval: one new record of the ring, if it passes the filters */
struct ival_ctx {
	const struct iot_opts *o;
	struct iot_stats *st;
};

static int ival_add(void *arg, unsigned int disk,
		    const struct iotrace_record *r)
{
	struct ival_ctx *ic = arg;

	(void)disk;
	if (iot_filter(ic->o, r))
		iot_stats_add(ic->st, r);
	return 0;
}

/*
 * Live, iostat-like: new records of each interval, until SIGINT/SIGTERM,
 * --count reports, or the ring turns DETACHED (said, after the report of
 * what it held).
 */
static int stats_interval(struct iot_opts *o, struct iot_src *src)
{
	struct iot_ring_follow f;
	struct ival_ctx ic;
	uint64_t width = (uint64_t)(o->interval * 1e9 + 0.5);
	struct iot_series_op ops[IOT_NR_OPS];
	struct iot_stats st;
	struct timespec ts;
	long n = 0;

	if (iot_stats_init(&st)) {
		iot_err("out of memory");
		return 1;
	}
	if (iot_ring_follow_init(&f, &src->ring)) {
		iot_err("out of memory");
		iot_stats_free(&st);
		return 1;
	}
	ic.o = o;
	ic.st = &st;
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);
	/* a closed output pipe is said, not a silent end */
	iot_out_no_sigpipe();
	if (o->fmt == FMT_NORMAL)
		iot_ival_header(stdout, 0);
	else if (o->fmt == FMT_CSV)
		iot_ival_csv_header(stdout);
	while (!stop && (!o->count || n < o->count)) {
		uint64_t lost, now;
		int k, detached;

		ts.tv_sec = (time_t)o->interval;
		ts.tv_nsec = (long)((o->interval - ts.tv_sec) * 1e9);
		if (nanosleep(&ts, NULL) && stop)
			break;
		/* final before this poll: it reads all there will be */
		detached = iot_ring_detached(&src->ring);
		iot_stats_reset(&st);
		f.lost = 0;
		iot_ring_follow_poll(&f, ival_add, &ic);
		lost = f.lost;
		now = iot_now(CLOCK_MONOTONIC);
		n++;
		for (k = 0; k < IOT_NR_OPS; k++) {
			const struct iot_opstats *os = &st.op[k];
			struct iot_series_op *v = &ops[k];
			int j;

			memset(v, 0, sizeof(*v));
			for (j = 0; j < 64; j++)
				v->n += os->size_log2[j];
			v->bytes = os->bytes;
			v->lat_n = os->lat.n;
			v->lat_sum = os->lat.sum;
			v->lat_max = os->lat.max;
			v->p50 = iot_hist_percentile(&os->lat, 50);
			v->p99 = iot_hist_percentile(&os->lat, 99);
			v->tot_n = os->tot.n;
			v->tot_sum = os->tot.sum;
			v->tot_max = os->tot.max;
			v->tp50 = iot_hist_percentile(&os->tot, 50);
			v->tp99 = iot_hist_percentile(&os->tot, 99);
		}
		if (o->fmt == FMT_JSON) {
			struct iot_jw w;

			/* a stream: one object per line, whatever --jsonl */
			jw_init(&w, stdout);
			iot_ival_json(&w, src->label, now, now - width, width,
				      ops, -1, (int64_t)lost);
			putchar('\n');
		} else if (o->fmt == FMT_CSV) {
			iot_ival_csv(stdout, src->disks[0].name, now,
				     now - width, width, ops, -1, (int64_t)lost);
		} else {
			iot_ival_text(stdout, NULL, now, width, width, ops,
				      -1, (int64_t)lost);
		}
		if (iot_out_flush(stdout, "standard output"))
			break;
		if (detached) {
			fprintf(stderr,
				"stats: %s: the ring was detached (disk removed or ring resized): its reports end here\n",
				src->label);
			break;
		}
	}
	iot_stats_free(&st);
	iot_ring_follow_free(&f);
	return 0;
}

/*
 * A live NVMe ring whose records carry no status: say why, from the
 * module's status file ("nvme_status: not recorded: ...").
 */
static void nvme_status_note(const struct iot_opts *o, const char *disk)
{
	char path[512], line[512], text[IOT_TEXT_ROOM(IOTRACE_NAME_LEN)];
	FILE *fp;

	if (strncmp(disk, "nvme", 4))
		return;
	snprintf(path, sizeof(path), "%s/status", iot_debugfs());
	fp = fopen(path, "r");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		const char *v = line + strlen("nvme_status: ");

		if (strncmp(line, "nvme_status: ", strlen("nvme_status: ")) ||
		    !strncmp(v, "recorded", strlen("recorded")))
			continue;
		line[strcspn(line, "\n")] = 0;
		if (o->fmt == FMT_JSON)
			fprintf(stderr, "iotracectl: %s: nvme status %s\n",
				iot_text_str(text, sizeof(text), disk), v);
		else
			printf("nvme status: %s\n", v);
	}
	fclose(fp);
}

/*
 * The span IOPS and MB/s are over: with --from or --to, the window asked,
 * cut to the disk's records (filtered or not); 0 otherwise (from the
 * earliest issue to the latest completion of the requests counted).
 */
static uint64_t window_span(const struct iot_opts *o,
			    const struct stats_ctx *c, unsigned int i)
{
	uint64_t lo = o->from_ns, hi = o->to_ns;

	if (!o->from_ns && o->to_ns == UINT64_MAX)
		return 0;
	if (c->first[i] == UINT64_MAX)
		return 0;
	if (lo < c->first[i])
		lo = c->first[i];
	if (hi > c->last[i])
		hi = c->last[i];
	return hi > lo ? hi - lo : 0;
}

int cmd_stats(struct iot_opts *o, int argc, char **argv)
{
	struct stats_ctx c = { .o = o, .disk = -1 };
	char err[IOT_ERR_LEN], title[512];
	char dtext[IOT_TEXT_ROOM(IOTRACE_NAME_LEN)];
	struct iot_src src;
	struct iot_out doc;
	unsigned int i;
	int ret, rc = 0;

	if (argc != 1) {
		iot_err("stats needs one DISK or FILE argument (try 'iotracectl list' for disks)");
		return 2;
	}
	if (cmd_src_open(&src, argv[0]))
		return 1;
	cmd_src_times(o, &src);
	c.src = &src;
	for (i = 0; i < IOT_MAX_DISKS; i++)
		c.first[i] = UINT64_MAX;
	/* before the modes: a --disk the source does not hold is refused */
	if (o->disk) {
		c.disk = cmd_src_disk(&src, o->disk);
		if (c.disk < 0) {
			iot_src_close(&src);
			return 2;
		}
	}
	if (o->interval) {
		/* a live disk: every S seconds from now on; else a recording */
		if (src.live && o->interval < IOT_LIVE_INTERVAL_MIN) {
			iot_err("stats --interval %g: at least %g seconds on a live disk (each interval reads the ring and prints a report)",
				o->interval, IOT_LIVE_INTERVAL_MIN);
			iot_src_close(&src);
			return 2;
		}
		if (src.live) {
			rc = stats_interval(o, &src);
			iot_src_close(&src);
			return rc;
		}
		/* the source as opened: standard input is read once */
		return stats_series(o, &src);
	}
	if (o->stack) {
		if (iot_src_stack(&src, &c.stk, err, sizeof(err))) {
			iot_err("%s", err);
			rc = 1;
			goto out;
		}
		if (err[0])
			fprintf(stderr, "iotracectl: %s\n", err);
		if (!c.stk.n)
			fprintf(stderr,
				"iotracectl: %s: no device stack %s: no logical device's table\n",
				argv[0], src.is_file ?
				"saved in it that this iotracectl reads" :
				"(a ring copy: only a trace file or a live disk has one)");
	}
	ret = iot_src_read(&src, add, &c, err, sizeof(err));
	if (ret) {
		iot_err("%s", c.nomem ? "out of memory" : err);
		rc = 1;
		goto out;
	}
	if (o->fmt == FMT_JSON)
		iot_out_begin(&doc, stdout, FMT_JSON, o->jsonl);
	if (o->fmt == FMT_CSV)
		iot_stats_csv_header(stdout);
	for (i = 0; i < src.nr_disks; i++) {
		struct iot_stats empty;

		if (c.disk >= 0 && (int)i != c.disk)
			continue;
		if (!c.st[i]) {
			if (iot_stats_init(&empty)) {
				iot_err("out of memory");
				rc = 1;
				goto out;
			}
		}
		/* the normal output prints the disk's name as text */
		if (src.nr_disks > 1 || src.is_file)
			snprintf(title, sizeof(title), "%s:%s", src.label,
				 o->fmt == FMT_JSON ? src.disks[i].name :
				 iot_text_str(dtext, sizeof(dtext),
					      src.disks[i].name));
		else
			snprintf(title, sizeof(title), "%s", src.label);
		if (o->fmt == FMT_CSV) {
			iot_stats_csv(stdout, c.st[i] ? c.st[i] : &empty,
				      src.disks[i].name, window_span(o, &c, i));
		} else if (o->fmt == FMT_JSON) {
			jw_obj_start(&doc.jw);
			iot_stats_json(&doc.jw, c.st[i] ? c.st[i] : &empty,
				       title, &src.counts[i], src.is_file,
				       window_span(o, &c, i));
			jw_key(&doc.jw, "btt");
			if (iot_btt_report(&c.btt[i], NULL, &doc.jw))
				rc = 1;
			proc_report(&c.proc[i], o->top, NULL, &doc.jw);
			jw_obj_end(&doc.jw);
			iot_out_item_end(&doc);
		} else {
			iot_stats_print(stdout, c.st[i] ? c.st[i] : &empty,
					title, &src.counts[i], src.is_file,
					window_span(o, &c, i));
			if (c.st[i] && iot_btt_report(&c.btt[i], stdout, NULL))
				rc = 1;
			proc_report(&c.proc[i], o->top, stdout, NULL);
			if (src.live)
				nvme_status_note(o, src.disks[i].name);
		}
		if (!c.st[i])
			iot_stats_free(&empty);
	}
	lg_report(&c, &doc);
	if (o->fmt == FMT_JSON)
		iot_out_end(&doc);
out:
	for (i = 0; i < c.nr_lg; i++)
		iot_stats_free(&c.lg[i].st);
	free(c.lg);
	iot_stack_free(&c.stk);
	for (i = 0; i < IOT_MAX_DISKS; i++) {
		iot_btt_free(&c.btt[i]);
		free(c.proc[i].v);
	}
	for (i = 0; i < IOT_MAX_DISKS; i++)
		if (c.st[i]) {
			iot_stats_free(c.st[i]);
			free(c.st[i]);
		}
	iot_src_close(&src);
	return rc;
}
