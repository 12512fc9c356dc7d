// SPDX-License-Identifier: GPL-2.0
/*
 * The persistent region (Documentation/abi.rst, "The persistent region:
 * layout 1"): the rings and in-flight tables a module loaded with
 * persist= keeps in memory that a warm reboot keeps.  Read as the module
 * offers the previous boot's after the reboot (debugfs "previous",
 * /dev/iotrace/previous), as a copy of that, or found in a crash dump's
 * physical memory (an ELF core: QEMU's dump-guest-memory, /proc/vmcore)
 * by its magic at a page boundary.  No kernel debug information is
 * needed.
 *
 * The header and every entry are checked as the module checks them at
 * load (sizes, offsets, CRC-32C); an entry that fails is left out and
 * counted.  Each disk entry points at a ring (a 2.x ring image, what
 * <disk>/ring maps) or an in-flight table; a resize leaves a disk's older
 * rings behind, the newest has the highest allocation number.
 * iot_preg_write() writes the newest ring of each disk to a trace file,
 * dated by the region's clock anchor, with the requests in flight:
 * "iotracectl previous -o" and the record sources (input.c) read a
 * region so.  A ring that does not validate costs its disk's records
 * only: it is left out and said (iot_preg_rings()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "iot.h"

#define ERR(...) snprintf(err, errlen, __VA_ARGS__)
#define PREG_PAGE	4096ull
#define SCAN_BLOCK	(1u << 20)

static uint32_t hdr_crc(const struct iotrace_preg_hdr *h)
{
	uint32_t c = iot_crc32c(0, h, 24);

	return iot_crc32c(c, (const uint8_t *)h + 32, 80);
}

/* The checksum of entry @e as if its flags were @flags (little-endian). */
static uint32_t entry_crc_as(const struct iotrace_preg_disk *e,
			     uint32_t flags)
{
	const size_t at = offsetof(struct iotrace_preg_disk, flags);
	const size_t end = offsetof(struct iotrace_preg_disk, entry_crc);
	uint32_t c = iot_crc32c(0, e, at);

	c = iot_crc32c(c, &flags, sizeof(flags));
	return iot_crc32c(c, (const uint8_t *)e + at + sizeof(flags),
			  end - at - sizeof(flags));
}

/*
 * Whether the checksum of entry @e holds: as written, or for a ring marked
 * removed without the mark (a crash between the mark and its checksum:
 * the module writes the mark first, then the checksum over it).
 */
static int entry_whole(const struct iotrace_preg_disk *e)
{
	return entry_crc_as(e, e->flags) == e->entry_crc ||
	       ((e->flags & IOTRACE_PREG_D_REMOVED) &&
		entry_crc_as(e, e->flags & ~IOTRACE_PREG_D_REMOVED) ==
		e->entry_crc);
}

/* The header's checks (the module's at load): NULL, or what failed. */
static const char *hdr_bad(const struct iotrace_preg_hdr *h, size_t len)
{
	uint64_t table;

	if (len < sizeof(*h) || h->magic != IOTRACE_PREG_MAGIC)
		return "no persistent region magic";
	if (h->major != IOTRACE_PREG_MAJOR)
		return "another layout major version (this iotracectl reads 1)";
	if (h->hdr_size != IOTRACE_PREG_HDR_SIZE)
		return "header size";
	if (hdr_crc(h) != h->hdr_crc)
		return "header checksum";
	if (h->disk_entry_size != IOTRACE_PREG_DISK_SIZE ||
	    !h->max_disks || h->max_disks > 4096)
		return "allocation table geometry";
	if (h->disk_off % PREG_PAGE || h->data_off % PREG_PAGE)
		return "table offsets not page aligned";
	table = (uint64_t)h->max_disks * h->disk_entry_size;
	if (h->disk_off < IOTRACE_PREG_HDR_SIZE || h->disk_off > len ||
	    table > len - h->disk_off || h->data_off < h->disk_off + table)
		return "table outside the region";
	return NULL;
}

static int span_ok(const struct iotrace_preg_hdr *h, size_t len, uint64_t off,
		   uint64_t n)
{
	return off >= h->data_off && off <= len && n <= len - off &&
	       !(off % PREG_PAGE);
}

/**
 * iot_preg_is_region() - whether bytes start with the region's magic.
 * @buf: the bytes.
 * @len: their length.
 *
 * Return: 1 or 0.
 */
int iot_preg_is_region(const void *buf, size_t len)
{
	uint64_t m;

	if (len < sizeof(m))
		return 0;
	memcpy(&m, buf, sizeof(m));
	return m == IOTRACE_PREG_MAGIC;
}

/**
 * iot_preg_is_core() - whether bytes start as an ELF core does (a crash
 *	dump, which may hold a region).
 * @buf: the bytes.
 * @len: their length.
 *
 * Return: 1 or 0.
 */
int iot_preg_is_core(const void *buf, size_t len)
{
	const uint8_t *b = buf;

	return len >= 18 && !memcmp(b, "\177ELF", 4) && b[16] == 4 && !b[17];
}

