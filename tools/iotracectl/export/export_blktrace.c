// SPDX-License-Identifier: GPL-2.0
/*
 * export -f blktrace: per-CPU files in blktrace's binary format
 * (struct blk_io_trace of the kernel's include/uapi/linux/blktrace_api.h,
 * version 7), which blkparse and btt read unmodified.
 *
 * Each record becomes up to three events: Q (queue entry: issue time -
 * queue_ns, or the issue time when the record has no queue time) and D
 * (issue) on the issuing CPU, C (completion) on the completing CPU.  Passthrough requests are "pc"
 * events whose payload is the captured command (CDB, NVMe SQE, taskfile).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "export.h"

/* From include/uapi/linux/blktrace_api.h (the format's specification). */
#define BT_MAGIC	0x65617400u
#define BT_VERSION	0x07u
#define BT_TC_READ	(1u << 0)
#define BT_TC_WRITE	(1u << 1)
#define BT_TC_FLUSH	(1u << 2)
#define BT_TC_SYNC	(1u << 3)
#define BT_TC_QUEUE	(1u << 4)
#define BT_TC_ISSUE	(1u << 6)
#define BT_TC_COMPLETE	(1u << 7)
#define BT_TC_FS	(1u << 8)
#define BT_TC_PC	(1u << 9)
#define BT_TC_AHEAD	(1u << 11)
#define BT_TC_META	(1u << 12)
#define BT_TC_DISCARD	(1u << 13)
#define BT_TC_FUA	(1u << 15)
#define BT_ACT(c)	((c) << 16)
#define BT_TA_QUEUE	(1u | BT_ACT(BT_TC_QUEUE))
#define BT_TA_ISSUE	(7u | BT_ACT(BT_TC_ISSUE))
#define BT_TA_COMPLETE	(8u | BT_ACT(BT_TC_COMPLETE))
#define BT_TC_NOTIFY	(1u << 10)
#define BT_TN_PROCESS	(0u | BT_ACT(BT_TC_NOTIFY))

/**
 * struct bt_trace - struct blk_io_trace, 48 bytes, host byte order (blkparse
 * tells the byte order from @magic).
 * @magic: BT_MAGIC | BT_VERSION.
 * @sequence: event number, per CPU file, from 1.
 * @time: ns since the first event.
 * @sector: start sector (512 bytes).
 * @bytes: bytes.
 * @action: category bits << 16 | action.
 * @pid: the submitter's thread group id (0: the kernel's own I/O, or
 *	unknown).
 * @device: the kernel's dev_t encoding, major << 20 | minor.
 * @cpu: CPU.
 * @error: positive errno of a completion.
 * @pdu_len: payload bytes after this header.
 */
struct bt_trace {
	uint32_t magic, sequence;
	uint64_t time, sector;
	uint32_t bytes, action, pid, device, cpu;
	uint16_t error, pdu_len;
};

_Static_assert(sizeof(struct bt_trace) == 48, "struct blk_io_trace is 48 bytes");

/* Category bits of a record (what the kernel's blktrace sets for it). */
static uint32_t bt_cat(const struct iotrace_record *r)
{
	uint32_t c = r->rflags & IOTRACE_RF_PASSTHRU ? BT_TC_PC : BT_TC_FS;

	switch (r->op) {
	case IOTRACE_OP_READ:
	case IOTRACE_OP_DRV_IN:
		c |= BT_TC_READ;
		break;
	case IOTRACE_OP_FLUSH:
		c |= BT_TC_FLUSH;
		break;
	case IOTRACE_OP_DISCARD:
	case IOTRACE_OP_SECURE_ERASE:
		c |= BT_TC_DISCARD | BT_TC_WRITE;
		break;
	default:
		c |= BT_TC_WRITE;
		break;
	}
	if (r->opflags & IOTRACE_OPF_SYNC)
		c |= BT_TC_SYNC;
	if (r->opflags & IOTRACE_OPF_META)
		c |= BT_TC_META;
	if (r->opflags & IOTRACE_OPF_RAHEAD)
		c |= BT_TC_AHEAD;
	if (r->opflags & IOTRACE_OPF_FUA)
		c |= BT_TC_FUA;
	if (r->opflags & IOTRACE_OPF_PREFLUSH)
		c |= BT_TC_FLUSH;
	return c;
}

