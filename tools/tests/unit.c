// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the iotracectl library.  Prints one "PASS name" or
 * "FAIL name: why" line per test; run-host-tests.sh turns them into KTAP.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <iotrace/libiotrace.h>
#include "synth.h"
#include "cmd.h"
#include "out.h"
#include "export.h"
#include "trigger.h"
#include "watch.h"
#include "stack.h"
#include "series.h"
#include "macros.h"

static int failed_now;
static char why[512];

static void fail(const char *fmt, ...)
{
	va_list ap;

	if (failed_now++)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
}

#define CHECK(c, ...) do { if (!(c)) { fail(__VA_ARGS__); return; } } while (0)

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* test_percentiles()'s message for a percentile beyond its bound */
#define PCT_TOL_FMT	"dist %u n %zu p%g: histogram %llu, sorted %llu (tolerance %llu)"

/* Percentiles from the histogram against a brute-force sort. */
static void test_percentiles(void)
{
	/* each percentile as num / den, for the oracle's rank in integers */
	static const struct { double p; uint64_t num, den; } ps[] = {
		{ 1, 1, 1 }, { 10, 10, 1 }, { 50, 50, 1 }, { 90, 90, 1 },
		{ 99, 99, 1 }, { 99.9, 999, 10 }, { 99.99, 9999, 100 },
		{ 100, 100, 1 },
	};
	size_t sizes[] = { 1, 2, 3, 10, 740, 1000, 100000 };
	struct iot_hist h;
	unsigned int dist, si, k;

	CHECK(!iot_hist_init(&h), "no memory");
	for (dist = 0; dist < 4; dist++)
		for (si = 0; si < ARRAY_SIZE(sizes); si++) {
			size_t n = sizes[si], i;
			uint64_t *v = malloc(n * sizeof(*v));

			CHECK(v, "no memory");
			iot_hist_reset(&h);
			for (i = 0; i < n; i++) {
				uint64_t x = rnd();

				switch (dist) {
				case 0:	/* small, exact range */
					x %= 2048;
					break;
				case 1:	/* around 200 us */
					x = 180000 + x % 40000;
					break;
				case 2:	/* log-uniform 1 ns .. 1e12 ns */
					x = (x % 1000000) << (x >> 58 & 31);
					break;
				default: /* heavy tail */
					x = (i % 100 == 0) ? 30000000000ull +
						x % 1000 : 100000 + x % 100;
				}
				v[i] = x;
				iot_hist_add(&h, x);
			}
			qsort(v, n, sizeof(*v), cmp_u64);
			for (k = 0; k < ARRAY_SIZE(ps); k++) {
				/* nearest rank: ceil(p/100 n), 1-based */
				uint64_t den = 100 * ps[k].den;
				size_t rank = (ps[k].num * n + den - 1) / den;
				uint64_t exact, got, tol;

				if (rank < 1)
					rank = 1;
				exact = v[rank - 1];
				got = iot_hist_percentile(&h, ps[k].p);
				/* one method: held values give what it gives */
				CHECK(iot_pct_sorted(v, n, ps[k].p) == got,
				      "iot_pct_sorted() is not the histogram's percentile");
				/* the last rank is the maximum, the first the minimum */
				CHECK(rank != n || got == v[n - 1],
				      "the last rank is not the maximum");
				CHECK(rank != 1 || got == v[0],
				      "the first rank is not the minimum");
				tol = exact / 2048;	/* documented bound */
				if ((got > exact ? got - exact : exact - got) > tol) {
					fail(PCT_TOL_FMT, dist, n, ps[k].p,
					     (unsigned long long)got,
					     (unsigned long long)exact,
					     (unsigned long long)tol);
					free(v);
					iot_hist_free(&h);
					return;
				}
			}
			CHECK(h.min == v[0] && h.max == v[n - 1], "min/max");
			free(v);
		}
	iot_hist_free(&h);
}

/*
 * The nearest rank of the reports' percentiles, ceil(p/100 n), against the
 * same in integers (p as num / den) for every n to 2,000,000 and a few
 * beyond: p99.9 of 1,000 values is the 999th.
 */
static void test_pct_rank(void)
{
	static const struct { double p; uint64_t num, den; } ps[] = {
		{ 50, 50, 1 }, { 90, 90, 1 }, { 95, 95, 1 }, { 99, 99, 1 },
		{ 99.9, 999, 10 }, { 99.99, 9999, 100 }, { 100, 100, 1 },
	};
	static const uint64_t big[] = { 1000000000000ull, 4000000000001ull,
					UINT64_MAX / 1000 };
	unsigned int k, i;
	uint64_t n;

	CHECK(iot_pct_rank(1000, 99.9) == 999, "p99.9 of 1000 is not rank 999");
	for (k = 0; k < ARRAY_SIZE(ps); k++) {
		uint64_t den = 100 * ps[k].den;

		for (n = 1; n <= 2000000; n++) {
			uint64_t want = (ps[k].num * n + den - 1) / den;

			if (iot_pct_rank(n, ps[k].p) != want) {
				fail("p%g of %llu: rank %llu, want %llu",
				     ps[k].p, (unsigned long long)n,
				     (unsigned long long)iot_pct_rank(n, ps[k].p),
				     (unsigned long long)want);
				return;
			}
		}
		for (i = 0; i < ARRAY_SIZE(big); i++) {
			unsigned __int128 w = (unsigned __int128)ps[k].num *
				big[i] + den - 1;

			CHECK(iot_pct_rank(big[i], ps[k].p) == (uint64_t)(w / den),
			      "rank of a large count");
		}
	}
}

/* Build a command that makes the decoder use table entry @code of @t. */
static void decode_entry(const char *t, uint32_t code, char *out, size_t len)
{
	uint8_t cmd[64] = { 0 };
	struct iotrace_ata_tf tf;
	struct iotrace_record r;

	if (!strcmp(t, "op")) {
		snprintf(out, len, "%s", iot_op_name(code));
	} else if (!strcmp(t, "errno")) {
		iot_errno_name(-(int)code, out, len);
	} else if (!strcmp(t, "nvme-admin") || !strcmp(t, "nvme-io")) {
		cmd[0] = code;
		iot_decode_nvme(cmd, 64, t[5] == 'a', out, len);
	} else if (!strncmp(t, "nvme-sc-", 8) || !strcmp(t, "nvme-sct")) {
		uint32_t sct = !strcmp(t, "nvme-sc-generic") ? 0 :
			!strcmp(t, "nvme-sc-cmd") ? 1 :
			!strcmp(t, "nvme-sc-media") ? 2 :
			!strcmp(t, "nvme-sc-path") ? 3 : code;
		uint32_t sc = !strcmp(t, "nvme-sct") ? 0x7f : code;

		iot_decode_nvme_status(sct << 8 | sc, out, len);
	} else if (!strcmp(t, "scsi-op")) {
		cmd[0] = code;
		iot_decode_scsi(cmd, 32, out, len);
	} else if (!strcmp(t, "scsi-sai16")) {
		cmd[0] = 0x9e;
		cmd[1] = code;
		iot_decode_scsi(cmd, 16, out, len);
	} else if (!strcmp(t, "scsi-sense-key")) {
		iot_decode_scsi_status(0x02 | code << 8, out, len);
	} else if (!strcmp(t, "scsi-status")) {
		iot_decode_scsi_status(code, out, len);
	} else if (!strncmp(t, "ata-", 4)) {
		memset(&tf, 0, sizeof(tf));
		tf.command = !strcmp(t, "ata-op") ? code :
			!strcmp(t, "ata-smart") ? 0xb0 : 0xef;
		if (strcmp(t, "ata-op"))
			tf.feature = code;
		memset(&r, 0, sizeof(r));
		r.cmd_type = IOTRACE_CMD_ATA;
		r.cmd_len = sizeof(tf);
		r.rflags = IOTRACE_RF_CMD_VALID;
		memcpy(r.cmd, &tf, sizeof(tf));
		iot_decode_cmd(&r, out, len);
	} else {
		snprintf(out, len, "?");
	}
}

/* Every entry of every decoder table is reachable through a decoder. */
/*
 * The total latency (queue + device) of stats: a request without a
 * queue time is left out and counted so, never taken as a queue time of
 * 0: no queue time recorded (a passthrough request without the
 * kernel's stamp among them), one saturated at U32_MAX, no issue seen.
 */
static void test_stats_total_latency(void)
{
	static const struct {
		uint16_t rflags;
		uint32_t queue_ns;
		int total;	/* 1: counted, 0: left out, -1: not completed, 2: end */
	} c[] = {
		{ IOTRACE_RF_COMPLETE | IOTRACE_RF_QUEUE_VALID, 700, 1 },
		{ IOTRACE_RF_COMPLETE | IOTRACE_RF_QUEUE_VALID |
		  IOTRACE_RF_PASSTHRU, 300, 1 },
		{ IOTRACE_RF_COMPLETE, 0, 0 },
		{ IOTRACE_RF_COMPLETE | IOTRACE_RF_PASSTHRU, 0, 0 },
		{ IOTRACE_RF_COMPLETE | IOTRACE_RF_QUEUE_VALID |
		  IOTRACE_RF_NO_ISSUE, 500, 0 },
		{ IOTRACE_RF_COMPLETE | IOTRACE_RF_NO_ISSUE |
		  IOTRACE_RF_PREFLUSH, 0, 0 },
		{ IOTRACE_RF_COMPLETE | IOTRACE_RF_QUEUE_VALID |
		  IOTRACE_RF_QUEUE_SAT, UINT32_MAX, 0 },
		{ IOTRACE_RF_QUEUE_VALID, 900, -1 },
		{ 0, 0, 2 },
	};
	struct iot_stats st;
	const struct iot_opstats *o;
	uint64_t want_sum = 0, want_n = 0, want_out = 0;
	size_t i;

	CHECK(!iot_stats_init(&st), "out of memory");
	for (i = 0; c[i].total != 2; i++) {
		struct iotrace_record r;

		memset(&r, 0, sizeof(r));
		r.op = IOTRACE_OP_READ;
		r.bytes = 4096;
		r.issue_ns = 1000000 + i;
		r.complete_ns = r.issue_ns + 10000 * (i + 1);
		r.rflags = c[i].rflags;
		r.queue_ns = c[i].queue_ns;
		iot_stats_add(&st, &r);
		if (c[i].total > 0) {
			want_sum += c[i].queue_ns + 10000 * (i + 1);
			want_n++;
		} else if (!c[i].total) {
			want_out++;
		}
	}
	o = &st.op[IOTRACE_OP_READ];
	if (o->tot.n != want_n || o->tot.sum != want_sum ||
	    iot_stats_count(o) - o->tot.n != want_out ||
	    o->tot.min != 10700 || o->tot.max != 20300)
		fail("total: n %llu/%llu, sum %llu/%llu, left out %llu/%llu, min %llu, max %llu",
		     (unsigned long long)o->tot.n, (unsigned long long)want_n,
		     (unsigned long long)o->tot.sum,
		     (unsigned long long)want_sum,
		     (unsigned long long)(iot_stats_count(o) - o->tot.n),
		     (unsigned long long)want_out,
		     (unsigned long long)o->tot.min,
		     (unsigned long long)o->tot.max);
	iot_stats_free(&st);
}