/**
 * iot_preg_entry() - entry @i of the region's disk table, if it is in use
 *	and its checksum and offsets hold.
 * @r: the region.
 * @i: the entry, below r->h->max_disks.
 * @damaged: set to 1 when the entry is in use but failed a check, else 0.
 *
 * Return: the entry, or NULL (not in use, or damaged).
 */
const struct iotrace_preg_disk *iot_preg_entry(const struct iot_preg *r,
					       unsigned int i, int *damaged)
{
	const struct iotrace_preg_disk *e;

	e = (const void *)(r->buf + r->h->disk_off +
			   (uint64_t)i * r->h->disk_entry_size);
	*damaged = 0;
	if (!(e->flags & IOTRACE_PREG_D_USED))
		return NULL;
	if (!entry_whole(e) ||
	    ((e->flags & IOTRACE_PREG_D_RING) &&
	     !span_ok(r->h, r->len, e->ring_off, e->ring_size)) ||
	    ((e->flags & IOTRACE_PREG_D_SLOTS) &&
	     (e->slot_size != IOTRACE_PREG_SLOT_SIZE ||
	      !span_ok(r->h, r->len, e->slots_off,
		       (uint64_t)e->nr_slots * e->slot_size)))) {
		*damaged = 1;
		return NULL;
	}
	return e;
}

static uint32_t id_crc(const struct iotrace_preg_id *p)
{
	return iot_crc32c(0, (const uint8_t *)p + sizeof(p->id_crc),
			  sizeof(*p) - sizeof(p->id_crc));
}

/*
 * The identity beside entry @e (minor 1), if it checks and is @e's; NULL
 * else, with *@torn set when there was one that its checksum refutes (a
 * crash while it was written).
 */
static const struct iotrace_preg_id *id_of(const struct iot_preg *r,
					   const struct iotrace_preg_disk *e,
					   int *torn)
{
	const struct iotrace_preg_hdr *h = r->h;
	const struct iotrace_preg_id *p;
	uint64_t table = (uint64_t)h->max_disks * h->disk_entry_size, i;
	size_t k;

	*torn = 0;
	if (h->minor < 1 || !h->id_off ||
	    h->id_entry_size != IOTRACE_PREG_ID_SIZE ||
	    h->id_off < h->disk_off + table || h->data_off > r->len ||
	    h->id_off > h->data_off ||
	    (uint64_t)h->max_disks * IOTRACE_PREG_ID_SIZE >
	    h->data_off - h->id_off)
		return NULL;
	i = (uint64_t)((const uint8_t *)e - (r->buf + h->disk_off)) /
	    h->disk_entry_size;
	p = (const void *)(r->buf + h->id_off + i * IOTRACE_PREG_ID_SIZE);
	if (id_crc(p) != p->id_crc) {
		for (k = 0; k < sizeof(*p); k++)
			if (((const uint8_t *)p)[k])
				break;
		*torn = k < sizeof(*p);
		return NULL;
	}
	return p->gen == e->gen ? p : NULL;
}

/*
 * Who the disk of entry @e is: its capacity (the entry's) and the model,
 * serial and wwn user space gave the module (the identity beside it,
 * minor 1) into @out, "" for what is not known.  Return: 1 with an
 * identity, 0 without, -1 when the one beside @e was torn by the crash
 * (its checksum fails): the entry itself is whole.
 */
static int entry_ident(const struct iot_preg *r,
		       const struct iotrace_preg_disk *e,
		       struct iotrace_file_ident *out)
{
	const struct iotrace_preg_id *p;
	int torn;

	memset(out, 0, sizeof(*out));
	out->sectors = e->sectors;
	p = id_of(r, e, &torn);
	if (!p)
		return torn ? -1 : 0;
	memcpy(out->model, p->model, sizeof(out->model));
	memcpy(out->serial, p->serial, sizeof(out->serial));
	memcpy(out->wwn, p->wwn, sizeof(out->wwn));
	out->model[IOTRACE_FILE_ID_LEN - 1] = 0;
	out->serial[IOTRACE_FILE_ID_LEN - 1] = 0;
	out->wwn[IOTRACE_FILE_ID_LEN - 1] = 0;
	return 1;
}

/**
 * iot_preg_disk_ident() - who the disk of attach number @disk_gen is: the
 *	capacity of its newest entry, the identity beside the newest entry
 *	that has one (its ring's or its in-flight table's); entry_ident().
 * @r: the region.
 * @disk_gen: the disk's attach number (iotrace_preg_disk.disk_gen).
 * @out: filled; "" for what is not known.
 *
 * Return: 1 with an identity, 0 without, -1 when the only one was torn.
 */
