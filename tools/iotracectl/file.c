// SPDX-License-Identifier: GPL-2.0
/*
 * Trace files: writer and reader of the format described at the end of
 * uapi/linux/iotrace.h.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "iot.h"

#define ERR(...) snprintf(err, errlen, __VA_ARGS__)

static void copy_str(char *dst, size_t dlen, const char *src, size_t slen)
{
	size_t n = strnlen(src, slen);

	if (n >= dlen)
		n = dlen - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

/*
 * The record at @p of a file described by @h as the tool's record: a 1.x
 * record, then (minor 2 and later) the submitter; earlier minors have none.
 */
static void file_rec(const struct iotrace_file_hdr *h, const uint8_t *p,
		     struct iotrace_record *r)
{
	/* (no memset of the whole: the two parts are all of it) */
	memcpy(r, p, IOTRACE_RECORD_SIZE);
	if (h->minor >= 2 && h->record_size >= IOTRACE_FILE_RECORD_SIZE)
		memcpy(&r->pid, p + IOTRACE_RECORD_SIZE,
		       sizeof(struct iotrace_file_rec_ext));
	else
		memset(&r->pid, 0, sizeof(struct iotrace_file_rec_ext));
	r->reserved2 = 0;
}

_Static_assert(offsetof(struct iotrace_record, pid) == IOTRACE_RECORD_SIZE &&
	       sizeof(struct iotrace_record) == IOTRACE_RECORD_SIZE +
	       sizeof(struct iotrace_file_rec_ext),
	       "a record is its 1.x part and the submitter, no padding");

/* The names of an IOTRACE_CHUNK_COMMS chunk into the comm table. */
static int parse_comms(const struct iotrace_file_chunk *ch, const uint8_t *p,
		       uint64_t off, char *err, size_t errlen)
{
	uint64_t esize;
	uint32_t i;

	if (!ch->nr_records)
		return 0;
	esize = ch->payload_size / ch->nr_records;
	if (ch->payload_size % ch->nr_records || esize % 8 ||
	    esize < sizeof(struct iotrace_file_comm))
		return ERR("corrupt trace file: command-name chunk at offset %llu (%u entries, %llu bytes)",
			   (unsigned long long)off, ch->nr_records,
			   (unsigned long long)ch->payload_size), -1;
	for (i = 0; i < ch->nr_records; i++) {
		struct iotrace_file_comm c;

		memcpy(&c, p + i * esize, sizeof(c));
		/* a full table: names missing, records still read */
		iot_comm_set(c.pid, c.comm, sizeof(c.comm));
	}
	return 0;
}

static int parse_header(const uint8_t *b, size_t len,
			struct iot_file_info *fi, char *err, size_t errlen)
{
	struct iotrace_file_hdr *h = &fi->hdr;
	uint64_t end;
	unsigned int i;

