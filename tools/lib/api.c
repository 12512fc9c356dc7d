// SPDX-License-Identifier: GPL-2.0
/*
 * The public API of libiotrace (include/iotrace/libiotrace.h) over the
 * reader core: a handle holds an iot_src opened with its own options and
 * its own table of submitters' names, and reads the source with the
 * commands' orders (show's completion order, export's start order).
 * Nothing here touches the commands' globals (iot_strict, the inputs
 * noted for iot_src_input(), the thread's names) or the environment.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <iotrace/libiotrace.h>
#include "iot.h"
#include "window.h"

/* the public values are the ABI's: the same numbers under other names */
#define IOT_ABI_SAME(pub, abi, what) \
	_Static_assert((pub) == (abi), "libiotrace.h: " what " differ from the ABI's")

IOT_ABI_SAME(IOTRACE_REC_OP_READ, IOTRACE_OP_READ, "operations");
IOT_ABI_SAME(IOTRACE_REC_OP_WRITE, IOTRACE_OP_WRITE, "operations");
IOT_ABI_SAME(IOTRACE_REC_OP_FLUSH, IOTRACE_OP_FLUSH, "operations");
IOT_ABI_SAME(IOTRACE_REC_OP_DISCARD, IOTRACE_OP_DISCARD, "operations");
IOT_ABI_SAME(IOTRACE_REC_OP_SECURE_ERASE, IOTRACE_OP_SECURE_ERASE, "operations");
IOT_ABI_SAME(IOTRACE_REC_OP_WRITE_ZEROES, IOTRACE_OP_WRITE_ZEROES, "operations");
IOT_ABI_SAME(IOTRACE_REC_OP_ZONE_OPEN, IOTRACE_OP_ZONE_OPEN, "operations");
IOT_ABI_SAME(IOTRACE_REC_OP_ZONE_CLOSE, IOTRACE_OP_ZONE_CLOSE, "operations");
IOT_ABI_SAME(IOTRACE_REC_OP_ZONE_FINISH, IOTRACE_OP_ZONE_FINISH, "operations");
IOT_ABI_SAME(IOTRACE_REC_OP_ZONE_APPEND, IOTRACE_OP_ZONE_APPEND, "operations");
IOT_ABI_SAME(IOTRACE_REC_OP_ZONE_RESET, IOTRACE_OP_ZONE_RESET, "operations");
IOT_ABI_SAME(IOTRACE_REC_OP_ZONE_RESET_ALL, IOTRACE_OP_ZONE_RESET_ALL, "operations");
IOT_ABI_SAME(IOTRACE_REC_OP_DRV_IN, IOTRACE_OP_DRV_IN, "operations");
IOT_ABI_SAME(IOTRACE_REC_OP_DRV_OUT, IOTRACE_OP_DRV_OUT, "operations");
IOT_ABI_SAME(IOTRACE_REC_OP_UNKNOWN, IOTRACE_OP_UNKNOWN, "operations");
IOT_ABI_SAME(IOTRACE_REC_COMPLETE, IOTRACE_RF_COMPLETE, "record flags");
IOT_ABI_SAME(IOTRACE_REC_ERROR, IOTRACE_RF_ERROR, "record flags");
IOT_ABI_SAME(IOTRACE_REC_TIMEOUT, IOTRACE_RF_TIMEOUT, "record flags");
IOT_ABI_SAME(IOTRACE_REC_REQUEUED, IOTRACE_RF_REQUEUED, "record flags");
IOT_ABI_SAME(IOTRACE_REC_PASSTHRU, IOTRACE_RF_PASSTHRU, "record flags");
IOT_ABI_SAME(IOTRACE_REC_CMD_VALID, IOTRACE_RF_CMD_VALID, "record flags");
IOT_ABI_SAME(IOTRACE_REC_CMD_TRUNC, IOTRACE_RF_CMD_TRUNC, "record flags");
IOT_ABI_SAME(IOTRACE_REC_NO_ISSUE, IOTRACE_RF_NO_ISSUE, "record flags");
IOT_ABI_SAME(IOTRACE_REC_QUEUE_VALID, IOTRACE_RF_QUEUE_VALID, "record flags");
IOT_ABI_SAME(IOTRACE_REC_STATUS_VALID, IOTRACE_RF_STATUS_VALID, "record flags");
IOT_ABI_SAME(IOTRACE_REC_ADMIN, IOTRACE_RF_ADMIN, "record flags");
IOT_ABI_SAME(IOTRACE_REC_QUEUE_SAT, IOTRACE_RF_QUEUE_SAT, "record flags");
IOT_ABI_SAME(IOTRACE_REC_PREFLUSH, IOTRACE_RF_PREFLUSH, "record flags");
IOT_ABI_SAME(IOTRACE_REC_POSTFLUSH, IOTRACE_RF_POSTFLUSH, "record flags");
IOT_ABI_SAME(IOTRACE_REC_KERNEL, IOTRACE_RF_KERNEL, "record flags");
IOT_ABI_SAME(IOTRACE_REC_TRIGGER, IOTRACE_RF_TRIGGER, "record flags");
IOT_ABI_SAME(IOTRACE_REC_CMD_NONE, IOTRACE_CMD_NONE, "command types");
IOT_ABI_SAME(IOTRACE_REC_CMD_NVME, IOTRACE_CMD_NVME, "command types");
IOT_ABI_SAME(IOTRACE_REC_CMD_SCSI, IOTRACE_CMD_SCSI, "command types");
IOT_ABI_SAME(IOTRACE_REC_CMD_ATA, IOTRACE_CMD_ATA, "command types");
IOT_ABI_SAME(IOTRACE_REC_CMD_LEN, IOTRACE_CMD_LEN, "command types");
IOT_ABI_SAME(IOTRACE_DISK_NAME_SIZE, IOTRACE_NAME_LEN + 1, "string sizes");
IOT_ABI_SAME(IOTRACE_DISK_ID_SIZE, IOTRACE_FILE_ID_LEN, "string sizes");
IOT_ABI_SAME(IOTRACE_INFO_STR_SIZE, IOTRACE_FILE_STR_LEN + 1, "string sizes");

/* trigger chunks looked at for the disks' identities */
#define API_MAX_TRIGS	256
/* records a trace file is read ahead by (show's and export's window) */
#define API_WINDOW	16384

