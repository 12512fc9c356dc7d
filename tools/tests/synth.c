// SPDX-License-Identifier: GPL-2.0
/*
 * Synthetic rings and records: a ring laid out as the kernel module lays
 * it out (geometry from uapi/linux/iotrace.h), written with the same
 * publication protocol, and deterministic records covering every op,
 * command type, and error path.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "synth.h"
#include "cmd.h"

#define PAGE 4096u

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

/* A zeroed ring with a valid header; free() it. */
uint8_t *synth_ring_new(uint32_t nr_parts, uint32_t part_records,
			uint32_t record_size, const char *name, size_t *len)
{
	struct iotrace_ring_hdr *h;
	uint64_t data = PAGE + align_up((uint64_t)nr_parts * 64, PAGE);
	uint64_t stride = (uint64_t)part_records * record_size;
	uint64_t size = data + stride * nr_parts;
	uint8_t *b = aligned_alloc(PAGE, align_up(size, PAGE));
	uint64_t i;

	if (!b)
		return NULL;
	memset(b, 0, align_up(size, PAGE));
	/* as the module does: no slot matches a sequence before it is written */
	for (i = 0; i < (uint64_t)nr_parts * part_records; i++)
		*(uint32_t *)(b + data + i / part_records * stride +
			      i % part_records * record_size) =
			IOTRACE_SEQ_BUSY;
	h = (struct iotrace_ring_hdr *)b;
	h->magic = IOTRACE_RING_MAGIC;
	h->abi_major = IOTRACE_ABI_MAJOR;
	h->abi_minor = IOTRACE_ABI_MINOR;
	h->hdr_size = PAGE;
	h->record_size = record_size;
	h->nr_parts = nr_parts;
	h->part_records = part_records;
	h->part_hdr_size = 64;
	h->part_hdr_offset = PAGE;
	h->data_offset = data;
	h->part_stride = stride;
	h->ring_size = size;
	h->flags = IOTRACE_RING_ENABLED;
	h->logical_block_size = 512;
	h->dev_major = 252;
	h->dev_minor = 0;
	snprintf(h->name, IOTRACE_NAME_LEN, "%s", name);
	*len = size;
	return b;
}