int iot_preg_disk_ident(const struct iot_preg *r, uint64_t disk_gen,
			struct iotrace_file_ident *out)
{
	const struct iotrace_preg_disk *e, *newest = NULL, *best = NULL;
	struct iotrace_file_ident t;
	unsigned int i;
	int dmg, ret = 0, k;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < r->h->max_disks; i++) {
		e = iot_preg_entry(r, i, &dmg);
		if (!e || e->disk_gen != disk_gen)
			continue;
		if (!newest || e->gen > newest->gen)
			newest = e;
		k = entry_ident(r, e, &t);
		if (k < 0 && !ret)
			ret = -1;
		if (k > 0 && (!best || e->gen > best->gen)) {
			best = e;
			*out = t;
			ret = 1;
		}
	}
	if (newest)
		out->sectors = newest->sectors;
	return ret;
}

/**
 * iot_preg_newest() - whether @e is the newest ring of its disk (a resize
 *	leaves the older ones in the region).
 * @r: the region.
 * @e: one of its entries holding a ring.
 *
 * Return: 1 or 0.
 */
int iot_preg_newest(const struct iot_preg *r, const struct iotrace_preg_disk *e)
{
	const struct iotrace_preg_disk *o;
	unsigned int i;
	int dmg;

	for (i = 0; i < r->h->max_disks; i++) {
		o = iot_preg_entry(r, i, &dmg);
		if (o && o != e && (o->flags & IOTRACE_PREG_D_RING) &&
		    o->disk_gen == e->disk_gen && o->gen > e->gen)
			return 0;
	}
	return 1;
}

/*
 * Where a core's bytes come from: a file (@fd >= 0, read with pread(),
 * a block at a time: a dump is as large as the machine's memory) or
 * bytes in memory (@buf, @len).
 */
struct core_rd {
	int fd;
	const uint8_t *buf;
	size_t len;
};

