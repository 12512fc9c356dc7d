// SPDX-License-Identifier: GPL-2.0
/*
 * export -f blktrace: per-CPU files in blktrace's binary format
 * (struct blk_io_trace of the kernel's include/uapi/linux/blktrace_api.h,
 * version 7), which blkparse and btt read unmodified.
 *
 * Each record becomes up to three events: Q (queue entry, when the record
 * has it: issue time - queue_ns) and D (issue) on the issuing CPU, C
 * (completion) on the completing CPU.  Passthrough requests are "pc"
 * events whose payload is the captured command (CDB, NVMe SQE, taskfile).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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
 * @pid: process (0: iotrace does not know it).
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

/**
 * struct bt_ev - one event to write.
 * @time: CLOCK_MONOTONIC ns.
 * @rec: index of the record.
 * @cpu: CPU file.
 * @kind: 0 Q, 1 D, 2 C (order of events at the same time).
 */
struct bt_ev {
	uint64_t time;
	size_t rec;
	uint32_t cpu;
	uint32_t kind;
};

static int cmp_ev(const void *a, const void *b)
{
	const struct bt_ev *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->rec != y->rec)
		return x->rec < y->rec ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

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

static int write_cpu(const struct xset *x, const char *prefix, uint32_t cpu,
		     const struct bt_ev *ev, size_t nev, uint64_t t0)
{
	char path[4096];
	uint32_t seq = 0;
	FILE *fp;
	size_t i;

	snprintf(path, sizeof(path), "%s.blktrace.%u", prefix, cpu);
	fp = fopen(path, "wb");
	if (!fp) {
		iot_err("cannot create %s: %s", path, strerror(errno));
		return 1;
	}
	/*
	 * iotrace does not know the process: name pid 0 "iotrace" (a notify
	 * event, which blkparse does not count in the sequence) rather than
	 * leave blkparse printing "(null)".
	 */
	if (nev) {
		const struct iot_disk *d = &x->src.disks[x->v[ev[0].rec].disk];
		struct bt_trace t = {
			.magic = BT_MAGIC | BT_VERSION,
			.action = BT_TN_PROCESS,
			.device = (d->dev_major << 20) | (d->dev_minor & 0xfffff),
			.cpu = cpu,
			.pdu_len = 16,
		};
		char comm[16] = "iotrace";

		if (fwrite(&t, sizeof(t), 1, fp) != 1 ||
		    fwrite(comm, sizeof(comm), 1, fp) != 1)
			nev = 1;	/* report the error below */
	}
	for (i = 0; i < nev; i++) {
		const struct iotrace_record *r = &x->v[ev[i].rec].r;
		const struct iot_disk *d = &x->src.disks[x->v[ev[i].rec].disk];
		struct bt_trace t = {
			.magic = BT_MAGIC | BT_VERSION,
			.sequence = ++seq,
			.time = ev[i].time - t0,
			.sector = r->sector,
			.bytes = r->bytes,
			.device = (d->dev_major << 20) | (d->dev_minor & 0xfffff),
			.cpu = cpu,
		};
		int pc = r->rflags & IOTRACE_RF_PASSTHRU;
		const void *pdu = NULL;

		t.action = bt_cat(r) << 16;
		if (ev[i].kind == 0) {
			t.action |= BT_TA_QUEUE;
		} else if (ev[i].kind == 1) {
			t.action |= BT_TA_ISSUE;
		} else {
			t.action |= BT_TA_COMPLETE;
			t.error = (uint16_t)(r->error < 0 ? -r->error : 0);
		}
		if (pc && (r->rflags & IOTRACE_RF_CMD_VALID) &&
		    ev[i].kind > 0) {
			t.pdu_len = r->cmd_len > IOTRACE_CMD_LEN ?
				    IOTRACE_CMD_LEN : r->cmd_len;
			pdu = r->cmd;
		}
		if (fwrite(&t, sizeof(t), 1, fp) != 1 ||
		    (t.pdu_len && fwrite(pdu, t.pdu_len, 1, fp) != 1))
			break;
	}
	if (i < nev) {
		iot_write_error(path, errno);
		fclose(fp);
		return 1;
	}
	if (iot_out_close(fp, path))
		return 1;
	return 0;
}

/**
 * export_blktrace() - write PREFIX.blktrace.<cpu> for CPUs 0 .. the highest
 * one that has an event (empty files for the others: blkparse stops at the
 * first missing CPU file).
 * @x: records.
 * @prefix: path prefix of the files.
 *
 * Return: 0, or 1 after printing what failed.
 */
int export_blktrace(const struct xset *x, const char *prefix)
{
	struct bt_ev *ev = malloc((x->n * 3 + 1) * sizeof(*ev));
	uint64_t t0 = UINT64_MAX;
	uint32_t cpu, maxcpu = 0;
	size_t i, n = 0, s;
	int rc = 0;

	if (!ev) {
		iot_err("out of memory");
		return 1;
	}
	for (i = 0; i < x->n; i++) {
		const struct iotrace_record *r = &x->v[i].r;

		if (!(r->rflags & IOTRACE_RF_NO_ISSUE)) {
			if ((r->rflags & IOTRACE_RF_QUEUE_VALID) &&
			    r->issue_ns >= r->queue_ns)
				ev[n++] = (struct bt_ev){ r->issue_ns - r->queue_ns,
							  i, r->issue_cpu, 0 };
			ev[n++] = (struct bt_ev){ r->issue_ns, i,
						  r->issue_cpu, 1 };
		}
		if (r->rflags & IOTRACE_RF_COMPLETE)
			ev[n++] = (struct bt_ev){ r->complete_ns, i,
						  r->complete_cpu, 2 };
	}
	for (i = 0; i < n; i++) {
		if (ev[i].time < t0)
			t0 = ev[i].time;
		if (ev[i].cpu > maxcpu)
			maxcpu = ev[i].cpu;
	}
	qsort(ev, n, sizeof(*ev), cmp_ev);
	for (cpu = 0, s = 0; cpu <= maxcpu && !rc; cpu++) {
		size_t e = s;

		while (e < n && ev[e].cpu == cpu)
			e++;
		rc = write_cpu(x, prefix, cpu, ev + s, e - s, t0);
		s = e;
	}
	free(ev);
	return rc;
}
