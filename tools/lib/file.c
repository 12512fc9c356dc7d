// SPDX-License-Identifier: GPL-2.0
/*
 * Trace files: writer and reader of the format described at the end of
 * uapi/linux/iotrace.h.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "iot.h"

#define ERR(...) snprintf(err, errlen, __VA_ARGS__)

/*
 * CRC-32C (Castagnoli), reflected polynomial 0x82f63b78: slicing by 8
 * (eight 256-entry tables, eight bytes per step), or the SSE4.2 crc32
 * instruction where the CPU has it.  Both compute the same update: the
 * instruction is this CRC without the initial and final inversion.
 */
#define CRC32C_POLY	0x82f63b78u

static uint32_t crc32c_tab[8][256];
static uint32_t (*crc32c_update)(uint32_t crc, const uint8_t *p, size_t n);

static uint32_t crc32c_sw_update(uint32_t c, const uint8_t *p, size_t n)
{
	while (n && ((uintptr_t)p & 7)) {
		c = crc32c_tab[0][(c ^ *p++) & 0xff] ^ (c >> 8);
		n--;
	}
	while (n >= 8) {
		uint32_t lo, hi;

		memcpy(&lo, p, 4);
		memcpy(&hi, p + 4, 4);
		lo ^= c;	/* the words as little-endian: the host's */
		c = crc32c_tab[7][lo & 0xff] ^
		    crc32c_tab[6][(lo >> 8) & 0xff] ^
		    crc32c_tab[5][(lo >> 16) & 0xff] ^
		    crc32c_tab[4][lo >> 24] ^
		    crc32c_tab[3][hi & 0xff] ^
		    crc32c_tab[2][(hi >> 8) & 0xff] ^
		    crc32c_tab[1][(hi >> 16) & 0xff] ^
		    crc32c_tab[0][hi >> 24];
		p += 8;
		n -= 8;
	}
	while (n--)
		c = crc32c_tab[0][(c ^ *p++) & 0xff] ^ (c >> 8);
	return c;
}

#if defined(__x86_64__)
/*
 * The instruction takes 3 cycles and can start one every cycle: a long
 * buffer is done as three streams at once, in blocks of CRC_LONG (then
 * CRC_SHORT) bytes each, joined by shifting a stream's CRC over the
 * length of the next (appending that many zero bytes: a linear operator,
 * applied byte by byte from tables made at start).  Mark Adler's
 * crc32c.c (zlib licence) is the model.
 */
#define CRC_LONG	8192
#define CRC_SHORT	256
static uint32_t crc32c_long[4][256], crc32c_short[4][256];

/* the GF(2) matrix @mat times @vec */
static uint32_t gf2_times(const uint32_t *mat, uint32_t vec)
{
	uint32_t sum = 0;

	for (; vec; vec >>= 1, mat++)
		if (vec & 1)
			sum ^= *mat;
	return sum;
}

static void gf2_square(uint32_t *sq, const uint32_t *mat)
{
	unsigned int n;

	for (n = 0; n < 32; n++)
		sq[n] = gf2_times(mat, mat[n]);
}

/* the tables that append @len (a power of 2) zero bytes to a CRC */
static void crc32c_zeros(uint32_t zeros[4][256], size_t len)
{
	uint32_t odd[32], even[32], row = 1, *op = odd;
	unsigned int n;

	odd[0] = 0x82f63b78;	/* one zero bit */
	for (n = 1; n < 32; n++, row <<= 1)
		odd[n] = row;
	gf2_square(even, odd);	/* two bits */
	gf2_square(odd, even);	/* four */
	for (;;) {
		gf2_square(even, odd);	/* a byte, then two, four, ... */
		op = even;
		len >>= 1;
		if (!len)
			break;
		gf2_square(odd, even);
		op = odd;
		len >>= 1;
		if (!len)
			break;
	}
	for (n = 0; n < 256; n++) {
		zeros[0][n] = gf2_times(op, n);
		zeros[1][n] = gf2_times(op, n << 8);
		zeros[2][n] = gf2_times(op, n << 16);
		zeros[3][n] = gf2_times(op, n << 24);
	}
}

static inline uint32_t crc32c_shift(uint32_t zeros[4][256], uint32_t crc)
{
	return zeros[0][crc & 0xff] ^ zeros[1][(crc >> 8) & 0xff] ^
	       zeros[2][(crc >> 16) & 0xff] ^ zeros[3][crc >> 24];
}

/* @n bytes at @p as three streams of @blk bytes each, while they last */
__attribute__((target("sse4.2")))
static inline uint64_t crc32c_hw3(uint64_t c, const uint8_t **pp, size_t *np,
				  size_t blk, uint32_t zeros[4][256])
{
	const uint8_t *p = *pp;

	while (*np >= 3 * blk) {
		uint64_t c1 = 0, c2 = 0;
		const uint8_t *end = p + blk;

		do {
			uint64_t a, b, d;

			memcpy(&a, p, 8);
			memcpy(&b, p + blk, 8);
			memcpy(&d, p + 2 * blk, 8);
			c = __builtin_ia32_crc32di(c, a);
			c1 = __builtin_ia32_crc32di(c1, b);
			c2 = __builtin_ia32_crc32di(c2, d);
			p += 8;
		} while (p < end);
		c = crc32c_shift(zeros, (uint32_t)c) ^ c1;
		c = crc32c_shift(zeros, (uint32_t)c) ^ c2;
		p += 2 * blk;
		*np -= 3 * blk;
	}
	*pp = p;
	return c;
}