/* all of @n bytes at @off: 0, or -1 (errno; 0 for the end of the bytes) */
static int rd_at(const struct core_rd *c, void *dst, size_t n, uint64_t off)
{
	uint8_t *p = dst;

	if (c->fd < 0) {
		if (off > c->len || n > c->len - off) {
			errno = 0;
			return -1;
		}
		memcpy(dst, c->buf + off, n);
		return 0;
	}
	while (n) {
		ssize_t r = pread(c->fd, p, n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (!r)
				errno = 0;
			return -1;
		}
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

/*
 * The bytes the core @c holds: its file's size (a regular file), or its
 * length in memory; UINT64_MAX when that is not known.
 */
static uint64_t core_size(const struct core_rd *c)
{
	struct stat st;

	if (c->fd < 0)
		return c->len;
	if (fstat(c->fd, &st) || !S_ISREG(st.st_mode))
		return UINT64_MAX;
	return (uint64_t)st.st_size;
}

/**
 * struct core_past - what of an ELF core its file does not hold.
 * @seg: the first PT_LOAD segment whose bytes go past the end of the file.
 * @seg_past: how many bytes past the end it claims; 0: none does.
 * @reg_off: the file offset of the first region header that checks and
 *	whose region goes past the end of the file.
 * @reg_past: how many bytes past the end that region claims; 0: none.
 */
struct core_past {
	uint64_t seg, seg_past, reg_off, reg_past;
};

/* Why no region was found in the core (@p: what its file does not hold). */
static void core_none(const struct iot_preg *r, const struct core_past *p,
		      char *err, size_t errlen)
{
	if (p->reg_past)
		snprintf(err, errlen,
			 "%s: the persistent region at byte %llu claims %llu bytes past the end of the file: cut short or not an ELF core of this machine",
			 r->label, (unsigned long long)p->reg_off,
			 (unsigned long long)p->reg_past);
	else if (p->seg_past)
		snprintf(err, errlen,
			 "%s: no iotrace persistent region in the core's memory it holds, and its ELF segment %llu claims %llu bytes past the end of the file: cut short or not an ELF core of this machine",
			 r->label, (unsigned long long)p->seg,
			 (unsigned long long)p->seg_past);
	else
		snprintf(err, errlen,
			 "%s: no iotrace persistent region in the core's memory (was the module loaded with persist=, and does the dump hold the reserved range?)",
			 r->label);
}

/*
 * Find the region in the ELF64 core @c: the first page-aligned physical
 * address of a PT_LOAD segment holding a header that checks, of a region
 * a module writes (LIVE); copy region_size bytes from there into r->own.
 * Only what the file holds is looked at: a segment or a region that
 * claims more (a core cut short, or a header's sizes that are not this
 * file's) is said as such, and nothing is allocated for bytes the file
 * does not have.
 * Return: 0, or -1 with @err set.
 */
static int from_core(struct iot_preg *r, const struct core_rd *c, char *err,
		     size_t errlen)
{
	uint8_t eh[64], ph[56], *blk;
	uint64_t phoff, i, k, size = core_size(c);
	struct core_past past = { 0, 0, 0, 0 };
	uint16_t phentsize, phnum;
	int ret = -1;

	if (rd_at(c, eh, sizeof(eh), 0) || eh[4] != 2 || eh[5] != 1)
		return ERR("%s: not a 64-bit little-endian ELF core",
			   r->label), -1;
	memcpy(&phoff, eh + 32, 8);
	memcpy(&phentsize, eh + 54, 2);
	memcpy(&phnum, eh + 56, 2);
	if (phentsize < sizeof(ph))
		return ERR("%s: damaged ELF program headers", r->label), -1;
	blk = malloc(SCAN_BLOCK);
	if (!blk)
		return ERR("out of memory"), -1;
	for (i = 0; i < phnum; i++) {
		uint64_t off, paddr, filesz, start, held;
		uint32_t type;

		if (rd_at(c, ph, sizeof(ph), phoff + i * phentsize)) {
			ERR("%s: damaged ELF program headers", r->label);
			goto out;
		}
		memcpy(&type, ph, 4);
		memcpy(&off, ph + 8, 8);
		memcpy(&paddr, ph + 24, 8);
		memcpy(&filesz, ph + 32, 8);
		if (type != 1)
			continue;
		/* what of the segment the file holds */
		held = off < size ? size - off : 0;
		if (filesz > held) {
			if (!past.seg_past) {
				past.seg = i;
				past.seg_past = filesz - held;
			}
			filesz = held;
		}
		start = (PREG_PAGE - paddr % PREG_PAGE) % PREG_PAGE;
		for (k = start; k + IOTRACE_PREG_HDR_SIZE <= filesz;
		     k += SCAN_BLOCK) {
			uint64_t n = filesz - k < SCAN_BLOCK ? filesz - k :
				     SCAN_BLOCK, j;

			if (rd_at(c, blk, n, off + k)) {
				ERR("%s: cut short at %llu: %s", r->label,
				    (unsigned long long)(off + k),
				    errno ? strerror(errno) : "end of file");
				goto out;
			}
			for (j = 0; j + IOTRACE_PREG_HDR_SIZE <= n;
			     j += PREG_PAGE) {
				const struct iotrace_preg_hdr *h =
					(const void *)(blk + j);
				uint64_t at = k + j;

				/*
				 * The region itself, not the module's copy
				 * of the boot before's (KEPT, in vmalloc
				 * pages), which a dump may hold too; one RAM
				 * block, one segment, holds it
				 */
				if (h->magic != IOTRACE_PREG_MAGIC ||
				    h->state != IOTRACE_PREG_LIVE ||
				    hdr_bad(h, h->region_size))
					continue;
				/* no more than the file holds (filesz) */
				if (h->region_size > filesz - at) {
					if (!past.reg_past &&
					    h->region_size > size - (off + at)) {
						past.reg_off = off + at;
						past.reg_past = h->region_size -
							(size - (off + at));
					}
					continue;
				}
				r->len = h->region_size;
				r->own = malloc(r->len);
				if (!r->own) {
					ERR("out of memory");
					goto out;
				}
				r->buf = r->own;
				if (rd_at(c, r->own, r->len, off + at)) {
					ERR("%s: cut short in the region",
					    r->label);
					goto out;
				}
				r->in_core = 1;
				r->phys = paddr + at;
				ret = 0;
				goto out;
			}
		}
	}
	core_none(r, &past, err, errlen);
out:
	free(blk);
	return ret;
}

/*
 * The pair of clock readings that dates the records: while anchor_seq is
 * odd the crash came in the middle of the anchor's rewrite, and the anchor
 * may be half old, half new; minor 2 keeps the previous one, whole.
 */
static void anchor(struct iot_preg *r)
{
	const struct iotrace_preg_hdr *h = r->h;

	r->anchor_prev = (h->anchor_seq & 1) && h->minor >= 2 &&
			 h->anchor_prev_mono_ns;
	r->anchor_mono_ns = r->anchor_prev ? h->anchor_prev_mono_ns :
					     h->anchor_mono_ns;
	r->anchor_real_ns = r->anchor_prev ? h->anchor_prev_real_ns :
					     h->anchor_real_ns;
}

/* The region at r->buf (r->len bytes) checks: 0, or -1 with @err set. */
static int check(struct iot_preg *r, char *err, size_t errlen)
{
	const char *bad;

	r->h = (const void *)r->buf;
	bad = hdr_bad(r->h, r->len);
	if (bad)
		return ERR("%s: not an iotrace persistent region (%s)",
			   r->label, bad), -1;
	if (r->h->region_size < r->len)
		r->len = r->h->region_size;
	anchor(r);
	return 0;
}

static void preg_init(struct iot_preg *r, const char *label)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->label, sizeof(r->label), "%s", label);
}

/**
 * iot_preg_open_buf() - a region in memory: a copy of one (its magic
 *	first), or an ELF core holding one.
 * @r: filled; iot_preg_free() frees it (after a failure too).
 * @label: the bytes' name in messages.
 * @buf: the bytes; a region copy's are read where they are when they are
 *	8-byte aligned (they must stay valid while @r is used), copied
 *	otherwise; a core's region is copied.
 * @len: their length.
 * @err: error message buffer.
 * @errlen: its size.
 *
 * Return: 0, or -1 with @err set.
 */