/**
 * struct bt_ev - what an event to write has besides its time and sequence
 * number: the last 32 bytes of its struct bt_trace as they are written,
 * copied to the file's block as they are (no struct made on the stack
 * first, whose copy waited on the stores that had made it).  16,384 and
 * more of them wait, and the fewer cache lines they take, the fewer are
 * read from memory when they are written.
 * @sector: &bt_trace.sector.
 * @bytes: &bt_trace.bytes.
 * @action: &bt_trace.action.
 * @pid: &bt_trace.pid.
 * @device: &bt_trace.device.
 * @cpu: &bt_trace.cpu, its CPU file.
 * @error: &bt_trace.error.
 * @pdu_len: &bt_trace.pdu_len: that many bytes of its slot in
 *	&bt_ctx.pdu are its payload.
 */
struct bt_ev {
	uint64_t sector;
	uint32_t bytes, action, pid, device, cpu;
	uint16_t error, pdu_len;
};

_Static_assert(sizeof(struct bt_ev) == 32, "an event's body is 32 bytes");
_Static_assert(offsetof(struct bt_trace, sector) + sizeof(struct bt_ev) ==
	       sizeof(struct bt_trace), "the body ends struct blk_io_trace");

/**
 * struct bt_key - a waiting event's order, 16 bytes: an entry of the Q and
 * D FIFOs (and, as key and aux, of the buckets and the heap).
 * @time: CLOCK_MONOTONIC ns.
 * @rk: (index of the record in start order << 2 | kind (0 Q, 1 D, 2 C:
 *	the order of a record's events at the same time)) << BT_SLOT_BITS |
 *	its slot in &bt_ctx.ev; unique, so (@time, @rk) orders events as
 *	(time, record, kind) does.
 */
struct bt_key {
	uint64_t time, rk;
};

#define BT_SLOT_BITS	24
#define BT_SLOT(k)	((uint32_t)((k)->rk & ((1u << BT_SLOT_BITS) - 1)))

/*
 * Events wait, ordered by (time, record, kind), until no later
 * record can bring an earlier one: the next record starts no earlier than
 * the current one, its queue entry no earlier than that start minus the
 * longest queue time seen -- and, as that longest time may still grow,
 * not before BT_EVMIN events wait.  Beyond BT_EVCAP waiting events the
 * earliest goes anyway (counted if a later record brings an earlier one
 * to its CPU).
 */
#define BT_EVMIN	16384
#define BT_EVCAP	(1u << 17)

/**
 * struct bt_ctx - the streaming blktrace export.
 * @prefix: path prefix of the files.
 * @out: per CPU file, the events not yet written to it (BT_BUF bytes,
 *	allocated with its first event).  No file is held open: a block is
 *	appended to its file, opened and closed again (a CPU file each
 *	would take more descriptors than a process may have, on a host of
 *	a thousand CPUs).
 * @seq: their last sequence numbers.
 * @nr_cpus: CPU files made, 0 .. @nr_cpus - 1.
 * @t0: time of the earliest event (0 in the files): the first written.
 * @started: @t0 is set (an event was written).
 * @qmax: longest queue time of a record seen.
 * @bq: the waiting completions, which come in start order (and the Q
 *	and D events that come out of order for their FIFO), in time
 *	buckets (bq.c): a completion comes up to the window's 16,384
 *	records late, so that the sorted runs of @pq were too many for its
 *	heap to stay small (a fifth of the export's CPU).
 * @pq: the other waiting events (pq.c: sorted runs, their first events
 *	in a heap): those @bq does not take.
 * @q: the FIFOs of the Q and D events in order (the D of records in
 *	start order are, most Q are): a ring of @cap keys each, from
 *	@qhead, @qn in it.
 * @ev: their bodies.
 * @pdu: their payloads (passthrough commands), by slot.
 * @used: per slot of @ev, whether it holds a waiting event.
 * @n: events waiting.
 * @cap: allocated.
 * @next: where the search for a free slot starts: slots are taken in
 *	turn round the array (skipping those still waiting), so that events
 *	that go at about the same time are near each other in memory.
 * @nused: slots in use (at most half of @cap, else it doubles).
 * @last: per CPU, the last event written, its (time, record, kind).
 * @ooo: events written after a later one of their CPU.
 * @err: a write failed (reported).
 * @badcpu: records left out for a CPU their disk's ring does not have.
 * @badcpu_max: the highest such CPU.
 * @badcpu_disk: its disk.
 * @named: the (CPU, pid) pairs named in a CPU file already (bt_named()).
 * @named_cap: its slots.
 * @named_n: slots used.
 */