/**
 * struct iotrace_source - a handle (libiotrace.h).
 * @src: the source, when @open.
 * @open: @src is open.
 * @comms: the submitters' names of @src (@src.opts.comms points here).
 * @disks: the disk table, @src.nr_disks entries.
 * @late: per disk, records the last foreach or read handed out late.
 * @rd: the read iotrace_source_rewind() began, NULL: none.
 * @err: the last failure's message.
 * @warn: what a salvaged trace file is missing, or what of a persistent
 *	region was left out.
 */
struct iotrace_source {
	struct iot_src src;
	int open;
	struct iot_comms comms;
	struct iotrace_disk *disks;
	uint64_t *late;
	struct api_read *rd;
	char err[IOT_ERR_LEN];
	char warn[IOT_ERR_LEN];
};

/**
 * struct api_read - a read of a source's records, pulled
 *	(iotrace_source_rewind(), iotrace_source_read()).
 * @cmp: the order of the read (NULL: as stored).
 * @fm: a trace file's merge (by completion or start).
 * @fw: a trace file's walk in file order.
 * @win: the reordering window after @fm.
 * @drained: @fm has no record left: @win gives its last.
 * @failed: the read failed: @msg says why, every later call fails.
 * @x: the record @fw gave last.
 * @v: a ring's records (sorted unless @cmp is NULL).
 * @n: records in @v.
 * @cap: allocated.
 * @pos: the next of @v.
 * @last: the record handed out last (@started).
 * @started: a record was handed out.
 * @msg: the failure's message.
 */
struct api_read {
	int (*cmp)(const void *a, const void *b);
	struct iot_fmerge *fm;
	struct iot_fwalk *fw;
	struct iot_win win;
	int drained, failed;
	struct xrec x;
	struct xrec *v;
	size_t n, cap, pos;
	struct xrec last;
	int started;
	char msg[IOT_ERR_LEN];
};

static void read_free(struct api_read *rd)
{
	if (!rd)
		return;
	if (rd->fm) {
		iot_fmerge_free(rd->fm);
		iot_win_free(&rd->win);
	}
	iot_fwalk_free(rd->fw);
	free(rd->v);
	free(rd);
}

struct iotrace_source *iotrace_source_new(void)
{
	struct iotrace_source *h = calloc(1, sizeof(*h));

	if (h)
		h->src.fd = -1;
	return h;
}

void iotrace_source_close(struct iotrace_source *h)
{
	read_free(h->rd);
	h->rd = NULL;
	if (h->open)
		iot_src_close(&h->src);
	h->open = 0;
	iot_comms_free(&h->comms);
	free(h->disks);
	free(h->late);
	h->disks = NULL;
	h->late = NULL;
	h->warn[0] = 0;
}

void iotrace_source_free(struct iotrace_source *h)
{
	if (!h)
		return;
	iotrace_source_close(h);
	free(h);
}

const char *iotrace_source_error(const struct iotrace_source *h)
{
	return h->err;
}

const char *iotrace_source_warning(const struct iotrace_source *h)
{
	return h->warn;
}

/* the options of a handle's source: @opts's, no environment, no hints */
static void api_opts(struct iotrace_source *h,
		     const struct iotrace_open_opts *opts,
		     struct iot_src_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->strict = opts && (opts->flags & IOTRACE_OPEN_STRICT);
	o->debugfs = opts && opts->debugfs ? opts->debugfs :
		     "/sys/kernel/debug/iotrace";
	o->devdir = opts && opts->devdir ? opts->devdir : IOTRACE_DEV_DIR;
	o->tmpdir = opts && opts->tmpdir ? opts->tmpdir : "/var/tmp";
	o->comms = &h->comms;
}

/* copy @n bytes of a NUL-terminated or full field @s to @d (@n + 1) */
static void api_str(char *d, const char *s, size_t n)
{
	n = strnlen(s, n);
	memcpy(d, s, n);
	d[n] = 0;
}

/* @o's model, serial number and WWN from those given (an empty one: kept). */
static void api_ident(struct iotrace_disk *o, const char *model,
		      const char *serial, const char *wwn)
{
	if (model[0])
		api_str(o->model, model, IOTRACE_FILE_ID_LEN - 1);
	if (serial[0])
		api_str(o->serial, serial, IOTRACE_FILE_ID_LEN - 1);
	if (wwn[0])
		api_str(o->wwn, wwn, IOTRACE_FILE_ID_LEN - 1);
}

/*
 * The identity chunks of a previous boot's trace file (or of a region
 * read as one) into the disk table of @h: 0, or -1 on ENOMEM.
 */
static int api_idents(struct iotrace_source *h)
{
	const struct iot_src *s = &h->src;
	struct iotrace_file_ident *id;
	unsigned char *have;
	unsigned int i;

	id = calloc(s->nr_disks ? s->nr_disks : 1, sizeof(*id));
	have = calloc(s->nr_disks ? s->nr_disks : 1, 1);
	if (!id || !have) {
		free(id);
		free(have);
		return -1;
	}
	/* a file that cannot be read now fails when its records are read */
	if (iot_file_idents(s->buf, s->len, s->fi, id, have) > 0)
		for (i = 0; i < s->nr_disks; i++)
			if (have[i])
				api_ident(&h->disks[i], id[i].model,
					  id[i].serial, id[i].wwn);
	free(id);
	free(have);
	return 0;
}

/*
 * The disk table of the source just opened: the reader's, with the
 * model, serial number and WWN that the identity chunks of a previous
 * boot's trace file and the trigger chunks of a snapshot give.
 */
static int api_disks(struct iotrace_source *h)
{
	const struct iot_src *s = &h->src;
	struct iotrace_file_trigger *t = NULL;
	unsigned int i, *tdisk = NULL;
	int n = 0;

	h->disks = calloc(s->nr_disks ? s->nr_disks : 1, sizeof(*h->disks));
	h->late = calloc(s->nr_disks ? s->nr_disks : 1, sizeof(*h->late));
	if (!h->disks || !h->late)
		return -1;
	for (i = 0; i < s->nr_disks; i++) {
		const struct iot_disk *d = &s->disks[i];
		struct iotrace_disk *o = &h->disks[i];

		api_str(o->name, d->name, IOTRACE_NAME_LEN);
		o->dev_major = d->dev_major;
		o->dev_minor = d->dev_minor;
		o->logical_block_size = d->lbs;
		o->nr_parts = d->nr_parts;
		o->part_records = d->part_records;
		o->ring_flags = d->flags;
		o->generation = d->generation;
	}
	if (!s->is_file)
		return 0;
	if (api_idents(h))
		return -1;
	t = malloc(API_MAX_TRIGS * sizeof(*t));
	tdisk = malloc(API_MAX_TRIGS * sizeof(*tdisk));
	if (!t || !tdisk) {
		free(t);
		free(tdisk);
		return -1;
	}
	/* a file that cannot be read now fails when its records are read */
	n = iot_file_triggers(s->buf, s->len, s->fi, t, tdisk, API_MAX_TRIGS);
	for (i = 0; n > 0 && i < (unsigned int)n; i++) {
		struct iotrace_disk *o;

		if (tdisk[i] >= s->nr_disks)
			continue;
		o = &h->disks[tdisk[i]];
		api_ident(o, t[i].model, t[i].serial, t[i].wwn);
	}
	free(t);
	free(tdisk);
	return 0;
}