	if (len < IOTRACE_FILE_MAGIC_LEN ||
	    memcmp(b, IOTRACE_FILE_MAGIC, IOTRACE_FILE_MAGIC_LEN))
		return ERR("not an iotrace trace file (bad magic)"), -1;
	if (len < 12)
		return ERR("truncated trace file: %zu bytes, no version", len), -1;
	memcpy(h, b, len < sizeof(*h) ? len : sizeof(*h));
	if (h->major != IOTRACE_FILE_MAJOR)
		return ERR("trace file format version %u.%u is not supported: this iotracectl reads major version %u only; use an iotracectl that knows version %u",
			   h->major, h->minor, IOTRACE_FILE_MAJOR,
			   h->major), -1;
	if (len < sizeof(*h))
		return ERR("truncated trace file: %zu bytes, the header alone is %zu",
			   len, sizeof(*h)), -1;
	if (h->hdr_size < sizeof(*h) || h->hdr_size % 8)
		return ERR("corrupt trace file header: hdr_size %u",
			   h->hdr_size), -1;
	if (h->hdr_size > len)
		return ERR("truncated trace file: header is %u bytes, file has %zu",
			   h->hdr_size, len), -1;
	if (h->record_size < IOTRACE_RECORD_SIZE || h->record_size % 8 ||
	    h->record_size > IOT_MAX_RECORD)
		return ERR("corrupt trace file header: record_size %u (must be a multiple of 8 between %u and %u)",
			   h->record_size, IOTRACE_RECORD_SIZE,
			   IOT_MAX_RECORD), -1;
	if (!h->nr_disks || h->nr_disks > IOT_MAX_DISKS)
		return ERR("corrupt trace file header: %u disks", h->nr_disks),
			-1;
	if (h->disk_size < sizeof(struct iotrace_file_disk) ||
	    h->disk_size % 8 || h->disk_offset % 8 ||
	    h->disk_offset < sizeof(*h) ||
	    __builtin_mul_overflow((uint64_t)h->nr_disks, h->disk_size, &end) ||
	    __builtin_add_overflow(end, h->disk_offset, &end) ||
	    end > h->hdr_size)
		return ERR("corrupt trace file header: disk table (offset %llu, %u entries of %u bytes) does not fit in the %u-byte header",
			   (unsigned long long)h->disk_offset, h->nr_disks,
			   h->disk_size, h->hdr_size), -1;
	fi->nr_disks = h->nr_disks;
	for (i = 0; i < h->nr_disks; i++) {
		struct iotrace_file_disk fd;
		struct iot_disk *d = &fi->disks[i];

		memcpy(&fd, b + h->disk_offset + (uint64_t)i * h->disk_size,
		       sizeof(fd));
		memset(d, 0, sizeof(*d));
		copy_str(d->name, sizeof(d->name), fd.name, sizeof(fd.name));
		d->dev_major = fd.dev_major;
		d->dev_minor = fd.dev_minor;
		d->lbs = fd.logical_block_size;
		d->nr_parts = fd.nr_parts;
		d->part_records = fd.part_records;
		d->flags = fd.ring_flags;
		d->generation = fd.generation;
		if (!d->nr_parts || d->nr_parts > 65536)
			return ERR("corrupt trace file: disk %u has %u parts",
				   i, d->nr_parts), -1;
	}
	h->release[IOTRACE_FILE_STR_LEN - 1] = 0;
	h->host[IOTRACE_FILE_STR_LEN - 1] = 0;
	return 0;
}

static int parse_trailer(const uint8_t *p, uint64_t size,
			 struct iot_file_info *fi, char *err, size_t errlen)
{
	struct iotrace_file_trailer *t = &fi->trailer;
	unsigned int i;

	if (size < sizeof(*t))
		return ERR("corrupt trace file: trailer of %llu bytes",
			   (unsigned long long)size), -1;
	memcpy(t, p, sizeof(*t));
	if (t->nr_disks != fi->nr_disks ||
	    t->counts_size < sizeof(struct iotrace_file_counts) ||
	    t->counts_size % 8 || t->counts_offset < sizeof(*t) ||
	    t->counts_offset % 8 || t->counts_offset > size ||
	    (size - t->counts_offset) / t->counts_size < t->nr_disks)
		return ERR("corrupt trace file: trailer does not describe the %u disks of the header",
			   fi->nr_disks), -1;
	for (i = 0; i < t->nr_disks; i++) {
		struct iotrace_file_counts fc;
		struct iot_counts *c = &fi->counts[i];

		memcpy(&fc, p + t->counts_offset + (uint64_t)i * t->counts_size,
		       sizeof(fc));
		c->completed = fc.completed;
		c->recorded = fc.recorded;
		c->overwritten = fc.overwritten;
		c->dropped = fc.dropped;
		c->written = fc.written;
		c->lost = fc.lost;
		c->torn = fc.torn;
		c->filtered = fc.filtered;
		if (c->written != c->present)
			return ERR("corrupt trace file: trailer says %llu records were written for disk %s, the file holds %llu",
				   (unsigned long long)c->written,
				   fi->disks[i].name,
				   (unsigned long long)c->present), -1;
	}
	fi->has_trailer = 1;
	return 0;
}

/**
 * iot_file_parse() - validate a trace file and hand its records to @cb.
 * @buf: file bytes.
 * @len: file length.
 * @fi: filled with header, disks and trailer counts.
 * @cb: callback for each record (may be NULL).
 * @arg: its argument.
 * @err: buffer for an error message naming what is wrong.
 * @errlen: size of @err.
 *
 * Return: 0; -1 with @err set for a foreign, newer-major, truncated or
 * corrupt file; or the callback's non-zero value.
 */