struct bt_ctx {
	const char *prefix;
	struct bt_out *out;
	uint32_t *seq;
	uint32_t nr_cpus;
	uint64_t t0, qmax;
	int started;
	struct iot_bq bq;
	struct iot_pq pq;
	struct bt_key *q[2];
	size_t qhead[2], qn[2];
	struct bt_ev *ev;
	uint8_t (*pdu)[IOTRACE_CMD_LEN];
	uint8_t *used;
	size_t n, cap, next, nused;
	struct bt_key *last;
	int err;
	uint64_t ooo, badcpu;
	uint32_t badcpu_max, badcpu_disk;
	uint64_t *named;
	size_t named_cap, named_n;
};

static void bt_path(const struct bt_ctx *c, uint32_t cpu, char *path,
		    size_t len)
{
	snprintf(path, len, "%s.blktrace.%u", c->prefix, cpu);
}

/* the events of a CPU file are written in blocks of this size */
#define BT_BUF		(64 * 1024)

/**
 * struct bt_out - the events of a CPU file not yet written.
 * @buf: BT_BUF bytes, NULL until the first event.
 * @len: bytes in @buf.
 * @pid: the submitter of its last event (0: none yet): named in the file
 *	already, no lookup for the next of the same.
 */
struct bt_out {
	char *buf;
	size_t len;
	uint32_t pid;
};