/* what every successful open does next: the disks, the warning */
static int api_opened(struct iotrace_source *h)
{
	h->open = 1;
	if (api_disks(h)) {
		iotrace_source_close(h);
		snprintf(h->err, sizeof(h->err), "out of memory");
		return -1;
	}
	if (h->src.preg_left[0])
		snprintf(h->warn, sizeof(h->warn), "%s", h->src.preg_left);
	else if (h->src.is_file)
		iot_file_salvage_str(h->src.fi, h->warn, sizeof(h->warn));
	return 0;
}

int iotrace_source_open(struct iotrace_source *h, const char *what,
			const struct iotrace_open_opts *opts)
{
	struct iot_src_opts o;

	iotrace_source_close(h);
	h->err[0] = 0;
	if (!what || !*what) {
		snprintf(h->err, sizeof(h->err),
			 "no source named: a path, \"-\" or a disk name");
		return -1;
	}
	api_opts(h, opts, &o);
	if (iot_src_open_opts(&h->src, what, &o, h->err, sizeof(h->err))) {
		iot_comms_free(&h->comms);
		return -1;
	}
	return api_opened(h);
}

int iotrace_source_open_buffer(struct iotrace_source *h, const void *buf,
			       size_t len, const char *label,
			       const struct iotrace_open_opts *opts)
{
	struct iot_src_opts o;

	iotrace_source_close(h);
	h->err[0] = 0;
	if (!buf && len) {
		snprintf(h->err, sizeof(h->err), "no buffer");
		return -1;
	}
	api_opts(h, opts, &o);
	if (iot_src_open_buf_opts(&h->src, label ? label : "buffer",
				  buf ? buf : "", len, &o, h->err,
				  sizeof(h->err))) {
		iot_comms_free(&h->comms);
		return -1;
	}
	return api_opened(h);
}

/* -1 with a message when no source is open */
static int api_closed(struct iotrace_source *h)
{
	if (h->open)
		return 0;
	snprintf(h->err, sizeof(h->err), "no source open");
	return -1;
}

int iotrace_source_info(struct iotrace_source *h,
			struct iotrace_source_info *info)
{
	const struct iot_src *s = &h->src;

	if (api_closed(h))
		return -1;
	memset(info, 0, sizeof(*info));
	info->kind = s->is_file ? IOTRACE_KIND_FILE :
		     s->live ? IOTRACE_KIND_LIVE : IOTRACE_KIND_RING;
	info->nr_disks = s->nr_disks;
	if (!s->is_file)
		return 0;
	info->salvaged = !!s->fi->salvaged;
	info->start_ns = s->fi->hdr.anchor_mono_ns;
	info->anchor_real_ns = s->fi->hdr.anchor_real_ns;
	api_str(info->host, s->fi->hdr.host, IOTRACE_FILE_STR_LEN);
	api_str(info->release, s->fi->hdr.release, IOTRACE_FILE_STR_LEN);
	return 0;
}

int iotrace_source_disk(struct iotrace_source *h, unsigned int index,
			struct iotrace_disk *disk)
{
	if (api_closed(h))
		return -1;
	if (index >= h->src.nr_disks) {
		snprintf(h->err, sizeof(h->err),
			 "%s: no disk %u: it holds %u", h->src.label, index,
			 h->src.nr_disks);
		return -1;
	}
	*disk = h->disks[index];
	return 0;
}

int iotrace_source_disk_index(struct iotrace_source *h, const char *name)
{
	char list[IOT_ERR_LEN / 2], text[IOT_TEXT_ROOM(IOTRACE_NAME_LEN)];
	int i;

	if (api_closed(h))
		return -1;
	i = iot_src_disk_index(&h->src, name);
	if (i >= 0)
		return i;
	iot_src_disk_list(&h->src, list, sizeof(list));
	snprintf(h->err, sizeof(h->err),
		 "%s holds no disk named %s (it holds: %s)", h->src.label,
		 iot_text_str(text, sizeof(text), name), list);
	return -1;
}

static void to_loss(const struct iot_counts *c, uint64_t late,
		    struct iotrace_loss *l)
{
	l->completed += c->completed;
	l->recorded += c->recorded;
	l->present += c->present;
	l->overwritten += c->overwritten;
	l->dropped += c->dropped;
	l->filtered += c->filtered;
	l->written += c->written;
	l->lost += c->lost;
	l->torn += c->torn;
	l->valid += c->valid;
	l->gaps += c->gaps;
	l->gap_records += c->gap_records;
	l->unread += c->unread;
	l->late += late;
	if (c->no_trailer)
		l->flags |= IOTRACE_LOSS_NO_TRAILER;
	if (c->cleared)
		l->flags |= IOTRACE_LOSS_CLEARED;
}

int iotrace_source_loss(struct iotrace_source *h, int disk,
			struct iotrace_loss *loss)
{
	unsigned int i;

	if (api_closed(h))
		return -1;
	if (disk < -1 || (disk >= 0 && (unsigned int)disk >= h->src.nr_disks)) {
		snprintf(h->err, sizeof(h->err), "%s: no disk %d: it holds %u",
			 h->src.label, disk, h->src.nr_disks);
		return -1;
	}
	memset(loss, 0, sizeof(*loss));
	for (i = 0; i < h->src.nr_disks; i++)
		if (disk < 0 || (unsigned int)disk == i)
			to_loss(&h->src.counts[i], h->late[i], loss);
	return 0;
}

/* the public form of a record of disk @disk */
static void to_rec(const struct iotrace_record *r, unsigned int disk,
		   struct iotrace_rec *o)
{
	o->disk = disk;
	o->seq = r->seq;
	o->issue_ns = r->issue_ns;
	o->complete_ns = r->complete_ns;
	o->sector = r->sector;
	o->bytes = r->bytes;
	o->queue_ns = r->queue_ns;
	o->dev_status = r->dev_status;
	o->dev_result = r->dev_result;
	o->error = r->error;
	o->rflags = r->rflags;
	o->opflags = r->opflags;
	o->issue_cpu = r->issue_cpu;
	o->complete_cpu = r->complete_cpu;
	o->hwq = r->hwq;
	o->tag = r->tag;
	o->op = r->op;
	o->retries = r->retries;
	o->cmd_type = r->cmd_type;
	o->cmd_len = r->cmd_len;
	o->pid = r->pid;
	o->cgroup = r->cgroup;
	memcpy(o->cmd, r->cmd, sizeof(o->cmd));
}