static void test_tables(void)
{
	size_t t, i, total = 0;
	char out[512];

	CHECK(iot_nr_tables >= 16, "only %zu tables", iot_nr_tables);
	for (t = 0; t < iot_nr_tables; t++) {
		CHECK(iot_tables[t].nr > 0, "table %s empty", iot_tables[t].what);
		for (i = 0; i < iot_tables[t].nr; i++) {
			const struct iot_name *e = &iot_tables[t].names[i];

			decode_entry(iot_tables[t].what, e->code, out,
				     sizeof(out));
			CHECK(strstr(out, e->name),
			      "table %s code 0x%x: decoder printed '%s', not '%s'",
			      iot_tables[t].what, e->code, out, e->name);
			total++;
		}
	}
	CHECK(total > 250, "only %zu entries", total);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* Field extraction of the data commands, values computed by hand. */
static void test_fields(void)
{
	uint8_t c[64] = { 0 };
	struct iotrace_ata_tf tf;
	char out[256];

	c[0] = 0x02;
	put_le32(c + 4, 1);
	put_le32(c + 40, 0x89abcdef);
	put_le32(c + 44, 0x1);
	put_le32(c + 48, 7 | 1u << 30);
	iot_decode_nvme(c, 64, 0, out, sizeof(out));
	CHECK(!strcmp(out, "Read nsid=1 slba=6604705263 len=8 fua"),
	      "nvme read: %s", out);
	iot_decode_nvme(c, 64, 1, out, sizeof(out));
	CHECK(!strncmp(out, "Get Log Page", 12), "nvme admin 2: %s", out);
	memset(c, 0, sizeof(c));
	c[0] = 0x28;
	c[2] = 0x00; c[3] = 0x01; c[4] = 0x02; c[5] = 0x03;
	c[7] = 0x01; c[8] = 0x00;
	iot_decode_scsi(c, 10, out, sizeof(out));
	CHECK(!strcmp(out, "READ(10) lba=66051 len=256"), "read10: %s", out);
	memset(c, 0, sizeof(c));
	c[0] = 0x0a; c[1] = 0x1f; c[2] = 0xff; c[3] = 0xfe; c[4] = 0;
	iot_decode_scsi(c, 6, out, sizeof(out));
	CHECK(!strcmp(out, "WRITE(6) lba=2097150 len=256"), "write6: %s", out);
	memset(c, 0, sizeof(c));
	c[0] = 0x8a; c[2] = 0x01; c[9] = 0x05; c[13] = 0x10;
	iot_decode_scsi(c, 16, out, sizeof(out));
	CHECK(!strcmp(out, "WRITE(16) lba=72057594037927941 len=16"),
	      "write16: %s", out);
	memset(c, 0, sizeof(c));
	c[0] = 0xa8; c[5] = 9; c[9] = 3;
	iot_decode_scsi(c, 12, out, sizeof(out));
	CHECK(!strcmp(out, "READ(12) lba=9 len=3"), "read12: %s", out);
	iot_decode_scsi(c, 10, out, sizeof(out));
	CHECK(strstr(out, "short CDB"), "short cdb: %s", out);
	/* ATA PASS-THROUGH(16) carrying READ DMA EXT lba 0x0504030201 */
	memset(c, 0, sizeof(c));
	c[0] = 0x85; c[6] = 8; c[8] = 0x01; c[10] = 0x02; c[12] = 0x03;
	c[7] = 0x04; c[9] = 0x05; c[14] = 0x25;
	iot_decode_scsi(c, 16, out, sizeof(out));
	CHECK(!strcmp(out, "ATA PASS-THROUGH(16) [READ DMA EXT lba=21542142465 count=8]"),
	      "ata pt16: %s", out);
	memset(&tf, 0, sizeof(tf));
	tf.command = 0x61;
	tf.feature = 0x10;
	tf.count = 5 << 3;
	tf.lba = 1234;
	tf.device = 0xc0;
	iot_decode_ata((uint8_t *)&tf, sizeof(tf), out, sizeof(out));
	CHECK(!strcmp(out, "WRITE FPDMA QUEUED lba=1234 count=16 tag=5 fua"),
	      "fpdma: %s", out);
	tf.command = 0xc8;
	tf.count = 0;
	tf.device = 0x4a;
	tf.lba = 0x123456;
	iot_decode_ata((uint8_t *)&tf, sizeof(tf), out, sizeof(out));
	CHECK(!strcmp(out, "READ DMA lba=168965206 count=256"),
	      "read dma: %s", out);
	iot_decode_nvme_status(0x4281, out, sizeof(out));
	CHECK(!strcmp(out, "Media/Data Integrity/Unrecovered Read Error (sct 2 sc 0x81) dnr"),
	      "nvme status: %s", out);
	iot_decode_scsi_status(0x00001102 | 0x3 << 8, out, sizeof(out));
	CHECK(strstr(out, "CHECK CONDITION") && strstr(out, "MEDIUM ERROR"),
	      "sense: %s", out);
	iot_decode_ata_status(0x0451, out, sizeof(out));
	CHECK(!strcmp(out, "st=0x51 ERR DRDY err=0x04 ABRT"), "ata st: %s", out);
}

/* Decoders never read past the length they are given (ASan checks). */
static void test_decoder_lengths(void)
{
	char out[256];
	size_t len;
	int op;

	for (op = 0; op < 256; op++)
		for (len = 0; len <= 64; len++) {
			uint8_t *b = malloc(len ? len : 1);
			size_t i;

			CHECK(b, "no memory");
			for (i = 0; i < len; i++)
				b[i] = i ? (uint8_t)rnd() : op;
			iot_decode_nvme(b, len, op & 1, out, sizeof(out));
			iot_decode_scsi(b, len, out, sizeof(out));
			iot_decode_ata(b, len, out, sizeof(out));
			iot_decode_nvme_status(op | (uint32_t)rnd() << 8, out,
					       sizeof(out));
			iot_decode_scsi_status((uint32_t)rnd(), out, 8);
			iot_decode_ata_status((uint32_t)rnd(), out, 12);
			free(b);
		}
}

/*
 * iot_decode_status() keeps the strings it made (decode.c's cache): what
 * it returns must be what the type's own decoder makes, in every buffer
 * size, for statuses that repeat, that collide in the cache and that are
 * the same number under another command type.
 */
static void test_status_cache(void)
{
	static const uint8_t types[] = {
		IOTRACE_CMD_NVME, IOTRACE_CMD_SCSI, IOTRACE_CMD_ATA,
		IOTRACE_CMD_NONE, 17	/* a type of a future minor */
	};
	char got[160], want[160];
	struct iotrace_record r;
	unsigned int i, t;
	size_t len;

	memset(&r, 0, sizeof(r));
	r.rflags = IOTRACE_RF_STATUS_VALID;
	for (i = 0; i < 20000; i++) {
		/* a few statuses, each again and again, 16 apart or not */
		uint32_t st = (uint32_t)(rnd() % 40) * (i % 3 ? 16 : 0x101);

		t = types[rnd() % 5];
		len = i % 4 ? sizeof(got) : 1 + rnd() % 24;
		r.cmd_type = t;
		r.dev_status = st;
		switch (t) {
		case IOTRACE_CMD_NVME:
			if (!st)
				snprintf(want, len, "ok");
			else
				iot_decode_nvme_status(st, want, len);
			break;
		case IOTRACE_CMD_SCSI:
			iot_decode_scsi_status(st, want, len);
			break;
		case IOTRACE_CMD_ATA:
			iot_decode_ata_status(st, want, len);
			break;
		default:
			snprintf(want, len, "0x%08x", st);
		}
		iot_decode_status(&r, got, len);
		CHECK(!strcmp(got, want),
		      "type %u status 0x%x size %zu: \"%s\", not \"%s\"", t,
		      st, len, got, want);
	}
}

static uint64_t win_key(const struct xrec *e)
{
	return e->r.complete_ns;
}

static int win_cmp(const void *a, const void *b)
{
	const struct xrec *x = a, *y = b;

	if (x->r.complete_ns != y->r.complete_ns)
		return x->r.complete_ns < y->r.complete_ns ? -1 : 1;
	return x->r.seq < y->r.seq ? -1 : x->r.seq > y->r.seq;
}

/* the key of input @i of pattern @pat (seq @i, so every record differs) */
static uint64_t win_input(unsigned int pat, uint64_t i)
{
	uint64_t base = 1000000000ull + i * 10000;

	switch (pat) {
	case 0:		/* in order */
		return base;
	case 1:		/* issue order, completion keys: 50 us .. 5 ms later */
		return base + 50000 + rnd() % 5000000;
	case 2:		/* as 1, and one in 50 seconds late (timeouts) */
		return base + (i % 50 ? 50000 + rnd() % 5000000 :
			       (1 + rnd() % 30) * 1000000000ull);
	case 3:		/* many equal keys, 1 ns apart at most */
		return 5000 + i / 64 + rnd() % 2;
	case 4:		/* descending */
		return 1ull << 40 ^ i * 977;
	case 5:		/* random over the whole range of a key */
		return rnd();
	case 6:		/* spacing that changes by 1000 times midway */
		return i < 10000 ? base + rnd() % 5000000 :
		       1200000000ull + i * 10 + rnd() % 5000;
	default:	/* bursts: 100 together, then a gap of 10 s */
		return (i / 100) * 10000000000ull + rnd() % 100000;
	}
}

/* the earliest of the reference's @held records out: its seq */
static uint32_t ref_pop_min(struct xrec *ref, size_t *held)
{
	struct xrec *want = ref;
	uint32_t seq;
	size_t j;

	for (j = 1; j < *held; j++)
		if (win_cmp(&ref[j], want) < 0)
			want = &ref[j];
	seq = want->r.seq;
	*want = ref[--*held];
	return seq;
}

/*
 * window.c against the definition: with a window of @cap records, a
 * record leaves once more than @cap came after it, the earliest of those
 * held (by key, then the full comparison) first; at the end the rest in
 * order.  A plain array searched for its minimum is the reference.
 */
static void test_window(void)
{
	static const size_t caps[5] = { 1, 7, 300, 1024, 0 };
	unsigned int pat, c;
	const size_t n = 20000;

	for (pat = 0; pat < 8; pat++) {
		for (c = 0; c < 5; c++) {
			size_t cap = caps[c], held = 0, i, out = 0;
			struct xrec *ref = malloc(n * sizeof(*ref));
			struct iotrace_record r;
			const struct xrec *e;
			struct iot_win w;
			uint32_t *got = malloc(n * sizeof(*got));
			uint32_t *exp = malloc(n * sizeof(*exp));
			uint64_t *keys = malloc(n * sizeof(*keys));
			size_t ne = 0;

			CHECK(ref && got && exp && keys &&
			      !iot_win_init(&w, cap,
								   win_key,
								   win_cmp),
			      "no memory");
			memset(&r, 0, sizeof(r));
			for (i = 0; i < n; i++) {
				r.seq = (uint32_t)i;
				r.complete_ns = win_input(pat, i);
				keys[i] = r.complete_ns;
				CHECK(!iot_win_push(&w, 0, &r, &e), "push");
				if (e)
					got[out++] = e->r.seq;
				/* the reference (only when bounded) */
				if (!cap)
					continue;
				ref[held].r = r;
				held++;
				if (held > cap)
					exp[ne++] = ref_pop_min(ref, &held);
			}
			while ((e = iot_win_pop(&w)))
				got[out++] = e->r.seq;
			while (held)
				exp[ne++] = ref_pop_min(ref, &held);
			iot_win_free(&w);
			CHECK(out == n, "pattern %u cap %zu: %zu out of %zu",
			      pat, cap, out, n);
			/* unbounded: all of them in order (a full sort) */
			for (i = 1; !cap && i < n; i++)
				CHECK(keys[got[i - 1]] < keys[got[i]] ||
				      (keys[got[i - 1]] == keys[got[i]] &&
				       got[i - 1] < got[i]),
				      "pattern %u unbounded: record %zu (seq %u) before %zu (seq %u)",
				      pat, i - 1, got[i - 1], i, got[i]);
			for (i = 0; cap && i < n; i++)
				CHECK(got[i] == exp[i],
				      "pattern %u cap %zu: record %zu is seq %u, not %u",
				      pat, cap, i, got[i], exp[i]);
			free(ref);
			free(got);
			free(exp);
			free(keys);
		}
	}
}

/* test_series_inflight(): its requests, the grid and what was handed out */
#define SER_R		2000		/* requests */
#define SER_W		1000ull		/* interval, ns */
#define SER_T0		1000000ull	/* the grid's start */
#define SER_LO		(SER_T0 + 300)	/* the window's: mid-interval */

struct ser_test {
	const struct iot_series_set *ss;
	uint64_t nk;		/* intervals compared */
	uint64_t *infl;		/* nk x IOT_NR_OPS, the reference's */
	uint64_t *cnt;		/* the same, requests completed */
	uint64_t *depth;	/* nk, time in flight, ns */
	uint64_t next;		/* the interval to come */
	uint64_t bad, bad_k;	/* intervals wrong, the first */
};

/* the part of interval @k the window covers, as stats prints it */
static uint64_t ser_len(const struct iot_series_set *ss, uint64_t k,
			uint64_t hi)
{
	uint64_t a = SER_T0 + k * SER_W, b = a + SER_W;

	if (a < SER_LO)
		a = SER_LO;
	if (b > hi && k == ss->nb - 1)
		b = hi;
	return b > a ? b - a : SER_W;
}

/* interval @k against the reference */
static void ser_check(struct ser_test *t, uint64_t k)
{
	const struct iot_series *s = &t->ss->s[0];
	const struct iot_series_op *o = iot_series_ops(s, k);
	int op, ok = k < t->nk;

	if (ok)
		ok = iot_series_depth(s, k) ==
		     (double)t->depth[k] / ser_len(t->ss, k, s->hi);
	for (op = 0; ok && op < IOT_NR_OPS; op++)
		ok = o[op].inflight_ns == t->infl[k * IOT_NR_OPS + op] &&
		     o[op].n == t->cnt[k * IOT_NR_OPS + op];
	if (!ok && !t->bad++)
		t->bad_k = k;
}

static void ser_emit_cb(void *arg, uint64_t k)
{
	struct ser_test *t = arg;

	if (k != t->next++ && !t->bad++)
		t->bad_k = k;
	ser_check(t, k);
}

/*
 * Request @r into the reference: its completion in its interval, its
 * time in flight in each interval it overlaps from @base on (those
 * before were handed out), one after the other.
 */
static void ser_ref(struct ser_test *t, const struct iotrace_record *r,
		    uint64_t base)
{
	uint64_t l = r->issue_ns < SER_LO ? SER_LO : r->issue_ns, k;
	int op = iot_stats_slot(r->op);

	/* completed before the grid: in none */
	if (r->complete_ns < SER_T0)
		return;
	k = (r->complete_ns - SER_T0) / SER_W;
	if (k >= t->ss->nb)
		k = t->ss->nb - 1;
	if (k < t->nk)
		t->cnt[k * IOT_NR_OPS + op]++;
	if (l < SER_T0 + base * SER_W)
		l = SER_T0 + base * SER_W;
	for (k = (l - SER_T0) / SER_W; k < t->nk && l < r->complete_ns; k++) {
		uint64_t e = SER_T0 + (k + 1) * SER_W;
		uint64_t x = r->complete_ns < e ? r->complete_ns : e;

		t->infl[k * IOT_NR_OPS + op] += x - l;
		t->depth[k] += x - l;
		l = x;
	}
}

/*
 * Two requests late, out of completion order (more than the window of
 * stats' reads): one in the first interval not handed out yet, in flight
 * @maxlat from before it (that part left out), one in the last handed
 * out (left out).  Return: requests added.
 */
static uint64_t ser_late(struct ser_test *t, struct iot_series_set *ss,
			 uint64_t maxlat)
{
	struct xrec x;

	if (ss->base < 2)
		return 0;
	memset(&x, 0, sizeof(x));
	x.r.op = IOTRACE_OP_WRITE;
	x.r.rflags = IOTRACE_RF_COMPLETE;
	x.r.complete_ns = SER_T0 + ss->base * SER_W + 10;
	x.r.issue_ns = x.r.complete_ns > maxlat ? x.r.complete_ns - maxlat : 0;
	ser_ref(t, &x.r, ss->base);
	iot_series_add(ss, &x);
	x.r.complete_ns = SER_T0 + ss->base * SER_W - 10;
	x.r.issue_ns = x.r.complete_ns - 5 * SER_W;
	iot_series_add(ss, &x);
	return 2;
}

/* completion order */
static int ser_cmp(const void *a, const void *b)
{
	const struct xrec *x = a, *y = b;

	return x->r.complete_ns < y->r.complete_ns ? -1 :
	       x->r.complete_ns > y->r.complete_ns;
}

/*
 * stats --interval's queue depth: each request's time in flight, spread
 * over the intervals it spans, against a reference that walks them one
 * at a time, to the nanosecond (first and last interval in part, those
 * between whole, the window's start mid-interval, issues before it,
 * --count's intervals kept, requests on the intervals' boundaries, in
 * one interval or two), the intervals handed out (stats) or kept
 * (plot).  What it costs: at most three intervals touched a request
 * (@work, not a time), whatever it spans; walking them was 1,000 to
 * 1,500 a request here (a request in flight for hours over an --interval
 * of milliseconds took seconds and a slot of 1.7 KB per interval).
 */
static void test_series_inflight(void)
{
	static const uint64_t keeps[3] = { 0, 1000, 1 };
	struct xrec *rq = calloc(SER_R, sizeof(*rq));
	struct iot_series_set ss;
	struct ser_test t;
	struct iot_src src;
	uint64_t i, k, hi = 0, maxlat = 0;
	unsigned int run;

	CHECK(rq, "no memory");
	for (i = 0; i < SER_R; i++) {
		struct iotrace_record *r = &rq[i].r;
		uint64_t g = rnd();

		r->op = i % 3;
		r->rflags = IOTRACE_RF_COMPLETE;
		r->issue_ns = SER_T0 - 5 * SER_W + i * 700 + g % 37;
		if (i % 7 == 1)		/* on a boundary */
			r->issue_ns = r->issue_ns / SER_W * SER_W;
		if (i % 5 == 0)		/* in one interval, or two */
			r->complete_ns = r->issue_ns + g % (2 * SER_W);
		else
			r->complete_ns = r->issue_ns + 1000 * SER_W +
					 (g >> 20) % (500 * SER_W);
		if (i % 11 == 3)
			r->complete_ns = r->complete_ns / SER_W * SER_W;
		if (r->complete_ns < r->issue_ns)
			r->complete_ns = r->issue_ns;
		if (r->complete_ns > hi)
			hi = r->complete_ns;
		if (r->complete_ns - r->issue_ns > maxlat)
			maxlat = r->complete_ns - r->issue_ns;
	}
	qsort(rq, SER_R, sizeof(*rq), ser_cmp);
	memset(&src, 0, sizeof(src));
	src.nr_disks = 1;
	/* stats (whole, then --count 1000 and 1), then plot */
	for (run = 0; run < 4; run++) {
		uint64_t keep = keeps[run % 3], fed = 0;

		memset(&t, 0, sizeof(t));
		CHECK(!iot_series_init(&ss, &src, -1, SER_T0, SER_LO, hi,
				       SER_W, maxlat, keep,
				       run < 3 ? ser_emit_cb : NULL, &t),
		      "iot_series_init");
		t.ss = &ss;
		t.nk = ss.keep;
		t.infl = calloc(t.nk * IOT_NR_OPS, sizeof(*t.infl));
		t.cnt = calloc(t.nk * IOT_NR_OPS, sizeof(*t.cnt));
		t.depth = calloc(t.nk, sizeof(*t.depth));
		CHECK(t.infl && t.cnt && t.depth, "no memory");
		CHECK(t.nk == (keep ? keep : ss.nb) && ss.nb > 2000,
		      "%llu intervals kept of %llu",
		      (unsigned long long)t.nk, (unsigned long long)ss.nb);
		/* the reference: interval by interval */
		for (i = 0; i < SER_R; i++)
			ser_ref(&t, &rq[i].r, 0);
		for (i = 0; i < SER_R; i++, fed++) {
			iot_series_add(&ss, &rq[i]);
			if (i == SER_R / 2 && run < 3)
				fed += ser_late(&t, &ss, maxlat);
		}
		iot_series_end(&ss);
		for (k = 0; run == 3 && k < t.nk; k++)
			ser_check(&t, k);
		CHECK(!ss.nomem && ss.late_out == (run < 3) &&
		      ss.late_pct == (run < 3) &&
		      (run == 3 || t.next == t.nk) && !t.bad,
		      "run %u: %llu of %llu intervals wrong, the first %llu (%llu handed out)",
		      run, (unsigned long long)t.bad,
		      (unsigned long long)t.nk, (unsigned long long)t.bad_k,
		      (unsigned long long)t.next);
		CHECK(ss.work <= 3 * fed,
		      "run %u: the time in flight of %llu requests added to %llu intervals, one at a time (at most 3 a request)",
		      run, (unsigned long long)fed,
		      (unsigned long long)ss.work);
		iot_series_free(&ss);
		free(t.infl);
		free(t.cnt);
		free(t.depth);
	}
	free(rq);
}

static int count_cb(void *arg, unsigned int disk,
		    const struct iotrace_record *r)
{
	uint64_t *n = arg;

	(void)disk;
	(void)r;
	(*n)++;
	return 0;
}

/* Ring snapshot accounting: present + overwritten = head, torn skipped. */
static void test_ring_snapshot(void)
{
	struct iotrace_record r;
	struct iot_counts c;
	struct iot_ring ring;
	char err[IOT_ERR_LEN];
	size_t len;
	uint8_t *b = synth_ring_new(4, 64, 128, "t", &len);
	uint64_t i, n = 0;
	uint8_t *slot;

	CHECK(b, "no memory");
	for (i = 0; i < 1000; i++) {
		synth_stamp(&r, i + 1);
		synth_ring_push(b, i % 3, &r);	/* part 3 stays empty */
	}
	synth_ring_drop(b, 1, 7);
	CHECK(!iot_ring_init(&ring, b, len, err, sizeof(err)), "%s", err);
	/* tear one record of part 0 (the newest): seq no longer matches */
	slot = b + ring.hdr.data_offset + (333 % 64) * 128;
	*(uint32_t *)slot = 12345;
	memset(&c, 0, sizeof(c));
	iot_ring_snapshot(&ring, 0, count_cb, &n, &c);
	/* part 0: 334 records, 1 and 2: 333 each */
	CHECK(c.recorded == 1000, "recorded %llu", (unsigned long long)c.recorded);
	CHECK(c.present == 64 * 3 - 1, "present %llu",
	      (unsigned long long)c.present);
	CHECK(c.overwritten == 1000 - 64 * 3 && c.torn == 1,
	      "overwritten %llu torn %llu", (unsigned long long)c.overwritten,
	      (unsigned long long)c.torn);
	CHECK(c.dropped == 7 && c.completed == 1007, "dropped/completed");
	CHECK(n == c.present, "callback count %llu", (unsigned long long)n);
	*(uint32_t *)slot = IOTRACE_SEQ_BUSY;
	memset(&c, 0, sizeof(c));
	iot_ring_snapshot(&ring, 0, count_cb, &n, &c);
	CHECK(c.torn == 1 && c.present == 64 * 3 - 1, "busy slot: torn %llu",
	      (unsigned long long)c.torn);
	free(b);
}

/*
 * iot_ring_copy() of a 2.0 ring whose header, read as a 1.x one, gives
 * an absurd geometry: a pool of one chunk, whose stride nothing bounds
 * (no chunk follows it).  The 1.x slot of part 1 (CPU 1) would be a
 * stride past the ring: it must not even be computed (a pointer that
 * overflows is undefined behaviour, read or not), and the record is
 * copied.  Two strides, one for each sanitizer: 2^63 (gcc's UBSan,
 * "pointer index expression ... overflowed") and 2^64 - 8, which wraps
 * the address (clang's, the fuzzers': "addition of unsigned offset ...
 * overflowed").
 */
static void test_ring2_copy_unbounded_stride(void)
{
	static const uint64_t stride[] = { 1ull << 63, 0ull - 8 };
	struct iotrace_record r, out;
	struct iot_counts c;
	struct iot_ring ring;
	char err[IOT_ERR_LEN];
	size_t len;
	uint8_t *b = synth_ring2_new(2, 32, 1, "t", &len);
	uint64_t n;
	unsigned int k;
	int ret;

	CHECK(b, "no memory");
	synth_stamp(&r, 1);
	CHECK(!synth_ring2_push(b, 1, &r, 1), "push");
	for (k = 0; k < 2; k++) {
		((iot_ring_hdr2 *)b)->chunk_stride = stride[k];
		CHECK(!iot_ring_init(&ring, b, len, err, sizeof(err)), "%s",
		      err);
		ret = iot_ring_copy(&ring, 1, 0, &out);
		CHECK(!ret && out.issue_ns == r.issue_ns &&
		      out.complete_ns == r.complete_ns &&
		      out.complete_cpu == 1, "stride %#llx: copy %d",
		      (unsigned long long)stride[k], ret);
		memset(&c, 0, sizeof(c));
		n = 0;
		iot_ring_snapshot(&ring, 0, count_cb, &n, &c);
		CHECK(n == 1 && c.present == 1,
		      "stride %#llx: snapshot of %llu records",
		      (unsigned long long)stride[k], (unsigned long long)n);
	}
	free(b);
}

/* Corrupt ring headers and truncations give errors, never crashes. */
static void test_ring_corrupt(void)
{
	struct iotrace_record r;
	struct iot_ring ring;
	struct iot_counts c;
	char err[IOT_ERR_LEN];
	size_t len, cut;
	uint8_t *b = synth_ring_new(2, 16, 128, "t", &len), *m;
	uint64_t i, n;
	int errs = 0;

	CHECK(b, "no memory");
	for (i = 0; i < 40; i++) {
		synth_stamp(&r, i + 1);
		synth_ring_push(b, i % 2, &r);
	}
	m = aligned_alloc(4096, (len + 4095) / 4096 * 4096);
	CHECK(m, "no memory");
	for (cut = 0; cut < len; cut += cut < 300 ? 1 : 97) {
		memcpy(m, b, cut);
		CHECK(iot_ring_init(&ring, m, cut, err, sizeof(err)),
		      "truncated ring of %zu bytes accepted", cut);
		CHECK(strstr(err, "truncated") || strstr(err, "short") ||
		      strstr(err, "corrupt"), "cut %zu: %s", cut, err);
	}
	for (i = 0; i < 20000; i++) {
		size_t off = rnd() % 264;

		memcpy(m, b, len);
		m[off] ^= (uint8_t)(1u << (rnd() % 8));
		if (rnd() & 1)
			m[rnd() % 264] = (uint8_t)rnd();
		if (iot_ring_init(&ring, m, len, err, sizeof(err))) {
			errs++;
			continue;
		}
		memset(&c, 0, sizeof(c));
		n = 0;
		iot_ring_snapshot(&ring, 0, count_cb, &n, &c);
	}
	CHECK(errs > 1000, "only %d of 20000 corrupted headers refused", errs);
	memcpy(m, b, len);
	/* 2.0 is known (ring2_init); the next major is not */
	((struct iotrace_ring_hdr *)m)->abi_major = IOT_ABI_MAJOR2 + 1;
	CHECK(iot_ring_init(&ring, m, len, err, sizeof(err)) &&
	      strstr(err, "major"), "major 3: %s", err);
	free(m);
	free(b);
}

/**
 * struct fctx - records read back from a file.
 * @n: records.
 * @bad: records that are not consistent synth_stamp() records.
 * @last: last id per part, to see order.
 * @one_part: the records are those of a 2.0 ring, synth_stamp2()
 *	records (their command bytes IOTRACE_CMD_CGROUP_OFF.. hold the
 *	cgroup there); id i + 1 is sequence number i / @cpus of CPU
 *	i % @cpus (writer()): a record of another number or CPU is bad too.
 * @cpus: the 2.0 ring's CPUs (0: one).
 */
struct fctx {
	uint64_t n, bad;
	int one_part;
	uint32_t cpus;
};

/* synth_stamp() and a submitter (pid, cgroup), as 2.0 records have. */
static void synth_stamp2(struct iotrace_record *r, uint64_t id)
{
	synth_stamp(r, id);
	r->pid = (uint32_t)(id * 3);
	r->cgroup = id * 0x10001;
}

static int file_cb(void *arg, unsigned int disk,
		   const struct iotrace_record *r)
{
	struct fctx *f = arg;

	(void)disk;
	f->n++;
	if (f->one_part) {
		struct iotrace_record x;
		uint32_t cpus = f->cpus ? f->cpus : 1;

		synth_stamp2(&x, r->issue_ns);
		memset(x.cmd + IOTRACE_CMD_CGROUP_OFF, 0, 8);
		x.seq = (uint32_t)((r->issue_ns - 1) / cpus);
		x.complete_cpu = (uint32_t)((r->issue_ns - 1) % cpus);
		f->bad += memcmp(&x, r, sizeof(x)) != 0;
		return 0;
	}
	f->bad += synth_check(r);
	return 0;
}

/*
 * A trace file in memory of @nrec records of two disks; @trig: with a
 * trigger chunk per disk before the trailer, as watch's snapshots have.
 */
static uint8_t *mem_file_trig(uint64_t nrec, int trig, size_t *len)
{
	struct iotrace_file_trigger t;
	struct iot_disk d[2];
	struct iot_counts c[2];
	struct iotrace_record r[10];
	struct iot_writer w;
	char *buf = NULL;
	size_t sz = 0;
	FILE *fp = open_memstream(&buf, &sz);
	uint64_t i;
	unsigned int k;

	memset(d, 0, sizeof(d));
	memset(c, 0, sizeof(c));
	snprintf(d[0].name, sizeof(d[0].name), "%s", "a");
	snprintf(d[1].name, sizeof(d[1].name), "%s", "b");
	d[0].nr_parts = 2;
	d[1].nr_parts = 2;
	iot_writer_start(&w, fp, sizeof(struct iotrace_record), d, 2, 1, 2,
			 "rel", "host");
	for (i = 0; i < nrec; i += 10) {
		for (k = 0; k < 10; k++) {
			synth_stamp(&r[k], i + k + 1);
			r[k].seq = (uint32_t)(i + k);
		}
		iot_writer_chunk(&w, (i / 10) % 2, 1, i, r, 10);
		c[(i / 10) % 2].written += 10;
	}
	for (k = 0; trig && k < 2; k++) {
		memset(&t, 0, sizeof(t));
		t.reason = IOTRACE_FILE_TRIG_MANUAL;
		t.mono_ns = 1000 + k;
		snprintf(t.model, sizeof(t.model), "model %u", k);
		iot_writer_trigger(&w, k, &t);
	}
	iot_writer_finish(&w, c, 3, 4);
	fclose(fp);
	*len = sz;
	return (uint8_t *)buf;
}

static uint8_t *mem_file(uint64_t nrec, size_t *len)
{
	return mem_file_trig(nrec, 0, len);
}

/* CRC-32C: known answers, the instruction against the tables. */
static void test_crc32c(void)
{
	static const char *v = "123456789";
	enum { BIG = 200000 };
	uint8_t buf[1000], zero[32] = { 0 }, *big;
	uint32_t a, c;
	size_t i, n, k;

	CHECK(iot_crc32c(0, v, 9) == 0xe3069283 &&
	      iot_crc32c_sw(0, v, 9) == 0xe3069283, "crc32c(123456789) %08x",
	      iot_crc32c(0, v, 9));
	/* RFC 3720 B.4: 32 bytes of zeros */
	CHECK(iot_crc32c(0, zero, 32) == 0x8a9136aa, "32 zeros %08x",
	      iot_crc32c(0, zero, 32));
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rnd();
	for (i = 0; i < 2000; i++) {
		k = rnd() % 64;
		n = rnd() % (sizeof(buf) - k);
		c = iot_crc32c(0, buf + k, n);
		CHECK(c == iot_crc32c_sw(0, buf + k, n), "at %zu, %zu bytes", k, n);
		a = iot_crc32c(0, buf + k, n / 3);
		CHECK(iot_crc32c(a, buf + k + n / 3, n - n / 3) == c,
		      "continued at %zu of %zu", n / 3, n);
	}
	/* lengths the instruction does as three streams (3 x 256, 3 x 8192) */
	big = malloc(BIG);
	if (!big) {
		CHECK(0, "out of memory");
		return;
	}
	for (i = 0; i < BIG; i++)
		big[i] = (uint8_t)rnd();
	for (i = 0; i < 300; i++) {
		k = rnd() % 64;
		n = i < 100 ? rnd() % 4096 : rnd() % (BIG - k);
		c = iot_crc32c(0, big + k, n);
		CHECK(c == iot_crc32c_sw(0, big + k, n), "at %zu, %zu bytes", k, n);
		a = iot_crc32c(0, big + k, n / 3);
		CHECK(iot_crc32c(a, big + k + n / 3, n - n / 3) == c,
		      "continued at %zu of %zu", n / 3, n);
	}
	free(big);
}

/*
 * The records of the whole records chunks of @b before @cut (a file of
 * mem_file(): chunks of 10 records, the record's seq its number), the
 * reader's view of each record in @seen.
 */
static uint64_t chunks_before(const uint8_t *b, size_t len, size_t cut,
			      uint8_t *want)
{
	const struct iotrace_file_hdr *h = (const void *)b;
	uint64_t off = h->hdr_size, n = 0, i;

	while (off + sizeof(struct iotrace_file_chunk) <= len) {
		struct iotrace_file_chunk ch;

		memcpy(&ch, b + off, sizeof(ch));
		if (off + ch.hdr_size + ch.payload_size > cut ||
		    ch.magic == IOTRACE_CHUNK_TRAILER)
			break;
		for (i = 0; ch.magic == IOTRACE_CHUNK_RECORDS &&
		     i < ch.nr_records; i++, n++)
			want[ch.first_seq + i] = 1;
		off += ch.hdr_size + ch.payload_size;
	}
	return n;
}

struct seenctx {
	uint8_t *seen;
	uint64_t n, bad;
};

static int seen_cb(void *arg, unsigned int disk,
		   const struct iotrace_record *r)
{
	struct seenctx *c = arg;

	(void)disk;
	c->n++;
	if (r->seq >= 200 || c->seen[r->seq]++ || synth_check(r))
		c->bad++;
	return 0;
}

/*
 * A file cut at every byte: the records of its whole chunks before the
 * cut, each once, in iot_file_parse() and in the merge; what is missing
 * said.  A damaged chunk in the middle: skipped, counted, the rest read.
 */
static void test_file_salvage(void)
{
	struct iot_file_info *fi = calloc(1, sizeof(*fi));
	uint8_t want[200], seen[200];
	struct seenctx c = { .seen = seen };
	char err[IOT_ERR_LEN];
	size_t len, cut;
	uint8_t *b = mem_file(200, &len), *m = malloc(len);
	/* after the trailer: a byte, less than a magic, a magic, more, a file */
	static const uint64_t extra[] = { 1, 7, 8, 9, 0 };
	uint64_t n, off, hs;
	unsigned int k;
	int ret;

	CHECK(fi && b && m, "no memory");
	hs = ((struct iotrace_file_hdr *)b)->hdr_size;
	for (cut = 0; cut <= len; cut++) {
		memcpy(m, b, cut);
		memset(want, 0, sizeof(want));
		memset(seen, 0, sizeof(seen));
		c.n = 0;
		c.bad = 0;
		n = chunks_before(b, len, cut, want);
		ret = iot_file_parse(m, cut, fi, seen_cb, &c, err, sizeof(err));
		if (cut < hs) {
			CHECK(ret && (cut < 8 || strstr(err, "truncated")),
			      "cut at %zu in the header: %s", cut,
			      ret ? err : "accepted");
			continue;
		}
		CHECK(!ret, "cut at %zu of %zu: %s", cut, len, err);
		CHECK(c.n == n && !c.bad && !memcmp(want, seen, sizeof(seen)),
		      "cut at %zu: %llu records read (%llu bad), %llu whole before the cut",
		      cut, (unsigned long long)c.n, (unsigned long long)c.bad,
		      (unsigned long long)n);
		CHECK(fi->salvaged == (cut != len) &&
		      iot_file_salvage_str(fi, err, sizeof(err)) == (cut != len),
		      "cut at %zu: salvaged %d", cut, fi->salvaged);
		if (cut == len)
			break;
		CHECK(strstr(err, "truncated trace file: the recording did not finish") &&
		      (fi->end == cut ? !fi->cut : fi->cut == cut - fi->end),
		      "cut at %zu: %s", cut, err);
		memset(seen, 0, sizeof(seen));
		c.n = 0;
		c.bad = 0;
		ret = iot_file_merge(m, cut, fi, cut & 1, seen_cb, &c);
		CHECK(!ret && c.n == n && !c.bad &&
		      !memcmp(want, seen, sizeof(seen)),
		      "merge, cut at %zu: %llu records of %llu", cut,
		      (unsigned long long)c.n, (unsigned long long)n);
	}
	/* a flipped bit in the payload of the 7th chunk (records 60-69) */
	off = hs;
	for (n = 0; n < 6; n++)
		off += sizeof(struct iotrace_file_chunk) + 10 * sizeof(struct iotrace_record);
	for (n = 0; n < 3; n++) {
		/* payload, the header's nr_records, its payload_size */
		uint64_t at = n == 0 ? off + 40 + 700 : n == 1 ? off + 20 : off + 9;

		memcpy(m, b, len);
		m[at] ^= 0x10;
		memset(seen, 0, sizeof(seen));
		c.n = 0;
		c.bad = 0;
		ret = iot_file_parse(m, len, fi, seen_cb, &c, err, sizeof(err));
		CHECK(!ret && c.n == 190 && !c.bad && !seen[60] && !seen[69] &&
		      seen[59] && seen[70] && fi->bad_chunks == 1 &&
		      fi->bad_off == off && fi->has_trailer &&
		      fi->unread == 10 && fi->counts[0].unread == 10 &&
		      fi->salvaged,
		      "byte %llu flipped: %llu read (%llu bad), %llu damaged, %llu unread: %s",
		      (unsigned long long)at, (unsigned long long)c.n,
		      (unsigned long long)c.bad,
		      (unsigned long long)fi->bad_chunks,
		      (unsigned long long)fi->unread, err);
		iot_file_salvage_str(fi, err, sizeof(err));
		CHECK(strstr(err, "damaged trace file: 1 damaged chunk skipped") &&
		      strstr(err, "190 records read") &&
		      strstr(err, "the trailer says 200 were written: 10 missing"),
		      "%s", err);
		memset(seen, 0, sizeof(seen));
		c.n = 0;
		c.bad = 0;
		ret = iot_file_merge(m, len, fi, 0, seen_cb, &c);
		CHECK(!ret && c.n == 190 && !c.bad && !seen[60] && seen[70],
		      "merge past a damaged chunk: %llu", (unsigned long long)c.n);
	}
	/* the trailer damaged: every record read, no trailer */
	memcpy(m, b, len);
	m[len - 8] ^= 1;
	c.n = 0;
	memset(seen, 0, sizeof(seen));
	ret = iot_file_parse(m, len, fi, seen_cb, &c, err, sizeof(err));
	CHECK(!ret && c.n == 200 && !fi->has_trailer && fi->bad_chunks == 1 &&
	      fi->salvaged, "damaged trailer: %llu read",
	      (unsigned long long)c.n);
	/* bytes after the trailer: every record read, those bytes not */
	free(m);
	m = calloc(1, 2 * len);
	CHECK(m, "no memory");
	memcpy(m, b, len);
	memcpy(m + len, b, len);
	for (k = 0; k < ARRAY_SIZE(extra); k++) {
		n = extra[k] ? extra[k] : len;
		c.n = 0;
		ret = iot_file_parse(m, len + n, fi, seen_cb, &c, err,
				     sizeof(err));
		CHECK(!ret && c.n == 200 && fi->has_trailer && fi->salvaged &&
		      fi->after == n && fi->after_off == len &&
		      fi->after_file == (n >= 8) && !fi->bad_chunks &&
		      iot_file_salvage_str(fi, err, sizeof(err)) &&
		      strstr(err, "after the trailer"),
		      "%llu bytes after the trailer: %llu read, after %llu: %s",
		      (unsigned long long)n, (unsigned long long)c.n,
		      (unsigned long long)fi->after, err);
	}
	free(m);
	free(b);
	iot_file_info_free(fi);
	free(fi);
}

/**
 * struct shrinkctx - a trace file that another process cuts while it is
 * read: the callback truncates it.
 * @fd: the file.
 * @at: the record (from 1) after which it is cut, 0: never.
 * @to: its length then.
 * @n: records seen.
 */
struct shrinkctx {
	int fd;
	uint64_t at, n;
	off_t to;
};

static int shrink_cb(void *arg, unsigned int disk,
		     const struct iotrace_record *r)
{
	struct shrinkctx *s = arg;

	(void)disk;
	(void)r;
	if (++s->n == s->at && ftruncate(s->fd, s->to))
		return 5;
	return 0;
}

/*
 * A mapped trace file read with pread() (as iot_src_open() reads one)
 * cut while it is read, before the parse, or between the parse and the
 * merge: "truncated", never a read of the mapping past the new end
 * (SIGBUS).
 */
static void test_file_shrinks_while_read(void)
{
	struct iot_file_info *fi = calloc(1, sizeof(*fi));
	char path[] = "/tmp/iotracectl-unit.XXXXXX", err[IOT_ERR_LEN];
	struct shrinkctx s;
	size_t len;
	uint8_t *b = mem_file(200, &len), *m;
	int fd, k, ret;

	CHECK(fi && b, "no memory");
	fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp: %s", strerror(errno));
	unlink(path);
	/* k / 2: cut mid-parse, before it, mid-merge (twice), before it */
	for (k = 0; k < 10; k++) {
		err[0] = 0;
		CHECK(!ftruncate(fd, 0) &&
		      pwrite(fd, b, len, 0) == (ssize_t)len,
		      "write: %s", strerror(errno));
		m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		CHECK(m != MAP_FAILED, "mmap: %s", strerror(errno));
		memset(&s, 0, sizeof(s));
		s.fd = fd;
		s.to = k & 1 ? 4096 : 0;
		fi->drop_behind = 1;
		fi->fd = fd;
		switch (k / 2) {
		case 0:
			s.at = 5;
			fallthrough;
		case 1:
			if (k / 2 == 1)
				CHECK(!ftruncate(fd, s.to), "cut");
			ret = iot_file_parse(m, len, fi, shrink_cb, &s, err,
					     sizeof(err));
			break;
		default:
			ret = iot_file_parse(m, len, fi, NULL, NULL, err,
					     sizeof(err));
			CHECK(!ret, "whole: %s", err);
			s.at = k / 2 == 2 ? 5 : k / 2 == 3 ? 150 : 0;
			if (!s.at)
				CHECK(!ftruncate(fd, s.to), "cut");
			ret = iot_file_merge(m, len, fi, k & 1, shrink_cb, &s);
			if (ret == -3)
				iot_file_read_error(fi, len, err, sizeof(err));
			ret = ret == -3 ? -1 : 0;
			break;
		}
		munmap(m, len);
		CHECK(ret == -1 && strstr(err, "truncated trace file: cut while it was read") &&
		      s.n < 200, "cut to %lld %s: %d after %llu records: %s",
		      (long long)s.to, k < 4 ? "in the parse" : "in the merge",
		      ret, (unsigned long long)s.n, err);
	}
	close(fd);
	free(b);
	iot_file_info_free(fi);
	free(fi);
}

/* The offset of the first trigger chunk of the file @b (@len bytes), 0. */
static size_t trig_chunk_at(const uint8_t *b, size_t len)
{
	struct iotrace_file_chunk ch;
	size_t off;

	for (off = ((const struct iotrace_file_hdr *)b)->hdr_size;
	     off + sizeof(ch) <= len; off += ch.hdr_size + ch.payload_size) {
		memcpy(&ch, b + off, sizeof(ch));
		if (ch.magic == IOTRACE_CHUNK_TRIGGER)
			return off;
	}
	return 0;
}

/*
 * The trigger chunks of a snapshot file (info, show --around-trigger)
 * read after another process cut the file, opened as iot_src_open()
 * opens one (mapped, read with pread()): to nothing, to a page, before
 * the first trigger chunk and inside it.  The file is said to be cut
 * ("truncated trace file: cut while it was read"), and the mapping is
 * never read past the new end (SIGBUS).
 */
static void test_file_triggers_cut_while_read(void)
{
	char path[] = "/tmp/iotracectl-unit.XXXXXX", err[IOT_ERR_LEN];
	struct iotrace_file_trigger t[4];
	size_t len, trig, cut[4];
	uint8_t *b = mem_file_trig(100, 1, &len);
	struct iot_src src;
	struct iot_jw jw;
	FILE *null = fopen("/dev/null", "w");
	unsigned int k, disks[4];
	int fd, n, ret;

	CHECK(b && null, "no memory");
	trig = trig_chunk_at(b, len);
	CHECK(trig, "no trigger chunk");
	fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp: %s", strerror(errno));
	cut[0] = 0;
	cut[1] = 4096;
	cut[2] = trig;
	cut[3] = trig + sizeof(struct iotrace_file_chunk) + 64;
	/* whole: the two triggers */
	CHECK(pwrite(fd, b, len, 0) == (ssize_t)len, "write: %s",
	      strerror(errno));
	CHECK(!iot_src_open(&src, path, err, sizeof(err)), "%s", err);
	n = iot_file_triggers(src.buf, src.len, src.fi, t, disks, 4);
	iot_src_close(&src);
	CHECK(n == 2 && disks[1] == 1 && !strcmp(t[1].model, "model 1"),
	      "whole: %d triggers", n);
	for (k = 0; k < 4; k++) {
		CHECK(!ftruncate(fd, 0) &&
		      pwrite(fd, b, len, 0) == (ssize_t)len,
		      "write: %s", strerror(errno));
		CHECK(!iot_src_open(&src, path, err, sizeof(err)), "%s", err);
		CHECK(src.is_file && src.fi->drop_behind, "not read with pread()");
		CHECK(!ftruncate(fd, (off_t)cut[k]), "cut");
		n = iot_file_triggers(src.buf, src.len, src.fi, t, disks, 4);
		err[0] = 0;
		jw_init(&jw, null);
		ret = iot_info_triggers(&src, &jw, err, sizeof(err));
		iot_src_close(&src);
		CHECK(n == -1 && ret == -1 &&
		      strstr(err, "truncated trace file: cut while it was read"),
		      "cut to %zu: %d triggers, info %d: %s", cut[k], n, ret,
		      err);
	}
	close(fd);
	unlink(path);
	fclose(null);
	free(b);
}

/* The offset of the @k-th chunk (from 0) of the file @b (@len bytes), 0. */
static size_t chunk_nr_at(const uint8_t *b, size_t len, unsigned int k)
{
	struct iotrace_file_chunk ch;
	size_t off;

	for (off = ((const struct iotrace_file_hdr *)b)->hdr_size;
	     off + sizeof(ch) <= len; off += ch.hdr_size + ch.payload_size) {
		if (!k--)
			return off;
		memcpy(&ch, b + off, sizeof(ch));
	}
	return 0;
}

static int count_rec(void *arg, const struct iotrace_rec *rec)
{
	(void)rec;
	++*(long *)arg;
	return 0;
}

/*
 * Run the test body @fn in a child process, under alarm(@secs) and (with
 * @as_mb, not under ASan, whose shadow needs the address space) with
 * @as_mb MB of address space to spare: what it finds wrong is the test's,
 * and so is a child killed (SIGALRM: it did not finish in time).
 */
static void in_child(void (*fn)(void), unsigned int secs, unsigned int as_mb)
{
	char msg[sizeof(why)];
	ssize_t k, n = 0;
	int p[2], status;
	pid_t pid;

	CHECK(!pipe(p), "pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		close(p[0]);
		alarm(secs);
#if !defined(__SANITIZE_ADDRESS__)
		if (as_mb) {
			unsigned long pages = 0;
			FILE *sm = fopen("/proc/self/statm", "r");
			struct rlimit rl;

			if (!sm || fscanf(sm, "%lu", &pages) != 1)
				_exit(3);
			fclose(sm);
			rl.rlim_cur = pages * (rlim_t)sysconf(_SC_PAGESIZE) +
				      ((rlim_t)as_mb << 20);
			rl.rlim_max = rl.rlim_cur;
			if (setrlimit(RLIMIT_AS, &rl))
				_exit(3);
		}
#else
		(void)as_mb;
#endif
		fn();
		if (failed_now && write(p[1], why, strlen(why)) < 0)
			_exit(2);
		_exit(failed_now ? 1 : 0);
	}
	close(p[1]);
	while (n < (ssize_t)sizeof(msg) - 1 &&
	       (k = read(p[0], msg + n, sizeof(msg) - 1 - n)) > 0)
		n += k;
	msg[n] = 0;
	close(p[0]);
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
	CHECK(!WIFSIGNALED(status), "killed by signal %d%s",
	      WTERMSIG(status), WTERMSIG(status) == SIGALRM ?
	      " (SIGALRM: it did not finish in time)" : "");
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "%s (exit status %d)",
	      n ? msg : "failed", WEXITSTATUS(status));
}

