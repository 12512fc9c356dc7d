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
#include <stdlib.h>
#include <string.h>
#include <iotrace/libiotrace.h>
#include "iot.h"
#include "window.h"

/* the public values are the ABI's: the same numbers under other names */
_Static_assert(IOTRACE_REC_OP_READ == IOTRACE_OP_READ &&
	       IOTRACE_REC_OP_WRITE == IOTRACE_OP_WRITE &&
	       IOTRACE_REC_OP_FLUSH == IOTRACE_OP_FLUSH &&
	       IOTRACE_REC_OP_DISCARD == IOTRACE_OP_DISCARD &&
	       IOTRACE_REC_OP_SECURE_ERASE == IOTRACE_OP_SECURE_ERASE &&
	       IOTRACE_REC_OP_WRITE_ZEROES == IOTRACE_OP_WRITE_ZEROES &&
	       IOTRACE_REC_OP_ZONE_OPEN == IOTRACE_OP_ZONE_OPEN &&
	       IOTRACE_REC_OP_ZONE_CLOSE == IOTRACE_OP_ZONE_CLOSE &&
	       IOTRACE_REC_OP_ZONE_FINISH == IOTRACE_OP_ZONE_FINISH &&
	       IOTRACE_REC_OP_ZONE_APPEND == IOTRACE_OP_ZONE_APPEND &&
	       IOTRACE_REC_OP_ZONE_RESET == IOTRACE_OP_ZONE_RESET &&
	       IOTRACE_REC_OP_ZONE_RESET_ALL == IOTRACE_OP_ZONE_RESET_ALL &&
	       IOTRACE_REC_OP_DRV_IN == IOTRACE_OP_DRV_IN &&
	       IOTRACE_REC_OP_DRV_OUT == IOTRACE_OP_DRV_OUT &&
	       IOTRACE_REC_OP_UNKNOWN == IOTRACE_OP_UNKNOWN,
	       "libiotrace.h: operations differ from the ABI's");
_Static_assert(IOTRACE_REC_COMPLETE == IOTRACE_RF_COMPLETE &&
	       IOTRACE_REC_ERROR == IOTRACE_RF_ERROR &&
	       IOTRACE_REC_TIMEOUT == IOTRACE_RF_TIMEOUT &&
	       IOTRACE_REC_REQUEUED == IOTRACE_RF_REQUEUED &&
	       IOTRACE_REC_PASSTHRU == IOTRACE_RF_PASSTHRU &&
	       IOTRACE_REC_CMD_VALID == IOTRACE_RF_CMD_VALID &&
	       IOTRACE_REC_CMD_TRUNC == IOTRACE_RF_CMD_TRUNC &&
	       IOTRACE_REC_NO_ISSUE == IOTRACE_RF_NO_ISSUE &&
	       IOTRACE_REC_QUEUE_VALID == IOTRACE_RF_QUEUE_VALID &&
	       IOTRACE_REC_STATUS_VALID == IOTRACE_RF_STATUS_VALID &&
	       IOTRACE_REC_ADMIN == IOTRACE_RF_ADMIN &&
	       IOTRACE_REC_QUEUE_SAT == IOTRACE_RF_QUEUE_SAT &&
	       IOTRACE_REC_PREFLUSH == IOTRACE_RF_PREFLUSH &&
	       IOTRACE_REC_POSTFLUSH == IOTRACE_RF_POSTFLUSH &&
	       IOTRACE_REC_KERNEL == IOTRACE_RF_KERNEL &&
	       IOTRACE_REC_TRIGGER == IOTRACE_RF_TRIGGER,
	       "libiotrace.h: record flags differ from the ABI's");
_Static_assert(IOTRACE_REC_CMD_NONE == IOTRACE_CMD_NONE &&
	       IOTRACE_REC_CMD_NVME == IOTRACE_CMD_NVME &&
	       IOTRACE_REC_CMD_SCSI == IOTRACE_CMD_SCSI &&
	       IOTRACE_REC_CMD_ATA == IOTRACE_CMD_ATA &&
	       IOTRACE_REC_CMD_LEN == IOTRACE_CMD_LEN,
	       "libiotrace.h: command types differ from the ABI's");
_Static_assert(IOTRACE_DISK_NAME_SIZE == IOTRACE_NAME_LEN + 1 &&
	       IOTRACE_DISK_ID_SIZE == IOTRACE_FILE_ID_LEN &&
	       IOTRACE_INFO_STR_SIZE == IOTRACE_FILE_STR_LEN + 1,
	       "libiotrace.h: string sizes differ from the ABI's");

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
 * @late: per disk, records the last foreach handed out late.
 * @err: the last failure's message.
 * @warn: what a salvaged trace file is missing.
 */
struct iotrace_source {
	struct iot_src src;
	int open;
	struct iot_comms comms;
	struct iotrace_disk *disks;
	uint64_t *late;
	char err[IOT_ERR_LEN];
	char warn[IOT_ERR_LEN];
};

struct iotrace_source *iotrace_source_new(void)
{
	struct iotrace_source *h = calloc(1, sizeof(*h));

	if (h)
		h->src.fd = -1;
	return h;
}

void iotrace_source_close(struct iotrace_source *h)
{
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

/*
 * The disk table of the source just opened: the reader's, with the
 * model, serial number and WWN the trigger chunks of a snapshot give.
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
		if (t[i].model[0])
			api_str(o->model, t[i].model, IOTRACE_FILE_ID_LEN - 1);
		if (t[i].serial[0])
			api_str(o->serial, t[i].serial,
				IOTRACE_FILE_ID_LEN - 1);
		if (t[i].wwn[0])
			api_str(o->wwn, t[i].wwn, IOTRACE_FILE_ID_LEN - 1);
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
	if (h->src.is_file)
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
	int (*cmp)(const void *, const void *);
	struct iot_win win;
	int windowed;
	struct xrec *v;
	size_t n, cap;
	struct xrec last;
	int started;
};

/* hand @e to the caller: 1 when it stops */
static int walk_hand(struct api_walk *w, const struct xrec *e)
{
	struct iotrace_rec rec;
	int ret;

	if (w->cmp) {
		if (w->started && w->cmp(e, &w->last) < 0 &&
		    e->disk < w->h->src.nr_disks)
			w->h->late[e->disk]++;
		w->last = *e;
		w->started = 1;
	}
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

int iotrace_source_foreach(struct iotrace_source *h, int order,
			   iotrace_rec_fn fn, void *arg)
{
	struct api_walk w;
	const struct xrec *e;
	size_t i;
	int ret;

	if (api_closed(h))
		return -1;
	if (order < IOTRACE_ORDER_COMPLETE || order > IOTRACE_ORDER_STORED ||
	    !fn) {
		snprintf(h->err, sizeof(h->err), "%s", fn ?
			 "no such order: IOTRACE_ORDER_COMPLETE, _START or _STORED" :
			 "no function to call");
		return -1;
	}
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