/* the reader's form of a public record (for the decoders) */
static void from_rec(const struct iotrace_rec *o, struct iotrace_record *r)
{
	memset(r, 0, sizeof(*r));
	r->seq = o->seq;
	r->issue_ns = o->issue_ns;
	r->complete_ns = o->complete_ns;
	r->sector = o->sector;
	r->bytes = o->bytes;
	r->queue_ns = o->queue_ns;
	r->dev_status = o->dev_status;
	r->dev_result = o->dev_result;
	r->error = (__s16)o->error;
	r->rflags = o->rflags;
	r->opflags = o->opflags;
	r->issue_cpu = o->issue_cpu;
	r->complete_cpu = o->complete_cpu;
	r->hwq = o->hwq;
	r->tag = o->tag;
	r->op = o->op;
	r->retries = o->retries;
	r->cmd_type = o->cmd_type;
	r->cmd_len = o->cmd_len;
	r->pid = o->pid;
	r->cgroup = o->cgroup;
	memcpy(r->cmd, o->cmd, sizeof(r->cmd));
}

/**
 * struct api_walk - one iotrace_source_foreach().
 * @h: the handle.
 * @order: IOTRACE_ORDER_*.
 * @fn: the caller's function.
 * @arg: its argument.
 * @stop: @fn's value that stopped the walk, 0: none.
 * @cmp: the order of @order (NULL: as stored).
 * @win: a trace file's reordering window (@windowed).
 * @windowed: @win is in use.
 * @v: a ring's records, sorted at the end.
 * @n: records in @v.
 * @cap: allocated.
 * @last: the record handed out last (@started).
 * @started: a record was handed out.
 */
struct api_walk {
	struct iotrace_source *h;
	int order;
	iotrace_rec_fn fn;
	void *arg;
	int stop;
	int (*cmp)(const void *a, const void *b);
	struct iot_win win;
	int windowed;
	struct xrec *v;
	size_t n, cap;
	struct xrec last;
	int started;
};

/*
 * Count @e late when it comes before @last in the order @cmp (NULL: as
 * stored, never late); @e is the last from now on.
 */
static void note_late(struct iotrace_source *h,
		      int (*cmp)(const void *a, const void *b),
		      struct xrec *last, int *started, const struct xrec *e)
{
	if (!cmp)
		return;
	if (*started && cmp(e, last) < 0 && e->disk < h->src.nr_disks)
		h->late[e->disk]++;
	*last = *e;
	*started = 1;
}

/* hand @e to the caller: 1 when it stops */
static int walk_hand(struct api_walk *w, const struct xrec *e)
{
	struct iotrace_rec rec;
	int ret;

	note_late(w->h, w->cmp, &w->last, &w->started, e);
	to_rec(&e->r, e->disk, &rec);
	ret = w->fn(w->arg, &rec);
	if (ret) {
		w->stop = ret;
		return 1;
	}
	return 0;
}

static int walk_cb(void *arg, unsigned int disk,
		   const struct iotrace_record *r)
{
	struct api_walk *w = arg;
	const struct xrec *e;
	struct xrec x;

	if (!w->cmp) {
		x.r = *r;
		x.disk = disk;
		return walk_hand(w, &x);
	}
	if (w->windowed) {
		if (iot_win_push(&w->win, disk, r, &e))
			return -2;
		return e ? walk_hand(w, e) : 0;
	}
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 4096;
		struct xrec *v = realloc(w->v, cap * sizeof(*v));

		if (!v)
			return -2;
		w->v = v;
		w->cap = cap;
	}
	w->v[w->n].r = *r;
	w->v[w->n].disk = disk;
	w->n++;
	return 0;
}

/* the order's check of iotrace_source_foreach() and _rewind() */
static int bad_order(struct iotrace_source *h, int order)
{
	if (order >= IOTRACE_ORDER_COMPLETE && order <= IOTRACE_ORDER_STORED)
		return 0;
	snprintf(h->err, sizeof(h->err),
		 "no such order: IOTRACE_ORDER_COMPLETE, _START or _STORED");
	return 1;
}

int iotrace_source_foreach(struct iotrace_source *h, int order,
			   iotrace_rec_fn fn, void *arg)
{
	struct api_walk w;
	const struct xrec *e;
	size_t i;
	int ret;

	if (api_closed(h))
		return -1;
	if (!fn) {
		snprintf(h->err, sizeof(h->err), "no function to call");
		return -1;
	}
	if (bad_order(h, order))
		return -1;
	read_free(h->rd);	/* it ends a read under way */
	h->rd = NULL;
	memset(&w, 0, sizeof(w));
	w.h = h;
	w.order = order;
	w.fn = fn;
	w.arg = arg;
	memset(h->late, 0, h->src.nr_disks * sizeof(*h->late));
	if (order == IOTRACE_ORDER_COMPLETE)
		w.cmp = iot_xrec_cmp_complete;
	else if (order == IOTRACE_ORDER_START)
		w.cmp = iot_xrec_cmp_start;
	if (w.cmp && h->src.is_file) {
		if (iot_win_init(&w.win, API_WINDOW,
				 order == IOTRACE_ORDER_START ?
				 iot_xrec_start_key : iot_xrec_complete_key,
				 w.cmp)) {
			snprintf(h->err, sizeof(h->err), "out of memory");
			return -1;
		}
		w.windowed = 1;
	}
	if (w.cmp)
		ret = iot_src_read_merged(&h->src,
					  order == IOTRACE_ORDER_START, walk_cb,
					  &w, h->err, sizeof(h->err));
	else
		ret = iot_src_read(&h->src, walk_cb, &w, h->err,
				   sizeof(h->err));
	if (ret && !w.stop) {
		if (ret != -1)	/* -2: a callback's, or the merge's */
			snprintf(h->err, sizeof(h->err), "out of memory");
		ret = -1;
		goto out;
	}
	if (w.stop)
		goto out;
	if (w.windowed) {
		while (!w.stop && (e = iot_win_pop(&w.win)))
			walk_hand(&w, e);
	} else if (w.cmp) {
		if (w.n)
			qsort(w.v, w.n, sizeof(*w.v), w.cmp);
		for (i = 0; i < w.n && !w.stop; i++)
			walk_hand(&w, &w.v[i]);
	}
	ret = 0;
out:
	if (w.windowed)
		iot_win_free(&w.win);
	free(w.v);
	return w.stop ? w.stop : ret;
}

