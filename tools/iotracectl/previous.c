// SPDX-License-Identifier: GPL-2.0
/*
 * iotracectl previous: the rings and the requests in flight of the boot
 * that died, from the persistent region (abi.rst, "The persistent
 * region"): as the module offers it after a warm reboot (debugfs
 * "previous", /dev/iotrace/previous), a copy of it, or found in a crash
 * dump's physical memory (an ELF core: QEMU's dump-guest-memory,
 * /proc/vmcore) by its magic at a page boundary.  No kernel debug
 * information is needed.
 *
 * It prints the previous boot (its boot id, kernel, clock anchor), each
 * ring with its record counts and each request in flight when it stopped;
 * -o FILE writes the rings to a trace file (record's format, with that
 * boot's clock anchor and release), --rings DIR each ring as
 * DIR/<disk>.ring, a ring copy: every command that reads a FILE reads
 * either.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include "cmd.h"

#define PREG_PAGE	4096ull

struct prev_ctx {
	uint8_t *buf;		/* the region, region_size bytes */
	size_t len;
	const struct iotrace_preg_hdr *h;
	char label[300];
};

static uint32_t hdr_crc(const struct iotrace_preg_hdr *h)
{
	uint32_t c = iot_crc32c(0, h, 24);

	return iot_crc32c(c, (const uint8_t *)h + 32, 80);
}

