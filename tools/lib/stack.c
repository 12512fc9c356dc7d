// SPDX-License-Identifier: GPL-2.0
/*
 * Stacked devices (issue 49).  iotrace records requests where they reach a
 * disk; the device a user knows (an LVM volume, a dm-crypt mapping, an md
 * RAID1 array, a partition) is above it.  This file reads what is above
 * the disks from the running system, saves it in a trace file as an
 * IOTRACE_CHUNK_STACK chunk, reads it back, and maps a disk's sector to
 * the devices above it, level by level.
 *
 * Where the tables come from (user space only, no library):
 *  - /sys/block: every block device, its number (dev) and size; the
 *    partitions of a disk (<part>/partition, start); device-mapper
 *    devices (dm/name); md arrays (md/level, and for each member
 *    md/dev-X/block -> the member, md/dev-X/offset: its data_offset).
 *  - device-mapper tables: the DM_TABLE_STATUS ioctl on
 *    /dev/mapper/control with DM_STATUS_TABLE_FLAG, the text "dmsetup
 *    table" prints.  A dm-crypt table holds the key: only the numbers
 *    and the device are taken from it, the buffer is wiped
 *    (DM_SECURE_DATA_FLAG asks the kernel to wipe its copy too), and no
 *    key ever reaches a file.
 * Mapped: dm linear, dm crypt (the data is at the table's device offset;
 * its iv_offset only changes the IV), md RAID1 (every member holds the
 * array at its data_offset) and partitions.  Other dm targets and md
 * levels are saved as devices without segments: nothing maps to them.
 *
 * With IOTRACE_SYSFS set (the host tests), /sys is that directory and a
 * dm device's table is read from its dm/table file there (the text of
 * "dmsetup table <name>"), not from the kernel.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <linux/dm-ioctl.h>
#include "stack.h"

#define ERR(...) snprintf(err, errlen, __VA_ARGS__)

#define STACK_MAX_DEVS	65536u
#define STACK_MAX_SEGS	(1u << 20)

void iot_stack_tab_free(struct iot_stack_tab *t)
{
	free(t->devs);
	free(t->segs);
	memset(t, 0, sizeof(*t));
}

void iot_stack_free(struct iot_stack *st)
{
	unsigned int i;

	for (i = 0; i < st->n; i++)
		iot_stack_tab_free(&st->t[i]);
	free(st->t);
	st->t = NULL;
	st->n = 0;
}

static struct iotrace_file_stack_dev *add_dev(struct iot_stack_tab *t)
{
	struct iotrace_file_stack_dev *v;

	if (t->nr_devs >= STACK_MAX_DEVS)
		return NULL;
	v = realloc(t->devs, (t->nr_devs + 1) * sizeof(*v));
	if (!v)
		return NULL;
	t->devs = v;
	v = &t->devs[t->nr_devs++];
	memset(v, 0, sizeof(*v));
	return v;
}

static struct iotrace_file_stack_seg *add_seg(struct iot_stack_tab *t)
{
	struct iotrace_file_stack_seg *v;

	if (t->nr_segs >= STACK_MAX_SEGS)
		return NULL;
	v = realloc(t->segs, (t->nr_segs + 1) * sizeof(*v));
	if (!v)
		return NULL;
	t->segs = v;
	v = &t->segs[t->nr_segs++];
	memset(v, 0, sizeof(*v));
	return v;
}

/* "M:m" (the kernel's format_dev_t()); 0 or -1 */
static int parse_devno(const char *s, uint32_t *maj, uint32_t *min)
{
	unsigned int a, b;
	int n = 0;

	if (sscanf(s, "%u:%u%n", &a, &b, &n) != 2 || s[n])
		return -1;
	*maj = a;
	*min = b;
	return 0;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *e;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &e, 10);
	return errno || *e ? -1 : 0;
}