/* a ring's records, gathered to be sorted and read */
static int read_collect(void *arg, unsigned int disk,
			const struct iotrace_record *r)
{
	struct api_read *rd = arg;

	if (rd->n == rd->cap) {
		size_t cap = rd->cap ? rd->cap * 2 : 4096;
		struct xrec *v = realloc(rd->v, cap * sizeof(*v));

		if (!v)
			return -2;
		rd->v = v;
		rd->cap = cap;
	}
	rd->v[rd->n].r = *r;
	rd->v[rd->n].disk = disk;
	rd->n++;
	return 0;
}

int iotrace_source_rewind(struct iotrace_source *h, int order)
{
	struct iot_src *s = &h->src;
	struct api_read *rd;
	unsigned int i;
	int ret;

	if (api_closed(h) || bad_order(h, order))
		return -1;
	read_free(h->rd);
	h->rd = NULL;
	rd = calloc(1, sizeof(*rd));
	if (!rd)
		goto oom;
	if (order == IOTRACE_ORDER_COMPLETE)
		rd->cmp = iot_xrec_cmp_complete;
	else if (order == IOTRACE_ORDER_START)
		rd->cmp = iot_xrec_cmp_start;
	memset(h->late, 0, s->nr_disks * sizeof(*h->late));
	if (s->is_file) {
		/* the counts of the file as a read of it gives them */
		for (i = 0; i < s->nr_disks; i++)
			s->counts[i] = s->fi->counts[i];
		if (!rd->cmp) {
			ret = iot_fwalk_new(s->buf, s->fi, &rd->fw);
		} else {
			if (iot_win_init(&rd->win, API_WINDOW,
					 order == IOTRACE_ORDER_START ?
					 iot_xrec_start_key :
					 iot_xrec_complete_key, rd->cmp))
				goto oom;
			ret = iot_fmerge_new(s->buf, s->len, s->fi,
					     order == IOTRACE_ORDER_START,
					     &rd->fm);
			if (!rd->fm)
				iot_win_free(&rd->win);
		}
		if (ret == -3) {
			iot_src_read_error(s, h->err, sizeof(h->err));
			read_free(rd);
			return -1;
		}
		if (ret)
			goto oom;
	} else {
		ret = iot_src_read(s, read_collect, rd, h->err,
				   sizeof(h->err));
		if (ret == -1) {
			read_free(rd);
			return -1;
		}
		if (ret)
			goto oom;
		if (rd->cmp && rd->n)
			qsort(rd->v, rd->n, sizeof(*rd->v), rd->cmp);
	}
	h->rd = rd;
	return 0;
oom:
	read_free(rd);
	snprintf(h->err, sizeof(h->err), "out of memory");
	return -1;
}

/*
 * The next record of a read: 1 with *@e set (valid until the next call),
 * 0 after the last, -1 with @rd->msg set.
 */
static int read_next(struct iotrace_source *h, struct api_read *rd,
		     const struct xrec **e)
{
	const struct iotrace_record *r;
	unsigned int disk;
	int ret;

	if (rd->fw) {
		ret = iot_fwalk_next(rd->fw, &disk, &r);
		if (ret == 1) {
			rd->x.r = *r;
			rd->x.disk = disk;
			*e = &rd->x;
		}
	} else if (rd->fm) {
		for (ret = 1; !rd->drained; ) {
			ret = iot_fmerge_next(rd->fm, &disk, &r);
			if (ret < 0)
				break;
			if (!ret) {
				rd->drained = 1;
				break;
			}
			if (iot_win_push(&rd->win, disk, r, e)) {
				ret = -2;
				break;
			}
			if (*e)
				return 1;
		}
		if (ret >= 0) {
			*e = iot_win_pop(&rd->win);
			ret = !!*e;
		}
	} else {
		ret = rd->pos < rd->n;
		if (ret)
			*e = &rd->v[rd->pos++];
	}
	if (ret == -3)
		iot_src_read_error(&h->src, rd->msg, sizeof(rd->msg));
	else if (ret < 0)
		snprintf(rd->msg, sizeof(rd->msg), "out of memory");
	return ret < 0 ? -1 : ret;
}

long iotrace_source_read(struct iotrace_source *h, struct iotrace_rec *recs,
			 size_t max)
{
	struct api_read *rd = h->rd;
	const struct xrec *e;
	size_t i;
	int ret;

	if (api_closed(h))
		return -1;
	if (!rd) {
		snprintf(h->err, sizeof(h->err),
			 "no read begun: iotrace_source_rewind() first");
		return -1;
	}
	if ((long)max < 0)
		max = LONG_MAX;
	for (i = 0; i < max && !rd->failed; i++) {
		ret = read_next(h, rd, &e);
		if (ret < 0)
			rd->failed = 1;
		if (ret <= 0)
			break;
		note_late(h, rd->cmp, &rd->last, &rd->started, e);
		to_rec(&e->r, e->disk, &recs[i]);
	}
	if (!i && rd->failed) {
		snprintf(h->err, sizeof(h->err), "%s", rd->msg);
		return -1;
	}
	return (long)i;
}

const char *iotrace_source_comm(const struct iotrace_source *h,
				const struct iotrace_rec *rec)
{
	const char *c;

	if (rec->rflags & IOTRACE_RF_KERNEL)
		return "[kernel]";
	c = h->open ? iot_comms_get(&h->comms, rec->pid) : NULL;
	return c ? c : "-";
}

const char *iotrace_op_name(unsigned int op)
{
	return iot_op_name(op);
}

/* the decoders write at least one byte: a buffer of none gets nothing */
size_t iotrace_rec_command(const struct iotrace_rec *rec, char *buf,
			   size_t size)
{
	struct iotrace_record r;

	if (!size)
		return 0;
	from_rec(rec, &r);
	iot_decode_cmd(&r, buf, size);
	return strlen(buf);
}

size_t iotrace_rec_status(const struct iotrace_rec *rec, char *buf,
			  size_t size)
{
	struct iotrace_record r;

	if (!size)
		return 0;
	from_rec(rec, &r);
	iot_decode_status(&r, buf, size);
	return strlen(buf);
}