int iot_preg_open_buf(struct iot_preg *r, const char *label, const void *buf,
		      size_t len, char *err, size_t errlen)
{
	struct core_rd c = { .fd = -1, .buf = buf, .len = len };

	preg_init(r, label);
	if (len >= 4 && !memcmp(buf, "\177ELF", 4)) {
		if (from_core(r, &c, err, errlen))
			return -1;
		return check(r, err, errlen);
	}
	r->len = len;
	if ((uintptr_t)buf % 8) {
		r->own = malloc(len ? len : 1);
		if (!r->own)
			return ERR("out of memory"), -1;
		memcpy(r->own, buf, len);
		r->buf = r->own;
	} else {
		r->buf = buf;
	}
	return check(r, err, errlen);
}

/**
 * iot_preg_open_core_fd() - the region in the ELF core open as @fd (read
 *	with pread(), a block at a time).
 * @r: filled; iot_preg_free() frees it (after a failure too).
 * @label: the core's name in messages.
 * @fd: the core, open for reading; left open.
 * @err: error message buffer.
 * @errlen: its size.
 *
 * Return: 0, or -1 with @err set.
 */
int iot_preg_open_core_fd(struct iot_preg *r, const char *label, int fd,
			  char *err, size_t errlen)
{
	struct core_rd c = { .fd = fd };

	preg_init(r, label);
	if (from_core(r, &c, err, errlen))
		return -1;
	return check(r, err, errlen);
}

/**
 * iot_preg_open() - read a region: the file @path (a copy of a region, or
 *	an ELF core), or the module's copy of the previous boot's.
 * @r: filled; iot_preg_free() frees it (after a failure too).
 * @path: the file, or NULL for the module's copy: <@debugfs>/previous,
 *	else (debugfs not mounted, kernel lockdown) <@devdir>/previous.
 * @debugfs: the iotrace debugfs directory.
 * @devdir: the directory of the iotrace devices.
 * @err: error message buffer.
 * @errlen: its size.
 *
 * Return: 0, or -1 with @err set.
 */
int iot_preg_open(struct iot_preg *r, const char *path, const char *debugfs,
		  const char *devdir, char *err, size_t errlen)
{
	char e[IOT_ERR_LEN], magic[4];
	struct core_rd c;
	uint8_t *buf;
	size_t len;
	int fd, ret;

	if (path) {
		preg_init(r, path);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return ERR("cannot open %s: %s", path,
				   strerror(errno)), -1;
		c.fd = fd;
		if (!rd_at(&c, magic, 4, 0) && !memcmp(magic, "\177ELF", 4)) {
			ret = from_core(r, &c, err, errlen);
			close(fd);
			if (ret)
				return -1;
			return check(r, err, errlen);
		}
		close(fd);
		if (iot_read_all(path, &buf, &len, err, errlen))
			return -1;
	} else {
		preg_init(r, "");
		snprintf(r->label, sizeof(r->label), "%s/previous", debugfs);
		if (iot_read_all(r->label, &buf, &len, e, sizeof(e))) {
			snprintf(r->label, sizeof(r->label), "%s/previous",
				 devdir);
			if (iot_read_all(r->label, &buf, &len, err, errlen))
				return snprintf(err, errlen,
						"no previous boot's trace: neither %s/previous nor %s/previous can be read (%s); the module offers one only when it was loaded with persist= in the boot before and in this one",
						debugfs, devdir, e), -1;
		}
	}
	r->own = buf;
	r->buf = buf;
	r->len = len;
	return check(r, err, errlen);
}

/**
 * iot_preg_free() - free what iot_preg_open*() allocated.
 * @r: the region (zeroed).
 */
void iot_preg_free(struct iot_preg *r)
{
	free(r->own);
	memset(r, 0, sizeof(*r));
}

static int ring_cb(void *arg, unsigned int disk,
		   const struct iotrace_record *rec)
{
	struct iot_preg_ring *s = arg;

	(void)disk;
	s->records++;
	if (rec->complete_ns > s->last_ns)
		s->last_ns = rec->complete_ns;
	return 0;
}

/**
 * iot_preg_ring_read() - read the ring of an entry as a snapshot of it:
 *	the records present, the newest completion, what was lost.
 * @r: the region.
 * @e: one of its entries holding a ring.
 * @out: filled.
 * @err: error message buffer ("<disk>: what is wrong with its ring").
 * @errlen: its size.
 *
 * Return: 0, or -1 with @err set.
 */
int iot_preg_ring_read(const struct iot_preg *r,
		       const struct iotrace_preg_disk *e,
		       struct iot_preg_ring *out, char *err, size_t errlen)
{
	char e2[IOT_ERR_LEN];
	struct iot_ring ring;

	memset(out, 0, sizeof(*out));
	if (iot_ring_init(&ring, r->buf + e->ring_off, e->ring_size, e2,
			  sizeof(e2)))
		return ERR("%.32s: %s", e->name, e2), -1;
	if (iot_ring_snapshot(&ring, 0, ring_cb, out, &out->counts))
		return ERR("%.32s: out of memory", e->name), -1;
	return 0;
}

/**
 * iot_preg_end() - the newest time the region knows: its clock anchor,
 *	or its rings' newest completion if later (rings that cannot be read
 *	are left out).
 * @r: the region.
 *
 * Return: CLOCK_MONOTONIC ns of the previous boot.
 */