enum { BIG_HDR, BIG_COMMS, BIG_INFL };

/* records of the file big_chunk_file() makes, before its big chunk */
#define BIG_RECS	100
/* entries of its COMMS chunk, records of its in-flight chunk: 288 KB */
#define BIG_N		12000
#define BIG_INFL_N	2000
/* the header size of its huge chunk header */
#define BIG_HDR_SIZE	(1024u * 1024)

/*
 * A trace file (with checksums) of BIG_RECS records, then a chunk larger
 * than a piece of the reader (FPIECE_MAX, 256 KB) of kind @kind: a BOOT
 * chunk header of BIG_HDR_SIZE bytes (the file ends with it), a COMMS
 * chunk of BIG_N names, an in-flight chunk of BIG_INFL_N records; NULL
 * when out of memory.
 */
static uint8_t *big_chunk_file(int kind, size_t *len)
{
	struct iotrace_file_comm *v = NULL;
	struct iotrace_file_chunk ch;
	struct iot_inflight t;
	struct iotrace_record r[10];
	struct iot_counts c;
	struct iot_writer w;
	struct iot_disk d;
	char *buf = NULL;
	size_t sz = 0, k;
	FILE *fp = open_memstream(&buf, &sz);
	uint8_t *out;
	int i;

	if (!fp)
		return NULL;
	memset(&d, 0, sizeof(d));
	memset(&c, 0, sizeof(c));
	memset(&t, 0, sizeof(t));
	snprintf(d.name, sizeof(d.name), "a");
	d.nr_parts = 1;
	iot_writer_start(&w, fp, sizeof(struct iotrace_record), &d, 1, 1, 2,
			 "rel", "host");
	for (i = 0; i < BIG_RECS; i += 10) {
		for (k = 0; k < 10; k++) {
			synth_stamp(&r[k], i + k + 1);
			r[k].seq = (uint32_t)(i + k);
		}
		iot_writer_chunk(&w, 0, 0, i, r, 10);
		c.written += 10;
	}
	if (kind == BIG_COMMS) {
		v = calloc(BIG_N, sizeof(*v));
		for (k = 0; v && k < BIG_N; k++) {
			v[k].pid = 1000 + k;
			snprintf(v[k].comm, sizeof(v[k].comm), "big%zu", k);
		}
		if (v)
			iot_writer_comms(&w, v, BIG_N);
	} else if (kind == BIG_INFL) {
		t.recs = calloc(BIG_INFL_N, sizeof(*t.recs));
		t.nr = BIG_INFL_N;
		t.at_ns = 9;
		for (k = 0; t.recs && k < BIG_INFL_N; k++) {
			t.recs[k].issue_ns = 1000 + k;
			t.recs[k].sector = 8 * k;
			t.recs[k].bytes = 4096;
		}
		if (t.recs)
			iot_writer_inflight(&w, &t);
	}
	if (kind != BIG_HDR)
		iot_writer_finish(&w, &c, 3, 4);
	fclose(fp);
	out = kind == BIG_HDR ? realloc(buf, sz + BIG_HDR_SIZE) : (uint8_t *)buf;
	if (out && kind == BIG_HDR) {
		memset(&ch, 0, sizeof(ch));
		ch.magic = IOTRACE_CHUNK_BOOT;
		ch.hdr_size = BIG_HDR_SIZE;
		memset(out + sz, 0, BIG_HDR_SIZE);
		memcpy(out + sz, &ch, sizeof(ch));
		sz += BIG_HDR_SIZE;
	}
	if (!out || (kind == BIG_COMMS && !v) || (kind == BIG_INFL && !t.recs)) {
		free(out ? (void *)out : (void *)buf);
		out = NULL;
	}
	free(v);
	free(t.recs);
	*len = sz;
	return out;
}

static int big_infl_cb(void *arg, const struct iot_inflight *t)
{
	*(size_t *)arg += t->nr;
	return 0;
}

/*
 * A trace file whose chunk after its records is larger than a piece of
 * the reader (big_chunk_file() @kind), mapped and read with pread() as
 * iot_src_open() reads one, cut while it is read:
 *  - the mapping cut (to a page, after the first records: the callback
 *    cuts it; before the parse for the COMMS chunk, which the parse reads
 *    only without a callback) but not the file the reader's pread() and
 *    fstat() see: what a cut between the reader's check of the size and
 *    its read of the mapping is, made certain.  The big chunk is read,
 *    from pread() alone: never SIGBUS;
 *  - the file cut (the same): "truncated trace file: cut while it was
 *    read", by the parse, or for the in-flight chunk by
 *    iot_file_inflight() after it.
 * Run in a child: a SIGBUS is the test's failure.
 */
static void file_big_chunk_cut(int kind)
{
	static const char *const what[] = { "a huge chunk header",
					    "a big COMMS chunk",
					    "a big in-flight chunk" };
	struct iot_file_info *fi = calloc(1, sizeof(*fi));
	char pa[] = "/tmp/iotracectl-unit.XXXXXX", err[IOT_ERR_LEN];
	char pb[] = "/tmp/iotracectl-unit.XXXXXX";
	unsigned int damaged;
	struct shrinkctx s;
	size_t len, infl;
	uint8_t *b = big_chunk_file(kind, &len), *m;
	int fa, fb, cut, ret;

	CHECK(fi && b, "no memory");
	fa = mkstemp(pa);
	fb = mkstemp(pb);
	CHECK(fa >= 0 && fb >= 0, "mkstemp: %s", strerror(errno));
	unlink(pa);
	unlink(pb);
	CHECK(pwrite(fb, b, len, 0) == (ssize_t)len, "write: %s",
	      strerror(errno));
	for (cut = 0; cut < 2; cut++) {
		err[0] = 0;
		CHECK(!ftruncate(fa, 0) &&
		      pwrite(fa, b, len, 0) == (ssize_t)len,
		      "write: %s", strerror(errno));
		m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fa, 0);
		CHECK(m != MAP_FAILED, "mmap: %s", strerror(errno));
		memset(&s, 0, sizeof(s));
		s.fd = fa;
		s.to = 4096;
		s.at = 5;
		fi->drop_behind = 1;
		/* cut 0: pread() sees a copy the cut does not reach */
		fi->fd = cut ? fa : fb;
		if (kind == BIG_COMMS && !cut) {
			CHECK(!ftruncate(fa, s.to), "cut");
			ret = iot_file_parse(m, len, fi, NULL, NULL, err,
					     sizeof(err));
		} else {
			ret = iot_file_parse(m, len, fi, shrink_cb, &s, err,
					     sizeof(err));
		}
		if (!cut) {
			CHECK(!ret && (kind == BIG_COMMS || s.n == BIG_RECS) &&
			      fi->bad_chunks == (kind == BIG_HDR) &&
			      fi->has_trailer == (kind != BIG_HDR),
			      "%s, the mapping cut: %d, %llu records, %llu damaged: %s",
			      what[kind], ret, (unsigned long long)s.n,
			      (unsigned long long)fi->bad_chunks, err);
			if (kind == BIG_INFL) {
				infl = 0;
				ret = iot_file_inflight(m, len, fi, big_infl_cb,
							&infl, &damaged);
				CHECK(!ret && infl == BIG_INFL_N && !damaged,
				      "%s, the mapping cut: %d, %zu in flight, %u damaged",
				      what[kind], ret, infl, damaged);
			}
		} else {
			CHECK(ret == -1 &&
			      strstr(err, "truncated trace file: cut while it was read"),
			      "%s, the file cut: %d: %s", what[kind], ret, err);
		}
		if (cut && kind == BIG_INFL) {
			/* parsed whole, then cut before the table is read */
			err[0] = 0;
			CHECK(!ftruncate(fa, 0) &&
			      pwrite(fa, b, len, 0) == (ssize_t)len,
			      "write: %s", strerror(errno));
			ret = iot_file_parse(m, len, fi, NULL, NULL, err,
					     sizeof(err));
			CHECK(!ret && fi->nr_infl == 1, "%s, whole: %d: %s",
			      what[kind], ret, err);
			CHECK(!ftruncate(fa, s.to), "cut");
			infl = 0;
			ret = iot_file_inflight(m, len, fi, big_infl_cb, &infl,
						&damaged);
			if (ret == -1)
				iot_file_read_error(fi, len, err, sizeof(err));
			CHECK(ret == -1 && !infl &&
			      strstr(err, "truncated trace file: cut while it was read"),
			      "%s, the file cut after the parse: %d, %zu in flight: %s",
			      what[kind], ret, infl, err);
		}
		munmap(m, len);
	}
	close(fa);
	close(fb);
	free(b);
	iot_file_info_free(fi);
	free(fi);
}

static void file_huge_hdr_cut(void)
{
	file_big_chunk_cut(BIG_HDR);
}

static void file_big_comms_cut(void)
{
	file_big_chunk_cut(BIG_COMMS);
}

static void file_big_infl_cut(void)
{
	file_big_chunk_cut(BIG_INFL);
}

/* file_big_chunk_cut() in a child, for each big chunk */
static void test_file_huge_hdr_cut(void)
{
	in_child(file_huge_hdr_cut, 60, 0);
}

static void test_file_big_comms_cut(void)
{
	in_child(file_big_comms_cut, 60, 0);
}

static void test_file_big_infl_cut(void)
{
	in_child(file_big_infl_cut, 60, 0);
}

/*
 * A trace file changed in place after iotrace_source_open() validated
 * it: a later chunk's header (the 4th: not a part's first) overwritten
 * with zeros, then read by completion, by start, and as stored (the
 * merge's scan of the chunk headers, the walk in file order).  The read
 * fails with EIO, as for a record size the parse would not have taken;
 * it never loops on a chunk of size 0 (in a child, under alarm()).
 */
static void file_changed_in_place(void)
{
	static const int order[] = { IOTRACE_ORDER_COMPLETE,
				     IOTRACE_ORDER_START,
				     IOTRACE_ORDER_STORED };
	char path[] = "/tmp/iotracectl-unit.XXXXXX";
	static const uint8_t zero[sizeof(struct iotrace_file_chunk)];
	struct iotrace_rec recs[64];
	struct iotrace_source *h;
	size_t len, at;
	uint8_t *b = mem_file(200, &len);
	unsigned int k;
	long n, r;
	int fd, ret;

	CHECK(b, "no memory");
	at = chunk_nr_at(b, len, 3);
	CHECK(at, "no 4th chunk");
	fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp: %s", strerror(errno));
	/* k < 2: iotrace_source_foreach(); then rewind and read, each order */
	for (k = 0; k < 5; k++) {
		const char *e;

		CHECK(!ftruncate(fd, 0) &&
		      pwrite(fd, b, len, 0) == (ssize_t)len,
		      "write: %s", strerror(errno));
		h = iotrace_source_new();
		CHECK(h, "no memory");
		if (iotrace_source_open(h, path, NULL)) {
			fail("open: %s", iotrace_source_error(h));
			break;
		}
		ret = k < 2 ? 0 : iotrace_source_rewind(h, order[k - 2]);
		if (pwrite(fd, zero, sizeof(zero), at) != sizeof(zero))
			ret = -2;
		n = 0;
		if (!ret && k < 2) {
			ret = iotrace_source_foreach(h, order[k], count_rec,
						     &n);
		} else {
			while (!ret && (r = iotrace_source_read(h, recs, 64)))
				if (r < 0)
					ret = -1;
				else
					n += r;
		}
		e = iotrace_source_error(h);
		if (ret != -1 || !strstr(e, "changed while it was read") ||
		    n >= 200)
			fail("%s order %d: %d after %ld records: %s",
			     k < 2 ? "foreach" : "rewind and read",
			     order[k < 2 ? k : k - 2], ret, n, e);
		iotrace_source_free(h);
		if (failed_now)
			break;
	}
	close(fd);
	unlink(path);
	free(b);
}

static void test_file_changed_in_place(void)
{
	in_child(file_changed_in_place, 60, 0);
}

/*
 * A file with checksums whose first chunk is damaged, followed by chunk
 * headers that each claim the rest of the file (@len bytes): 16 bytes
 * apart, no more than a magic and sizes (@whole 0); 40 bytes apart, each
 * a records chunk of the header's disk 0, part 0 and record size but for
 * its checksum (@whole 1).  From the header of the file @base.
 */
static uint8_t *resync_fakes(const uint8_t *base, size_t len, int whole)
{
	const struct iotrace_file_hdr *h = (const void *)base;
	struct iotrace_file_chunk ch;
	uint8_t *b = calloc(1, len);
	size_t o = h->hdr_size + 16, step = whole ? sizeof(ch) : 16;

	if (!b)
		return NULL;
	memcpy(b, base, h->hdr_size);
	memset(b + h->hdr_size, 0xde, 16);
	for (; o + step + 16 <= len; o += step) {
		memset(&ch, 0, sizeof(ch));
		ch.magic = IOTRACE_CHUNK_RECORDS;
		ch.hdr_size = sizeof(ch);
		ch.payload_size = (len - o - sizeof(ch)) / 8 * 8;
		if (whole) {
			ch.record_size = h->record_size;
			ch.nr_records = (len - o - sizeof(ch)) / h->record_size;
			ch.payload_size = (uint64_t)ch.nr_records *
					  h->record_size;
			ch.crc = (uint32_t)o;
		}
		memcpy(b + o, &ch, whole ? sizeof(ch) : 16);
	}
	return b;
}

/*
 * The resync of a file with checksums takes time linear in its size: a
 * 16 MB file of chunk headers that each claim the rest of the file, every
 * one of them tried by the resync (resync_fakes()), is read in time (in
 * a child, under alarm()) and said damaged from its first chunk on.
 */
static void file_resync_linear(void)
{
	enum { LEN = 16 << 20 };
	struct iot_file_info *fi = calloc(1, sizeof(*fi));
	char err[IOT_ERR_LEN];
	struct fctx f = { 0 };
	size_t len;
	uint8_t *base = mem_file(20, &len), *b;
	int whole, ret;

	CHECK(fi && base, "no memory");
	for (whole = 0; whole < 2; whole++) {
		b = resync_fakes(base, LEN, whole);
		CHECK(b, "no memory");
		ret = iot_file_parse(b, LEN, fi, file_cb, &f, err, sizeof(err));
		free(b);
		CHECK(!ret, "%s fakes: %s", whole ? "whole" : "16-byte", err);
		iot_file_salvage_str(fi, err, sizeof(err));
		CHECK(!f.n && fi->cut_why == IOT_CUT_DAMAGED &&
		      fi->end == ((const struct iotrace_file_hdr *)base)->hdr_size &&
		      strstr(err, "are no valid chunk"),
		      "%s fakes: %llu records: %s", whole ? "whole" : "16-byte",
		      (unsigned long long)f.n, err);
	}
	free(base);
	iot_file_info_free(fi);
	free(fi);
}