/* @n bytes at @p to @fd: 0, or the errno of the write that failed */
static int bt_write(int fd, const char *p, size_t n)
{
	ssize_t r;

	while (n) {
		r = write(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 && errno ? errno : EIO;
		p += r;
		n -= r;
	}
	return 0;
}

/*
 * the events of @cpu gathered so far to the end of its file (after a
 * failed write, which was said, they go nowhere: the export fails)
 */
static void bt_flush(struct bt_ctx *c, uint32_t cpu)
{
	struct bt_out *o = &c->out[cpu];
	char path[4096];
	int fd, e;

	if (!o->len || c->err) {
		o->len = 0;
		return;
	}
	bt_path(c, cpu, path, sizeof(path));
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	e = fd < 0 ? errno : bt_write(fd, o->buf, o->len);
	if (fd >= 0 && close(fd) && !e)
		e = errno;
	if (e) {
		iot_write_error(path, e);
		c->err = 1;
	}
	o->len = 0;
}

/*
 * @n bytes (at most BT_BUF) at the end of the block of @cpu, for the
 * caller to fill; NULL when out of memory (said once)
 */
static inline char *bt_room(struct bt_ctx *c, uint32_t cpu, size_t n)
{
	struct bt_out *o = &c->out[cpu];
	char *p;

	if (!o->buf) {
		o->buf = malloc(BT_BUF);
		if (!o->buf) {
			if (!c->err)
				iot_err("out of memory");
			c->err = 1;
			return NULL;
		}
	}
	if (BT_BUF - o->len < n)
		bt_flush(c, cpu);
	p = o->buf + o->len;
	o->len += n;
	return p;
}

/* @n bytes at @p to the file of @cpu, in its block */
static inline void bt_put(struct bt_ctx *c, uint32_t cpu, const void *p,
			  size_t n)
{
	char *d = bt_room(c, cpu, n);

	if (d)
		memcpy(d, p, n);
}

/*
 * Whether (@cpu, @pid) is named in that CPU's file already; if not, it is
 * from now on (0), or -1 when out of memory.
 */
static int bt_named(struct bt_ctx *c, uint32_t cpu, uint32_t pid)
{
	uint64_t key = (uint64_t)cpu << 32 | pid;
	size_t i;

	if ((c->named_n + 1) * 2 > c->named_cap) {
		size_t cap = c->named_cap ? c->named_cap * 2 : 256, j;
		uint64_t *v = calloc(cap, sizeof(*v));

		if (!v)
			return -1;
		for (j = 0; j < c->named_cap; j++) {
			uint64_t k = c->named[j];

			if (!k)
				continue;
			for (i = (k * 0x9e3779b97f4a7c15ull >> 24) & (cap - 1);
			     v[i]; i = (i + 1) & (cap - 1))
				;
			v[i] = k;
		}
		free(c->named);
		c->named = v;
		c->named_cap = cap;
	}
	for (i = (key * 0x9e3779b97f4a7c15ull >> 24) & (c->named_cap - 1);
	     c->named[i]; i = (i + 1) & (c->named_cap - 1))
		if (c->named[i] == key)
			return 1;
	c->named[i] = key;
	c->named_n++;
	return 0;
}

/*
 * A process notify event: blkparse names the events of @pid with @comm
 * from then on (it handles notifies as it reads them, so this goes into
 * the CPU file before the first event of the pid there).
 */
static void bt_notify_comm(struct bt_ctx *c, uint32_t device, uint32_t cpu,
			   uint32_t pid, const char *name)
{
	struct bt_trace t = {
		.magic = BT_MAGIC | BT_VERSION,
		.action = BT_TN_PROCESS,
		.pid = pid,
		.device = device,
		.cpu = cpu,
		.pdu_len = 16,
	};
	char comm[16] = { 0 };

	/* at most 15 bytes of @name, the rest NULs */
	memcpy(comm, name, strnlen(name, sizeof(comm) - 1));
	bt_put(c, cpu, &t, sizeof(t));
	bt_put(c, cpu, comm, sizeof(comm));
}

static inline int ev_less(const struct bt_key *x, const struct bt_key *y)
{
	return x->time < y->time || (x->time == y->time && x->rk < y->rk);
}

static size_t bt_waiting(const struct bt_ctx *c)
{
	return c->pq.count + c->qn[0] + c->qn[1] + c->bq.count;
}

/* two events of the same time: by record and kind */
static int bt_tie(void *arg, const struct iot_pq_ent *a,
		  const struct iot_pq_ent *b)
{
	(void)arg;
	return a->aux < b->aux;
}

/* two events of the same time in the buckets: by record and kind */
static int bt_btie(void *arg, uint32_t a, uint32_t b)
{
	const struct bt_ctx *c = arg;

	return c->bq.node[a].aux < c->bq.node[b].aux;
}

/*
 * the earliest waiting event (one is waiting) into *@best; *@from the
 * FIFO it is the first of, 2 for @bq, -1 for @pq
 */
static __always_inline void bt_first(struct bt_ctx *c, struct bt_key *best,
				     int *from)
{
	const struct bt_key *b = NULL;
	struct bt_key t, u;
	int k;

	*from = -1;
	if (c->pq.count) {
		t.time = iot_pq_top(&c->pq)->key;
		t.rk = iot_pq_top(&c->pq)->aux;
		b = &t;
	}
	for (k = 0; k < 2; k++)
		if (c->qn[k] && (!b || ev_less(&c->q[k][c->qhead[k]], b))) {
			b = &c->q[k][c->qhead[k]];
			*from = k;
		}
	if (c->bq.count) {
		uint32_t f = iot_bq_first(&c->bq);

		u.time = c->bq.node[f].key;
		u.rk = c->bq.node[f].aux;
		if (!b || ev_less(&u, b)) {
			b = &u;
			*from = 2;
		}
	}
	*best = *b;
}

/*
 * The bodies of the events that can go next from the heap and the FIFOs
 * into the cache: an event waits among 16,384 or more and leaves in time
 * order, unrelated to the order of the slots, and would be read from
 * memory when it is written.
 */
static __always_inline void
bt_prefetch(const struct bt_ctx *c)
{
	int k;

	if (c->pq.count)
		__builtin_prefetch(&c->ev[iot_pq_top(&c->pq)->slot]);
	for (k = 0; k < 2; k++)
		if (c->qn[k])
			__builtin_prefetch(&c->ev[BT_SLOT(&c->q[k][c->qhead[k]])]);
}

/* the earliest waiting event, @best (from bt_first()), into its CPU file */
static void bt_write_first(struct bt_ctx *c, const struct bt_key *best,
			   int from)
{
	struct bt_key top;
	struct bt_ev *ev;
	struct bt_out *o;
	uint32_t cpu, slot, magic, seq;
	uint64_t time;
	char *d;

	top = *best;
	slot = BT_SLOT(&top);
	ev = &c->ev[slot];
	cpu = ev->cpu;
	o = &c->out[cpu];

	if (__builtin_expect(!c->started, 0)) {
		c->t0 = top.time;
		c->started = 1;
	}
	if (c->seq[cpu] && ev_less(&top, &c->last[cpu]))
		c->ooo++;
	c->last[cpu] = top;
	if (!c->seq[cpu]) {
		/*
		 * Requests without a known submitter (the kernel's own, or
		 * a kernel without the hook) have pid 0: name it "iotrace"
		 * (a notify event, which blkparse does not count in the
		 * sequence) rather than leave blkparse printing "(null)".
		 */
		bt_notify_comm(c, ev->device, cpu, 0, "iotrace");
	}
	if (ev->pid && ev->pid != o->pid) {
		int named = bt_named(c, cpu, ev->pid);

		/* a pid the kernel noted no name of: "-", not "(null)" */
		if (!named) {
			const char *comm = iot_comm_get(ev->pid);

			bt_notify_comm(c, ev->device, cpu, ev->pid,
				       comm ? comm : "-");
		} else if (named < 0 && !c->err) {
			iot_err("out of memory");
			c->err = 1;
		}
		o->pid = ev->pid;
	}
	magic = BT_MAGIC | BT_VERSION;
	seq = ++c->seq[cpu];
	/* (an event written out of order may be earlier than the first) */
	time = top.time > c->t0 ? top.time - c->t0 : 0;
	/* the event and its payload in one piece of the block */
	d = bt_room(c, cpu, sizeof(struct bt_trace) + ev->pdu_len);
	if (d) {
		memcpy(d + offsetof(struct bt_trace, magic), &magic,
		       sizeof(magic));
		memcpy(d + offsetof(struct bt_trace, sequence), &seq,
		       sizeof(seq));
		memcpy(d + offsetof(struct bt_trace, time), &time,
		       sizeof(time));
		memcpy(d + offsetof(struct bt_trace, sector), ev, sizeof(*ev));
		if (ev->pdu_len)
			memcpy(d + sizeof(struct bt_trace), c->pdu[slot],
			       ev->pdu_len);
	}
	c->used[slot] = 0;
	c->nused--;
	iot_bq_left(&c->bq, top.time);
	if (from == 2) {
		iot_bq_pop(&c->bq, slot);
		bt_prefetch(c);
		return;
	}
	if (from >= 0) {
		c->qhead[from] = (c->qhead[from] + 1) & (c->cap - 1);
		c->qn[from]--;
		bt_prefetch(c);
		return;
	}
	iot_pq_pop(&c->pq);
	bt_prefetch(c);
}

/* the earliest waiting event into its CPU file */
static void bt_pop_write(struct bt_ctx *c)
{
	struct bt_key best;
	int from;

	bt_first(c, &best, &from);
	bt_write_first(c, &best, from);
}

/*
 * What the events of record @e have in common, made once for the two or
 * three of them (bt_push() sets the CPU, the action and the error)
 */
static void bt_proto(const struct xset *x, const struct xrec *e,
		     struct bt_ev *p)
{
	const struct iotrace_record *r = &e->r;
	const struct iot_disk *d = &x->src.disks[e->disk];

	memset(p, 0, sizeof(*p));
	/* no media address (a flush): sector 0, as blktrace has it */
	p->sector = r->sector == UINT64_MAX ? 0 : r->sector;
	p->bytes = r->bytes;
	p->action = bt_cat(r) << 16;
	p->pid = r->pid;
	p->device = (d->dev_major << 20) | (d->dev_minor & 0xfffff);
	if ((r->rflags & IOTRACE_RF_PASSTHRU) &&
	    (r->rflags & IOTRACE_RF_CMD_VALID))
		p->pdu_len = r->cmd_len > IOTRACE_CMD_LEN ?
			     IOTRACE_CMD_LEN : r->cmd_len;
}

/* the actions of a record's events, by kind (Q, D, C) */
static const uint32_t bt_act[3] = { BT_TA_QUEUE, BT_TA_ISSUE, BT_TA_COMPLETE };

static int bt_push(struct bt_ctx *c, const struct iotrace_record *r,
		   const struct bt_ev *proto, size_t rec, uint64_t time,
		   uint32_t cpu, uint32_t kind)
{
	struct bt_key k = { .time = time };
	struct bt_ev *ev;

	if (2 * (c->nused + 1) > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024, j;
		struct bt_ev *v = NULL;
		uint8_t (*pdu)[IOTRACE_CMD_LEN];
		uint8_t *f;

		if (cap <= (1u << BT_SLOT_BITS) &&
		    !iot_pq_reserve(&c->pq, cap) &&
		    !iot_bq_reserve(&c->bq, cap))
			v = realloc(c->ev, cap * sizeof(*v));
		if (v)
			c->ev = v;
		pdu = v ? realloc(c->pdu, cap * sizeof(*pdu)) : NULL;
		if (pdu)
			c->pdu = pdu;
		f = pdu ? realloc(c->used, cap * sizeof(*f)) : NULL;
		if (!f) {
			iot_err("out of memory");
			return 1;
		}
		memset(f + c->cap, 0, cap - c->cap);
		c->used = f;
		for (j = 0; j < 2; j++) {
			/* the ring doubles: its wrapped part moves up */
			struct bt_key *q = realloc(c->q[j], cap * sizeof(*q));
			size_t m;

			if (!q) {
				iot_err("out of memory");
				return 1;
			}
			for (m = 0; m < c->qn[j]; m++)
				if (c->qhead[j] + m >= c->cap)
					q[c->qhead[j] + m] =
						q[c->qhead[j] + m - c->cap];
			c->q[j] = q;
		}
		c->next = c->cap;
		c->cap = cap;
	}
	while (c->used[c->next])
		c->next = (c->next + 1) & (c->cap - 1);
	k.rk = ((uint64_t)rec << 2 | kind) << BT_SLOT_BITS | c->next;
	c->used[c->next] = 1;
	c->nused++;
	c->next = (c->next + 1) & (c->cap - 1);
	if (kind < 2 && (!c->qn[kind] ||
			 !ev_less(&k, &c->q[kind][(c->qhead[kind] +
						    c->qn[kind] - 1) &
						   (c->cap - 1)]))) {
		c->q[kind][(c->qhead[kind] + c->qn[kind]++) & (c->cap - 1)] = k;
		goto body;
	}
	if (iot_bq_push(&c->bq, BT_SLOT(&k), k.time, k.rk))
		iot_pq_push(&c->pq, BT_SLOT(&k), k.time, k.rk);
body:
	ev = &c->ev[BT_SLOT(&k)];
	*ev = *proto;
	ev->cpu = cpu;
	ev->action |= bt_act[kind];
	if (kind == 2)
		ev->error = (uint16_t)(r->error < 0 ? -r->error : 0);
	if (!kind)	/* a queue event has no command */
		ev->pdu_len = 0;
	else if (ev->pdu_len)
		memcpy(c->pdu[BT_SLOT(&k)], r->cmd, ev->pdu_len);
	return 0;
}

/*
 * The files of CPUs 0 .. @n - 1 created (or emptied), those not made yet
 * (empty ones below the highest CPU with an event: blkparse stops at a
 * missing one), and closed.
 */
static int bt_files(struct bt_ctx *c, uint32_t n)
{
	struct bt_out *out;
	uint32_t *seq;
	struct bt_key *last;
	char path[4096];
	int fd;

	if (n <= c->nr_cpus)
		return 0;
	out = realloc(c->out, n * sizeof(*out));
	if (out)
		c->out = out;
	seq = out ? realloc(c->seq, n * sizeof(*seq)) : NULL;
	if (seq)
		c->seq = seq;
	last = seq ? realloc(c->last, n * sizeof(*last)) : NULL;
	if (!last) {
		iot_err("out of memory");
		return 1;
	}
	c->last = last;
	for (; c->nr_cpus < n; c->nr_cpus++) {
		bt_path(c, c->nr_cpus, path, sizeof(path));
		c->seq[c->nr_cpus] = 0;
		c->out[c->nr_cpus].buf = NULL;
		c->out[c->nr_cpus].len = 0;
		c->out[c->nr_cpus].pid = 0;
		fd = iot_out_open(path);
		if (fd < 0)
			return 1;	/* said */
		if (close(fd)) {
			iot_write_error(path, errno);
			return 1;
		}
	}
	return 0;
}

/*
 * The files an export that failed made (or emptied): removed, so that no
 * part of it is read as a whole.  A device or a symbolic link of that
 * name was not made by it and stays.
 */
static void bt_remove(struct bt_ctx *c)
{
	char path[4096];
	struct stat st;
	uint32_t cpu;

	for (cpu = 0; cpu < c->nr_cpus; cpu++) {
		bt_path(c, cpu, path, sizeof(path));
		if (!lstat(path, &st) && S_ISREG(st.st_mode) && unlink(path))
			iot_err("cannot remove %s: %s", path, strerror(errno));
	}
}

/*
 * The CPU files of an earlier export into the same prefix, past the
 * @c->nr_cpus written now, removed: blkparse reads PREFIX.blktrace.N for
 * every N up to the first missing one, and would take theirs as part of
 * this export's.  Only names PREFIX.blktrace.N with N as blkparse makes
 * it ("%d": digits, no leading zero) are touched, and not the input.
 * Return: 0, or 1 after saying which could not be removed.
 */
static int bt_remove_stale(const struct bt_ctx *c)
{
	const char *slash = strrchr(c->prefix, '/');
	const char *base = slash ? slash + 1 : c->prefix, *p;
	size_t blen = strlen(base);
	char dir[4096];
	struct dirent *de;
	struct stat st;
	uint64_t n;
	DIR *d;
	int rc = 0;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == c->prefix)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - c->prefix),
			 c->prefix);
	d = opendir(dir);
	if (!d) {
		iot_err("cannot read %s for the CPU files of an earlier export: %s",
			dir, strerror(errno));
		return 1;
	}
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, base, blen) ||
		    strncmp(de->d_name + blen, ".blktrace.", 10))
			continue;
		p = de->d_name + blen + 10;
		if (!*p || (*p == '0' && p[1]) || strspn(p, "0123456789") !=
		    strlen(p))
			continue;
		/* more digits than a u32 has: past any CPU written */
		for (n = 0; *p && n < ((uint64_t)1 << 32); p++)
			n = n * 10 + (uint64_t)(*p - '0');
		if (n < c->nr_cpus)
			continue;
		if (!fstatat(dirfd(d), de->d_name, &st, 0) &&
		    iot_src_input(&st)) {
			iot_err("%s/%s, a name of this export's CPU files, is the input: not removed",
				dir, de->d_name);
			continue;
		}
		if (unlinkat(dirfd(d), de->d_name, 0) && errno != ENOENT) {
			iot_err("cannot remove %s/%s, a CPU file of an earlier export that blkparse would read with these: %s",
				dir, de->d_name, strerror(errno));
			rc = 1;
		}
	}
	closedir(d);
	return rc;
}