size_t iotrace_rec_errno(const struct iotrace_rec *rec, char *buf,
			 size_t size)
{
	if (!size)
		return 0;
	/* a request without a completion has no status */
	if (!(rec->rflags & IOTRACE_RF_COMPLETE)) {
		iot_put_s(buf, buf + size, "-");
		return strlen(buf);
	}
	iot_errno_name(rec->error, buf, size);
	return strlen(buf);
}

size_t iotrace_rec_opflags(const struct iotrace_rec *rec, char *buf,
			   size_t size)
{
	struct iotrace_record r;

	if (!size)
		return 0;
	from_rec(rec, &r);
	iot_opflags_str(&r, buf, size);
	return strlen(buf);
}

/**
 * struct iotrace_strtab - a table of distinct strings (libiotrace.h).
 * @data: the strings, each ended by its NUL, in the order of their
 *	numbers.
 * @len: bytes in @data.
 * @size: allocated.
 * @off: per number, the offset of its string in @data; @off[@count] is
 *	@len.
 * @hash: per number, its string's hash.
 * @count: strings.
 * @ncap: numbers allocated in @off (one more) and @hash.
 * @slot: an open-addressed table of 1 + numbers, 0: free.
 * @mask: its slots - 1 (a power of two minus one; 0: none yet).
 */
struct iotrace_strtab {
	char *data;
	size_t len, size;
	size_t *off;
	uint64_t *hash;
	size_t count, ncap;
	uint32_t *slot;
	size_t mask;
};

struct iotrace_strtab *iotrace_strtab_new(void)
{
	struct iotrace_strtab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->off = calloc(1, sizeof(*t->off));
	if (!t->off) {
		free(t);
		return NULL;
	}
	return t;
}

void iotrace_strtab_free(struct iotrace_strtab *t)
{
	if (!t)
		return;
	free(t->data);
	free(t->off);
	free(t->hash);
	free(t->slot);
	free(t);
}

size_t iotrace_strtab_count(const struct iotrace_strtab *t)
{
	return t->count;
}

const char *iotrace_strtab_data(const struct iotrace_strtab *t, size_t *size)
{
	*size = t->len;
	return t->data ? t->data : "";
}