static void test_file_resync_linear(void)
{
	in_child(file_resync_linear, 60, 0);
}

/*
 * A file with checksums (the header of @base) whose bytes after the disk
 * table are in-flight chunk headers 40 bytes apart, each claiming the rest
 * of the file (@len bytes), each with its checksum right and none one a
 * writer makes (rec_offset 0: the next header's high payload_size word).
 * Made from the last back, each checksum over the ones after it.
 */
static uint8_t *iflt_fakes(const uint8_t *base, size_t len)
{
	const struct iotrace_file_hdr *h = (const void *)base;
	struct iotrace_file_chunk ch;
	uint8_t *b = calloc(1, len);
	size_t o, n = 0;

	if (!b)
		return NULL;
	memcpy(b, base, h->hdr_size);
	while (h->hdr_size + (n + 1) * sizeof(ch) + 32 <= len)
		n++;
	while (n--) {
		o = h->hdr_size + n * sizeof(ch);
		memset(&ch, 0, sizeof(ch));
		ch.magic = IOTRACE_CHUNK_INFLIGHT;
		ch.hdr_size = sizeof(ch);
		ch.payload_size = (len - o - sizeof(ch)) / 8 * 8;
		ch.nr_records = 1;
		ch.crc = iot_file_chunk_crc(&ch, sizeof(ch), b + o + sizeof(ch),
					    ch.payload_size);
		memcpy(b + o, &ch, sizeof(ch));
	}
	return b;
}

/*
 * What the parse checksums of such a file grows linearly with its size:
 * the chunks whose checksum matches and that are not taken are charged
 * to the budget (fi->crc_left) as those whose checksum does not match.
 * The bytes checksummed (fi->crc_bytes, not a time): at most the file's
 * three times (a chunk the resync finds is checksummed again when it is
 * read) and IOT_CRC_SLACK, and twice the file costs at most about twice
 * as much.  (Before, each header was checksummed over the rest of the
 * file: len^2 / 80 bytes, 4 times as much for twice the file.)
 */
static void test_file_crc_budget_linear(void)
{
	struct iot_file_info *fi = calloc(1, sizeof(*fi));
	uint64_t cost[2], lens[2] = { 128 << 10, 256 << 10 };
	char err[IOT_ERR_LEN];
	struct fctx f = { 0 };
	size_t len;
	uint8_t *base = mem_file(20, &len), *b;
	unsigned int k;
	int ret;

	CHECK(fi && base, "no memory");
	for (k = 0; k < 2; k++) {
		b = iflt_fakes(base, lens[k]);
		CHECK(b, "no memory");
		ret = iot_file_parse(b, lens[k], fi, file_cb, &f, err,
				     sizeof(err));
		free(b);
		CHECK(!ret && fi->crc && !f.n && fi->salvaged,
		      "%llu bytes of in-flight fakes: %s",
		      (unsigned long long)lens[k], ret ? err : "taken");
		cost[k] = fi->crc_bytes;
		CHECK(cost[k] <= 3 * lens[k] + IOT_CRC_SLACK,
		      "%llu bytes of in-flight fakes: %llu bytes checksummed",
		      (unsigned long long)lens[k], (unsigned long long)cost[k]);
	}
	CHECK(cost[1] <= cost[0] * 22 / 10,
	      "twice the file, %.2f times the bytes checksummed (%llu, %llu)",
	      (double)cost[1] / cost[0], (unsigned long long)cost[0],
	      (unsigned long long)cost[1]);
	free(base);
	iot_file_info_free(fi);
	free(fi);
}

/*
 * A file of @nd disks of @np parts each and one records chunk (disk 0's
 * first of mem_file(): 10 records of part 1), no trailer; *@len its size.
 */
static uint8_t *many_parts_file(unsigned int nd, uint32_t np, size_t *len)
{
	struct iotrace_file_hdr h;
	struct iotrace_file_disk d;
	struct iotrace_file_chunk ch;
	size_t blen, at, clen, i;
	uint8_t *base = mem_file(20, &blen), *b;

	if (!base)
		return NULL;
	memcpy(&h, base, sizeof(h));
	memcpy(&d, base + h.disk_offset, sizeof(d));
	at = chunk_nr_at(base, blen, 0);
	memcpy(&ch, base + at, sizeof(ch));
	clen = ch.hdr_size + ch.payload_size;
	h.nr_disks = nd;
	h.hdr_size = h.disk_offset + nd * h.disk_size;
	*len = h.hdr_size + clen;
	b = calloc(1, *len);
	if (b) {
		memcpy(b, &h, sizeof(h));
		d.nr_parts = np;
		for (i = 0; i < nd; i++) {
			snprintf(d.name, sizeof(d.name), "d%zu", i);
			memcpy(b + h.disk_offset + i * h.disk_size, &d,
			       sizeof(d));
		}
		memcpy(b + h.hdr_size, base + at, clen);
	}
	free(base);
	return b;
}

/*
 * The parts a file declares cost no memory unless they have records: a
 * 25 KB file of 256 disks of 65,536 parts each is refused (a part per
 * CPU, 8192 at most, the kernel's most), one of 256 disks of 8192 parts
 * and a single records chunk is read, parsed and merged, with 16 MB of
 * address space to spare (in a child, RLIMIT_AS).
 */
static void file_many_parts(void)
{
	static const char want[] =
		"corrupt trace file: disk 0 (d0) has 65536 parts (at most 8192)";
	struct iot_file_info *fi = calloc(1, sizeof(*fi));
	char err[IOT_ERR_LEN] = "";
	struct fctx f = { 0 };
	size_t len;
	uint8_t *b = many_parts_file(256, 65536, &len);
	int ret;

	CHECK(fi && b, "no memory");
	ret = iot_file_parse(b, len, fi, NULL, NULL, err, sizeof(err));
	free(b);
	CHECK(ret == -1 && strstr(err, want),
	      "256 disks of 65536 parts (%zu bytes): %d: %s", len, ret, err);
	b = many_parts_file(256, 8192, &len);
	CHECK(b, "no memory");
	ret = iot_file_parse(b, len, fi, file_cb, &f, err, sizeof(err));
	CHECK(!ret && f.n == 10 && !f.bad,
	      "256 disks of 8192 parts: %d, %llu records: %s", ret,
	      (unsigned long long)f.n, err);
	f.n = 0;
	ret = iot_file_merge(b, len, fi, 0, file_cb, &f);
	CHECK(!ret && f.n == 10 && !f.bad,
	      "256 disks of 8192 parts, merged: %d, %llu records", ret,
	      (unsigned long long)f.n);
	free(b);
	iot_file_info_free(fi);
	free(fi);
}

static void test_file_many_parts(void)
{
	in_child(file_many_parts, 60, 16);
}

/* records a chunk of mp_file() */
#define MP_CHUNK	3

/**
 * struct mparts - a file of many parts (mp_file()) and the order its merge
 *	is to give (mp_ref()).
 * @nd: disks.
 * @np: parts a disk.
 * @per: records a part.
 * @empty: every fifth part, from the fourth (part 3, 8, ...), has none.
 * @key: per (disk, part, record), its completion and issue time.
 * @next: per (disk, part), mp_ref()'s next record.
 * @want: the records' ids (disk << 48 | part << 32 | record: their
 *	sectors) in the merge's order.
 * @n: records.
 * @cursors: parts with records.
 * @got: records the merge gave.
 * @wrong: the first of them out of place + 1, 0: none.
 */
struct mparts {
	uint32_t nd, np, per;
	int empty;
	uint64_t (*key)[2];
	uint32_t *next;
	uint64_t *want, n, cursors, got, wrong;
};

/* The records of (disk, part) @s (@s / @m->np, @s % @m->np) of @m. */
static uint32_t mp_recs(const struct mparts *m, uint32_t s)
{
	return m->empty && s % m->np % 5 == 3 ? 0 : m->per;
}

/* The id of record @k of (disk, part) @s of @m. */
static uint64_t mp_id(const struct mparts *m, uint32_t s, uint32_t k)
{
	return (uint64_t)(s / m->np) << 48 | (uint64_t)(s % m->np) << 32 | k;
}

/*
 * The order the merge is defined to give by completion (or start) time:
 * the record of the smallest key of the (disk, part)s' next ones, on
 * equal keys the first (disk, part) in disk and part order.  A search of
 * every part for every record: the definition, not a merge to use.
 */
static void mp_ref(struct mparts *m, int by_start)
{
	uint32_t ns = m->nd * m->np, s, best;
	uint64_t i, k, bk = 0;

	memset(m->next, 0, ns * sizeof(*m->next));
	for (i = 0; i < m->n; i++) {
		best = ns;
		for (s = 0; s < ns; s++) {
			if (m->next[s] == mp_recs(m, s))
				continue;
			k = m->key[(size_t)s * m->per + m->next[s]][by_start];
			if (best == ns || k < bk) {
				best = s;
				bk = k;
			}
		}
		m->want[i] = mp_id(m, best, m->next[best]++);
	}
}

static int mp_cb(void *arg, unsigned int disk, const struct iotrace_record *r)
{
	struct mparts *m = arg;

	(void)disk;
	if (!m->wrong && (m->got >= m->n || r->sector != m->want[m->got]))
		m->wrong = m->got + 1;
	m->got++;
	return 0;
}

/* Chunk @k (of MP_CHUNK records from record @k on) of @s, @m's keys. */
static void mp_chunk(struct iot_writer *w, const struct mparts *m,
		     uint32_t s, uint32_t k)
{
	struct iotrace_record r[MP_CHUNK];
	uint32_t j, nr = mp_recs(m, s);
	size_t x;

	nr = nr > k + MP_CHUNK ? MP_CHUNK : nr > k ? nr - k : 0;
	for (j = 0; j < nr; j++) {
		x = (size_t)s * m->per + k + j;
		synth_rec(&r[j], x);
		r[j].complete_ns = m->key[x][0];
		r[j].issue_ns = m->key[x][1];
		r[j].rflags &= ~IOTRACE_RF_NO_ISSUE;
		r[j].sector = mp_id(m, s, k + j);
		r[j].seq = k + j;
		r[j].issue_cpu = s % m->np;
		r[j].complete_cpu = s % m->np;
	}
	if (nr)
		iot_writer_chunk(w, s / m->np, s % m->np, k, r, nr);
}

/*
 * @m's file, *@len its size: its keys drawn (a part's records a little
 * out of order, most keys those of many parts), the parts' first chunks
 * first, then their second ones...
 */
static uint8_t *mp_file(struct mparts *m, size_t *len)
{
	struct iot_counts *c = calloc(m->nd, sizeof(*c));
	struct iot_disk *d = calloc(m->nd, sizeof(*d));
	struct iot_writer w;
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);
	uint32_t s, k;
	size_t x;

	if (!c || !d || !fp) {
		if (fp)
			fclose(fp);
		free(buf);
		free(c);
		free(d);
		return NULL;
	}
	for (s = 0; s < m->nd; s++) {
		snprintf(d[s].name, sizeof(d[s].name), "m%u", s);
		d[s].nr_parts = m->np;
	}
	for (s = 0; s < m->nd * m->np; s++) {
		m->cursors += mp_recs(m, s) > 0;
		c[s / m->np].written += mp_recs(m, s);
		for (k = 0; k < mp_recs(m, s); k++, m->n++) {
			x = (size_t)s * m->per + k;
			m->key[x][1] = 1000000 + 8 * k + rnd() % 16;
			m->key[x][0] = m->key[x][1] + 1000 + rnd() % 16;
		}
	}
	iot_writer_start(&w, fp, sizeof(struct iotrace_record), d, m->nd, 1,
			 2, "rel", "host");
	for (k = 0; k < m->per; k += MP_CHUNK)
		for (s = 0; s < m->nd * m->np; s++)
			mp_chunk(&w, m, s, k);
	iot_writer_finish(&w, c, 3, 4);
	fclose(fp);
	free(c);
	free(d);
	return (uint8_t *)buf;
}

/*
 * The merge of @m's file by completion and by start time: the records in
 * the order mp_ref() defines, the comparisons of two keys it made a
 * record in @per_rec[by_start].  Return: 0, else why not in @msg.
 */
static int mp_merge(struct mparts *m, double per_rec[2], char *msg,
		    size_t len)
{
	struct iot_file_info *fi = calloc(1, sizeof(*fi));
	uint8_t *b = NULL;
	size_t flen = 0;
	uint64_t cmps;
	int by_start, ret = -2;

	m->key = calloc((size_t)m->nd * m->np * m->per, sizeof(*m->key));
	m->next = calloc((size_t)m->nd * m->np, sizeof(*m->next));
	m->want = calloc((size_t)m->nd * m->np * m->per, sizeof(*m->want));
	if (fi && m->key && m->next && m->want)
		b = mp_file(m, &flen);
	snprintf(msg, len, "no memory");
	if (b)
		ret = iot_file_parse(b, flen, fi, NULL, NULL, msg, len);
	for (by_start = 0; !ret && by_start < 2; by_start++) {
		mp_ref(m, by_start);
		m->got = 0;
		m->wrong = 0;
		cmps = fi->merge_cmps;
		ret = iot_file_merge(b, flen, fi, by_start, mp_cb, m);
		per_rec[by_start] = (double)(fi->merge_cmps - cmps) / m->n;
		if (!ret && (m->wrong || m->got != m->n))
			ret = -1;
		if (ret)
			snprintf(msg, len,
				 "by %s: %d, %llu records of %llu, the first out of place %llu",
				 by_start ? "start" : "completion", ret,
				 (unsigned long long)m->got,
				 (unsigned long long)m->n,
				 (unsigned long long)m->wrong);
	}
	free(b);
	free(m->key);
	free(m->next);
	free(m->want);
	if (fi)
		iot_file_info_free(fi);
	free(fi);
	return ret;
}

/*
 * A file's parts are merged as defined (mp_ref(): ties to the lowest disk
 * and part, parts without records among the others), by completion and by
 * start time, at a cost that grows with the logarithm of the parts: the
 * comparisons of two keys (fi->merge_cmps, not a time) at most 2 log2 of
 * the parts with records a record, and 2 a part to begin.  (Before, every
 * record took a search of the parts with records left: 3,624 comparisons
 * a record here for 4,096 parts, 8 s of CPU to show a million records of
 * as many parts, 0.6 s with the heap.)
 */
static void test_file_merge_many_parts(void)
{
	static const struct {
		uint32_t nd, np, per;
		int empty;
	} cs[] = { { 1, 4096, 6, 0 }, { 1, 512, 6, 0 }, { 2, 64, 8, 1 } };
	double per_rec[ARRAY_SIZE(cs)][2] = { { 0 } }, most;
	char msg[IOT_ERR_LEN + 128];
	struct mparts m;
	unsigned int i, lg;
	int by_start;

	for (i = 0; i < ARRAY_SIZE(cs); i++) {
		memset(&m, 0, sizeof(m));
		m.nd = cs[i].nd;
		m.np = cs[i].np;
		m.per = cs[i].per;
		m.empty = cs[i].empty;
		CHECK(!mp_merge(&m, per_rec[i], msg, sizeof(msg)),
		      "%u parts (%u a disk): %s", m.nd * m.np, m.np, msg);
		for (lg = 0; (1ull << lg) < m.cursors; lg++)
			;
		most = 2.0 * lg + 2.0 * m.cursors / m.n;
		for (by_start = 0; by_start < 2; by_start++)
			CHECK(per_rec[i][by_start] <= most,
			      "%u parts (%u a disk) by %s: %.1f comparisons a record (at most %.1f)",
			      m.nd * m.np, m.np,
			      by_start ? "start" : "completion",
			      per_rec[i][by_start], most);
	}
	for (i = 0; i < ARRAY_SIZE(cs); i++)
		printf("# merge, %u parts: comparisons a record %.1f (completion), %.1f (start)\n",
		       cs[i].nd * cs[i].np, per_rec[i][0], per_rec[i][1]);
}

/*
 * A damaged chunk whose sizes lead past intact chunks to a valid one
 * (the 3rd chunk of mem_file(200), its payload_size made to span the 4th
 * and 5th): reading goes on at the first valid chunk after it, so the
 * records of every other chunk are read, in the parse and in the merge.
 */
static void test_file_resync_earliest(void)
{
	struct iot_file_info *fi = calloc(1, sizeof(*fi));
	struct iotrace_file_chunk ch;
	uint8_t seen[200];
	struct seenctx c = { .seen = seen };
	char err[IOT_ERR_LEN];
	size_t len, at, at5, i;
	uint8_t *b = mem_file(200, &len);
	int ret, by_start;

	CHECK(fi && b, "no memory");
	at = chunk_nr_at(b, len, 2);
	at5 = chunk_nr_at(b, len, 5);
	CHECK(at && at5, "no 6th chunk");
	memcpy(&ch, b + at, sizeof(ch));
	ch.payload_size = at5 - at - ch.hdr_size;
	memcpy(b + at, &ch, sizeof(ch));
	memset(seen, 0, sizeof(seen));
	ret = iot_file_parse(b, len, fi, seen_cb, &c, err, sizeof(err));
	CHECK(!ret, "parse: %s", err);
	iot_file_salvage_str(fi, err, sizeof(err));
	for (i = 0; i < 200 && seen[i] == (i / 10 != 2); i++)
		;
	CHECK(i == 200 && c.n == 190 && !c.bad && fi->bad_chunks == 1,
	      "%llu records, the first wrong seq %zu: %s",
	      (unsigned long long)c.n, i, err);
	for (by_start = 0; by_start < 2; by_start++) {
		memset(seen, 0, sizeof(seen));
		c.n = 0;
		c.bad = 0;
		ret = iot_file_merge(b, len, fi, by_start, seen_cb, &c);
		for (i = 0; i < 200 && seen[i] == (i / 10 != 2); i++)
			;
		CHECK(!ret && i == 200 && c.n == 190 && !c.bad,
		      "merged by %s: %d, %llu records, the first wrong seq %zu",
		      by_start ? "start" : "completion", ret,
		      (unsigned long long)c.n, i);
	}
	free(b);
	iot_file_info_free(fi);
	free(fi);
}

/*
 * The trigger chunks of a snapshot file are those the parse took: the
 * first one's payload damaged (its checksum fails), it is left out; a
 * records chunk's header before them zeroed (the parse resyncs past
 * it), both are found.
 */
static void test_file_triggers_past_damage(void)
{
	struct iot_file_info *fi = calloc(1, sizeof(*fi));
	struct iotrace_file_trigger t[4];
	char err[IOT_ERR_LEN];
	unsigned int disks[4];
	size_t len, trig, at;
	uint8_t *b = mem_file_trig(100, 1, &len), *m = malloc(len);
	int n;

	CHECK(fi && b && m, "no memory");
	trig = trig_chunk_at(b, len);
	at = chunk_nr_at(b, len, 2);
	CHECK(trig && at, "no trigger chunk");
	memcpy(m, b, len);
	m[trig + sizeof(struct iotrace_file_chunk) + 8] ^= 1;
	CHECK(!iot_file_parse(m, len, fi, NULL, NULL, err, sizeof(err)),
	      "parse: %s", err);
	n = iot_file_triggers(m, len, fi, t, disks, 4);
	CHECK(n == 1 && disks[0] == 1 && !strcmp(t[0].model, "model 1"),
	      "the first trigger damaged: %d triggers, the first of disk %u",
	      n, n > 0 ? disks[0] : 0);
	memcpy(m, b, len);
	memset(m + at, 0, sizeof(struct iotrace_file_chunk));
	CHECK(!iot_file_parse(m, len, fi, NULL, NULL, err, sizeof(err)),
	      "parse: %s", err);
	n = iot_file_triggers(m, len, fi, t, disks, 4);
	CHECK(n == 2 && disks[0] == 0 && disks[1] == 1 &&
	      !strcmp(t[1].model, "model 1"),
	      "a chunk header before them zeroed: %d triggers", n);
	free(m);
	free(b);
	iot_file_info_free(fi);
	free(fi);
}

/* Round trip, unknown major, foreign file, flipped bytes. */
static void test_file_format(void)
{
	struct iot_file_info *fi = calloc(1, sizeof(*fi));
	char err[IOT_ERR_LEN];
	struct fctx f = { 0 };
	size_t len, cut;
	uint8_t *b = mem_file(200, &len), *m;
	int ret;

	CHECK(fi && b, "no memory");
	ret = iot_file_parse(b, len, fi, file_cb, &f, err, sizeof(err));
	CHECK(!ret, "parse: %s", err);
	CHECK(f.n == 200 && !f.bad, "read back %llu records, %llu bad",
	      (unsigned long long)f.n, (unsigned long long)f.bad);
	CHECK(fi->has_trailer && fi->counts[0].written == 100 &&
	      fi->counts[1].written == 100, "trailer counts");
	/* chunks of disk 0 at 0, 20, ...; of disk 1 at 10, 30, ...: gaps */
	CHECK(fi->gaps == 2 * 9 && fi->gap_records == 2 * 9 * 10 &&
	      fi->counts[1].gaps == 9 && fi->counts[1].gap_records == 90,
	      "gaps %llu (%llu records)", (unsigned long long)fi->gaps,
	      (unsigned long long)fi->gap_records);
	CHECK(fi->crc && !fi->salvaged && !iot_file_salvage_str(fi, err, 8),
	      "a whole file with checksums");
	CHECK(!strcmp(fi->disks[1].name, "b") &&
	      !strcmp(fi->hdr.host, "host"), "disk table");
	m = malloc(len);
	CHECK(m, "no memory");
	memcpy(m, b, len);
	((struct iotrace_file_hdr *)m)->major = IOTRACE_FILE_MAJOR + 1;
	((struct iotrace_file_hdr *)m)->minor = 0;
	ret = iot_file_parse(m, len, fi, NULL, NULL, err, sizeof(err));
	CHECK(ret && strstr(err, "version 3.0 is not supported"),
	      "major 3: %s", err);
	memcpy(m, b, len);
	((struct iotrace_file_hdr *)m)->major = 0;
	ret = iot_file_parse(m, len, fi, NULL, NULL, err, sizeof(err));
	CHECK(ret && strstr(err, "corrupt trace file header: major version 0"),
	      "major 0: %s", err);
	memcpy(m, b, len);
	m[1] = 'X';
	ret = iot_file_parse(m, len, fi, NULL, NULL, err, sizeof(err));
	CHECK(ret && strstr(err, "not an iotrace trace file"), "foreign: %s",
	      err);
	/* flipped bytes anywhere: an error or a clean read, never a crash */
	for (cut = 0; cut < 30000; cut++) {
		memcpy(m, b, len);
		m[rnd() % len] ^= (uint8_t)(1u << (rnd() % 8));
		m[rnd() % 700] = (uint8_t)rnd();
		iot_file_parse(m, len, fi, file_cb, &f, err, sizeof(err));
	}
	free(m);
	free(b);
	iot_file_info_free(fi);
	free(fi);
}

struct sctx {
	struct iotrace_record r[32];
	unsigned int n;
};

static int short_cb(void *arg, unsigned int disk,
		    const struct iotrace_record *r)
{
	struct sctx *x = arg;

	(void)disk;
	if (x->n < 32)
		x->r[x->n] = *r;
	x->n++;
	return 0;
}

/*
 * File major 2: each records chunk as short as its records allow (the
 * bytes after the last non-zero 8 of the longest one), and every reader
 * (parse, merge, walk) gives the records back byte for byte.  A chunk
 * whose stated record size no writer makes is damaged, not misread.
 */
