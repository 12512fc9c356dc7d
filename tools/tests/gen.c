// SPDX-License-Identifier: GPL-2.0
/*
 * gen: writes the synthetic inputs of the host tests.
 *   gen ring OUT N NR_PARTS PART_RECORDS    ring snapshot, N records
 *   gen ring2 OUT N CPUS CHUNK CHUNKS [BAD] an ABI 2.0 ring (the module's
 *                                           layout) of CHUNKS chunks of
 *                                           CHUNK records, N records dealt
 *                                           to CPUS CPUs in turn (the
 *                                           oldest chunks recycled); BAD,
 *                                           a comma-separated list of
 *                                           record indexes: left busy
 *                                           (~seq), with a "j" before
 *                                           the index, published and then
 *                                           given another sequence number,
 *                                           or with an "i", published
 *                                           without a completion (in
 *                                           flight: no RF_COMPLETE);
 *                                           an "h": every chunk taken
 *                                           before it held (a hold)
 *   gen file OUT N NR_DISKS                 trace file (iot_writer)
 *   gen minor1 OUT N NR_DISKS               the same as file minor 1 wrote
 *                                           it (no submitters)
 *   gen names OUT N NR_DISKS                "file", but the host, kernel
 *                                           release and disk names hold
 *                                           characters JSON and CSV must
 *                                           escape: " \ , and a tab
 *   gen gaps OUT N NR_DISKS                 "file", but 5 records of disk
 *                                           0, part 0 lost between its
 *                                           first two chunks (and counted
 *                                           lost in the trailer)
 *   gen ops OUT N NR_DISKS                  "file", but the records' ops
 *                                           cycle through every operation
 *                                           and IOTRACE_OP_UNKNOWN
 *   gen trig OUT N NR_DISKS                 "file", with a trigger chunk
 *                                           per disk (a watch snapshot's)
 *   gen badcpu OUT N NR_DISKS               "file", but record 10 of disk
 *                                           0 completed on CPU 65535, of
 *                                           2 (a damaged record, its
 *                                           checksum right)
 *   gen mixed OUT N NR_DISKS                "file", but disk 0 writes one
 *                                           request in three sequentially
 *                                           from sector 0, disk 1 is 1 GiB
 *                                           and answers in 20-220 us (the
 *                                           kind of disks of make demo)
 *   gen edges OUT N NR_DISKS                "file", but in disk 0 record 3
 *                                           has no completion (in flight
 *                                           when copied), record 5 a
 *                                           latency of 0, and record 7 is
 *                                           a flush without a media
 *                                           address (sector ~0); records
 *                                           1, 5, 9, ... have no queue
 *                                           time
 *   gen big OUT N                           a large trace file as the
 *                                           recorder writes it: one disk,
 *                                           two CPUs' parts in completion
 *                                           order, chunks of 1024 records
 *                                           (the benchmark's input)
 *   gen bigissue OUT N                      the same records in issue
 *                                           order, one part: the readers'
 *                                           hardest reordering (the memory
 *                                           test's input)
 *   gen spread OUT N                        latencies 0-100 ms, times that
 *                                           tie, bursts, four CPUs' parts
 *                                           (the blktrace export's queue
 *                                           of events at its hardest)
 *   gen longlat OUT N LAT                   a request a millisecond, three
 *                                           in four in flight LAT to 2 x
 *                                           LAT ns (stats --interval's
 *                                           queue depth over hours)
 *   gen wide OUT N PARTS CHUNK [USED [ORDER]]
 *                                           one disk, the records dealt
 *                                           to PARTS parts in turn (to
 *                                           the first USED of them, the
 *                                           others empty), each written
 *                                           in chunks of CHUNK; ORDER of
 *                                           the chunks in the file: turn
 *                                           (as they fill, the default),
 *                                           parts (part 0's, then part
 *                                           1's, ...) or rparts (the
 *                                           last used part's first): the
 *                                           same records either way
 *   gen newer OUT N                         same records as "file OUT N 1"
 *                                           written as a future minor:
 *                                           bigger structures, records,
 *                                           chunk headers (checksummed),
 *                                           and an unknown chunk type
 *   gen major1 IN OUT                       the trace file IN (major 2) as
 *                                           major 1 minor 2 wrote it:
 *                                           every record 144 bytes, the
 *                                           1.x record then the submitter;
 *                                           checksums made again
 *   gen set IN OUT IDX FIELD=VALUE...       the trace file IN with the
 *                                           IDX-th record (from 0, in the
 *                                           file's order) changed, as OUT:
 *                                           FIELD one of seq, bytes,
 *                                           issue_ns, complete_ns, sector,
 *                                           queue_ns, rflags, op, pid; its
 *                                           chunk's checksum made again
 *   gen rename IN OUT OLD NEW               the trace file IN with every
 *                                           command name, disk name and
 *                                           host OLD named NEW (any bytes
 *                                           but NUL, cut to the field), as
 *                                           OUT; checksums made again
 *   gen debugfs DIR                         fake debugfs tree
 *   gen push RING N                         push N more records into the
 *                                           ring file RING in place (mmap),
 *                                           as the kernel would
 *   gen push RING N now                     the same, completed in the
 *                                           last N ms up to now
 *                                           (CLOCK_MONOTONIC, 1 ms apart)
 *   gen clear RING                          empty the ring file RING in
 *                                           place (mmap) as the module's
 *                                           clear does: the heads reset,
 *                                           then the generation moved on
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "synth.h"
#include "macros.h"

static int write_bytes(const char *path, const void *b, size_t n)
{
	FILE *fp = fopen(path, "wb");

	if (!fp || fwrite(b, 1, n, fp) != n || fclose(fp)) {
		perror(path);
		return 1;
	}
	return 0;
}

static int gen_ring(const char *out, uint64_t n, uint32_t parts,
		    uint32_t per, const char *name)
{
	struct iotrace_record r;
	size_t len;
	uint8_t *ring = synth_ring_new(parts, per, IOTRACE_RECORD_SIZE, name,
				       &len);
	uint64_t i;
	int ret;

	if (!ring)
		return 1;
	for (i = 0; i < n; i++) {
		synth_rec(&r, i);
		r.complete_cpu = i % parts;
		synth_ring_push(ring, i % parts, &r);
	}
	synth_ring_drop(ring, 0, 3);
	ret = write_bytes(out, ring, len);
	free(ring);
	return ret;
}

/*
 * Whether record @i is in the list @bad: 1 busy, 2 junk, 3 in flight, 4 a
 * hold before it, 0 not there.
 */
