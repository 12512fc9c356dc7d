// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace - ring memory: geometry, allocation, reset and counters.
 *
 * The ring layout is the one documented in uapi/linux/iotrace.h.  Here:
 * hdr_size is one page, the part headers follow it (one cache line each,
 * the block rounded up to a page), then one part of part_records records
 * per possible CPU.  part_records is the largest power of two that fits
 * buf_size and is at least one page of records, so every part starts on
 * a page boundary.
 */
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/vmalloc.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <asm/local64.h>
#include "iotrace.h"

#define IOTRACE_PAGE_RECORDS	(PAGE_SIZE / IOTRACE_RECORD_SIZE)

static u32 iotrace_nr_parts(void)
{
	return nr_cpu_ids;
}

static u64 iotrace_data_offset(void)
{
	return PAGE_SIZE + round_up((u64)iotrace_nr_parts() *
				    IOTRACE_PART_HDR_SIZE, PAGE_SIZE);
}

/**
 * iotrace_ring_min_size() - smallest buf_size that gives every part at
 * least one page (and IOTRACE_MIN_PART_RECORDS) of records.
 *
 * Return: bytes, never below IOTRACE_MIN_BUF_SIZE.
 */
unsigned long iotrace_ring_min_size(void)
{
	u64 recs = max_t(u64, IOTRACE_MIN_PART_RECORDS, IOTRACE_PAGE_RECORDS);
	u64 min = iotrace_data_offset() +
		(u64)iotrace_nr_parts() * recs * IOTRACE_RECORD_SIZE;

	return max_t(u64, min, IOTRACE_MIN_BUF_SIZE);
}

/**
 * iotrace_ring_geometry() - lay out a ring of at most @buf_size bytes.
 * @buf_size: bytes allowed for the whole ring.
 * @part_records: out, records per part (power of two).
 * @data_offset: out, offset of part 0's first record.
 * @part_stride: out, bytes between two parts.
 *
 * Return: 0, or -ERANGE when @buf_size is outside the documented range.
 */
int iotrace_ring_geometry(unsigned long buf_size, u32 *part_records,
			  u64 *data_offset, u64 *part_stride)
{
	u64 off = iotrace_data_offset();
	u64 per_part;

	if (buf_size < iotrace_ring_min_size() ||
	    buf_size > IOTRACE_MAX_BUF_SIZE)
		return -ERANGE;
	per_part = (buf_size - off) / iotrace_nr_parts() / IOTRACE_RECORD_SIZE;
	if (per_part < IOTRACE_MIN_PART_RECORDS ||
	    per_part < IOTRACE_PAGE_RECORDS)
		return -ERANGE;
	*part_records = rounddown_pow_of_two(min_t(u64, per_part, U32_MAX));
	*data_offset = off;
	*part_stride = (u64)*part_records * IOTRACE_RECORD_SIZE;
	return 0;
}

/**
 * iotrace_ring_reset() - empty a ring that no probe is writing.
 * @d: the disk; recording must be off and synchronized.
 *
 * Every record's seq becomes IOTRACE_SEQ_BUSY so that no old record can
 * match a sequence number of the new generation, then the heads and the
 * drop counters go back to zero and the generation moves on.
 */
void iotrace_ring_reset(struct iotrace_disk *d)
{
	u32 p;
	u64 i;

	for (p = 0; p < d->nr_parts; p++) {
		struct iotrace_part_hdr *ph = iotrace_part_hdr(d, p);

		for (i = 0; i < d->part_records; i++) {
			struct iotrace_record *r = iotrace_part_rec(d, p, i);

			WRITE_ONCE(r->seq, IOTRACE_SEQ_BUSY);
		}
		/* seq busy everywhere before the bodies change */
		smp_wmb();
		for (i = 0; i < d->part_records; i++) {
			struct iotrace_record *r = iotrace_part_rec(d, p, i);

			memset((u8 *)r + sizeof(r->seq), 0,
			       IOTRACE_RECORD_SIZE - sizeof(r->seq));
		}
		WRITE_ONCE(ph->head, 0);
		WRITE_ONCE(ph->dropped, 0);
		WRITE_ONCE(ph->filtered, 0);
		cond_resched();
	}
	/* heads and counters reset before readers see the new generation */
	smp_wmb();
	WRITE_ONCE(d->hdr->generation, d->hdr->generation + 1);
}