uint64_t iot_preg_end(const struct iot_preg *r)
{
	const struct iotrace_preg_disk *e;
	char err[IOT_ERR_LEN];
	struct iot_preg_ring s;
	uint64_t last = r->anchor_mono_ns;
	unsigned int i;
	int dmg;

	for (i = 0; i < r->h->max_disks; i++) {
		e = iot_preg_entry(r, i, &dmg);
		if (!e || !(e->flags & IOTRACE_PREG_D_RING) ||
		    iot_preg_ring_read(r, e, &s, err, sizeof(err)))
			continue;
		if (s.last_ns > last)
			last = s.last_ns;
	}
	return last;
}

/*
 * Of the entries @v (@k, each holding a ring), the ring of @v[@i]'s disk
 * replaced by the resize that made @v[@i]: the newest older one.
 * Return: its index in @v, or @k for none.
 */
static unsigned int ring_before(const struct iotrace_preg_disk **v,
				unsigned int k, unsigned int i)
{
	unsigned int j, b = k;

	for (j = 0; j < k; j++)
		if (v[j]->disk_gen == v[i]->disk_gen &&
		    v[j]->gen < v[i]->gen && (b == k || v[j]->gen > v[b]->gen))
			b = j;
	return b;
}

/**
 * iot_preg_rings() - the newest ring of each disk of the region, as ring
 *	views (in the order of the disk table, the rings of removed disks
 *	last: a disk of the same name that came after one is found first).
 * @r: the region.
 * @rings: room for r->h->max_disks rings, filled.
 * @disks: room for as many disks: the rings' (iot_ring_disk()).
 * @disk_gens: NULL, or room for as many: each ring's disk number (its
 *	in-flight table has the same).
 * @nr: set to the rings found.
 * @left: room for as many: the disks whose newest ring does not validate,
 *	left out; in its place among @rings, the newest of the disk's rings
 *	a resize replaced that validates, if any.
 * @nr_left: set to how many.
 * @err: error message buffer.
 * @errlen: its size.
 *
 * A ring that does not validate costs its disk's records, not the other
 * disks': the caller says @left (iot_preg_left_str()).
 *
 * Return: 0; -1 with @err set (no ring validates: the first's reason;
 * out of memory); -2 when the region holds no ring (only in-flight
 * tables; @err says so).
 */
int iot_preg_rings(const struct iot_preg *r, struct iot_ring *rings,
		   struct iot_disk *disks, uint64_t *disk_gens,
		   unsigned int *nr, struct iot_preg_left *left,
		   unsigned int *nr_left, char *err, size_t errlen)
{
	const struct iotrace_preg_disk **v, *e;
	unsigned int i, j, k = 0, n = 0, nl = 0, pass;
	uint32_t removed;
	struct iot_preg_left *l = NULL;
	char e2[IOT_ERR_LEN];
	int dmg, ret = -1;

	*nr = 0;
	*nr_left = 0;
	/* the entries holding a ring, those of removed disks last */
	v = calloc(r->h->max_disks, sizeof(*v));
	if (!v)
		return ERR("out of memory"), -1;
	for (pass = 0; pass < 2; pass++) {
		removed = pass ? IOTRACE_PREG_D_REMOVED : 0;
		for (i = 0; i < r->h->max_disks; i++) {
			e = iot_preg_entry(r, i, &dmg);
			if (e && (e->flags & IOTRACE_PREG_D_RING) &&
			    (e->flags & IOTRACE_PREG_D_REMOVED) == removed)
				v[k++] = e;
		}
	}
	for (i = 0; i < k; i++) {
		/* not the newest of its disk: replaced by a resize */
		for (j = 0; j < k; j++)
			if (j != i && v[j]->disk_gen == v[i]->disk_gen &&
			    v[j]->gen > v[i]->gen)
				break;
		if (j < k)
			continue;
		/* one that does not validate: the one it replaced, if whole */
		for (j = i; j < k; j = ring_before(v, k, j)) {
			if (!iot_ring_init(&rings[n], r->buf + v[j]->ring_off,
					   v[j]->ring_size, e2, sizeof(e2)))
				break;
			if (j == i) {
				l = &left[nl++];
				l->e = v[i];
				l->instead = NULL;
				snprintf(l->why, sizeof(l->why), "%s", e2);
			}
		}
		if (j == k)
			continue;
		if (j != i)
			l->instead = v[j];
		iot_ring_disk(&rings[n], &disks[n]);
		if (disk_gens)
			disk_gens[n] = v[j]->disk_gen;
		n++;
	}
	*nr_left = nl;
	if (!n && nl) {
		ERR("ring of %.32s: %s", left[0].e->name, left[0].why);
		goto out;
	}
	if (!n) {
		ERR("no ring in the persistent region");
		ret = -2;
		goto out;
	}
	*nr = n;
	ret = 0;
out:
	free(v);
	return ret;
}