/**
 * iot_stack_parse_dm() - one target line of a dm table, as "dmsetup
 *	table" prints it ("START LEN TYPE PARAMS"), into segments of device
 *	@upper.
 * @t: the table.
 * @upper: index of the dm device in @t->devs.
 * @line: the line; only its numbers and devices are kept (a crypt
 *	target's key is skipped, never copied).
 *
 * Return: 1 a segment was added, 0 a target that maps nothing iotrace
 * follows (other types), -1 a malformed line or out of memory.
 */
int iot_stack_parse_dm(struct iot_stack_tab *t, unsigned int upper,
		       const char *line)
{
	char buf[512], *tok[8], *save = NULL, *s;
	struct iotrace_file_stack_seg *g;
	uint64_t start, len, off, iv = 0;
	uint32_t maj, min, type;
	unsigned int n = 0;
	const char *dev;
	int ret = -1;

	/* the first 8 tokens say all a linear or crypt target has */
	snprintf(buf, sizeof(buf), "%s", line);
	for (s = strtok_r(buf, " \t\n", &save); s && n < 8;
	     s = strtok_r(NULL, " \t\n", &save))
		tok[n++] = s;
	if (n < 3 || parse_u64(tok[0], &start) || parse_u64(tok[1], &len))
		goto out;
	if (!strcmp(tok[2], "linear")) {
		if (n < 5)
			goto out;
		type = IOTRACE_STACK_SEG_LINEAR;
		dev = tok[3];
		if (parse_u64(tok[4], &off))
			goto out;
	} else if (!strcmp(tok[2], "crypt")) {
		/* cipher key iv_offset device offset [#opts opts...] */
		if (n < 8)
			goto out;
		type = IOTRACE_STACK_SEG_CRYPT;
		if (parse_u64(tok[5], &iv) || parse_u64(tok[7], &off))
			goto out;
		dev = tok[6];
	} else {
		ret = 0;
		goto out;
	}
	if (parse_devno(dev, &maj, &min) || !len || start + len < start ||
	    off + len < off)
		goto out;
	g = add_seg(t);
	if (!g)
		goto out;
	g->upper = upper;
	g->type = type;
	g->lower_major = maj;
	g->lower_minor = min;
	g->start = start;
	g->len = len;
	g->lower_start = off;
	g->iv_offset = iv;
	ret = 1;
out:
	/* the key of a crypt target was in it */
	explicit_bzero(buf, sizeof(buf));
	return ret;
}