static void test_file_short_records(void)
{
	/* records per chunk, and the size each chunk's records must have */
	static const unsigned int nr[] = { 3, 3, 3, 3, 3, 3 };
	static const uint32_t want[] = { 64, 72, 80, 96, 144, 96 };
	static const uint32_t bad[] = { 56, 100, 152, 0 };
	struct iot_file_info *fi = calloc(1, sizeof(*fi));
	struct iotrace_record in[18];
	const struct iotrace_record *r;
	struct iotrace_file_chunk ch;
	char err[IOT_ERR_LEN], *buf = NULL;
	struct iot_counts c = { 0 };
	struct iot_fmerge *fm;
	struct iot_fwalk *fw;
	struct sctx x = { 0 };
	struct iot_writer w;
	struct iot_disk d;
	unsigned int k, i, n = 0, disk;
	uint64_t off, full = 0;
	int ret;
	size_t sz = 0;
	FILE *fp = open_memstream(&buf, &sz);
	uint8_t *m;

	CHECK(fi && fp, "no memory");
	memset(&d, 0, sizeof(d));
	snprintf(d.name, sizeof(d.name), "s");
	d.nr_parts = 1;
	memset(in, 0, sizeof(in));
	for (i = 0; i < 18; i++) {
		in[i].seq = i;
		in[i].bytes = 4096;
		in[i].issue_ns = 1000 + i;
		in[i].complete_ns = 2000 + i;
		in[i].rflags = IOTRACE_RF_COMPLETE;
		switch (i / 3 == 5 ? i % 3 : i / 3) {
		case 1:	/* a submitter without a cgroup */
			in[i].pid = 100 + i;
			break;
		case 2:	/* a cgroup, pid 0: the kernel's */
			in[i].cgroup = 0x1234 + i;
			break;
		case 3:	/* a 16-byte CDB */
			in[i].cmd_type = IOTRACE_CMD_SCSI;
			in[i].cmd_len = 16;
			memset(in[i].cmd, 0x28 + i, 16);
			in[i].pid = 5;
			break;
		case 4:	/* a command up to its last byte */
			in[i].cmd_type = IOTRACE_CMD_NVME;
			in[i].cmd_len = IOTRACE_CMD_LEN;
			in[i].cmd[IOTRACE_CMD_LEN - 1] = 1;
			break;
		}
	}
	/* the mixed chunk: head only, a submitter, a CDB */
	memset(in[16].cmd, 0x30, 13);
	in[16].cmd_type = IOTRACE_CMD_SCSI;
	iot_writer_start(&w, fp, sizeof(struct iotrace_record), &d, 1, 1, 2,
			 "rel", "host");
	for (k = 0; k < 6; k++) {
		iot_writer_chunk(&w, 0, 0, n, &in[n], nr[k]);
		n += nr[k];
		full += nr[k] * (uint64_t)IOTRACE_FILE_RECORD_SIZE;
	}
	c.written = n;
	c.recorded = n;
	c.completed = n;
	iot_writer_finish(&w, &c, 3, 4);
	fclose(fp);
	m = (uint8_t *)buf;
	CHECK(((struct iotrace_file_hdr *)m)->major == 2 &&
	      ((struct iotrace_file_hdr *)m)->record_size ==
	      IOTRACE_FILE_RECORD_SIZE, "a major 2 file of 144-byte records");
	off = ((struct iotrace_file_hdr *)m)->hdr_size;
	for (k = 0; k < 6; k++) {
		memcpy(&ch, m + off, sizeof(ch));
		CHECK(ch.magic == IOTRACE_CHUNK_RECORDS &&
		      ch.record_size == want[k] &&
		      ch.payload_size == (uint64_t)nr[k] * want[k],
		      "chunk %u: records of %u bytes, want %u", k,
		      ch.record_size, want[k]);
		off += ch.hdr_size + ch.payload_size;
	}
	printf("# %llu bytes of records where major 1 wrote %llu\n",
	       (unsigned long long)(off - sizeof(ch) * 6 -
				    ((struct iotrace_file_hdr *)m)->hdr_size),
	       (unsigned long long)full);
	CHECK(!iot_file_parse(m, sz, fi, short_cb, &x, err, sizeof(err)),
	      "parse: %s", err);
	CHECK(x.n == n && !memcmp(x.r, in, sizeof(in)),
	      "parse read %u records, %s", x.n,
	      x.n == n ? "not the ones written" : "");
	CHECK(!iot_fmerge_new(m, sz, fi, 0, &fm), "merge");
	for (i = 0; iot_fmerge_next(fm, &disk, &r) == 1; i++)
		CHECK(i < n && !memcmp(r, &in[i], sizeof(*r)),
		      "merge: record %u", i);
	CHECK(i == n, "merge read %u records", i);
	iot_fmerge_free(fm);
	CHECK(!iot_fwalk_new(m, fi, &fw), "walk");
	for (i = 0; iot_fwalk_next(fw, &disk, &r) == 1; i++)
		CHECK(i < n && !memcmp(r, &in[i], sizeof(*r)),
		      "walk: record %u", i);
	CHECK(i == n, "walk read %u records", i);
	iot_fwalk_free(fw);
	/*
	 * A chunk's record size changed after the parse (the file rewritten
	 * under the reader): a failed read (-3), not a division by zero
	 */
	off = ((struct iotrace_file_hdr *)m)->hdr_size;
	memcpy(&ch, m + off, sizeof(ch));
	off += ch.hdr_size + ch.payload_size;
	memcpy(&ch, m + off, sizeof(ch));
	ch.record_size = 0;
	memcpy(m + off, &ch, sizeof(ch));
	CHECK(!iot_fmerge_new(m, sz, fi, 0, &fm), "merge");
	while ((ret = iot_fmerge_next(fm, &disk, &r)) == 1)
		;
	CHECK(ret == -3, "merge of a changed chunk: %d", ret);
	iot_fmerge_free(fm);
	CHECK(!iot_fwalk_new(m, fi, &fw), "walk");
	while ((ret = iot_fwalk_next(fw, &disk, &r)) == 1)
		;
	CHECK(ret == -3, "walk of a changed chunk: %d", ret);
	iot_fwalk_free(fw);
	ch.record_size = want[1];
	memcpy(m + off, &ch, sizeof(ch));
	/* a record size no writer makes: the chunk is damaged */
	off = ((struct iotrace_file_hdr *)m)->hdr_size;
	for (k = 0; k < ARRAY_SIZE(bad); k++) {
		uint8_t *v = malloc(sz);

		CHECK(v, "no memory");
		memcpy(v, m, sz);
		memcpy(&ch, v + off, sizeof(ch));
		ch.record_size = bad[k];
		ch.crc = 0;
		memcpy(v + off, &ch, sizeof(ch));
		ch.crc = iot_file_chunk_crc(v + off, sizeof(ch),
					    v + off + sizeof(ch),
					    ch.payload_size);
		memcpy(v + off, &ch, sizeof(ch));
		iot_file_info_free(fi);
		memset(fi, 0, sizeof(*fi));
		x.n = 0;
		CHECK(!iot_file_parse(v, sz, fi, short_cb, &x, err,
				      sizeof(err)) &&
		      fi->bad_chunks == 1 && x.n == n - nr[0],
		      "record size %u: %u records read, %llu damaged chunks",
		      bad[k], x.n, (unsigned long long)fi->bad_chunks);
		free(v);
	}
	free(buf);
	iot_file_info_free(fi);
	free(fi);
}

/**
 * struct wctx - a writer thread filling a synthetic ring.
 * @ring: the ring.
 * @n: records to write.
 * @done: set when finished.
 * @parts: parts written round-robin.
 * @go: if set, wait until *go is non-zero before writing.
 * @v2: the ring is a 2.0 ring (synth_ring2_new()).
 */
struct wctx {
	uint8_t *ring;
	uint64_t n;
	atomic_int done;
	uint32_t parts;
	int *go;
	int v2;
};

static void *writer(void *arg)
{
	struct wctx *w = arg;
	struct iotrace_record r;
	uint64_t i;

	while (w->go && !__atomic_load_n(w->go, __ATOMIC_ACQUIRE))
		sched_yield();
	for (i = 0; i < w->n; i++) {
		if (w->v2) {
			synth_stamp2(&r, i + 1);
			synth_ring2_push(w->ring, i % w->parts, &r, 1);
		} else {
			synth_stamp(&r, i + 1);
			synth_ring_push(w->ring, i % w->parts, &r);
		}
	}
	atomic_store_explicit(&w->done, 1, memory_order_release);
	return NULL;
}

static int snap_cb(void *arg, unsigned int disk,
		   const struct iotrace_record *r)
{
	return file_cb(arg, disk, r);
}

/* Snapshots of a ring being written never hand out torn records. */
static void test_concurrent_snapshot(void)
{
	struct wctx w = { .n = 3000000, .parts = 2 };
	struct iot_ring ring;
	struct iot_counts c;
	char err[IOT_ERR_LEN];
	struct fctx f = { 0 };
	pthread_t t;
	size_t len;
	int rounds = 0;

	w.ring = synth_ring_new(2, 256, 128, "t", &len);
	CHECK(w.ring, "no memory");
	CHECK(!iot_ring_init(&ring, w.ring, len, err, sizeof(err)), "%s", err);
	pthread_create(&t, NULL, writer, &w);
	while (!atomic_load_explicit(&w.done, memory_order_acquire) ||
	       rounds < 3) {
		memset(&c, 0, sizeof(c));
		iot_ring_snapshot(&ring, 0, snap_cb, &f, &c);
		rounds++;
	}
	pthread_join(t, NULL);
	CHECK(!f.bad, "%llu torn records handed out in %d snapshots",
	      (unsigned long long)f.bad, rounds);
	CHECK(f.n > 0, "nothing read");
	free(w.ring);
}

static int rec_check_cb(void *arg, unsigned int disk,
			const struct iotrace_record *r)
{
	return file_cb(arg, disk, r);
}

/**
 * struct membuf - an unbuffered in-memory FILE that says when the first
 *	bytes (the trace file header, written after the recorder has read the
 *	ring heads) arrive.
 * @b: bytes.
 * @n: used.
 * @cap: allocated.
 * @started: set on the first write.
 */
struct membuf {
	char *b;
	size_t n, cap;
	int started;
};

static ssize_t mb_write(void *c, const char *buf, size_t size)
{
	struct membuf *m = c;

	if (m->n + size > m->cap) {
		size_t cap = (m->n + size) * 2;
		char *nb = realloc(m->b, cap);

		if (!nb)
			return -1;
		m->b = nb;
		m->cap = cap;
	}
	memcpy(m->b + m->n, buf, size);
	m->n += size;
	__atomic_store_n(&m->started, 1, __ATOMIC_RELEASE);
	return size;
}

/*
 * record from a ring being written: written + lost = recorded, exactly.
 * @v2: a 2.0 ring of one CPU and a pool of 8 chunks of 32 records, so
 * that chunks are recycled under the recorder's runs; 2: of 4 CPUs and
 * a pool of 512 chunks of 16 records, so that the recorder, behind by
 * many chunks, finds them through its pass's index, chunks recycled
 * between the index's build and its use.
 */
static void concurrent_record(int v2)
{
	struct wctx w = { .n = 2000000, .parts = v2 == 2 ? 4 : v2 ? 1 : 2,
			  .v2 = v2 };
	struct iot_ring ring;
	struct iot_disk d;
	struct iot_counts c;
	struct iot_file_info *fi = calloc(1, sizeof(*fi));
	struct iot_rec_stop st = { 0 };
	struct fctx f = { 0 };
	struct membuf mb = { 0 };
	char err[IOT_ERR_LEN];
	char *buf = NULL;
	size_t sz = 0, len;
	pthread_t t;
	FILE *fp;
	int ret;

	CHECK(fi, "no memory");
	f.one_part = !!v2;
	f.cpus = w.parts;
	w.ring = v2 == 2 ? synth_ring2_new(4, 16, 512, "t", &len) :
		v2 ? synth_ring2_new(1, 32, 8, "t", &len) :
		synth_ring_new(2, 4096, 128, "t", &len);
	CHECK(w.ring, "no memory");
	CHECK(!iot_ring_init(&ring, w.ring, len, err, sizeof(err)), "%s", err);
	iot_ring_disk(&ring, &d);
	fp = fopencookie(&mb, "w", (cookie_io_functions_t){ .write = mb_write });
	CHECK(fp, "fopencookie");
	setvbuf(fp, NULL, _IONBF, 0);
	st.stop = &w.done;
	st.poll_ms = 0;
	/* the writer starts once the recorder has taken the heads */
	w.go = &mb.started;
	pthread_create(&t, NULL, writer, &w);
	ret = iot_record_rings(&ring, &d, 1, fp, &st, &c, err, sizeof(err));
	pthread_join(t, NULL);
	fclose(fp);
	buf = mb.b;
	sz = mb.n;
	CHECK(!ret, "record: %s", err);
	CHECK(c.recorded == w.n, "recorded %llu of %llu",
	      (unsigned long long)c.recorded, (unsigned long long)w.n);
	CHECK(c.written + c.lost == c.recorded &&
	      c.lost == c.overwritten + c.torn,
	      "written %llu lost %llu overwritten %llu torn %llu",
	      (unsigned long long)c.written, (unsigned long long)c.lost,
	      (unsigned long long)c.overwritten, (unsigned long long)c.torn);
	ret = iot_file_parse(buf, sz, fi, rec_check_cb, &f, err, sizeof(err));
	CHECK(!ret, "read back: %s", err);
	CHECK(f.n == c.written && !f.bad, "read %llu (%llu bad), written %llu",
	      (unsigned long long)f.n, (unsigned long long)f.bad,
	      (unsigned long long)c.written);
	CHECK(fi->counts[0].recorded == c.recorded, "trailer recorded");
	fprintf(stdout,
		"# record%s: %llu written, %llu lost (%llu overwritten, %llu torn), %llu chunks, %llu gaps\n",
		v2 == 2 ? " (2.0 ring, 4 CPUs)" : v2 ? " (2.0 ring)" : "",
		(unsigned long long)c.written, (unsigned long long)c.lost,
		(unsigned long long)c.overwritten, (unsigned long long)c.torn,
		(unsigned long long)fi->chunks, (unsigned long long)fi->gaps);
	free(buf);
	free(w.ring);
	iot_file_info_free(fi);
	free(fi);
}

/* What record said of the in-flight tables it could not read. */
struct infl_said {
	int n;
	char why[IOT_ERR_LEN];
};

static void infl_said_cb(void *arg, const char *disk, const char *why)
{
	struct infl_said *x = arg;

	x->n++;
	snprintf(x->why, sizeof(x->why), "%s: %s", disk, why);
}

/* One recording of a 2-CPU ring of disk "t" into /dev/null. */
static int infl_record_once(struct infl_said *x, char *err, size_t errlen)
{
	atomic_int stop = 1;
	struct iot_rec_stop st = { .stop = &stop, .inflight = 1,
				   .infl_err = infl_said_cb, .arg = x };
	struct iot_counts c = { 0 };
	struct iot_ring ring;
	struct iot_disk d;
	size_t len;
	void *mem = synth_ring_new(2, 64, 128, "t", &len);
	FILE *fp = fopen("/dev/null", "w");
	int ret = -1;

	memset(x, 0, sizeof(*x));
	if (!mem || !fp) {
		snprintf(err, errlen, "no memory or no /dev/null");
	} else if (!iot_ring_init(&ring, mem, len, err, errlen)) {
		iot_ring_disk(&ring, &d);
		ret = iot_record_rings(&ring, &d, 1, fp, &st, &c, err, errlen);
	}
	if (fp)
		fclose(fp);
	free(mem);
	return ret;
}

/*
 * record's in-flight tables: a disk without a device is not said, like
 * inflight DISK's fallback (iot_dev_absent()): no node (ENOENT), a node
 * that is not a device (a socket: ENXIO); a device that fails (a regular
 * file or a FIFO: no ioctl; a FIFO opened without O_NONBLOCK would wait
 * for a writer, killed here by SIGALRM) is, as not an iotrace device.
 */
static void test_record_inflight_absent_device(void)
{
	char dir[] = "/tmp/iot-unit-devXXXXXX", node[64], err[IOT_ERR_LEN] = "";
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *dev0 = getenv("IOTRACE_DEV");
	char *saved = dev0 ? strdup(dev0) : NULL;
	struct infl_said x;
	int fd = -1, ret;

	CHECK(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	snprintf(node, sizeof(node), "%s/t", dir);
	setenv("IOTRACE_DEV", dir, 1);
	ret = infl_record_once(&x, err, sizeof(err));
	if (ret || x.n) {
		fail("no node: record %d (%s), said %d: %s", ret, err, x.n,
		     x.why);
		goto out;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", node);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fail("socket: %s", strerror(errno));
		goto out;
	}
	ret = infl_record_once(&x, err, sizeof(err));
	if (ret || x.n) {
		fail("a socket (ENXIO): record %d (%s), said %d: %s", ret,
		     err, x.n, x.why);
		goto out;
	}
	close(fd);
	fd = -1;
	unlink(node);
	fd = open(node, O_CREAT | O_WRONLY, 0600);
	ret = infl_record_once(&x, err, sizeof(err));
	if (fd < 0 || ret || x.n != 1 ||
	    !strstr(x.why, "IOTRACE_IOC_INFLIGHT: ") ||
	    !strstr(x.why, "(not an iotrace device)")) {
		fail("a file (no ioctl): record %d (%s), said %d: %s", ret,
		     err, x.n, x.why);
		goto out;
	}
	close(fd);
	fd = -1;
	unlink(node);
	if (mkfifo(node, 0600)) {
		fail("mkfifo: %s", strerror(errno));
		goto out;
	}
	alarm(30);
	ret = infl_record_once(&x, err, sizeof(err));
	alarm(0);
	if (ret || x.n != 1 || !strstr(x.why, "(not an iotrace device)"))
		fail("a FIFO (no ioctl): record %d (%s), said %d: %s", ret,
		     err, x.n, x.why);
out:
	if (fd >= 0)
		close(fd);
	unlink(node);
	rmdir(dir);
	if (saved)
		setenv("IOTRACE_DEV", saved, 1);
	else
		unsetenv("IOTRACE_DEV");
	free(saved);
}

static void test_concurrent_record(void)
{
	concurrent_record(0);
}

/* The same from a 2.0 ring whose chunks are recycled under the runs. */
static void test_concurrent_record2(void)
{
	concurrent_record(1);
}

/* The same from a 2.0 ring of many chunks of several CPUs (an index). */
static void test_concurrent_record2_index(void)
{
	concurrent_record(2);
}

/* ---- a clear under a reader, at a point of its pass the test chooses ---- */

#define CLR_MAXID	8192	/* ids of one test, at most */

/**
 * struct clrctx - a ring cleared under a reader by the reader's own
 *	output: the recorder's (a FILE whose writes the test sees) or the
 *	follower's callback.  Deterministic: the clear happens at one point
 *	of the reader's pass, always the same.
 * @ring: the ring (synth_ring_new() or synth_ring2_new()).
 * @v2: a 2.0 ring.
 * @parts: its parts (CPUs); records are dealt to them in turn.
 * @next_id: the last id stamped (ids from 1 on: every record is unique).
 * @new_n: records the new generation gets, at the clear.
 * @at: the recorder's first records chunk of this part clears the ring.
 * @cleared: the clear was done.
 * @stop: the recorder's stop flag, set at the clear (its next pass is its
 *	last).
 * @b: the recorder's bytes (a trace file).
 * @n: used.
 * @cap: allocated.
 * @seen: per id, how many times the reader handed the record out.
 * @bad: records that are not their id's record.
 */
struct clrctx {
	uint8_t *ring;
	int v2;
	uint32_t parts;
	uint64_t next_id, new_n;
	uint32_t at;
	int cleared;
	atomic_int stop;
	char *b;
	size_t n, cap;
	uint8_t seen[CLR_MAXID + 1];
	uint64_t bad;
};

/* @n records with the next ids, dealt to the parts in turn. */
static void clr_push(struct clrctx *x, uint64_t n)
{
	struct iotrace_record r;

	while (n--) {
		uint64_t id = ++x->next_id;
		uint32_t p = (uint32_t)((id - 1) % x->parts);

		if (x->v2) {
			synth_stamp2(&r, id);
			synth_ring2_push(x->ring, p, &r, 1);
		} else {
			synth_stamp(&r, id);
			r.complete_cpu = p;
			synth_ring_push(x->ring, p, &r);
		}
	}
}

/* The clear, once: the ring emptied, the new generation's records in it. */
static void clr_clear(struct clrctx *x)
{
	if (x->cleared++)
		return;
	synth_ring_clear(x->ring);
	clr_push(x, x->new_n);
	atomic_store(&x->stop, 1);
}

/* Count a record handed out; check it is the record of its id. */
static int clr_seen(void *arg, unsigned int disk,
		    const struct iotrace_record *r)
{
	struct clrctx *x = arg;
	struct iotrace_record e;
	uint64_t id = r->issue_ns;

	(void)disk;
	if (!id || id > CLR_MAXID) {
		x->bad++;
		return 0;
	}
	if (x->v2) {
		synth_stamp2(&e, id);
		memset(e.cmd + IOTRACE_CMD_CGROUP_OFF, 0, 8);
	} else {
		synth_stamp(&e, id);
	}
	e.seq = r->seq;
	e.complete_cpu = (uint16_t)((id - 1) % x->parts);
	x->bad += memcmp(&e, r, sizeof(e)) != 0;
	if (x->seen[id] < 255)
		x->seen[id]++;
	return 0;
}

/* The recorder's output: at its first records chunk of part @at, the clear. */
static ssize_t clr_write(void *c, const char *buf, size_t size)
{
	struct clrctx *x = c;
	struct iotrace_file_chunk ch;

	if (x->n + size > x->cap) {
		size_t cap = (x->n + size) * 2;
		char *nb = realloc(x->b, cap);

		if (!nb)
			return -1;
		x->b = nb;
		x->cap = cap;
	}
	memcpy(x->b + x->n, buf, size);
	x->n += size;
	/* unbuffered: a chunk's header is one write of its own */
	if (size == sizeof(ch)) {
		memcpy(&ch, buf, sizeof(ch));
		if (ch.magic == IOTRACE_CHUNK_RECORDS && ch.part == x->at)
			clr_clear(x);
	}
	return size;
}

/* What a snapshot of the ring holds now: *@want of each id set to 1. */
static int clr_want_cb(void *arg, unsigned int disk,
		       const struct iotrace_record *r)
{
	uint8_t *want = arg;

	(void)disk;
	if (r->issue_ns && r->issue_ns <= CLR_MAXID)
		want[r->issue_ns] = 1;
	return 0;
}

/*
 * Compare what the reader handed out with @want (each id wanted once):
 * 0, or -1 with @msg saying what differs.
 */
static int clr_compare(const struct clrctx *x, const uint8_t *want,
		       char *msg, size_t len)
{
	uint64_t dup = 0, missing = 0, extra = 0, id, first = 0;

	for (id = 1; id <= CLR_MAXID; id++) {
		if (x->seen[id] > 1)
			dup += x->seen[id] - 1;
		if (want[id] && !x->seen[id])
			missing++;
		if (!want[id] && x->seen[id])
			extra++;
		if (!first && x->seen[id] != want[id])
			first = id;
	}
	if (!dup && !missing && !extra && !x->bad)
		return 0;
	snprintf(msg, len,
		 "%llu duplicated, %llu missing, %llu not wanted, %llu bad (first at id %llu)",
		 (unsigned long long)dup, (unsigned long long)missing,
		 (unsigned long long)extra, (unsigned long long)x->bad,
		 (unsigned long long)first);
	return -1;
}

/*
 * record with a clear at the first records chunk of part @at: with @at 0,
 * between the drain of part 0 and that of part 1 (after part 0's first
 * 1,024 records with @old_n over 2,048), with @at 1 (the last part)
 * between two passes; the new generation @new_n records.  Written: what
 * parts 0 .. @at had before the clear (what they had copied, with @old_n
 * over 2,048) and what the new generation holds, each once; recorded =
 * written + lost.
 * @v2: a 2.0 ring of 2 CPUs and 8 chunks of 32 records (recycled: the
 * recorder starts at the lowest chunk still there), else a 1.x ring of 2
 * parts of @per records (fewer than @old_n / 2: the recorder starts past
 * 0).
 */
static int clr_record(int v2, uint32_t per, uint32_t at, uint64_t old_n,
		      uint64_t new_n, char *msg, size_t mlen)
{
	struct clrctx *x = calloc(1, sizeof(*x));
	struct iot_file_info *fi = calloc(1, sizeof(*fi));
	uint8_t *want = calloc(CLR_MAXID + 1, 1);
	struct iot_rec_stop st = { 0 };
	struct iot_ring ring;
	struct iot_disk d;
	struct iot_counts c;
	char err[IOT_ERR_LEN];
	uint64_t p0[2] = { 0 }, id, expect;
	size_t len;
	FILE *fp;
	int ret = -1;

	if (!x || !fi || !want) {
		snprintf(msg, mlen, "no memory");
		goto out;
	}
	x->v2 = v2;
	x->parts = 2;
	x->new_n = new_n;
	x->at = at;
	x->ring = v2 ? synth_ring2_new(2, 32, 8, "t", &len) :
		synth_ring_new(2, per, 128, "t", &len);
	if (!x->ring || iot_ring_init(&ring, x->ring, len, err, sizeof(err))) {
		snprintf(msg, mlen, "ring: %s", x->ring ? err : "no memory");
		goto out;
	}
	iot_ring_disk(&ring, &d);
	clr_push(x, old_n);
	/* parts 0 .. @at before the clear: up to 1,024 records of @at */
	iot_ring_snapshot(&ring, 0, clr_want_cb, want, &c);
	for (id = 1; id <= CLR_MAXID; id++) {
		uint32_t p = (uint32_t)((id - 1) % 2);

		if (want[id] && (p < at || (p == at && p0[p] < 1024)))
			p0[p]++;
		else
			want[id] = 0;
	}
	fp = fopencookie(x, "w", (cookie_io_functions_t){ .write = clr_write });
	if (!fp) {
		snprintf(msg, mlen, "fopencookie");
		goto out;
	}
	setvbuf(fp, NULL, _IONBF, 0);
	st.stop = &x->stop;
	memset(&c, 0, sizeof(c));
	ret = iot_record_rings(&ring, &d, 1, fp, &st, &c, err, sizeof(err));
	fclose(fp);
	if (ret || !x->cleared) {
		snprintf(msg, mlen, "record: %s, cleared %d", ret ? err : "",
			 x->cleared);
		ret = -1;
		goto out;
	}
	/* and the new generation: every record it still holds */
	iot_ring_snapshot(&ring, 0, clr_want_cb, want, &(struct iot_counts){ 0 });
	ret = iot_file_parse(x->b, x->n, fi, clr_seen, x, err, sizeof(err));
	if (ret) {
		snprintf(msg, mlen, "read back: %s", err);
		goto out;
	}
	ret = clr_compare(x, want, msg, mlen);
	expect = p0[0] + p0[1] + new_n;
	if (c.written + c.lost != c.recorded ||
	    c.lost != c.overwritten + c.torn || c.recorded != expect ||
	    fi->counts[0].written != c.written) {
		size_t l = ret ? strlen(msg) : 0;

		snprintf(msg + l, mlen - l,
			 "%srecorded %llu (want %llu), written %llu, lost %llu (%llu overwritten, %llu torn)",
			 l ? "; " : "", (unsigned long long)c.recorded,
			 (unsigned long long)expect,
			 (unsigned long long)c.written,
			 (unsigned long long)c.lost,
			 (unsigned long long)c.overwritten,
			 (unsigned long long)c.torn);
		ret = -1;
	}
out:
	if (x) {
		free(x->ring);
		free(x->b);
	}
	free(x);
	free(want);
	if (fi)
		iot_file_info_free(fi);
	free(fi);
	return ret;
}

/*
 * A clear while record drains a pass (the watcher's snapshots too): no
 * record is written twice, none of the new generation is missed, no count
 * wraps.  The new generation has fewer records than the recorder had
 * copied of part 1 (its head below the recorder's cursor), more, and, in
 * a 1.x part of 1,500 records, a clear after the first 1,024 of part 0
 * with the new generation past them; a 2.0 ring whose chunks were
 * recycled before the recording started (the lowest sequence number the
 * recorder found then is not the new generation's).  And a clear between
 * two passes, for both.
 */
static void test_record_clear_mid_pass(void)
{
	static const struct {
		int v2;
		uint32_t per, at;
		uint64_t old_n, new_n;
	} c[] = {
		{ 0, 128, 0, 300, 20 }, { 0, 128, 0, 200, 240 },
		{ 0, 2048, 0, 3000, 2400 }, { 0, 128, 1, 300, 20 },
		{ 1, 0, 0, 400, 20 }, { 1, 0, 0, 400, 600 },
		{ 1, 0, 1, 400, 20 },
	};
	char msg[512];
	size_t i;
	int bad = 0;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		if (!clr_record(c[i].v2, c[i].per, c[i].at, c[i].old_n,
				c[i].new_n, msg, sizeof(msg)))
			continue;
		printf("# record, clear %s, %s ring, %llu then %llu records: %s\n",
		       c[i].at ? "between passes" : "mid-pass",
		       c[i].v2 ? "2.0" : "1.x",
		       (unsigned long long)c[i].old_n,
		       (unsigned long long)c[i].new_n, msg);
		bad++;
	}
	CHECK(!bad, "%d of %zu cases (above)", bad, ARRAY_SIZE(c));
}