int iot_file_parse(const void *buf, size_t len, struct iot_file_info *fi,
		   iot_rec_cb cb, void *arg, char *err, size_t errlen)
{
	const uint8_t *b = buf;
	uint64_t rec[IOT_MAX_RECORD / 8];
	uint64_t *next[IOT_MAX_DISKS] = { NULL };
	uint64_t off, dropped = 0;
	int drop_behind = fi->drop_behind;
	unsigned int i;
	int ret = -1;

	memset(fi, 0, sizeof(*fi));
	fi->drop_behind = drop_behind;
	if (parse_header(b, len, fi, err, errlen))
		return -1;
	for (i = 0; i < fi->nr_disks; i++) {
		next[i] = calloc(fi->disks[i].nr_parts, sizeof(uint64_t));
		if (!next[i]) {
			ERR("out of memory");
			goto out;
		}
	}
	off = fi->hdr.hdr_size;
	while (off < len) {
		struct iotrace_file_chunk ch;
		const uint8_t *payload;
		uint64_t left = len - off, n;

		memset(&ch, 0, sizeof(ch));
		if (left < 16) {
			ERR("truncated trace file: %llu stray bytes at offset %llu where a chunk should start",
			    (unsigned long long)left, (unsigned long long)off);
			goto out;
		}
		memcpy(&ch, b + off, left < sizeof(ch) ? left : sizeof(ch));
		if (ch.hdr_size < 16 || ch.hdr_size % 8 || ch.payload_size % 8) {
			ERR("corrupt trace file: bad chunk header at offset %llu",
			    (unsigned long long)off);
			goto out;
		}
		if (ch.hdr_size > left || ch.payload_size > left - ch.hdr_size) {
			ERR("truncated trace file: chunk at offset %llu needs %llu bytes, only %llu remain",
			    (unsigned long long)off,
			    (unsigned long long)(ch.hdr_size + ch.payload_size),
			    (unsigned long long)left);
			goto out;
		}
		payload = b + off + ch.hdr_size;
		if (ch.magic == IOTRACE_CHUNK_TRAILER) {
			if (parse_trailer(payload, ch.payload_size, fi, err,
					  errlen))
				goto out;
			break;
		}
		if (ch.magic == IOTRACE_CHUNK_COMMS && fi->hdr.minor >= 2) {
			if (!cb && parse_comms(&ch, payload, off, err, errlen))
				goto out;
			goto next;
		}
		if (ch.magic != IOTRACE_CHUNK_RECORDS)
			goto next;	/* a newer minor's chunk: skip it */
		if (ch.hdr_size < sizeof(ch) || ch.disk >= fi->nr_disks ||
		    ch.part >= fi->disks[ch.disk].nr_parts ||
		    ch.payload_size !=
		    (uint64_t)ch.nr_records * fi->hdr.record_size) {
			ERR("corrupt trace file: records chunk at offset %llu (disk %u, part %u, %u records, %llu bytes) does not match the header",
			    (unsigned long long)off, ch.disk, ch.part,
			    ch.nr_records,
			    (unsigned long long)ch.payload_size);
			goto out;
		}
		fi->chunks++;
		if (ch.first_seq != next[ch.disk][ch.part])
			fi->gaps++;
		next[ch.disk][ch.part] = ch.first_seq + ch.nr_records;
		fi->counts[ch.disk].present += ch.nr_records;
		fi->counts[ch.disk].valid += ch.nr_records;
		for (n = 0; cb && n < ch.nr_records; n++) {
			file_rec(&fi->hdr, payload + n * fi->hdr.record_size,
				 (struct iotrace_record *)rec);
			ret = cb(arg, ch.disk,
				 (const struct iotrace_record *)rec);
			if (ret)
				goto out;
		}
next:
		off += ch.hdr_size + ch.payload_size;
		/* every 8 MB read, the pages behind go (a file mapping) */
		if (fi->drop_behind && off - dropped >= (8u << 20)) {
			uintptr_t lo = ((uintptr_t)b + dropped + 4095) & ~4095ul;
			uintptr_t hi = ((uintptr_t)b + off) & ~4095ul;

			if (hi > lo)
				madvise((void *)lo, hi - lo, MADV_DONTNEED);
			dropped = off;
		}
	}
	if (!fi->has_trailer) {
		ERR("truncated trace file: no trailer after %llu chunks (%zu bytes); the recording did not finish",
		    (unsigned long long)fi->chunks, len);
		goto out;
	}
	ret = 0;
out:
	for (i = 0; i < fi->nr_disks; i++)
		free(next[i]);
	return ret;
}