/* The first line of @dir/@name, without its newline; -1 if none. */
static int read_line(const char *dir, const char *name, char *out,
		     size_t len)
{
	char p[4096];
	FILE *f;
	size_t n;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "re");
	if (!f)
		return -1;
	if (!fgets(out, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	n = strlen(out);
	while (n && (out[n - 1] == '\n' || out[n - 1] == ' '))
		out[--n] = 0;
	return 0;
}

static int read_u64(const char *dir, const char *name, uint64_t *v)
{
	char b[64];

	return read_line(dir, name, b, sizeof(b)) || parse_u64(b, v) ? -1 : 0;
}

/* A block device's entry from its sysfs directory; NULL on failure. */
static struct iotrace_file_stack_dev *sys_dev(struct iot_stack_tab *t,
					      const char *dir,
					      const char *kname, uint32_t kind)
{
	struct iotrace_file_stack_dev *d;
	uint32_t maj, min;
	uint64_t size = 0;
	char b[64];

	if (read_line(dir, "dev", b, sizeof(b)) || parse_devno(b, &maj, &min))
		return NULL;
	read_u64(dir, "size", &size);
	d = add_dev(t);
	if (!d)
		return NULL;
	snprintf(d->kname, sizeof(d->kname), "%s", kname);
	d->dev_major = maj;
	d->dev_minor = min;
	d->kind = kind;
	d->sectors = size;
	return d;
}

/*
 * The partitions of device @idx (a disk, a dm or md device) at @dir:
 * its sub-directories with a partition file, each a device and a
 * segment at its start.  0, or -1 out of memory.
 */
static int sys_parts(struct iot_stack_tab *t, const char *dir,
		     unsigned int idx)
{
	char sub[4096 + 512];
	struct dirent *e;
	DIR *dh = opendir(dir);

	if (!dh)
		return 0;
	while ((e = readdir(dh))) {
		struct iotrace_file_stack_dev *d;
		struct iotrace_file_stack_seg *g;
		uint64_t start;

		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		if (read_u64(sub, "partition", &start) ||
		    read_u64(sub, "start", &start))
			continue;
		d = sys_dev(t, sub, e->d_name, IOTRACE_STACK_PART);
		if (d && !d->sectors)
			continue;	/* nothing in it to map */
		g = d ? add_seg(t) : NULL;
		if (!g) {
			closedir(dh);
			return -1;
		}
		g->upper = t->nr_devs - 1;
		g->type = IOTRACE_STACK_SEG_PART;
		g->lower_major = t->devs[idx].dev_major;
		g->lower_minor = t->devs[idx].dev_minor;
		g->len = t->devs[t->nr_devs - 1].sectors;
		g->lower_start = start;
	}
	closedir(dh);
	return 0;
}

/* md/level's word as a number: raid1 -> 1, linear -> -1 */
static int md_level(const char *s)
{
	if (!strncmp(s, "raid", 4) && s[4] >= '0' && s[4] <= '9')
		return atoi(s + 4);
	if (!strcmp(s, "linear"))
		return -1;
	if (!strcmp(s, "multipath"))
		return -4;
	if (!strcmp(s, "faulty"))
		return -5;
	return -1000;	/* none yet, a container */
}

/* md RAID1: every member holds the array from its data_offset on */
static int md_members(struct iot_stack_tab *t, const char *dir,
		      unsigned int upper, uint64_t size)
{
	char md[4096], p[4096 + 300], b[64];
	struct dirent *e;
	DIR *dh;

	if (!size)	/* not running: nothing to map */
		return 0;
	snprintf(md, sizeof(md), "%s/md", dir);
	dh = opendir(md);
	if (!dh)
		return 0;
	while ((e = readdir(dh))) {
		struct iotrace_file_stack_seg *g;
		uint32_t maj, min;
		uint64_t off;

		if (strncmp(e->d_name, "dev-", 4))
			continue;
		snprintf(p, sizeof(p), "%s/%s", md, e->d_name);
		if (read_u64(p, "offset", &off) ||
		    read_line(p, "block/dev", b, sizeof(b)) ||
		    parse_devno(b, &maj, &min))
			continue;
		g = add_seg(t);
		if (!g) {
			closedir(dh);
			return -1;
		}
		g->upper = upper;
		g->type = IOTRACE_STACK_SEG_RAID1;
		g->lower_major = maj;
		g->lower_minor = min;
		g->start = 0;
		g->len = size;
		g->lower_start = off;
	}
	closedir(dh);
	return 0;
}

/*
 * The table of dm device @maj:@min (index @upper) from the kernel:
 * DM_TABLE_STATUS with DM_STATUS_TABLE_FLAG, each target handed to
 * iot_stack_parse_dm() as "START LEN TYPE PARAMS".  0, or -1 (errno).
 */
static int dm_table_ioctl(int ctl, struct iot_stack_tab *t,
			  unsigned int upper, uint32_t maj, uint32_t min)
{
	size_t size = 16384;
	int ret = -1;

	for (;;) {
		struct dm_ioctl *io = calloc(1, size);
		uint32_t i, off = 0;

		if (!io)
			return -1;
		io->version[0] = DM_VERSION_MAJOR;
		io->data_size = (uint32_t)size;
		io->data_start = sizeof(*io);
		io->dev = makedev(maj, min);
		io->flags = DM_STATUS_TABLE_FLAG | DM_SECURE_DATA_FLAG;
		if (ioctl(ctl, DM_TABLE_STATUS, io)) {
			int e = errno;

			explicit_bzero(io, size);
			free(io);
			errno = e;
			return -1;
		}
		if (io->flags & DM_BUFFER_FULL_FLAG) {
			explicit_bzero(io, size);
			free(io);
			if (size >= (16u << 20)) {
				errno = E2BIG;
				return -1;
			}
			size *= 4;
			continue;
		}
		ret = 0;
		for (i = 0; i < io->target_count; i++) {
			struct dm_target_spec *sp;
			char line[512];
			size_t room;

			if (io->data_start + (uint64_t)off + sizeof(*sp) >
			    io->data_size || io->data_size > size)
				break;
			sp = (struct dm_target_spec *)((char *)io +
						       io->data_start + off);
			room = io->data_size - io->data_start - off -
				sizeof(*sp);
			snprintf(line, sizeof(line), "%llu %llu %.*s %.*s",
				 (unsigned long long)sp->sector_start,
				 (unsigned long long)sp->length,
				 (int)sizeof(sp->target_type), sp->target_type,
				 (int)strnlen((char *)(sp + 1), room),
				 (char *)(sp + 1));
			if (iot_stack_parse_dm(t, upper, line) < 0)
				ret = -1;
			explicit_bzero(line, sizeof(line));
			if (sp->next <= off)
				break;
			off = sp->next;
		}
		explicit_bzero(io, size);
		free(io);
		if (ret)
			errno = EINVAL;
		return ret;
	}
}

/* A fixture's dm table (IOTRACE_SYSFS): dm/table, one target a line. */
static int dm_table_file(const char *dir, struct iot_stack_tab *t,
			 unsigned int upper)
{
	char p[4096], line[512];
	FILE *f;
	int ret = 0;

	snprintf(p, sizeof(p), "%s/dm/table", dir);
	f = fopen(p, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (line[0] != '\n' && iot_stack_parse_dm(t, upper, line) < 0)
			ret = -1;
	fclose(f);
	return ret;
}

static int cmp_kname(const void *a, const void *b)
{
	const struct dirent *const *x = a, *const *y = b;

	return strcmp((*x)->d_name, (*y)->d_name);
}

/**
 * iot_stack_read_system() - read the block devices of this system (or of
 *	the IOTRACE_SYSFS fixture) and how they stack.
 * @t: filled (freed first, if it held a table).
 * @err: a warning when the dm tables could not be read (the devices and
 *	md layouts are still in @t; IOTRACE_STACK_SRC_DM_FAILED set), else
 *	set to "".
 * @errlen: size of @err.
 *
 * Return: 0, or -1 when /sys/block could not be read or out of memory.
 */
int iot_stack_read_system(struct iot_stack_tab *t, char *err, size_t errlen)
{
	const char *sys = getenv("IOTRACE_SYSFS");
	int fixture = sys && *sys, ctl = -1, ctl_errno = 0, dm_bad = 0;
	char blk[4096], dir[4096 + 256], b[256];
	struct dirent **ents = NULL;
	unsigned int i;
	int n, ret = -1;

	iot_stack_tab_free(t);
	if (errlen)
		err[0] = 0;
	t->source = IOTRACE_STACK_SRC_SYSFS;
	snprintf(blk, sizeof(blk), "%s/block", fixture ? sys : "/sys");
	n = scandir(blk, &ents, NULL, NULL);
	if (n < 0) {
		ERR("%s: %s", blk, strerror(errno));
		return -1;
	}
	/* the same system gives the same table: by name */
	qsort(ents, n, sizeof(*ents), cmp_kname);
	for (i = 0; i < (unsigned int)n; i++) {
		const char *kn = ents[i]->d_name;
		struct iotrace_file_stack_dev *d;
		unsigned int idx;

		if (kn[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", blk, kn);
		if (!read_line(dir, "dm/name", b, sizeof(b))) {
			d = sys_dev(t, dir, kn, IOTRACE_STACK_DM);
			if (!d)
				continue;
			snprintf(d->name, sizeof(d->name), "%s", b);
			idx = t->nr_devs - 1;
			t->source |= IOTRACE_STACK_SRC_DM_IOCTL;
			if (sys_parts(t, dir, idx))
				goto nomem;
			if (fixture) {
				if (dm_table_file(dir, t, idx))
					dm_bad = 1;
				continue;
			}
			if (ctl < 0 && !ctl_errno) {
				ctl = open("/dev/mapper/control", O_RDWR |
					   O_CLOEXEC);
				if (ctl < 0)
					ctl_errno = errno ? errno : EIO;
			}
			if (ctl < 0 || dm_table_ioctl(ctl, t, idx,
						      t->devs[idx].dev_major,
						      t->devs[idx].dev_minor)) {
				if (!dm_bad && ctl >= 0)
					ctl_errno = errno;
				dm_bad = 1;
			}
			continue;
		}
		if (!read_line(dir, "md/level", b, sizeof(b))) {
			d = sys_dev(t, dir, kn, IOTRACE_STACK_MD);
			if (!d)
				continue;
			d->level = md_level(b);
			idx = t->nr_devs - 1;
			if ((d->level == 1 &&
			     md_members(t, dir, idx, d->sectors)) ||
			    sys_parts(t, dir, idx))
				goto nomem;
			continue;
		}
		d = sys_dev(t, dir, kn, IOTRACE_STACK_DISK);
		if (d && sys_parts(t, dir, t->nr_devs - 1))
			goto nomem;
	}
	if (dm_bad) {
		t->source |= IOTRACE_STACK_SRC_DM_FAILED;
		if (fixture)
			ERR("a device-mapper table of %s could not be read",
			    blk);
		else
			snprintf(err, errlen,
				 "device-mapper tables not read (/dev/mapper/control: %s): dm devices shown without their tables",
				 strerror(ctl_errno ? ctl_errno : EINVAL));
	}
	ret = 0;
	goto out;
nomem:
	ERR("out of memory");
out:
	if (ctl >= 0)
		close(ctl);
	for (i = 0; i < (unsigned int)n; i++)
		free(ents[i]);
	free(ents);
	return ret;
}

/* Whether @t has anything above a disk but partitions (dm or md). */
int iot_stack_has_upper(const struct iot_stack_tab *t)
{
	unsigned int i;

	for (i = 0; i < t->nr_devs; i++)
		if (t->devs[i].kind == IOTRACE_STACK_DM ||
		    t->devs[i].kind == IOTRACE_STACK_MD)
			return 1;
	return 0;
}

/* The same devices and segments (whenever read). */
int iot_stack_same(const struct iot_stack_tab *a,
		   const struct iot_stack_tab *b)
{
	return a->source == b->source && a->nr_devs == b->nr_devs &&
		a->nr_segs == b->nr_segs &&
		(!a->nr_devs ||
		 !memcmp(a->devs, b->devs, a->nr_devs * sizeof(*a->devs))) &&
		(!a->nr_segs ||
		 !memcmp(a->segs, b->segs, a->nr_segs * sizeof(*a->segs)));
}

/**
 * iot_stack_encode() - @t as an IOTRACE_CHUNK_STACK payload.
 * @t: the table.
 * @out: the payload, malloc()ed.
 * @len: its length (a multiple of 8).
 *
 * Return: 0 or -1 (out of memory).
 */
int iot_stack_encode(const struct iot_stack_tab *t, uint8_t **out,
		     size_t *len)
{
	struct iotrace_file_stack h;
	size_t dl = (size_t)t->nr_devs * sizeof(*t->devs);
	size_t sl = (size_t)t->nr_segs * sizeof(*t->segs);
	uint8_t *p;

	memset(&h, 0, sizeof(h));
	h.version = IOTRACE_STACK_VERSION;
	h.source = t->source;
	h.mono_ns = t->mono_ns;
	h.nr_devs = t->nr_devs;
	h.dev_size = sizeof(*t->devs);
	h.dev_offset = sizeof(h);
	h.nr_segs = t->nr_segs;
	h.seg_size = sizeof(*t->segs);
	h.seg_offset = (uint32_t)(sizeof(h) + dl);
	p = malloc(sizeof(h) + dl + sl);
	if (!p)
		return -1;
	memcpy(p, &h, sizeof(h));
	if (dl)
		memcpy(p + sizeof(h), t->devs, dl);
	if (sl)
		memcpy(p + sizeof(h) + dl, t->segs, sl);
	*out = p;
	*len = sizeof(h) + dl + sl;
	return 0;
}

/**
 * iot_stack_decode() - an IOTRACE_CHUNK_STACK payload into @t.
 * @t: filled (zeroed first).
 * @p: the payload.
 * @len: its length.
 *
 * Return: 0; 1 for a version this reader does not know (skip it); -1 for
 * a payload no writer makes (or out of memory).
 */
int iot_stack_decode(struct iot_stack_tab *t, const void *p, size_t len)
{
	const uint8_t *b = p;
	struct iotrace_file_stack h;
	unsigned int i;

	memset(t, 0, sizeof(*t));
	if (len < sizeof(h))
		return -1;
	memcpy(&h, b, sizeof(h));
	if (h.version != IOTRACE_STACK_VERSION)
		return 1;
	if (h.dev_size < sizeof(*t->devs) || h.seg_size < sizeof(*t->segs) ||
	    h.nr_devs > STACK_MAX_DEVS || h.nr_segs > STACK_MAX_SEGS ||
	    h.dev_offset < sizeof(h) || h.seg_offset < sizeof(h) ||
	    h.dev_offset > len ||
	    (uint64_t)h.nr_devs * h.dev_size > len - h.dev_offset ||
	    h.seg_offset > len ||
	    (uint64_t)h.nr_segs * h.seg_size > len - h.seg_offset)
		return -1;
	t->mono_ns = h.mono_ns;
	t->source = h.source;
	t->devs = calloc(h.nr_devs ? h.nr_devs : 1, sizeof(*t->devs));
	t->segs = calloc(h.nr_segs ? h.nr_segs : 1, sizeof(*t->segs));
	if (!t->devs || !t->segs) {
		iot_stack_tab_free(t);
		return -1;
	}
	t->nr_devs = h.nr_devs;
	t->nr_segs = h.nr_segs;
	for (i = 0; i < h.nr_devs; i++) {
		struct iotrace_file_stack_dev *d = &t->devs[i];

		memcpy(d, b + h.dev_offset + (size_t)i * h.dev_size,
		       sizeof(*d));
		d->kname[sizeof(d->kname) - 1] = 0;
		d->name[sizeof(d->name) - 1] = 0;
	}
	for (i = 0; i < h.nr_segs; i++) {
		struct iotrace_file_stack_seg *g = &t->segs[i];

		memcpy(g, b + h.seg_offset + (size_t)i * h.seg_size,
		       sizeof(*g));
		if (g->upper >= h.nr_devs || !g->len ||
		    g->start + g->len < g->start ||
		    g->lower_start + g->len < g->lower_start) {
			iot_stack_tab_free(t);
			return -1;
		}
	}
	return 0;
}

/*
 * The disk named @kname (the kernel's name, as the ring and the file's
 * disk table have it), else the device numbered @maj:@min; -1: none.
 */
static int find_dev(const struct iot_stack_tab *t, uint32_t maj,
		    uint32_t min, const char *kname)
{
	unsigned int i;

	if (kname)
		for (i = 0; i < t->nr_devs; i++)
			if (!strcmp(t->devs[i].kname, kname))
				return (int)i;
	if (maj || min)
		for (i = 0; i < t->nr_devs; i++)
			if (t->devs[i].dev_major == maj &&
			    t->devs[i].dev_minor == min)
				return (int)i;
	return -1;
}

/**
 * iot_stack_map() - the devices above a request of a disk, and its
 *	sector on each.
 * @t: the table.
 * @disk: the disk's name (the device of that name in @t; else the one
 *	numbered @major:@min).
 * @major: its device number (0:0: unknown).
 * @minor: see @major.
 * @sector: the request's first sector (512-byte units).
 * @bytes: its length.
 * @hops: filled, lowest level first (a partition, then a dm or md
 *	device, ...): the last one is the device a user knows.
 * @max: room in @hops.
 *
 * A sector maps through the first segment of a lower device that holds
 * it; a request that runs past the segment's end is mapped by its first
 * sector (@partial set).
 *
 * Return: the number of levels found (0: the sector is of no device above
 * the disk: metadata, free space, or a disk nothing is stacked on).
 */
int iot_stack_map(const struct iot_stack_tab *t, const char *disk,
		  uint32_t major, uint32_t minor, uint64_t sector,
		  uint32_t bytes, struct iot_stack_hop *hops, int max)
{
	uint64_t nsect = (bytes + 511u) / 512u;
	int n = 0, k = find_dev(t, major, minor, disk);

	if (sector == UINT64_MAX)
		return 0;
	if (k >= 0) {
		major = t->devs[k].dev_major;
		minor = t->devs[k].dev_minor;
	}
	while (n < max && n < IOT_STACK_DEPTH) {
		const struct iotrace_file_stack_seg *g = NULL;
		unsigned int i;

		for (i = 0; i < t->nr_segs; i++) {
			g = &t->segs[i];
			if (g->lower_major == major &&
			    g->lower_minor == minor &&
			    sector >= g->lower_start &&
			    sector - g->lower_start < g->len)
				break;
		}
		if (i == t->nr_segs)
			break;
		hops[n].dev = g->upper;
		hops[n].sector = g->start + (sector - g->lower_start);
		hops[n].type = g->type;
		hops[n].partial = nsect > g->len - (sector - g->lower_start);
		sector = hops[n].sector;
		major = t->devs[g->upper].dev_major;
		minor = t->devs[g->upper].dev_minor;
		n++;
	}
	return n;
}

/* The name a user knows: a dm device's name, else the kernel's. */
const char *iot_stack_name(const struct iot_stack_tab *t, unsigned int dev)
{
	const struct iotrace_file_stack_dev *d = &t->devs[dev];

	return d->kind == IOTRACE_STACK_DM && d->name[0] ? d->name : d->kname;
}

/*
 * The table in force at @ns: the newest read at or before it, else the
 * oldest; NULL when there is none.
 */
const struct iot_stack_tab *iot_stack_at(const struct iot_stack *st,
					 uint64_t ns)
{
	unsigned int i;

	if (!st->n)
		return NULL;
	for (i = st->n; i > 1; i--)
		if (st->t[i - 1].mono_ns <= ns)
			break;
	return &st->t[i - 1];
}

/**
 * iot_stack_top() - the topmost device a record of disk @d is of.
 * @st: the tables.
 * @d: the record's disk.
 * @r: the record.
 * @name: its name (a dm device's name, else the kernel's).
 * @sector: the record's sector there.
 * @partial: the request runs past the mapped range.
 *
 * Return: 1, or 0 when the record maps to nothing.
 */
int iot_stack_top(const struct iot_stack *st, const struct iot_disk *d,
		  const struct iotrace_record *r, const char **name,
		  uint64_t *sector, int *partial)
{
	const struct iot_stack_tab *t = iot_stack_at(st, iot_rec_start(r));
	struct iot_stack_hop h[IOT_STACK_DEPTH];
	int n, i;

	if (!t || !r->bytes)
		return 0;
	n = iot_stack_map(t, d->name, d->dev_major, d->dev_minor, r->sector,
			  r->bytes, h, IOT_STACK_DEPTH);
	if (!n)
		return 0;
	*name = iot_stack_name(t, h[n - 1].dev);
	*sector = h[n - 1].sector;
	*partial = 0;
	for (i = 0; i < n; i++)
		*partial |= h[i].partial;
	return 1;
}

/**
 * iot_writer_stack() - write @t as an IOTRACE_CHUNK_STACK chunk.
 * @w: the writer.
 * @t: the table.
 *
 * Return: 0, or -1 (a write error, or out of memory).
 */
int iot_writer_stack(struct iot_writer *w, const struct iot_stack_tab *t)
{
	struct iotrace_file_chunk ch;
	uint8_t *p;
	size_t len;
	int ret;

	if (iot_stack_encode(t, &p, &len))
		return -1;
	memset(&ch, 0, sizeof(ch));
	ch.magic = IOTRACE_CHUNK_STACK;
	ch.payload_size = len;
	ret = iot_writer_other(w, &ch, p);
	free(p);
	return ret;
}

/**
 * iot_file_stacks() - the stack chunks of a trace file that
 *	iot_file_parse() accepted, added to @st in file order.
 * @buf: the file.
 * @len: its length.
 * @fi: its information (read with iot_file_copy(), as the parse reads).
 * @st: tables added (a chunk of an unknown version, a damaged one or one
 *	whose checksum does not match is left out).
 *
 * Return: the number of tables added, or -1 when the file could not be
 * read or out of memory.
 */
int iot_file_stacks(const void *buf, size_t len, struct iot_file_info *fi,
		    struct iot_stack *st)
{
	struct iot_chunk_walk w;
	uint64_t off;
	int n = 0, r;

	(void)len;
	if (!iot_file_chunks_begin(fi, &w))
		return 0;
	for (;;) {
		struct iotrace_file_chunk ch;
		struct iot_stack_tab t, *v;
		uint8_t *p;

		r = iot_file_chunk_next(buf, fi, &w, &off, &ch);
		if (r < 0)
			return -1;
		if (!r)
			break;
		if (ch.magic != IOTRACE_CHUNK_STACK ||
		    ch.payload_size > (64u << 20))
			continue;
		p = malloc(ch.hdr_size + ch.payload_size);
		if (!p)
			return -1;
		if (iot_file_copy(fi, buf, off, p,
				  ch.hdr_size + ch.payload_size)) {
			free(p);
			return -1;
		}
		/* (the file may have changed since the parse checked it) */
		if (fi->crc && iot_file_chunk_crc(p, ch.hdr_size,
						  p + ch.hdr_size,
						  ch.payload_size) != ch.crc) {
			free(p);
			continue;
		}
		r = iot_stack_decode(&t, p + ch.hdr_size, ch.payload_size);
		free(p);
		if (r)
			continue;
		v = realloc(st->t, (st->n + 1) * sizeof(*v));
		if (!v) {
			iot_stack_tab_free(&t);
			return -1;
		}
		st->t = v;
		st->t[st->n++] = t;
		n++;
	}
	return n;
}

/**
 * iot_src_stack() - the stack tables of a source: a trace file's chunks;
 *	for a live ring, the running system's, read now.
 * @src: the source (a ring copy has none).
 * @st: filled.
 * @err: a warning (the tables are still used) or an error.
 * @errlen: size of @err.
 *
 * Return: 0 (@err may hold a warning), or -1 with @err set.
 */
int iot_src_stack(struct iot_src *src, struct iot_stack *st, char *err,
		  size_t errlen)
{
	struct iot_stack_tab t;

	memset(st, 0, sizeof(*st));
	if (errlen)
		err[0] = 0;
	if (src->is_file) {
		if (iot_file_stacks(src->buf, src->len, src->fi, st) < 0) {
			iot_stack_free(st);
			ERR("%s: its device stack could not be read", src->label);
			return -1;
		}
		return 0;
	}
	if (!src->live)
		return 0;
	memset(&t, 0, sizeof(t));
	if (iot_stack_read_system(&t, err, errlen))
		return -1;
	t.mono_ns = 0;
	st->t = malloc(sizeof(*st->t));
	if (!st->t) {
		iot_stack_tab_free(&t);
		ERR("out of memory");
		return -1;
	}
	st->t[0] = t;
	st->n = 1;
	return 0;
}