static int bad_rec(const char *bad, uint64_t i)
{
	const char *p = bad;
	char *end;

	while (p && *p) {
		int kind = *p == 'j' ? 2 : *p == 'i' ? 3 : *p == 'h' ? 4 : 1;
		const char *q = p + (kind > 1);
		uint64_t v = strtoull(q, &end, 0);

		if (end == q)
			break;
		if (v == i)
			return kind;
		p = *end == ',' ? end + 1 : NULL;
	}
	return 0;
}

static int gen_ring2(const char *out, uint64_t n, uint32_t cpus,
		     uint32_t chunk, uint32_t chunks, const char *bad)
{
	const iot_ring_hdr2 *h;
	struct iotrace_record r;
	size_t len;
	uint8_t *ring;
	uint64_t i;
	int ret;

	if (!cpus || chunk < 2 || (chunk & (chunk - 1)) || !chunks) {
		fprintf(stderr, "gen ring2: bad geometry\n");
		return 2;
	}
	ring = synth_ring2_new(cpus, chunk, chunks, "nullb0", &len);
	if (!ring)
		return 1;
	h = (const iot_ring_hdr2 *)ring;
	for (i = 0; i < n; i++) {
		const struct iotrace_cpu_hdr *c = (const void *)(ring +
			h->cpu_hdr_offset +
			(uint64_t)(i % cpus) * h->cpu_hdr_size);
		int b = bad_rec(bad, i);

		/* every chunk taken so far held (a trigger's hold) */
		if (b == 4) {
			((iot_ring_hdr2 *)ring)->hold_lo = 1;
			((iot_ring_hdr2 *)ring)->hold_hi = h->chunks_taken;
			b = 0;
		}
		synth_rec(&r, i);
		r.complete_cpu = i % cpus;
		if (b == 3) {
			r.rflags &= ~IOTRACE_RF_COMPLETE;
			r.complete_ns = 0;
		}
		if (synth_ring2_push(ring, i % cpus, &r, b != 1) || b != 2)
			continue;
		/* the slot just written: another number than its own */
		{
			const struct iotrace_chunk_hdr *k = (const void *)(ring +
				h->chunk_hdr_offset +
				(uint64_t)c->cur * h->chunk_hdr_size);
			uint32_t *sp = (uint32_t *)(ring + h->data_offset +
				c->cur * h->chunk_stride +
				(c->head - 1 - k->first_seq) * h->record_size);

			*sp += 0x10000;
		}
	}
	ret = write_bytes(out, ring, len);
	free(ring);
	return ret;
}

/* a ring file mapped to be changed in place; NULL (said) on failure */
static uint8_t *map_ring(const char *path, struct stat *st)
{
	uint8_t *ring;
	int fd = open(path, O_RDWR);

	if (fd < 0 || fstat(fd, st)) {
		perror(path);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	ring = mmap(NULL, st->st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    0);
	close(fd);
	if (ring == MAP_FAILED) {
		perror(path);
		return NULL;
	}
	return ring;
}

/* N more records into a ring file, in place, one part after the other */
static int gen_push(const char *path, uint64_t n, int now)
{
	struct timespec ts;
	uint64_t t_now;
	struct iotrace_ring_hdr *h;
	struct iotrace_record r;
	struct stat st;
	uint8_t *ring = map_ring(path, &st);
	uint64_t i, base = 0;
	uint32_t p;

	if (!ring)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t_now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	h = (struct iotrace_ring_hdr *)ring;
	for (p = 0; p < h->nr_parts; p++)
		base += ((struct iotrace_part_hdr *)(ring + h->part_hdr_offset +
			 (uint64_t)p * h->part_hdr_size))->head;
	for (i = 0; i < n; i++) {
		synth_rec(&r, base + i);
		if (now) {	/* the last n ms */
			uint64_t lat = r.complete_ns - r.issue_ns;

			r.complete_ns = t_now - (n - 1 - i) * 1000000ull;
			r.issue_ns = r.complete_ns - lat;
		} else {
			r.complete_ns += 1000000000ull;	/* after what is there */
			r.issue_ns += 1000000000ull;
		}
		r.complete_cpu = (base + i) % h->nr_parts;
		synth_ring_push(ring, r.complete_cpu, &r);
	}
	munmap(ring, st.st_size);
	return 0;
}

/* empty a ring file in place, as a clear (a 1.x or a 2.0 ring) */
static int gen_clear(const char *path)
{
	struct stat st;
	uint8_t *ring = map_ring(path, &st);

	if (!ring)
		return 1;
	synth_ring_clear(ring);
	munmap(ring, st.st_size);
	return 0;
}

/* the names of synth_rec()'s pids (4242 has none) */
static const struct iotrace_file_comm comms[3] = {
	{ .pid = 4000, .comm = "fio" },
	{ .pid = 4001, .comm = "dd" },
	{ .pid = 4002, .comm = "my,app \"x\"" },
};

/*
 * The file at @path as a writer of file minor @minor (0 or 1) wrote it:
 * no checksums (header flags 0, chunk headers of 32 bytes).
 */
static int downgrade(const char *path, uint16_t minor)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *b = malloc(1 << 24), *o = malloc(1 << 24);
	struct iotrace_file_hdr *h = (void *)b;
	size_t n, off, k;
	int ret = 1;

	if (!fp || !b || !o)
		goto out;
	n = fread(b, 1, 1 << 24, fp);
	if (n < sizeof(*h) || n == 1 << 24)
		goto out;
	h->major = 1;
	h->minor = minor;
	h->flags = 0;
	memcpy(o, b, h->hdr_size);
	k = h->hdr_size;
	for (off = h->hdr_size; off + sizeof(struct iotrace_file_chunk) <= n;) {
		struct iotrace_file_chunk ch;

		memcpy(&ch, b + off, sizeof(ch));
		ch.hdr_size = IOTRACE_FILE_CHUNK_SIZE_V0;
		memcpy(o + k, &ch, IOTRACE_FILE_CHUNK_SIZE_V0);
		memcpy(o + k + IOTRACE_FILE_CHUNK_SIZE_V0,
		       b + off + sizeof(ch), ch.payload_size);
		k += IOTRACE_FILE_CHUNK_SIZE_V0 + ch.payload_size;
		off += sizeof(ch) + ch.payload_size;
	}
	ret = write_bytes(path, o, k);
out:
	if (fp)
		fclose(fp);
	free(b);
	free(o);
	return ret;
}

