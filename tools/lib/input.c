// SPDX-License-Identifier: GPL-2.0
/*
 * Record sources: a command's DISK|FILE argument becomes a trace file, a
 * ring snapshot (both told apart by their magic) or a live ring mapped from
 * debugfs or, when debugfs cannot give it (not mounted, kernel lockdown),
 * from the device /dev/iotrace/<disk>.  A persistent region (a copy of
 * one, an ELF core holding one, the word "previous" for the module's copy
 * of the previous boot's) is read as the trace file "iotracectl previous
 * -o" writes of it (preg.c), made in memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "iot.h"

#define ERR(...) snprintf(err, errlen, __VA_ARGS__)

/* The iotrace debugfs directory ($IOTRACE_DEBUGFS overrides it). */
const char *iot_debugfs(void)
{
	const char *d = getenv("IOTRACE_DEBUGFS");

	return d && *d ? d : "/sys/kernel/debug/iotrace";
}

/*
 * iot_strict: refuse a trace file that is not whole instead of reading
 * what it holds (--strict).
 */
int iot_strict;

/* The directory of the copies of standard input: $TMPDIR, else /var/tmp. */
static const char *spool_dir(void)
{
	const char *d = getenv("TMPDIR");

	return d && *d ? d : "/var/tmp";
}

/**
 * iot_src_opts_cmd() - the options of the commands' iot_src_open(): from
 *	iot_strict and the environment ($IOTRACE_DEBUGFS, $IOTRACE_DEV,
 *	$TMPDIR), messages with iotracectl's hints, the files noted among the
 *	inputs, the thread's table of submitters' names.
 * @o: the options to fill.
 */
void iot_src_opts_cmd(struct iot_src_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->strict = iot_strict;
	o->cli = 1;
	o->inputs = 1;
	o->debugfs = iot_debugfs();
	o->devdir = iot_devdir();
	o->tmpdir = spool_dir();
}

/*
 * The regular files the open sources were read from (standard input's
 * too), for iot_src_input(): a command writes none of them; and where
 * each is mapped (@map, @maplen bytes; NULL when it is not), for
 * iot_src_mapped().  An entry is free when its @label is empty.
 */
static struct src_input {
	dev_t dev;
	ino_t ino;
	const void *map;
	size_t maplen;
	char label[sizeof(((struct iot_src *)0)->label)];
} *inputs;
static unsigned int nr_inputs;

/* Note @st, the file of @s, among the inputs: 0, or -1 (out of memory). */
static int input_add(struct iot_src *s, const struct stat *st)
{
	struct src_input *v;
	unsigned int i;

	if (!s->opts.inputs || !S_ISREG(st->st_mode))
		return 0;
	for (i = 0; i < nr_inputs && inputs[i].label[0]; i++)
		;
	if (i == nr_inputs) {
		v = realloc(inputs, (nr_inputs + 4) * sizeof(*v));
		if (!v)
			return -1;
		memset(v + nr_inputs, 0, 4 * sizeof(*v));
		inputs = v;
		nr_inputs += 4;
	}
	inputs[i].dev = st->st_dev;
	inputs[i].ino = st->st_ino;
	inputs[i].map = NULL;
	inputs[i].maplen = 0;
	snprintf(inputs[i].label, sizeof(inputs[i].label), "%s", s->label);
	s->input = i + 1;
	return 0;
}

/**
 * iot_src_input() - whether a file is one an open source was read from.
 * @st: the file's status (of fstat()).
 *
 * Return: that source's name (its argument, "standard input"), or NULL.
 */
const char *iot_src_input(const struct stat *st)
{
	unsigned int i;

	for (i = 0; i < nr_inputs; i++)
		if (inputs[i].label[0] && inputs[i].dev == st->st_dev &&
		    inputs[i].ino == st->st_ino)
			return inputs[i].label;
	return NULL;
}

/* Note where the input file of @s is mapped, for iot_src_mapped(). */
static void input_mapped(const struct iot_src *s)
{
	if (!s->input)
		return;
	inputs[s->input - 1].map = s->buf;
	inputs[s->input - 1].maplen = s->len;
}

/**
 * iot_src_mapped() - the input file mapped at @addr, for a SIGBUS handler:
 *	a file cut short while it is read (a ring or region copy, a dump:
 *	they are read through their mapping) faults past its new end.
 * @addr: the faulting address (siginfo's si_addr).
 *
 * Async-signal-safe: reads the table of inputs, which only the thread
 * that opens and closes sources changes, never while it faults.
 *
 * Return: that source's name, or NULL.
 */
const char *iot_src_mapped(const void *addr)
{
	const uint8_t *a = addr;
	unsigned int i;

	for (i = 0; i < nr_inputs; i++) {
		const uint8_t *m = inputs[i].map;

		if (inputs[i].label[0] && m && a >= m &&
		    a < m + inputs[i].maplen)
			return inputs[i].label;
	}
	return NULL;
}