static int bt_rec(struct xstream *xs, const struct xrec *e, size_t i)
{
	struct bt_ctx *c = xs->arg;
	const struct iotrace_record *r = &e->r;
	uint64_t start = xrec_start(r);
	uint32_t maxcpu = 0;
	struct bt_ev proto;

	if (!(r->rflags & IOTRACE_RF_NO_ISSUE))
		maxcpu = r->issue_cpu;
	if ((r->rflags & IOTRACE_RF_COMPLETE) && r->complete_cpu > maxcpu)
		maxcpu = r->complete_cpu;
	/*
	 * A CPU the ring does not have (its parts are the kernel's possible
	 * CPUs, nr_cpu_ids): a damaged record, left out, not a file for
	 * each CPU up to it (65,536 for 0xffff).
	 */
	if (maxcpu >= xs->x.src.disks[e->disk].nr_parts) {
		if (!c->badcpu || maxcpu > c->badcpu_max) {
			c->badcpu_max = maxcpu;
			c->badcpu_disk = e->disk;
		}
		c->badcpu++;
		return 0;
	}
	if (bt_files(c, maxcpu + 1))
		return 1;
	bt_proto(&xs->x, e, &proto);
	if (!(r->rflags & IOTRACE_RF_NO_ISSUE)) {
		uint64_t q = r->issue_ns;

		/*
		 * btt follows a request from its Q: one without a queue time
		 * is queued at its issue (Q2D 0), so btt counts every request
		 */
		if ((r->rflags & IOTRACE_RF_QUEUE_VALID) &&
		    r->issue_ns >= r->queue_ns) {
			if (r->queue_ns > c->qmax)
				c->qmax = r->queue_ns;
			q = r->issue_ns - r->queue_ns;
		}
		if (bt_push(c, r, &proto, i, q, r->issue_cpu, 0))
			return 1;
		if (bt_push(c, r, &proto, i, r->issue_ns, r->issue_cpu, 1))
			return 1;
	}
	if ((r->rflags & IOTRACE_RF_COMPLETE) &&
	    bt_push(c, r, &proto, i, r->complete_ns, r->complete_cpu, 2))
		return 1;
	/* what no later record can precede goes */
	for (;;) {
		size_t n = bt_waiting(c);
		struct bt_key f;
		int from;

		if (n <= BT_EVMIN)
			break;
		if (n <= BT_EVCAP && start < c->qmax)
			break;
		bt_first(c, &f, &from);
		if (n <= BT_EVCAP && f.time > start - c->qmax)
			break;
		bt_write_first(c, &f, from);
	}
	return c->err;
}