/*
 * A trace file of @n synth_rec() records per disk on @nd disks.  @minor1:
 * as iotracectl wrote them before file minor 2 (128-byte 1.x records, no
 * submitter, no command names): the same requests without pid and cgroup.
 * @kind: 0 plain, 1 "gaps", 2 "names", 3 "ops", 4 "trig", 5 "badcpu",
 *	6 "edges", 7 "mixed"
 *	(see the top of the file).
 */
static int gen_file(const char *out, uint64_t n, unsigned int nd,
		    int minor1, int kind)
{
	uint32_t rs = minor1 ? IOTRACE_RECORD_SIZE :
		sizeof(struct iotrace_record);
	static uint8_t r[2][64 * sizeof(struct iotrace_record)];
	struct iot_disk d[4];
	struct iot_counts c[4];
	struct iot_writer w;
	FILE *fp = fopen(out, "wb");
	uint64_t i, seq[4][2] = { { 0 } };
	uint16_t minor = 1;
	unsigned int k;

	if (!fp || nd > 4)
		return 1;
	memset(d, 0, sizeof(d));
	memset(c, 0, sizeof(c));
	for (k = 0; k < nd; k++) {
		snprintf(d[k].name, sizeof(d[k].name),
			 kind == 2 ? "d\"i\\s,k\t%u" : "disk%u", k);
		d[k].dev_major = 259;
		d[k].dev_minor = k;
		d[k].lbs = 512;
		d[k].nr_parts = 2;
		d[k].part_records = 1024;
	}
	iot_writer_start(&w, fp, rs, d, nd, 1000000000ull,
			 1700000000000000000ull,
			 kind == 2 ? "6.12.0-\"test\"\t\\" : "6.12.0-test",
			 kind == 2 ? "test\\host,\"x\"" : "testhost");
	if (!minor1)
		iot_writer_comms(&w, comms, 3);
	for (k = 0; kind == 4 && k < nd; k++) {
		/* a trigger chunk per disk, as watch's snapshots have */
		struct iotrace_file_trigger t;
		struct iotrace_file_chunk ch;

		memset(&t, 0, sizeof(t));
		memset(&ch, 0, sizeof(ch));
		t.reason = 1u << k;
		t.cpu = k;
		t.mono_ns = 1000200000ull + k;
		t.real_ns = 1700000000200000000ull + k;
		t.lat_ns[k % 5] = 5000000;
		t.errnos[0] = 5;
		snprintf(t.model, sizeof(t.model), "QEMU NVMe Ctrl");
		snprintf(t.serial, sizeof(t.serial), "iotrace%u", k);
		ch.magic = IOTRACE_CHUNK_TRIGGER;
		ch.payload_size = sizeof(t);
		ch.disk = (uint16_t)k;
		iot_writer_other(&w, &ch, &t);
	}
	for (k = 0; k < nd; k++) {
		for (i = 0; i < n; i += 64) {
			unsigned int m = n - i < 64 ? n - i : 64, j, p;
			unsigned int cnt[2] = { 0, 0 };

			for (j = 0; j < m; j++) {
				struct iotrace_record x;

				synth_rec(&x, i + j + k * 7);
				/* "ops": every operation, and one unknown */
				if (kind == 3)
					x.op = (i + j) % 15 == 14 ?
					       IOTRACE_OP_UNKNOWN : (i + j) % 15;
				p = (i + j) % 2;
				x.complete_cpu = p;
				if (kind == 5 && !k && i + j == 10)
					x.complete_cpu = 65535;
				if (kind == 6 && !k && i + j == 3) {
					x.rflags &= ~IOTRACE_RF_COMPLETE;
					x.complete_ns = 0;
				}
				if (kind == 6 && !k && i + j == 5)
					x.complete_ns = x.issue_ns;
				/* and every fourth without a queue time */
				if (kind == 6 && !k && (i + j) % 4 == 1)
					x.rflags &= ~IOTRACE_RF_QUEUE_VALID;
				if (kind == 6 && !k && i + j == 7) {
					x.op = IOTRACE_OP_FLUSH;
					x.sector = UINT64_MAX;
					x.bytes = 0;
				}
				if (kind == 7 && !k && (i + j) % 3 == 0) {
					x.op = IOTRACE_OP_WRITE;
					x.bytes = 65536;
					x.sector = (i + j) / 3 * 128;
				}
				if (kind == 7 && k == 1) {
					x.sector %= 1u << 21;
					x.complete_ns = x.issue_ns + 20000 +
						(x.sector * 7919) % 200000;
				}
				x.seq = (uint32_t)seq[k][p]++;
				memcpy(r[p] + (size_t)cnt[p]++ * rs, &x, rs);
			}
			for (p = 0; p < 2; p++)
				iot_writer_chunk(&w, k, p,
						 seq[k][p] - cnt[p], r[p],
						 cnt[p]);
			c[k].written += m;
			/* overwritten before the recorder copied them */
			if (kind == 1 && !k && !i)
				seq[k][0] += 5;
		}
		c[k].recorded = c[k].written + 5;
		c[k].overwritten = 5;
		c[k].lost = 5;
		c[k].dropped = 2;
		c[k].completed = c[k].recorded + 2;
	}
	iot_writer_finish(&w, c, 2000000000ull, 1700000001000000000ull);
	if (fclose(fp))
		return 1;
	return minor1 ? downgrade(out, minor) : 0;
}

