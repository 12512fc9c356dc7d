// SPDX-License-Identifier: GPL-2.0
/*
 * ringcheck - validate an iotrace ring from user space (guest test helper).
 *
 *   ringcheck check RING        quiesced ring: every record head-N..head-1
 *                               of every part present, intact, contiguous
 *   ringcheck dump RING         print "OP SECTOR BYTES" per intact record
 *   ringcheck dumpx RING        print "OP SECTOR BYTES RFLAGS LATENCY_NS"
 *                               (RFLAGS in decimal;
 *                               latency -1 without an issue)
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
 *
 * Only the ring header's geometry is used, never compiled-in sizes.  Prints
 * "key: value" summary lines and "# " diagnostics; exits 0 when valid.
 */
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

/* Transitional (branch abi2): still a 1.x reader, see tools/iotracectl/iot.h. */
#define iotrace_record		iotrace_record_v1
#define iotrace_ring_hdr	iotrace_ring_hdr_v1
#define iotrace_part_hdr	iotrace_part_hdr_v1
#undef IOTRACE_SEQ_BUSY
#define IOTRACE_SEQ_BUSY	IOTRACE_SEQ_BUSY_V1
#undef IOTRACE_ABI_MAJOR
#define IOTRACE_ABI_MAJOR	IOTRACE_ABI_MAJOR_V1

struct ring {
	int fd;
	size_t size;
	const uint8_t *map;
	const struct iotrace_ring_hdr *h;
};

static int fail(const char *what)
{
	printf("# FAIL: %s\n", what);
	return 1;
}

static const struct iotrace_part_hdr *part_hdr(const struct ring *r, uint32_t p)
{
	return (const void *)(r->map + r->h->part_hdr_offset +
			      (size_t)p * r->h->part_hdr_size);
}

static const struct iotrace_record *rec(const struct ring *r, uint32_t p,
					uint64_t seq)
{
	return (const void *)(r->map + r->h->data_offset +
			      (size_t)p * r->h->part_stride +
			      (size_t)(seq & (r->h->part_records - 1)) *
			      r->h->record_size);
}

static uint64_t load_head(const struct ring *r, uint32_t p)
{
	return __atomic_load_n(&part_hdr(r, p)->head, __ATOMIC_ACQUIRE);
}

/* Copy record @seq of part @p; 1 if intact, 0 if torn/overwritten/busy. */
static int copy_rec(const struct ring *r, uint32_t p, uint64_t seq,
		    struct iotrace_record *out)
{
	const struct iotrace_record *s = rec(r, p, seq);
	uint32_t s1, s2;

	s1 = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
	if (s1 != (uint32_t)seq)
		return 0;
	memcpy(out, s, sizeof(*out));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	s2 = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
	return s2 == (uint32_t)seq && out->seq == (uint32_t)seq;
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
	    h.record_size % 64 || !h.part_records ||
	    (h.part_records & (h.part_records - 1)) || !h.nr_parts ||
	    h.part_hdr_size < sizeof(struct iotrace_part_hdr) ||
	    h.part_hdr_offset < h.hdr_size ||
	    h.part_hdr_offset + (uint64_t)h.nr_parts * h.part_hdr_size >
	    h.data_offset ||
	    h.part_stride < (uint64_t)h.part_records * h.record_size ||
	    h.data_offset + h.nr_parts * h.part_stride > h.ring_size) {
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
		printf("# ring %s: %u parts x %u records, %llu bytes, generation %llu\n",
		       r->h->name, h.nr_parts, h.part_records,
		       (unsigned long long)h.ring_size,
		       (unsigned long long)h.generation);
	return 0;
}