__attribute__((target("sse4.2")))
static uint32_t crc32c_hw_update(uint32_t crc, const uint8_t *p, size_t n)
{
	uint64_t c = crc;

	while (n && ((uintptr_t)p & 7)) {
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
		n--;
	}
	c = crc32c_hw3(c, &p, &n, CRC_LONG, crc32c_long);
	c = crc32c_hw3(c, &p, &n, CRC_SHORT, crc32c_short);
	while (n >= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
		p += 8;
		n -= 8;
	}
	while (n--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return (uint32_t)c;
}
#endif

/* The tables, and the instruction if this CPU has it: before main(). */
__attribute__((constructor))
static void crc32c_init(void)
{
	uint32_t i, k, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (CRC32C_POLY & -(c & 1));
		crc32c_tab[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (k = 1; k < 8; k++)
			crc32c_tab[k][i] = crc32c_tab[0][crc32c_tab[k - 1][i] & 0xff] ^
				(crc32c_tab[k - 1][i] >> 8);
	crc32c_update = crc32c_sw_update;
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("sse4.2")) {
		crc32c_zeros(crc32c_long, CRC_LONG);
		crc32c_zeros(crc32c_short, CRC_SHORT);
		crc32c_update = crc32c_hw_update;
	}
#endif
}

/**
 * iot_crc32c() - CRC-32C of @n bytes at @p, continuing @crc.
 * @crc: 0 to start, or the value of the bytes before @p.
 * @p: bytes.
 * @n: how many.
 *
 * iot_crc32c(iot_crc32c(0, a, na), b, nb) is the CRC of a then b.
 *
 * Return: the CRC-32C (crc32c("123456789") = 0xe3069283).
 */
uint32_t iot_crc32c(uint32_t crc, const void *p, size_t n)
{
	return ~crc32c_update(~crc, p, n);
}

/* The same without the SSE4.2 instruction (tests compare the two). */
uint32_t iot_crc32c_sw(uint32_t crc, const void *p, size_t n)
{
	return ~crc32c_sw_update(~crc, p, n);
}

#define CRC_OFF	offsetof(struct iotrace_file_chunk, crc)

/**
 * iot_file_chunk_crc() - the checksum of a chunk (minor 2,
 *	IOTRACE_FILE_CRC32C): its header, the crc field taken as zero, then
 *	its payload.
 * @hdr: the chunk header, @hdr_size bytes (at least 40).
 * @hdr_size: its size.
 * @payload: the payload.
 * @payload_size: its size.
 *
 * Return: the CRC-32C to store in (or compare with) the crc field.
 */
uint32_t iot_file_chunk_crc(const void *hdr, uint32_t hdr_size,
			    const void *payload, uint64_t payload_size)
{
	static const uint8_t zero[4];
	const uint8_t *h = hdr;
	uint32_t c;

	c = iot_crc32c(0, h, CRC_OFF);
	c = iot_crc32c(c, zero, sizeof(zero));
	c = iot_crc32c(c, h + CRC_OFF + 4, hdr_size - CRC_OFF - 4);
	return iot_crc32c(c, payload, payload_size);
}

static void copy_str(char *dst, size_t dlen, const char *src, size_t slen)
{
	size_t n = strnlen(src, slen);

	if (n >= dlen)
		n = dlen - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

/* Is the file of header @h of major 1 minor 2 or later? */
static int file_1_2(const struct iotrace_file_hdr *h)
{
	return h->major > 1 || h->minor >= 2;
}

/*
 * The record at @p (@rs bytes: its chunk's record size) of a file
 * described by @h as the tool's record.  Major 1: a 1.x record, then
 * (minor 2 and later) the submitter; earlier minors have none.  Major 2:
 * the 1.x record's first IOTRACE_FILE_REC_HEAD bytes, the submitter and
 * the command, cut after @rs bytes (the rest zero).
 */
static void file_rec(const struct iotrace_file_hdr *h, const uint8_t *p,
		     uint32_t rs, struct iotrace_record *r)
{
	uint32_t n;

	if (h->major >= 2) {
		memcpy(r, p, IOTRACE_FILE_REC_HEAD);
		n = rs - IOTRACE_FILE_REC_HEAD;
		if (n > sizeof(struct iotrace_file_rec_ext))
			n = sizeof(struct iotrace_file_rec_ext);
		memcpy(&r->pid, p + IOTRACE_FILE_REC_EXT_OFF, n);
		memset((uint8_t *)&r->pid + n, 0,
		       sizeof(struct iotrace_file_rec_ext) - n);
		n = rs > IOTRACE_FILE_REC_CMD_OFF ?
			rs - IOTRACE_FILE_REC_CMD_OFF : 0;
		if (n > IOTRACE_CMD_LEN)
			n = IOTRACE_CMD_LEN;
		memcpy(r->cmd, p + IOTRACE_FILE_REC_CMD_OFF, n);
		memset(r->cmd + n, 0, IOTRACE_CMD_LEN - n);
		r->reserved2 = 0;
		return;
	}
	/* (no memset of the whole: the two parts are all of it) */
	memcpy(r, p, IOTRACE_RECORD_SIZE);
	if (h->minor >= 2 && h->record_size >= IOTRACE_FILE_RECORD_SIZE)
		memcpy(&r->pid, p + IOTRACE_RECORD_SIZE,
		       sizeof(struct iotrace_file_rec_ext));
	else
		memset(&r->pid, 0, sizeof(struct iotrace_file_rec_ext));
	r->reserved2 = 0;
}

_Static_assert(offsetof(struct iotrace_record, cmd) == IOTRACE_FILE_REC_HEAD &&
	       IOTRACE_FILE_REC_EXT_OFF + sizeof(struct iotrace_file_rec_ext) ==
	       IOTRACE_FILE_REC_CMD_OFF &&
	       IOTRACE_FILE_REC_CMD_OFF + IOTRACE_CMD_LEN ==
	       IOTRACE_FILE_RECORD_SIZE,
	       "a major 2 record holds a 1.x record and its submitter");

/*
 * The size of each record of records chunk @ch of the file @fi (major 2:
 * the chunk's own, checked by chunk_check()).
 */
static uint32_t chunk_rs(const struct iot_file_info *fi,
			 const struct iotrace_file_chunk *ch)
{
	return fi->hdr.major >= 2 ? ch->record_size : fi->hdr.record_size;
}

/* Is @rs a size of the records of a chunk of @fi that a writer makes? */
static int rs_ok(const struct iot_file_info *fi, uint32_t rs)
{
	return rs >= IOTRACE_FILE_REC_HEAD && !(rs % 8) &&
		rs <= fi->hdr.record_size;
}

/* Is the record size a major 2 records chunk states one a writer makes? */
static int chunk_rs_ok(const struct iot_file_info *fi,
		       const struct iotrace_file_chunk *ch)
{
	if (fi->hdr.major < 2)
		return 1;
	return ch->hdr_size >= sizeof(*ch) && rs_ok(fi, ch->record_size);
}

_Static_assert(offsetof(struct iotrace_record, pid) == IOTRACE_RECORD_SIZE &&
	       sizeof(struct iotrace_record) == IOTRACE_RECORD_SIZE +
	       sizeof(struct iotrace_file_rec_ext),
	       "a record is its 1.x part and the submitter, no padding");

/* An IOTRACE_CHUNK_COMMS chunk's entries: their size, 0 if impossible. */
static uint64_t comms_esize(const struct iotrace_file_chunk *ch)
{
	uint64_t esize;

	if (!ch->nr_records)
		return sizeof(struct iotrace_file_comm);
	esize = ch->payload_size / ch->nr_records;
	if (ch->payload_size % ch->nr_records || esize % 8 ||
	    esize < sizeof(struct iotrace_file_comm))
		return 0;
	return esize;
}

/*
 * The names of a (valid) IOTRACE_CHUNK_COMMS chunk into the comm table
 * @t (NULL: the thread's).
 */
static void parse_comms(struct iot_comms *t,
			const struct iotrace_file_chunk *ch, const uint8_t *p)
{
	uint64_t esize = comms_esize(ch);
	uint32_t i;

	for (i = 0; i < ch->nr_records; i++) {
		struct iotrace_file_comm c;

		memcpy(&c, p + i * esize, sizeof(c));
		/* a full table: names missing, records still read */
		if (t)
			iot_comms_set(t, c.pid, c.comm, sizeof(c.comm));
		else
			iot_comm_set(c.pid, c.comm, sizeof(c.comm));
	}
}

static int fcopy(struct iot_file_info *fi, const uint8_t *b, uint64_t off,
		 void *dst, size_t n);

/*
 * The header and disk table of the file @b (@len bytes) into @fi, read as
 * the chunks are (fcopy()).  Return: 0; -1 with @err set for a foreign,
 * newer-major, cut short or corrupt header; -2 when the read failed
 * (fi->rd_err).
 */
static int parse_header(const uint8_t *b, size_t len,
			struct iot_file_info *fi, char *err, size_t errlen)
{
	struct iotrace_file_hdr *h = &fi->hdr;
	unsigned int i, rmin;
	uint64_t end;

	memset(h, 0, sizeof(*h));
	if (fcopy(fi, b, 0, h, len < sizeof(*h) ? len : sizeof(*h)))
		return -2;
	if (len < IOTRACE_FILE_MAGIC_LEN ||
	    memcmp(h->magic, IOTRACE_FILE_MAGIC, IOTRACE_FILE_MAGIC_LEN))
		return ERR("not an iotrace trace file (bad magic)"), -1;
	if (len < 12)
		return ERR("truncated trace file: %zu bytes, no version", len), -1;
	if (!h->major)
		return ERR("corrupt trace file header: major version 0"), -1;
	if (h->major > IOTRACE_FILE_MAJOR)
		return snprintf(err, errlen,
				"trace file format version %u.%u is not supported: this iotracectl reads major versions 1 to %u; use an iotracectl that knows version %u",
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
	rmin = h->major >= 2 ? IOTRACE_FILE_RECORD_SIZE : IOTRACE_RECORD_SIZE;
	if (h->record_size < rmin || h->record_size % 8 ||
	    h->record_size > IOT_MAX_RECORD)
		return snprintf(err, errlen,
				"corrupt trace file header: record_size %u (must be a multiple of 8 between %u and %u)",
				h->record_size, rmin, IOT_MAX_RECORD), -1;
	if (!h->nr_disks || h->nr_disks > IOT_MAX_DISKS)
		return ERR("corrupt trace file header: %u disks", h->nr_disks),
			-1;
	if (h->disk_size < sizeof(struct iotrace_file_disk) ||
	    h->disk_size % 8 || h->disk_offset % 8 ||
	    h->disk_offset < sizeof(*h) ||
	    __builtin_mul_overflow((uint64_t)h->nr_disks, h->disk_size, &end) ||
	    __builtin_add_overflow(end, h->disk_offset, &end) ||
	    end > h->hdr_size)
		return snprintf(err, errlen,
				"corrupt trace file header: disk table (offset %llu, %u entries of %u bytes) does not fit in the %u-byte header",
				(unsigned long long)h->disk_offset, h->nr_disks,
				h->disk_size, h->hdr_size), -1;
	fi->nr_disks = h->nr_disks;
	for (i = 0; i < h->nr_disks; i++) {
		struct iotrace_file_disk fd;
		struct iot_disk *d = &fi->disks[i];

		if (fcopy(fi, b, h->disk_offset + (uint64_t)i * h->disk_size,
			  &fd, sizeof(fd)))
			return -2;
		memset(d, 0, sizeof(*d));
		copy_str(d->name, sizeof(d->name), fd.name, sizeof(fd.name));
		d->dev_major = fd.dev_major;
		d->dev_minor = fd.dev_minor;
		d->lbs = fd.logical_block_size;
		d->nr_parts = fd.nr_parts;
		d->part_records = fd.part_records;
		d->flags = fd.ring_flags;
		d->generation = fd.generation;
		/* a part per CPU: as many as the kernel may have at most */
		if (!d->nr_parts || d->nr_parts > IOT_MAX_PARTS)
			return ERR("corrupt trace file: disk %u (%s) has %u parts (at most %u)",
				   i, d->name, d->nr_parts, IOT_MAX_PARTS), -1;
	}
	h->release[IOTRACE_FILE_STR_LEN - 1] = 0;
	h->host[IOTRACE_FILE_STR_LEN - 1] = 0;
	return 0;
}

/* Does the trailer at @p (@size bytes) describe the disks of the header? */
static int trailer_ok(const uint8_t *p, uint64_t size,
		      const struct iot_file_info *fi)
{
	struct iotrace_file_trailer t;

	if (size < sizeof(t))
		return 0;
	memcpy(&t, p, sizeof(t));
	return t.nr_disks == fi->nr_disks &&
		t.counts_size >= sizeof(struct iotrace_file_counts) &&
		!(t.counts_size % 8) && t.counts_offset >= sizeof(t) &&
		!(t.counts_offset % 8) && t.counts_offset <= size &&
		(size - t.counts_offset) / t.counts_size >= t.nr_disks;
}

/* The counts of a trailer trailer_ok() accepted. */
static void parse_trailer(const uint8_t *p, struct iot_file_info *fi)
{
	struct iotrace_file_trailer *t = &fi->trailer;
	unsigned int i;

	memcpy(t, p, sizeof(*t));
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
	}
	fi->has_trailer = 1;
}

/*
 * Reading a mapped trace file.  Faulting the pages of a mapping in (and
 * letting them go behind the reader, so that memory does not grow with the
 * file) costs far more than copying the same bytes with pread(): 0.25 s
 * against 0.07 s of CPU for 432 MB here.  So the bytes of a mapped file
 * (fi->drop_behind) are read with pread() from fi->fd into a buffer, a
 * piece at a time; a buffer in memory (standard input, tests) is read
 * where it is.  Should pread() fail, or the file end before the bytes
 * (another process cut it: the pages of the mapping past its new end
 * would be SIGBUS), the read fails (fi->rd_err) and so do the parse and
 * the merge.  The mapping of such a file is never read: every byte the
 * readers look at comes from pread(), a piece at a time (records, the
 * checksums) or a chunk at a time into a buffer of its size (the chunks
 * parsed whole: trailer, command names, in-flight table), whose size the
 * IOT_MAX_* caps bound.
 */

/**
 * struct fpiece - a buffer the bytes of a mapped trace file are read into.
 * @buf: the buffer; NULL: read the bytes where they are.
 * @size: its size.
 * @whole: the buffer of a chunk read whole (chunk_whole()), grown as
 *	needed; NULL until then.
 * @whole_size: its size.
 */
struct fpiece {
	uint8_t *buf;
	size_t size;
	uint8_t *whole;
	size_t whole_size;
};

#define FPIECE_MAX	(256u << 10)	/* L2-sized: copied, then read */

/*
 * @n bytes at @off of @fd into @dst: 0, an errno, or -1 when the file
 * ended before them
 */
static int pread_all(int fd, void *dst, size_t n, uint64_t off)
{
	uint8_t *d = dst;

	while (n) {
		ssize_t r = pread(fd, d, n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno ? errno : EIO;
		if (!r)
			return -1;
		d += r;
		off += r;
		n -= r;
	}
	return 0;
}

/*
 * Whether the mapped file @fi still has its bytes up to @end (the mapping
 * can be read there): 0, an errno, or -1 when it is shorter now.
 */
static int fhas(const struct iot_file_info *fi, uint64_t end)
{
	struct stat st;

	if (fstat(fi->fd, &st))
		return errno ? errno : EIO;
	return (uint64_t)st.st_size < end ? -1 : 0;
}

/**
 * iot_file_read_error() - what the read of a mapped trace file that
 * failed (the parse's error, iot_file_merge()'s -3) met.
 * @fi: the file's information (fi->rd_err).
 * @len: its length when it was opened.
 * @err: the message, starting with "truncated trace file" when it is
 *	shorter now.
 * @errlen: its size.
 */
void iot_file_read_error(const struct iot_file_info *fi, size_t len,
			 char *err, size_t errlen)
{
	struct stat st;

	if (fi->changed_off) {
		ERR("trace file changed while it was read (its chunk at byte %llu)",
		    (unsigned long long)fi->changed_off);
		return;
	}
	if (fi->rd_err > 0) {
		ERR("cannot read the trace file: %s", strerror(fi->rd_err));
		return;
	}
	if (fstat(fi->fd, &st))
		st.st_size = 0;
	ERR("truncated trace file: cut while it was read (%zu bytes when opened, %llu now)",
	    len, (unsigned long long)st.st_size);
}

/* A buffer of @size bytes for the pieces of a mapped file, none for others. */
static int fpiece_init(struct fpiece *pc, const struct iot_file_info *fi,
		       size_t size)
{
	pc->size = size;
	pc->buf = NULL;
	pc->whole = NULL;
	pc->whole_size = 0;
	if (!fi->drop_behind)
		return 0;
	pc->buf = malloc(size);
	return pc->buf ? 0 : -1;
}

/* Copy @n bytes of the file at @off to @dst: 0, or -1 (fi->rd_err). */
static int fcopy(struct iot_file_info *fi, const uint8_t *b, uint64_t off,
		 void *dst, size_t n)
{
	int e;

	if (!fi->drop_behind) {
		memcpy(dst, b + off, n);
		return 0;
	}
	e = pread_all(fi->fd, dst, n, off);
	if (e)
		fi->rd_err = e;
	return e ? -1 : 0;
}

/**
 * iot_file_copy() - copy @n bytes of a trace file at @off to @dst, as the
 *	parse reads them: with pread() from a mapped file (@fi->drop_behind),
 *	never from the mapping, whose pages past the end of a file another
 *	process cut would be SIGBUS; from @buf otherwise.
 * @fi: the file's information (iot_file_parse()'s).
 * @buf: the file's bytes (mapped or in memory).
 * @off: where (@off + @n within the length the file had when opened).
 * @dst: where to.
 * @n: how many.
 *
 * Return: 0, or -1 when the read failed (@fi->rd_err set, see
 * iot_file_read_error(): the file ends before them now, or an errno).
 */
int iot_file_copy(struct iot_file_info *fi, const void *buf, uint64_t off,
		  void *dst, size_t n)
{
	return fcopy(fi, buf, off, dst, n);
}

/*
 * @n bytes of the file at @off: those of a buffer in memory where they
 * are, those of a mapped file read into @pc; NULL: the read failed
 * (fi->rd_err).  Callers ask a mapped file for at most a piece (@pc->size
 * bytes); more fails the read (EIO) rather than read the mapping.
 */
static const uint8_t *fbytes(struct iot_file_info *fi, const uint8_t *b,
			     uint64_t off, uint64_t n, const struct fpiece *pc)
{
	int e;

	if (!fi->drop_behind)
		return b + off;
	e = pc->buf && n <= pc->size ? pread_all(fi->fd, pc->buf, n, off) :
		EIO;
	if (e) {
		fi->rd_err = e;
		return NULL;
	}
	return pc->buf;
}

/*
 * The @n bytes of the chunk at @off, all in memory: those of a buffer in
 * memory where they are, those of a mapped file read into @pc->whole
 * (grown to @n); NULL: the read failed (fi->rd_err, ENOMEM when the buffer
 * could not grow).  @n is bounded by the caller (IOT_MAX_*).
 */
static const uint8_t *chunk_whole(struct iot_file_info *fi, const uint8_t *b,
				  uint64_t off, uint64_t n, struct fpiece *pc)
{
	uint8_t *v;

	if (!fi->drop_behind)
		return b + off;
	if (n > pc->whole_size) {
		v = realloc(pc->whole, n);
		if (!v) {
			fi->rd_err = ENOMEM;
			return NULL;
		}
		pc->whole = v;
		pc->whole_size = n;
	}
	if (fcopy(fi, b, off, pc->whole, n))
		return NULL;
	return pc->whole;
}

/*
 * The checksum of the chunk of @total bytes at @off whose header is
 * @hdr_size bytes (iot_file_chunk_crc(); at most IOT_MAX_CHUNK_HDR, so in
 * the first piece), read a piece at a time; *@whole: all its bytes, when
 * they were in memory at once, else NULL.  A failed read (fi->rd_err)
 * gives 0.
 */
static uint32_t chunk_crc_at(struct iot_file_info *fi, const uint8_t *b,
			     uint64_t off, uint32_t hdr_size, uint64_t total,
			     const struct fpiece *pc, const uint8_t **whole)
{
	uint64_t n = total, done;
	const uint8_t *p;
	uint32_t c;

	if (pc->buf && n > pc->size)
		n = pc->size;
	/* (a piece, FPIECE_MAX, holds any header chunk_check() takes) */
	p = n >= hdr_size ? fbytes(fi, b, off, n, pc) : NULL;
	*whole = NULL;
	if (!p) {
		if (!fi->rd_err)
			fi->rd_err = EIO;
		return 0;
	}
	c = iot_file_chunk_crc(p, hdr_size, p + hdr_size, n - hdr_size);
	*whole = n == total ? p : NULL;
	for (done = n; done < total; done += n) {
		n = total - done < pc->size ? total - done : pc->size;
		p = fbytes(fi, b, off + done, n, pc);
		if (!p)
			return 0;
		c = iot_crc32c(c, p, n);
	}
	return c;
}

/*
 * Records @idx.. of the records chunk at @off (header @hdr_size bytes, @nr
 * records of @rs bytes) in memory, as many as @pc holds (all where they
 * are without it): *@cnt of them; NULL: the read failed (fi->rd_err).
 */
static const uint8_t *chunk_recs(struct iot_file_info *fi,
				 const uint8_t *b, uint64_t off,
				 uint32_t hdr_size, uint32_t rs, uint32_t idx,
				 uint32_t nr, const struct fpiece *pc,
				 uint32_t *cnt)
{
	*cnt = nr - idx;
	if (pc->buf && *cnt > pc->size / rs)
		*cnt = pc->size / rs;
	return fbytes(fi, b, off + hdr_size + (uint64_t)idx * rs,
		      (uint64_t)*cnt * rs, pc);
}

enum { CK_OK, CK_SHORT, CK_BAD, CK_UNREAD };

/*
 * Is an IOTRACE_CHUNK_INFLIGHT chunk's payload (@p, read whole) one a
 * writer makes: its header, its records inside it, its disk in the table?
 */
static int inflight_ok(const struct iotrace_file_chunk *ch, const uint8_t *p,
		       const struct iot_file_info *fi)
{
	struct iotrace_file_inflight h;
	uint64_t room;

	if (ch->payload_size < sizeof(h) || ch->disk >= fi->nr_disks)
		return 0;
	memcpy(&h, p, sizeof(h));
	if (h.rec_offset < sizeof(h) || h.rec_offset % 8 ||
	    h.rec_offset > ch->payload_size)
		return 0;
	room = ch->payload_size - h.rec_offset;
	return fi->hdr.record_size &&
	       room == (uint64_t)ch->nr_records * fi->hdr.record_size;
}

/*
 * A chunk of @total bytes checksummed and not taken: its bytes charged to
 * fi->crc_left (chunk_check() checked that they are left); CK_BAD.
 */
static int crc_charge(struct iot_file_info *fi, uint64_t total,
		      const uint8_t **whole)
{
	fi->crc_left -= total;
	*whole = NULL;
	return CK_BAD;
}

/*
 * Is a whole, valid chunk at @off?  CK_OK; CK_SHORT when the file ends
 * before the chunk does (by its header, if it has one); CK_BAD for a
 * header no writer makes, a checksum that does not match (files with
 * checksums), or a chunk that does not fit the file's header; CK_UNREAD
 * when it could not be read (fi->rd_err).  @ch: the chunk header
 * (zero-padded).
 *
 * What the header alone tells is checked before the checksum, which
 * reads the whole chunk: a header larger than IOT_MAX_CHUNK_HDR, or a
 * chunk read whole (trailer, COMMS, in-flight: *@whole, in @pc->whole)
 * whose payload is past its IOT_MAX_* cap, is CK_BAD unread.  The
 * chunks checksummed and not taken (a checksum that does not match, or a
 * trailer or in-flight chunk whose checksum matches and whose payload is
 * not one a writer makes) cost at most fi->crc_left bytes in all
 * (iot_file_parse()): a chunk larger than what is left of it is CK_BAD
 * unread, so that a file of many chunk headers that each claim the rest
 * of the file (the resync tries each) is read in time linear in its size.
 * Other chunks are checksummed a piece at a time (*@whole: the chunk,
 * when it fit in one piece, else NULL).
 */
static int chunk_check(const uint8_t *b, size_t len, uint64_t off,
		       struct iot_file_info *fi,
		       struct iotrace_file_chunk *ch, struct fpiece *pc,
		       const uint8_t **whole)
{
	uint64_t left = len - off, total, cap = 0;
	uint32_t min = fi->crc ? sizeof(*ch) : 16;
	const uint8_t *payload;

	memset(ch, 0, sizeof(*ch));
	*whole = NULL;
	if (left < min)
		return CK_SHORT;
	if (fcopy(fi, b, off, ch, left < sizeof(*ch) ? left : sizeof(*ch)))
		return CK_UNREAD;
	if (ch->hdr_size < min || ch->hdr_size > IOT_MAX_CHUNK_HDR ||
	    ch->hdr_size % 8 || ch->payload_size % 8)
		return CK_BAD;
	if (ch->hdr_size > left || ch->payload_size > left - ch->hdr_size)
		return CK_SHORT;
	total = ch->hdr_size + ch->payload_size;
	switch (ch->magic) {
	case IOTRACE_CHUNK_RECORDS:
		if (ch->hdr_size < IOTRACE_FILE_CHUNK_SIZE_V0 ||
		    ch->disk >= fi->nr_disks ||
		    ch->part >= fi->disks[ch->disk].nr_parts ||
		    !chunk_rs_ok(fi, ch) || ch->payload_size !=
		    (uint64_t)ch->nr_records * chunk_rs(fi, ch))
			return CK_BAD;
		break;
	case IOTRACE_CHUNK_COMMS:
		if (!file_1_2(&fi->hdr))
			break;	/* not read */
		if (!comms_esize(ch))
			return CK_BAD;
		cap = IOT_MAX_COMMS;
		break;
	case IOTRACE_CHUNK_TRAILER:
		if (ch->payload_size < sizeof(struct iotrace_file_trailer))
			return CK_BAD;
		cap = IOT_MAX_TRAILER;
		break;
	case IOTRACE_CHUNK_INFLIGHT:
		if (ch->payload_size < sizeof(struct iotrace_file_inflight) ||
		    ch->disk >= fi->nr_disks)
			return CK_BAD;
		cap = IOT_MAX_INFLIGHT;
		break;
	}
	if (cap && ch->payload_size > cap)
		return CK_BAD;
	if (fi->crc && total > fi->crc_left)
		return CK_BAD;
	if (cap) {
		/* read whole: checksummed, then parsed, in one buffer */
		*whole = chunk_whole(fi, b, off, total, pc);
		if (!*whole)
			return CK_UNREAD;
	}
	if (fi->crc) {
		uint32_t c;

		if (*whole)
			c = iot_file_chunk_crc(*whole, ch->hdr_size,
					       *whole + ch->hdr_size,
					       ch->payload_size);
		else
			c = chunk_crc_at(fi, b, off, ch->hdr_size, total, pc,
					 whole);
		if (fi->rd_err)
			return CK_UNREAD;
		fi->crc_bytes += total;
		if (c != ch->crc)
			return crc_charge(fi, total, whole);
	}
	payload = *whole ? *whole + ch->hdr_size : NULL;
	if ((ch->magic == IOTRACE_CHUNK_TRAILER &&
	     !trailer_ok(payload, ch->payload_size, fi)) ||
	    (ch->magic == IOTRACE_CHUNK_INFLIGHT &&
	     !inflight_ok(ch, payload, fi)))
		return fi->crc ? crc_charge(fi, total, whole) : CK_BAD;
	return CK_OK;
}

/*
 * Where reading goes on after a chunk at @off that chunk_check() did not
 * take (@r, @ch): in a file with checksums, the first valid chunk after
 * it, found 8 bytes at a time (a chunk magic, then chunk_check()).  The
 * chunk's own sizes, when sane, name one more place: where it would end,
 * taken when a valid chunk of any magic is there or the file ends there,
 * unless a valid chunk comes before it (the sizes may be what is
 * damaged: intact chunks in between are read).  0 when there is none,
 * or the file has no checksums to tell a chunk from other bytes.  The
 * magics of a mapped file are read with pread(), RESYNC_WIN bytes at a
 * time (fi->rd_err when that fails).
 */
static uint64_t resync(const uint8_t *b, size_t len, uint64_t off, int r,
		       const struct iotrace_file_chunk *ch,
		       struct iot_file_info *fi, struct fpiece *pc)
{
	enum { RESYNC_WIN = 4096 };
	uint8_t win[RESYNC_WIN];
	struct iotrace_file_chunk c;
	const uint8_t *w, *at = b;
	uint64_t o, jump = 0, wo = 0, wn = len;
	int k;

	if (!fi->crc || r == CK_UNREAD)
		return 0;
	if (fi->drop_behind) {
		at = win;
		wn = 0;
	}
	if (r == CK_BAD && ch->hdr_size >= sizeof(c) && !(ch->hdr_size % 8) &&
	    !(ch->payload_size % 8) && ch->hdr_size <= len - off &&
	    ch->payload_size <= len - off - ch->hdr_size)
		jump = off + ch->hdr_size + ch->payload_size;
	for (o = off + 8; o < len && len - o >= sizeof(c); o += 8) {
		uint32_t m;

		/* (in memory: the window is the whole buffer) */
		if (o - wo + sizeof(m) > wn) {
			wo = o;
			wn = len - o < RESYNC_WIN ? len - o : RESYNC_WIN;
			if (fcopy(fi, b, wo, win, wn))
				return 0;
		}
		memcpy(&m, at + (o - wo), sizeof(m));
		if (o != jump &&
		    m != IOTRACE_CHUNK_RECORDS && m != IOTRACE_CHUNK_COMMS &&
		    m != IOTRACE_CHUNK_STACK && m != IOTRACE_CHUNK_TRIGGER &&
		    m != IOTRACE_CHUNK_INFLIGHT && m != IOTRACE_CHUNK_IDENT &&
		    m != IOTRACE_CHUNK_BOOT && m != IOTRACE_CHUNK_TRAILER)
			continue;
		k = chunk_check(b, len, o, fi, &c, pc, &w);
		if (k == CK_OK || k == CK_UNREAD)
			return k == CK_OK ? o : 0;
	}
	return jump == len ? len : 0;
}

/* Keep the offset of an in-flight chunk the parse took: 0, -1 (ENOMEM). */
static int note_inflight(struct iot_file_info *fi, uint64_t off)
{
	uint64_t *v;

	if (!(fi->nr_infl & (fi->nr_infl + 1))) {
		/* full at 2^k - 1 entries: double */
		v = realloc(fi->infl, (2 * (size_t)fi->nr_infl + 1) *
			    sizeof(*v));
		if (!v)
			return -1;
		fi->infl = v;
	}
	fi->infl[fi->nr_infl++] = off;
	return 0;
}

/*
 * The bytes after the trailer, which ends at @off: how many (fi->after,
 * not read: the file ends at its trailer), and whether they begin with a
 * trace file's magic (another file appended).  0, or -1 when that could
 * not be read (fi->rd_err).
 */
static int note_after(const uint8_t *b, size_t len, uint64_t off,
		      struct iot_file_info *fi)
{
	uint8_t magic[IOTRACE_FILE_MAGIC_LEN];

	fi->after = len - off;
	fi->after_off = off;
	if (fi->after < sizeof(magic))
		return 0;
	if (fcopy(fi, b, off, magic, sizeof(magic)))
		return -1;
	fi->after_file = !memcmp(magic, IOTRACE_FILE_MAGIC, sizeof(magic));
	return 0;
}

/**
 * iot_file_parse() - validate a trace file and hand its records to @cb.
 * @buf: file bytes.
 * @len: file length.
 * @fi: filled with header, disks, trailer counts, what is missing and
 *	where each part's chunks are; zeroed before the first call, what an
 *	earlier call left in it is freed.
 * @cb: callback for each record (may be NULL).
 * @arg: its argument.
 * @err: buffer for an error message naming what is wrong.
 * @errlen: size of @err.
 *
 * A file that is not whole is read as far as it can be (salvaged): one
 * cut short (no trailer) up to its last complete chunk; in a file with
 * checksums, a damaged chunk is skipped and reading goes on at the next
 * valid chunk; in one without, reading stops at a damaged chunk.  Bytes
 * after the trailer (another file appended, or garbage) are not read:
 * the file is salvaged too.
 * @fi says what is missing (fi->salvaged, iot_file_salvage_str()); the
 * same bytes give the same records and the same @fi on every call.
 *
 * Return: 0; -1 with @err set for a foreign or newer-major file, one
 * whose header or disk table is cut short or corrupt, or a mapped file
 * (@fi->drop_behind) that could not be read (iot_file_read_error(): cut
 * while it was read); or the callback's non-zero value.
 */
int iot_file_parse(const void *buf, size_t len, struct iot_file_info *fi,
		   iot_rec_cb cb, void *arg, char *err, size_t errlen)
{
	const uint8_t *b = buf;
	uint64_t rec[IOT_MAX_RECORD / 8];
	uint64_t off, dropped = 0;
	int drop_behind = fi->drop_behind, fd = fi->fd;
	struct iot_comms *comms = fi->comms;
	struct fpiece pc = { NULL, 0, NULL, 0 };
	unsigned int i;
	int ret = -1, hr;

	iot_file_info_free(fi);
	memset(fi, 0, sizeof(*fi));
	fi->drop_behind = drop_behind;
	fi->fd = drop_behind ? fd : -1;
	fi->comms = comms;
	/* a mapped file cut before the parse: said as such at once */
	fi->rd_err = drop_behind ? fhas(fi, len) : 0;
	if (fi->rd_err)
		goto unread;
	hr = parse_header(b, len, fi, err, errlen);
	if (hr == -2)
		goto unread;
	if (hr)
		return -1;
	fi->crc = file_1_2(&fi->hdr) && (fi->hdr.flags & IOTRACE_FILE_CRC32C);
	/* checksums that do not match: as many bytes as the file, and 64 MB */
	fi->crc_left = len + IOT_CRC_SLACK;
	if (fpiece_init(&pc, fi, FPIECE_MAX)) {
		ERR("out of memory");
		goto out;
	}
	off = fi->hdr.hdr_size;
	fi->end = len;
	while (off < len) {
		struct iotrace_file_chunk ch;
		const uint8_t *whole, *payload;
		struct iot_file_part *pt;
		uint64_t n, nxt, *want;
		int r = chunk_check(b, len, off, fi, &ch, &pc, &whole);

		if (r == CK_UNREAD)
			goto unread;
		if (r != CK_OK) {
			nxt = resync(b, len, off, r, &ch, fi, &pc);
			if (fi->rd_err)
				goto unread;
			if (!nxt || fi->nr_skips == IOT_MAX_SKIPS) {
				/* the rest of the file cannot be read */
				fi->end = off;
				fi->cut = len - off;
				fi->cut_why = !nxt && r == CK_SHORT ?
					IOT_CUT_INCOMPLETE : IOT_CUT_DAMAGED;
				break;
			}
			if (!fi->bad_chunks)
				fi->bad_off = off;
			fi->skips[fi->nr_skips].off = off;
			fi->skips[fi->nr_skips++].end = nxt;
			fi->bad_chunks++;
			if (ch.magic == IOTRACE_CHUNK_INFLIGHT)
				fi->bad_infl++;
			fi->bad_bytes += nxt - off;
			off = nxt;
			continue;
		}
		payload = whole ? whole + ch.hdr_size : NULL;
		if (ch.magic == IOTRACE_CHUNK_TRAILER) {
			parse_trailer(payload, fi);
			fi->end = off;
			if (note_after(b, len, off + ch.hdr_size +
				       ch.payload_size, fi))
				goto unread;
			break;
		}
		if (ch.magic == IOTRACE_CHUNK_COMMS && file_1_2(&fi->hdr)) {
			if (!cb)
				parse_comms(fi->comms, &ch, payload);
			goto next;
		}
		if (ch.magic == IOTRACE_CHUNK_INFLIGHT) {
			if (note_inflight(fi, off)) {
				ERR("out of memory");
				goto out;
			}
			goto next;
		}
		if (ch.magic != IOTRACE_CHUNK_RECORDS)
			goto next;	/* a newer minor's chunk: skip it */
		fi->chunks++;
		/* a disk's parts: from its first records chunk on */
		if (!fi->parts[ch.disk]) {
			fi->parts[ch.disk] = calloc(fi->disks[ch.disk].nr_parts,
						    sizeof(*pt));
			if (!fi->parts[ch.disk]) {
				ERR("out of memory");
				goto out;
			}
		}
		pt = &fi->parts[ch.disk][ch.part];
		if (ch.nr_records) {
			if (!pt->first)
				pt->first = off;
			pt->last = off;
		}
		/* records missing between two chunks of a part: loss */
		want = &pt->want;
		if (*want && ch.first_seq > *want - 1) {
			fi->gaps++;
			fi->gap_records += ch.first_seq - (*want - 1);
			fi->counts[ch.disk].gaps++;
			fi->counts[ch.disk].gap_records +=
				ch.first_seq - (*want - 1);
		}
		*want = ch.first_seq + ch.nr_records + 1;
		fi->counts[ch.disk].present += ch.nr_records;
		fi->counts[ch.disk].valid += ch.nr_records;
		for (n = 0; cb && n < ch.nr_records; ) {
			uint32_t rs = chunk_rs(fi, &ch), k, cnt;
			const uint8_t *p;

			/* the records: read with the checksum, or now */
			if (payload) {
				p = payload;
				cnt = ch.nr_records;
			} else {
				p = chunk_recs(fi, b, off, ch.hdr_size, rs, n,
					       ch.nr_records, &pc, &cnt);
				if (!p)
					goto unread;
			}
			for (k = 0; k < cnt; k++, n++) {
				file_rec(&fi->hdr, p + (uint64_t)k * rs, rs,
					 (struct iotrace_record *)rec);
				ret = cb(arg, ch.disk,
					 (const struct iotrace_record *)rec);
				if (ret)
					goto out;
			}
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
	for (i = 0; i < fi->nr_disks; i++) {
		struct iot_counts *c = &fi->counts[i];

		c->no_trailer = !fi->has_trailer;
		if (c->no_trailer)
			continue;

		/* what the trailer says was written and is not here */
		if (c->written > c->present) {
			c->unread = c->written - c->present;
			fi->unread += c->unread;
		}
		if (c->present > c->written ||
		    (c->present < c->written && !fi->bad_chunks))
			fi->mismatch = 1;
	}
	fi->salvaged = !fi->has_trailer || fi->bad_chunks || fi->unread ||
		fi->mismatch || fi->after;
	ret = 0;
out:
	free(pc.buf);
	free(pc.whole);
	return ret;
unread:
	iot_file_read_error(fi, len, err, errlen);
	ret = -1;
	goto out;
}

/**
 * iot_file_info_free() - free what iot_file_parse() allocated in @fi.
 * @fi: zeroed, or filled by iot_file_parse().
 */
void iot_file_info_free(struct iot_file_info *fi)
{
	unsigned int i;

	for (i = 0; i < IOT_MAX_DISKS; i++) {
		free(fi->parts[i]);
		fi->parts[i] = NULL;
	}
	free(fi->infl);
	fi->infl = NULL;
	fi->nr_infl = 0;
}

/*
 * The header of a chunk iot_file_parse() took, at @o (before fi->end),
 * read again into @ch.  The file may have changed in place since: a
 * header the parse would not have taken (a size too small, not a
 * multiple of 8 or past fi->end; a records chunk whose disk, part or
 * record size no writer makes) fails the read with EIO, as a failed
 * read does, so that the walks after it, which move on by the chunk's
 * size, always move on.  Return: 0, or -1 (fi->rd_err).
 */
static int chunk_hdr_read(const uint8_t *b, struct iot_file_info *fi,
			  uint64_t o, struct iotrace_file_chunk *ch)
{
	uint64_t left = fi->end - o;
	uint32_t min = fi->crc ? sizeof(*ch) : 16;

	memset(ch, 0, sizeof(*ch));
	if (fcopy(fi, b, o, ch, left < sizeof(*ch) ? left : sizeof(*ch)))
		return -1;
	if (ch->hdr_size < min || ch->hdr_size > IOT_MAX_CHUNK_HDR ||
	    ch->hdr_size % 8 || ch->payload_size % 8 ||
	    ch->hdr_size > left || ch->payload_size > left - ch->hdr_size)
		goto changed;
	if (ch->magic == IOTRACE_CHUNK_RECORDS &&
	    (ch->hdr_size < IOTRACE_FILE_CHUNK_SIZE_V0 ||
	     ch->disk >= fi->nr_disks ||
	     ch->part >= fi->disks[ch->disk].nr_parts ||
	     !chunk_rs_ok(fi, ch) ||
	     ch->payload_size != (uint64_t)ch->nr_records * chunk_rs(fi, ch)))
		goto changed;
	return 0;
changed:
	fi->rd_err = EIO;
	fi->changed_off = o;
	return -1;
}

/*
 * The header of the chunk at @*off, or of the next one after a damaged
 * range iot_file_parse() skipped (fi->skips; @*skip: the next range ahead,
 * moved on), up to where it stopped (fi->end): the chunks in between are
 * valid (chunk_hdr_read()).  Return: 0 with @ch and @*off set, -1 at the
 * end (or a trailer, or a failed read or changed file: fi->rd_err).
 */
static int chunk_hdr_at(const uint8_t *b, struct iot_file_info *fi,
			uint64_t *off, unsigned int *skip,
			struct iotrace_file_chunk *ch)
{
	uint64_t o = *off;

	for (;;) {
		while (*skip < fi->nr_skips && fi->skips[*skip].end <= o)
			(*skip)++;
		if (*skip < fi->nr_skips && fi->skips[*skip].off == o) {
			o = fi->skips[*skip].end;
			continue;
		}
		if (o >= fi->end)
			return -1;
		if (chunk_hdr_read(b, fi, o, ch) ||
		    ch->magic == IOTRACE_CHUNK_TRAILER)
			return -1;
		*off = o;
		return 0;
	}
}

/**
 * iot_file_chunks_begin() - begin a walk of the chunks of a trace file
 *	that iot_file_parse() took, for iot_file_chunk_next().
 * @fi: what the parse found in the file (all of it).
 * @w: the walk, set up here.
 *
 * Return: 1, or 0 for a file of a minor version before 2 (records chunks
 * only, and chunks of later minors it does not know).
 */
int iot_file_chunks_begin(const struct iot_file_info *fi,
			  struct iot_chunk_walk *w)
{
	w->off = fi->hdr.hdr_size;
	w->skip = 0;
	return file_1_2(&fi->hdr);
}

/**
 * iot_file_chunk_next() - the next chunk of a walk begun by
 *	iot_file_chunks_begin(): in file order, those iot_file_parse() took
 *	(whole, sizes and checksum checked), none of the damaged ranges it
 *	skipped, up to the trailer or where it stopped.
 * @buf: the file's bytes (@fi says how they are read: iot_file_copy()).
 * @fi: its information.
 * @w: the walk.
 * @off: set to the chunk's offset.
 * @ch: set to its header, read again (chunk_hdr_read()).
 *
 * Return: 1 with a chunk, 0 after the last, -1 when the file could not be
 * read or changed since the parse (@fi->rd_err).
 */
int iot_file_chunk_next(const void *buf, struct iot_file_info *fi,
			struct iot_chunk_walk *w, uint64_t *off,
			struct iotrace_file_chunk *ch)
{
	uint64_t o = w->off;

	if (chunk_hdr_at(buf, fi, &o, &w->skip, ch))
		return fi->rd_err ? -1 : 0;
	*off = o;
	w->off = o + ch->hdr_size + ch->payload_size;
	return 1;
}

/**
 * iot_file_chunk_at() - the header of the chunk at @off of a trace file.
 * @buf: the file's bytes.
 * @len: their length.
 * @fi: the file's reading state.
 * @off: the chunk's offset (the next one's: @off + hdr_size + payload_size).
 * @ch: its header, read here.
 *
 * Return: 1 for a chunk that fits in the file, 0 at the trailer, the end
 * or a header that does not fit (or is larger than IOT_MAX_CHUNK_HDR), -1
 * when the file could not be read.
 */
int iot_file_chunk_at(const void *buf, size_t len, struct iot_file_info *fi,
		      uint64_t off, struct iotrace_file_chunk *ch)
{
	if (off > len || len - off < 16)
		return 0;
	memset(ch, 0, sizeof(*ch));
	if (iot_file_copy(fi, buf, off, ch, len - off < sizeof(*ch) ?
			  len - off : sizeof(*ch)))
		return -1;
	return !(ch->hdr_size < 16 || ch->hdr_size > IOT_MAX_CHUNK_HDR ||
		 ch->hdr_size > len - off ||
		 ch->payload_size > len - off - ch->hdr_size ||
		 ch->magic == IOTRACE_CHUNK_TRAILER);
}

/*
 * The payloads of the @magic chunks of a trace file that iot_file_parse()
 * accepted, each into @esize bytes at @out (a shorter payload zero-filled,
 * a longer one cut), their disk index into @disks; at most @max.
 * Return: how many, or -1 when the file could not be read (@fi->rd_err).
 */
static int chunks_of(const void *buf, size_t len, struct iot_file_info *fi,
		     uint32_t magic, void *out, size_t esize,
		     unsigned int *disks, unsigned int max)
{
	struct iotrace_file_chunk ch;
	struct iot_chunk_walk w;
	unsigned int n = 0;
	uint64_t off;
	uint8_t *o;
	int r;

	(void)len;
	if (!iot_file_chunks_begin(fi, &w))
		return 0;
	while (n < max) {
		r = iot_file_chunk_next(buf, fi, &w, &off, &ch);
		if (r < 0)
			return -1;
		if (!r)
			break;
		if (ch.magic == magic) {
			size_t k = ch.payload_size < esize ?
				   ch.payload_size : esize;

			o = (uint8_t *)out + (size_t)n * esize;
			memset(o, 0, esize);
			if (iot_file_copy(fi, buf, off + ch.hdr_size, o, k))
				return -1;
			disks[n++] = ch.disk;
		}
	}
	return (int)n;
}

/**
 * iot_uuid_str() - a boot id as text, "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx".
 * @u: its 16 bytes.
 * @out: room for 37 bytes.
 */
void iot_uuid_str(const uint8_t *u, char *out)
{
	static const int dash[16] = { [4] = 1, [6] = 1, [8] = 1, [10] = 1 };
	int i;

	for (i = 0; i < 16; i++)
		out += sprintf(out, "%s%02x", dash[i] ? "-" : "", u[i]);
}

/**
 * iot_file_boot() - the boot a trace file's records come from when it is
 *	not the writer's: its boot chunk (IOTRACE_CHUNK_BOOT) that
 *	iot_file_parse() accepted, the first if there are several.
 * @buf: the file.
 * @len: its length.
 * @fi: its information (read as iot_file_triggers() reads it).
 * @out: the chunk's payload (a shorter one zero-filled); zeroed when
 *	there is none.
 *
 * Return: 1, 0 without a boot chunk, or -1 when the file could not be
 * read (@fi->rd_err).
 */
int iot_file_boot(const void *buf, size_t len, struct iot_file_info *fi,
		  struct iotrace_file_boot *out)
{
	unsigned int disk;
	int n;

	/* chunks_of() zeroes what it fills; nothing, or a failed read: zero */
	n = chunks_of(buf, len, fi, IOTRACE_CHUNK_BOOT, out, sizeof(*out),
		      &disk, 1);
	if (n <= 0)
		memset(out, 0, sizeof(*out));
	return n;
}

/* model, serial and wwn NUL-terminated, whatever the file held */
#define ID_TERMINATE(x) do {					\
		__typeof__(x) id_ = (x);			\
								\
		id_->model[IOTRACE_FILE_ID_LEN - 1] = 0;	\
		id_->serial[IOTRACE_FILE_ID_LEN - 1] = 0;	\
		id_->wwn[IOTRACE_FILE_ID_LEN - 1] = 0;		\
	} while (0)

/**
 * iot_file_triggers() - the trigger chunks of a trace file that
 *	iot_file_parse() accepted.
 * @buf: the file.
 * @len: its length.
 * @fi: its information: a mapped file (@fi->drop_behind) is read as the
 *	parse reads it, with pread() (iot_file_copy()), never from the
 *	mapping, which would be SIGBUS past the end of a file another
 *	process cut since it was opened.
 * @out: up to @max payloads (shorter ones zero-filled, longer cut).
 * @disks: their chunks' disk index.
 * @max: room in @out and @disks.
 *
 * Return: the number of trigger chunks found (at most @max), or -1 when
 * the file could not be read (@fi->rd_err: iot_src_read_error() says
 * why).
 */
int iot_file_triggers(const void *buf, size_t len, struct iot_file_info *fi,
		      struct iotrace_file_trigger *out, unsigned int *disks,
		      unsigned int max)
{
	int i, n;

	n = chunks_of(buf, len, fi, IOTRACE_CHUNK_TRIGGER, out, sizeof(*out),
		      disks, max);
	for (i = 0; i < n; i++)
		ID_TERMINATE(&out[i]);
	return n;
}

/**
 * iot_file_idents() - who the disks of a trace file are: its identity
 *	chunks (IOTRACE_CHUNK_IDENT) that iot_file_parse() accepted.
 * @buf: the file.
 * @len: its length.
 * @fi: its information (read as iot_file_triggers() reads it).
 * @out: one entry per disk of @fi (@fi->nr_disks), zeroed first; a disk
 *	without a chunk keeps its zeros.
 * @have: per disk, set to 1 when a chunk gave its entry, else 0.
 *
 * Return: the number of disks with an identity, or -1 when the file
 * could not be read (@fi->rd_err) or on ENOMEM.
 */
int iot_file_idents(const void *buf, size_t len, struct iot_file_info *fi,
		    struct iotrace_file_ident *out, unsigned char *have)
{
	unsigned int nd = fi->nr_disks, *disks, i;
	struct iotrace_file_ident *v;
	int n, k = 0;

	memset(out, 0, nd * sizeof(*out));
	memset(have, 0, nd);
	if (!nd)
		return 0;
	v = calloc(nd, sizeof(*v));
	disks = calloc(nd, sizeof(*disks));
	if (!v || !disks) {
		free(v);
		free(disks);
		return -1;
	}
	n = chunks_of(buf, len, fi, IOTRACE_CHUNK_IDENT, v, sizeof(*v), disks,
		      nd);
	for (i = 0; n > 0 && i < (unsigned int)n; i++) {
		if (disks[i] >= nd)
			continue;
		out[disks[i]] = v[i];
		ID_TERMINATE(&out[disks[i]]);
		k += !have[disks[i]];
		have[disks[i]] = 1;
	}
	free(v);
	free(disks);
	return n < 0 ? -1 : k;
}

/**
 * iot_file_inflight() - the requests in flight at the end of a trace file
 *	that iot_file_parse() accepted (its IOTRACE_CHUNK_INFLIGHT chunks: a
 *	previous boot's), handed to @cb a disk at a time.
 * @buf: the file.
 * @len: its length.
 * @fi: its information: the chunks are those the parse took (checked
 *	whole, found past damage where it resynced); they are read again as
 *	iot_file_triggers() reads, and checked again (a file cut or changed
 *	since).
 * @cb: called with each chunk's table; a non-zero return stops the walk
 *	and is returned.
 * @arg: passed to @cb.
 * @damaged: set to the in-flight chunks left out: damaged ones the parse
 *	skipped (among those iot_file_salvage_str() counts) and those found
 *	changed since.
 *
 * Return: 0, @cb's non-zero return, or -1 when the file could not be read
 * (@fi->rd_err) or memory ran out (errno ENOMEM).
 */
int iot_file_inflight(const void *buf, size_t len, struct iot_file_info *fi,
		      int (*cb)(void *arg, const struct iot_inflight *t),
		      void *arg, unsigned int *damaged)
{
	struct iotrace_file_inflight h;
	struct iotrace_file_chunk ch;
	struct iot_inflight t;
	unsigned int i;
	uint8_t *p;
	uint64_t off;
	size_t k;
	int r = 0;

	*damaged = fi->bad_infl;
	for (i = 0; i < fi->nr_infl && !r; i++) {
		off = fi->infl[i];
		if (iot_file_chunk_at(buf, len, fi, off, &ch) <= 0 ||
		    ch.magic != IOTRACE_CHUNK_INFLIGHT ||
		    ch.hdr_size < (fi->crc ? sizeof(ch) : 16) ||
		    ch.hdr_size % 8 || ch.payload_size % 8 ||
		    ch.payload_size > IOT_MAX_INFLIGHT) {
			if (fi->rd_err)
				return -1;
			(*damaged)++;
			continue;
		}
		p = malloc(ch.hdr_size + ch.payload_size);
		if (!p) {
			errno = ENOMEM;
			return -1;
		}
		if (iot_file_copy(fi, buf, off, p,
				  ch.hdr_size + ch.payload_size)) {
			free(p);
			return -1;
		}
		if ((fi->crc && iot_file_chunk_crc(p, ch.hdr_size,
						   p + ch.hdr_size,
						   ch.payload_size) != ch.crc) ||
		    !inflight_ok(&ch, p + ch.hdr_size, fi)) {
			free(p);
			(*damaged)++;
			continue;
		}
		memcpy(&h, p + ch.hdr_size, sizeof(h));
		memset(&t, 0, sizeof(t));
		t.disk = ch.disk;
		t.at_ns = h.at_ns;
		t.torn = h.torn;
		t.nr = ch.nr_records;
		t.recs = calloc(t.nr ? t.nr : 1, sizeof(*t.recs));
		if (!t.recs) {
			free(p);
			errno = ENOMEM;
			return -1;
		}
		for (k = 0; k < t.nr; k++) {
			struct iotrace_record *rec = &t.recs[k];

			file_rec(&fi->hdr, p + ch.hdr_size + h.rec_offset +
				 k * fi->hdr.record_size, fi->hdr.record_size,
				 rec);
			/* not completed, whatever the file says */
			rec->seq = 0;
			rec->complete_ns = 0;
			rec->rflags &= ~IOTRACE_RF_COMPLETE;
		}
		free(p);
		r = cb(arg, &t);
		free(t.recs);
	}
	return r;
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/**
 * iot_file_salvage_str() - what a file iot_file_parse() read is missing.
 * @fi: what iot_file_parse() found.
 * @out: one line (no newline), starting with "truncated trace file" or
 *	"damaged trace file".
 * @len: its size.
 *
 * Return: 0 for a whole file (@out empty), 1 when @out says what is
 * missing and what that means.
 */
int iot_file_salvage_str(const struct iot_file_info *fi, char *out,
			 size_t len)
{
	uint64_t recs = 0, written = 0;
	const char *sep;
	unsigned int i;
	size_t n = 0;

#define PUT(...) (n += snprintf(out + n, n < len ? len - n : 0, __VA_ARGS__))
	if (len)
		out[0] = 0;
	if (!fi->salvaged)
		return 0;
	for (i = 0; i < fi->nr_disks; i++) {
		recs += fi->counts[i].present;
		written += fi->counts[i].written;
	}
	if (!fi->has_trailer) {
		PUT("truncated trace file: the recording did not finish (no trailer)");
		if (fi->cut && fi->cut_why == IOT_CUT_INCOMPLETE)
			PUT(": %llu bytes after the last complete chunk (offset %llu) cut off",
			    (unsigned long long)fi->cut,
			    (unsigned long long)fi->end);
		else if (fi->cut)
			/* PUT() spelled out: its string on a line of its own */
			n += snprintf(out + n, n < len ? len - n : 0,
				      ": %llu bytes from offset %llu are no valid chunk (damaged, or never written) and were not read",
				      (unsigned long long)fi->cut,
				      (unsigned long long)fi->end);
		else
			PUT(": the file ends after a complete chunk");
	} else {
		PUT("damaged trace file");
	}
	sep = fi->has_trailer ? ": " : "; ";
	if (fi->bad_chunks) {
		PUT("%s%llu damaged chunk%s skipped (%llu bytes, the first at offset %llu)",
		    sep, (unsigned long long)fi->bad_chunks,
		    plural(fi->bad_chunks), (unsigned long long)fi->bad_bytes,
		    (unsigned long long)fi->bad_off);
		sep = "; ";
	}
	if (fi->after) {
		PUT("%s%llu byte%s after the trailer (from offset %llu) not read",
		    sep, (unsigned long long)fi->after, plural(fi->after),
		    (unsigned long long)fi->after_off);
		if (fi->after_file)
			/* PUT() spelled out: its string on a line of its own */
			n += snprintf(out + n, n < len ? len - n : 0,
				      ": they begin with another trace file (files joined end to end are not one trace: read each on its own)");
		else
			PUT(": a trace file ends at its trailer");
		sep = "; ";
	}
	PUT("%s%llu record%s read in %llu chunk%s",
	    sep, (unsigned long long)recs, plural(recs),
	    (unsigned long long)fi->chunks, plural(fi->chunks));
	if (fi->gaps)
		PUT(", %llu sequence gap%s (%llu record%s missing)",
		    (unsigned long long)fi->gaps, plural(fi->gaps),
		    (unsigned long long)fi->gap_records,
		    plural(fi->gap_records));
	if (!fi->has_trailer)
		PUT("; with no trailer, what was recorded after that is unknown");
	else if (fi->unread && fi->bad_chunks)
		PUT("; the trailer says %llu were written: %llu missing",
		    (unsigned long long)written,
		    (unsigned long long)fi->unread);
	else if (fi->mismatch)
		PUT("; but the trailer says %llu were written",
		    (unsigned long long)written);
#undef PUT
	return 1;
}

static void wr(struct iot_writer *w, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, w->fp) != n)
		w->error = 1;
	w->bytes += n;
}

/*
 * An in-flight table's mark of a request whose completed record is
 * written (iot_inflight_drop_done()): no in-flight copy carries it, the
 * module's nor a file's.
 */
#define INFL_DONE	IOTRACE_RF_COMPLETE

/*
 * The request of in-flight table @t (oldest issue first) with @r's issue
 * time, queue, tag and sector, not marked done, or -1: a request's
 * in-flight copy and the record of its completion share them.
 */
static long infl_find(const struct iot_inflight *t,
		      const struct iotrace_record *r)
{
	size_t lo = 0, hi = t->nr, k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->recs[mid].issue_ns < r->issue_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k < t->nr && t->recs[k].issue_ns == r->issue_ns; k++)
		if (t->recs[k].hwq == r->hwq && t->recs[k].tag == r->tag &&
		    t->recs[k].sector == r->sector &&
		    !(t->recs[k].rflags & INFL_DONE))
			return (long)k;
	return -1;
}

/**
 * iot_inflight_drop_done() - take out of an in-flight table the requests
 *	whose completed records are at hand.
 * @t: the table (oldest issue first, as the module gives it), taken
 *	before the pass that copies @recs.
 * @recs: completed records.
 * @nr: their number.
 *
 * A request that completes between a recording's in-flight table and its
 * last pass is in both: it is kept once, as completed.  A request
 * requeued meanwhile has a new issue time and stays in both.  Each is
 * marked here, in its place (the table stays sorted for the next
 * chunk's lookups), and left out by iot_writer_inflight(): a table of
 * many requests that mostly complete costs no quadratic time.
 */
void iot_inflight_drop_done(struct iot_inflight *t,
			    const struct iotrace_record *recs, uint32_t nr)
{
	uint32_t i;

	for (i = 0; i < nr && t->nr; i++) {
		long k = infl_find(t, &recs[i]);

		if (k >= 0)
			t->recs[k].rflags |= INFL_DONE;
	}
}

/* The records of @t not marked done (iot_inflight_drop_done()). */
static size_t infl_kept(const struct iot_inflight *t)
{
	size_t k, n = 0;

	for (k = 0; k < t->nr; k++)
		n += !(t->recs[k].rflags & INFL_DONE);
	return n;
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
	w->major = record_size == sizeof(struct iotrace_record) ?
		IOTRACE_FILE_MAJOR : 1;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, IOTRACE_FILE_MAGIC, IOTRACE_FILE_MAGIC_LEN);
	h.major = w->major;
	h.minor = w->major == IOTRACE_FILE_MAJOR ? IOTRACE_FILE_MINOR : 2;
	h.disk_offset = sizeof(h);
	h.disk_size = sizeof(struct iotrace_file_disk);
	h.nr_disks = nr_disks;
	h.hdr_size = sizeof(h) + nr_disks * sizeof(struct iotrace_file_disk);
	h.record_size = record_size;
	h.flags = IOTRACE_FILE_CRC32C;
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

/* A chunk: its header (@ch, crc filled in here) and payload. */
static void wr_chunk(struct iot_writer *w, struct iotrace_file_chunk *ch,
		     const void *payload)
{
	ch->hdr_size = sizeof(*ch);
	ch->crc = 0;
	ch->crc = iot_file_chunk_crc(ch, sizeof(*ch), payload,
				     ch->payload_size);
	wr(w, ch, sizeof(*ch));
	wr(w, payload, ch->payload_size);
}

/* The oldest and newest completion times among @nr records at @recs. */
static void note_span(struct iot_writer *w, const void *recs, uint32_t nr)
{
	const uint8_t *p = recs;
	uint64_t t;
	uint32_t i;

	for (i = 0; i < nr; i++, p += w->record_size) {
		memcpy(&t, p + offsetof(struct iotrace_record, complete_ns),
		       sizeof(t));
		if (t < w->first_ns)
			w->first_ns = t;
		if (t > w->last_ns)
			w->last_ns = t;
	}
}

/* 16 bytes, ORed as one (two words where the CPU has no vector unit) */
typedef uint64_t iot_v2 __attribute__((vector_size(16)));

/*
 * The bytes of the @nr records at @r that the major 2 layout needs: up
 * to the last 8 bytes that are not all zero in any of them
 * (IOTRACE_FILE_REC_HEAD at least).  One pass ORs each record's
 * submitter and command, 16 bytes at a time and without a branch.
 */
static uint32_t recs_used(const struct iotrace_record *r, uint32_t nr)
{
	iot_v2 a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 }, a4 = { 0 }, v;
	uint64_t w[10];
	unsigned int i;
	uint32_t k;

	for (k = 0; k < nr; k++) {
		const uint8_t *c = r[k].cmd;

		memcpy(&v, &r[k].pid, sizeof(v));
		a0 |= v;
		memcpy(&v, c, sizeof(v));
		a1 |= v;
		memcpy(&v, c + 16, sizeof(v));
		a2 |= v;
		memcpy(&v, c + 32, sizeof(v));
		a3 |= v;
		memcpy(&v, c + 48, sizeof(v));
		a4 |= v;
	}
	memcpy(w, &a0, 16);
	memcpy(w + 2, &a1, 16);
	memcpy(w + 4, &a2, 16);
	memcpy(w + 6, &a3, 16);
	memcpy(w + 8, &a4, 16);
	for (i = 10; i && !w[i - 1]; i--)
		;
	return IOTRACE_FILE_REC_EXT_OFF + i * 8;
}

_Static_assert(sizeof(struct iotrace_file_rec_ext) == 16 &&
	       IOTRACE_CMD_LEN == 64, "recs_used(): five times 16 bytes");

/*
 * The @nr records at @r in the major 2 layout at @o, @rs bytes apart
 * (recs_used()), each written whole by copies of fixed size: the bytes
 * of a record past @rs are zeros, overwritten by the next record's
 * first ones; the last record's fall into the IOTRACE_FILE_RECORD_SIZE -
 * @rs bytes of room the buffer has past @nr * @rs.
 */
static void recs_pack(uint8_t *o, const struct iotrace_record *r,
		      uint32_t nr, uint32_t rs)
{
	uint32_t k;

	/* the most common size, no command: nothing to cover */
	if (rs == IOTRACE_FILE_REC_CMD_OFF) {
		for (k = 0; k < nr; k++, o += rs) {
			memcpy(o, &r[k], IOTRACE_FILE_REC_HEAD);
			memcpy(o + IOTRACE_FILE_REC_EXT_OFF, &r[k].pid,
			       sizeof(struct iotrace_file_rec_ext));
		}
		return;
	}
	for (k = 0; k < nr; k++, o += rs) {
		memcpy(o, &r[k], IOTRACE_FILE_REC_HEAD);
		memcpy(o + IOTRACE_FILE_REC_EXT_OFF, &r[k].pid,
		       sizeof(struct iotrace_file_rec_ext));
		memcpy(o + IOTRACE_FILE_REC_CMD_OFF, r[k].cmd, IOTRACE_CMD_LEN);
	}
}

/*
 * Write @nr records (record_size bytes each) of sequences first_seq...
 * Major 2: as short as the records allow, the same size for all of them
 * (the longest one's).
 */
int iot_writer_chunk(struct iot_writer *w, unsigned int disk,
		     unsigned int part, uint64_t first_seq, const void *recs,
		     uint32_t nr)
{
	const struct iotrace_record *r = recs;
	struct iotrace_file_chunk ch;
	uint8_t *packed = NULL;
	uint32_t rs;

	if (!nr)
		return 0;
	if (w->pending && disk < w->nr_disks)
		iot_inflight_drop_done(&w->pending[disk], r, nr);
	memset(&ch, 0, sizeof(ch));
	ch.magic = IOTRACE_CHUNK_RECORDS;
	ch.disk = disk;
	ch.part = part;
	ch.nr_records = nr;
	ch.first_seq = first_seq;
	rs = w->record_size;
	if (w->major >= 2) {
		rs = recs_used(r, nr);
		packed = malloc((size_t)nr * rs + IOTRACE_FILE_RECORD_SIZE - rs);
		if (!packed) {
			errno = ENOMEM;
			w->error = 1;
			return -1;
		}
		recs_pack(packed, r, nr, rs);
		ch.record_size = rs;
	}
	ch.payload_size = (uint64_t)nr * rs;
	wr_chunk(w, &ch, packed ? packed : recs);
	free(packed);
	w->chunks++;
	if (w->span)
		note_span(w, recs, nr);
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
	ch.payload_size = (uint64_t)nr * sizeof(*v);
	ch.nr_records = nr;
	wr_chunk(w, &ch, v);
	return w->error ? -1 : 0;
}

/**
 * iot_writer_other() - write a chunk of a type the writer does not make
 *	itself (a snapshot's IOTRACE_CHUNK_TRIGGER): @ch's magic, disk,
 *	part, nr_records and first_seq as given, its sizes filled in, then
 *	@ch->payload_size bytes of @payload.  Every chunk goes through the
 *	same path (wr_chunk(): header size and CRC-32C), so that it is
 *	framed as the writer frames its own.
 * @w: the writer (before iot_writer_finish()).
 * @ch: the chunk header.
 * @payload: its payload.
 *
 * Return: 0 or -1 on a write error.
 */
int iot_writer_other(struct iot_writer *w, struct iotrace_file_chunk *ch,
		     const void *payload)
{
	wr_chunk(w, ch, payload);
	return w->error ? -1 : 0;
}

/*
 * In-flight record @r of @w's file at @o (IOT_MAX_RECORD bytes of room),
 * as records chunks hold it: its first @w->record_size bytes.
 */
static void infl_rec(const struct iot_writer *w,
		     const struct iotrace_record *r, uint8_t *o)
{
	memset(o, 0, w->record_size > IOTRACE_FILE_RECORD_SIZE ?
	       w->record_size : IOTRACE_FILE_RECORD_SIZE);
	if (w->major >= 2)
		/* whole records: no room needed past the last */
		recs_pack(o, r, 1, w->record_size);
	else
		memcpy(o, r, w->record_size < sizeof(*r) ?
		       w->record_size : sizeof(*r));
}

/**
 * iot_writer_inflight() - write a disk's requests in flight at the file's
 *	end as an IOTRACE_CHUNK_INFLIGHT chunk (nothing when it has none and
 *	no torn slot).
 * @w: the writer (before iot_writer_finish()).
 * @t: the table; its records are written as records chunks hold them.
 *	Those whose completion the file has (iot_inflight_drop_done()) are
 *	left out.
 *
 * The chunk is written a record at a time, its checksum taken in a first
 * pass: a table of any size needs no memory of its own.
 *
 * Return: 0 or -1 on a write error (EINVAL: a record size past
 * IOT_MAX_RECORD).
 */
int iot_writer_inflight(struct iot_writer *w, const struct iot_inflight *t)
{
	uint8_t o[IOT_MAX_RECORD];
	struct iotrace_file_inflight h;
	struct iotrace_file_chunk ch;
	size_t k, nr = infl_kept(t);
	uint32_t crc;

	if (!nr && !t->torn)
		return 0;
	if (w->record_size > sizeof(o)) {
		errno = EINVAL;
		return -1;
	}
	memset(&h, 0, sizeof(h));
	h.at_ns = t->at_ns;
	h.torn = t->torn;
	h.rec_offset = sizeof(h);
	memset(&ch, 0, sizeof(ch));
	ch.magic = IOTRACE_CHUNK_INFLIGHT;
	ch.disk = t->disk;
	ch.nr_records = nr;
	ch.payload_size = sizeof(h) + (uint64_t)nr * w->record_size;
	ch.hdr_size = sizeof(ch);
	/* those not marked done, in the table's order */
	crc = iot_file_chunk_crc(&ch, sizeof(ch), &h, sizeof(h));
	for (k = 0; k < t->nr; k++) {
		if (t->recs[k].rflags & INFL_DONE)
			continue;
		infl_rec(w, &t->recs[k], o);
		crc = iot_crc32c(crc, o, w->record_size);
	}
	ch.crc = crc;
	wr(w, &ch, sizeof(ch));
	wr(w, &h, sizeof(h));
	for (k = 0; k < t->nr && !w->error; k++) {
		if (t->recs[k].rflags & INFL_DONE)
			continue;
		infl_rec(w, &t->recs[k], o);
		wr(w, o, w->record_size);
	}
	return w->error ? -1 : 0;
}

/**
 * iot_writer_ident() - write who disk @disk is as an IOTRACE_CHUNK_IDENT
 *	chunk (before its records).
 * @w: the writer (before iot_writer_finish()).
 * @disk: its index in the file's disk table.
 * @id: its identity.
 *
 * Return: 0 or -1 on a write error.
 */
int iot_writer_ident(struct iot_writer *w, unsigned int disk,
		     const struct iotrace_file_ident *id)
{
	struct iotrace_file_chunk ch;

	memset(&ch, 0, sizeof(ch));
	ch.magic = IOTRACE_CHUNK_IDENT;
	ch.disk = disk;
	ch.payload_size = sizeof(*id);
	wr_chunk(w, &ch, id);
	return w->error ? -1 : 0;
}

/**
 * iot_writer_boot() - write the boot the records came from as an
 *	IOTRACE_CHUNK_BOOT chunk, with the span of the records written
 *	(after them; @w->span set before the first).
 * @w: the writer (before iot_writer_finish()).
 * @boot: that boot's id, flags and counts (its span is the writer's).
 *
 * Return: 0 or -1 on a write error.
 */
int iot_writer_boot(struct iot_writer *w, const struct iotrace_file_boot *boot)
{
	struct iotrace_file_chunk ch;
	struct iotrace_file_boot b = *boot;

	b.first_ns = 0;
	b.last_ns = 0;
	if (w->last_ns) {
		b.first_ns = w->first_ns;
		b.last_ns = w->last_ns;
	}
	memset(&ch, 0, sizeof(ch));
	ch.magic = IOTRACE_CHUNK_BOOT;
	ch.payload_size = sizeof(b);
	wr_chunk(w, &ch, &b);
	return w->error ? -1 : 0;
}

/* Write the trailer with per-disk counts and flush. */
int iot_writer_finish(struct iot_writer *w, const struct iot_counts *counts,
		      uint64_t mono_ns, uint64_t real_ns)
{
	struct iotrace_file_chunk ch;
	struct iotrace_file_trailer t;
	struct iotrace_file_counts *fc;
	uint8_t *p;
	unsigned int i;

	memset(&ch, 0, sizeof(ch));
	memset(&t, 0, sizeof(t));
	ch.magic = IOTRACE_CHUNK_TRAILER;
	ch.payload_size = sizeof(t) +
		w->nr_disks * sizeof(struct iotrace_file_counts);
	p = calloc(1, ch.payload_size);
	if (!p) {
		errno = ENOMEM;
		return -1;
	}
	t.end_mono_ns = mono_ns;
	t.end_real_ns = real_ns;
	t.nr_disks = w->nr_disks;
	t.counts_size = sizeof(struct iotrace_file_counts);
	t.counts_offset = sizeof(t);
	t.chunks = w->chunks;
	memcpy(p, &t, sizeof(t));
	fc = (struct iotrace_file_counts *)(p + sizeof(t));
	for (i = 0; i < w->nr_disks; i++) {
		fc[i].completed = counts[i].completed;
		fc[i].recorded = counts[i].recorded;
		fc[i].overwritten = counts[i].overwritten;
		fc[i].dropped = counts[i].dropped;
		fc[i].written = counts[i].written;
		fc[i].lost = counts[i].lost;
		fc[i].torn = counts[i].torn;
		fc[i].filtered = counts[i].filtered;
	}
	wr_chunk(w, &ch, p);
	free(p);
	if (fflush(w->fp))
		w->error = 1;
	return w->error ? -1 : 0;
}

/*
 * The merge's cursors find their chunks with one scan of the file's chunk
 * headers, shared by all: a cursor that needs its part's next chunk moves
 * the scan on to it, and the chunks of other parts the scan passes on the
 * way are queued for their cursors (a pool of MQ_MAX entries in all).  A
 * part with no records has no cursor, one is done after its last chunk
 * (fi->parts), and every chunk header is read once by the scan.  Should
 * the pool be full (parts whose chunks come in the file far from where
 * their records come in time: a part after another), a part's cursor
 * whose chunk could not be queued walks the file from its last chunk
 * itself, until it is ahead of the scan again.
 */
/* a build for the tests has a pool of 3 (tools/Makefile, MQ_TEST) */
#ifndef MQ_MAX
#define MQ_MAX		(1u << 16)
#endif
#define MQ_NONE		UINT32_MAX

/**
 * struct mqent - a records chunk the scan found for a part's cursor.
 * @off: its offset.
 * @hdr_size: its header size.
 * @nr: its records.
 * @rs: their size.
 * @next: the next entry of the part's queue, or of the free list.
 */
struct mqent {
	uint64_t off;
	uint32_t hdr_size, nr, rs, next;
};

/**
 * struct mstream - one (disk, part) of a trace file, read in file order.
 * @off: offset of its current records chunk.
 * @hdr_size: that chunk's header size.
 * @rs: the size of its records.
 * @payload: the records @first.. of the chunk in memory (@pc, or where
 *	they are in the file's buffer).
 * @first: the chunk's record at @payload.
 * @cnt: records at @payload.
 * @idx: next record in the chunk.
 * @nr: records in the chunk.
 * @disk: disk index.
 * @part: ring part.
 * @done: no record left.
 * @own: the part's chunks after @known are found by walking the file
 *	from @known_end, not by the scan (its chunk could not be queued).
 * @known: offset of the part's last chunk found (current or queued).
 * @known_end: where that chunk ends.
 * @last: offset of the part's last chunk (fi->parts).
 * @qhead: the first of the chunks queued for it, MQ_NONE: none.
 * @qtail: the last.
 * @skip: the next damaged range of the file (fi->skips) ahead of its walk.
 * @pc: the buffer a mapped file's records are read into.
 */
struct mstream {
	uint64_t off;
	uint32_t hdr_size, rs;
	const uint8_t *payload;
	uint32_t first, cnt;
	uint32_t idx, nr, disk, part;
	int done, own;
	uint64_t known, known_end, last;
	uint32_t qhead, qtail;
	unsigned int skip;
	struct fpiece pc;
};

/**
 * struct mscan - the scan of the chunk headers shared by the cursors.
 * @off: where it goes on: every chunk before it has been read.
 * @skip: the next damaged range (fi->skips) ahead of @off.
 * @q: the pool of queue entries.
 * @free: its free list, MQ_NONE: full.
 */
struct mscan {
	uint64_t off;
	unsigned int skip;
	struct mqent *q;
	uint32_t free;
};

/*
 * The records of @m's chunk from @m->idx on, as many as @m->pc holds; a
 * failed read (fi->rd_err) ends @m.
 */
static void mstream_load(const uint8_t *b, struct iot_file_info *fi,
			 struct mstream *m)
{
	m->payload = chunk_recs(fi, b, m->off, m->hdr_size, m->rs, m->idx,
				m->nr, &m->pc, &m->cnt);
	m->first = m->idx;
	if (!m->payload)
		m->done = 1;
}

/*
 * @m's current chunk: the records chunk at @off (@hdr_size, @nr records
 * of @rs bytes), its header checked again (chunk_hdr_read())
 */
static void mstream_set(const uint8_t *b, struct iot_file_info *fi,
			struct mstream *m, uint64_t off, uint32_t hdr_size,
			uint32_t nr, uint32_t rs)
{
	m->off = off;
	m->hdr_size = hdr_size;
	m->rs = rs;
	m->idx = 0;
	m->nr = nr;
	mstream_load(b, fi, m);
}

/*
 * One chunk of the scan: a records chunk of a part past the last one its
 * cursor knows goes to the cursor's queue (or, the pool full, the cursor
 * walks on its own).  Return: -1 when the scan is at the end.
 */
static int mscan_step(const uint8_t *b, struct iot_file_info *fi,
		      struct mscan *sc, struct mstream *m)
{
	const struct iot_file_part *pt;
	struct iotrace_file_chunk ch;
	struct mstream *s;
	uint64_t off = sc->off;
	uint32_t e;

	if (chunk_hdr_at(b, fi, &off, &sc->skip, &ch)) {
		sc->off = fi->end;
		return -1;
	}
	sc->off = off + ch.hdr_size + ch.payload_size;
	if (ch.magic != IOTRACE_CHUNK_RECORDS || !ch.nr_records ||
	    !fi->parts[ch.disk])
		return 0;
	pt = &fi->parts[ch.disk][ch.part];
	if (!pt->first)
		return 0;	/* (the file changed: the parse found none) */
	s = &m[pt->cursor];
	if (s->own || off <= s->known)
		return 0;	/* its own walk finds it, or it has it */
	e = sc->free;
	if (e == MQ_NONE) {
		s->own = 1;
		return 0;
	}
	sc->free = sc->q[e].next;
	sc->q[e].off = off;
	sc->q[e].hdr_size = ch.hdr_size;
	sc->q[e].nr = ch.nr_records;
	sc->q[e].rs = chunk_rs(fi, &ch);
	sc->q[e].next = MQ_NONE;
	if (s->qhead == MQ_NONE)
		s->qhead = e;
	else
		sc->q[s->qtail].next = e;
	s->qtail = e;
	s->known = off;
	s->known_end = sc->off;
	return 0;
}

/*
 * @s's next chunk: the first queued for it, else the scan's next one of
 * its part, else (@s->own) the next found walking the file from its last.
 */
static void mstream_next(const uint8_t *b, struct iot_file_info *fi,
			 struct mscan *sc, struct mstream *m, struct mstream *s)
{
	struct iotrace_file_chunk ch;
	uint64_t off;
	uint32_t e;

	while (s->qhead == MQ_NONE && s->known < s->last && !s->own)
		if (mscan_step(b, fi, sc, m))
			break;
	e = s->qhead;
	if (e != MQ_NONE) {
		s->qhead = sc->q[e].next;
		mstream_set(b, fi, s, sc->q[e].off, sc->q[e].hdr_size,
			    sc->q[e].nr, sc->q[e].rs);
		sc->q[e].next = sc->free;
		sc->free = e;
		return;
	}
	if (s->known >= s->last || !s->own) {
		s->done = 1;
		return;
	}
	for (off = s->known_end; !chunk_hdr_at(b, fi, &off, &s->skip, &ch);
	     off += ch.hdr_size + ch.payload_size) {
		if (ch.magic != IOTRACE_CHUNK_RECORDS || ch.disk != s->disk ||
		    ch.part != s->part || !ch.nr_records)
			continue;
		s->known = off;
		s->known_end = off + ch.hdr_size + ch.payload_size;
		/* ahead of the scan: it queues this part's next chunks */
		if (off >= sc->off)
			s->own = 0;
		mstream_set(b, fi, s, off, ch.hdr_size, ch.nr_records,
			    chunk_rs(fi, &ch));
		return;
	}
	s->done = 1;
}

/* @s's first chunk, at @off (fi->parts), or none (or unread): done. */
static void mstream_start(const uint8_t *b, struct iot_file_info *fi,
			  struct mstream *s, uint64_t off, uint64_t last)
{
	struct iotrace_file_chunk ch;

	s->qhead = MQ_NONE;
	s->qtail = MQ_NONE;
	s->last = last;
	if (!off || chunk_hdr_read(b, fi, off, &ch)) {
		s->done = 1;
		return;
	}
	if (ch.magic != IOTRACE_CHUNK_RECORDS || !ch.nr_records) {
		fi->rd_err = EIO;	/* changed since the parse */
		fi->changed_off = off;
		s->done = 1;
		return;
	}
	s->known = off;
	s->known_end = off + ch.hdr_size + ch.payload_size;
	mstream_set(b, fi, s, off, ch.hdr_size, ch.nr_records,
		    chunk_rs(fi, &ch));
}

/* @s's record @s->idx, in memory */
static const uint8_t *mstream_at(const struct mstream *s)
{
	return s->payload + (uint64_t)(s->idx - s->first) * s->rs;
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
 * struct mhent - a cursor with records left, in the merge's heap.
 * @key: the merge key of its next record (mkey()).
 * @cur: its index in iot_fmerge.m.
 */
struct mhent {
	uint64_t key;
	uint32_t cur;
};

/*
 * Whether @a's record comes before @b's: the smaller key first, and of
 * equal keys the cursor of the lower index (the lower disk, then part),
 * so that the heap's first is the record a search of the cursors in
 * their order for the first of the smallest key would find.
 */
static int mh_before(const struct mhent *a, const struct mhent *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	return a->cur < b->cur;
}

/**
 * mh_down() - sift an entry of a binary min-heap down to its place.
 * @h: the heap: every entry before its two children (mh_before()), but
 *	for @h[@i], which may come after those below it.
 * @n: entries in @h.
 * @i: the entry out of place.
 *
 * Return: the comparisons it made (iot_file_info.merge_cmps): two a level
 * at most, 2 log2(@n) in all.
 */
static unsigned int mh_down(struct mhent *h, uint32_t n, uint32_t i)
{
	struct mhent e = h[i];
	unsigned int cmps = 0;
	uint32_t c;

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n) {
			cmps++;
			if (mh_before(&h[c + 1], &h[c]))
				c++;
		}
		cmps++;
		if (!mh_before(&h[c], &e))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = e;
	return cmps;
}

/**
 * struct iot_fmerge - a merge of a trace file's (disk, part) streams, read
 *	one record at a time (iot_fmerge_next()).
 * @b: the file.
 * @fi: what iot_file_parse() found in it.
 * @by_start: merged by start time, else by completion time.
 * @err: the read failed after the record handed out last: -3 next.
 * @sc: the scan of the chunk headers.
 * @m: the cursors, one per (disk, part) with records, in disk and part
 *	order.
 * @h: the cursors with records left, a binary min-heap by their next
 *	record's key, then their index (mh_before()): @h[0] comes next.
 * @n: cursors in @m.
 * @nh: cursors in @h.
 * @rec: the record handed out last.
 */
struct iot_fmerge {
	const uint8_t *b;
	struct iot_file_info *fi;
	int by_start, err;
	struct mscan sc;
	struct mstream *m;
	struct mhent *h;
	uint32_t n, nh;
	uint64_t rec[IOT_MAX_RECORD / 8];
};

/**
 * iot_fmerge_free() - end a merge begun by iot_fmerge_new().
 * @fm: the merge, or NULL.
 */
void iot_fmerge_free(struct iot_fmerge *fm)
{
	unsigned int i;

	if (!fm)
		return;
	for (i = 0; fm->m && i < fm->n; i++)
		free(fm->m[i].pc.buf);
	free(fm->m);
	free(fm->h);
	free(fm->sc.q);
	free(fm);
}

/**
 * iot_fmerge_new() - begin a merge of a validated trace file's records by
 *	completion (or start) time, as iot_file_merge() gives them.
 * @buf: the file.
 * @len: its length.
 * @fi: what iot_file_parse() found in it (all of it); its parts' cursor
 *	indexes are set here.
 * @by_start: merge by start (issue) time, else by completion time.
 * @out: the merge, for iot_fmerge_next() and iot_fmerge_free().
 *
 * Return: 0, -2 when out of memory, -3 when the file could not be read
 * (iot_file_read_error() says why).
 */
int iot_fmerge_new(const void *buf, size_t len, struct iot_file_info *fi,
		   int by_start, struct iot_fmerge **out)
{
	const uint8_t *b = buf;
	uint32_t rs = fi->hdr.record_size;
	struct iot_fmerge *fm;
	struct mstream *m;
	unsigned int n = 0, i, d, p;
	size_t piece, nq;
	int ret = 0;

	*out = NULL;
	/* fi->end: what iot_file_parse() read of it */
	fi->rd_err = fi->drop_behind ? fhas(fi, len) : 0;
	if (fi->rd_err)
		return -3;
	fm = calloc(1, sizeof(*fm));
	if (!fm)
		return -2;
	fm->b = b;
	fm->fi = fi;
	fm->by_start = by_start;
	fm->sc.off = fi->hdr.hdr_size;
	fm->sc.free = MQ_NONE;
	/* a cursor per part with records, in disk and part order */
	for (d = 0; d < fi->nr_disks; d++)
		for (p = 0; fi->parts[d] && p < fi->disks[d].nr_parts; p++)
			if (fi->parts[d][p].first)
				fi->parts[d][p].cursor = n++;
	m = calloc(n ? n : 1, sizeof(*m));
	fm->m = m;
	fm->h = calloc(n ? n : 1, sizeof(*fm->h));
	nq = fi->chunks < MQ_MAX ? fi->chunks : MQ_MAX;
	fm->sc.q = malloc((nq ? nq : 1) * sizeof(*fm->sc.q));
	if (!m || !fm->h || !fm->sc.q) {
		ret = -2;
		goto fail;
	}
	for (i = 0; i < nq; i++)
		fm->sc.q[i].next = i + 1 < nq ? i + 1 : MQ_NONE;
	fm->sc.free = nq ? 0 : MQ_NONE;
	/* the buffers of the cursors: FPIECE_MAX each, 16 MB in all */
	piece = (16u << 20) / (n ? n : 1);
	if (piece > FPIECE_MAX)
		piece = FPIECE_MAX;
	piece = piece / rs * rs;
	if (piece < rs)
		piece = rs;
	for (d = 0; d < fi->nr_disks; d++)
		for (p = 0; fi->parts[d] && p < fi->disks[d].nr_parts; p++) {
			const struct iot_file_part *pt = &fi->parts[d][p];
			struct mstream *s;

			if (!pt->first)
				continue;
			s = &m[fm->n++];
			s->disk = d;
			s->part = p;
			if (fpiece_init(&s->pc, fi, piece)) {
				ret = -2;
				goto fail;
			}
			mstream_start(b, fi, s, pt->first, pt->last);
			if (fi->rd_err) {
				ret = -3;
				goto fail;
			}
			if (s->done)
				continue;
			fm->h[fm->nh].key = mkey(s->payload, by_start);
			fm->h[fm->nh++].cur = fm->n - 1;
		}
	/* in index order, not yet a heap: made one (2 comparisons a cursor) */
	for (i = fm->nh / 2; i-- > 0;)
		fi->merge_cmps += mh_down(fm->h, fm->nh, i);
	*out = fm;
	return 0;
fail:
	iot_fmerge_free(fm);
	return ret;
}

/**
 * iot_fmerge_next() - the next record of a merge.
 * @fm: the merge.
 * @disk: set to the record's disk.
 * @r: set to the record, valid until the next call.
 *
 * Return: 1 with a record, 0 after the last, -3 when the file could not
 * be read (iot_file_read_error() says why).
 */
int iot_fmerge_next(struct iot_fmerge *fm, unsigned int *disk,
		    const struct iotrace_record **r)
{
	struct iot_file_info *fi = fm->fi;
	struct mstream *s;

	if (fm->err)
		return fm->err;
	if (!fm->nh)
		return 0;
	s = &fm->m[fm->h[0].cur];
	file_rec(&fi->hdr, mstream_at(s), s->rs,
		 (struct iotrace_record *)fm->rec);
	*disk = s->disk;
	*r = (const struct iotrace_record *)fm->rec;
	if (++s->idx == s->nr)
		mstream_next(fm->b, fi, &fm->sc, fm->m, s);
	else if (s->idx == s->first + s->cnt)
		mstream_load(fm->b, fi, s);
	if (fi->rd_err) {
		/* this record is the file's; the read stops after it */
		fm->err = -3;
		return 1;
	}
	/* its next record, or the heap's last cursor, in its place */
	if (s->done)
		fm->h[0] = fm->h[--fm->nh];
	else
		fm->h[0].key = mkey(mstream_at(s), fm->by_start);
	fi->merge_cmps += mh_down(fm->h, fm->nh, 0);
	return 1;
}

/**
 * iot_file_merge() - the records of a validated trace file, the streams
 * of its (disk, part)s merged by completion (or start) time.
 * @buf: the file.
 * @len: its length.
 * @fi: what iot_file_parse() found in it (all of it: the callback did not
 *	stop it).
 * @by_start: merge by start (issue) time, else by completion time.
 * @cb: called for every record; non-zero stops.
 * @arg: its argument.
 *
 * Each part holds the requests that completed on one CPU, in about that
 * order: a cursor per part walks the file's chunks of that part and the
 * record with the smallest key of all cursors comes next (of equal keys,
 * that of the lowest disk, then part), so the output is in order up to
 * the disorder within a part, whatever order the chunks of the parts and
 * disks have in the file.  The cursors start at their part's first chunk
 * and find the next ones with one scan of the chunk headers they share
 * (struct mscan): reading the file takes time in proportion to its
 * chunks, not to its chunks times its parts.  The cursors with records
 * left are in a binary heap by their next record's key (struct mhent):
 * a record costs at most 2 log2 of them key comparisons, not a search of
 * them all.  Memory: a cursor per part with records (a disk's parts are
 * as many as its CPUs, few of which may have completed a request), a
 * mapped file's records read into a buffer per cursor (16 MB in all at
 * most), and the scan's queues (1.5 MB at most).  iot_fmerge_new() and
 * iot_fmerge_next() give the same records one at a time.
 *
 * A mapped file (@fi->drop_behind) is read as iot_file_parse() reads it;
 * should a read fail (the file cut while it is read), the merge stops
 * there.
 *
 * Return: 0, -2 when out of memory, -3 when the file could not be read
 * (iot_file_read_error() says why), or the callback's value.
 */
int iot_file_merge(const void *buf, size_t len, struct iot_file_info *fi,
		   int by_start, iot_rec_cb cb, void *arg)
{
	const struct iotrace_record *r;
	struct iot_fmerge *fm;
	unsigned int disk;
	int ret;

	ret = iot_fmerge_new(buf, len, fi, by_start, &fm);
	if (ret)
		return ret;
	while ((ret = iot_fmerge_next(fm, &disk, &r)) == 1) {
		ret = cb(arg, disk, r);
		if (ret)
			break;
	}
	iot_fmerge_free(fm);
	return ret;
}

/**
 * struct iot_fwalk - a trace file's records in file order, one at a time
 *	(iot_fwalk_next()): those iot_file_parse() hands out.
 * @b: the file.
 * @fi: what iot_file_parse() found in it.
 * @off: where the walk goes on: the chunk after @s's.
 * @skip: the next damaged range (fi->skips) ahead of @off.
 * @s: the records chunk being read (@s.nr 0: none).
 * @rec: the record handed out last.
 */
struct iot_fwalk {
	const uint8_t *b;
	struct iot_file_info *fi;
	uint64_t off;
	unsigned int skip;
	struct mstream s;
	uint64_t rec[IOT_MAX_RECORD / 8];
};

/**
 * iot_fwalk_new() - begin a walk of a validated trace file's records in
 *	file order.
 * @buf: the file.
 * @fi: what iot_file_parse() found in it (all of it).
 * @out: the walk, for iot_fwalk_next() and iot_fwalk_free().
 *
 * Return: 0, or -2 when out of memory.
 */
int iot_fwalk_new(const void *buf, struct iot_file_info *fi,
		  struct iot_fwalk **out)
{
	struct iot_fwalk *fw = calloc(1, sizeof(*fw));

	*out = NULL;
	if (!fw)
		return -2;
	fw->b = buf;
	fw->fi = fi;
	fw->off = fi->hdr.hdr_size;
	if (fpiece_init(&fw->s.pc, fi, FPIECE_MAX / fi->hdr.record_size *
			fi->hdr.record_size)) {
		free(fw);
		return -2;
	}
	*out = fw;
	return 0;
}

/**
 * iot_fwalk_free() - end a walk begun by iot_fwalk_new().
 * @fw: the walk, or NULL.
 */
void iot_fwalk_free(struct iot_fwalk *fw)
{
	if (!fw)
		return;
	free(fw->s.pc.buf);
	free(fw);
}

/**
 * iot_fwalk_next() - the next record of a walk in file order.
 * @fw: the walk.
 * @disk: set to the record's disk.
 * @r: set to the record, valid until the next call.
 *
 * Return: 1 with a record, 0 after the last, -3 when the file could not
 * be read (iot_file_read_error() says why).
 */
int iot_fwalk_next(struct iot_fwalk *fw, unsigned int *disk,
		   const struct iotrace_record **r)
{
	struct iot_file_info *fi = fw->fi;
	struct mstream *s = &fw->s;
	struct iotrace_file_chunk ch;

	while (s->idx == s->nr) {
		uint64_t off = fw->off;

		if (chunk_hdr_at(fw->b, fi, &off, &fw->skip, &ch))
			return fi->rd_err ? -3 : 0;
		fw->off = off + ch.hdr_size + ch.payload_size;
		if (ch.magic != IOTRACE_CHUNK_RECORDS || !ch.nr_records)
			continue;
		s->disk = ch.disk;
		s->done = 0;
		mstream_set(fw->b, fi, s, off, ch.hdr_size, ch.nr_records,
			    chunk_rs(fi, &ch));
		if (s->done)
			return -3;
	}
	if (s->idx == s->first + s->cnt) {
		mstream_load(fw->b, fi, s);
		if (s->done)
			return -3;
	}
	file_rec(&fi->hdr, s->payload + (uint64_t)(s->idx - s->first) *
		 s->rs, s->rs, (struct iotrace_record *)fw->rec);
	s->idx++;
	*disk = s->disk;
	*r = (const struct iotrace_record *)fw->rec;
	return 1;
}