enum wide_order { WIDE_TURN, WIDE_PARTS, WIDE_RPARTS };

/*
 * Record @i of gen_wide(), dealt to part @i % @used: into the part's
 * chunk (@r, @chunk records a part, @cnt of them filled), written when
 * full.
 */
static void wide_rec(struct iot_writer *w, struct iotrace_record *r,
		     uint32_t *cnt, unsigned int chunk, unsigned int used,
		     uint64_t i)
{
	unsigned int p = i % used;
	struct iotrace_record *x = &r[(size_t)p * chunk + cnt[p]];

	synth_rec(x, i);
	x->complete_cpu = p;
	x->seq = (uint32_t)(i / used);
	if (++cnt[p] == chunk) {
		iot_writer_chunk(w, 0, p, x->seq + 1 - chunk,
				 &r[(size_t)p * chunk], chunk);
		cnt[p] = 0;
	}
}

/* The last, shorter, chunk of part @p, if it has one (of @n records). */
static void wide_rest(struct iot_writer *w, struct iotrace_record *r,
		      uint32_t *cnt, unsigned int chunk, unsigned int used,
		      uint64_t n, unsigned int p)
{
	if (!cnt[p])
		return;
	iot_writer_chunk(w, 0, p, (n - 1 - p) / used + 1 - cnt[p],
			 &r[(size_t)p * chunk], cnt[p]);
	cnt[p] = 0;
}

/*
 * One disk of @parts parts, @n records dealt to the first @used of them in
 * turn, each part's written in chunks of @chunk records (the last ones
 * shorter): chunks bigger than the readers' buffers, more parts than they
 * give a whole buffer each, or many parts of which few have chunks.  The
 * chunks go to the file as they fill (@order WIDE_TURN), or a part's after
 * the previous part's (WIDE_PARTS; WIDE_RPARTS: the last used part's
 * first): the merge's scan then passes a whole part's chunks before it
 * finds the next part's, more than its queues hold (its fallback).
 */
static int gen_wide(const char *out, uint64_t n, unsigned int parts,
		    unsigned int chunk, unsigned int used,
		    enum wide_order order)
{
	struct iotrace_record *r;
	uint32_t *cnt;
	struct iot_disk d;
	struct iot_counts c;
	struct iot_writer w;
	FILE *fp;
	uint64_t i;
	unsigned int p, k;
	int ret = 1;

	if (!parts || !chunk || parts > 65535 || !used || used > parts)
		return 1;
	r = calloc((size_t)parts * chunk, sizeof(*r));
	cnt = calloc(parts, sizeof(*cnt));
	fp = fopen(out, "wb");
	if (!r || !cnt || !fp)
		goto out;
	memset(&d, 0, sizeof(d));
	memset(&c, 0, sizeof(c));
	snprintf(d.name, sizeof(d.name), "wide0");
	d.nr_parts = parts;
	d.part_records = chunk;
	iot_writer_start(&w, fp, sizeof(*r), &d, 1, 0, 0, "wide", "wide");
	if (order == WIDE_TURN) {
		for (i = 0; i < n; i++)
			wide_rec(&w, r, cnt, chunk, used, i);
		for (p = 0; p < parts; p++)
			wide_rest(&w, r, cnt, chunk, used, n, p);
	} else {
		for (k = 0; k < used; k++) {
			p = order == WIDE_RPARTS ? used - 1 - k : k;
			for (i = p; i < n; i += used)
				wide_rec(&w, r, cnt, chunk, used, i);
			wide_rest(&w, r, cnt, chunk, used, n, p);
		}
	}
	c.written = n;
	c.recorded = n;
	c.completed = n;
	iot_writer_finish(&w, &c, 0, 0);
	ret = w.error ? 1 : 0;
out:
	if (fp && fclose(fp))
		ret = 1;
	free(r);
	free(cnt);
	return ret;
}

#define NEW_REC 192

/* A chunk of gen_newer(): its 48-byte header, checksummed, and payload. */
static void newer_chunk(FILE *fp, uint8_t *ch, size_t hs, const void *p,
			size_t n)
{
	struct iotrace_file_chunk *c = (void *)ch;

	c->crc = 0;
	c->crc = iot_file_chunk_crc(ch, hs, p, n);
	fwrite(ch, hs, 1, fp);
	fwrite(p, n, 1, fp);
}