/* file_hint()'s hints */
#define HINT_CHANGED	" (something truncated or rewrote the file in place while it was read: read it again once nothing writes to it, or read a copy)"
#define HINT_TRUNCATED	" (the file was cut short: if 'iotracectl record' is still writing it, wait for it to stop; otherwise copy the file again in full, or record again)"
#define HINT_DAMAGED	" (the file is damaged: copy it again from where it was recorded, or record again)"

/*
 * What to do about a trace file the reader refused (its message in @e);
 * "" without @cli (for programs other than iotracectl).
 */
static const char *file_hint(int cli, const char *e)
{
	if (!cli || strstr(e, "files joined end to end"))
		return "";	/* (that one says what to do) */
	if (strstr(e, "cut while it was read") ||
	    strstr(e, "changed while it was read"))
		return HINT_CHANGED;
	if (!strncmp(e, "truncated", 9))
		return HINT_TRUNCATED;
	if (!strncmp(e, "corrupt", 7) || !strncmp(e, "damaged", 7))
		return HINT_DAMAGED;
	return "";
}

static int classify(struct iot_src *s, char *err, size_t errlen);

/* Unmap or free the bytes @s read from, and close its file descriptor. */
static void drop_bytes(struct iot_src *s)
{
	if (s->mapped == 1) {
		/* iot_src_mapped() no longer names it there */
		if (s->input)
			inputs[s->input - 1].map = NULL;
		munmap(s->buf, s->len);
	} else if (!s->mapped) {
		free(s->buf);
	}
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

/*
 * @s reads the region @r (its own, freed here): it becomes the trace file
 * of @r's rings that "iotracectl previous -o" writes, made in memory,
 * which replaces the bytes @s had (a region copy's, a core's) and is
 * classified as a trace file is; the rings left out, which do not
 * validate, in s->preg_left.  Return: 0, or -1 with @err set.
 */
static int region_source(struct iot_src *s, struct iot_preg *r, char *err,
			 size_t errlen)
{
	char e[IOT_ERR_LEN];
	uint8_t *t;
	size_t n;
	int ret;

	ret = iot_preg_trace(r, &t, &n, s->preg_left, sizeof(s->preg_left),
			     e, sizeof(e));
	if (!ret) {
		s->preg = malloc(sizeof(*s->preg));
		if (s->preg)
			memcpy(s->preg, r->h, sizeof(*s->preg));
	}
	iot_preg_free(r);
	if (ret == -2)
		return ERR("%s: the persistent region holds no ring, only requests in flight%s",
			   s->label, s->opts.cli ?
			   " ('iotracectl previous' lists them)" : ""), -1;
	if (ret)
		return ERR("%s: %s", s->label, e), -1;
	if (!s->preg) {
		free(t);
		return ERR("out of memory"), -1;
	}
	/* the region's bytes: no longer read */
	drop_bytes(s);
	s->buf = t;
	s->len = n;
	s->mapped = 0;
	return classify(s, err, errlen);
}

/*
 * @s holds a copy of a region, or an ELF core (ET_CORE: a crash dump; its
 * file open as s->fd, else its bytes in memory): read the region it holds.
 */
static int region_bytes(struct iot_src *s, char *err, size_t errlen)
{
	struct iot_preg r;
	int ret;

	if (!iot_preg_is_region(s->buf, s->len) && s->fd >= 0)
		ret = iot_preg_open_core_fd(&r, s->label, s->fd, err, errlen);
	else
		ret = iot_preg_open_buf(&r, s->label, s->buf, s->len, err,
					errlen);
	if (ret) {
		iot_preg_free(&r);
		return -1;
	}
	return region_source(s, &r, err, errlen);
}

/* classify()'s hint for bytes of an unknown magic */
#define HINT_UNKNOWN	"; expected a file written by 'iotracectl record' or a copy of a debugfs ring"

/*
 * Classify and validate bytes already in memory: a trace file, a
 * persistent region (a copy of one, an ELF core) or a ring.  @s->buf and
 * @s->len must be set.
 */
static int classify(struct iot_src *s, char *err, size_t errlen)
{
	const int cli = s->opts.cli;
	char e[IOT_ERR_LEN];

	if (s->len >= IOTRACE_FILE_MAGIC_LEN &&
	    !memcmp(s->buf, IOTRACE_FILE_MAGIC, IOTRACE_FILE_MAGIC_LEN)) {
		s->is_file = 1;
		s->fi = calloc(1, sizeof(*s->fi));
		if (!s->fi)
			return ERR("out of memory"), -1;
		s->fi->drop_behind = s->mapped == 1 && s->fd >= 0;
		s->fi->fd = s->fd;
		s->fi->comms = s->opts.comms;
		/* validate now so that errors come before any output */
		if (iot_file_parse(s->buf, s->len, s->fi, NULL, NULL, e,
				   sizeof(e)))
			return ERR("%s: %s%s", s->label, e,
				   file_hint(cli, e)), -1;
		/* not whole: refused (--strict), or read as far as it goes */
		if (iot_file_salvage_str(s->fi, e, sizeof(e)) && s->opts.strict)
			return ERR("%s: %s%s%s", s->label, e, file_hint(cli, e),
				   cli ? "; without --strict, what it holds is read" :
				   ""), -1;
		s->nr_disks = s->fi->nr_disks;
		s->disks = s->fi->disks;
		s->counts = calloc(s->nr_disks, sizeof(*s->counts));
		return s->counts ? 0 : (ERR("out of memory"), -1);
	}
	/* before a ring's: the region's magic starts as a ring's does */
	if (iot_preg_is_region(s->buf, s->len) ||
	    iot_preg_is_core(s->buf, s->len))
		return region_bytes(s, err, errlen);
	if (s->len >= 4 && !memcmp(s->buf, "IOTR", 4)) {
		if (iot_ring_init(&s->ring, s->buf, s->len, e, sizeof(e)))
			return ERR("%s: %s", s->label, e), -1;
		s->nr_disks = 1;
		s->disks = calloc(1, sizeof(*s->disks));
		s->counts = calloc(1, sizeof(*s->counts));
		if (!s->disks || !s->counts)
			return ERR("out of memory"), -1;
		iot_ring_disk(&s->ring, s->disks);
		return 0;
	}
	if (!s->len)
		return ERR("%s: empty file, not an iotrace trace file or ring",
			   s->label), -1;
	return ERR("%s: not an iotrace trace file or ring (unknown magic %02x %02x %02x %02x)%s",
		   s->label, s->buf[0], s->len > 1 ? s->buf[1] : 0,
		   s->len > 2 ? s->buf[2] : 0, s->len > 3 ? s->buf[3] : 0,
		   cli ? HINT_UNKNOWN : ""), -1;
}

/**
 * iot_src_open_buf_opts() - open caller-owned bytes (tests, fuzzers, the
 *	API's iotrace_open_buffer()): they must stay valid until close.
 * @s: source to fill.
 * @label: its name in messages.
 * @buf: the bytes of a trace file, a ring, a persistent region or an ELF
 *	core.
 * @len: their length.
 * @o: options (only @o->strict, @o->cli and @o->comms matter here).
 * @err: error message buffer.
 * @errlen: its size.
 *
 * Return: 0, or -1 with @err set.
 */
int iot_src_open_buf_opts(struct iot_src *s, const char *label,
			  const void *buf, size_t len,
			  const struct iot_src_opts *o, char *err,
			  size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->opts = *o;
	s->fd = -1;
	snprintf(s->label, sizeof(s->label), "%s", label);
	s->buf = (uint8_t *)buf;
	s->len = len;
	s->mapped = -1;	/* not ours */
	if (classify(s, err, errlen)) {
		iot_src_close(s);
		return -1;
	}
	return 0;
}

/* iot_src_open_buf_opts() with the commands' options (iot_src_opts_cmd()) */
int iot_src_open_buf(struct iot_src *s, const char *label, const void *buf,
		     size_t len, char *err, size_t errlen)
{
	struct iot_src_opts o;

	iot_src_opts_cmd(&o);
	return iot_src_open_buf_opts(s, label, buf, len, &o, err, errlen);
}

/* The directory of the iotrace devices ($IOTRACE_DEV overrides it). */
const char *iot_devdir(void)
{
	const char *d = getenv("IOTRACE_DEV");

	return d && *d ? d : IOTRACE_DEV_DIR;
}

/* Room in @t for the tool's records of @n requests: 0, or -1 with @err set. */
static int infl_alloc(struct iot_inflight *t, uint32_t n, char *err,
		      size_t errlen)
{
	t->recs = calloc(n ? n : 1, sizeof(*t->recs));
	if (!t->recs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	t->nr = n;
	return 0;
}

/*
 * IOTRACE_IOC_INFLIGHT_RECORDS on @fd (the device @path) into @t, its 2.0
 * records as the tool's: 0; 1 when the module is older than the ioctl
 * (ENOTTY); -1 with @err set.
 */
static int dev_inflight_records(int fd, const char *path,
				struct iot_inflight *t, char *err,
				size_t errlen)
{
	struct iotrace_inflight_records req;
	iot_record2 *v = NULL, *nv;
	uint32_t max = 256, k;

	for (;;) {
		nv = realloc(v, max * sizeof(*v));
		if (!nv) {
			snprintf(err, errlen, "out of memory");
			free(v);
			return -1;
		}
		v = nv;
		memset(&req, 0, sizeof(req));
		req.records = (uintptr_t)v;
		req.max = max;
		req.record_size = sizeof(*v);
		if (ioctl(fd, IOTRACE_IOC_INFLIGHT_RECORDS, &req)) {
			int eno = errno;

			free(v);
			if (eno == ENOTTY)
				return 1;
			snprintf(err, errlen,
				 "%s: IOTRACE_IOC_INFLIGHT_RECORDS: %s", path,
				 strerror(eno));
			return -1;
		}
		if (req.count <= max)
			break;
		max = req.count + 64;
	}
	if (infl_alloc(t, req.count, err, errlen)) {
		free(v);
		return -1;
	}
	/* not completed: no completion CPU */
	for (k = 0; k < req.count; k++)
		iot_rec2_read(&v[k], UINT16_MAX, &t->recs[k]);
	free(v);
	t->torn = req.torn;
	t->at_ns = req.now_ns;
	return 0;
}

/*
 * IOTRACE_IOC_INFLIGHT (a module before IOTRACE_IOC_INFLIGHT_RECORDS) on
 * @fd into @t: its entries' fields as records.  0, or -1 with @err set.
 */
static int dev_inflight_entries(int fd, const char *path,
				struct iot_inflight *t, char *err,
				size_t errlen)
{
	struct iotrace_inflight_entry *e = NULL, *ne;
	struct iotrace_inflight_req req;
	uint32_t max = 256;
	size_t k;
	int eno;

	for (;;) {
		ne = realloc(e, max * sizeof(*e));
		if (!ne) {
			snprintf(err, errlen, "out of memory");
			goto err;
		}
		e = ne;
		memset(&req, 0, sizeof(req));
		req.entries = (uintptr_t)e;
		req.max = max;
		if (ioctl(fd, IOTRACE_IOC_INFLIGHT, &req)) {
			eno = errno;
			/* every module with a device answers this one */
			snprintf(err, errlen, "%s: IOTRACE_IOC_INFLIGHT: %s%s",
				 path, strerror(eno), eno == ENOTTY ?
				 " (not an iotrace device)" : "");
			goto err;
		}
		if (req.count <= max)
			break;
		max = req.count + 64;
	}
	if (infl_alloc(t, req.count, err, errlen))
		goto err;
	for (k = 0; k < req.count; k++) {
		struct iotrace_record *r = &t->recs[k];

		r->issue_ns = e[k].issue_ns;
		r->sector = e[k].sector;
		r->bytes = e[k].bytes;
		r->hwq = e[k].hwq;
		r->tag = e[k].tag;
		r->issue_cpu = e[k].cpu;
		r->op = e[k].op;
		/* zero flags: no submitter noted, or a module before them */
		if (e[k].flags & IOTRACE_INFL_SUBMITTER) {
			r->pid = e[k].pid;
			if (e[k].flags & IOTRACE_INFL_KERNEL)
				r->rflags |= IOTRACE_RF_KERNEL;
		}
	}
	t->at_ns = req.now_ns;
	free(e);
	return 0;
err:
	free(e);
	return -1;
}

/**
 * iot_dev_absent() - whether iot_dev_inflight()'s failure to open a disk's
 *	device (return 1, errno @eno) means that it has none: no node
 *	(ENOENT), no disk or module behind it (ENODEV, ENXIO; a socket
 *	gives ENXIO too).  Any other error is the device's and worth
 *	saying.
 * @eno: the errno.
 *
 * Return: non-zero when the disk has no device.
 */
int iot_dev_absent(int eno)
{
	return eno == ENOENT || eno == ENODEV || eno == ENXIO;
}

/**
 * iot_dev_inflight() - the requests in flight on a traced disk now, from
 *	its device, as records.
 * @devdir: the directory of the iotrace devices (iot_devdir()).
 * @disk: the disk's name.
 * @t: out: the table; @t->recs (free()) as a completion would write them
 *	without a completion, oldest issue first (IOTRACE_IOC_INFLIGHT_RECORDS:
 *	every field of the issue, the submitter and the command); @t->at_ns
 *	the time the module collected them; @t->torn the slots it found
 *	being written; @t->disk 0.  From a module before that ioctl
 *	(IOTRACE_IOC_INFLIGHT): issue time, sector, length, op, queue, tag,
 *	CPU and the submitter only (pid 0 without IOTRACE_RF_KERNEL: not
 *	noted).
 * @err: what failed.
 * @errlen: its room.
 *
 * Return: 0; 1 when the device cannot be opened (errno set, @err
 * empty); -1 with @err set.
 */
int iot_dev_inflight(const char *devdir, const char *disk,
		     struct iot_inflight *t, char *err, size_t errlen)
{
	char path[512];
	int fd, ret;

	memset(t, 0, sizeof(*t));
	if (errlen)
		err[0] = 0;
	snprintf(path, sizeof(path), "%s/%s", devdir, disk);
	/* O_NONBLOCK: a FIFO there must not hold the caller */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 1;
	ret = dev_inflight_records(fd, path, t, err, errlen);
	if (ret > 0)
		ret = dev_inflight_entries(fd, path, t, err, errlen);
	close(fd);
	return ret;
}

/*
 * Map the ring at @path: 0, or a negative errno with @err saying what failed
 * (with what to do when @cli).
 */
static int map_ring(const char *path, struct iot_src *s, int cli, char *err,
		    size_t errlen)
{
	struct iotrace_ring_hdr h;
	int fd, eno;
	void *m;
	ssize_t r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		eno = errno;
		ERR("cannot open %s: %s%s", path, strerror(eno),
		    !cli ? "" : eno == EACCES ? " (run as root)" :
		    eno == EPERM ? " (refused: kernel lockdown?)" : "");
		return -eno;
	}
	r = pread(fd, &h, sizeof(h), 0);
	if (r == 0) {
		/* the module makes a disk's ring at its first enable */
		ERR("%s: no ring yet: the disk was never enabled%s", path,
		    cli ? " (iotracectl enable DISK)" : "");
		close(fd);
		return -ENODATA;
	}
	if (r != (ssize_t)sizeof(h)) {
		eno = r < 0 ? errno : EIO;
		ERR("%s: cannot read the ring header: %s", path,
		    r < 0 ? strerror(eno) : "short read");
		close(fd);
		return -eno;
	}
	if (h.magic != IOTRACE_RING_MAGIC || !h.ring_size ||
	    h.ring_size > (1ull << 40)) {
		ERR("%s: not an iotrace ring (magic 0x%08x)", path, h.magic);
		close(fd);
		return -EINVAL;
	}
	m = mmap(NULL, h.ring_size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		eno = errno;
		ERR("cannot map %s (%llu bytes): %s", path,
		    (unsigned long long)h.ring_size, strerror(eno));
		close(fd);
		return -eno;
	}
	close(fd);
	s->buf = m;
	s->len = h.ring_size;
	s->mapped = 1;
	s->live = 1;
	return 0;
}

/* map_live()'s hint for a disk of neither path */
#define HINT_NO_DISK	": is the iotrace module loaded? 'iotracectl list' shows the traced disks"

/*
 * Map the live ring of @disk: <debugfs>/<disk>/ring, else (debugfs not
 * mounted, or the open or mapping refused, as under kernel lockdown) the
 * device <devdir>/<disk>, which gives the same bytes; the directories
 * those of @o.
 */
static int map_live(const char *disk, struct iot_src *s,
		    const struct iot_src_opts *o, char *err, size_t errlen)
{
	char dpath[512], cpath[512], e1[IOT_ERR_LEN];
	int eno1, eno2;

	s->fd = -1;	/* a ring: no trace file to read */
	snprintf(dpath, sizeof(dpath), "%s/%s/ring", o->debugfs, disk);
	eno1 = map_ring(dpath, s, o->cli, e1, sizeof(e1));
	if (!eno1)
		return 0;
	snprintf(cpath, sizeof(cpath), "%s/%s", o->devdir, disk);
	eno2 = map_ring(cpath, s, o->cli, err, errlen);
	if (!eno2)
		return 0;
	if (eno2 != -ENOENT)
		return -1;
	if (eno1 == -ENOENT)
		return ERR("%s: no traced disk of that name (neither %s nor %s exists)%s",
			   disk, dpath, cpath, o->cli ? HINT_NO_DISK : ""), -1;
	return ERR("%s (and %s does not exist)", e1, cpath), -1;
}

/* map_live() with the commands' options (iot_src_opts_cmd()) */
int iot_map_live(const char *disk, struct iot_src *s, char *err,
		 size_t errlen)
{
	struct iot_src_opts o;

	iot_src_opts_cmd(&o);
	return map_live(disk, s, &o, err, errlen);
}

/* Write @len bytes of @buf to @fd: 0, or -1 (errno set). */
static int write_all(int fd, const uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t k = write(fd, buf, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		buf += k;
		len -= (size_t)k;
	}
	return 0;
}

/*
 * Read from @in into @buf (@cap bytes) until it is full or @in ends: the
 * bytes read, or -1 (errno set).
 */
static ssize_t read_full(int in, uint8_t *buf, size_t cap)
{
	size_t n = 0;

	while (n < cap) {
		ssize_t r = read(in, buf + n, cap - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (!r)
			break;
		n += (size_t)r;
	}
	return (ssize_t)n;
}

/*
 * A trace read from a stream (standard input, a pipe, a FIFO: no size, no
 * mapping), beyond its first IOT_STREAM_MEM bytes: copied to an unlinked
 * temporary file of spool_dir(), @head (@nhead bytes, what was read of it)
 * first, then the rest of @in, and read from there as a file is, in
 * memory that does not grow with it.  @s: the source (its label names it
 * in @err, its options give the directory).
 * Return: the temporary file's descriptor, or -1 with @err set.
 */
static int spool(int in, const uint8_t *head, size_t nhead,
		 const struct iot_src *s, char *err, size_t errlen)
{
	const char *dir = s->opts.tmpdir, *label = s->label;
	const char *how = s->opts.cli ? "; TMPDIR sets the directory" : "";
	size_t cap = 1 << 20;
	uint8_t *buf = malloc(cap);
	char path[4096];
	ssize_t r;
	int fd;

	if (!buf)
		return ERR("out of memory"), -1;
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {	/* a file system without O_TMPFILE */
		snprintf(path, sizeof(path), "%s/.iotracectl-XXXXXX", dir);
		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0)
			unlink(path);
	}
	if (fd < 0) {
		ERR("%s: cannot make a temporary file in %s to read it from (%s%s)",
		    label, dir, strerror(errno), how);
		free(buf);
		return -1;
	}
	if (write_all(fd, head, nhead))
		goto fail_write;
	while ((r = read_full(in, buf, cap)) > 0)
		if (write_all(fd, buf, (size_t)r))
			goto fail_write;
	if (r < 0) {
		ERR("cannot read %s: %s", label, strerror(errno));
		goto fail;
	}
	free(buf);
	return fd;
fail_write:
	ERR("%s: cannot copy it to a temporary file in %s (%s%s)",
	    label, dir, strerror(errno), how);
fail:
	free(buf);
	close(fd);
	return -1;
}

/*
 * Map the trace file open as @fd (taken over, closed on failure), of
 * status @st: read with pread() as it is parsed (the mapping is for the
 * bytes it does not read so).  Return: 0, or -1 with @err set.
 */
static int map_file(struct iot_src *s, int fd, const struct stat *st,
		    char *err, size_t errlen)
{
	if (!st->st_size) {
		close(fd);
		return classify(s, err, errlen);
	}
	s->buf = mmap(NULL, st->st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (s->buf == MAP_FAILED) {
		s->buf = NULL;
		close(fd);
		return ERR("cannot map %s: %s", s->label, strerror(errno)), -1;
	}
	s->fd = fd;
	s->len = st->st_size;
	s->mapped = 1;
	input_mapped(s);
	return classify(s, err, errlen);
}

/*
 * A trace of standard input (@arg NULL), or of a path that is not a
 * regular file (@arg: a FIFO, /dev/fd/N).  A regular file given as
 * standard input is read where it is; a stream of at most IOT_STREAM_MEM
 * bytes in memory; a longer one from a copy (spool()).
 */
static int open_stream(struct iot_src *s, const char *arg, char *err,
		       size_t errlen)
{
	int fd = arg ? open(arg, O_RDONLY | O_CLOEXEC) : STDIN_FILENO, sfd;
	uint8_t *head = NULL;
	struct stat st;
	ssize_t n;
	int ret = -1;

	if (fd < 0)
		return ERR("cannot open %s: %s", arg, strerror(errno)), -1;
	if (fstat(fd, &st)) {
		ERR("%s: %s", s->label, strerror(errno));
		goto out;
	}
	/* a file to keep (export - -o FILE < FILE) */
	if (input_add(s, &st)) {
		ERR("out of memory");
		goto out;
	}
	/* standard input redirected from a file, at its start */
	if (!arg && S_ISREG(st.st_mode) && lseek(fd, 0, SEEK_CUR) == 0) {
		sfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (sfd < 0) {
			ERR("%s: %s", s->label, strerror(errno));
			goto out;
		}
		ret = map_file(s, sfd, &st, err, errlen);
		goto out;
	}
	/* one byte more than is kept: whether the stream goes on */
	head = malloc(IOT_STREAM_MEM + 1);
	if (!head) {
		ERR("out of memory");
		goto out;
	}
	n = read_full(fd, head, IOT_STREAM_MEM + 1);
	if (n < 0) {
		ERR("cannot read %s: %s", s->label, strerror(errno));
		goto out;
	}
	if (n <= IOT_STREAM_MEM) {
		s->buf = realloc(head, n ? (size_t)n : 1);
		if (!s->buf)
			s->buf = head;
		head = NULL;
		s->len = (size_t)n;
		ret = classify(s, err, errlen);
		goto out;
	}
	sfd = spool(fd, head, (size_t)n, s, err, errlen);
	if (sfd < 0)
		goto out;
	if (fstat(sfd, &st)) {
		ERR("%s: %s", s->label, strerror(errno));
		close(sfd);
		goto out;
	}
	ret = map_file(s, sfd, &st, err, errlen);
out:
	free(head);
	if (arg && fd >= 0)
		close(fd);
	return ret;
}

/* iot_src_open_opts(), @s not closed on failure */
static int src_open(struct iot_src *s, const char *arg,
		    const struct iot_src_opts *o, char *err, size_t errlen)
{
	char e[IOT_ERR_LEN];
	struct stat st;
	int fd, eno, dir;

	memset(s, 0, sizeof(*s));
	s->opts = *o;
	s->fd = -1;
	snprintf(s->label, sizeof(s->label), "%s", arg);
	if (!strcmp(arg, "-")) {
		snprintf(s->label, sizeof(s->label), "standard input");
		return open_stream(s, NULL, err, errlen);
	}
	/* st is only read when stat() filled it */
	eno = stat(arg, &st) ? errno : 0;
	if (eno == ENOENT && !strcmp(arg, "previous")) {
		struct iot_preg r;

		/* the module's copy of the previous boot's region */
		if (iot_preg_open(&r, NULL, o->debugfs, o->devdir, err,
				  errlen)) {
			iot_preg_free(&r);
			return -1;
		}
		return region_source(s, &r, err, errlen);
	}
	dir = !eno && S_ISDIR(st.st_mode);
	if (eno || dir) {
		if (strchr(arg, '/'))
			return ERR("%s: %s", arg, dir ?
				   "is a directory, not a trace file" :
				   strerror(eno)), -1;
		/* neither a file nor a disk: what each lookup found */
		if (map_live(arg, s, o, e, sizeof(e))) {
			if (dir)
				return ERR("%s is a directory, not a trace file, and %s",
					   arg, e), -1;
			return ERR(eno == ENOENT || eno == ENOTDIR ?
				   "no file named %s (%s), and %s" :
				   "cannot look %s up as a file (%s), and %s",
				   arg, strerror(eno), e), -1;
		}
		/* the submitters' names, as far as the kernel can tell */
		if (o->comms)
			iot_comms_load_kernel(o->comms, o->debugfs);
		else
			iot_comm_load_kernel();
		return classify(s, err, errlen);
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		fd = open(arg, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return ERR("cannot open %s: %s", arg,
				   strerror(errno)), -1;
		/* the file opened (not one renamed over it since) */
		if (fstat(fd, &st) || input_add(s, &st)) {
			close(fd);
			return ERR("%s: %s", arg, errno == ENOMEM ?
				   "out of memory" : strerror(errno)), -1;
		}
		s->buf = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (s->buf != MAP_FAILED) {
			/* kept open: the file is read with pread() */
			s->fd = fd;
			s->len = st.st_size;
			s->mapped = 1;
			input_mapped(s);
			return classify(s, err, errlen);
		}
		close(fd);
		s->buf = NULL;
	}
	if (S_ISREG(st.st_mode)) {	/* empty, or one that cannot be mapped */
		if (!s->input && input_add(s, &st))
			return ERR("out of memory"), -1;
		if (iot_read_all(arg, &s->buf, &s->len, err, errlen))
			return -1;
		return classify(s, err, errlen);
	}
	return open_stream(s, arg, err, errlen);
}

/**
 * iot_src_open_opts() - open a DISK|FILE argument.
 * @s: source to fill.
 * @arg: a path to a trace file, a ring snapshot, a persistent region's
 *	copy or an ELF core holding a region, "-" for one on standard input,
 *	"previous" (when no file has that name) for the module's copy of the
 *	previous boot's region (<@o->debugfs>/previous, else
 *	<@o->devdir>/previous), or a disk name.
 * @o: how (copied into @s): strictness, directories, messages, names.
 * @err: error message buffer.
 * @errlen: its size.
 *
 * Return: 0 or -1 with @err saying what failed (and, with @o->cli, what
 * to do).  Nothing to close on failure.
 */
int iot_src_open_opts(struct iot_src *s, const char *arg,
		      const struct iot_src_opts *o, char *err, size_t errlen)
{
	int ret = src_open(s, arg, o, err, errlen);

	/* nothing to close on failure: what was mapped or allocated goes */
	if (ret)
		iot_src_close(s);
	return ret;
}

/* iot_src_open_opts() with the commands' options (iot_src_opts_cmd()) */
int iot_src_open(struct iot_src *s, const char *arg, char *err,
		 size_t errlen)
{
	struct iot_src_opts o;

	iot_src_opts_cmd(&o);
	return iot_src_open_opts(s, arg, &o, err, errlen);
}

/**
 * iot_src_read() - hand every record of the source to @cb.
 * @s: the source.
 * @cb: callback.
 * @arg: its argument.
 * @err: error message buffer.
 * @errlen: its size.
 *
 * Ring records come part by part (each part in sequence order); trace file
 * records in file order.  @s->counts is filled.
 *
 * Return: 0, -1 with @err set, or the callback's non-zero value.
 */
int iot_src_read(struct iot_src *s, iot_rec_cb cb, void *arg, char *err,
		 size_t errlen)
{
	char e[IOT_ERR_LEN];
	unsigned int i;
	int ret;

	memset(s->counts, 0, s->nr_disks * sizeof(*s->counts));
	if (!s->is_file)
		return iot_ring_snapshot(&s->ring, 0, cb, arg, s->counts);
	ret = iot_file_parse(s->buf, s->len, s->fi, cb, arg, e, sizeof(e));
	if (ret < 0)
		return ERR("%s: %s%s", s->label, e,
			   file_hint(s->opts.cli, e)), -1;
	for (i = 0; i < s->nr_disks; i++)
		s->counts[i] = s->fi->counts[i];
	return ret;
}

/**
 * iot_src_read_merged() - iot_src_read(), a trace file's records merged
 * across its (disk, part) streams by completion (or start) time
 * (iot_file_merge()); a ring's as iot_src_read() gives them.
 * @s: the source (a file was validated when opened).
 * @by_start: by start time, else by completion time.
 * @cb: called for every record.
 * @arg: its argument.
 * @err: error message.
 * @errlen: its size.
 *
 * Return: 0, -1 with @err set (a file that could not be read: cut while
 * it was read), -2 (out of memory) or the callback's value.
 */
int iot_src_read_merged(struct iot_src *s, int by_start, iot_rec_cb cb,
			void *arg, char *err, size_t errlen)
{
	unsigned int i;
	int ret;

	if (!s->is_file)
		return iot_src_read(s, cb, arg, err, errlen);
	for (i = 0; i < s->nr_disks; i++)
		s->counts[i] = s->fi->counts[i];
	ret = iot_file_merge(s->buf, s->len, s->fi, by_start, cb, arg);
	if (ret == -3) {
		iot_src_read_error(s, err, errlen);
		return -1;
	}
	return ret;
}

/**
 * iot_src_read_error() - what a read of the trace file @s that failed
 *	met (its fi->rd_err: iot_file_read_error()), with what to do.
 * @s: the source (a trace file).
 * @err: the message: "LABEL: truncated trace file: cut while it was read
 *	(...) (hint)" for a file cut since it was opened.
 * @errlen: its size.
 */
void iot_src_read_error(const struct iot_src *s, char *err, size_t errlen)
{
	char e[IOT_ERR_LEN];

	iot_file_read_error(s->fi, s->len, e, sizeof(e));
	ERR("%s: %s%s", s->label, e, file_hint(s->opts.cli, e));
}

/**
 * iot_src_disk_index() - the index of disk @name in @s.
 * @s: the source.
 * @name: disk name.
 *
 * Return: the index, or -1 when @s holds no disk of that name
 * (iot_src_disk_list() says which it holds).
 */
int iot_src_disk_index(const struct iot_src *s, const char *name)
{
	unsigned int i;

	for (i = 0; i < s->nr_disks; i++)
		if (!strcmp(s->disks[i].name, name))
			return (int)i;
	return -1;
}

/*
 * The names of the disks @s holds, ", " between them ("none"), in @list:
 * as text (iot_text_str()), for a message; "..." for the names that do
 * not fit whole.
 */
void iot_src_disk_list(const struct iot_src *s, char *list, size_t len)
{
	char text[IOT_TEXT_ROOM(IOTRACE_NAME_LEN)];
	unsigned int i;
	size_t l = 0, n;

	snprintf(list, len, "%s", s->nr_disks ? "" : "none");
	for (i = 0; i < s->nr_disks; i++) {
		iot_text_str(text, sizeof(text), s->disks[i].name);
		n = strlen(text) + (i ? 2 : 0);
		/* room for it, and for ", ..." after it if it is not last */
		if (n + (i + 1 < s->nr_disks ? 5 : 0) >= len - l) {
			snprintf(list + l, len - l, "%s...", i ? ", " : "");
			break;
		}
		snprintf(list + l, len - l, "%s%s", i ? ", " : "", text);
		l += n;
	}
}

static int start_cb(void *arg, unsigned int disk,
		    const struct iotrace_record *r)
{
	uint64_t *lo = arg, t = iot_rec_start(r);

	(void)disk;
	if (t && t < *lo)
		*lo = t;
	return 0;
}

/**
 * iot_src_start() - the start of a trace, what --from/--to +T count from:
 *	a trace file's header start (info's "start"); a ring's first
 *	record's start (the header show -o trace gives it).
 * @src: the source, open.
 *
 * Return: CLOCK_MONOTONIC ns; 0 for a ring without records.
 */
uint64_t iot_src_start(struct iot_src *src)
{
	struct iot_counts c;
	uint64_t lo = UINT64_MAX;

	if (src->is_file)
		return src->fi->hdr.anchor_mono_ns;
	iot_ring_snapshot(&src->ring, 0, start_cb, &lo, &c);
	return lo == UINT64_MAX ? 0 : lo;
}

void iot_src_close(struct iot_src *s)
{
	if (s->input)
		inputs[s->input - 1].label[0] = 0;
	drop_bytes(s);
	if (!s->is_file)
		free(s->disks);
	if (s->fi)
		iot_file_info_free(s->fi);
	free(s->fi);
	free(s->counts);
	free(s->preg);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}
