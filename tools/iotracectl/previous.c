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
 * DIR/<disk>.ring (a removed disk's DIR/<disk>.removed.<allocation>.ring),
 * a ring copy: every command that reads a FILE reads
 * either (and reads a region as the trace file -o writes of it).  The
 * region is parsed by the library (lib/preg.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include "cmd.h"

/*
 * Whether a later disk of @e's name has a ring in @c that is not a removed
 * disk's (the disk went, unmarked while a reader still held it, and came
 * back): @e's copy is then named by its allocation, not DISK.ring.
 */
static int name_taken(const struct iot_preg *c,
		      const struct iotrace_preg_disk *e)
{
	const struct iotrace_preg_disk *o;
	unsigned int i;
	int dmg;

	for (i = 0; i < c->h->max_disks; i++) {
		o = iot_preg_entry(c, i, &dmg);
		if (o && o != e && (o->flags & IOTRACE_PREG_D_RING) &&
		    !(o->flags & IOTRACE_PREG_D_REMOVED) &&
		    o->disk_gen > e->disk_gen &&
		    !strncmp(o->name, e->name, sizeof(o->name)))
			return 1;
	}
	return 0;
}

static int write_ring(const char *dir, const struct iot_preg *c,
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
	if (e->flags & IOTRACE_PREG_D_REMOVED)
		snprintf(path, sizeof(path), "%s/%s.removed.%llu.ring", dir,
			 name, (unsigned long long)e->gen);
	else if (newest)
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
 * The requests in flight of every table (iot_preg_inflight(), one table
 * per disk, those without a ring too), oldest issue first, one line each;
 * the torn slots counted in *@torn.  Return: how many, or -1 (out of
 * memory, said).
 */
static long print_inflight(const struct iot_preg *c, uint64_t last_ns,
			   unsigned int *torn)
{
	const struct iotrace_preg_disk *e, **ent;
	struct iot_inflight *t = NULL;
	uint64_t *gens, orphans;
	struct infl *v = NULL;
	size_t n = 0, k;
	unsigned int i, d, nd = 0;
	char cmd[256], pid[16];
	int dmg;

	/* one table per disk that has one, named by its entry */
	gens = calloc(c->h->max_disks, sizeof(*gens));
	ent = calloc(c->h->max_disks, sizeof(*ent));
	if (!gens || !ent)
		goto oom;
	for (i = 0; i < c->h->max_disks; i++) {
		e = iot_preg_entry(c, i, &dmg);
		if (!e || !(e->flags & IOTRACE_PREG_D_SLOTS))
			continue;
		for (d = 0; d < nd && gens[d] != e->disk_gen; d++)
			;
		if (d == nd) {
			ent[nd] = e;
			gens[nd++] = e->disk_gen;
		}
	}
	if (iot_preg_inflight(c, gens, nd, last_ns, &t, &orphans))
		goto oom;
	for (d = 0; d < nd; d++)
		n += t[d].nr;
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		goto oom;
	for (d = 0, n = 0; d < nd; d++) {
		*torn += t[d].torn;
		for (k = 0; k < t[d].nr; k++) {
			v[n].name = ent[d]->name;
			v[n++].r = t[d].recs[k];
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), infl_cmp);
	for (k = 0; k < n; k++) {
		const struct iotrace_record *r = &v[k].r;

		iot_decode_cmd(r, cmd, sizeof(cmd));
		printf("  %-12.32s %17llu %12.1f %-8s %12llu %8u %4u %5u %7s %s\n",
		       v[k].name, (unsigned long long)r->issue_ns,
		       last_ns > r->issue_ns ?
		       (double)(last_ns - r->issue_ns) / 1000.0 : 0.0,
		       iot_op_name(r->op), (unsigned long long)r->sector,
		       r->bytes, r->hwq, r->tag,
		       iot_rec_pid(r, pid, sizeof(pid)), cmd);
	}
	iot_preg_inflight_free(t, nd);
	free(v);
	free(gens);
	free(ent);
	return (long)n;
oom:
	iot_err("previous: out of memory");
	iot_preg_inflight_free(t, nd);
	free(gens);
	free(ent);
	return -1;
}

/*
 * -o FILE: the newest ring of each disk to a trace file, as record writes
 * one, in one pass, dated by the region's anchor; a disk's newest ring
 * that does not validate is left out and said (the ring a resize
 * replaced written instead if whole).  Return: 0 or 1 (said).
 */
static int write_trace(const struct iot_preg *c, const char *path,
		       uint64_t end_ns)
{
	struct iot_preg_left *left = NULL;
	struct iot_counts *cnt = NULL;
	struct iot_disk *disks = NULL;
	struct iot_ring *rings = NULL;
	uint64_t *gens = NULL, orphans = 0;
	char err[IOT_ERR_LEN], why[IOT_ERR_LEN];
	unsigned int i, n = 0, nl = 0;
	FILE *fp = NULL;
	int ret = 1, r;

	rings = calloc(c->h->max_disks, sizeof(*rings));
	disks = calloc(c->h->max_disks, sizeof(*disks));
	cnt = calloc(c->h->max_disks, sizeof(*cnt));
	gens = calloc(c->h->max_disks, sizeof(*gens));
	left = calloc(c->h->max_disks, sizeof(*left));
	if (!rings || !disks || !cnt || !gens || !left) {
		iot_err("previous: out of memory");
		goto out;
	}
	r = iot_preg_rings(c, rings, disks, gens, &n, left, &nl, err,
			   sizeof(err));
	for (i = 0; i < nl; i++) {
		iot_preg_left_str(&left[i], why, sizeof(why));
		iot_err("previous: %s", why);
	}
	if (r == -2) {
		iot_err("previous: no ring to write to %s", path);
		goto out;
	}
	if (r && nl) {
		iot_err("previous: no ring to write to %s: none validates",
			path);
		goto out;
	}
	if (r) {
		iot_err("previous: %s", err);
		goto out;
	}
	fp = strcmp(path, "-") ? iot_out_fopen(path) : stdout;
	if (!fp)
		goto out;	/* said */
	r = iot_preg_write(c, rings, disks, gens, n, fp, end_ns, cnt,
			   &orphans, err, sizeof(err));
	if (r == -3) {
		iot_write_error(fp == stdout ? "standard output" : path, errno);
		goto out;
	}
	if (r) {
		iot_err("previous: %s: %s", path, err);
		goto out;
	}
	/* durable before --release frees the only other copy */
	if (fp != stdout && iot_out_durable(fp, path))
		goto out;
	for (i = 0; i < n; i++)
		fprintf(stderr, "%.32s: %llu records written to %s, %llu torn\n",
			disks[i].name, (unsigned long long)cnt[i].written,
			path, (unsigned long long)cnt[i].torn);
	if (orphans)
		iot_err("previous: %llu request%s in flight of disks without a ring in the region (listed above) not in %s: a trace file holds them under a disk's ring",
			(unsigned long long)orphans, orphans == 1 ? "" : "s",
			path);
	ret = 0;
out:
	if (fp && fp != stdout && iot_out_close(fp, path))
		ret = 1;
	free(rings);
	free(disks);
	free(cnt);
	free(gens);
	free(left);
	return ret;
}

/*
 * --release through the device: 1 when done, 0 when the device cannot do
 * it (none, or a module before IOTRACE_IOC_PREVIOUS_RELEASE: debugfs
 * then), -1 when refused (said).
 */
static int prev_release_dev(void)
{
	char path[4096];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/previous", iot_devdir());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ret = ioctl(fd, IOTRACE_IOC_PREVIOUS_RELEASE);
	if (ret && errno == ENOTTY) {
		close(fd);
		return 0;
	}
	if (ret) {
		iot_err("previous --release: %s: %s%s", path, strerror(errno),
			errno == EPERM ? " (it needs CAP_SYS_ADMIN)" : "");
		close(fd);
		return -1;
	}
	close(fd);
	return 1;
}

/*
 * --release: the module's copy read (and written with -o), free it
 * (IOTRACE_IOC_PREVIOUS_RELEASE on /dev/iotrace/previous, which works
 * under lockdown; else debugfs previous_release).  Return: 0 or 1 (said).
 */
static int prev_release(const char *arg)
{
	char path[4096];
	int fd, ret;

	if (arg) {
		iot_err("previous --release frees the module's copy: it reads no FILE");
		return 1;
	}
	ret = prev_release_dev();
	if (ret < 0)
		return 1;
	if (ret) {
		printf("released the module's copy\n");
		return 0;
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

/*
 * Under the newest ring of a disk: its capacity and who it is, as the
 * module kept them (iotracectl identify gave the model, serial and wwn).
 */
static void print_ident(const struct iot_preg *c,
			const struct iotrace_preg_disk *e)
{
	char m[IOT_TEXT_ROOM(IOTRACE_FILE_ID_LEN)];
	char s[IOT_TEXT_ROOM(IOTRACE_FILE_ID_LEN)];
	char w[IOT_TEXT_ROOM(IOTRACE_FILE_ID_LEN)];
	struct iotrace_file_ident id;
	int k = iot_preg_disk_ident(c, e->disk_gen, &id);

	printf("  %llu sectors", (unsigned long long)id.sectors);
	if (k > 0)
		printf(", model \"%s\", serial \"%s\", wwn \"%s\"\n",
		       iot_text_str(m, sizeof(m), id.model),
		       iot_text_str(s, sizeof(s), id.serial),
		       iot_text_str(w, sizeof(w), id.wwn));
	else
		printf(", %s\n", k < 0 ?
		       "identity torn by the crash (its checksum fails)" :
		       "no identity given ('iotracectl identify', the udev rule, gives it)");
}

int cmd_previous(struct iot_opts *o, int argc, char **argv)
{
	struct iot_preg c = { 0 };
	const struct iotrace_preg_disk *e;
	char err[IOT_ERR_LEN], id[40], when[64];
	uint64_t last_ns;
	unsigned int i, damaged = 0, torn = 0, nr_infl = 0, good = 0, bad = 0;
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
	if (iot_preg_open(&c, argc ? argv[0] : NULL, iot_debugfs(),
			  iot_devdir(), err, sizeof(err))) {
		iot_err("previous: %s", err);
		iot_preg_free(&c);
		return 1;
	}
	if (c.in_core)
		printf("found the region at physical %#llx\n",
		       (unsigned long long)c.phys);
	iot_uuid_str(c.h->boot_id, id);
	{
		time_t sec = (time_t)(c.anchor_real_ns / 1000000000ull);
		struct tm tm;

		gmtime_r(&sec, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	printf("previous boot %s, kernel %.64s%s\n", id, c.h->release,
	       (c.h->flags & IOTRACE_PREG_PANICKED) ? ", panicked" : "");
	printf("last clock anchor %s = %llu.%09llu s monotonic; %llu bytes from %s\n",
	       when, (unsigned long long)(c.anchor_mono_ns / 1000000000ull),
	       (unsigned long long)(c.anchor_mono_ns % 1000000000ull),
	       (unsigned long long)c.h->region_size, c.label);
	if (c.anchor_prev)
		printf("(the one before: the crash came while the anchor was rewritten)\n");
	/* what did not fit: disks left out, removed disks' rings given up */
	iot_print_room(c.h->refused, c.h->minor >= 4, c.h->evicted);
	last_ns = c.anchor_mono_ns;
	printf("%-12s %10s %10s %12s %8s %s\n", "DISK", "RING", "RECORDS",
	       "OVERWRITTEN", "TORN", "NEWEST_NS");
	for (i = 0; i < c.h->max_disks; i++) {
		struct iot_preg_ring s;

		e = iot_preg_entry(&c, i, &dmg);
		damaged += dmg;
		if (!e || !(e->flags & IOTRACE_PREG_D_RING))
			continue;
		/* left out, said (with -o, a disk's newest by write_trace()) */
		if (iot_preg_ring_read(&c, e, &s, err, sizeof(err))) {
			if (!o->out || !iot_preg_newest(&c, e))
				iot_err("previous: ring of %s", err);
			bad++;
			continue;
		}
		good++;
		if (s.last_ns > last_ns)
			last_ns = s.last_ns;
		printf("%-12.32s %10llu %10llu %12llu %8llu %llu%s\n", e->name,
		       (unsigned long long)e->ring_size,
		       (unsigned long long)s.records,
		       (unsigned long long)s.counts.overwritten,
		       (unsigned long long)s.counts.torn,
		       (unsigned long long)s.last_ns,
		       !iot_preg_newest(&c, e) ? " (replaced by a resize)" :
		       (e->flags & IOTRACE_PREG_D_REMOVED) ?
		       " (its disk was removed)" : "");
		if (iot_preg_newest(&c, e))
			print_ident(&c, e);
		if (o->rings && write_ring(o->rings, &c, e,
					   iot_preg_newest(&c, e) &&
					   !name_taken(&c, e)))
			ret = 1;
	}
	/* a ring left out costs its disk's records; none read fails */
	if (bad && !good)
		ret = 1;
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
	iot_preg_free(&c);
	/*
	 * A ring left out is in the module's copy only: freed, it would be
	 * gone (the unit releases at every start, unattended).
	 */
	if (!ret && o->release && bad) {
		iot_err("previous --release: not released: %u ring%s left out above, whose bytes only the module's copy still holds (read it with an iotracectl that can, or save it with cat %s/previous > FILE); the copy is kept until the module is unloaded, or freed by echo 1 > %s/previous_release",
			bad, bad == 1 ? "" : "s", iot_debugfs(), iot_debugfs());
		ret = 1;
	}
	if (!ret && o->release)
		ret = prev_release(argc ? argv[0] : NULL);
	return ret;
}
