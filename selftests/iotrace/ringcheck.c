// SPDX-License-Identifier: GPL-2.0
/*
 * ringcheck - validate an iotrace ring from user space (guest test helper).
 *
 *   ringcheck check RING        quiesced ring (ABI 2.0): per CPU, chunks of
 *                               contiguous sequence numbers, every record
 *                               intact, present == head - overwritten
 *   ringcheck dump RING         print "OP SECTOR BYTES" per intact record
 *   ringcheck dumpx RING        print "OP SECTOR BYTES RFLAGS LATENCY_NS"
 *                               (RFLAGS in decimal;
 *                               latency -1 without an issue)
 *   ringcheck dumpp RING        print "OP SECTOR BYTES RFLAGS PID CGROUP"
 *                               (the submitter and the cgroup id)
 *   ringcheck dumpm RING        print "OP SECTOR BYTES PATH CMDTYPE" (PATH:
 *                               the controller of a multipath head's
 *                               record, -1 for none)
 *   ringcheck dumps RING        print "CPU SEQ OP SECTOR BYTES RFLAGS
 *                               LATENCY_NS ERROR" (where the record is:
 *                               its CPU and full sequence number)
 *   ringcheck dumpt RING        print "OP SECTOR BYTES RFLAGS ISSUE_NS
 *                               QUEUE_NS COMPLETE_NS" (the times as
 *                               recorded)
 *   ringcheck watch RING FILE   copy and validate continuously until FILE
 *                               exists (at most RINGCHECK_MAX_S, default 600 s;
 *                               RINGCHECK_POLL_US: pause between passes)
 *   ringcheck follow RING FILE  watch that survives clears (generation
 *                               changes: start again at 0) and resizes (the
 *                               mapping turns DETACHED: map RING again); ends
 *                               cleanly when RING is gone (disk removed)
 *   ringcheck hold RING FILE    map, wait until FILE exists, re-validate the
 *                               mapping (the disk may be gone by then)
 *   ringcheck rdonly RING       writable mappings are refused; read() == mmap
 *   ringcheck takes RING        the take numbers of the chunks in use:
 *                               "takes: N", "take_min: T", "take_max: T"
 *
 * Only the ring header's geometry is used, never compiled-in sizes.  Prints
 * "key: value" summary lines and "# " diagnostics; exits 0 when valid.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/iotrace.h>

#define NONE	IOTRACE_CHUNK_NONE

struct ring {
	int fd;
	size_t size;
	const uint8_t *map;
	const struct iotrace_ring_hdr *h;
};

/* A chunk as one pass found it. */
struct chunk {
	uint64_t take, first;
	uint32_t k, cpu;
};

static int fail(const char *what)
{
	printf("# FAIL: %s\n", what);
	return 1;
}

static const struct iotrace_cpu_hdr *cpu_hdr(const struct ring *r, uint32_t c)
{
	return (const void *)(r->map + r->h->cpu_hdr_offset +
			      (size_t)c * r->h->cpu_hdr_size);
}

static const struct iotrace_chunk_hdr *chunk_hdr(const struct ring *r,
						 uint32_t k)
{
	return (const void *)(r->map + r->h->chunk_hdr_offset +
			      (size_t)k * r->h->chunk_hdr_size);
}

static const struct iotrace_record *rec(const struct ring *r, uint32_t k,
					uint32_t i)
{
	return (const void *)(r->map + r->h->data_offset +
			      (size_t)k * r->h->chunk_stride +
			      (size_t)i * r->h->record_size);
}

