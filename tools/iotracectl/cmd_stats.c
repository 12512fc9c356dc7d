// SPDX-License-Identifier: GPL-2.0
/* stats: once over a DISK or FILE, or every --interval seconds (live). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "series.h"
#include "btt.h"

/**
 * struct stats_ctx - per-disk statistics being gathered.
 * @o: options.
 * @disk: disk index to keep, -1 = all.
 * @st: statistics per disk (allocated when first seen).
 * @btt: per disk, what btt's breakdown needs of every request.
 * @nomem: an allocation failed.
 */
struct stats_ctx {
	const struct iot_opts *o;
	int disk;
	struct iot_stats *st[IOT_MAX_DISKS];
	struct iot_btt btt[IOT_MAX_DISKS];
	int nomem;
};

static int add(void *arg, unsigned int disk, const struct iotrace_record *r)
{
	struct stats_ctx *c = arg;

	if (c->disk >= 0 && (int)disk != c->disk)
		return 0;
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
	if (iot_btt_add(&c->btt[disk], r)) {
		c->nomem = 1;
		return -2;
	}
	return 0;
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

/* Live, iostat-like: new records of each interval. */
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
	if (o->fmt == FMT_NORMAL)
		iot_ival_header(stdout, 0);
	while (!stop && (!o->count || n < o->count)) {
		uint64_t lost, now;
		int k;

		ts.tv_sec = (time_t)o->interval;
		ts.tv_nsec = (long)((o->interval - ts.tv_sec) * 1e9);
		if (nanosleep(&ts, NULL) && stop)
			break;
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
		}
		if (o->fmt == FMT_JSON) {
			struct iot_jw w;

			/* a stream: one object per line, whatever --jsonl */
			jw_init(&w, stdout);
			iot_ival_json(&w, src->label, now, width, ops, -1,
				      (int64_t)lost);
			putchar('\n');
		} else {
			iot_ival_text(stdout, NULL, now, width, ops, -1,
				      (int64_t)lost);
		}
		if (iot_out_flush(stdout, "standard output"))
			break;
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
	char path[512], line[512];
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
			fprintf(stderr, "iotracectl: %s: nvme status %s\n", disk, v);
		else
			printf("nvme status: %s\n", v);
	}
	fclose(fp);
}

int cmd_stats(struct iot_opts *o, int argc, char **argv)
{
	struct stats_ctx c = { .o = o, .disk = -1 };
	char err[IOT_ERR_LEN], title[512];
	struct iot_src src;
	struct iot_out doc;
	unsigned int i;
	int ret, rc = 0;

	if (argc != 1) {
		iot_err("stats needs one DISK or FILE argument (try 'iotracectl list' for disks)");
		return 2;
	}
	if (iot_src_open(&src, argv[0], err, sizeof(err))) {
		iot_err("%s", err);
		return 1;
	}
	if (o->interval) {
		/* a live disk: every S seconds from now on; else a recording */
		if (src.live) {
			rc = stats_interval(o, &src);
			iot_src_close(&src);
			return rc;
		}
		iot_src_close(&src);
		return stats_series(o, argv[0]);
	}
	if (o->disk) {
		c.disk = iot_src_disk(&src, o->disk);
		if (c.disk < 0) {
			iot_src_close(&src);
			return 1;
		}
	}
	ret = iot_src_read(&src, add, &c, err, sizeof(err));
	if (ret) {
		iot_err("%s", c.nomem ? "out of memory" : err);
		rc = 1;
		goto out;
	}
	if (o->fmt == FMT_JSON)
		iot_out_begin(&doc, stdout, FMT_JSON, o->jsonl);
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
		if (src.nr_disks > 1 || src.is_file)
			snprintf(title, sizeof(title), "%s:%s", src.label,
				 src.disks[i].name);
		else
			snprintf(title, sizeof(title), "%s", src.label);
		if (o->fmt == FMT_JSON) {
			jw_obj_start(&doc.jw);
			iot_stats_json(&doc.jw, c.st[i] ? c.st[i] : &empty,
				       title, &src.counts[i], src.is_file, 0);
			jw_key(&doc.jw, "btt");
			if (iot_btt_report(&c.btt[i], NULL, &doc.jw))
				rc = 1;
			jw_obj_end(&doc.jw);
			iot_out_item_end(&doc);
		} else {
			iot_stats_print(stdout, c.st[i] ? c.st[i] : &empty,
					title, &src.counts[i], src.is_file);
			if (c.st[i] && iot_btt_report(&c.btt[i], stdout, NULL))
				rc = 1;
			if (src.live)
				nvme_status_note(o, src.disks[i].name);
		}
		if (!c.st[i])
			iot_stats_free(&empty);
	}
	if (o->fmt == FMT_JSON)
		iot_out_end(&doc);
out:
	for (i = 0; i < IOT_MAX_DISKS; i++)
		iot_btt_free(&c.btt[i]);
	for (i = 0; i < IOT_MAX_DISKS; i++)
		if (c.st[i]) {
			iot_stats_free(c.st[i]);
			free(c.st[i]);
		}
	iot_src_close(&src);
	return rc;
}