/* The records left out for a CPU their disk has not (the disk as text). */
static void bt_say_badcpu(const struct xstream *xs, const struct bt_ctx *c)
{
	const struct iot_disk *d = &xs->x.src.disks[c->badcpu_disk];
	char text[IOT_TEXT_ROOM(IOTRACE_NAME_LEN)];

	fprintf(stderr,
		"iotracectl: %s: %llu record%s a CPU its disk's ring does not have (CPU %u of %s's %u): left out (%s)\n",
		xs->label, (unsigned long long)c->badcpu,
		c->badcpu == 1 ? " names" : "s name", c->badcpu_max,
		iot_text_str(text, sizeof(text), d->name), d->nr_parts,
		c->badcpu == 1 ? "a damaged record" : "damaged records");
}

/**
 * export_blktrace() - write PREFIX.blktrace.<cpu> for CPUs 0 .. the highest
 * one that has an event (empty files for the others: blkparse stops at the
 * first missing CPU file).
 * @xs: the records, streamed in start order.
 * @prefix: path prefix of the files.
 *
 * One pass: the events of each CPU go to its file in time order through
 * queues of the events still to come (two FIFOs, time buckets, a heap),
 * in bounded memory.  The first event written is the earliest (time 0 of
 * the files), and a CPU's file is made with the first record that has an
 * event on it or on a higher CPU (no first pass over the records to find
 * either).  A record of a CPU beyond its disk's ring's CPUs is left out
 * (counted, said).  The CPU files of an earlier export past those written
 * are removed; when the export fails, the files it made are.
 *
 * Return: 0, or 1 after printing what failed.
 */