/* What a hypothetical writer of the next minor would produce. */
static int gen_newer(const char *out, uint64_t n)
{
	FILE *fp = fopen(out, "wb");
	uint8_t hdr[sizeof(struct iotrace_file_hdr) + 64] = { 0 };
	uint8_t disk[sizeof(struct iotrace_file_disk) + 32] = { 0 };
	struct iotrace_file_hdr *h = (void *)hdr;
	struct iotrace_file_disk *d = (void *)disk;
	uint8_t ch[sizeof(struct iotrace_file_chunk) + 8] = { 0 };
	struct iotrace_file_chunk *c = (void *)ch;
	uint8_t tr[sizeof(struct iotrace_file_trailer) + 16] = { 0 };
	uint8_t cnt[sizeof(struct iotrace_file_counts) + 16] = { 0 };
	struct iotrace_file_trailer *t = (void *)tr;
	struct iotrace_file_counts *fc = (void *)cnt;
	uint8_t rec[NEW_REC], xtra[16] = "future chunk!!!";
	uint8_t e[3][sizeof(comms[0]) + 8];
	uint8_t tc[sizeof(tr) + sizeof(cnt)];
	uint64_t i, seq[2] = { 0, 0 };

	if (!fp)
		return 1;
	memcpy(h->magic, IOTRACE_FILE_MAGIC, IOTRACE_FILE_MAGIC_LEN);
	h->major = IOTRACE_FILE_MAJOR;
	h->minor = IOTRACE_FILE_MINOR + 1;
	h->disk_offset = sizeof(hdr);
	h->disk_size = sizeof(disk);
	h->nr_disks = 1;
	h->hdr_size = sizeof(hdr) + sizeof(disk);
	h->record_size = NEW_REC;
	h->flags = IOTRACE_FILE_CRC32C;
	h->anchor_mono_ns = 1000000000ull;
	h->anchor_real_ns = 1700000000000000000ull;
	snprintf(h->release, sizeof(h->release), "%s", "6.12.0-test");
	snprintf(h->host, sizeof(h->host), "%s", "testhost");
	memset(hdr + sizeof(*h), 0xee, 64);
	snprintf(d->name, sizeof(d->name), "%s", "disk0");
	d->dev_major = 259;
	d->logical_block_size = 512;
	d->nr_parts = 2;
	d->part_records = 1024;
	memset(disk + sizeof(*d), 0xdd, 32);
	fwrite(hdr, sizeof(hdr), 1, fp);
	fwrite(disk, sizeof(disk), 1, fp);
	/* an unknown chunk first: readers must skip it */
	c->magic = 0x41525458;	/* "XTRA" */
	c->hdr_size = sizeof(ch);
	c->payload_size = sizeof(xtra);
	newer_chunk(fp, ch, sizeof(ch), xtra, sizeof(xtra));
	/* command names in entries grown by 8 bytes */
	memset(ch, 0, sizeof(ch));
	c->magic = IOTRACE_CHUNK_COMMS;
	c->hdr_size = sizeof(ch);
	c->payload_size = 3 * (sizeof(comms[0]) + 8);
	c->nr_records = 3;
	memset(e, 0xcc, sizeof(e));
	for (i = 0; i < 3; i++)
		memcpy(e[i], &comms[i], sizeof(comms[0]));
	newer_chunk(fp, ch, sizeof(ch), e, sizeof(e));
	/* one record per chunk, same records and order as gen_file() */
	for (i = 0; i < n; i++) {
		struct iotrace_record x;
		unsigned int p = i % 2;

		synth_rec(&x, i);
		x.complete_cpu = p;
		x.seq = (uint32_t)seq[p];
		/* the major 2 layout, then a future minor's fields */
		memset(rec, 0xab, sizeof(rec));
		memcpy(rec, &x, IOTRACE_FILE_REC_HEAD);
		memcpy(rec + IOTRACE_FILE_REC_EXT_OFF, &x.pid,
		       sizeof(struct iotrace_file_rec_ext));
		memcpy(rec + IOTRACE_FILE_REC_CMD_OFF, x.cmd, IOTRACE_CMD_LEN);
		memset(ch, 0, sizeof(ch));
		c->magic = IOTRACE_CHUNK_RECORDS;
		c->hdr_size = sizeof(ch);
		c->record_size = NEW_REC;
		c->payload_size = NEW_REC;
		c->disk = 0;
		c->part = p;
		c->nr_records = 1;
		c->first_seq = seq[p]++;
		newer_chunk(fp, ch, sizeof(ch), rec, sizeof(rec));
	}
	memset(ch, 0, sizeof(ch));
	c->magic = IOTRACE_CHUNK_TRAILER;
	c->hdr_size = sizeof(ch);
	c->payload_size = sizeof(tr) + sizeof(cnt);
	t->end_mono_ns = 2000000000ull;
	t->nr_disks = 1;
	t->counts_size = sizeof(cnt);
	t->counts_offset = sizeof(tr);
	fc->written = n;
	fc->recorded = n + 5;
	fc->overwritten = 5;
	fc->lost = 5;
	fc->dropped = 2;
	fc->completed = n + 7;
	memcpy(tc, tr, sizeof(tr));
	memcpy(tc + sizeof(tr), cnt, sizeof(cnt));
	newer_chunk(fp, ch, sizeof(ch), tc, sizeof(tc));
	return fclose(fp) ? 1 : 0;
}

static void chunk_crc(const struct iotrace_file_hdr *h, uint8_t *c);

/* Major 2 record @p (@rs bytes) at @o as major 1 minor 2 has it. */
static void major1_rec(uint8_t *o, const uint8_t *p, uint32_t rs)
{
	uint8_t full[IOTRACE_FILE_RECORD_SIZE] = { 0 };

	memcpy(full, p, rs < sizeof(full) ? rs : sizeof(full));
	memcpy(o, full, IOTRACE_FILE_REC_HEAD);
	memcpy(o + IOTRACE_FILE_REC_HEAD, full + IOTRACE_FILE_REC_CMD_OFF,
	       IOTRACE_CMD_LEN);
	memcpy(o + IOTRACE_RECORD_SIZE, full + IOTRACE_FILE_REC_EXT_OFF,
	       sizeof(struct iotrace_file_rec_ext));
}