static void wr(struct iot_writer *w, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, w->fp) != n)
		w->error = 1;
	w->bytes += n;
}

/**
 * iot_writer_start() - write a trace file's header and disk table.
 * @w: writer state to set up.
 * @fp: output stream.
 * @record_size: bytes per record.
 * @disks: disk table.
 * @nr_disks: entries.
 * @mono_ns: CLOCK_MONOTONIC anchor.
 * @real_ns: CLOCK_REALTIME anchor taken with @mono_ns.
 * @release: kernel release.
 * @host: host name.
 *
 * Return: 0 or -1 on a write error.
 */
int iot_writer_start(struct iot_writer *w, FILE *fp, uint32_t record_size,
		     const struct iot_disk *disks, unsigned int nr_disks,
		     uint64_t mono_ns, uint64_t real_ns, const char *release,
		     const char *host)
{
	struct iotrace_file_hdr h;
	unsigned int i;

	memset(w, 0, sizeof(*w));
	w->fp = fp;
	w->record_size = record_size;
	w->nr_disks = nr_disks;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, IOTRACE_FILE_MAGIC, IOTRACE_FILE_MAGIC_LEN);
	h.major = IOTRACE_FILE_MAJOR;
	h.minor = IOTRACE_FILE_MINOR;
	h.disk_offset = sizeof(h);
	h.disk_size = sizeof(struct iotrace_file_disk);
	h.nr_disks = nr_disks;
	h.hdr_size = sizeof(h) + nr_disks * sizeof(struct iotrace_file_disk);
	h.record_size = record_size;
	h.anchor_mono_ns = mono_ns;
	h.anchor_real_ns = real_ns;
	copy_str(h.release, sizeof(h.release), release, strlen(release));
	copy_str(h.host, sizeof(h.host), host, strlen(host));
	wr(w, &h, sizeof(h));
	for (i = 0; i < nr_disks; i++) {
		struct iotrace_file_disk d;

		memset(&d, 0, sizeof(d));
		memcpy(d.name, disks[i].name,
		       strnlen(disks[i].name, IOTRACE_NAME_LEN - 1));
		d.dev_major = disks[i].dev_major;
		d.dev_minor = disks[i].dev_minor;
		d.logical_block_size = disks[i].lbs;
		d.nr_parts = disks[i].nr_parts;
		d.part_records = disks[i].part_records;
		d.ring_flags = disks[i].flags;
		d.generation = disks[i].generation;
		wr(w, &d, sizeof(d));
	}
	return w->error ? -1 : 0;
}

/* Write @nr records (record_size bytes each) of sequences first_seq... */
int iot_writer_chunk(struct iot_writer *w, unsigned int disk,
		     unsigned int part, uint64_t first_seq, const void *recs,
		     uint32_t nr)
{
	struct iotrace_file_chunk ch;

	if (!nr)
		return 0;
	memset(&ch, 0, sizeof(ch));
	ch.magic = IOTRACE_CHUNK_RECORDS;
	ch.hdr_size = sizeof(ch);
	ch.payload_size = (uint64_t)nr * w->record_size;
	ch.disk = disk;
	ch.part = part;
	ch.nr_records = nr;
	ch.first_seq = first_seq;
	wr(w, &ch, sizeof(ch));
	wr(w, recs, ch.payload_size);
	w->chunks++;
	return w->error ? -1 : 0;
}

/* Write @nr command names as an IOTRACE_CHUNK_COMMS chunk. */
int iot_writer_comms(struct iot_writer *w,
		     const struct iotrace_file_comm *v, uint32_t nr)
{
	struct iotrace_file_chunk ch;

	if (!nr)
		return 0;
	memset(&ch, 0, sizeof(ch));
	ch.magic = IOTRACE_CHUNK_COMMS;
	ch.hdr_size = sizeof(ch);
	ch.payload_size = (uint64_t)nr * sizeof(*v);
	ch.nr_records = nr;
	wr(w, &ch, sizeof(ch));
	wr(w, v, ch.payload_size);
	return w->error ? -1 : 0;
}

