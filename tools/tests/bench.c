// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmarks (figures only, nothing asserted):
 *  1. stats over a large trace file: records/s of parse + filter +
 *     statistics on one core (the path of "iotracectl stats FILE"), and the
 *     same through the iotracectl binary;
 *  2. record: how many records/s the recorder keeps up with, copying from
 *     an in-memory ring that a writer thread fills at a set rate;
 *  3. every command of the iotracectl binary that reads a file, on a
 *     file as the recorder writes it (records in completion order, in two
 *     CPUs' parts), and the commands with a target again on the same
 *     records in issue order (show's reordering at its hardest; export's
 *     start order is the reordering of the first file): show in every
 *     output format, export in every format, plot, diff (the file
 *     against itself: twice the records) and stats, and show -o csv,
 *     stats and export -f csv of the file through a pipe, in
 *     records per second of CPU time (user + system, from wait4(), not
 *     wall time: these machines are shared; a command with a target runs
 *     BENCH_RUNS times, default 3, and its lowest CPU time counts: what
 *     another guest on the same host takes of the caches and memory
 *     only adds) and their peak RSS.  The
 *     targets: 5 M records/s for show -o csv and export -f csv|blktrace
 *     (output to /dev/null: export -f blktrace writes its CPU files
 *     through symbolic links to it, and once more into real files for
 *     comparison), 64 MB of RSS, whatever the size of the file; a line
 *     says whether each is met.
 *  4. the exporter: CPU time to produce /metrics (Prometheus text) for 64
 *     disks with every histogram bucket non-zero; the target: 10 ms.
 * BENCH_RECORDS (default 20000000) sets the size of the file, BENCH_RUNS
 * the runs of a command with a target;
 * BENCH_ONLY_READERS=1 runs 3. alone, BENCH_ONLY_EXPORTER=1 4. alone,
 * BENCH_CMD=WORDS only its commands that contain WORDS.
 * BENCH_ONLY_RECORDER=1: the recorder's userspace cost per record: one
 * pass of iot_record_rings() (record's drain of every part, the file
 * written to /dev/null, or to BENCH_RECORDER_OUT: a file of a tmpfs
 * counts the kernel's copy into the page cache too) over an ABI 2.0 ring
 * of BENCH_RECORDS records (default 1000000) laid out as the module lays
 * it out (2 CPUs, chunks of 512 records; a third of them with a command,
 * or with BENCH_RECORDER_NOCMD=1 none), in user instructions per record
 * where perf_event_open() counts them, and CPU ns per record, user and
 * system (tests/bench-recorder.sh counts instructions with callgrind).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include "synth.h"
#include "cmd.h"
#include "metrics.h"
#include "macros.h"

static double now_s(void)
{
	return iot_now(CLOCK_MONOTONIC) / 1e9;
}

static int stats_cb(void *arg, unsigned int disk,
		    const struct iotrace_record *r)
{
	(void)disk;
	iot_stats_add(arg, r);
	return 0;
}

static void bench_stats(uint64_t n)
{
	char path[] = "/tmp/iotracectl-bench.XXXXXX", err[IOT_ERR_LEN];
	char cmd[256];
	struct iot_src src;
	struct iot_stats *st = malloc(sizeof(*st));
	double t0, t1, t2;
	int fd = mkstemp(path);

	if (fd < 0 || !st || iot_stats_init(st))
		return;
	close(fd);
	printf("stats: writing %llu records (%.0f MB) to %s\n",
	       (unsigned long long)n,
	       n * (double)sizeof(struct iotrace_record) / 1e6, path);
	if (synth_write_big(path, n, 0)) {
		printf("stats: cannot write %s\n", path);
		goto out;
	}
	if (iot_src_open(&src, path, err, sizeof(err))) {
		printf("stats: %s\n", err);
		goto out;
	}
	/* fault the file in once so that the figure is CPU, not disk */
	t0 = now_s();
	iot_src_read(&src, NULL == st ? NULL : stats_cb, st, err, sizeof(err));
	iot_stats_reset(st);
	t1 = now_s();
	iot_src_read(&src, stats_cb, st, err, sizeof(err));
	t2 = now_s();
	printf("stats: library, warm:  %.2f s for %llu records = %.2f M records/s (target 5)\n",
	       t2 - t1, (unsigned long long)st->records,
	       st->records / (t2 - t1) / 1e6);
	printf("stats: first (cold) pass %.2f s\n", t1 - t0);
	iot_src_close(&src);
	snprintf(cmd, sizeof(cmd),
		 "./iotracectl/iotracectl stats %s > /dev/null", path);
	t0 = now_s();
	if (system(cmd))
		printf("stats: %s failed\n", cmd);
	t1 = now_s();
	fprintf(stdout,
		"stats: iotracectl stats FILE (open, validate, read, print): %.2f s = %.2f M records/s\n",
		t1 - t0, n / (t1 - t0) / 1e6);
out:
	unlink(path);
	iot_stats_free(st);
	free(st);
}

/* run @cmd (sh -c), return its CPU seconds and peak RSS (KB) */
static int run_measured(const char *cmd, double *cpu, long *rss_kb)
{
	struct rusage ru;
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	if (wait4(pid, &st, 0, &ru) != pid)
		return -1;
	*cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	*rss_kb = ru.ru_maxrss;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

/*
 * @cmd run @runs times: the lowest CPU seconds (what the others lost was
 * taken by the machine, not by the command) and the highest peak RSS
 */
static int run_best(const char *cmd, int runs, double *cpu, long *rss_kb)
{
	double c;
	long r;
	int i;

	*cpu = 0;
	*rss_kb = 0;
	for (i = 0; i < runs; i++) {
		if (run_measured(cmd, &c, &r))
			return -1;
		if (!i || c < *cpu)
			*cpu = c;
		if (!i || r > *rss_kb)
			*rss_kb = r;
	}
	return 0;
}

/* the speed target of issue 17, records per second of CPU time */
#define TARGET_RATE	5e6
/* its memory target, peak RSS */
#define TARGET_RSS_KB	(64 * 1024)

/*
 * The iotracectl readers over a large file: CPU time and peak RSS.  FILE
 * and DIR in a command are the file and a scratch directory, NULL a
 * directory whose NAME.blktrace.N are symbolic links to /dev/null; @mult
 * is how many times the command reads the file's records; @target: the
 * command has the speed target.
 */
static void bench_readers(uint64_t n, int issue_order)
{
	static const struct {
		const char *cmd;
		int target, mult;
	} what[] = {
		{ "show -o csv FILE > /dev/null", 1, 1 },
		{ "show FILE > /dev/null", 0, 1 },
		{ "show -o json FILE > /dev/null", 0, 1 },
		{ "show -o hex FILE > /dev/null", 0, 1 },
		{ "show -o binary FILE > /dev/null", 0, 1 },
		{ "export -f csv FILE -o /dev/null", 1, 1 },
		{ "export -f blktrace FILE -o NULL/b", 1, 1 },
		{ "export -f blktrace FILE -o DIR/b", 0, 1 },
		{ "export -f fio FILE -o /dev/null", 0, 1 },
		{ "export -f perfetto FILE -o /dev/null", 0, 1 },
		{ "export -f pftrace FILE -o DIR/t.pftrace", 0, 1 },
		{ "plot FILE -o /dev/null", 0, 1 },
		{ "diff FILE FILE > /dev/null", 0, 2 },
		{ "stats FILE > /dev/null", 0, 1 },
		{ "stats --interval 1s FILE > /dev/null", 0, 1 },
		/* a pipe: copied to a temporary file beyond 24 MB */
		{ "| show -o csv - > /dev/null", 0, 1 },
		{ "| stats - > /dev/null", 0, 1 },
		{ "| export -f csv - -o /dev/null", 0, 1 },
		{ "| plot - -o /dev/null", 0, 1 },
		{ "| stats --interval 1s - > /dev/null", 0, 1 },
	};
	char path[] = "/tmp/iotracectl-bench.XXXXXX";
	char dir[] = "/tmp/iotracectl-bench-bt.XXXXXX";
	char null[] = "/tmp/iotracectl-bench-null.XXXXXX";
	const char *only = getenv("BENCH_CMD"), *e = getenv("BENCH_RUNS");
	int runs = e && atoi(e) > 0 ? atoi(e) : 3;
	char cmd[1024], verdict[2048] = "", big[1024] = "";
	int fd = mkstemp(path), met = 1, rss_met = 1;
	long rss_max = 0;
	struct stat st;
	size_t i;

	if (fd < 0 || !mkdtemp(dir) || !mkdtemp(null))
		return;
	close(fd);
	for (i = 0; i < 1024; i++) {	/* every CPU file a record may name */
		snprintf(cmd, sizeof(cmd), "%s/b.blktrace.%zu", null, i);
		if (symlink("/dev/null", cmd))
			printf("readers: cannot link %s to /dev/null\n", cmd);
	}
	printf("readers: writing %llu records (%.0f MB) to %s, %s\n",
	       (unsigned long long)n,
	       n * (double)sizeof(struct iotrace_record) / 1e6, path,
	       issue_order ?
	       "in issue order (one part: every record up to ~500 places from completion order)" :
	       "as the recorder writes them (two CPUs' parts, in completion order)");
	printf("readers: a command with a target: the lowest CPU time of %d runs\n",
	       runs);
	if (synth_write_big(path, n, issue_order)) {
		printf("readers: cannot write %s\n", path);
		goto out;
	}
	snprintf(cmd, sizeof(cmd), "cat %s > /dev/null", path);
	if (system(cmd))	/* into the page cache: CPU, not disk */
		printf("readers: %s failed\n", cmd);
	for (i = 0; i < ARRAY_SIZE(what); i++) {
		const char *w = what[i].cmd;
		char *p = cmd;
		double cpu;
		long rss;

		if (only && !strstr(w, only))
			continue;
		if (issue_order && !what[i].target)
			continue;
		/*
		 * ./iotracectl/iotracectl WHAT, FILE and DIR replaced; "| WHAT":
		 * the file on standard input through a pipe (cat's share of
		 * the CPU time counts, its RSS is small)
		 */
		if (*w == '|') {
			p += snprintf(p, sizeof(cmd), "cat %s | ", path);
			w += 2;
		}
		p += snprintf(p, sizeof(cmd) - (p - cmd),
			      "./iotracectl/iotracectl ");
		for (; *w && p < cmd + sizeof(cmd) - 128; w++) {
			if (!strncmp(w, "FILE", 4)) {
				p += sprintf(p, "%s", path);
				w += 3;
			} else if (!strncmp(w, "DIR", 3)) {
				p += sprintf(p, "%s", dir);
				w += 2;
			} else if (!strncmp(w, "NULL", 4)) {
				p += sprintf(p, "%s", null);
				w += 3;
			} else {
				*p++ = *w;
			}
		}
		sprintf(p, " 2> /dev/null");
		if (run_best(cmd, what[i].target ? runs : 1, &cpu, &rss)) {
			printf("readers: %s failed\n", what[i].cmd);
			continue;
		}
		fprintf(stdout,
			"readers: %-36s %6.2f s CPU = %5.2f M records/s of CPU%s, peak RSS %4ld MB (target 64)\n",
			what[i].cmd, cpu, what[i].mult * n / cpu / 1e6,
			what[i].target ? " (target 5)" : "           ",
			rss / 1024);
		/* the size of the Perfetto trace, then gone */
		snprintf(cmd, sizeof(cmd), "%s/t.pftrace", dir);
		if (strstr(what[i].cmd, "pftrace") && !stat(cmd, &st)) {
			printf("readers: export -f pftrace: %lld bytes, %.1f a record\n",
			       (long long)st.st_size, (double)st.st_size / n);
			unlink(cmd);
		}
		if (what[i].target) {
			double rate = what[i].mult * n / cpu;
			size_t l = strlen(verdict);

			snprintf(verdict + l, sizeof(verdict) - l,
				 "%s%s %.2f M/s %s", l ? "; " : "",
				 what[i].cmd, rate / 1e6,
				 rate >= TARGET_RATE ? "met" : "NOT met");
			if (rate < TARGET_RATE)
				met = 0;
			if (rss > TARGET_RSS_KB)
				rss_met = 0;
			if (rss > rss_max)
				rss_max = rss;
		} else if (rss > TARGET_RSS_KB) {
			size_t l = strlen(big);

			snprintf(big + l, sizeof(big) - l, "%s%s (%ld MB)",
				 l ? ", " : "", what[i].cmd, rss / 1024);
		}
	}
	if (*verdict) {
		printf("readers: target 5 M records/s of CPU: %s: %s\n",
		       met ? "met" : "NOT met", verdict);
		fprintf(stdout,
			"readers: target 64 MB of RSS for show -o csv, export -f csv|blktrace: %s (largest %ld MB)\n",
			rss_met ? "met" : "NOT met", rss_max / 1024);
	}
	if (*big)
		printf("readers: above 64 MB of RSS (not bounded yet): %s\n",
		       big);
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", dir, null);
	if (system(cmd))
		printf("readers: %s failed\n", cmd);
out:
	unlink(path);
}

/**
 * struct wctx - writer thread state.
 * @ring: ring written.
 * @rate: records/s, 0 = as fast as possible.
 * @secs: how long.
 * @n: records written.
 * @done: finished.
 */
struct wctx {
	uint8_t *ring;
	double rate, secs;
	uint64_t n;
	atomic_int done;
};

static void *writer(void *arg)
{
	struct wctx *w = arg;
	struct iotrace_record r[64];
	double t0 = now_s(), t;
	unsigned int k;

	for (k = 0; k < 64; k++)
		synth_rec(&r[k], k);
	for (;;) {
		for (k = 0; k < 64; k++)
			synth_ring_push(w->ring, 0, &r[k]);
		w->n += 64;
		t = now_s() - t0;
		if (t >= w->secs)
			break;
		if (w->rate)
			while (w->n > w->rate * (now_s() - t0))
				;
	}
	atomic_store_explicit(&w->done, 1, memory_order_release);
	return NULL;
}

static void bench_record(double rate, uint32_t part_records)
{
	struct wctx w = { .rate = rate, .secs = 2.0 };
	struct iot_rec_stop st = { .stop = &w.done, .poll_ms = 1 };
	struct iot_counts c;
	struct iot_ring ring;
	struct iot_disk d;
	char err[IOT_ERR_LEN];
	pthread_t t;
	size_t len;
	FILE *fp = fopen("/dev/null", "wb");
	double t0, t1, cpu0, cpu;

	w.ring = synth_ring_new(1, part_records, 128, "bench0", &len);
	if (!w.ring || !fp || iot_ring_init(&ring, w.ring, len, err,
					    sizeof(err)))
		return;
	iot_ring_disk(&ring, &d);
	t0 = now_s();
	pthread_create(&t, NULL, writer, &w);
	cpu0 = iot_now(CLOCK_THREAD_CPUTIME_ID) / 1e9;
	iot_record_rings(&ring, &d, 1, fp, &st, &c, err, sizeof(err));
	cpu = iot_now(CLOCK_THREAD_CPUTIME_ID) / 1e9 - cpu0;
	pthread_join(t, NULL);
	t1 = now_s();
	fclose(fp);
	fprintf(stdout,
		"record: writer %s%-9.0f rec/s, ring %u records: recorder wrote %.2f M rec/s, lost %llu of %llu (%.3f%%); recorder CPU %.2f s = %.1f M rec per CPU-second\n",
		rate ? "at " : "unthrottled ", w.n / (t1 - t0), part_records,
		c.written / (t1 - t0) / 1e6, (unsigned long long)c.lost,
		(unsigned long long)c.recorded,
		c.recorded ? 100.0 * c.lost / c.recorded : 0, cpu,
		cpu > 0 ? c.written / cpu / 1e6 : 0);
	free(w.ring);
}

/* A counter of this thread's user instructions, or -1. */
static int user_insns_open(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static uint64_t user_insns(int fd)
{
	uint64_t v = 0;

	if (fd < 0 || read(fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

/*
 * BENCH_ONLY_RECORDER: one final pass of the recorder over @n records
 * already in a 2.0 ring (nothing written meanwhile: the copy, the
 * conversion and the file chunks only).
 */
static void bench_recorder(uint64_t n)
{
	uint32_t cpus = 2, recs = 512;
	uint32_t chunks = n / recs + 2 * cpus;
	atomic_int stop = 1;
	struct iot_rec_stop st = { .stop = &stop };
	struct iotrace_record r;
	struct iot_counts c;
	struct iot_ring ring;
	struct iot_disk d;
	char err[IOT_ERR_LEN];
	uint64_t i, i0, i1;
	size_t len;
	uint8_t *b = synth_ring2_new(cpus, recs, chunks, "bench0", &len);
	const char *out = getenv("BENCH_RECORDER_OUT");
	FILE *fp = fopen(out ? out : "/dev/null", "wb");
	int nocmd = !!getenv("BENCH_RECORDER_NOCMD");
	double t0, t;
	int fd;

	if (!fp) {
		printf("recorder: %s: %s\n", out ? out : "/dev/null",
		       strerror(errno));
		free(b);
		return;
	}
	if (!b || n >= (uint64_t)UINT32_MAX * recs) {
		fclose(fp);
		return;
	}
	for (i = 0; i < n; i++) {
		synth_rec(&r, i);
		r.complete_cpu = i % cpus;
		if (nocmd) {
			/* as a null_blk or virtio-blk disk's: no command */
			r.cmd_type = IOTRACE_CMD_NONE;
			r.cmd_len = 0;
			memset(r.cmd, 0, sizeof(r.cmd));
		}
		synth_ring2_push(b, i % cpus, &r, 1);
	}
	if (iot_ring_init(&ring, b, len, err, sizeof(err))) {
		printf("recorder: %s\n", err);
		return;
	}
	iot_ring_disk(&ring, &d);
	fd = user_insns_open();
	i0 = user_insns(fd);
	t0 = iot_now(CLOCK_THREAD_CPUTIME_ID);
	iot_record_rings(&ring, &d, 1, fp, &st, &c, err, sizeof(err));
	t = iot_now(CLOCK_THREAD_CPUTIME_ID) - t0;
	i1 = user_insns(fd);
	fclose(fp);
	fprintf(stdout,
		"recorder: %llu records of a 2.0 ring (%u CPUs, chunks of %u) written, %llu lost: %.1f ns CPU per record",
		(unsigned long long)c.written, cpus, recs,
		(unsigned long long)c.lost, c.written ? t / c.written : 0);
	if (fd >= 0 && c.written)
		printf(", %.1f user instructions per record\n",
		       (double)(i1 - i0) / c.written);
	else
		printf(" (no instruction counter here: tests/bench-recorder.sh)\n");
	if (fd >= 0)
		close(fd);
	free(b);
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void bench_exporter(unsigned int disks)
{
	struct iot_metrics *m = calloc(disks, sizeof(*m));
	unsigned int i, op, b, rounds = 50, r;
	double t0, best = 1e9, sum = 0;
	size_t len = 0;

	if (!m)
		return;
	for (i = 0; i < disks; i++) {
		snprintf(m[i].disk, sizeof(m[i].disk), "nvme%un1", i);
		snprintf(m[i].model, sizeof(m[i].model), "SAMSUNG MZQL23T8HCLS-00A07");
		snprintf(m[i].serial, sizeof(m[i].serial), "S64HNE0T%06u", i);
		snprintf(m[i].wwn, sizeof(m[i].wwn), "eui.36344830526%05u", i);
		for (op = 0; op < IOTRACE_NR_MOPS; op++) {
			struct iotrace_metrics_op *o = &m[i].op[op];

			for (b = 0; b < IOTRACE_HIST_BUCKETS; b++) {
				o->dev_hist[b] = 1000003ULL * (b + 1) * (op + 1);
				o->queue_hist[b] = 999983ULL * (b + 1);
			}
			o->requests = 123456789012ULL;
			o->bytes = 505050505050505ULL;
			o->dev_sum_ns = 987654321987654ULL;
			o->queue_sum_ns = 123456789123456ULL;
		}
		m[i].have_ring = 1;
	}
	for (r = 0; r < rounds; r++) {
		char *buf = NULL;
		FILE *fp = open_memstream(&buf, &len);
		double t;

		if (!fp)
			break;
		t0 = cpu_s();
		iot_prom_write(fp, m, disks, 1, 0, IOT_PROM_TEXT);
		fclose(fp);
		t = cpu_s() - t0;
		sum += t;
		if (t < best)
			best = t;
		free(buf);
	}
	fprintf(stdout,
		"exporter: /metrics of %u disks, %zu bytes: %.2f ms CPU per scrape (best of %u; mean %.2f ms), target 10 ms\n",
		disks, len, best * 1e3, rounds, sum / rounds * 1e3);
	free(m);
}

int main(void)
{
	const char *e = getenv("BENCH_RECORDS");
	uint64_t n = e ? strtoull(e, NULL, 0) : 20000000;

	double load[3] = { 0 };

	getloadavg(load, 3);
	fprintf(stdout,
		"# figures from this machine (load average %.1f on %ld CPUs), one core each; nothing is asserted\n",
		load[0], sysconf(_SC_NPROCESSORS_ONLN));
	if (getenv("BENCH_ONLY_EXPORTER")) {
		bench_exporter(64);
		return 0;
	}
	if (getenv("BENCH_ONLY_RECORDER")) {
		bench_recorder(e ? n : 1000000);
		return 0;
	}
	if (getenv("BENCH_ONLY_READERS")) {
		bench_readers(n, 0);
		bench_readers(n, 1);
		return 0;
	}
	bench_stats(n);
	bench_readers(n, 0);
	bench_readers(n, 1);
	bench_record(500000, 65536);
	bench_record(1000000, 65536);
	bench_record(2000000, 65536);
	bench_record(4000000, 65536);
	bench_record(0, 65536);
	bench_exporter(64);
	return 0;
}