/* gen major1: a major 2 file of 144-byte records rewritten as major 1 */
static int gen_major1(const char *in, const char *out)
{
	const struct iotrace_file_chunk *k;
	struct iotrace_file_chunk c;
	struct iotrace_file_hdr h;
	char err[256];
	uint8_t *b, *o = NULL, *p;
	size_t n, off, at;
	uint32_t i, rs;
	int ret = 1;

	if (iot_read_all(in, &b, &n, err, sizeof(err))) {
		fprintf(stderr, "gen major1: %s\n", err);
		return 1;
	}
	if (n >= sizeof(h))
		memcpy(&h, b, sizeof(h));
	if (n < sizeof(h) || h.major != 2 ||
	    h.record_size != IOTRACE_FILE_RECORD_SIZE) {
		fprintf(stderr, "gen major1: %s: not a major 2 file of %u-byte records\n",
			in, IOTRACE_FILE_RECORD_SIZE);
		goto out;
	}
	/* records never grow by more than 144 / 64 */
	o = malloc(n * 3);
	if (!o)
		goto out;
	h.major = 1;
	h.minor = 2;
	memcpy(o, b, h.hdr_size);
	memcpy(o, &h, sizeof(h));
	at = h.hdr_size;
	for (off = h.hdr_size; off + sizeof(c) <= n;
	     off += k->hdr_size + k->payload_size) {
		k = (const void *)(b + off);
		memcpy(&c, k, sizeof(c));
		if (c.hdr_size < sizeof(c) || c.hdr_size > n - off ||
		    c.payload_size > n - off - c.hdr_size) {
			fprintf(stderr, "gen major1: %s: a chunk at %zu does not fit\n",
				in, off);
			goto out;
		}
		p = o + at + c.hdr_size;
		if (c.magic == IOTRACE_CHUNK_RECORDS) {
			rs = c.record_size;
			for (i = 0; i < c.nr_records; i++)
				major1_rec(p + (size_t)i * IOTRACE_FILE_RECORD_SIZE,
					   b + off + c.hdr_size +
					   (size_t)i * rs, rs);
			c.payload_size = (uint64_t)c.nr_records *
				IOTRACE_FILE_RECORD_SIZE;
			c.record_size = 0;
		} else if (c.magic == IOTRACE_CHUNK_INFLIGHT) {
			struct iotrace_file_inflight f;

			memcpy(&f, b + off + c.hdr_size, sizeof(f));
			memcpy(p, b + off + c.hdr_size, c.payload_size);
			for (i = 0; i < c.nr_records; i++)
				major1_rec(p + f.rec_offset +
					   (size_t)i * IOTRACE_FILE_RECORD_SIZE,
					   b + off + c.hdr_size + f.rec_offset +
					   (size_t)i * IOTRACE_FILE_RECORD_SIZE,
					   IOTRACE_FILE_RECORD_SIZE);
		} else {
			memcpy(p, b + off + c.hdr_size, c.payload_size);
		}
		memcpy(o + at, k, c.hdr_size);
		memcpy(o + at, &c, sizeof(c));
		chunk_crc(&h, o + at);
		at += c.hdr_size + c.payload_size;
	}
	ret = write_bytes(out, o, at);
out:
	free(o);
	free(b);
	return ret;
}

/* the fields gen set changes: name, offset and size in the record */
static const struct {
	const char *name;
	size_t off, size;
} set_fields[] = {
#define SF(f)	{ #f, offsetof(struct iotrace_record, f), \
		  sizeof(((struct iotrace_record *)0)->f) }
	SF(seq), SF(bytes), SF(issue_ns), SF(complete_ns), SF(sector),
	SF(queue_ns), SF(rflags), SF(op), SF(pid),
#undef SF
};

/* a chunk's checksum made again, when the file has them */
static void chunk_crc(const struct iotrace_file_hdr *h, uint8_t *c)
{
	struct iotrace_file_chunk *k = (void *)c;

	if (!(h->flags & IOTRACE_FILE_CRC32C))
		return;
	k->crc = 0;
	k->crc = iot_crc32c(0, c, k->hdr_size + k->payload_size);
}

/* the chunks of the trace file @b (@n bytes): calls @fn on each */
static int walk_chunks(uint8_t *b, size_t n,
		       int (*fn)(const struct iotrace_file_hdr *h, uint8_t *c,
				 void *arg), void *arg)
{
	const struct iotrace_file_hdr *h = (const void *)b;
	size_t off;
	int ret;

	if (n < sizeof(*h))
		return -1;
	for (off = h->hdr_size; off + sizeof(struct iotrace_file_chunk) <= n;) {
		const struct iotrace_file_chunk *k = (const void *)(b + off);

		if (off + k->hdr_size + k->payload_size > n)
			return -1;
		ret = fn(h, b + off, arg);
		if (ret)
			return ret;
		off += k->hdr_size + k->payload_size;
	}
	return 0;
}

struct set_ctx {
	uint64_t idx, seen;
	char **sets;
	int nsets;
};