/* Write the trailer with per-disk counts and flush. */
int iot_writer_finish(struct iot_writer *w, const struct iot_counts *counts,
		      uint64_t mono_ns, uint64_t real_ns)
{
	struct iotrace_file_chunk ch;
	struct iotrace_file_trailer t;
	unsigned int i;

	memset(&ch, 0, sizeof(ch));
	memset(&t, 0, sizeof(t));
	ch.magic = IOTRACE_CHUNK_TRAILER;
	ch.hdr_size = sizeof(ch);
	ch.payload_size = sizeof(t) +
		w->nr_disks * sizeof(struct iotrace_file_counts);
	t.end_mono_ns = mono_ns;
	t.end_real_ns = real_ns;
	t.nr_disks = w->nr_disks;
	t.counts_size = sizeof(struct iotrace_file_counts);
	t.counts_offset = sizeof(t);
	t.chunks = w->chunks;
	wr(w, &ch, sizeof(ch));
	wr(w, &t, sizeof(t));
	for (i = 0; i < w->nr_disks; i++) {
		struct iotrace_file_counts fc;

		memset(&fc, 0, sizeof(fc));
		fc.completed = counts[i].completed;
		fc.recorded = counts[i].recorded;
		fc.overwritten = counts[i].overwritten;
		fc.dropped = counts[i].dropped;
		fc.written = counts[i].written;
		fc.lost = counts[i].lost;
		fc.torn = counts[i].torn;
		fc.filtered = counts[i].filtered;
		wr(w, &fc, sizeof(fc));
	}
	if (fflush(w->fp))
		w->error = 1;
	return w->error ? -1 : 0;
}

/**
 * struct mstream - one (disk, part) of a trace file, read in file order.
 * @off: offset of its current records chunk.
 * @payload: that chunk's records.
 * @idx: next record in the chunk.
 * @nr: records in the chunk.
 * @disk: disk index.
 * @part: ring part.
 * @key: sort key of the record at @idx.
 * @done: no record left.
 * @swept: the pages before this offset were let go (drop_behind).
 */
struct mstream {
	uint64_t off, swept;
	const uint8_t *payload;
	uint32_t idx, nr, disk, part;
	uint64_t key;
	int done;
};

/*
 * Let the pages of a file mapping from @lo to @hi go (those wholly inside
 * when @inside, else from the page @lo is in to the one @hi is in, not
 * included): read again, they fault back in from the page cache.
 */
static void drop_range(const uint8_t *b, uint64_t lo, uint64_t hi,
		       int inside)
{
	uintptr_t l = ((uintptr_t)b + lo + (inside ? 4095 : 0)) & ~4095ul;
	uintptr_t h = ((uintptr_t)b + hi) & ~4095ul;

	if (h > l)
		madvise((void *)l, h - l, MADV_DONTNEED);
}

/*
 * The next records chunk of @m's (disk, part) at or after offset @from.
 * @drop: a file mapping: a long run of other parts' chunks skipped on the
 * way (a file whose disks or parts were written one after the other) is
 * let go, so that the headers read do not keep the file in memory.
 */
static void mstream_seek(const uint8_t *b, size_t len, struct mstream *m,
			 uint64_t from, int drop)
{
	uint64_t off = from;
	int found = 0;

	while (len - off >= sizeof(struct iotrace_file_chunk)) {
		struct iotrace_file_chunk ch;

		memcpy(&ch, b + off, sizeof(ch));
		if (ch.magic == IOTRACE_CHUNK_TRAILER)
			break;
		if (ch.magic == IOTRACE_CHUNK_RECORDS && ch.disk == m->disk &&
		    ch.part == m->part && ch.nr_records) {
			m->off = off;
			m->payload = b + off + ch.hdr_size;
			m->idx = 0;
			m->nr = ch.nr_records;
			found = 1;
			break;
		}
		off += ch.hdr_size + ch.payload_size;
		if (drop && off - from >= (4u << 20)) {
			drop_range(b, from, off, 1);
			from = off;
		}
	}
	if (drop && off - from >= (1u << 20))
		drop_range(b, from, off, 1);
	if (!found)
		m->done = 1;
}