/**
 * iotrace_ring_alloc() - allocate and format the ring of a disk.
 * @d: the disk; its name must be set.
 * @buf_size: bytes allowed for the ring.
 *
 * Return: 0 or a negative errno.
 */
int iotrace_ring_alloc(struct iotrace_disk *d, unsigned long buf_size)
{
	struct iotrace_ring_hdr *h;
	u64 data_offset, stride;
	u32 recs;
	int ret;

	BUILD_BUG_ON(sizeof(struct iotrace_record) != IOTRACE_RECORD_SIZE);
	BUILD_BUG_ON(sizeof(struct iotrace_part_hdr) != IOTRACE_PART_HDR_SIZE);
	BUILD_BUG_ON(sizeof(struct iotrace_ring_hdr) > PAGE_SIZE);
	BUILD_BUG_ON(sizeof(local64_t) != sizeof(u64));

	ret = iotrace_ring_geometry(buf_size, &recs, &data_offset, &stride);
	if (ret)
		return ret;
	d->nr_parts = iotrace_nr_parts();
	d->part_records = recs;
	d->buf_size = buf_size;
	d->ring_size = data_offset + (u64)d->nr_parts * stride;
	d->ring = vmalloc_user(d->ring_size);
	if (!d->ring)
		return -ENOMEM;
	h = d->ring;
	d->hdr = h;
	h->magic = IOTRACE_RING_MAGIC;
	h->abi_major = IOTRACE_ABI_MAJOR;
	h->abi_minor = IOTRACE_ABI_MINOR;
	h->hdr_size = PAGE_SIZE;
	h->record_size = IOTRACE_RECORD_SIZE;
	h->nr_parts = d->nr_parts;
	h->part_records = recs;
	h->part_hdr_size = IOTRACE_PART_HDR_SIZE;
	h->part_hdr_offset = PAGE_SIZE;
	h->data_offset = data_offset;
	h->part_stride = stride;
	h->ring_size = d->ring_size;
	h->created_ns = ktime_get_ns();
	strscpy(h->name, d->name, sizeof(h->name));
	iotrace_ring_reset(d);
	h->generation = 0;
	return 0;
}

void iotrace_ring_free(struct iotrace_disk *d)
{
	vfree(d->ring);
	d->ring = NULL;
	d->hdr = NULL;
}

/**
 * iotrace_ring_copy() - copy one record if it is the one expected.
 * @d: the disk.
 * @part: the part.
 * @seq: the part sequence number wanted.
 * @out: where to copy.
 *
 * Return: true if @out holds the complete record @seq, false if the slot
 * is being written, was overwritten or never written.
 */
bool iotrace_ring_copy(struct iotrace_disk *d, u32 part, u64 seq,
		       struct iotrace_record *out)
{
	struct iotrace_record *r = iotrace_part_rec(d, part, seq);

	/* pairs with the writer's smp_store_release() of seq */
	if (smp_load_acquire(&r->seq) != (u32)seq)
		return false;
	memcpy(out, r, sizeof(*out));
	/* copy done before seq is read again; pairs with the writer's smp_wmb() */
	smp_rmb();
	return READ_ONCE(r->seq) == (u32)seq && out->seq == (u32)seq;
}

/**
 * iotrace_ring_counts() - sum the counters of a ring and its slot table.
 * @d: the disk.
 * @c: out.
 *
 * Exact once recording is quiet; while probes run, each part's pair is
 * read without a lock and may be a few records behind.
 */
void iotrace_ring_counts(struct iotrace_disk *d, struct iotrace_counts *c)
{
	u32 p, i;

	memset(c, 0, sizeof(*c));
	for (p = 0; p < d->nr_parts; p++) {
		struct iotrace_part_hdr *ph = iotrace_part_hdr(d, p);
		u64 head = READ_ONCE(ph->head);

		c->recorded += head;
		if (head > d->part_records)
			c->overwritten += head - d->part_records;
		c->dropped += READ_ONCE(ph->dropped);
		c->filtered += READ_ONCE(ph->filtered);
	}
	c->present = c->recorded - c->overwritten;
	if (!d->slots)
		return;
	for (i = 0; i < iotrace_nr_slots(d); i++)
		if (READ_ONCE(d->slots[i].rq))
			c->inflight++;
}