/* show -f's callback: the clear at the first record of part 0. */
static int clr_follow_cb(void *arg, unsigned int disk,
			 const struct iotrace_record *r)
{
	struct clrctx *x = arg;

	clr_seen(x, disk, r);
	if (r->complete_cpu == 0)
		clr_clear(x);
	return 0;
}

/*
 * show -f (iot_ring_follow_poll(), stats --interval too) with a clear
 * while a poll hands out part 0's records: handed out, the first record
 * (before the clear) and the new generation's records, each once.
 */
static int clr_follow(int v2, uint64_t old_n, uint64_t new_n, char *msg,
		      size_t mlen)
{
	struct clrctx *x = calloc(1, sizeof(*x));
	uint8_t *want = calloc(CLR_MAXID + 1, 1);
	struct iot_ring_follow f = { 0 };
	struct iot_ring ring;
	char err[IOT_ERR_LEN];
	uint64_t id;
	size_t len;
	int ret = -1, i;

	if (!x || !want) {
		snprintf(msg, mlen, "no memory");
		goto out;
	}
	x->v2 = v2;
	x->parts = 2;
	x->new_n = new_n;
	x->ring = v2 ? synth_ring2_new(2, 32, 32, "t", &len) :
		synth_ring_new(2, 1024, 128, "t", &len);
	if (!x->ring || iot_ring_init(&ring, x->ring, len, err, sizeof(err)) ||
	    iot_ring_follow_init(&f, &ring)) {
		snprintf(msg, mlen, "ring: %s", x->ring ? err : "no memory");
		goto out;
	}
	clr_push(x, old_n);
	for (i = 0; i < 3; i++)
		iot_ring_follow_poll(&f, clr_follow_cb, x);
	want[1] = 1;
	for (id = old_n + 1; id <= old_n + new_n; id++)
		want[id] = 1;
	ret = clr_compare(x, want, msg, mlen);
	if (f.lost) {
		size_t l = ret ? strlen(msg) : 0;

		snprintf(msg + l, mlen - l, "%s%llu lost", l ? "; " : "",
			 (unsigned long long)f.lost);
		ret = -1;
	}
out:
	iot_ring_follow_free(&f);
	if (x)
		free(x->ring);
	free(x);
	free(want);
	return ret;
}

/* The same for show -f: no record handed out twice, none missed. */
static void test_follow_clear_mid_poll(void)
{
	static const struct {
		int v2;
		uint64_t old_n, new_n;
	} c[] = {
		{ 0, 200, 20 }, { 0, 200, 240 }, { 1, 200, 20 },
		{ 1, 200, 440 },
	};
	char msg[512];
	size_t i;
	int bad = 0;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		if (!clr_follow(c[i].v2, c[i].old_n, c[i].new_n, msg,
				sizeof(msg)))
			continue;
		printf("# show -f, clear mid-poll, %s ring, %llu then %llu records: %s\n",
		       c[i].v2 ? "2.0" : "1.x",
		       (unsigned long long)c[i].old_n,
		       (unsigned long long)c[i].new_n, msg);
		bad++;
	}
	CHECK(!bad, "%d of %zu cases (above)", bad, ARRAY_SIZE(c));
}

/* a snapshot's callback: the clear at the first record of part @x->at */
static int clr_snap_cb(void *arg, unsigned int disk,
		       const struct iotrace_record *r)
{
	struct clrctx *x = arg;

	clr_seen(x, disk, r);
	if (r->complete_cpu == x->at)
		clr_clear(x);
	return 0;
}

/*
 * show/stats/export of a live ring (iot_ring_snapshot()) with a clear
 * when the first record of part @at was handed out, the new generation
 * @new_n records (0: the slots wiped, every later copy fails): handed
 * out, the parts before @at and that record, none of the new
 * generation's; the counts say it was cleared and count what was read
 * (recorded = present, nothing torn).
 */
static void test_snapshot_clear_mid_read(void)
{
	static const struct {
		int v2;
		uint32_t at;
		uint64_t old_n, new_n;
	} c[] = {
		{ 0, 0, 200, 20 }, { 0, 0, 200, 240 }, { 1, 0, 200, 20 },
		{ 1, 0, 200, 440 }, { 0, 1, 200, 0 }, { 1, 1, 200, 0 },
		{ 0, 1, 200, 30 }, { 1, 1, 200, 30 },
	};
	char msg[512], err[IOT_ERR_LEN];
	size_t i, len;
	int bad = 0;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		struct clrctx *x = calloc(1, sizeof(*x));
		uint8_t *want = calloc(CLR_MAXID + 1, 1);
		struct iot_counts n = { 0 };
		struct iot_ring ring;
		uint64_t id, expect;
		int ret = -1;

		msg[0] = 0;
		if (!x || !want) {
			snprintf(msg, sizeof(msg), "no memory");
			goto next;
		}
		x->v2 = c[i].v2;
		x->parts = 2;
		x->at = c[i].at;
		x->new_n = c[i].new_n;
		x->ring = x->v2 ? synth_ring2_new(2, 32, 32, "t", &len) :
			synth_ring_new(2, 1024, 128, "t", &len);
		if (!x->ring ||
		    iot_ring_init(&ring, x->ring, len, err, sizeof(err))) {
			snprintf(msg, sizeof(msg), "ring: %s",
				 x->ring ? err : "no memory");
			goto next;
		}
		clr_push(x, c[i].old_n);
		iot_ring_snapshot(&ring, 0, clr_snap_cb, x, &n);
		/* part 0's records (odd ids) before part @at, and its first */
		for (id = 1; id <= c[i].old_n; id += 2)
			want[id] = c[i].at > 0;
		want[c[i].at + 1] = 1;
		expect = c[i].at ? c[i].old_n / 2 + 1 : 1;
		ret = clr_compare(x, want, msg, sizeof(msg));
		if (!n.cleared || n.present != expect ||
		    n.recorded != expect || n.torn || n.overwritten) {
			size_t l = strlen(msg);

			snprintf(msg + l, sizeof(msg) - l,
				 "%scleared %d, present %llu, recorded %llu, torn %llu, overwritten %llu (want %llu)",
				 l ? "; " : "", n.cleared,
				 (unsigned long long)n.present,
				 (unsigned long long)n.recorded,
				 (unsigned long long)n.torn,
				 (unsigned long long)n.overwritten,
				 (unsigned long long)expect);
			ret = -1;
		}
next:
		if (ret) {
			printf("# snapshot, clear at part %u, %s ring, %llu, then %llu: %s\n",
			       c[i].at, c[i].v2 ? "2.0" : "1.x",
			       (unsigned long long)c[i].old_n,
			       (unsigned long long)c[i].new_n, msg);
			bad++;
		}
		if (x)
			free(x->ring);
		free(x);
		free(want);
	}
	CHECK(!bad, "%d of %zu cases (above)", bad, ARRAY_SIZE(c));
}

#define PX_CPUS		3
#define PX_CHUNK	16
#define PX_CHUNKS	48
#define PX_MAX		100000	/* records pushed, at most */

/**
 * struct pxctx - a 2.0 ring written by the test itself, read through two
 *	views of it: one whose passes index the chunks, one that scans.
 * @b: the ring's bytes.
 * @ix: the view read in passes (iot_ring_pass_begin()).
 * @sc: the view that never has an index (the scans).
 * @ids: per CPU, the id of the record of each sequence number.
 * @head: per CPU, the records pushed.
 * @pushed: records pushed, all CPUs.
 */
struct pxctx {
	uint8_t *b;
	struct iot_ring ix, sc;
	uint64_t *ids[PX_CPUS];
	uint64_t head[PX_CPUS];
	uint64_t pushed;
};

/* @n records pushed, each to @cpu with probability 1/2, else to any. */
static void px_push(struct pxctx *x, uint32_t cpu, unsigned int n)
{
	struct iotrace_record r;

	while (n-- && x->pushed < PX_MAX) {
		uint32_t c = rnd() & 1 ? cpu : (uint32_t)(rnd() % PX_CPUS);

		synth_stamp2(&r, ++x->pushed);
		if (!synth_ring2_push(x->b, c, &r, 1))
			x->ids[c][x->head[c]++] = x->pushed;
	}
}

/* 0 when the @n records at @out are CPU @cpu's from @seq on, as pushed. */
static int px_bad(const struct pxctx *x, uint32_t cpu, uint64_t seq,
		  const struct iotrace_record *out, uint32_t n)
{
	struct iotrace_record e;
	uint32_t i;

	for (i = 0; i < n; i++) {
		synth_stamp2(&e, x->ids[cpu][seq + i]);
		memset(e.cmd + IOTRACE_CMD_CGROUP_OFF, 0, 8);
		e.seq = (uint32_t)(seq + i);
		e.complete_cpu = cpu;
		if (memcmp(&e, &out[i], sizeof(e)))
			return 1;
	}
	return 0;
}

/*
 * One pass of the indexed view over CPU @cpu from *@cur on, as the
 * recorder drains a part, every answer checked against the scanning
 * view's (and the records against what was pushed); @mix: records are
 * pushed between the lookups, so that chunks are taken and recycled
 * between the index's build and its use, and the pass reads on into
 * chunks taken after the build.  *@got, *@gone: records copied, records
 * found gone.  Returns 0, or 1 with fail() called.
 */
static int px_pass(struct pxctx *x, uint32_t cpu, uint64_t *cur, int mix,
		   uint64_t *got, uint64_t *gone)
{
	static struct iotrace_record oa[PX_CHUNK * 2], ob[PX_CHUNK * 2];
	uint64_t head = iot_ring_head(&x->ix, cpu);
	int steps = 0;

	iot_ring_pass_begin(&x->ix, cpu);
	while (*cur < head) {
		uint32_t max = 1 + rnd() % (PX_CHUNK * 2), na, nb;
		int ra, rb;

		if (max > head - *cur)
			max = head - *cur;
		ra = iot_ring_copy_run(&x->ix, cpu, *cur, max, oa, &na);
		rb = iot_ring_copy_run(&x->sc, cpu, *cur, max, ob, &nb);
		if (ra != rb || na != nb || memcmp(oa, ob, na * sizeof(*oa))) {
			fail("CPU %u seq %llu: run %d (%u), scanned %d (%u)",
			     cpu, (unsigned long long)*cur, ra, na, rb, nb);
			return 1;
		}
		if (px_bad(x, cpu, *cur, oa, na)) {
			fail("CPU %u seq %llu: a record not as pushed", cpu,
			     (unsigned long long)*cur);
			return 1;
		}
		*cur += na;
		*got += na;
		if (ra) {
			int ga = iot_ring_gone(&x->ix, cpu, *cur);
			int gb = iot_ring_gone(&x->sc, cpu, *cur);
			uint64_t nx;

			/* every record pushed is published: present or gone */
			if (ga != gb || !ga) {
				fail("CPU %u seq %llu: copy %d gone %d scan %d",
				     cpu, (unsigned long long)*cur, ra, ga, gb);
				return 1;
			}
			nx = iot_ring_next(&x->ix, cpu, *cur);
			if (nx != iot_ring_next(&x->sc, cpu, *cur)) {
				fail("CPU %u seq %llu: next differs", cpu,
				     (unsigned long long)*cur);
				return 1;
			}
			*gone += nx - *cur;
			*cur = nx;
		}
		if (mix &&
		    iot_ring_lo(&x->ix, cpu) != iot_ring_lo(&x->sc, cpu)) {
			fail("CPU %u: lowest sequence number differs", cpu);
			return 1;
		}
		if (mix && steps++ < 60) {
			px_push(x, cpu, rnd() % (PX_CHUNK * 3));
			head = iot_ring_head(&x->ix, cpu);
		}
	}
	iot_ring_pass_end(&x->ix);
	return 0;
}

/*
 * The recorder's passes find a backlog of many chunks of several CPUs
 * through an index of the part's chunks, built once a pass: every answer
 * (run copied, record gone, next chunk, lowest number) is the scan's, also
 * with chunks taken and recycled between the index's build and its use,
 * and the records read are exactly those pushed; a pass over a backlog
 * scans the chunk headers once (the index), not at every chunk crossed.
 */
static void test_ring_pass_index(void)
{
	struct pxctx x = { 0 };
	uint64_t cur[PX_CPUS], got = 0, gone = 0, from = 0, n0, s0;
	uint64_t total = 0, most = 0;
	char err[IOT_ERR_LEN];
	size_t len;
	uint32_t c;
	int round;

	x.b = synth_ring2_new(PX_CPUS, PX_CHUNK, PX_CHUNKS, "t", &len);
	CHECK(x.b, "no memory");
	for (c = 0; c < PX_CPUS; c++) {
		x.ids[c] = calloc(PX_MAX, sizeof(uint64_t));
		CHECK(x.ids[c], "no memory");
	}
	CHECK(!iot_ring_init(&x.ix, x.b, len, err, sizeof(err)) &&
	      !iot_ring_init(&x.sc, x.b, len, err, sizeof(err)), "%s", err);
	/* a backlog of more than the pool: the oldest chunks recycled */
	px_push(&x, 0, PX_CHUNK * PX_CHUNKS * 3 / 2);
	for (c = 0; c < PX_CPUS; c++) {
		cur[c] = iot_ring_lo(&x.sc, c);
		from += cur[c];
	}
	/* passes with records pushed between the lookups */
	for (round = 0; round < 12; round++)
		for (c = 0; c < PX_CPUS; c++)
			if (px_pass(&x, c, &cur[c], 1, &got, &gone))
				goto out;
	/*
	 * passes over a backlog of many chunks: a few scans each (the index;
	 * a record found gone, the next chunk), not one per chunk crossed
	 */
	for (round = 0; round < 3; round++) {
		px_push(&x, round % PX_CPUS, PX_CHUNK * PX_CHUNKS);
		for (c = 0; c < PX_CPUS; c++) {
			n0 = x.ix.cache.nscan;
			s0 = x.sc.cache.nscan;
			if (px_pass(&x, c, &cur[c], 0, &got, &gone))
				goto out;
			n0 = x.ix.cache.nscan - n0;
			s0 = x.sc.cache.nscan - s0;
			if (n0 > 4) {
				fail("round %d CPU %u: %llu scans (%llu)",
				     round, c, (unsigned long long)n0,
				     (unsigned long long)s0);
				goto out;
			}
			if (s0 > most)
				most = s0;
		}
	}
	for (c = 0; c < PX_CPUS; c++)
		total += x.head[c];
	if (got + gone + from != total || !gone || most < 16)
		fail("%llu copied + %llu gone + %llu before != %llu, %llu",
		     (unsigned long long)got, (unsigned long long)gone,
		     (unsigned long long)from, (unsigned long long)total,
		     (unsigned long long)most);
	printf("# pass index: %llu pushed %llu copied %llu gone %llu scans\n",
	       (unsigned long long)total, (unsigned long long)got,
	       (unsigned long long)gone, (unsigned long long)most);
out:
	for (c = 0; c < PX_CPUS; c++)
		free(x.ids[c]);
	free(x.b);
}

/*
 * A 2.0 ring of @cpus CPUs and as many chunks of 2 records, each CPU's
 * records 0 and 1 in its chunk and its head at the pool's records (2 *
 * @cpus): records 2 .. head - 1 of every CPU in no chunk (gone).  *@len:
 * its size.
 */
static uint8_t *gap_ring(uint32_t cpus, size_t *len)
{
	uint8_t *b = synth_ring2_new(cpus, 2, cpus, "t", len);
	const iot_ring_hdr2 *h = (const void *)b;
	struct iotrace_record r;
	uint32_t c, i;

	for (c = 0; b && c < cpus; c++) {
		struct iotrace_cpu_hdr *ch = (void *)(b + h->cpu_hdr_offset +
			(uint64_t)c * h->cpu_hdr_size);

		for (i = 0; i < 2; i++) {
			synth_rec(&r, c * 2 + i);
			synth_ring2_push(b, c, &r, 1);
		}
		ch->head = 2 * cpus;
		/* as the writers count the chunks they recycled */
		ch->overwritten = 2 * cpus - 2;
	}
	return b;
}

/*
 * Whether a snapshot and a follower of gap_ring(@cpus) read the 2 records
 * of each CPU and count the others gone (overwritten, lost), and how many
 * scans of the chunk headers each took (*@snap, *@follow).
 */
static int gap_scans(uint32_t cpus, uint64_t *snap, uint64_t *follow)
{
	uint64_t gone = (uint64_t)cpus * (2 * cpus - 2), n = 0;
	struct iot_ring_follow f;
	struct iot_counts c = { 0 };
	char err[IOT_ERR_LEN];
	struct iot_ring ring;
	size_t len;
	uint8_t *b = gap_ring(cpus, &len);
	uint32_t k;
	int ok;

	if (!b || iot_ring_init(&ring, b, len, err, sizeof(err))) {
		free(b);
		return 0;
	}
	*snap = ring.cache.nscan;
	ok = !iot_ring_snapshot(&ring, 0, count_cb, &n, &c) &&
	     n == 2 * cpus && c.present == n && c.torn == 0 &&
	     c.overwritten == gone;
	*snap = ring.cache.nscan - *snap;
	/* a follower from records 2 on: the same gaps, lost */
	if (ok && !iot_ring_follow_init(&f, &ring)) {
		for (k = 0; k < cpus; k++)
			f.cur[k] = 2;
		*follow = ring.cache.nscan;
		n = 0;
		ok = !iot_ring_follow_poll(&f, count_cb, &n) && !n &&
		     f.lost == gone;
		*follow = ring.cache.nscan - *follow;
		iot_ring_follow_free(&f);
	}
	free(b);
	return ok;
}

/*
 * A snapshot and a follower step over a CPU's gap (records in no chunk) at
 * once, as the recorder does (iot_ring_next()), counting its records gone:
 * scans of the chunk headers (ring.cache.nscan, not a time) a few per CPU,
 * not one per record gone (the gaps' records grow with the square of the
 * CPUs here: ring2.py gapmany, 84 s for 2000 CPUs).
 */
static void test_ring_gap_step(void)
{
	uint64_t snap[2] = { 0, 0 }, follow[2] = { 0, 0 };
	static const uint32_t cpus[2] = { 32, 64 };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		CHECK(gap_scans(cpus[i], &snap[i], &follow[i]),
		      "%u CPUs: records or counts wrong", cpus[i]);
		CHECK(snap[i] <= 4 * cpus[i] && follow[i] <= 4 * cpus[i],
		      "%u CPUs: %llu scans for the snapshot, %llu for the follower",
		      cpus[i], (unsigned long long)snap[i],
		      (unsigned long long)follow[i]);
	}
	CHECK(snap[1] <= snap[0] * 22 / 10 && follow[1] <= follow[0] * 22 / 10,
	      "twice the CPUs: scans %llu to %llu, %llu to %llu",
	      (unsigned long long)snap[0], (unsigned long long)snap[1],
	      (unsigned long long)follow[0], (unsigned long long)follow[1]);
	printf("# gap step: scans, snapshot %llu, %llu; follower %llu, %llu (%u, %u CPUs)\n",
	       (unsigned long long)snap[0], (unsigned long long)snap[1],
	       (unsigned long long)follow[0], (unsigned long long)follow[1],
	       cpus[0], cpus[1]);
}

/* Filters select what they say. */
static void test_filters(void)
{
	struct iot_opts o = { .sec_hi = UINT64_MAX, .to_ns = UINT64_MAX };
	struct iotrace_record r;

	synth_rec(&r, 0);
	r.op = IOTRACE_OP_WRITE;
	r.sector = 100;
	r.issue_ns = 1000;
	r.complete_ns = 201000;
	r.error = 0;
	r.rflags = IOTRACE_RF_COMPLETE;
	CHECK(iot_filter(&o, &r), "no filter");
	o.op_mask = 1u << IOTRACE_OP_READ;
	CHECK(!iot_filter(&o, &r), "op");
	o.op_mask = 0;
	o.have_lat = 1;
	/* --lat-min: at least (0 keeps a latency of 0) */
	o.lat_min_ns = 200001;
	CHECK(!iot_filter(&o, &r), "lat below");
	o.lat_min_ns = 200000;
	CHECK(iot_filter(&o, &r), "lat equal is at least");
	o.lat_min_ns = 199999;
	CHECK(iot_filter(&o, &r), "lat above");
	o.have_lat = 0;
	o.sec_lo = 100;
	o.sec_hi = 101;
	CHECK(iot_filter(&o, &r), "sector in");
	o.sec_lo = 101;
	o.sec_hi = 200;
	CHECK(!iot_filter(&o, &r), "sector out");
	o.sec_lo = 0;
	o.sec_hi = UINT64_MAX;
	o.status = 2;
	CHECK(!iot_filter(&o, &r), "errors only");
	r.error = -5;
	CHECK(iot_filter(&o, &r), "error");
	o.status = 3;
	o.status_errno = 5;
	CHECK(iot_filter(&o, &r), "EIO");
	o.status_errno = 110;
	CHECK(!iot_filter(&o, &r), "ETIMEDOUT");
	o.status = 0;
	o.from_ns = 201000;
	o.to_ns = 201001;
	CHECK(iot_filter(&o, &r), "window in");
	o.from_ns = 201001;
	o.to_ns = 300000;
	CHECK(!iot_filter(&o, &r), "window out");
}

/*
 * The record schema: no sector is JSON null and an empty CSV field, a
 * JSON array document and JSON Lines hold the same objects.
 */
static void test_out_schema(void)
{
	struct iotrace_record r;
	struct iot_out doc;
	char *buf = NULL;
	size_t sz = 0;
	FILE *fp;

	synth_rec(&r, 0);
	r.sector = UINT64_MAX;
	r.rflags = IOTRACE_RF_COMPLETE;
	r.issue_ns = 10;
	r.complete_ns = 30;
	fp = open_memstream(&buf, &sz);
	CHECK(fp, "open_memstream");
	iot_out_begin(&doc, fp, FMT_JSON, 0);
	iot_out_rec(&doc, "d\"q", &r);
	iot_out_rec(&doc, "d", &r);
	iot_out_end(&doc);
	fclose(fp);
	CHECK(buf[0] == '[' && strstr(buf, "},{") && !strcmp(buf + sz - 3, "}]\n"),
	      "one array: %s", buf);
	CHECK(strstr(buf, "\"sector\":null,") && strstr(buf, "\"queue_ns\":null,") &&
	      strstr(buf, "\"latency_ns\":20,") && strstr(buf, "\"disk\":\"d\\\"q\""),
	      "null sector, latency 20: %s", buf);
	free(buf);
	buf = NULL;
	fp = open_memstream(&buf, &sz);
	CHECK(fp, "open_memstream");
	iot_out_begin(&doc, fp, FMT_JSON, 1);
	iot_out_rec(&doc, "d", &r);
	iot_out_rec(&doc, "d", &r);
	iot_out_end(&doc);
	fclose(fp);
	CHECK(buf[0] == '{' && strstr(buf, "}\n{") && !strcmp(buf + sz - 2, "}\n") &&
	      !strchr(buf, '['), "JSON Lines: %s", buf);
	free(buf);
	buf = NULL;
	fp = open_memstream(&buf, &sz);
	CHECK(fp, "open_memstream");
	iot_out_begin(&doc, fp, FMT_CSV, 0);
	iot_out_rec(&doc, "d", &r);
	fclose(fp);
	CHECK(!strncmp(buf, "d,", 2) && strstr(buf, ",,20,"),
	      "CSV: empty queue_ns and sector: %s", buf);
	free(buf);
}