static int set_chunk(const struct iotrace_file_hdr *h, uint8_t *c, void *arg)
{
	const struct iotrace_file_chunk *k = (const void *)c;
	struct set_ctx *x = arg;
	uint32_t rs;
	uint8_t *r;
	size_t off;
	int i;

	if (k->magic != IOTRACE_CHUNK_RECORDS)
		return 0;
	if (x->idx >= x->seen + k->nr_records) {
		x->seen += k->nr_records;
		return 0;
	}
	rs = h->major >= 2 ? k->record_size : h->record_size;
	r = c + k->hdr_size + (x->idx - x->seen) * rs;
	for (i = 0; i < x->nsets; i++) {
		const char *eq = strchr(x->sets[i], '=');
		uint64_t v;
		size_t f;

		for (f = 0; eq && f < ARRAY_SIZE(set_fields); f++)
			if (strlen(set_fields[f].name) ==
			    (size_t)(eq - x->sets[i]) &&
			    !strncmp(set_fields[f].name, x->sets[i],
				     eq - x->sets[i]))
				break;
		if (!eq || f == ARRAY_SIZE(set_fields)) {
			fprintf(stderr, "gen set: %s: no such field\n",
				x->sets[i]);
			return -1;
		}
		v = strtoull(eq + 1, NULL, 0);
		off = set_fields[f].off;
		/* major 2: the submitter after the 1.x record's first bytes */
		if (h->major >= 2 && off >= IOTRACE_RECORD_SIZE)
			off += IOTRACE_FILE_REC_EXT_OFF - IOTRACE_RECORD_SIZE;
		if (off + set_fields[f].size > rs) {
			fprintf(stderr, "gen set: %s: not in the chunk's %u-byte records\n",
				x->sets[i], rs);
			return -1;
		}
		memcpy(r + off, &v, set_fields[f].size);
	}
	chunk_crc(h, c);
	return 1;
}

static int gen_set(const char *in, const char *out, uint64_t idx,
		   char **sets, int nsets)
{
	struct set_ctx x = { .idx = idx, .sets = sets, .nsets = nsets };
	char err[256];
	uint8_t *b;
	size_t n;
	int ret;

	if (iot_read_all(in, &b, &n, err, sizeof(err))) {
		fprintf(stderr, "gen set: %s\n", err);
		return 1;
	}
	ret = walk_chunks(b, n, set_chunk, &x);
	if (ret == 1) {
		ret = write_bytes(out, b, n);
	} else {
		if (!ret)
			fprintf(stderr, "gen set: %s holds no record %llu\n",
				in, (unsigned long long)idx);
		ret = 1;
	}
	free(b);
	return ret;
}

struct rename_ctx {
	const char *old, *new;
	int n;
};

/* @f (@len bytes, NUL-terminated or full) named @x->new if it is @x->old */
static int rename_field(char *f, size_t len, size_t room,
			struct rename_ctx *x)
{
	if (strnlen(f, len) != strlen(x->old) ||
	    memcmp(f, x->old, strlen(x->old)))
		return 0;
	memset(f, 0, len);
	memcpy(f, x->new, strlen(x->new) < room ? strlen(x->new) : room);
	x->n++;
	return 1;
}

static int rename_chunk(const struct iotrace_file_hdr *h, uint8_t *c,
			void *arg)
{
	const struct iotrace_file_chunk *k = (const void *)c;
	struct iotrace_file_comm *e;
	int hit = 0;
	uint32_t i;

	if (k->magic != IOTRACE_CHUNK_COMMS || !k->nr_records)
		return 0;
	for (i = 0; i < k->nr_records; i++) {
		e = (void *)(c + k->hdr_size +
			     i * (k->payload_size / k->nr_records));
		hit |= rename_field(e->comm, sizeof(e->comm), sizeof(e->comm),
				    arg);
	}
	if (hit)
		chunk_crc(h, c);
	return 0;
}

static int gen_rename(const char *in, const char *out, const char *old,
		      const char *new)
{
	struct rename_ctx x = { .old = old, .new = new };
	struct iotrace_file_hdr *h;
	char err[256];
	uint8_t *b;
	size_t n;
	uint32_t i;
	int ret = 1;

	if (iot_read_all(in, &b, &n, err, sizeof(err))) {
		fprintf(stderr, "gen rename: %s\n", err);
		return 1;
	}
	h = (void *)b;
	if (n < sizeof(*h) || h->disk_offset + (uint64_t)h->nr_disks *
	    h->disk_size > n)
		goto out;
	rename_field(h->host, sizeof(h->host), sizeof(h->host) - 1, &x);
	for (i = 0; i < h->nr_disks; i++) {
		struct iotrace_file_disk *d = (void *)(b + h->disk_offset +
						       i * h->disk_size);

		rename_field(d->name, sizeof(d->name), sizeof(d->name) - 1,
			     &x);
	}
	if (walk_chunks(b, n, rename_chunk, &x))
		goto out;
	if (!x.n)
		fprintf(stderr, "gen rename: %s names nothing %s\n", in, old);
	else
		ret = write_bytes(out, b, n);
out:
	free(b);
	return ret;
}

static int put(const char *dir, const char *disk, const char *file,
	       const char *text)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s/%s", dir, disk, file);
	return write_bytes(p, text, strlen(text));
}