/* the merge key of the record at @p, read in place (no file_rec()) */
static uint64_t mkey(const uint8_t *p, int by_start)
{
	uint64_t t;
	uint16_t rflags;

	memcpy(&rflags, p + offsetof(struct iotrace_record, rflags),
	       sizeof(rflags));
	if (by_start && !(rflags & IOTRACE_RF_NO_ISSUE))
		memcpy(&t, p + offsetof(struct iotrace_record, issue_ns),
		       sizeof(t));
	else
		memcpy(&t, p + offsetof(struct iotrace_record, complete_ns),
		       sizeof(t));
	return t;
}

/**
 * iot_file_merge() - the records of a validated trace file, the streams
 * of its (disk, part)s merged by completion (or start) time.
 * @buf: the file.
 * @len: its length.
 * @fi: what iot_file_parse() found in it.
 * @by_start: merge by start (issue) time, else by completion time.
 * @cb: called for every record; non-zero stops.
 * @arg: its argument.
 *
 * Each part holds the requests that completed on one CPU, in about that
 * order: a cursor per part walks the file's chunks of that part and the
 * record with the smallest key of all cursors comes next, so the output
 * is in order up to the disorder within a part, whatever order the
 * chunks of the parts and disks have in the file.  Memory: a cursor per
 * part; the pages behind every cursor are let go (fi->drop_behind).
 *
 * Return: 0, -2 when out of memory, or the callback's value.
 */
int iot_file_merge(const void *buf, size_t len, const struct iot_file_info *fi,
		   int by_start, iot_rec_cb cb, void *arg)
{
	const uint8_t *b = buf;
	uint64_t rec[IOT_MAX_RECORD / 8];
	struct mstream *m;
	unsigned int n = 0, i, d, p;
	int ret = 0;

	for (d = 0; d < fi->nr_disks; d++)
		n += fi->disks[d].nr_parts;
	m = calloc(n ? n : 1, sizeof(*m));
	if (!m)
		return -2;
	n = 0;
	for (d = 0; d < fi->nr_disks; d++)
		for (p = 0; p < fi->disks[d].nr_parts; p++) {
			m[n].disk = d;
			m[n].part = p;
			mstream_seek(b, len, &m[n], fi->hdr.hdr_size,
				     fi->drop_behind);
			m[n].swept = m[n].off;
			if (!m[n].done)
				m[n].key = mkey(m[n].payload, by_start);
			n++;
		}
	for (;;) {
		struct mstream *s = NULL;

		for (i = 0; i < n; i++)
			if (!m[i].done && (!s || m[i].key < s->key))
				s = &m[i];
		if (!s)
			break;
		file_rec(&fi->hdr,
			 s->payload + (uint64_t)s->idx * fi->hdr.record_size,
			 (struct iotrace_record *)rec);
		ret = cb(arg, s->disk, (const struct iotrace_record *)rec);
		if (ret)
			break;
		if (++s->idx == s->nr) {
			struct iotrace_file_chunk ch;
			uint64_t start = s->off, end;

			memcpy(&ch, b + s->off, sizeof(ch));
			end = s->off + ch.hdr_size + ch.payload_size;
			mstream_seek(b, len, s, end, fi->drop_behind);
			/*
			 * A chunk is read by its part's cursor alone: once
			 * done, its pages go, from the page it starts in to
			 * the one it ends in (a neighbour still reading that
			 * one faults it in again), whatever order the
			 * chunks of the parts have in the file.
			 */
			if (fi->drop_behind)
				drop_range(b, start, end, 0);
			/*
			 * And every 4 MB, all pages behind the cursor since
			 * its last sweep: those fault-around mapped again
			 * after their chunk let them go.
			 */
			if (fi->drop_behind && end - s->swept >= (4u << 20)) {
				drop_range(b, s->swept, end, 0);
				s->swept = end;
			}
		}
		if (!s->done)
			s->key = mkey(s->payload + (uint64_t)s->idx *
				      fi->hdr.record_size, by_start);
	}
	free(m);
	return ret;
}