/*
 * The objects of state and events -o json (iot_kv_json()): the disk's
 * name and the trigger reason as the kernel gives them, escaped; the
 * numbers as numbers; byte for byte what they were for plain names.
 */
static void test_out_kv(void)
{
	static const char *const skeys[] = { "event", "disk", "reason", "op" };
	static const struct iot_kv kv[] = {
		{ "major", 259 }, { "seq", UINT64_MAX },
	};
	static const char *const sv[] = {
		"trigger", "nv\"me\\0n1\n", "latency", "read"
	};
	static const char *const plain[] = { "added", "nvme0n1" };
	struct iot_jw w;
	char *buf = NULL;
	size_t sz = 0;
	FILE *fp;

	fp = open_memstream(&buf, &sz);
	CHECK(fp, "open_memstream");
	jw_init(&w, fp);
	iot_kv_json(&w, skeys, sv, 4, kv, 2);
	fputc('\n', fp);
	jw_init(&w, fp);
	iot_kv_json(&w, skeys, plain, 2, kv, 1);
	fclose(fp);
	CHECK(!strcmp(buf,
		      "{\"event\":\"trigger\",\"disk\":\"nv\\\"me\\\\0n1\\u000a\",\"reason\":\"latency\",\"op\":\"read\",\"major\":259,\"seq\":18446744073709551615}\n"
		      "{\"event\":\"added\",\"disk\":\"nvme0n1\",\"major\":259}"),
	      "state/events object: %s", buf);
	free(buf);
}

/*
 * Well-formed UTF-8 as Unicode's table 3-7 lists the byte sequences
 * (written apart from the writer's decoder), with no control character
 * (C0, DEL, C1) left raw: the length of the sequence at @s, 0 if none.
 */
static size_t wellformed(const unsigned char *s, size_t n)
{
	static const struct {
		unsigned char lead_lo, lead_hi, lo, hi;
		size_t len;
	} t[] = {
		{ 0x20, 0x7e, 0, 0, 1 },
		{ 0xc2, 0xc2, 0xa0, 0xbf, 2 },	/* past the C1 controls */
		{ 0xc3, 0xdf, 0x80, 0xbf, 2 },
		{ 0xe0, 0xe0, 0xa0, 0xbf, 3 },
		{ 0xe1, 0xec, 0x80, 0xbf, 3 },
		{ 0xed, 0xed, 0x80, 0x9f, 3 },
		{ 0xee, 0xef, 0x80, 0xbf, 3 },
		{ 0xf0, 0xf0, 0x90, 0xbf, 4 },
		{ 0xf1, 0xf3, 0x80, 0xbf, 4 },
		{ 0xf4, 0xf4, 0x80, 0x8f, 4 },
	};
	size_t k, i;

	for (k = 0; k < ARRAY_SIZE(t); k++) {
		if (s[0] < t[k].lead_lo || s[0] > t[k].lead_hi)
			continue;
		if (t[k].len > n)
			return 0;
		if (t[k].len > 1 && (s[1] < t[k].lo || s[1] > t[k].hi))
			return 0;
		for (i = 2; i < t[k].len; i++)
			if (s[i] < 0x80 || s[i] > 0xbf)
				return 0;
		return t[k].len;
	}
	return 0;
}

/* iot_json_str() of @in into @out (@len bytes); 0, or -1 if cut */
static int json_of(const char *in, char *out, size_t len)
{
	FILE *fp = fmemopen(out, len, "w");
	int ret;

	if (!fp)
		return -1;
	iot_json_str(fp, in);
	ret = fputc(0, fp) == EOF || ferror(fp) ? -1 : 0;
	fclose(fp);
	return ret;
}

/*
 * JSON strings are UTF-8: a name's valid sequences as they are, control
 * characters escaped, every other byte U+FFFD; on random bytes the
 * output is always well-formed UTF-8 without a raw control character.
 */
static void test_out_json_utf8(void)
{
	static const char *const cases[][2] = {
		{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" },
		{ "caf\xc3", "\"caf\\ufffd\"" },		/* cut */
		{ "\xe2\x82\xac\xf0\x9f\x98\x80", "\"\xe2\x82\xac\xf0\x9f\x98\x80\"" },
		{ "a\377\376b", "\"a\\ufffd\\ufffdb\"" },
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },		/* overlong '/' */
		{ "\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"" },
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },	/* surrogate */
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },
		{ "\xe2\x82x", "\"\\ufffd\\ufffdx\"" },
		{ "\x1b[31m\n\x7f", "\"\\u001b[31m\\u000a\\u007f\"" },
		{ "\xc2\x85\xc2\xa0", "\"\\u0085\xc2\xa0\"" },	/* C1, NBSP */
		{ "q\"b\\", "\"q\\\"b\\\\\"" },
	};
	char in[24], out[256];
	size_t i, k, n, len;
	int j;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		CHECK(!json_of(cases[i][0], out, sizeof(out)), "case %zu", i);
		CHECK(!strcmp(out, cases[i][1]), "case %zu: %s, want %s", i,
		      out, cases[i][1]);
	}
	for (j = 0; j < 200000; j++) {
		n = 1 + rnd() % 20;
		for (k = 0; k < n; k++) {
			uint64_t r = rnd();

			/* lead and continuation bytes most of the time */
			in[k] = (char)(r % 4 ? 0x80 + (r >> 8) % 0x78 :
				       1 + (r >> 8) % 255);
		}
		in[n] = 0;
		CHECK(!json_of(in, out, sizeof(out)), "random %d: cut", j);
		n = strlen(out);
		CHECK(n >= 2 && out[0] == '"' && out[n - 1] == '"',
		      "random %d: %s", j, out);
		for (k = 0; k < n; k += len) {
			len = wellformed((unsigned char *)out + k, n - k);
			CHECK(len, "random %d: byte %zu of %s", j, k, out);
		}
	}
}

/*
 * Names as the text outputs print them: printable ASCII as it is, '\'
 * doubled, every other byte \xNN; cut before an escape that does not fit.
 */
static void test_text_str(void)
{
	static const char *const cases[][2] = {
		{ "fio", "fio" },
		{ "a\\b", "a\\\\b" },
		{ "\n   9.9 FAKE\x1b[31m", "\\x0a   9.9 FAKE\\x1b[31m" },
		{ "caf\xc3\xa9", "caf\\xc3\\xa9" },
		{ "\x7f\x80\xff~ ", "\\x7f\\x80\\xff~ " },
	};
	char out[IOT_TEXT_ROOM(255)], in[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		iot_text_str(out, sizeof(out), cases[i][0]);
		CHECK(!strcmp(out, cases[i][1]), "case %zu: %s, want %s", i,
		      out, cases[i][1]);
	}
	/* every byte: 1, 2 or 4 printable ASCII characters, all of it */
	for (i = 0; i < 255; i++)
		in[i] = (char)(i + 1);
	in[255] = 0;
	iot_text_str(out, sizeof(out), in);
	CHECK(strlen(out) == 95 - 1 + 2 + 4 * (255 - 95), "length %zu",
	      strlen(out));
	for (i = 0; out[i]; i++)
		CHECK(out[i] >= 0x20 && out[i] < 0x7f, "byte %zu: %02x", i,
		      (unsigned char)out[i]);
	/* cut at a whole escape */
	CHECK(!strcmp(iot_text_str(out, 6, "ab\x01"), "ab"), "cut: %s", out);
	CHECK(!strcmp(iot_text_str(out, 7, "ab\x01"), "ab\\x01"), "fit: %s",
	      out);
	CHECK(!strcmp(iot_text_str(out, 4, "a\\b"), "a\\\\"), "cut \\: %s",
	      out);
	CHECK(!strcmp(iot_text_str(out, 3, "a\\b"), "a"), "cut \\\\: %s", out);
}

/*
 * An output stream keeps the errno of its first failed write: a write
 * that failed inside fwrite() (stdio drops its buffer, nothing is left
 * to flush) is said with its reason, not EIO, though errno has changed.
 */
static void test_out_errno(void)
{
	static char big[3 * BUFSIZ];
	FILE *fp, *mem, *err = stderr;
	char *msg = NULL;
	size_t msz = 0;
	int fd, rc, failed;

	fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
	CHECK(fd >= 0, "/dev/full: %s", strerror(errno));
	fp = iot_out_fdopen(fd);
	CHECK(fp, "iot_out_fdopen: %s", strerror(errno));
	memset(big, 'x', sizeof(big));
	fwrite(big, 1, 10, fp);
	failed = fwrite(big, 1, sizeof(big), fp) < sizeof(big) && ferror(fp);
	errno = ENOENT;		/* what calls after it may leave */
	mem = open_memstream(&msg, &msz);
	if (mem)
		stderr = mem;
	rc = iot_out_close(fp, "/dev/full");
	stderr = err;
	CHECK(mem, "open_memstream");
	fclose(mem);
	CHECK(failed && rc == 1 &&
	      !strcmp(msg, "iotracectl: writing /dev/full: No space left on device\n"),
	      "write failed %d, iot_out_close() %d, said: %s", failed, rc, msg);
	free(msg);
}

/*
 * The decimal formatter (numfmt.h) and the decoders' string builders
 * against snprintf: 0, every power of ten and its neighbours, the 32-bit
 * and 64-bit limits, random values, in every buffer size (cut as snprintf
 * cuts); and a negative errno in the CSV line.
 */
static void test_numfmt(void)
{
	uint64_t v[200];
	size_t nv = 0, i, room;
	uint64_t t = 1;
	unsigned int k;

	v[nv++] = 0;
	v[nv++] = UINT32_MAX;
	v[nv++] = (uint64_t)UINT32_MAX + 1;
	v[nv++] = UINT64_MAX;
	for (k = 0; k < 20; k++, t *= 10) {
		v[nv++] = t;
		v[nv++] = t - 1;
		v[nv++] = t + 1;
	}
	while (nv < ARRAY_SIZE(v))
		v[nv++] = rnd() >> (rnd() % 64);
	for (i = 0; i < nv; i++) {
		char want[32], got[64], *e;

		snprintf(want, sizeof(want), "%llu", (unsigned long long)v[i]);
		memset(got, 'x', sizeof(got));
		e = iot_fmt_u64(got, v[i]);
		CHECK((size_t)(e - got) == strlen(want) &&
		      !memcmp(got, want, e - got) && got[IOT_FMT_ROOM] == 'x',
		      "iot_fmt_u64(%s) gave %.*s", want, (int)(e - got), got);
		for (room = 0; room <= 24; room++) {
			char ref[32];

			memset(got, 'x', sizeof(got));
			e = iot_put_u(got, got + room, v[i]);
			snprintf(ref, room ? room : 1, "%s", want);
			CHECK(room ? (!strcmp(got, ref) && e == got + strlen(ref)) :
			      (e == got && got[0] == 'x'),
			      "iot_put_u(%s) in %zu bytes: %.*s", want, room,
			      (int)room, got);
			CHECK(got[room] == 'x', "iot_put_u(%s) in %zu bytes wrote past them",
			      want, room);
			memset(got, 'x', sizeof(got));
			e = iot_put_s(got, got + room, want);
			CHECK(room ? (!strcmp(got, ref) && e == got + strlen(ref)) :
			      e == got,
			      "iot_put_s(%s) in %zu bytes: %.*s", want, room,
			      (int)room, got);
			CHECK(got[room] == 'x', "iot_put_s(%s) in %zu bytes wrote past them",
			      want, room);
		}
	}
	{
		struct iotrace_record r;
		struct iot_out doc;
		char *buf = NULL;
		size_t sz = 0;
		FILE *fp = open_memstream(&buf, &sz);

		CHECK(fp, "open_memstream");
		synth_rec(&r, 0);
		r.error = -5;
		r.sector = UINT64_MAX - 1;
		iot_out_begin(&doc, fp, FMT_CSV, 0);
		iot_out_rec(&doc, "d", &r);
		fclose(fp);
		CHECK(strstr(buf, ",18446744073709551614,") &&
		      strstr(buf, ",-5,-EIO,"), "CSV: %s", buf);
		free(buf);
	}
}

/* the names of every known reason, of bit 6 and of bit 31 */
#define ALL_REASONS	"latency+error+devstatus+timeout+requeues+stuck+bit6+manual+events-lost+bit31"

/*
 * The reason names of trace files and kernel events, from one table: every
 * known bit by the name Documentation/iotracectl.rst gives it, an unknown
 * one as bitN, none as "none", and a short buffer cut, not overrun.
 */
static void test_trig_reason_names(void)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} known[] = {
		{ IOTRACE_TRIG_LATENCY, "latency" },
		{ IOTRACE_TRIG_ERROR, "error" },
		{ IOTRACE_TRIG_DEVSTATUS, "devstatus" },
		{ IOTRACE_TRIG_TIMEOUT, "timeout" },
		{ IOTRACE_TRIG_REQUEUES, "requeues" },
		{ IOTRACE_TRIG_STUCK, "stuck" },
		{ IOTRACE_FILE_TRIG_MANUAL, "manual" },
		{ IOTRACE_FILE_TRIG_LOST, "events-lost" },
	};
	char buf[128], small[8];
	uint32_t all = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(known); i++) {
		iot_trig_reason_names(known[i].bit, buf, sizeof(buf));
		CHECK(!strcmp(buf, known[i].name), "bit 0x%x: %s, not %s",
		      known[i].bit, buf, known[i].name);
		all |= known[i].bit;
	}
	iot_trig_reason_names(all | 1u << 6 | 1u << 31, buf, sizeof(buf));
	CHECK(!strcmp(buf, ALL_REASONS), "all: %s", buf);
	iot_trig_reason_names(0, buf, sizeof(buf));
	CHECK(!strcmp(buf, "none"), "0: %s", buf);
	memset(small, 'x', sizeof(small));
	iot_trig_reason_names(IOTRACE_FILE_TRIG_LOST | IOTRACE_TRIG_ERROR,
			      small, sizeof(small) - 1);
	CHECK(small[sizeof(small) - 1] == 'x' &&
	      memchr(small, 0, sizeof(small) - 1) &&
	      !strncmp(small, "error+", strlen(small)),
	      "short buffer: %.8s", small);
}

/*
 * The watcher's requests to the module (watch_nl.c's nl_request()): the
 * answer a module gives (an ack, or struct nlmsgerr's negative errno) is
 * the request's result, a negative errno, and its message; the callers
 * compare with -EOPNOTSUPP.  An error of 1 (EPERM) ends the wait too.
 */
static void test_watch_nl_reply(void)
{
	static const struct {
		unsigned int cmd;
		int error;		/* nlmsgerr.error; 1: an ack; 2: none */
		int ret;
		const char *msg;
	} c[] = {
		{ IOTRACE_CMD_SET_TRIGGER, 1, 0, "" },
		{ IOTRACE_CMD_SET_TRIGGER, -EPERM, -EPERM,
		  "Operation not permitted" },
		{ IOTRACE_CMD_SET_TRIGGER, -EOPNOTSUPP, -EOPNOTSUPP,
		  "not supported by this module (no IOTRACE_CMD_SET_TRIGGER)" },
		{ IOTRACE_CMD_SET_TRIGGER, -EINVAL, -EINVAL, "Invalid argument" },
		{ IOTRACE_CMD_SET_TRIGGER, 2, -EIO, "Input/output error" },
		{ IOTRACE_CMD_RELEASE_HOLD, 1, 0, "" },
		{ IOTRACE_CMD_RELEASE_HOLD, -EPERM, -EPERM,
		  "Operation not permitted" },
		{ IOTRACE_CMD_RELEASE_HOLD, -ENODEV, -ENODEV, "No such device" },
		{ IOTRACE_CMD_RELEASE_HOLD, -EOPNOTSUPP, -EOPNOTSUPP,
		  "Operation not supported" },
	};
	struct watch_nl_reply r;
	char err[IOT_ERR_LEN];
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		watch_nl_reply_init(&r);
		if (c[i].error == 1)
			watch_nl_reply_ack(&r);
		else if (c[i].error != 2)
			watch_nl_reply_error(&r, c[i].error);
		CHECK(r.done == (c[i].error != 2),
		      "cmd %u, error %d: %s", c[i].cmd, c[i].error,
		      r.done ? "answered without an answer" :
		      "still waiting after the answer");
		ret = watch_nl_reply_result(&r);
		err[0] = 0;
		watch_nl_say(ret, c[i].cmd, err, sizeof(err));
		CHECK(ret == c[i].ret && !strcmp(err, c[i].msg),
		      "cmd %u, error %d: %d \"%s\", not %d \"%s\"", c[i].cmd,
		      c[i].error, ret, err, c[i].ret, c[i].msg);
	}
}

/*
 * Which refusals of the module stop the watcher at start (watch.c's
 * prepare_disks()): EPERM (generic netlink without CAP_NET_ADMIN, the
 * module without CAP_SYS_ADMIN) and EACCES (a security module), said as
 * one message naming the request and both capabilities; the others (a
 * disk not attached yet, a module without triggers, a bad size, no
 * answer) do not, and leave the message alone.
 */
static void test_watch_refused(void)
{
	static const struct {
		int err;
		const char *what, *why;
		int refused;
	} c[] = {
		{ EPERM, "resize", "Operation not permitted", 1 },
		{ EPERM, "enable",
		  "Operation not permitted: changing iotrace state needs CAP_SYS_ADMIN",
		  1 },
		{ EACCES, "trigger conditions", "Permission denied", 1 },
		{ 0, "enable", "", 0 },
		{ ENODEV, "enable", "No such device", 0 },
		{ EOPNOTSUPP, "trigger conditions", "not supported", 0 },
		{ EINVAL, "resize", "Invalid argument", 0 },
		{ EIO, "enable", "Input/output error", 0 },
	};
	char msg[2 * IOT_ERR_LEN], want[512];
	size_t i;
	int r;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		snprintf(msg, sizeof(msg), "untouched");
		r = watch_refused(c[i].err, "nullb0", c[i].what, c[i].why, msg,
				  sizeof(msg));
		snprintf(want, sizeof(want),
			 "nullb0: %s refused (%s): the watcher needs CAP_SYS_ADMIN and CAP_NET_ADMIN ",
			 c[i].what, c[i].why);
		CHECK(r == c[i].refused &&
		      (r ? !strncmp(msg, want, strlen(want)) :
		       !strcmp(msg, "untouched")),
		      "errno %d (%s): %d \"%s\"", c[i].err, c[i].what, r, msg);
	}
}

/*
 * What a netlink refusal says to do (iot_nl_hint()): EPERM names the two
 * capabilities and the bounding set (root may lack them: "run as root"
 * would be wrong), EACCES a security module.
 */
static void test_nl_hint(void)
{
	static const struct {
		int err;
		const char *has, *has2;
	} c[] = {
		{ EPERM, "CAP_NET_ADMIN", "bounding set" },
		{ EPERM, "CAP_SYS_ADMIN", "capsh --print" },
		{ EACCES, "security module", "audit log" },
		{ ENODEV, "iotracectl list", "iotracectl list" },
		{ EINVAL, "--help", "--help" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		const char *h = iot_nl_hint(c[i].err);

		CHECK(strstr(h, c[i].has) && strstr(h, c[i].has2) &&
		      !strstr(h, "run as root"), "%s: \"%s\"",
		      strerror(c[i].err), h);
	}
	CHECK(!*iot_nl_hint(EIO), "EIO: \"%s\"", iot_nl_hint(EIO));
}

static int ep_rate(void *arg)
{
	int *room = arg;

	return (*room)-- > 0;
}

/*
 * A disk's episodes (watch_ep.c), with --episode 1 s: a trigger starts
 * one, joins it within 1 s, queues the next while it is saved, joins the
 * queued one; max-per-hour refuses.  The hold the kernel set at a hit
 * (one per ring at a time; each event says the ring's) goes with the
 * episode the trigger joins: an episode without one, or with an older
 * one (it ended), takes it, to release it once saved.
 */
static void test_watch_episodes(void)
{
	static const struct {
		uint64_t ms, lo, hi, ns;	/* its time, its hold */
		int room;		/* max-per-hour leaves room */
		enum watch_ep_what what;
		uint32_t extra;		/* of the episode it went to */
		uint64_t hlo, hhi, hns;	/* that episode's hold after */
	} c[] = {
		{    0,  0,  0,  0, 1, WATCH_EP_STARTED,     0,  0,  0,  0 },
		/* the dispatcher takes it (EP_SAVING) */
		{  500,  9, 16, 50, 1, WATCH_EP_JOINED,      1,  9, 16, 50 },
		{  600,  9, 16, 50, 1, WATCH_EP_JOINED,      2,  9, 16, 50 },
		{  700,  5,  8, 40, 1, WATCH_EP_JOINED,      3,  9, 16, 50 },
		/* 9..16 ended (expired), a newer one was set */
		{  800, 17, 24, 60, 1, WATCH_EP_JOINED,      4, 17, 24, 60 },
		/* that ended too; the next, no chunk taken since: same hi */
		{  900, 17, 24, 70, 1, WATCH_EP_JOINED,      5, 17, 24, 70 },
		{  950, 17, 24, 60, 1, WATCH_EP_JOINED,      6, 17, 24, 70 },
		{ 2000,  0,  0,  0, 0, WATCH_EP_REFUSED,     0,  0,  0,  0 },
		{ 2100,  0,  0,  0, 1, WATCH_EP_QUEUED,      0,  0,  0,  0 },
		/* the queued one had none: a later hit's hold is its */
		{ 2500, 25, 30, 80, 1, WATCH_EP_JOINED_NEXT, 1, 25, 30, 80 },
		{ 2600, 25, 30, 80, 1, WATCH_EP_JOINED_NEXT, 2, 25, 30, 80 },
		{ 9000, 31, 40, 90, 1, WATCH_EP_JOINED_NEXT, 3, 31, 40, 90 },
		{ 9100, 25, 30, 80, 1, WATCH_EP_JOINED_NEXT, 4, 31, 40, 90 },
	};
	struct watch_trig h;
	struct watch_ep d;
	size_t i;

	memset(&d, 0, sizeof(d));
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		struct watch_trig t = {
			.mono_ns = c[i].ms * 1000000ull,
			.hold_lo = c[i].lo, .hold_hi = c[i].hi,
			.hold_ns = c[i].ns,
		};
		const struct watch_episode *e;
		enum watch_ep_what what;
		int room = c[i].room;

		what = watch_ep_trigger(&d, &t, 1000000000ull, ep_rate, &room);
		if (what == WATCH_EP_STARTED)
			d.state = EP_SAVING;
		e = what == WATCH_EP_QUEUED || what == WATCH_EP_JOINED_NEXT ?
		    &d.next : &d.cur;
		CHECK(what == c[i].what, "trigger %zu (%llu ms): %s, not %s",
		      i, (unsigned long long)c[i].ms, watch_ep_said(what),
		      watch_ep_said(c[i].what));
		if (what == WATCH_EP_REFUSED)
			continue;
		CHECK(e->extra == c[i].extra && e->trig.hold_lo == c[i].hlo &&
		      e->trig.hold_hi == c[i].hhi && e->trig.hold_ns == c[i].hns,
		      "trigger %zu (%llu ms, hold %llu..%llu at %llu), %s: extra %u, hold %llu..%llu at %llu; wanted extra %u, hold %llu..%llu at %llu",
		      i, (unsigned long long)c[i].ms,
		      (unsigned long long)c[i].lo, (unsigned long long)c[i].hi,
		      (unsigned long long)c[i].ns,
		      watch_ep_said(what), e->extra,
		      (unsigned long long)e->trig.hold_lo,
		      (unsigned long long)e->trig.hold_hi,
		      (unsigned long long)e->trig.hold_ns, c[i].extra,
		      (unsigned long long)c[i].hlo,
		      (unsigned long long)c[i].hhi,
		      (unsigned long long)c[i].hns);
	}
	CHECK(d.have_next && d.next.queued && !d.cur.queued &&
	      d.next.trig.mono_ns == 2100000000ull,
	      "the queued episode is not the trigger at 2100 ms");
	/*
	 * A refused trigger releases its hold unless an episode has it: by
	 * hold_hi and hold_ns (0: a module that gives none)
	 */
#define EP_HOLDS(hi, ns) \
	(h = (struct watch_trig){ .hold_hi = (hi), .hold_ns = (ns) }, \
	 watch_ep_holds(&d, &h))
	CHECK(EP_HOLDS(24, 70) && EP_HOLDS(40, 90) && EP_HOLDS(24, 0) &&
	      !EP_HOLDS(24, 60) && !EP_HOLDS(16, 50) && !EP_HOLDS(30, 80) &&
	      !EP_HOLDS(0, 0), "the episodes' holds: %llu at %llu, %llu at %llu",
	      (unsigned long long)d.cur.trig.hold_hi,
	      (unsigned long long)d.cur.trig.hold_ns,
	      (unsigned long long)d.next.trig.hold_hi,
	      (unsigned long long)d.next.trig.hold_ns);
	d.state = EP_IDLE;
	d.have_next = 0;
	CHECK(!EP_HOLDS(24, 70) && !EP_HOLDS(40, 90),
	      "a hold of an episode saved is still held");
#undef EP_HOLDS
}