static int gen_debugfs(const char *dir)
{
	char p[512];
	int ret = 0;

	mkdir(dir, 0755);
	snprintf(p, sizeof(p), "%s/nullb0", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/nullb0/ring", dir);
	ret |= gen_ring(p, 300, 2, 128, "nullb0");
	ret |= put(dir, "nullb0", "stats",
		   "recorded: 300\npresent: 256\noverwritten: 44\ndropped: 3\ninflight: 3\nbuf_size: 40960\npart_records: 128\nnr_parts: 2\nenabled: 1\ncompleted: 303\nmem_ring: 40960\nmem_slots: 49728\nmem_metrics: 9280\n");
	/* columns in another order than usual, rows not sorted */
	ret |= put(dir, "nullb0", "inflight",
		   "OP SECTOR BYTES ISSUE_NS AGE_US HWQ TAG CPU\n"
		   "write 2048 4096 5000300 120.5 1 7 1\n"
		   "read 0 4096 5000100 320.0 0 3 0\n"
		   "flush 0 0 5000200 220.2 0 9 0\n");
	ret |= put(dir, "nullb0", "enable", "");
	ret |= put(dir, "nullb0", "clear", "");
	snprintf(p, sizeof(p), "%s/sda", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/sda/ring", dir);
	ret |= gen_ring(p, 10, 1, 16, "sda");
	ret |= put(dir, "sda", "stats", "recorded: 10\nenabled: 0\n");
	ret |= put(dir, "sda", "inflight", "ISSUE_NS AGE_US OP SECTOR BYTES HWQ TAG CPU\n");
	ret |= put(dir, "sda", "enable", "");
	return ret;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "ring"))
		return gen_ring(argv[2], strtoull(argv[3], NULL, 0),
				strtoul(argv[4], NULL, 0),
				strtoul(argv[5], NULL, 0), "nullb0");
	if ((argc == 7 || argc == 8) && !strcmp(argv[1], "ring2"))
		return gen_ring2(argv[2], strtoull(argv[3], NULL, 0),
				 strtoul(argv[4], NULL, 0),
				 strtoul(argv[5], NULL, 0),
				 strtoul(argv[6], NULL, 0),
				 argc == 8 ? argv[7] : NULL);
	if (argc == 5 && !strcmp(argv[1], "file"))
		return gen_file(argv[2], strtoull(argv[3], NULL, 0),
				strtoul(argv[4], NULL, 0), 0, 0);
	if (argc == 5 && !strcmp(argv[1], "minor1"))
		return gen_file(argv[2], strtoull(argv[3], NULL, 0),
				strtoul(argv[4], NULL, 0), 1, 0);
	if (argc == 5 && !strcmp(argv[1], "names"))
		return gen_file(argv[2], strtoull(argv[3], NULL, 0),
				strtoul(argv[4], NULL, 0), 0, 2);
	if (argc == 5 && !strcmp(argv[1], "ops"))
		return gen_file(argv[2], strtoull(argv[3], NULL, 0),
				strtoul(argv[4], NULL, 0), 0, 3);
	if (argc == 5 && !strcmp(argv[1], "trig"))
		return gen_file(argv[2], strtoull(argv[3], NULL, 0),
				strtoul(argv[4], NULL, 0), 0, 4);
	if (argc == 5 && !strcmp(argv[1], "badcpu"))
		return gen_file(argv[2], strtoull(argv[3], NULL, 0),
				strtoul(argv[4], NULL, 0), 0, 5);
	if (argc == 5 && !strcmp(argv[1], "mixed"))
		return gen_file(argv[2], strtoull(argv[3], NULL, 0),
				strtoul(argv[4], NULL, 0), 0, 7);
	if (argc == 5 && !strcmp(argv[1], "edges"))
		return gen_file(argv[2], strtoull(argv[3], NULL, 0),
				strtoul(argv[4], NULL, 0), 0, 6);
	if (argc == 5 && !strcmp(argv[1], "gaps"))
		return gen_file(argv[2], strtoull(argv[3], NULL, 0),
				strtoul(argv[4], NULL, 0), 0, 1);
	if (argc == 4 && !strcmp(argv[1], "big"))
		return synth_write_big(argv[2], strtoull(argv[3], NULL, 0),
				       0) ? 1 : 0;
	if (argc == 4 && !strcmp(argv[1], "bigissue"))
		return synth_write_big(argv[2], strtoull(argv[3], NULL, 0),
				       1) ? 1 : 0;
	if (argc == 4 && !strcmp(argv[1], "spread"))
		return synth_write_spread(argv[2],
					  strtoull(argv[3], NULL, 0)) ? 1 : 0;
	if (argc == 5 && !strcmp(argv[1], "longlat"))
		return synth_write_longlat(argv[2],
					   strtoull(argv[3], NULL, 0),
					   strtoull(argv[4], NULL, 0)) ? 1 : 0;
	if (argc >= 6 && argc <= 8 && !strcmp(argv[1], "wide")) {
		static const char *const orders[] = { "turn", "parts",
						      "rparts" };
		enum wide_order o = WIDE_TURN;

		while (argc == 8 && o <= WIDE_RPARTS &&
		       strcmp(argv[7], orders[o]))
			o++;
		if (o <= WIDE_RPARTS)
			return gen_wide(argv[2], strtoull(argv[3], NULL, 0),
					strtoul(argv[4], NULL, 0),
					strtoul(argv[5], NULL, 0),
					strtoul(argv[argc >= 7 ? 6 : 4], NULL,
						0), o);
	}
	if (argc == 4 && !strcmp(argv[1], "newer"))
		return gen_newer(argv[2], strtoull(argv[3], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "push"))
		return gen_push(argv[2], strtoull(argv[3], NULL, 0), 0);
	if (argc == 5 && !strcmp(argv[1], "push") && !strcmp(argv[4], "now"))
		return gen_push(argv[2], strtoull(argv[3], NULL, 0), 1);
	if (argc == 3 && !strcmp(argv[1], "clear"))
		return gen_clear(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "major1"))
		return gen_major1(argv[2], argv[3]);
	if (argc >= 6 && !strcmp(argv[1], "set"))
		return gen_set(argv[2], argv[3], strtoull(argv[4], NULL, 0),
			       argv + 5, argc - 5);
	if (argc == 6 && !strcmp(argv[1], "rename"))
		return gen_rename(argv[2], argv[3], argv[4], argv[5]);
	if (argc == 3 && !strcmp(argv[1], "debugfs"))
		return gen_debugfs(argv[2]);
	fprintf(stderr, "usage: see the comment at the top of gen.c\n");
	return 2;
}