int export_blktrace(struct xstream *xs, const char *prefix)
{
	struct bt_ctx c = { .prefix = prefix };
	uint32_t cpu;
	int rc = 1;

	iot_pq_init(&c.pq, bt_tie, NULL);
	if (iot_bq_init(&c.bq, bt_btie, &c, &c.pq)) {
		iot_err("out of memory");
		goto out;
	}
	/* CPU 0's file even when no record has an event */
	if (bt_files(&c, 1))
		goto out;
	if (xstream_run(xs, bt_rec, &c))
		goto out;
	while (bt_waiting(&c) && !c.err)
		bt_pop_write(&c);
	if (c.err)
		goto out;
	for (cpu = 0; cpu < c.nr_cpus; cpu++)
		bt_flush(&c, cpu);
	if (c.err || bt_remove_stale(&c))
		goto out;
	if (c.ooo)
		fprintf(stderr,
			"iotracectl: %s: %llu events came after a later one (a request more than %u records late in the file, or a queue time longer than those before it) and were written out of order: btt leaves their requests out of D2C and Q2C\n",
			xs->label, (unsigned long long)c.ooo, XWINDOW);
	if (c.badcpu)
		bt_say_badcpu(xs, &c);
	rc = 0;
out:
	if (rc)
		bt_remove(&c);
	for (cpu = 0; cpu < c.nr_cpus; cpu++)
		free(c.out[cpu].buf);
	free(c.out);
	free(c.seq);
	free(c.last);
	free(c.named);
	iot_pq_free(&c.pq);
	free(c.q[0]);
	free(c.q[1]);
	free(c.ev);
	free(c.pdu);
	free(c.used);
	iot_bq_free(&c.bq);
	return rc;
}