/* Publish one record in @part, as the kernel's writer does. */
void synth_ring_push(uint8_t *ring, uint32_t part,
		     const struct iotrace_record *r)
{
	struct iotrace_ring_hdr *h = (struct iotrace_ring_hdr *)ring;
	struct iotrace_part_hdr *ph = (struct iotrace_part_hdr *)
		(ring + h->part_hdr_offset + (uint64_t)part * h->part_hdr_size);
	uint64_t s = ph->head;
	uint8_t *slot = ring + h->data_offset + part * h->part_stride +
		(s % h->part_records) * h->record_size;
	uint32_t *seq = (uint32_t *)slot;

	__atomic_store_n(&ph->head, s + 1, __ATOMIC_RELEASE);
	__atomic_store_n(seq, IOTRACE_SEQ_BUSY, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	/* a 1.x ring: the record without the submitter the tool adds */
	memcpy(slot + 4, (const uint8_t *)r + 4, IOTRACE_RECORD_SIZE - 4);
	__atomic_store_n(seq, (uint32_t)s, __ATOMIC_RELEASE);
}

void synth_ring_drop(uint8_t *ring, uint32_t part, uint64_t n)
{
	struct iotrace_ring_hdr *h = (struct iotrace_ring_hdr *)ring;
	struct iotrace_part_hdr *ph = (struct iotrace_part_hdr *)
		(ring + h->part_hdr_offset + (uint64_t)part * h->part_hdr_size);

	ph->dropped += n;
}

/* ---- ABI 2.0 rings: a pool of chunks (uapi/linux/iotrace.h) -------- */

#define CHUNK_FREE	0	/* module/ring.c's chunk states */
#define CHUNK_CURRENT	1
#define CHUNK_FULL	2

static struct iotrace_cpu_hdr *cpu2(uint8_t *ring, uint32_t cpu)
{
	const iot_ring_hdr2 *h = (const iot_ring_hdr2 *)ring;

	return (void *)(ring + h->cpu_hdr_offset +
			(uint64_t)cpu * h->cpu_hdr_size);
}

static struct iotrace_chunk_hdr *chunk2(uint8_t *ring, uint32_t k)
{
	const iot_ring_hdr2 *h = (const iot_ring_hdr2 *)ring;

	return (void *)(ring + h->chunk_hdr_offset +
			(uint64_t)k * h->chunk_hdr_size);
}

static iot_record2 *slot2(uint8_t *ring, uint32_t k, uint64_t i)
{
	const iot_ring_hdr2 *h = (const iot_ring_hdr2 *)ring;

	return (void *)(ring + h->data_offset + k * h->chunk_stride +
			i * h->record_size);
}

/**
 * synth_ring2_new() - an empty ABI 2.0 ring, as the module lays it out
 *	after a clear (every chunk never taken, every slot ~its index).
 * @nr_cpus: CPU headers.
 * @chunk_records: records per chunk, a power of two.
 * @nr_chunks: chunks in the pool.
 * @name: disk name.
 * @len: out, the ring's bytes.
 *
 * Return: the ring (free() it), or NULL.
 */
uint8_t *synth_ring2_new(uint32_t nr_cpus, uint32_t chunk_records,
			 uint32_t nr_chunks, const char *name, size_t *len)
{
	uint64_t cpu_off = PAGE;
	uint64_t chunk_off = cpu_off + align_up((uint64_t)nr_cpus * 64, PAGE);
	uint64_t data = chunk_off + align_up((uint64_t)nr_chunks * 64, PAGE);
	uint64_t stride = (uint64_t)chunk_records * IOTRACE_RECORD_SIZE;
	uint64_t size = data + stride * nr_chunks;
	uint8_t *b = aligned_alloc(PAGE, align_up(size, PAGE));
	iot_ring_hdr2 *h = (iot_ring_hdr2 *)b;
	uint32_t c, k, i;

	if (!b)
		return NULL;
	memset(b, 0, align_up(size, PAGE));
	h->magic = IOTRACE_RING_MAGIC;
	h->abi_major = IOT_ABI_MAJOR2;
	h->abi_minor = 1;
	h->hdr_size = PAGE;
	h->record_size = IOTRACE_RECORD_SIZE;
	h->nr_cpus = nr_cpus;
	h->chunk_records = chunk_records;
	h->cpu_hdr_size = 64;
	h->flags = IOTRACE_RING_ENABLED;
	h->cpu_hdr_offset = cpu_off;
	h->data_offset = data;
	h->chunk_stride = stride;
	h->ring_size = size;
	h->logical_block_size = 512;
	h->dev_major = 252;
	h->nr_chunks = nr_chunks;
	snprintf(h->name, IOTRACE_NAME_LEN, "%s", name);
	h->chunk_hdr_offset = chunk_off;
	h->chunk_hdr_size = 64;
	for (c = 0; c < nr_cpus; c++) {
		cpu2(b, c)->cur = IOTRACE_CHUNK_NONE;
		cpu2(b, c)->pending = IOTRACE_CHUNK_NONE;
	}
	for (k = 0; k < nr_chunks; k++) {
		chunk2(b, k)->next = IOTRACE_CHUNK_NONE;
		for (i = 0; i < chunk_records; i++)
			slot2(b, k, i)->seq = ~i;
	}
	*len = size;
	return b;
}

/*
 * Give @cpu a new current chunk as module/ring.c's iotrace_chunk_take()
 * does: round robin over the pool, skipping current chunks, a full one
 * recycled (its records counted overwritten on its CPU).
 */
static int take2(uint8_t *ring, uint32_t cpu)
{
	iot_ring_hdr2 *h = (iot_ring_hdr2 *)ring;
	struct iotrace_cpu_hdr *ch = cpu2(ring, cpu);
	uint32_t tries, k, i;

	if (ch->cur != IOTRACE_CHUNK_NONE)
		chunk2(ring, ch->cur)->state = CHUNK_FULL;
	ch->cur = IOTRACE_CHUNK_NONE;
	for (tries = 0; tries < h->nr_chunks; tries++) {
		uint64_t n = ++h->chunks_taken;
		struct iotrace_chunk_hdr *c;

		k = (n - 1) % h->nr_chunks;
		c = chunk2(ring, k);
		if (c->state == CHUNK_CURRENT)
			continue;
		/* a hold's take numbers (ABI 2.1): kept, skipped */
		if (h->hold_hi && c->seq >= h->hold_lo && c->seq <= h->hold_hi)
			continue;
		if (c->state == CHUNK_FULL && c->cpu < h->nr_cpus)
			cpu2(ring, c->cpu)->overwritten += h->chunk_records;
		__atomic_store_n(&c->seq, UINT64_MAX, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		c->state = CHUNK_CURRENT;
		c->cpu = cpu;
		c->first_seq = ch->head;
		for (i = 0; i < h->chunk_records; i++)
			__atomic_store_n(&slot2(ring, k, i)->seq,
					 ~(uint32_t)(ch->head + i),
					 __ATOMIC_RELAXED);
		c->reserved_slots = 0;
		__atomic_store_n(&c->seq, n, __ATOMIC_RELEASE);
		ch->cur = k;
		return 0;
	}
	return -1;
}

/**
 * synth_ring2_push() - write the tool's record @r as CPU @cpu's next
 *	record of a ring of synth_ring2_new(), with the module's protocol
 *	(iotrace_ring_reserve(), iotrace_ring_commit()).
 * @ring: the ring.
 * @cpu: the CPU.
 * @r: the record (complete_cpu is the chunk's CPU; the cgroup goes to
 *	cmd[IOTRACE_CMD_CGROUP_OFF]).
 * @publish: 0 leaves the slot busy (~seq), as a writer still in it does.
 *
 * Return: 0, or -1 when every chunk is current (counted dropped).
 */
int synth_ring2_push(uint8_t *ring, uint32_t cpu,
		     const struct iotrace_record *r, int publish)
{
	iot_ring_hdr2 *h = (iot_ring_hdr2 *)ring;
	struct iotrace_cpu_hdr *ch = cpu2(ring, cpu);
	struct iotrace_chunk_hdr *c;
	iot_record2 *w;
	uint64_t seq;
	uint8_t cg[8];
	int i;

	if ((ch->cur == IOTRACE_CHUNK_NONE ||
	     chunk2(ring, ch->cur)->reserved_slots == h->chunk_records) &&
	    take2(ring, cpu)) {
		ch->dropped++;
		return -1;
	}
	c = chunk2(ring, ch->cur);
	seq = c->first_seq + c->reserved_slots;
	w = slot2(ring, ch->cur, c->reserved_slots++);
	__atomic_store_n(&ch->head, ch->head + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&w->seq, ~(uint32_t)seq, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	w->bytes = r->bytes;
	w->issue_ns = r->issue_ns;
	w->complete_ns = r->complete_ns;
	w->sector = r->sector;
	w->queue_ns = r->queue_ns;
	w->dev_status = r->dev_status;
	w->dev_result = r->dev_result;
	w->error = r->error;
	w->rflags = r->rflags;
	w->opflags = r->opflags;
	w->issue_cpu = r->issue_cpu;
	w->hwq = r->hwq;
	w->tag = r->tag;
	w->op = r->op;
	w->retries = r->retries;
	w->cmd_type = r->cmd_type;
	w->cmd_len = r->cmd_len;
	w->pid = r->pid;
	memcpy(w->cmd, r->cmd, sizeof(w->cmd));
	for (i = 0; i < 8; i++)
		cg[i] = r->cgroup >> (8 * i);
	memcpy(w->cmd + IOTRACE_CMD_CGROUP_OFF, cg, 8);
	if (publish)
		__atomic_store_n(&w->seq, (uint32_t)seq, __ATOMIC_RELEASE);
	return 0;
}

/**
 * synth_ring_clear() - empty a ring of synth_ring_new() or
 *	synth_ring2_new() in place, as the module's clear does
 *	(iotrace_ring_reset()).
 * @ring: the ring.
 *
 * No slot matches a sequence number any more (1.x: every slot busy; 2.x:
 * every chunk free and never taken, every slot ~its index, chunks_taken
 * going on), the heads and counters restart at 0, and then the
 * generation moves on (release: a reader that sees it sees the ring it
 * names).
 */
void synth_ring_clear(uint8_t *ring)
{
	struct iotrace_ring_hdr *h = (struct iotrace_ring_hdr *)ring;
	uint64_t i;
	uint32_t p;

	if (h->abi_major == IOT_ABI_MAJOR2) {
		const iot_ring_hdr2 *h2 = (const iot_ring_hdr2 *)ring;

		for (p = 0; p < h2->nr_chunks; p++) {
			struct iotrace_chunk_hdr *c = chunk2(ring, p);

			__atomic_store_n(&c->seq, 0, __ATOMIC_RELAXED);
			for (i = 0; i < h2->chunk_records; i++)
				__atomic_store_n(&slot2(ring, p, i)->seq,
						 ~(uint32_t)i, __ATOMIC_RELAXED);
			c->first_seq = 0;
			c->cpu = 0;
			c->reserved_slots = 0;
			c->next = IOTRACE_CHUNK_NONE;
			c->state = CHUNK_FREE;
		}
		for (p = 0; p < h2->nr_cpus; p++) {
			struct iotrace_cpu_hdr *c = cpu2(ring, p);

			memset(c, 0, sizeof(*c));
			c->cur = IOTRACE_CHUNK_NONE;
			c->pending = IOTRACE_CHUNK_NONE;
		}
	} else {
		for (p = 0; p < h->nr_parts; p++) {
			struct iotrace_part_hdr *ph = (void *)(ring +
				h->part_hdr_offset +
				(uint64_t)p * h->part_hdr_size);

			for (i = 0; i < h->part_records; i++)
				__atomic_store_n((uint32_t *)(ring +
					h->data_offset + p * h->part_stride +
					i * h->record_size),
					IOTRACE_SEQ_BUSY, __ATOMIC_RELAXED);
			__atomic_store_n(&ph->head, 0, __ATOMIC_RELAXED);
			ph->dropped = 0;
			ph->filtered = 0;
		}
	}
	__atomic_store_n(&h->generation, h->generation + 1, __ATOMIC_RELEASE);
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static void put_be(uint8_t *p, uint64_t v, int n)
{
	while (n--) {
		p[n] = v & 0xff;
		v >>= 8;
	}
}

/**
 * synth_rec() - the @i-th synthetic record (deterministic).
 * @r: record to fill.
 * @i: index.
 *
 * Times advance by 10 us per record; latencies are 50 us to ~5 ms; every
 * 97th record fails; command types rotate none, NVMe, SCSI, ATA; every
 * 5th is the kernel's own I/O, the others have pids 4000-4002 (named by
 * synth_comms()) or 4242 (no name) and cgroups 100 and 101.
 */
void synth_rec(struct iotrace_record *r, uint64_t i)
{
	uint64_t h = mix(i + 1);
	static const uint8_t ops[8] = { 0, 0, 0, 1, 1, 1, 2, 3 };
	uint32_t blocks = 1u << (h % 6);	/* 512 B units x 8 */
	struct iotrace_ata_tf tf;

	memset(r, 0, sizeof(*r));
	r->op = ops[(h >> 8) % 8];
	r->bytes = r->op == IOTRACE_OP_FLUSH ? 0 : blocks * 4096;
	r->sector = (h >> 16) % (1u << 24) * 8;
	r->issue_ns = 1000000000ull + i * 10000;
	r->complete_ns = r->issue_ns + 50000 + (h >> 40) % 5000000;
	r->queue_ns = (h >> 20) % 20000;
	r->rflags = IOTRACE_RF_COMPLETE | IOTRACE_RF_QUEUE_VALID;
	r->opflags = (h >> 30) & 1 ? IOTRACE_OPF_SYNC : 0;
	r->issue_cpu = i % 2;
	r->complete_cpu = i % 2;
	r->hwq = i % 2;
	r->tag = i % 64;
	if (i % 97 == 50) {
		r->error = -5;
		r->rflags |= IOTRACE_RF_ERROR;
	}
	/* submitters: the kernel's own, three named processes, one unnamed */
	if (i % 5 == 0) {
		r->rflags |= IOTRACE_RF_KERNEL;
	} else {
		r->pid = i % 7 == 3 ? 4242 : 4000 + i % 3;
		r->cgroup = 100 + i % 2;
	}
	switch (i % 4) {
	case 1:
		r->cmd_type = IOTRACE_CMD_NVME;
		r->cmd_len = 64;
		r->cmd[0] = r->op == 0 ? 0x02 : r->op == 1 ? 0x01 :
			r->op == 2 ? 0x00 : 0x09;
		put_le32(r->cmd + 2, i & 0xffff);
		put_le32(r->cmd + 4, 1);
		put_le32(r->cmd + 40, (uint32_t)r->sector);
		put_le32(r->cmd + 44, (uint32_t)(r->sector >> 32));
		put_le32(r->cmd + 48, blocks * 8 - 1);
		r->rflags |= IOTRACE_RF_CMD_VALID | IOTRACE_RF_STATUS_VALID;
		r->dev_status = r->error ? 0x281 : 0;	/* media: unrecovered */
		break;
	case 2:
		r->cmd_type = IOTRACE_CMD_SCSI;
		r->cmd_len = 16;
		r->cmd[0] = r->op == 0 ? 0x88 : r->op == 1 ? 0x8a :
			r->op == 2 ? 0x35 : 0x42;
		put_be(r->cmd + 2, r->sector, 8);
		put_be(r->cmd + 10, blocks * 8, 4);
		r->rflags |= IOTRACE_RF_CMD_VALID | IOTRACE_RF_STATUS_VALID;
		r->dev_status = r->error ? 0x00110302 : 0; /* MEDIUM ERROR */
		break;
	case 3:
		memset(&tf, 0, sizeof(tf));
		tf.command = r->op == 0 ? 0x60 : r->op == 1 ? 0x61 :
			r->op == 2 ? 0xea : 0x06;
		tf.feature = (blocks * 8) & 0xff;
		tf.hob_feature = (blocks * 8) >> 8;
		tf.count = (r->tag & 31) << 3;
		tf.lba = r->sector;
		tf.device = 0x40;
		r->cmd_type = IOTRACE_CMD_ATA;
		r->cmd_len = sizeof(tf);
		memcpy(r->cmd, &tf, sizeof(tf));
		r->rflags |= IOTRACE_RF_CMD_VALID | IOTRACE_RF_STATUS_VALID;
		r->dev_status = r->error ? 0x4051 : 0x50;
		break;
	}
}

/* A record whose every field follows from @id: torn copies are detectable. */
void synth_stamp(struct iotrace_record *r, uint64_t id)
{
	uint64_t h = mix(id);
	int i;

	memset(r, 0, sizeof(*r));
	r->issue_ns = id;
	r->complete_ns = id + 1000;
	r->sector = h;
	r->bytes = (uint32_t)(h >> 32);
	r->rflags = IOTRACE_RF_COMPLETE;
	for (i = 0; i < IOTRACE_CMD_LEN; i++)
		r->cmd[i] = (uint8_t)(h >> (i % 8 * 8)) ^ i;
}

/* 0 if @r is a consistent synth_stamp() record, else 1. */
uint64_t synth_check(const struct iotrace_record *r)
{
	struct iotrace_record x;

	synth_stamp(&x, r->issue_ns);
	x.seq = r->seq;
	return memcmp(&x, r, sizeof(x)) != 0;
}

/* The host tests link the commands without netlink: no family there. */
int iot_nl_list(struct iot_nl_disk **rows, size_t *n)
{
	*rows = NULL;
	*n = 0;
	return 1;
}

/*
 * The records of synth_write_big() waiting for their completion: a binary
 * heap on complete_ns (a record completes at most ~5 ms, some 500 records,
 * after it was issued).
 */
struct big_heap {
	struct iotrace_record *v;
	size_t n;
};

static void big_push(struct big_heap *h, const struct iotrace_record *r)
{
	size_t i = h->n++;

	while (i && h->v[(i - 1) / 2].complete_ns > r->complete_ns) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = *r;
}

static void big_pop(struct big_heap *h, struct iotrace_record *out)
{
	struct iotrace_record last = h->v[--h->n];
	size_t i = 0, l;

	*out = h->v[0];
	while ((l = 2 * i + 1) < h->n) {
		if (l + 1 < h->n &&
		    h->v[l + 1].complete_ns < h->v[l].complete_ns)
			l++;
		if (h->v[l].complete_ns >= last.complete_ns)
			break;
		h->v[i] = h->v[l];
		i = l;
	}
	h->v[i] = last;
}

/* a part's records as the recorder writes them: chunks of 1024 */
struct big_part {
	struct iotrace_record r[1024];
	uint32_t n;
	uint64_t seq;
};

static void big_out(struct iot_writer *w, struct big_part *pt,
		    unsigned int part, const struct iotrace_record *r)
{
	pt[part].r[pt[part].n] = *r;
	pt[part].r[pt[part].n].seq = (uint32_t)(pt[part].seq + pt[part].n);
	if (++pt[part].n == 1024) {
		iot_writer_chunk(w, 0, part, pt[part].seq, pt[part].r, 1024);
		pt[part].seq += 1024;
		pt[part].n = 0;
	}
}

/* a file of one disk, @name, of @parts parts of 1024 records, begun */
static void big_start(struct iot_writer *w, FILE *fp, const char *name,
		      unsigned int parts, const char *host)
{
	struct iot_disk d;

	memset(&d, 0, sizeof(d));
	snprintf(d.name, sizeof(d.name), "%s", name);
	d.nr_parts = parts;
	d.part_records = 1024;
	iot_writer_start(w, fp, sizeof(struct iotrace_record), &d, 1, 0, 0,
			 host, host);
}

/*
 * The records still waiting in @h, then what the @parts parts hold, the
 * trailer (@n records written) and @fp closed: 0, or non-zero
 */
static int big_finish(struct iot_writer *w, FILE *fp, struct big_heap *h,
		      struct big_part *pt, unsigned int parts, uint64_t n)
{
	struct iotrace_record x;
	struct iot_counts c;
	unsigned int k;

	while (h->n) {
		big_pop(h, &x);
		big_out(w, pt, x.complete_cpu, &x);
	}
	for (k = 0; k < parts; k++)
		iot_writer_chunk(w, 0, k, pt[k].seq, pt[k].r, pt[k].n);
	memset(&c, 0, sizeof(c));
	c.written = n;
	c.recorded = n;
	c.completed = n;
	iot_writer_finish(w, &c, 0, 0);
	return fclose(fp);
}

/**
 * synth_write_big() - write the trace file of "make bench" and "gen big":
 *	one disk, @n synthetic records in chunks of 1024.
 * @path: the file to create.
 * @n: records.
 * @issue_order: 0: as the recorder writes them: a record is written when
 *	it completes, into the part of the CPU it completed on (two parts),
 *	numbered in that order; 1: one part, in the order the requests were
 *	issued (every record up to ~500 places from its completion order:
 *	the hardest input of the readers' reordering window).
 *
 * Return: 0, or non-zero when the file could not be written.
 */
int synth_write_big(const char *path, uint64_t n, int issue_order)
{
	struct iotrace_record *r = malloc(1024 * sizeof(*r)), x;
	struct big_heap h = { malloc(1024 * sizeof(*h.v)), 0 };
	struct big_part *pt = calloc(2, sizeof(*pt));
	struct iot_writer w;
	FILE *fp = fopen(path, "wb");
	uint64_t i;
	unsigned int k;
	int ret;

	if (!fp || !r || !h.v || !pt) {
		free(r);
		free(h.v);
		free(pt);
		if (fp)
			fclose(fp);
		return -1;
	}
	big_start(&w, fp, "bench0", issue_order ? 1 : 2, "bench");
	for (k = 0; k < 1024; k++)
		synth_rec(&r[k], k);
	for (i = 0; i < n; i += 1024) {
		uint32_t m = n - i < 1024 ? n - i : 1024;

		for (k = 0; k < m; k++) {
			r[k].seq = (uint32_t)(i + k);
			r[k].issue_ns += 1024 * 10000;
			r[k].complete_ns += 1024 * 10000;
			if (issue_order)
				continue;
			/* what completed before this one was issued */
			while (h.n && h.v[0].complete_ns <= r[k].issue_ns) {
				big_pop(&h, &x);
				big_out(&w, pt, x.complete_cpu, &x);
			}
			big_push(&h, &r[k]);
		}
		if (issue_order)
			iot_writer_chunk(&w, 0, 0, i, r, m);
	}
	ret = big_finish(&w, fp, &h, pt, 2, n);
	free(r);
	free(h.v);
	free(pt);
	return ret;
}

/* a heap of records on complete_ns that grows */
static int spread_push(struct big_heap *h, size_t *cap,
		       const struct iotrace_record *r)
{
	if (h->n == *cap) {
		struct iotrace_record *v = realloc(h->v, 2 * *cap * sizeof(*v));

		if (!v)
			return -1;
		h->v = v;
		*cap *= 2;
	}
	big_push(h, r);
	return 0;
}

/**
 * synth_write_spread() - write the trace file of "gen spread": @n records
 *	whose events make the blktrace export's queue of events work hard.
 * @path: the file to create.
 * @n: records.
 *
 * Two requests start every 50 us (the same time: their events tie); a
 * latency is 0 to 100 ms on a 1 us grid, one in eight a multiple of the
 * 50 us (completions at the same time as other events); every 4,096th
 * request begins a burst of 40 that start with the two before them and
 * complete together (a crowded moment).  The longest queue time (19 us) is the first record's,
 * so that no event can come after a later one.  Issue and completion on
 * CPUs 0-3, a quarter without a queue time.  As the recorder writes them:
 * in completion order, a part per completing CPU.
 *
 * Return: 0, or non-zero when the file could not be written.
 */
int synth_write_spread(const char *path, uint64_t n)
{
	size_t cap = 1024;
	struct big_heap h = { malloc(cap * sizeof(*h.v)), 0 };
	struct big_part *pt = calloc(4, sizeof(*pt));
	struct iotrace_record r, x;
	struct iot_writer w;
	FILE *fp = fopen(path, "wb");
	uint64_t i, t = 1000000000ull;
	int ret = 0;

	if (!fp || !h.v || !pt) {
		free(h.v);
		free(pt);
		if (fp)
			fclose(fp);
		return -1;
	}
	big_start(&w, fp, "spread0", 4, "spread");
	for (i = 0; i < n && !ret; i++) {
		uint64_t g = mix(i + 1);
		int burst = i % 4096 < 40;

		memset(&r, 0, sizeof(r));
		r.op = g & 1 ? IOTRACE_OP_WRITE : IOTRACE_OP_READ;
		r.bytes = 4096;
		r.sector = (g >> 8) % (1u << 24) * 8;
		if (!burst && i % 2 == 0)
			t += 50000;
		r.issue_ns = t;
		if (burst)
			r.complete_ns = t + 300000;
		else if ((g >> 32) % 8 == 0)
			r.complete_ns = t + 50000 * ((g >> 40) % 8);
		else
			r.complete_ns = t + 1000 * ((g >> 40) % 100000);
		r.rflags = IOTRACE_RF_COMPLETE;
		if (!i || (g >> 28) % 4) {
			r.rflags |= IOTRACE_RF_QUEUE_VALID;
			r.queue_ns = i ? 1000 * ((g >> 20) % 20) : 19000;
		}
		r.issue_cpu = (g >> 12) % 4;
		r.complete_cpu = (g >> 14) % 4;
		/* what completed before this one was issued */
		while (h.n && h.v[0].complete_ns <= r.issue_ns) {
			big_pop(&h, &x);
			big_out(&w, pt, x.complete_cpu, &x);
		}
		ret = spread_push(&h, &cap, &r);
	}
	ret |= big_finish(&w, fp, &h, pt, 4, n);
	free(h.v);
	free(pt);
	return ret;
}

/**
 * synth_write_longlat() - write the trace file of "gen longlat": @n
 *	requests in flight for a long time.
 * @path: the file to create.
 * @n: records.
 * @lat: the shortest long latency, ns.
 *
 * A request is issued every millisecond; three in four are in flight
 * @lat to 2 x @lat (a stuck device: hours against a --interval of
 * milliseconds), the others 50 us to 5 ms.  Reads and writes, two CPUs'
 * parts, written as the recorder does: in completion order.
 *
 * Return: 0, or non-zero when the file could not be written.
 */
int synth_write_longlat(const char *path, uint64_t n, uint64_t lat)
{
	size_t cap = 1024;
	struct big_heap h = { malloc(cap * sizeof(*h.v)), 0 };
	struct big_part *pt = calloc(2, sizeof(*pt));
	struct iotrace_record r, x;
	struct iot_writer w;
	FILE *fp = fopen(path, "wb");
	uint64_t i;
	int ret = 0;

	if (!fp || !h.v || !pt || !lat) {
		free(h.v);
		free(pt);
		if (fp)
			fclose(fp);
		return -1;
	}
	big_start(&w, fp, "long0", 2, "longlat");
	for (i = 0; i < n && !ret; i++) {
		uint64_t g = mix(i + 1);

		memset(&r, 0, sizeof(r));
		r.op = g & 1 ? IOTRACE_OP_WRITE : IOTRACE_OP_READ;
		r.bytes = 4096u << ((g >> 4) % 4);
		r.sector = (g >> 8) % (1u << 24) * 8;
		r.issue_ns = 1000000000ull + i * 1000000;
		if (i % 4)
			r.complete_ns = r.issue_ns + lat + (g >> 24) % lat;
		else
			r.complete_ns = r.issue_ns + 50000 +
					(g >> 24) % 5000000;
		r.rflags = IOTRACE_RF_COMPLETE | IOTRACE_RF_QUEUE_VALID;
		r.queue_ns = (g >> 16) % 20000;
		r.issue_cpu = i % 2;
		r.complete_cpu = (g >> 12) % 2;
		/* what completed before this one was issued */
		while (h.n && h.v[0].complete_ns <= r.issue_ns) {
			big_pop(&h, &x);
			big_out(&w, pt, x.complete_cpu, &x);
		}
		ret = spread_push(&h, &cap, &r);
	}
	ret |= big_finish(&w, fp, &h, pt, 2, n);
	free(h.v);
	free(pt);
	return ret;
}