/* a string's hash, 8 bytes at a time */
static uint64_t str_hash(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

/* the table's slots doubled (or made): -1 when out of memory */
static int strtab_grow(struct iotrace_strtab *t)
{
	size_t n = t->mask ? 2 * (t->mask + 1) : 1024, i, k;
	uint32_t *slot;

	if (n > (size_t)UINT32_MAX)
		return -1;
	slot = calloc(n, sizeof(*slot));
	if (!slot)
		return -1;
	for (i = 0; i < t->count; i++) {
		for (k = t->hash[i] & (n - 1); slot[k]; k = (k + 1) & (n - 1))
			;
		slot[k] = (uint32_t)i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->mask = n - 1;
	return 0;
}

/* the number of string @s (@n bytes), added when new: -1 when out of memory */
static int strtab_id(struct iotrace_strtab *t, const char *s, size_t n,
		     uint32_t *id)
{
	uint64_t h = str_hash(s, n);
	size_t k;

	/* at most half full */
	if (2 * (t->count + 1) > t->mask + 1 && strtab_grow(t))
		return -1;
	for (k = h & t->mask; t->slot[k]; k = (k + 1) & t->mask) {
		size_t i = t->slot[k] - 1;

		if (t->hash[i] == h && t->off[i + 1] - t->off[i] == n + 1 &&
		    !memcmp(t->data + t->off[i], s, n)) {
			*id = (uint32_t)i;
			return 0;
		}
	}
	if (t->count == t->ncap) {
		size_t c = t->ncap ? 2 * t->ncap : 256;
		size_t *off = realloc(t->off, (c + 1) * sizeof(*off));
		uint64_t *hash;

		if (!off)
			return -1;
		t->off = off;
		hash = realloc(t->hash, c * sizeof(*hash));
		if (!hash)
			return -1;
		t->hash = hash;
		t->ncap = c;
	}
	if (t->size - t->len < n + 1) {
		size_t c = t->size ? 2 * t->size : 4096;
		char *d;

		while (c - t->len < n + 1)
			c *= 2;
		d = realloc(t->data, c);
		if (!d)
			return -1;
		t->data = d;
		t->size = c;
	}
	memcpy(t->data + t->len, s, n);
	t->data[t->len + n] = 0;
	t->len += n + 1;
	t->hash[t->count] = h;
	t->off[++t->count] = t->len;
	t->slot[k] = (uint32_t)t->count;
	*id = (uint32_t)(t->count - 1);
	return 0;
}

/**
 * struct text_bufs - the decoded text fields of a record.
 * @opflags: iot_opflags_str()'s.
 * @err: iot_errno_name()'s.
 * @status: iot_decode_status()'s.
 * @cmd: iot_decode_cmd()'s.
 *
 * Their sizes are those of the CSV record schema's (iotracectl's
 * out.c), which cut a text the same.
 */
struct text_bufs {
	char opflags[128], err[32], status[160], cmd[256];
};

/* the fields that are texts */
#define FIELD_BIT(f)	(1u << IOTRACE_FIELD_##f)
#define TEXT_FIELDS	(FIELD_BIT(DISK) | FIELD_BIT(OP) | FIELD_BIT(OPFLAGS) | \
			 FIELD_BIT(STATUS) | FIELD_BIT(DEV_STATUS_STR) | \
			 FIELD_BIT(COMMAND) | FIELD_BIT(COMM))

/* iot_rec_has_lat() of iotracectl's out.c, on the public record */
static int rec_has_lat(const struct iotrace_rec *o)
{
	const uint32_t f = IOTRACE_RF_NO_ISSUE | IOTRACE_RF_PREFLUSH;

	return (o->rflags & IOTRACE_RF_COMPLETE) &&
	       (!(o->rflags & IOTRACE_RF_NO_ISSUE) ||
		((o->rflags & f) == f && o->issue_ns)) &&
	       o->complete_ns >= o->issue_ns;
}

/*
 * Number column @c of @n records: a loop per field, @get the value of
 * record o, @has whether the schema has it (the value is 0 where not).
 */
#define NUM_COLUMN(get, has)						\
	do {								\
		for (i = 0; i < n; i++) {				\
			const struct iotrace_rec *o = &recs[i];		\
			int p_ = !!(has);				\
									\
			v[i] = p_ ? (uint64_t)(get) : 0;		\
			if (pres)					\
				pres[i] = p_;				\
		}							\
	} while (0)

static void num_column(const struct iotrace_rec *recs, size_t n,
		       const struct iotrace_column *c)
{
	uint64_t *v = c->data;
	uint8_t *pres = c->present;
	size_t i;

	switch (c->field) {
	case IOTRACE_FIELD_SEQ:
		NUM_COLUMN(o->seq, 1);
		break;
	case IOTRACE_FIELD_ISSUE_NS:
		NUM_COLUMN(o->issue_ns, 1);
		break;
	case IOTRACE_FIELD_COMPLETE_NS:
		NUM_COLUMN(o->complete_ns, o->rflags & IOTRACE_RF_COMPLETE);
		break;
	case IOTRACE_FIELD_QUEUE_NS:
		NUM_COLUMN(o->queue_ns, o->rflags & IOTRACE_RF_QUEUE_VALID);
		break;
	case IOTRACE_FIELD_LATENCY_NS:
		NUM_COLUMN(o->complete_ns - o->issue_ns, rec_has_lat(o));
		break;
	case IOTRACE_FIELD_SECTOR:
		NUM_COLUMN(o->sector, o->sector != UINT64_MAX);
		break;
	case IOTRACE_FIELD_BYTES:
		NUM_COLUMN(o->bytes, 1);
		break;
	case IOTRACE_FIELD_ERROR:
		NUM_COLUMN((int64_t)o->error, 1);
		break;
	case IOTRACE_FIELD_RFLAGS:
		NUM_COLUMN(o->rflags, 1);
		break;
	case IOTRACE_FIELD_ISSUE_CPU:
		NUM_COLUMN(o->issue_cpu, 1);
		break;
	case IOTRACE_FIELD_COMPLETE_CPU:
		NUM_COLUMN(o->complete_cpu, 1);
		break;
	case IOTRACE_FIELD_HWQ:
		NUM_COLUMN(o->hwq, 1);
		break;
	case IOTRACE_FIELD_TAG:
		NUM_COLUMN(o->tag, 1);
		break;
	case IOTRACE_FIELD_RETRIES:
		NUM_COLUMN(o->retries, 1);
		break;
	case IOTRACE_FIELD_CMD_TYPE:
		NUM_COLUMN(o->cmd_type, 1);
		break;
	case IOTRACE_FIELD_DEV_STATUS:
		NUM_COLUMN(o->dev_status, 1);
		break;
	case IOTRACE_FIELD_PID:
		NUM_COLUMN(o->pid, 1);
		break;
	default:	/* IOTRACE_FIELD_CGROUP */
		NUM_COLUMN(o->cgroup, 1);
		break;
	}
}

#undef NUM_COLUMN

/*
 * Text field @f of record @o as the CSV record schema has it ("" for an
 * empty field); @r: room for @o in the reader's form, for the decoders.
 */
static const char *text_of(const struct iotrace_source *h,
			   const struct iotrace_rec *o,
			   struct iotrace_record *r, unsigned int f,
			   struct text_bufs *b)
{
	const char *c;

	switch (f) {
	case IOTRACE_FIELD_DISK:
		return o->disk < h->src.nr_disks ? h->disks[o->disk].name : "";
	case IOTRACE_FIELD_OP:
		return iot_op_name(o->op);
	case IOTRACE_FIELD_OPFLAGS:
		if (!o->opflags)
			return "";
		from_rec(o, r);
		iot_opflags_str(r, b->opflags, sizeof(b->opflags));
		return b->opflags;
	case IOTRACE_FIELD_STATUS:
		if (!(o->rflags & IOTRACE_RF_COMPLETE))
			return "";
		if (!o->error)
			return "ok";
		iot_errno_name(o->error, b->err, sizeof(b->err));
		return b->err;
	case IOTRACE_FIELD_DEV_STATUS_STR:
		from_rec(o, r);
		iot_decode_status(r, b->status, sizeof(b->status));
		return b->status;
	case IOTRACE_FIELD_COMMAND:
		from_rec(o, r);
		iot_decode_cmd(r, b->cmd, sizeof(b->cmd));
		return b->cmd;
	default:	/* IOTRACE_FIELD_COMM */
		c = iot_comms_get(&h->comms, o->pid);
		return c ? c : "";
	}
}

/*
 * The key a text field's string follows from, for the fields whose
 * string follows from a few of the record's bits; -1: none (the
 * command, decoded each time).
 */
static int64_t text_key(const struct iotrace_rec *o, unsigned int f)
{
	switch (f) {
	case IOTRACE_FIELD_DISK:
		return o->disk;
	case IOTRACE_FIELD_OP:
		return o->op;
	case IOTRACE_FIELD_OPFLAGS:
		return o->opflags;
	case IOTRACE_FIELD_STATUS:
		return (int64_t)(o->rflags & IOTRACE_RF_COMPLETE) << 32 |
		       (uint32_t)o->error;
	case IOTRACE_FIELD_DEV_STATUS_STR:
		/* what iot_decode_status() looks at */
		return (int64_t)!!(o->rflags & IOTRACE_RF_STATUS_VALID) << 40 |
		       (int64_t)o->cmd_type << 32 | o->dev_status;
	case IOTRACE_FIELD_COMM:
		return o->pid;
	default:
		return -1;
	}
}

/* the strings of the keys met last in a text column: direct-mapped */
#define KEY_CACHE	64

/* fill text column @c of @n records */
static int text_column(struct iotrace_source *h,
		       const struct iotrace_rec *recs, size_t n,
		       const struct iotrace_column *c,
		       struct iotrace_strtab *tab)
{
	struct {
		int64_t key;
		uint32_t id;
	} cache[KEY_CACHE];
	struct iotrace_record r;
	uint32_t *ids = c->data, id;
	struct text_bufs b;
	const char *s;
	unsigned int k;
	int64_t key;
	size_t i;

	for (k = 0; k < KEY_CACHE; k++)
		cache[k].key = -1;
	for (i = 0; i < n; i++) {
		key = text_key(&recs[i], c->field);
		k = (unsigned int)((uint64_t)key * 0x9e3779b97f4a7c15ull >> 58);
		if (key >= 0 && cache[k].key == key) {
			id = cache[k].id;
		} else {
			s = text_of(h, &recs[i], &r, c->field, &b);
			if (strtab_id(tab, s, strlen(s), &id))
				return -1;
			if (key >= 0) {
				cache[k].key = key;
				cache[k].id = id;
			}
		}
		ids[i] = id;
		if (c->present)
			c->present[i] = tab->off[id + 1] - tab->off[id] > 1;
	}
	return 0;
}

int iotrace_rec_columns(struct iotrace_source *h,
			const struct iotrace_rec *recs, size_t n,
			const struct iotrace_column *cols, unsigned int nr_cols,
			struct iotrace_strtab *tab)
{
	unsigned int k;

	if (api_closed(h))
		return -1;
	for (k = 0; k < nr_cols; k++) {
		const struct iotrace_column *c = &cols[k];
		int text;

		if (c->field >= IOTRACE_FIELD_NR) {
			snprintf(h->err, sizeof(h->err),
				 "column %u: no field %u: 0 to %d (IOTRACE_FIELD_*)",
				 k, c->field, IOTRACE_FIELD_NR - 1);
			return -1;
		}
		text = !!(TEXT_FIELDS & (1u << c->field));
		if (c->type != (text ? IOTRACE_COL_STRING : IOTRACE_COL_INT64) &&
		    (text || c->type != IOTRACE_COL_UINT64)) {
			snprintf(h->err, sizeof(h->err),
				 "column %u: field %u is %s: type %s", k,
				 c->field, text ? "a text" : "a number",
				 text ? "IOTRACE_COL_STRING" :
				 "IOTRACE_COL_INT64 or _UINT64");
			return -1;
		}
		if (text && !tab) {
			snprintf(h->err, sizeof(h->err),
				 "column %u: a text, and no table of strings",
				 k);
			return -1;
		}
	}
	for (k = 0; k < nr_cols; k++) {
		/* a number: int64_t and uint64_t have the same bits */
		if (cols[k].type != IOTRACE_COL_STRING) {
			num_column(recs, n, &cols[k]);
		} else if (text_column(h, recs, n, &cols[k], tab)) {
			snprintf(h->err, sizeof(h->err), "out of memory");
			return -1;
		}
	}
	return 0;
}

/**
 * struct api_infl - one iotrace_source_inflight().
 * @fn: the caller's function.
 * @arg: its argument.
 * @stop: @fn's value that stopped the walk, 0: none.
 * @info: what is found.
 */
struct api_infl {
	iotrace_rec_fn fn;
	void *arg;
	int stop;
	struct iotrace_inflight_info *info;
};

/* a disk's in-flight table (iot_file_inflight()): each request to @fn */
static int api_infl_table(void *arg, const struct iot_inflight *t)
{
	struct api_infl *a = arg;
	struct iotrace_rec rec;
	size_t k;

	if (t->at_ns > a->info->at_ns)
		a->info->at_ns = t->at_ns;
	a->info->torn += t->torn;
	for (k = 0; k < t->nr; k++) {
		to_rec(&t->recs[k], t->disk, &rec);
		a->info->requests++;
		a->stop = a->fn(a->arg, &rec);
		if (a->stop)
			return 1;
	}
	return 0;
}

/* A section of @h's trace file could not be read: why, in @h->err; -1. */
static int api_file_read_failed(struct iotrace_source *h)
{
	if (h->src.fi->rd_err)
		iot_src_read_error(&h->src, h->err, sizeof(h->err));
	else
		snprintf(h->err, sizeof(h->err), "out of memory");
	return -1;
}

/*
 * A live disk's requests in flight now, from its device (the ring's
 * source names it): each to @a->fn; as iotrace_source_inflight().
 */
static int api_live_inflight(struct iotrace_source *h, struct api_infl *a)
{
	struct iot_inflight t;
	int ret;

	ret = iot_dev_inflight(h->src.opts.devdir, h->src.label, &t, h->err,
			       sizeof(h->err));
	if (ret > 0)
		snprintf(h->err, sizeof(h->err),
			 "%s/%s: %s (a live disk's requests in flight come from its iotrace device)",
			 h->src.opts.devdir, h->src.label, strerror(errno));
	if (ret)
		return -1;
	api_infl_table(a, &t);
	free(t.recs);
	return a->stop;
}

int iotrace_source_inflight(struct iotrace_source *h, iotrace_rec_fn fn,
			    void *arg, struct iotrace_inflight_info *info)
{
	struct iotrace_inflight_info none;
	struct api_infl a;
	unsigned int damaged = 0;

	if (api_closed(h))
		return -1;
	if (!fn) {
		snprintf(h->err, sizeof(h->err), "no function to call");
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.fn = fn;
	a.arg = arg;
	a.info = info ? info : &none;
	memset(a.info, 0, sizeof(*a.info));
	if (h->src.live)
		return api_live_inflight(h, &a);
	if (!h->src.is_file)
		return 0;	/* a copy of a ring: none */
	if (iot_file_inflight(h->src.buf, h->src.len, h->src.fi,
			      api_infl_table, &a, &damaged) < 0) {
		return api_file_read_failed(h);
	}
	a.info->damaged = damaged;
	return a.stop;
}

/*
 * The boot chunk of @h's file into @b: 1, 0 (not a previous boot's
 * source: a ring, or a file without one), -1 with @h's error set.
 */
static int api_boot_chunk(struct iotrace_source *h, struct iotrace_file_boot *b)
{
	int r;

	if (!h->src.is_file)
		return 0;	/* a ring: this boot's */
	r = iot_file_boot(h->src.buf, h->src.len, h->src.fi, b);
	if (r < 0)
		return api_file_read_failed(h);
	return r;
}

int iotrace_source_boot(struct iotrace_source *h, struct iotrace_boot *boot)
{
	struct iotrace_file_boot b;
	int r;

	if (api_closed(h))
		return -1;
	memset(boot, 0, sizeof(*boot));
	r = api_boot_chunk(h, &b);
	if (r <= 0)
		return r;
	iot_uuid_str(b.boot_id, boot->boot_id);
	if (b.flags & IOTRACE_FILE_BOOT_PANICKED)
		boot->flags |= IOTRACE_BOOT_PANICKED;
	boot->first_ns = b.first_ns;
	boot->last_ns = b.last_ns;
	return 1;
}

int iotrace_source_room(struct iotrace_source *h, struct iotrace_room *room)
{
	struct iotrace_file_boot b;
	int r;

	if (api_closed(h))
		return -1;
	memset(room, 0, sizeof(*room));
	r = api_boot_chunk(h, &b);
	if (r <= 0)
		return r;
	if (b.flags & IOTRACE_FILE_BOOT_REFUSED) {
		room->flags |= IOTRACE_ROOM_REFUSED;
		room->refused = b.refused;
	}
	if (b.flags & IOTRACE_FILE_BOOT_EVICTED) {
		room->flags |= IOTRACE_ROOM_EVICTED;
		room->evicted = b.evicted;
	}
	return 1;
}