static uint64_t ld64(const __u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/*
 * Copy slot @i of chunk @c (as snapshotted); 1 if it holds the record
 * first + i of that take, intact.
 */
static int copy_rec(const struct ring *r, const struct chunk *c, uint32_t i,
		    struct iotrace_record *out)
{
	const struct iotrace_record *s = rec(r, c->k, i);
	uint32_t want = (uint32_t)(c->first + i), s1, s2;

	s1 = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
	if (s1 != want)
		return 0;
	memcpy(out, s, sizeof(*out));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	s2 = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
	if (s2 != want || out->seq != want)
		return 0;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return ld64(&chunk_hdr(r, c->k)->seq) == c->take;
}

static int chunk_cmp(const void *a, const void *b)
{
	const struct chunk *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x->take > y->take ? -1 : x->take < y->take;
}

/* The chunks in use, by CPU and first sequence number; returns how many. */
static uint32_t snapshot(const struct ring *r, struct chunk *out)
{
	uint32_t k, n = 0;

	for (k = 0; k < r->h->nr_chunks; k++) {
		const struct iotrace_chunk_hdr *ch = chunk_hdr(r, k);
		struct chunk *c = &out[n];

		c->take = ld64(&ch->seq);
		if (!c->take || c->take == UINT64_MAX)
			continue;
		c->cpu = __atomic_load_n(&ch->cpu, __ATOMIC_RELAXED);
		c->first = __atomic_load_n(&ch->first_seq, __ATOMIC_RELAXED);
		c->k = k;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (ld64(&ch->seq) != c->take || c->cpu >= r->h->nr_cpus)
			continue;
		n++;
	}
	qsort(out, n, sizeof(*out), chunk_cmp);
	return n;
}

static int quiet;

static int ring_open(struct ring *r, const char *path)
{
	struct iotrace_ring_hdr h;
	struct stat st;

	r->fd = open(path, O_RDONLY);
	if (r->fd < 0) {
		printf("# %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (pread(r->fd, &h, sizeof(h), 0) != sizeof(h)) {
		printf("# %s: short read of the header\n", path);
		return -1;
	}
	if (h.magic != IOTRACE_RING_MAGIC || h.abi_major != IOTRACE_ABI_MAJOR) {
		printf("# %s: bad magic 0x%x or ABI %u\n", path, h.magic,
		       h.abi_major);
		return -1;
	}
	if (h.record_size < sizeof(struct iotrace_record) ||
	    h.record_size % 64 || h.chunk_records < 2 ||
	    (h.chunk_records & (h.chunk_records - 1)) || !h.nr_cpus ||
	    !h.nr_chunks ||
	    h.cpu_hdr_size < sizeof(struct iotrace_cpu_hdr) ||
	    h.chunk_hdr_size < sizeof(struct iotrace_chunk_hdr) ||
	    h.cpu_hdr_offset < h.hdr_size ||
	    h.cpu_hdr_offset + (uint64_t)h.nr_cpus * h.cpu_hdr_size >
	    h.chunk_hdr_offset ||
	    h.chunk_hdr_offset + (uint64_t)h.nr_chunks * h.chunk_hdr_size >
	    h.data_offset ||
	    h.chunk_stride < (uint64_t)h.chunk_records * h.record_size ||
	    h.data_offset + h.nr_chunks * h.chunk_stride > h.ring_size) {
		printf("# %s: inconsistent geometry\n", path);
		return -1;
	}
	(void)fstat(r->fd, &st);
	r->size = h.ring_size;
	r->map = mmap(NULL, r->size, PROT_READ, MAP_SHARED, r->fd, 0);
	if (r->map == MAP_FAILED) {
		printf("# %s: mmap: %s\n", path, strerror(errno));
		return -1;
	}
	r->h = (const void *)r->map;
	if (!quiet)
		printf("# ring %s: %u chunks x %u records, %u CPUs, %llu bytes, generation %llu\n",
		       r->h->name, h.nr_chunks, h.chunk_records, h.nr_cpus,
		       (unsigned long long)h.ring_size,
		       (unsigned long long)h.generation);
	return 0;
}

/* Checks every record must pass whatever the load. */
static const char *rec_insane(const struct ring *r, uint32_t p,
			      const struct iotrace_record *x)
{
	(void)p;
	if (!(x->rflags & IOTRACE_RF_COMPLETE))
		return "COMPLETE flag missing";
	if (x->pid && (x->rflags & IOTRACE_RF_KERNEL))
		return "pid with RF_KERNEL";
	if (!(x->rflags & IOTRACE_RF_NO_ISSUE) && x->complete_ns < x->issue_ns)
		return "completed before issue";
	if (x->bytes % 512)
		return "byte count not a multiple of 512";
	if (x->cmd_len > IOTRACE_CMD_LEN)
		return "cmd_len too long";
	if (x->cmd_type == IOTRACE_CMD_NONE) {
		unsigned int i;

		if (x->cmd_len)
			return "cmd_len without a command";
		/* zero but for the cgroup, whatever the slot held before */
		for (i = 0; i < IOTRACE_CMD_LEN; i++)
			if (x->cmd[i] && (i < IOTRACE_CMD_CGROUP_OFF ||
					  i >= IOTRACE_CMD_CGROUP_OFF + 8))
				return "command bytes without a command";
	}
	(void)r;
	return NULL;
}

static const char *op_name(uint8_t op)
{
	switch (op) {
	case IOTRACE_OP_READ: return "read";
	case IOTRACE_OP_WRITE: return "write";
	case IOTRACE_OP_FLUSH: return "flush";
	case IOTRACE_OP_DISCARD: return "discard";
	case IOTRACE_OP_WRITE_ZEROES: return "write_zeroes";
	default: return "other";
	}
}

static void print_rec(const struct iotrace_record *x, int dump)
{
	uint64_t cg;

	if (dump == 1) {
		printf("%s %llu %u\n", op_name(x->op),
		       (unsigned long long)x->sector, x->bytes);
	} else if (dump == 4) {
		printf("%s %llu %u %u %lld %d\n", op_name(x->op),
		       (unsigned long long)x->sector, x->bytes, x->rflags,
		       x->rflags & IOTRACE_RF_NO_ISSUE ? -1LL :
		       (long long)(x->complete_ns - x->issue_ns), x->error);
	} else if (dump == 5) {
		/* OP SECTOR BYTES RFLAGS ISSUE_NS QUEUE_NS COMPLETE_NS */
		printf("%s %llu %u %u %llu %u %llu\n", op_name(x->op),
		       (unsigned long long)x->sector, x->bytes, x->rflags,
		       (unsigned long long)x->issue_ns, x->queue_ns,
		       (unsigned long long)x->complete_ns);
	} else if (dump == 6) {
		uint32_t path;

		memcpy(&path, x->cmd + IOTRACE_CMD_PATH_OFF, sizeof(path));
		printf("%s %llu %u %lld %u\n", op_name(x->op),
		       (unsigned long long)x->sector, x->bytes,
		       (long long)le32toh(path) - 1, x->cmd_type);
	} else if (dump == 3) {
		memcpy(&cg, x->cmd + IOTRACE_CMD_CGROUP_OFF, sizeof(cg));
		printf("%s %llu %u %u %u %llu\n", op_name(x->op),
		       (unsigned long long)x->sector, x->bytes, x->rflags,
		       x->pid, (unsigned long long)le64toh(cg));
	} else {
		printf("%s %llu %u %u %lld\n", op_name(x->op),
		       (unsigned long long)x->sector, x->bytes, x->rflags,
		       x->rflags & IOTRACE_RF_NO_ISSUE ? -1LL :
		       (long long)(x->complete_ns - x->issue_ns));
	}
}

/*
 * A quiet ring: per CPU, its chunks hold contiguous sequence numbers;
 * every slot of a chunk that is not the CPU's current one holds its
 * record, the current one a prefix of records and then "not written"
 * markers; present = head - overwritten.  dump: the records, per CPU in
 * order (not merged by time).
 */
static int do_check(struct ring *r, int dump)
{
	uint64_t recorded = 0, overwritten = 0, present = 0, dropped = 0;
	uint64_t filtered = 0, noissue = 0, bad = 0, wraps = 0;
	uint32_t R = r->h->chunk_records, n, j, i, written = 0;
	struct chunk *cs = calloc(r->h->nr_chunks, sizeof(*cs));
	/* RINGCHECK_SEQ_BASE: the module's debug_seq_start (heads start there) */
	const char *base_env = getenv("RINGCHECK_SEQ_BASE");
	uint64_t base = base_env ? strtoull(base_env, NULL, 0) : 0;
	struct iotrace_record x;
	uint32_t p;

	if (!cs)
		return fail("out of memory");
	n = snapshot(r, cs);
	for (p = 0; p < r->h->nr_cpus; p++) {
		const struct iotrace_cpu_hdr *h = cpu_hdr(r, p);
		uint64_t head = ld64(&h->head) - base;
		uint64_t ovw = ld64(&h->overwritten);
		uint64_t cpu_present = 0;

		recorded += head;
		overwritten += ovw;
		dropped += ld64(&h->dropped);
		filtered += ld64(&h->filtered);
		if (head)
			written++;
		if (!dump && head)
			printf("# cpu %u: head %llu overwritten %llu cur %u\n", p,
			       (unsigned long long)head,
			       (unsigned long long)ovw, h->cur);
		for (j = 0; j < n; j++) {
			const struct chunk *c = &cs[j];
			int cur = c->k == h->cur, ended = 0;

			if (c->cpu != p)
				continue;
			if (j && cs[j - 1].cpu == p &&
			    cs[j - 1].first + R != c->first) {
				printf("# cpu %u: chunk %u first %llu does not follow %llu\n",
				       p, c->k, (unsigned long long)c->first,
				       (unsigned long long)cs[j - 1].first);
				bad++;
			}
			for (i = 0; i < R; i++) {
				const char *why;
				uint32_t sv = rec(r, c->k, i)->seq;

				if (!copy_rec(r, c, i, &x)) {
					if (cur && sv == (uint32_t)~(uint32_t)(c->first + i)) {
						ended = 1;	/* not yet written */
						continue;
					}
					if (!dump)
						fprintf(stdout,
							"# cpu %u chunk %u seq %llu missing (slot seq 0x%x)\n",
							p, c->k,
							(unsigned long long)(c->first + i), sv);
					bad++;
					continue;
				}
				if (ended) {
					fprintf(stdout,
						"# cpu %u chunk %u seq %llu: a record after an unwritten slot\n",
						p, c->k, (unsigned long long)(c->first + i));
					bad++;
				}
				why = rec_insane(r, p, &x);
				if (why) {
					printf("# cpu %u seq %llu: %s\n", p,
					       (unsigned long long)(c->first + i), why);
					bad++;
					continue;
				}
				if ((uint32_t)(c->first + i) == 0 && c->first + i)
					wraps++;
				cpu_present++;
				if (x.rflags & IOTRACE_RF_NO_ISSUE)
					noissue++;
				if (dump == 4)
					printf("%u %llu ", p,
					       (unsigned long long)(c->first + i));
				if (dump)
					print_rec(&x, dump);
			}
		}
		if (cpu_present != head - ovw) {
			printf("# cpu %u: %llu records present, head - overwritten is %llu\n",
			       p, (unsigned long long)cpu_present,
			       (unsigned long long)(head - ovw));
			bad++;
		}
		present += cpu_present;
	}
	free(cs);
	if (dump)
		return 0;
	printf("recorded: %llu\npresent: %llu\noverwritten: %llu\n"
	       "dropped: %llu\nfiltered: %llu\ncompleted: %llu\n"
	       "no_issue: %llu\nbad: %llu\nparts_written: %u\n"
	       "ring_records: %llu\nseq_wraps: %llu\n",
	       (unsigned long long)recorded, (unsigned long long)present,
	       (unsigned long long)overwritten, (unsigned long long)dropped,
	       (unsigned long long)filtered,
	       (unsigned long long)(recorded + dropped + filtered),
	       (unsigned long long)noissue, (unsigned long long)bad, written,
	       (unsigned long long)r->h->nr_chunks * R,
	       (unsigned long long)wraps);
	return bad ? fail("records missing or invalid in a quiet ring") : 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void ring_close(struct ring *r)
{
	munmap((void *)r->map, r->size);
	close(r->fd);
}

/*
 * watch (@path NULL): one mapping, one generation, until @stop exists.
 * follow (@path set): a new generation (clear) starts again at sequence 0,
 * a DETACHED mapping (resize, disk removal) is drained once more and @path
 * mapped again; a @path that is gone ends the watch.
 */
static int do_watch(struct ring *r, const char *stop, const char *path)
{
	struct chunk *cs = calloc(r->h->nr_chunks, sizeof(*cs));
	/* per CPU: the highest sequence number accepted so far, plus one */
	uint64_t *last = calloc(r->h->nr_cpus, sizeof(*last));
	uint64_t good = 0, lost = 0, passes = 0, insane = 0, back = 0;
	uint64_t gens = 0, remaps = 0, gone = 0, recycled = 0;
	uint64_t gen = r->h->generation;
	struct iotrace_record x;
	const char *max_env = getenv("RINGCHECK_MAX_S");
	double end = now_s() + (max_env ? atof(max_env) : 600);
	/* A slow reader (RINGCHECK_SLOW_US per record) is lapped on purpose. */
	const char *slow_env = getenv("RINGCHECK_SLOW_US");
	unsigned int slow = slow_env ? atoi(slow_env) : 0;
	/* RINGCHECK_POLL_US: pause between passes (leaves CPU to writers) */
	const char *poll_env = getenv("RINGCHECK_POLL_US");
	unsigned int poll_us = poll_env ? atoi(poll_env) : 0;
	int detached = 0;
	uint32_t n, j, i;

	if (!last || !cs)
		return fail("out of memory");
	printf("mapped: 1\n");
	fflush(stdout);
	while (now_s() < end && access(stop, F_OK)) {
		uint64_t g;

		passes++;
		if (path && detached) {
			/* the last pass drained the final ring: map the new one */
			ring_close(r);
			quiet = 1;
			if (ring_open(r, path)) {
				gone = 1;
				break;
			}
			free(last);
			free(cs);
			last = calloc(r->h->nr_cpus, sizeof(*last));
			cs = calloc(r->h->nr_chunks, sizeof(*cs));
			if (!last || !cs)
				return fail("out of memory");
			gen = r->h->generation;
			remaps++;
			detached = 0;
		}
		if (path && (__atomic_load_n(&r->h->flags, __ATOMIC_ACQUIRE) &
			     IOTRACE_RING_DETACHED))
			detached = 1;	/* final: one more pass, then remap */
		g = __atomic_load_n(&r->h->generation, __ATOMIC_ACQUIRE);
		if (g != gen) {
			if (!path)
				return fail("generation changed during watch");
			gen = g;
			gens++;
			memset(last, 0, r->h->nr_cpus * sizeof(*last));
		}
		n = snapshot(r, cs);
		for (j = 0; j < n; j++) {
			const struct chunk *c = &cs[j];

			for (i = 0; i < r->h->chunk_records; i++) {
				uint64_t s = c->first + i;
				const char *why;

				if (s < last[c->cpu])
					continue;
				if (slow)
					usleep(slow);
				if (!copy_rec(r, c, i, &x)) {
					/* lapped: the chunk was taken again */
					if (ld64(&chunk_hdr(r, c->k)->seq) !=
					    c->take) {
						recycled++;
						break;
					}
					continue;	/* busy or unwritten */
				}
				why = rec_insane(r, c->cpu, &x);
				if (why) {
					printf("# cpu %u seq %llu: %s\n", c->cpu,
					       (unsigned long long)s, why);
					insane++;
				}
				if (last[c->cpu] && s > last[c->cpu])
					lost += s - last[c->cpu];	/* lapped */
				last[c->cpu] = s + 1;
				good++;
			}
		}
		if (poll_us)
			usleep(poll_us);
	}
	printf("watch_passes: %llu\nwatch_good: %llu\nwatch_overrun: %llu\n"
	       "watch_insane: %llu\nwatch_head_back: %llu\n"
	       "watch_recycled: %llu\n",
	       (unsigned long long)passes, (unsigned long long)good,
	       (unsigned long long)lost, (unsigned long long)insane,
	       (unsigned long long)back, (unsigned long long)recycled);
	if (path)
		printf("follow_generations: %llu\nfollow_remaps: %llu\n"
		       "follow_gone: %llu\n", (unsigned long long)gens,
		       (unsigned long long)remaps, (unsigned long long)gone);
	free(last);
	free(cs);
	if (insane || back)
		return fail("invalid record accepted or head went back");
	return 0;
}

static int do_hold(struct ring *r, const char *go)
{
	int tries = 6000;

	printf("mapped: 1\n");
	fflush(stdout);
	while (access(go, F_OK) && --tries)
		usleep(100000);
	if (!tries)
		return fail("timed out waiting for the go file");
	if (r->h->magic != IOTRACE_RING_MAGIC)
		return fail("mapping lost its header");
	printf("detached: %d\n", !!(r->h->flags & IOTRACE_RING_DETACHED));
	return do_check(r, 0);
}

/* The take numbers of the chunks in use (0, 0 for none). */
static int do_takes(struct ring *r)
{
	struct chunk *cs = calloc(r->h->nr_chunks ? r->h->nr_chunks : 1,
				  sizeof(*cs));
	uint64_t lo = 0, hi = 0;
	uint32_t i, n;

	if (!cs)
		return fail("out of memory");
	n = snapshot(r, cs);
	for (i = 0; i < n; i++) {
		if (!lo || cs[i].take < lo)
			lo = cs[i].take;
		if (cs[i].take > hi)
			hi = cs[i].take;
	}
	printf("takes: %u\ntake_min: %llu\ntake_max: %llu\n", n,
	       (unsigned long long)lo, (unsigned long long)hi);
	free(cs);
	return 0;
}

static int do_rdonly(struct ring *r, const char *path)
{
	uint8_t *buf = malloc(r->size);
	void *m;
	int fd;
	ssize_t n;

	fd = open(path, O_RDWR);
	if (fd >= 0) {
		close(fd);
		return fail("ring opened for writing");
	}
	m = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (m != MAP_FAILED)
		return fail("writable shared mapping allowed");
	if (!mprotect((void *)r->map, r->size, PROT_READ | PROT_WRITE))
		return fail("mprotect to writable allowed");
	m = mmap(NULL, r->size + 4096, PROT_READ, MAP_SHARED, r->fd, 0);
	if (m != MAP_FAILED)
		return fail("mapping larger than the ring allowed");
	if (!buf)
		return fail("out of memory");
	n = pread(r->fd, buf, r->size, 0);
	if (n != (ssize_t)r->size)
		return fail("read() did not return the whole ring");
	if (memcmp(buf, r->map, r->size))
		return fail("read() bytes differ from the mapping (quiet ring)");
	if (pread(r->fd, buf, 16, r->size) != 0)
		return fail("read() past the end returned data");
	printf("rdonly: ok\n");
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	struct ring r;

	if (argc < 3) {
		fprintf(stderr,
			"usage: ringcheck check|dump|dumpx|dumpp|dumps|dumpt|dumpm|watch|follow|hold|rdonly|takes RING [ARG]\n");
		return 2;
	}
	quiet = !strcmp(argv[1], "dump") || !strcmp(argv[1], "dumpx") ||
		!strcmp(argv[1], "dumpp") || !strcmp(argv[1], "dumps") ||
		!strcmp(argv[1], "dumpt") || !strcmp(argv[1], "dumpm");
	if (ring_open(&r, argv[2]))
		return 1;
	if (!strcmp(argv[1], "check"))
		return do_check(&r, 0);
	if (!strcmp(argv[1], "dump"))
		return do_check(&r, 1);
	if (!strcmp(argv[1], "dumpx"))
		return do_check(&r, 2);
	if (!strcmp(argv[1], "dumpp"))
		return do_check(&r, 3);
	if (!strcmp(argv[1], "dumps"))
		return do_check(&r, 4);
	if (!strcmp(argv[1], "dumpt"))
		return do_check(&r, 5);
	if (!strcmp(argv[1], "dumpm"))
		return do_check(&r, 6);
	if (!strcmp(argv[1], "watch") && argc > 3)
		return do_watch(&r, argv[3], NULL);
	if (!strcmp(argv[1], "follow") && argc > 3)
		return do_watch(&r, argv[3], argv[2]);
	if (!strcmp(argv[1], "hold") && argc > 3)
		return do_hold(&r, argv[3]);
	if (!strcmp(argv[1], "rdonly"))
		return do_rdonly(&r, argv[2]);
	if (!strcmp(argv[1], "takes"))
		return do_takes(&r);
	fprintf(stderr, "ringcheck: unknown command %s\n", argv[1]);
	return 2;
}