/* a device entry of a stack table */
static unsigned int stk_dev(struct iot_stack_tab *t, const char *kname,
			    const char *name, uint32_t maj, uint32_t min,
			    uint32_t kind)
{
	struct iotrace_file_stack_dev *d;

	t->devs = realloc(t->devs, (t->nr_devs + 1) * sizeof(*d));
	d = &t->devs[t->nr_devs];
	memset(d, 0, sizeof(*d));
	snprintf(d->kname, sizeof(d->kname), "%s", kname);
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->dev_major = maj;
	d->dev_minor = min;
	d->kind = kind;
	return t->nr_devs++;
}

static void stk_seg(struct iot_stack_tab *t, unsigned int upper, uint32_t type,
		    uint32_t maj, uint32_t min, uint64_t start, uint64_t len,
		    uint64_t lower)
{
	struct iotrace_file_stack_seg *g;

	t->segs = realloc(t->segs, (t->nr_segs + 1) * sizeof(*g));
	g = &t->segs[t->nr_segs++];
	memset(g, 0, sizeof(*g));
	g->upper = upper;
	g->type = type;
	g->lower_major = maj;
	g->lower_minor = min;
	g->start = start;
	g->len = len;
	g->lower_start = lower;
}

/*
 * The stack tables (issue 49): dm table lines as "dmsetup table" prints
 * them, the chunk payload both ways, and sectors of disks mapped up
 * through partitions, dm linear (one device over two disks), dm crypt
 * (its device offset, not its iv_offset), LVM over crypt and md RAID1
 * (both members' sectors to the same array sector).
 */
static void test_stack_map(void)
{
	static const char key[] =
		"6f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a";
	struct iot_stack_tab t, u;
	struct iot_stack_hop h[IOT_STACK_DEPTH];
	struct iot_stack st;
	struct iot_disk dk;
	struct iotrace_record r;
	const char *name;
	char line[256];
	uint8_t *p;
	size_t len;
	unsigned int nb, sd, sd2, vg, cr, home, md, i;
	uint64_t sec;
	int n, partial;

	memset(&t, 0, sizeof(t));
	nb = stk_dev(&t, "nullb0", "", 252, 0, IOTRACE_STACK_DISK);
	CHECK(nb == 0, "first device");
	sd = stk_dev(&t, "sda", "", 8, 0, IOTRACE_STACK_DISK);
	CHECK(sd == 1, "second device");
	sd2 = stk_dev(&t, "sda2", "", 8, 2, IOTRACE_STACK_PART);
	stk_seg(&t, sd2, IOTRACE_STACK_SEG_PART, 8, 0, 0, 1000000, 2048);
	vg = stk_dev(&t, "dm-0", "vg0-data", 253, 0, IOTRACE_STACK_DM);
	CHECK(iot_stack_parse_dm(&t, vg, "0 409600 linear 252:0 2048\n") == 1,
	      "linear line");
	CHECK(iot_stack_parse_dm(&t, vg, "409600 204800 linear 8:2 0") == 1,
	      "second linear line");
	cr = stk_dev(&t, "dm-1", "cr", 253, 1, IOTRACE_STACK_DM);
	snprintf(line, sizeof(line),
		 "0 100000 crypt aes-xts-plain64 %s 777 252:0 1000000 1 allow_discards",
		 key);
	CHECK(iot_stack_parse_dm(&t, cr, line) == 1, "crypt line");
	home = stk_dev(&t, "dm-2", "vg1-home", 253, 2, IOTRACE_STACK_DM);
	CHECK(iot_stack_parse_dm(&t, home, "0 50000 linear 253:1 2048") == 1,
	      "linear over crypt");
	md = stk_dev(&t, "md0", "", 9, 0, IOTRACE_STACK_MD);
	stk_seg(&t, md, IOTRACE_STACK_SEG_RAID1, 252, 0, 0, 100000, 2000000);
	stk_seg(&t, md, IOTRACE_STACK_SEG_RAID1, 8, 2, 0, 100000, 600000);
	/* what maps nothing iotrace follows, and what no writer makes */
	CHECK(iot_stack_parse_dm(&t, cr, "0 100 thin-pool 1:2 3:4 128 0") == 0,
	      "thin-pool not skipped");
	CHECK(iot_stack_parse_dm(&t, cr, "0 100 linear 252:0") < 0 &&
	      iot_stack_parse_dm(&t, cr, "0 100 linear 252 0") < 0 &&
	      iot_stack_parse_dm(&t, cr, "x 100 linear 252:0 0") < 0 &&
	      iot_stack_parse_dm(&t, cr, "0 100 crypt aes k 0 252:0") < 0 &&
	      iot_stack_parse_dm(&t, cr, "0 0 linear 252:0 0") < 0,
	      "a malformed line taken");
	CHECK(t.nr_segs == 7, "%u segments", t.nr_segs);
	CHECK(t.segs[3].lower_start == 1000000 && t.segs[3].iv_offset == 777 &&
	      t.segs[3].type == IOTRACE_STACK_SEG_CRYPT, "crypt segment");

	/* LV over a disk */
	n = iot_stack_map(&t, "nullb0", 252, 0, 2048 + 100, 4096, h, 16);
	CHECK(n == 1 && h[0].dev == vg && h[0].sector == 100 && !h[0].partial,
	      "nullb0 sector 2148: %d levels", n);
	/* the same LV's second segment: partition, then LV */
	n = iot_stack_map(&t, "sda", 8, 0, 2048 + 10, 512, h, 16);
	CHECK(n == 2 && h[0].dev == sd2 && h[0].sector == 10 &&
	      h[1].dev == vg && h[1].sector == 409610, "sda 2058: %d", n);
	/* by name when the number is unknown */
	n = iot_stack_map(&t, "sda", 0, 0, 2048 + 10, 512, h, 16);
	CHECK(n == 2 && h[1].sector == 409610, "sda by name: %d", n);
	/* running past the end of the segment */
	n = iot_stack_map(&t, "nullb0", 252, 0, 2048 + 409599, 4096, h, 16);
	CHECK(n == 1 && h[0].partial, "partial not said");
	/* crypt: at its device offset; and LVM over it */
	n = iot_stack_map(&t, "nullb0", 252, 0, 1000000 + 5, 512, h, 16);
	CHECK(n == 1 && h[0].dev == cr && h[0].sector == 5, "crypt: %d", n);
	n = iot_stack_map(&t, "nullb0", 252, 0, 1000000 + 2048 + 7, 512, h, 16);
	CHECK(n == 2 && h[0].dev == cr && h[0].sector == 2055 &&
	      h[1].dev == home && h[1].sector == 7, "LV over crypt: %d", n);
	/* RAID1: both members to the same sector */
	n = iot_stack_map(&t, "nullb0", 252, 0, 2000000 + 42, 4096, h, 16);
	CHECK(n == 1 && h[0].dev == md && h[0].sector == 42, "md nullb0: %d",
	      n);
	n = iot_stack_map(&t, "sda", 8, 0, 2048 + 600000 + 42, 4096, h, 16);
	CHECK(n == 2 && h[1].dev == md && h[1].sector == 42, "md sda2: %d", n);
	/* metadata, free space, no sector */
	CHECK(!iot_stack_map(&t, "nullb0", 252, 0, 100, 512, h, 16) &&
	      !iot_stack_map(&t, "nullb0", 252, 0, 900000, 512, h, 16) &&
	      !iot_stack_map(&t, "nullb0", 252, 0, UINT64_MAX, 0, h, 16) &&
	      !iot_stack_map(&t, "sdb", 8, 16, 5000, 512, h, 16),
	      "a sector of nothing mapped");
	CHECK(!strcmp(iot_stack_name(&t, vg), "vg0-data") &&
	      !strcmp(iot_stack_name(&t, md), "md0"), "names");

	/* the payload both ways, and no key in it */
	t.mono_ns = 5;
	t.source = IOTRACE_STACK_SRC_SYSFS | IOTRACE_STACK_SRC_DM_IOCTL;
	CHECK(!iot_stack_encode(&t, &p, &len), "encode");
	CHECK(len % 8 == 0 && !memmem(p, len, key, 16), "a key in the payload");
	CHECK(!iot_stack_decode(&u, p, len) && iot_stack_same(&t, &u) &&
	      u.mono_ns == 5, "decode");
	iot_stack_tab_free(&u);
	/* a newer version is skipped; every cut and bad index refused */
	((struct iotrace_file_stack *)p)->version = 2;
	CHECK(iot_stack_decode(&u, p, len) == 1, "version 2 not skipped");
	((struct iotrace_file_stack *)p)->version = IOTRACE_STACK_VERSION;
	for (i = 0; i < len; i += 8)
		if (iot_stack_decode(&u, p, i) != -1)
			break;
	CHECK(i >= len, "a payload cut at %u taken", i);
	((struct iotrace_file_stack_seg *)(p + len - sizeof(t.segs[0])))->upper =
		t.nr_devs;
	CHECK(iot_stack_decode(&u, p, len) == -1, "a segment of no device");
	free(p);

	/* the table in force by time, and a record's topmost device */
	memset(&u, 0, sizeof(u));
	u.mono_ns = 100;
	stk_dev(&u, "nullb0", "", 252, 0, IOTRACE_STACK_DISK);
	i = stk_dev(&u, "dm-0", "vg0-new", 253, 0, IOTRACE_STACK_DM);
	stk_seg(&u, i, IOTRACE_STACK_SEG_LINEAR, 252, 0, 0, 409600, 4096);
	st.n = 2;
	st.t = calloc(2, sizeof(*st.t));
	st.t[0] = t;
	st.t[1] = u;
	CHECK(iot_stack_at(&st, 0) == &st.t[0] && iot_stack_at(&st, 99) ==
	      &st.t[0] && iot_stack_at(&st, 100) == &st.t[1], "table in force");
	memset(&dk, 0, sizeof(dk));
	snprintf(dk.name, sizeof(dk.name), "%s", "nullb0");
	dk.dev_major = 252;
	memset(&r, 0, sizeof(r));
	r.sector = 4096 + 8;
	r.bytes = 4096;
	r.issue_ns = 50;
	r.complete_ns = 60;
	CHECK(iot_stack_top(&st, &dk, &r, &name, &sec, &partial) &&
	      !strcmp(name, "vg0-data") && sec == 2056, "old table");
	r.issue_ns = 150;
	CHECK(iot_stack_top(&st, &dk, &r, &name, &sec, &partial) &&
	      !strcmp(name, "vg0-new") && sec == 8, "new table");
	iot_stack_free(&st);
}

/* iot_file_inflight() callback: the table of the file, copied */
static int infl_copy_cb(void *arg, const struct iot_inflight *t)
{
	struct iot_inflight *out = arg;

	out->nr = t->nr < 8 ? t->nr : 8;
	memcpy(out->recs, t->recs, out->nr * sizeof(*t->recs));
	return 0;
}

/*
 * A recording's in-flight table taken before its last pass: a request of
 * it whose completed record that pass writes is marked and left out of
 * the file's table (once in the file, as completed); one that only
 * shares its issue time, or was issued again (a new issue time), stays.
 */
static void test_infl_drop_done(void)
{
	struct iot_file_info *fi = calloc(1, sizeof(*fi));
	struct iotrace_record in[5], done[3], back[8];
	struct iot_inflight t, got = { .recs = back };
	char err[IOT_ERR_LEN] = "";
	struct iot_counts c = { 0 };
	unsigned int damaged = 0, i;
	struct sctx x = { 0 };
	struct iot_writer w;
	struct iot_disk d;
	char *buf = NULL;
	size_t sz = 0;
	FILE *fp = open_memstream(&buf, &sz);

	CHECK(fi && fp, "no memory");
	memset(&d, 0, sizeof(d));
	snprintf(d.name, sizeof(d.name), "s");
	d.nr_parts = 1;
	memset(in, 0, sizeof(in));
	for (i = 0; i < 5; i++) {
		in[i].issue_ns = 1000 + 10 * (i / 2);	/* 2 share each */
		in[i].sector = 8 * i;
		in[i].bytes = 4096;
		in[i].hwq = 1;
		in[i].tag = i;
	}
	memcpy(done, &in[1], 2 * sizeof(*in));	/* requests 1 and 2 end */
	memcpy(&done[2], &in[3], sizeof(*in));
	done[2].issue_ns += 5;			/* 3: issued again */
	for (i = 0; i < 3; i++) {
		done[i].seq = i;
		done[i].complete_ns = 5000 + i;
		done[i].rflags = IOTRACE_RF_COMPLETE;
	}
	memset(&t, 0, sizeof(t));
	t.recs = in;
	t.nr = 5;
	t.at_ns = 4000;
	iot_writer_start(&w, fp, sizeof(struct iotrace_record), &d, 1, 1, 2,
			 "rel", "host");
	w.pending = &t;
	iot_writer_chunk(&w, 0, 0, 0, done, 3);
	/* a marked request is not matched again */
	iot_inflight_drop_done(&t, done, 1);
	w.pending = NULL;
	iot_writer_inflight(&w, &t);
	c.written = 3;
	c.recorded = 3;
	c.completed = 3;
	iot_writer_finish(&w, &c, 3, 4);
	fclose(fp);
	for (i = 0; i < 5; i++)
		CHECK(!(in[i].rflags & IOTRACE_RF_COMPLETE) ==
		      (i != 1 && i != 2),
		      "request %u marked done: %u", i,
		      in[i].rflags & IOTRACE_RF_COMPLETE);
	CHECK(!iot_file_parse(buf, sz, fi, short_cb, &x, err, sizeof(err)) &&
	      x.n == 3, "the file: %s, %u records", err, x.n);
	CHECK(iot_file_inflight(buf, sz, fi, infl_copy_cb, &got,
				&damaged) >= 0 && !damaged,
	      "the file's in-flight table unreadable");
	CHECK(got.nr == 3 && back[0].tag == 0 && back[1].tag == 3 &&
	      back[2].tag == 4 && back[1].sector == 24,
	      "the file's in-flight table has %zu", got.nr);
	free(buf);
	iot_file_info_free(fi);
	free(fi);
	/*
	 * Two entries alike (issue time, queue, tag, sector): each
	 * completion takes one, the second the one left, as a marked entry
	 * is not matched again.
	 */
	memset(in, 0, sizeof(in));
	for (i = 0; i < 3; i++) {
		in[i].issue_ns = 2000;
		in[i].sector = i < 2 ? 64 : 72;
		in[i].hwq = 1;
	}
	memset(&t, 0, sizeof(t));
	t.recs = in;
	t.nr = 3;
	memcpy(done, in, sizeof(*in));
	done[0].rflags = IOTRACE_RF_COMPLETE;
	iot_inflight_drop_done(&t, done, 1);
	CHECK((in[0].rflags & IOTRACE_RF_COMPLETE) &&
	      !(in[1].rflags & IOTRACE_RF_COMPLETE),
	      "the first completion marked %u %u", in[0].rflags, in[1].rflags);
	iot_inflight_drop_done(&t, done, 1);
	CHECK((in[1].rflags & IOTRACE_RF_COMPLETE) &&
	      !(in[2].rflags & IOTRACE_RF_COMPLETE),
	      "the second completion marked %u %u", in[1].rflags,
	      in[2].rflags);
}

/* iot_file_inflight() callback: the table of the file, every entry checked */
struct infl_big {
	size_t nr, bad;
};

static int infl_big_cb(void *arg, const struct iot_inflight *t)
{
	struct infl_big *b = arg;
	size_t k;

	for (k = 0; k < t->nr; k++)
		b->bad += t->recs[k].sector != 8 * (b->nr + k) ||
			  t->recs[k].tag != (b->nr + k) % 4096 ||
			  t->recs[k].pid != 100 + (b->nr + k) % 7;
	b->nr += t->nr;
	return 0;
}

/*
 * A recording's in-flight chunk costs no memory of its own: a table of
 * 200,000 requests (28.8 MB) is written with less than 8 MB left to the
 * writer's process (RLIMIT_AS in a child; not under ASan, whose shadow
 * needs the address space), and the file gives every one of them back.
 */
static void test_infl_chunk_no_memory(void)
{
	enum { NR = 200000 };
	struct iot_file_info *fi = calloc(1, sizeof(*fi));
	struct iotrace_record *in = calloc(NR, sizeof(*in));
	char path[] = "/tmp/iotracectl-unit.XXXXXX", err[IOT_ERR_LEN] = "";
	struct infl_big got = { 0 };
	unsigned int damaged = 0;
	struct sctx x = { 0 };
	struct stat st;
	uint8_t *m;
	int fd, status;
	size_t k;
	pid_t pid;

	CHECK(fi && in, "no memory");
	for (k = 0; k < NR; k++) {
		in[k].issue_ns = 1000 + k;
		in[k].sector = 8 * k;
		in[k].bytes = 4096;
		in[k].tag = k % 4096;
		in[k].pid = 100 + k % 7;
	}
	fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp: %s", strerror(errno));
	unlink(path);
	fflush(NULL);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		struct iot_inflight t = { .recs = in, .nr = NR, .at_ns = 9 };
		struct iot_counts c = { 0 };
		struct iot_writer w;
		struct iot_disk d;
		FILE *fp = fdopen(fd, "w");
		int ret;

		memset(&d, 0, sizeof(d));
		snprintf(d.name, sizeof(d.name), "s");
		d.nr_parts = 1;
		if (!fp || iot_writer_start(&w, fp, sizeof(struct iotrace_record),
					    &d, 1, 1, 2, "rel", "host"))
			_exit(2);
#if !defined(__SANITIZE_ADDRESS__)
		{
			unsigned long pages = 0;
			FILE *sm = fopen("/proc/self/statm", "r");
			struct rlimit rl;

			if (!sm || fscanf(sm, "%lu", &pages) != 1)
				_exit(3);
			fclose(sm);
			rl.rlim_cur = pages * (rlim_t)sysconf(_SC_PAGESIZE) +
				      (8 << 20);
			rl.rlim_max = rl.rlim_cur;
			if (setrlimit(RLIMIT_AS, &rl))
				_exit(3);
		}
#endif
		ret = iot_writer_inflight(&w, &t);
		if (ret)
			fprintf(stderr, "iot_writer_inflight: %s\n",
				strerror(errno));
		if (!ret)
			ret = iot_writer_finish(&w, &c, 3, 4);
		_exit(ret || fclose(fp) ? 1 : 0);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      !WEXITSTATUS(status),
	      "the writer with 8 MB to spare: exit status %#x", status);
	CHECK(!fstat(fd, &st) && st.st_size > (off_t)NR * 144,
	      "the file has %lld bytes", (long long)st.st_size);
	m = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(m != MAP_FAILED, "mmap: %s", strerror(errno));
	CHECK(!iot_file_parse(m, st.st_size, fi, short_cb, &x, err,
			      sizeof(err)) && !x.n,
	      "the file: %s, %u records", err, x.n);
	CHECK(iot_file_inflight(m, st.st_size, fi, infl_big_cb, &got,
				&damaged) >= 0 && !damaged,
	      "the file's in-flight table unreadable (damaged %u)", damaged);
	CHECK(got.nr == NR && !got.bad,
	      "the file's in-flight table has %zu, %zu of them wrong",
	      got.nr, got.bad);
	munmap(m, st.st_size);
	close(fd);
	iot_file_info_free(fi);
	free(fi);
	free(in);
}

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
	{ "unit_numfmt_vs_snprintf", test_numfmt },
	{ "unit_output_record_schema", test_out_schema },
	{ "unit_output_netlink_objects_escaped", test_out_kv },
	{ "unit_output_json_strings_utf8", test_out_json_utf8 },
	{ "unit_output_text_names_escaped", test_text_str },
	{ "unit_output_keeps_the_first_write_errno", test_out_errno },
	{ "unit_percentiles_vs_sort", test_percentiles },
	{ "unit_pct_rank_exact", test_pct_rank },
	{ "unit_stats_total_latency_left_out", test_stats_total_latency },
	{ "unit_decoder_tables_every_entry", test_tables },
	{ "unit_decoder_fields", test_fields },
	{ "unit_decoder_short_and_random_input", test_decoder_lengths },
	{ "unit_status_strings_from_the_cache", test_status_cache },
	{ "unit_window_order_vs_definition", test_window },
	{ "unit_series_inflight_per_interval_constant_cost",
	  test_series_inflight },
	{ "unit_ring_snapshot_accounting", test_ring_snapshot },
	{ "unit_ring_corrupt_and_truncated", test_ring_corrupt },
	{ "unit_ring_v2_copy_unbounded_stride_no_overflow",
	  test_ring2_copy_unbounded_stride },
	{ "unit_file_format_roundtrip_and_refusals", test_file_format },
	{ "unit_file_major2_short_records_exact", test_file_short_records },
	{ "unit_crc32c_known_answers_hw_sw", test_crc32c },
	{ "unit_file_salvage_every_cut_and_damaged_chunks", test_file_salvage },
	{ "unit_file_cut_while_read_said_no_sigbus",
	  test_file_shrinks_while_read },
	{ "unit_file_triggers_cut_while_read_said_no_sigbus",
	  test_file_triggers_cut_while_read },
	{ "unit_file_huge_chunk_header_cut_while_read_no_sigbus",
	  test_file_huge_hdr_cut },
	{ "unit_file_big_comms_cut_while_read_no_sigbus",
	  test_file_big_comms_cut },
	{ "unit_file_big_inflight_cut_while_read_no_sigbus",
	  test_file_big_infl_cut },
	{ "unit_file_changed_in_place_read_fails_eio",
	  test_file_changed_in_place },
	{ "unit_file_resync_of_many_fake_chunks_linear",
	  test_file_resync_linear },
	{ "unit_file_inflight_fakes_checksummed_linear",
	  test_file_crc_budget_linear },
	{ "unit_file_parts_declared_cost_no_memory", test_file_many_parts },
	{ "unit_file_merge_of_many_parts_logarithmic",
	  test_file_merge_many_parts },
	{ "unit_file_resync_at_the_first_valid_chunk",
	  test_file_resync_earliest },
	{ "unit_file_triggers_those_the_parse_took",
	  test_file_triggers_past_damage },
	{ "unit_ring_concurrent_snapshot_no_torn", test_concurrent_snapshot },
	{ "unit_record_inflight_absent_device_not_said",
	  test_record_inflight_absent_device },
	{ "unit_record_concurrent_writer_exact_loss", test_concurrent_record },
	{ "unit_record_v2_concurrent_writer_exact_loss",
	  test_concurrent_record2 },
	{ "unit_record_v2_many_chunks_concurrent_exact_loss",
	  test_concurrent_record2_index },
	{ "unit_ring_v2_pass_index_vs_scan", test_ring_pass_index },
	{ "unit_ring_v2_gap_stepped_over_at_once", test_ring_gap_step },
	{ "unit_record_clear_mid_pass_once_and_exact",
	  test_record_clear_mid_pass },
	{ "unit_follow_clear_mid_poll_once", test_follow_clear_mid_poll },
	{ "unit_snapshot_clear_mid_read_old_generation", test_snapshot_clear_mid_read },
	{ "unit_record_inflight_completed_in_last_pass_once",
	  test_infl_drop_done },
	{ "unit_record_inflight_chunk_needs_no_memory",
	  test_infl_chunk_no_memory },
	{ "unit_filters", test_filters },
	{ "unit_trigger_reason_names_every_bit", test_trig_reason_names },
	{ "unit_watch_netlink_reply_result_and_message", test_watch_nl_reply },
	{ "unit_watch_refused_for_want_of_privilege", test_watch_refused },
	{ "unit_watch_episodes_and_their_holds", test_watch_episodes },
	{ "unit_netlink_refusal_hints", test_nl_hint },
	{ "unit_stack_tables_and_mapping", test_stack_map },
};

int main(int argc, char **argv)
{
	size_t i;
	int bad = 0;

	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		if (argc > 1 && strcmp(argv[1], tests[i].name))
			continue;
		failed_now = 0;
		tests[i].fn();
		if (failed_now)
			printf("FAIL %s: %s\n", tests[i].name, why);
		else
			printf("PASS %s\n", tests[i].name);
		fflush(stdout);
		bad |= failed_now;
	}
	return bad;
}