/* Checks every record must pass whatever the load. */
static const char *rec_insane(const struct ring *r, uint32_t p,
			      const struct iotrace_record *x)
{
	if (!(x->rflags & IOTRACE_RF_COMPLETE))
		return "COMPLETE flag missing";
	if (x->complete_cpu != p)
		return "complete_cpu is not the part's CPU";
	if (!(x->rflags & IOTRACE_RF_NO_ISSUE) && x->complete_ns < x->issue_ns)
		return "completed before issue";
	if (x->bytes % 512)
		return "byte count not a multiple of 512";
	if (x->reserved)
		return "reserved field not zero";
	if (x->cmd_len > IOTRACE_CMD_LEN)
		return "cmd_len too long";
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

static int do_check(struct ring *r, int dump)
{
	uint64_t recorded = 0, overwritten = 0, present = 0, dropped = 0;
	uint64_t filtered = 0;
	uint64_t noissue = 0, bad = 0;
	struct iotrace_record x;
	uint32_t p, written = 0;

	for (p = 0; p < r->h->nr_parts; p++) {
		uint64_t head = load_head(r, p), s;
		uint64_t first = head > r->h->part_records ?
			head - r->h->part_records : 0;

		if (head)
			written++;
		if (!dump && head)
			printf("# part %u: head %llu\n", p,
			       (unsigned long long)head);
		recorded += head;
		overwritten += first;
		dropped += part_hdr(r, p)->dropped;
		filtered += part_hdr(r, p)->filtered;
		for (s = first; s < head; s++) {
			const char *why;

			if (!copy_rec(r, p, s, &x)) {
				if (!dump)
					printf("# part %u seq %llu missing (slot seq %u)\n",
					       p, (unsigned long long)s,
					       rec(r, p, s)->seq);
				bad++;
				continue;
			}
			why = rec_insane(r, p, &x);
			if (why) {
				printf("# part %u seq %llu: %s\n", p,
				       (unsigned long long)s, why);
				bad++;
				continue;
			}
			present++;
			if (x.rflags & IOTRACE_RF_NO_ISSUE)
				noissue++;
			if (dump == 1)
				printf("%s %llu %u\n", op_name(x.op),
				       (unsigned long long)x.sector, x.bytes);
			else if (dump)
				printf("%s %llu %u %u %lld\n",
				       op_name(x.op),
				       (unsigned long long)x.sector, x.bytes,
				       x.rflags,
				       x.rflags & IOTRACE_RF_NO_ISSUE ? -1LL :
				       (long long)(x.complete_ns - x.issue_ns));
		}
	}
	if (dump)
		return 0;
	printf("recorded: %llu\npresent: %llu\noverwritten: %llu\n"
	       "dropped: %llu\nfiltered: %llu\ncompleted: %llu\n"
	       "no_issue: %llu\nbad: %llu\nparts_written: %u\n"
	       "ring_records: %llu\n",
	       (unsigned long long)recorded, (unsigned long long)present,
	       (unsigned long long)overwritten, (unsigned long long)dropped,
	       (unsigned long long)filtered,
	       (unsigned long long)(recorded + dropped + filtered),
	       (unsigned long long)noissue, (unsigned long long)bad, written,
	       (unsigned long long)r->h->nr_parts * r->h->part_records);
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
	uint64_t *last = calloc(r->h->nr_parts, sizeof(*last));
	uint64_t good = 0, lost = 0, passes = 0, insane = 0, back = 0;
	uint64_t gens = 0, remaps = 0, gone = 0;
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
	uint32_t p;

	if (!last)
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
			last = calloc(r->h->nr_parts, sizeof(*last));
			if (!last)
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
			memset(last, 0, r->h->nr_parts * sizeof(*last));
		}
		for (p = 0; p < r->h->nr_parts; p++) {
			uint64_t head = load_head(r, p), s;
			uint64_t first = head > r->h->part_records ?
				head - r->h->part_records : 0;

			if (head < last[p]) {
				/* follow: a clear in progress (heads reset first) */
				if (!path)
					back++;
				continue;
			}
			if (first < last[p])
				first = last[p];
			else
				lost += first - last[p];	/* lapped */
			for (s = first; s < head; s++) {
				const char *why;

				if (slow)
					usleep(slow);
				if (!copy_rec(r, p, s, &x)) {
					/* busy (still being written) or overwritten */
					if (s + r->h->part_records > load_head(r, p)) {
						/* not overwritten: retry next pass */
						break;
					}
					lost++;
					continue;
				}
				why = rec_insane(r, p, &x);
				if (why) {
					printf("# part %u seq %llu: %s\n", p,
					       (unsigned long long)s, why);
					insane++;
				}
				good++;
			}
			last[p] = s;
		}
		if (poll_us)
			usleep(poll_us);
	}
	printf("watch_passes: %llu\nwatch_good: %llu\nwatch_overrun: %llu\n"
	       "watch_insane: %llu\nwatch_head_back: %llu\n",
	       (unsigned long long)passes, (unsigned long long)good,
	       (unsigned long long)lost, (unsigned long long)insane,
	       (unsigned long long)back);
	if (path)
		printf("follow_generations: %llu\nfollow_remaps: %llu\n"
		       "follow_gone: %llu\n", (unsigned long long)gens,
		       (unsigned long long)remaps, (unsigned long long)gone);
	free(last);
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
			"usage: ringcheck check|dump|dumpx|watch|follow|hold|rdonly RING [ARG]\n");
		return 2;
	}
	quiet = !strcmp(argv[1], "dump") || !strcmp(argv[1], "dumpx");
	if (ring_open(&r, argv[2]))
		return 1;
	if (!strcmp(argv[1], "check"))
		return do_check(&r, 0);
	if (!strcmp(argv[1], "dump"))
		return do_check(&r, 1);
	if (!strcmp(argv[1], "dumpx"))
		return do_check(&r, 2);
	if (!strcmp(argv[1], "watch") && argc > 3)
		return do_watch(&r, argv[3], NULL);
	if (!strcmp(argv[1], "follow") && argc > 3)
		return do_watch(&r, argv[3], argv[2]);
	if (!strcmp(argv[1], "hold") && argc > 3)
		return do_hold(&r, argv[3]);
	if (!strcmp(argv[1], "rdonly"))
		return do_rdonly(&r, argv[2]);
	fprintf(stderr, "ringcheck: unknown command %s\n", argv[1]);
	return 2;
}