/**
 * iot_preg_left_str() - what a ring left out (iot_preg_rings()) costs,
 *	for a message: "ring of DISK left out: WHY", and the ring read in
 *	its place, if any.
 * @l: the ring left out.
 * @out: the message (one line).
 * @len: its size.
 */
void iot_preg_left_str(const struct iot_preg_left *l, char *out, size_t len)
{
	if (l->instead)
		snprintf(out, len,
			 "ring of %.32s left out: %s; its ring a resize replaced (allocation %llu) read instead",
			 l->e->name, l->why,
			 (unsigned long long)l->instead->gen);
	else
		snprintf(out, len, "ring of %.32s left out: %s", l->e->name,
			 l->why);
}

static int infl_cmp(const void *a, const void *b)
{
	const struct iotrace_record *x = a, *y = b;

	return x->issue_ns < y->issue_ns ? -1 : x->issue_ns > y->issue_ns;
}

/**
 * iot_preg_inflight() - the requests in flight of the region's in-flight
 *	tables, a table per ring of iot_preg_rings() that has one (matched
 *	by disk number), oldest issue first.
 * @r: the region.
 * @disk_gens: the rings' disk numbers (iot_preg_rings()).
 * @nr: how many rings.
 * @at_ns: the time they were still in flight at (iot_preg_end()).
 * @out: set to @nr tables (calloc()ed; iot_preg_inflight_free()), the
 *	i-th the i-th ring's.
 * @orphans: set to the requests of tables whose disk has no ring in the
 *	region (not in @out: the file has no disk to put them under).
 *
 * Return: 0, or -1 when memory ran out.
 */
int iot_preg_inflight(const struct iot_preg *r, const uint64_t *disk_gens,
		      unsigned int nr, uint64_t at_ns,
		      struct iot_inflight **out, uint64_t *orphans)
{
	const struct iotrace_preg_slot *sl;
	const struct iotrace_preg_disk *e;
	struct iot_inflight *v, *t;
	struct iotrace_record *rec;
	unsigned int i, d;
	uint32_t j;
	int dmg;

	*orphans = 0;
	*out = NULL;
	v = calloc(nr ? nr : 1, sizeof(*v));
	if (!v)
		return -1;
	for (d = 0; d < nr; d++) {
		v[d].disk = d;
		v[d].at_ns = at_ns;
	}
	for (i = 0; i < r->h->max_disks; i++) {
		e = iot_preg_entry(r, i, &dmg);
		if (!e || !(e->flags & IOTRACE_PREG_D_SLOTS))
			continue;
		sl = (const void *)(r->buf + e->slots_off);
		for (d = 0; d < nr && disk_gens[d] != e->disk_gen; d++)
			;
		for (j = 0; j < e->nr_slots; j++) {
			if (!sl[j].gen)
				continue;
			if (d == nr) {
				*orphans += !(sl[j].gen & 1);
				continue;
			}
			t = &v[d];
			if (sl[j].gen & 1) {
				t->torn++;
				continue;
			}
			if (!(t->nr & (t->nr + 1))) {
				/* full at 2^k - 1 records: double */
				struct iotrace_record *nr2;

				nr2 = realloc(t->recs, (2 * t->nr + 1) *
					      sizeof(*nr2));
				if (!nr2)
					goto oom;
				t->recs = nr2;
			}
			rec = &t->recs[t->nr++];
			iot_rec2_read((const uint8_t *)&sl[j] +
				      offsetof(struct iotrace_preg_slot, rec),
				      UINT16_MAX, rec);
			/* as abi.rst has it, whatever the slot holds */
			rec->seq = 0;
			rec->complete_ns = 0;
			rec->rflags &= ~IOTRACE_RF_COMPLETE;
		}
	}
	for (d = 0; d < nr; d++)
		if (v[d].nr > 1)
			qsort(v[d].recs, v[d].nr, sizeof(*v[d].recs),
			      infl_cmp);
	*out = v;
	return 0;
oom:
	iot_preg_inflight_free(v, nr);
	return -1;
}

/**
 * iot_preg_inflight_free() - free iot_preg_inflight()'s tables.
 * @v: the tables (may be NULL).
 * @nr: how many.
 */
void iot_preg_inflight_free(struct iot_inflight *v, unsigned int nr)
{
	unsigned int d;

	if (!v)
		return;
	for (d = 0; d < nr; d++)
		free(v[d].recs);
	free(v);
}

/**
 * iot_preg_write() - write rings of the region (iot_preg_rings()) to a
 *	trace file, as record writes one, in one pass (iot_rings_write()),
 *	dated by the region's clock anchor and kernel release, with the
 *	requests of its in-flight tables (iot_preg_inflight()) at its end.
 * @r: the region.
 * @rings: the rings.
 * @disks: their disks.
 * @disk_gens: their disk numbers.
 * @nr: how many.
 * @fp: the output.
 * @end_ns: the file's end (iot_preg_end()); the anchor if earlier.
 * @counts: per ring, what was written, overwritten, torn.
 * @orphans: set to the requests in flight of disks without a ring in the
 *	region (not written; NULL: not wanted).
 * @err: error message buffer.
 * @errlen: its size.
 *
 * Return: 0; -1 with @err set; -3 when writing @fp failed (@err says why,
 * errno set).
 */