static uint32_t entry_crc(const struct iotrace_preg_disk *e)
{
	return iot_crc32c(0, e, offsetof(struct iotrace_preg_disk, entry_crc));
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

/* An entry in use whose checksum and offsets hold, else NULL. */
static const struct iotrace_preg_disk *entry(const struct prev_ctx *c,
					     unsigned int i, int *damaged)
{
	const struct iotrace_preg_disk *e;

	e = (const void *)(c->buf + c->h->disk_off +
			   (uint64_t)i * c->h->disk_entry_size);
	*damaged = 0;
	if (!(e->flags & IOTRACE_PREG_D_USED))
		return NULL;
	if (entry_crc(e) != e->entry_crc ||
	    ((e->flags & IOTRACE_PREG_D_RING) &&
	     !span_ok(c->h, c->len, e->ring_off, e->ring_size)) ||
	    ((e->flags & IOTRACE_PREG_D_SLOTS) &&
	     (e->slot_size != IOTRACE_PREG_SLOT_SIZE ||
	      !span_ok(c->h, c->len, e->slots_off,
		       (uint64_t)e->nr_slots * e->slot_size)))) {
		*damaged = 1;
		return NULL;
	}
	return e;
}

/* pread() all of @n bytes at @off: 0, or -1 (errno; 0 for end of file) */
static int pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	uint8_t *p = buf;

	while (n) {
		ssize_t r = pread(fd, p, n, (off_t)off);

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

#define SCAN_BLOCK	(1u << 20)

/*
 * Find the region in the ELF64 core open as @fd: the first page-aligned
 * physical address of a PT_LOAD segment holding a header that checks
 * (the segments are read a block at a time: a dump is as large as the
 * machine's memory); copy region_size bytes from there into c->buf.
 */
static int from_core(struct prev_ctx *c, int fd, char *err, size_t errlen)
{
	uint8_t eh[64], ph[56], *blk;
	uint64_t phoff, i, k;
	uint16_t phentsize, phnum;
	int ret = -1;

	if (pread_all(fd, eh, sizeof(eh), 0) || eh[4] != 2 || eh[5] != 1)
		return snprintf(err, errlen, "%s: not a 64-bit little-endian ELF core",
				c->label), -1;
	memcpy(&phoff, eh + 32, 8);
	memcpy(&phentsize, eh + 54, 2);
	memcpy(&phnum, eh + 56, 2);
	if (phentsize < sizeof(ph))
		return snprintf(err, errlen, "%s: damaged ELF program headers",
				c->label), -1;
	blk = malloc(SCAN_BLOCK);
	if (!blk)
		return snprintf(err, errlen, "out of memory"), -1;
	for (i = 0; i < phnum; i++) {
		uint64_t off, paddr, filesz, start;
		uint32_t type;

		if (pread_all(fd, ph, sizeof(ph), phoff + i * phentsize)) {
			snprintf(err, errlen, "%s: damaged ELF program headers",
				 c->label);
			goto out;
		}
		memcpy(&type, ph, 4);
		memcpy(&off, ph + 8, 8);
		memcpy(&paddr, ph + 24, 8);
		memcpy(&filesz, ph + 32, 8);
		if (type != 1)
			continue;
		start = (PREG_PAGE - paddr % PREG_PAGE) % PREG_PAGE;
		for (k = start; k + IOTRACE_PREG_HDR_SIZE <= filesz;
		     k += SCAN_BLOCK) {
			uint64_t n = filesz - k < SCAN_BLOCK ? filesz - k :
				     SCAN_BLOCK, j;

			if (pread_all(fd, blk, n, off + k)) {
				snprintf(err, errlen, "%s: cut short at %llu: %s",
					 c->label,
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
				    hdr_bad(h, h->region_size) ||
				    h->region_size > filesz - at)
					continue;
				c->len = h->region_size;
				c->buf = malloc(c->len);
				if (!c->buf) {
					snprintf(err, errlen, "out of memory");
					goto out;
				}
				if (pread_all(fd, c->buf, c->len, off + at)) {
					snprintf(err, errlen, "%s: cut short in the region",
						 c->label);
					goto out;
				}
				printf("found the region at physical %#llx\n",
				       (unsigned long long)(paddr + at));
				ret = 0;
				goto out;
			}
		}
	}
	snprintf(err, errlen, "%s: no iotrace persistent region in the core's memory (was the module loaded with persist=, and does the dump hold the reserved range?)",
		 c->label);
out:
	free(blk);
	return ret;
}

static int prev_load(struct prev_ctx *c, const char *arg, char *err,
		     size_t errlen)
{
	char e[IOT_ERR_LEN], magic[4];
	uint8_t *buf;
	size_t len;
	int fd, ret;

	if (arg) {
		snprintf(c->label, sizeof(c->label), "%s", arg);
		fd = open(arg, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return snprintf(err, errlen, "cannot open %s: %s", arg,
					strerror(errno)), -1;
		if (!pread_all(fd, magic, 4, 0) &&
		    !memcmp(magic, "\177ELF", 4)) {
			ret = from_core(c, fd, err, errlen);
			close(fd);
			if (ret)
				return -1;
			goto check;
		}
		close(fd);
		if (iot_read_all(arg, &buf, &len, err, errlen))
			return -1;
	} else {
		snprintf(c->label, sizeof(c->label), "%s/previous",
			 iot_debugfs());
		if (iot_read_all(c->label, &buf, &len, e, sizeof(e))) {
			snprintf(c->label, sizeof(c->label), "%s/previous",
				 iot_devdir());
			if (iot_read_all(c->label, &buf, &len, err, errlen)) {
				snprintf(err, errlen, "no previous boot's trace: neither %s/previous nor %s/previous can be read (%s); the module offers one only when it was loaded with persist= in the boot before and in this one",
					 iot_debugfs(), iot_devdir(), e);
				return -1;
			}
		}
	}
	c->buf = buf;
	c->len = len;
check:
	c->h = (const void *)c->buf;
	if (hdr_bad(c->h, c->len)) {
		snprintf(err, errlen, "%s: not an iotrace persistent region (%s)",
			 c->label, hdr_bad(c->h, c->len));
		return -1;
	}
	c->len = c->h->region_size < c->len ? c->h->region_size : c->len;
	return 0;
}

static void uuid_str(const uint8_t *u, char *out)
{
	static const int dash[16] = { [4] = 1, [6] = 1, [8] = 1, [10] = 1 };
	int i;

	for (i = 0; i < 16; i++)
		out += sprintf(out, "%s%02x", dash[i] ? "-" : "", u[i]);
}

struct ring_sum {
	uint64_t records, last_ns;
};

static int sum_cb(void *arg, unsigned int disk,
		  const struct iotrace_record *r)
{
	struct ring_sum *s = arg;

	(void)disk;
	s->records++;
	if (r->complete_ns > s->last_ns)
		s->last_ns = r->complete_ns;
	return 0;
}

/* Read one ring image: records present and the newest completion. */
static int ring_sum(const struct prev_ctx *c, const struct iotrace_preg_disk *e,
		    struct ring_sum *s, struct iot_counts *cnt)
{
	char err[IOT_ERR_LEN];
	struct iot_src src;

	memset(s, 0, sizeof(*s));
	memset(cnt, 0, sizeof(*cnt));
	if (iot_src_open_buf(&src, e->name, c->buf + e->ring_off,
			     e->ring_size, err, sizeof(err))) {
		iot_err("previous: ring of %.32s: %s", e->name, err);
		return -1;
	}
	if (iot_src_read(&src, sum_cb, s, err, sizeof(err))) {
		iot_err("previous: ring of %.32s: %s", e->name, err);
		iot_src_close(&src);
		return -1;
	}
	*cnt = src.counts[0];
	iot_src_close(&src);
	return 0;
}

static int write_ring(const char *dir, const struct prev_ctx *c,
		      const struct iotrace_preg_disk *e, int newest)
{
	char path[4096], name[IOTRACE_NAME_LEN + 1];
	const uint8_t *p = c->buf + e->ring_off;
	size_t n = e->ring_size, i;
	int fd;

	/* a file in @dir whatever the region says: '/' as sysfs has it */
	snprintf(name, sizeof(name), "%.32s", e->name);
	for (i = 0; name[i]; i++)
		if (name[i] == '/' || (!i && name[i] == '.') ||
		    (unsigned char)name[i] < 0x20)
			name[i] = '!';
	if (!name[0])
		snprintf(name, sizeof(name), "unnamed");
	if (newest)
		snprintf(path, sizeof(path), "%s/%s.ring", dir, name);
	else
		snprintf(path, sizeof(path), "%s/%s.%llu.ring", dir, name,
			 (unsigned long long)e->gen);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		iot_err("previous: cannot create %s: %s", path,
			strerror(errno));
		return -1;
	}
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			iot_err("previous: cannot write %s: %s", path,
				strerror(errno));
			close(fd);
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	if (close(fd)) {
		iot_err("previous: cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	printf("wrote %s\n", path);
	return 0;
}

/* Whether @e is the newest ring of its disk (resizes leave older ones). */
static int newest_ring(const struct prev_ctx *c,
		       const struct iotrace_preg_disk *e)
{
	const struct iotrace_preg_disk *o;
	unsigned int i;
	int dmg;

	for (i = 0; i < c->h->max_disks; i++) {
		o = entry(c, i, &dmg);
		if (o && o != e && (o->flags & IOTRACE_PREG_D_RING) &&
		    o->disk_gen == e->disk_gen && o->gen > e->gen)
			return 0;
	}
	return 1;
}

/* A request in flight: its table's disk and its record. */
struct infl {
	const char *name;
	struct iotrace_record r;
};

static int infl_cmp(const void *a, const void *b)
{
	const struct infl *x = a, *y = b;

	return x->r.issue_ns < y->r.issue_ns ? -1 :
	       x->r.issue_ns > y->r.issue_ns;
}

/*
 * The requests in flight of every table, oldest issue first, one line
 * each; the torn slots (odd generation) counted in *@torn.  Return: how
 * many, or -1 (out of memory, said).
 */
static long print_inflight(const struct prev_ctx *c, uint64_t last_ns,
			   unsigned int *torn)
{
	const struct iotrace_preg_disk *e;
	const struct iotrace_preg_slot *s;
	struct infl *v = NULL, *nv;
	size_t n = 0, cap = 0, k;
	char cmd[256];
	unsigned int i;
	uint32_t j;
	int dmg;

	for (i = 0; i < c->h->max_disks; i++) {
		e = entry(c, i, &dmg);
		if (!e || !(e->flags & IOTRACE_PREG_D_SLOTS))
			continue;
		s = (const void *)(c->buf + e->slots_off);
		for (j = 0; j < e->nr_slots; j++) {
			if (!s[j].gen)
				continue;
			if (s[j].gen & 1) {
				(*torn)++;
				continue;
			}
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv) {
					free(v);
					iot_err("previous: out of memory");
					return -1;
				}
				v = nv;
			}
			v[n].name = e->name;
			iot_rec2_read((const uint8_t *)&s[j] +
				      offsetof(struct iotrace_preg_slot, rec),
				      UINT16_MAX, &v[n].r);
			n++;
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), infl_cmp);
	for (k = 0; k < n; k++) {
		const struct iotrace_record *r = &v[k].r;

		iot_decode_cmd(r, cmd, sizeof(cmd));
		printf("  %-12.32s %17llu %12.1f %-8s %12llu %8u %4u %5u %7u %s\n",
		       v[k].name, (unsigned long long)r->issue_ns,
		       last_ns > r->issue_ns ?
		       (double)(last_ns - r->issue_ns) / 1000.0 : 0.0,
		       iot_op_name(r->op), (unsigned long long)r->sector,
		       r->bytes, r->hwq, r->tag, r->pid, cmd);
	}
	free(v);
	return (long)n;
}

/*
 * -o FILE: the newest ring of each disk to a trace file, as record writes
 * one, in one pass, dated by the region's anchor.  Return: 0 or 1 (said).
 */
static int write_trace(const struct prev_ctx *c, const char *path,
		       uint64_t end_ns)
{
	const struct iotrace_preg_disk *e;
	struct iot_rec_origin org = { 0 };
	struct iot_rec_stop st = { 0 };
	struct iot_counts *cnt = NULL;
	struct iot_disk *disks = NULL;
	struct iot_ring *rings = NULL;
	static volatile int once = 1;
	char err[IOT_ERR_LEN];
	unsigned int i, n = 0;
	FILE *fp = NULL;
	int dmg, ret = 1, r;

	rings = calloc(c->h->max_disks, sizeof(*rings));
	disks = calloc(c->h->max_disks, sizeof(*disks));
	cnt = calloc(c->h->max_disks, sizeof(*cnt));
	if (!rings || !disks || !cnt) {
		iot_err("previous: out of memory");
		goto out;
	}
	for (i = 0; i < c->h->max_disks; i++) {
		e = entry(c, i, &dmg);
		if (!e || !(e->flags & IOTRACE_PREG_D_RING) ||
		    !newest_ring(c, e))
			continue;
		if (iot_ring_init(&rings[n], c->buf + e->ring_off,
				  e->ring_size, err, sizeof(err))) {
			iot_err("previous: ring of %.32s: %s", e->name, err);
			goto out;
		}
		iot_ring_disk(&rings[n], &disks[n]);
		n++;
	}
	if (!n) {
		iot_err("previous: no ring to write to %s", path);
		goto out;
	}
	org.mono_ns = c->h->anchor_mono_ns;
	org.real_ns = c->h->anchor_real_ns;
	org.end_ns = end_ns > org.mono_ns ? end_ns : org.mono_ns;
	snprintf(org.release, sizeof(org.release), "%.64s", c->h->release);
	st.stop = &once;
	st.origin = &org;
	fp = strcmp(path, "-") ? iot_out_fopen(path) : stdout;
	if (!fp)
		goto out;	/* said */
	r = iot_record_rings(rings, disks, n, fp, &st, cnt, err, sizeof(err));
	if (r == -3) {
		iot_write_error(fp == stdout ? "standard output" : path, errno);
		goto out;
	}
	if (r) {
		iot_err("previous: %s: %s", path, err);
		goto out;
	}
	for (i = 0; i < n; i++)
		fprintf(stderr, "%.32s: %llu records written to %s, %llu torn\n",
			disks[i].name, (unsigned long long)cnt[i].written,
			path, (unsigned long long)cnt[i].torn);
	ret = 0;
out:
	if (fp && fp != stdout && iot_out_close(fp, path))
		ret = 1;
	free(rings);
	free(disks);
	free(cnt);
	return ret;
}

/*
 * --release: the module's copy read (and written with -o), free it
 * (debugfs previous_release).  Return: 0 or 1 (said).
 */
static int prev_release(const char *arg)
{
	char path[4096];
	int fd;

	if (arg) {
		iot_err("previous --release frees the module's copy: it reads no FILE");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/previous_release", iot_debugfs());
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "1\n", 2) != 2) {
		iot_err("previous --release: cannot write %s: %s (the copy is freed at unload)",
			path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	close(fd);
	printf("released the module's copy\n");
	return 0;
}

int cmd_previous(struct iot_opts *o, int argc, char **argv)
{
	struct prev_ctx c = { 0 };
	const struct iotrace_preg_disk *e;
	char err[IOT_ERR_LEN], id[40], when[64];
	uint64_t last_ns;
	unsigned int i, damaged = 0, torn = 0, nr_infl = 0;
	int dmg, ret = 0;
	long infl;

	if (argc > 1) {
		iot_err("previous takes at most one FILE (a region copy or an ELF crash dump)");
		return 2;
	}
	if (o->rings && mkdir(o->rings, 0700) && errno != EEXIST) {
		iot_err("previous: cannot create %s: %s", o->rings,
			strerror(errno));
		return 1;
	}
	if (prev_load(&c, argc ? argv[0] : NULL, err, sizeof(err))) {
		iot_err("previous: %s", err);
		free(c.buf);
		return 1;
	}
	uuid_str(c.h->boot_id, id);
	{
		time_t sec = (time_t)(c.h->anchor_real_ns / 1000000000ull);
		struct tm tm;

		gmtime_r(&sec, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	printf("previous boot %s, kernel %.64s%s\n", id, c.h->release,
	       (c.h->flags & IOTRACE_PREG_PANICKED) ? ", panicked" : "");
	printf("last clock anchor %s = %llu.%09llu s monotonic; %llu bytes from %s\n",
	       when, (unsigned long long)(c.h->anchor_mono_ns / 1000000000ull),
	       (unsigned long long)(c.h->anchor_mono_ns % 1000000000ull),
	       (unsigned long long)c.h->region_size, c.label);
	last_ns = c.h->anchor_mono_ns;
	printf("%-12s %10s %10s %12s %8s %s\n", "DISK", "RING", "RECORDS",
	       "OVERWRITTEN", "TORN", "NEWEST_NS");
	for (i = 0; i < c.h->max_disks; i++) {
		struct iot_counts cnt;
		struct ring_sum s;

		e = entry(&c, i, &dmg);
		damaged += dmg;
		if (!e || !(e->flags & IOTRACE_PREG_D_RING))
			continue;
		if (ring_sum(&c, e, &s, &cnt)) {
			ret = 1;
			continue;
		}
		if (s.last_ns > last_ns)
			last_ns = s.last_ns;
		printf("%-12.32s %10llu %10llu %12llu %8llu %llu%s\n", e->name,
		       (unsigned long long)e->ring_size,
		       (unsigned long long)s.records,
		       (unsigned long long)cnt.overwritten,
		       (unsigned long long)cnt.torn,
		       (unsigned long long)s.last_ns,
		       newest_ring(&c, e) ? "" : " (replaced by a resize)");
		if (o->rings && write_ring(o->rings, &c, e,
					   newest_ring(&c, e)))
			ret = 1;
	}
	printf("in flight when it stopped (age at the newest time known, %llu ns):\n",
	       (unsigned long long)last_ns);
	printf("  %-12s %17s %12s %-8s %12s %8s %4s %5s %7s %s\n", "DISK",
	       "ISSUE_NS", "AGE_US", "OP", "SECTOR", "BYTES", "HWQ", "TAG",
	       "PID", "COMMAND");
	infl = print_inflight(&c, last_ns, &torn);
	if (infl < 0)
		ret = 1;
	else
		nr_infl = (unsigned int)infl;
	printf("%u in flight, %u torn in-flight slots, %u damaged entries\n",
	       nr_infl, torn, damaged + c.h->damaged);
	if (o->out && write_trace(&c, o->out, last_ns))
		ret = 1;
	free(c.buf);
	if (!ret && o->release)
		ret = prev_release(argc ? argv[0] : NULL);
	return ret;
}