int iot_preg_write(const struct iot_preg *r, const struct iot_ring *rings,
		   const struct iot_disk *disks, const uint64_t *disk_gens,
		   unsigned int nr, FILE *fp, uint64_t end_ns,
		   struct iot_counts *counts, uint64_t *orphans, char *err,
		   size_t errlen)
{
	struct iot_rec_origin org = { 0 };
	struct iotrace_file_boot boot = { 0 };
	struct iotrace_file_ident *ids;
	struct iot_inflight *infl;
	unsigned int i;
	uint64_t lone;
	int ret;

	org.mono_ns = r->anchor_mono_ns;
	org.real_ns = r->anchor_real_ns;
	org.end_ns = end_ns > org.mono_ns ? end_ns : org.mono_ns;
	snprintf(org.release, sizeof(org.release), "%.64s", r->h->release);
	memcpy(boot.boot_id, r->h->boot_id, sizeof(boot.boot_id));
	boot.flags = IOTRACE_FILE_BOOT_REFUSED;
	if (r->h->flags & IOTRACE_PREG_PANICKED)
		boot.flags |= IOTRACE_FILE_BOOT_PANICKED;
	boot.refused = r->h->refused;
	if (r->h->minor >= 4) {
		boot.flags |= IOTRACE_FILE_BOOT_EVICTED;
		boot.evicted = r->h->evicted;
	}
	org.boot = &boot;
	ids = calloc(nr ? nr : 1, sizeof(*ids));
	if (!ids || iot_preg_inflight(r, disk_gens, nr, org.end_ns, &infl,
				      &lone)) {
		free(ids);
		return ERR("out of memory"), -1;
	}
	for (i = 0; i < nr; i++)
		iot_preg_disk_ident(r, disk_gens[i], &ids[i]);
	org.infl = infl;
	org.nr_infl = nr;
	org.ids = ids;
	if (orphans)
		*orphans = lone;
	ret = iot_rings_write(rings, disks, nr, fp, &org, counts, err,
			      errlen);
	iot_preg_inflight_free(infl, nr);
	free(ids);
	return ret;
}

/**
 * iot_preg_trace() - the trace file iot_preg_write() writes of the
 *	region, ending at iot_preg_end(), in memory ("iotracectl previous -o
 *	FILE" writes the same bytes).
 * @r: the region.
 * @out: set to the file's bytes (malloc()ed: the caller frees them).
 * @len: set to their length.
 * @warn: set to what of the region was left out, the rings that do not
 *	validate (iot_preg_left_str(), "; " between them), "" for nothing.
 * @warnlen: its size.
 * @err: error message buffer.
 * @errlen: its size.
 *
 * Return: 0; -1 with @err set; -2 when the region holds no ring.
 */
int iot_preg_trace(const struct iot_preg *r, uint8_t **out, size_t *len,
		   char *warn, size_t warnlen, char *err, size_t errlen)
{
	unsigned int max = r->h->max_disks, n, nl, i;
	struct iot_preg_left *left;
	struct iot_counts *counts;
	struct iot_disk *disks;
	struct iot_ring *rings;
	char one[IOT_ERR_LEN];
	uint64_t *gens;
	char *mem = NULL;
	size_t size = 0, at;
	FILE *fp = NULL;
	int ret = -1;

	*out = NULL;
	*len = 0;
	if (warnlen)
		*warn = 0;
	rings = calloc(max, sizeof(*rings));
	disks = calloc(max, sizeof(*disks));
	counts = calloc(max, sizeof(*counts));
	gens = calloc(max, sizeof(*gens));
	left = calloc(max, sizeof(*left));
	if (!rings || !disks || !counts || !gens || !left) {
		ERR("out of memory");
		goto out;
	}
	ret = iot_preg_rings(r, rings, disks, gens, &n, left, &nl, err,
			     errlen);
	if (ret)
		goto out;
	for (i = 0, at = 0; i < nl && at < warnlen; i++) {
		iot_preg_left_str(&left[i], one, sizeof(one));
		at += snprintf(warn + at, warnlen - at, "%s%s", i ? "; " : "",
			       one);
	}
	fp = open_memstream(&mem, &size);
	if (!fp) {
		ERR("out of memory");
		ret = -1;
		goto out;
	}
	ret = iot_preg_write(r, rings, disks, gens, n, fp, iot_preg_end(r),
			     counts, NULL, err, errlen);
	if (ret == -3) {
		char why[IOT_ERR_LEN];

		snprintf(why, sizeof(why), "%s", err);
		ERR("cannot make its trace file in memory: %s", why);
		ret = -1;
	}
	if (fclose(fp) && !ret) {
		ERR("cannot make its trace file in memory: out of memory");
		ret = -1;
	}
	if (!ret) {
		*out = (uint8_t *)mem;
		*len = size;
		mem = NULL;
	}
out:
	free(mem);
	free(rings);
	free(disks);
	free(counts);
	free(gens);
	free(left);
	return ret;
}
