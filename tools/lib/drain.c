// SPDX-License-Identifier: GPL-2.0
/*
 * Ring draining: the records of a ring (live, or an image in memory) into
 * a trace file being written (iot_writer), part by part, with what could
 * not be copied counted.  record's loop (iotracectl record) calls it pass
 * after pass; iot_rings_write() makes one pass of rings that no longer
 * change (a persistent region's, preg.c).
 *
 * Per part, a cursor follows the kernel's head.  Records between the
 * cursor and head are copied with the publication protocol, a run of a
 * kernel chunk's records at a time (iot_ring_copy_run()), converted
 * straight into the file chunk being filled; a run of good records becomes
 * one chunk (its first sequence number makes any gap provable).  A record
 * that is still being written at the head is retried on the next pass;
 * one that the kernel overwrote before we got to it is counted as
 * overwritten, one that changed under the copy as torn.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "iot.h"

#define ERR(...) snprintf(err, errlen, __VA_ARGS__)

/*
 * The records that may still go into the chunk being filled (@n records
 * of @rs bytes in it) before the file reaches @limit bytes (0: no limit):
 * at least one while it is below, none once it is there; so a file ends
 * within a record and a chunk header of --size, whatever the backlog.
 */
static uint32_t size_budget(const struct iot_writer *w, uint64_t limit,
			    uint32_t n, uint32_t rs)
{
	uint64_t used = w->bytes + (uint64_t)n * rs, left;

	if (!limit)
		return IOT_DRAIN_CHUNK;
	if (used >= limit)
		return 0;
	left = (limit - used + rs - 1) / rs;
	return left < IOT_DRAIN_CHUNK ? (uint32_t)left : IOT_DRAIN_CHUNK;
}

/*
 * Copy what is new in one part, up to @limit bytes of file (--size; 0:
 * no limit): the records after that stay in the ring, not recorded.
 * @gen: the ring's generation @rp counts in.
 * @final: the recording ends, so a record still busy is not waited for.
 * Returns -1 on a write error.
 *
 * A clear is left to the caller, which starts the parts over at the pass
 * after the generation moved on: only records copied while the ring was
 * still of @gen are kept (iot_ring_same_generation() after each run, as
 * a seqlock's reader), so that no record of the next generation is
 * written, or counted, under this one's cursor (and written again after
 * the restart).
 */
static int drain_run(struct iot_writer *w, const struct iot_ring *ring,
		     unsigned int disk, uint32_t p, struct iot_drain_part *rp,
		     uint8_t *buf, struct iot_counts *c, int final,
		     uint64_t limit, uint64_t gen)
{
	uint64_t head = iot_ring_head(ring, p), first = rp->cur;
	uint32_t n = 0, rs = sizeof(struct iotrace_record);

	/*
	 * Cleared since the pass began; or a head below the cursor: a
	 * clear under way (the heads are reset before the generation moves
	 * on).  Nothing now, the part starts over at a later pass.
	 */
	if (!iot_ring_same_generation(ring, gen) || head < rp->cur)
		return 0;
	/* 2.x: whole chunks, found by iot_ring_next() (a hold keeps old ones) */
	if (!ring->v2 && head - rp->cur > ring->part_records) {
		c->overwritten += head - ring->part_records - rp->cur;
		first = head - ring->part_records;
		rp->cur = first;
	}
	while (rp->cur < head) {
		uint32_t room = IOT_DRAIN_CHUNK - n, got, left;
		int r;

		left = size_budget(w, limit, n, rs);
		if (left < room)
			room = left;
		if (!room)
			break;	/* --size reached: the chunk ends here */
		r = iot_ring_copy_run(ring, p, rp->cur,
				      head - rp->cur < room ?
				      (uint32_t)(head - rp->cur) : room,
				      (struct iotrace_record *)
				      (buf + (size_t)n * rs), &got);
		/*
		 * Cleared during the run: none of it is known to be of
		 * @gen, nor is a record that could not be copied overwritten
		 * or torn; what earlier runs copied is.
		 */
		if (!iot_ring_same_generation(ring, gen))
			break;

		/* a run of good records, straight into the chunk */
		rp->cur += got;
		n += got;
		if (n == IOT_DRAIN_CHUNK) {
			if (iot_writer_chunk(w, disk, p, first, buf, n))
				return -1;
			c->written += n;
			first = rp->cur;
			n = 0;
		}
		if (!r)
			continue;
		/* record rp->cur could not be copied */
		if (!final && !iot_ring_gone(ring, p, rp->cur))
			break;	/* not published yet: next pass */
		if (iot_writer_chunk(w, disk, p, first, buf, n))
			return -1;
		c->written += n;
		n = 0;
		if (iot_ring_gone(ring, p, rp->cur)) {
			/* to the next chunk still there: the gap is gone */
			uint64_t nx = iot_ring_next(ring, p, rp->cur);
			uint64_t pre;

			if (nx > head)
				nx = head;
			pre = iot_ring_in_gaps(rp->gap_lo, rp->gap_hi,
					       rp->nr_gaps, rp->cur, nx);
			rp->pre_gone += pre;
			c->overwritten += nx - rp->cur - pre;
			rp->cur = nx;
			first = nx;
			continue;
		}
		c->torn++;	/* never completed before the end */
		first = ++rp->cur;
	}
	if (iot_writer_chunk(w, disk, p, first, buf, n))
		return -1;
	c->written += n;
	return 0;
}

/**
 * iot_drain_part() - copy what is new in one part of a ring to a trace
 *	file being written, as drain_run() says, in one pass of the ring's
 *	lookups: a backlog of many kernel chunks is found through an index of
 *	the part's chunks, built once for the pass, not by a scan of every
 *	chunk header at each chunk crossed.
 * @w: the writer.
 * @ring: the ring.
 * @disk: its index in @w's disk table.
 * @p: the part.
 * @rp: the part's cursor (iot_drain_init()).
 * @buf: room for IOT_DRAIN_CHUNK records.
 * @c: the ring's counts (written, overwritten, torn), added to.
 * @final: the recording ends: a record still busy is not waited for.
 * @limit: the file's size limit, 0 for none.
 * @gen: the ring's generation @rp counts in.
 *
 * Return: 0, or -1 on a write error (errno set).
 */
int iot_drain_part(struct iot_writer *w, const struct iot_ring *ring,
		   unsigned int disk, uint32_t p, struct iot_drain_part *rp,
		   uint8_t *buf, struct iot_counts *c, int final,
		   uint64_t limit, uint64_t gen)
{
	int ret;

	/* the counters as last seen in @gen, for a clear (iot_drain_new_gen()) */
	if (iot_ring_generation(ring) == gen) {
		rp->seen_dropped = iot_ring_dropped(ring, p);
		rp->seen_filtered = iot_ring_filtered(ring, p);
	}
	iot_ring_pass_begin(ring, p);
	ret = drain_run(w, ring, disk, p, rp, buf, c, final, limit, gen);
	iot_ring_pass_end(ring);
	return ret;
}

/**
 * iot_drain_init() - the cursors of a ring's parts at the start of a
 *	recording: at what the ring holds now (a hold too), with its dropped
 *	and filtered counters then.
 * @ring: the ring.
 * @parts: its ring->nr_parts cursors, filled.
 */
void iot_drain_init(const struct iot_ring *ring, struct iot_drain_part *parts)
{
	uint32_t p;

	for (p = 0; p < ring->nr_parts; p++) {
		struct iot_drain_part *rp = &parts[p];
		uint64_t head = iot_ring_head(ring, p);

		rp->cur = iot_ring_lo(ring, p);
		if (rp->cur > head)
			rp->cur = head;
		rp->start_head = rp->cur;
		rp->nr_gaps = iot_ring_gaps(ring, p, rp->cur, head, rp->gap_lo,
					    rp->gap_hi, IOT_RING_GAPS);
		rp->pre_gone = 0;
		rp->start_dropped = iot_ring_dropped(ring, p);
		rp->start_filtered = iot_ring_filtered(ring, p);
		rp->seen_dropped = rp->start_dropped;
		rp->seen_filtered = rp->start_filtered;
	}
}

/**
 * iot_drain_new_gen() - a part's ring was cleared: count what its cursor
 *	and counters gave in the generation that ended, and start at 0.
 * @rp: the part's cursor.
 * @c: the ring's counts: recorded, dropped and filtered added to.
 *
 * The counters are those of the last pass in that generation: what the
 * kernel dropped or filtered after it, before the clear, is not known.
 */
void iot_drain_new_gen(struct iot_drain_part *rp, struct iot_counts *c)
{
	/* each cursor moved in its generation only: no wrap */
	c->recorded += rp->cur - rp->start_head - rp->pre_gone;
	if (rp->seen_dropped >= rp->start_dropped)
		c->dropped += rp->seen_dropped - rp->start_dropped;
	if (rp->seen_filtered >= rp->start_filtered)
		c->filtered += rp->seen_filtered - rp->start_filtered;
	memset(rp, 0, sizeof(*rp));
}

/**
 * iot_drain_counts() - a ring's counts at the end of a recording.
 * @ring: the ring.
 * @parts: its cursors.
 * @c: its counts: recorded, dropped and filtered added to from the
 *	cursors and the ring's counters, completed and lost set.
 */
void iot_drain_counts(const struct iot_ring *ring,
		      const struct iot_drain_part *parts, struct iot_counts *c)
{
	uint32_t p;

	for (p = 0; p < ring->nr_parts; p++) {
		const struct iot_drain_part *rp = &parts[p];
		uint64_t d = iot_ring_dropped(ring, p);
		uint64_t f = iot_ring_filtered(ring, p);

		c->recorded += rp->cur - rp->start_head - rp->pre_gone;
		c->dropped += d >= rp->start_dropped ?
			d - rp->start_dropped : d;
		c->filtered += f >= rp->start_filtered ?
			f - rp->start_filtered : f;
	}
	c->completed = c->recorded + c->dropped + c->filtered;
	c->lost = c->recorded - c->written;
}

/* Whether @id says anything. */
static int ident_known(const struct iotrace_file_ident *id)
{
	return id->sectors || id->model[0] || id->serial[0] || id->wwn[0];
}

/**
 * iot_rings_write() - write rings that no longer change (images in
 *	memory: a persistent region's) to a trace file, in one final pass,
 *	dated by the boot they come from.
 * @rings: the rings.
 * @disks: their disk table (the file's).
 * @nr: how many.
 * @fp: the output.
 * @org: the boot's clock anchor, newest time and release: the file's
 *	start, end and kernel release; its host is this one's.
 * @counts: per ring, filled as record fills them.
 * @err: error message buffer.
 * @errlen: its size.
 *
 * The file is the one record would write of them, stopped at its first
 * pass (iotracectl record's iot_record_rings()), with @org's requests in
 * flight after the records: no submitters' names, no device stack
 * (another boot's are not known).
 *
 * Return: 0, -1 with @err set, or -3 when writing @fp failed (@err says
 * why, errno set).
 */
int iot_rings_write(const struct iot_ring *rings, const struct iot_disk *disks,
		    unsigned int nr, FILE *fp, const struct iot_rec_origin *org,
		    struct iot_counts *counts, char *err, size_t errlen)
{
	uint32_t rs = sizeof(struct iotrace_record), p;
	struct iot_drain_part *parts = NULL;
	uint64_t gen;
	struct iot_writer w;
	struct utsname u;
	uint8_t *buf = NULL;
	unsigned int i, maxp = 1;
	int werr;

	for (i = 0; i < nr; i++) {
		memset(&counts[i], 0, sizeof(counts[i]));
		if (rings[i].nr_parts > maxp)
			maxp = rings[i].nr_parts;
	}
	buf = calloc(IOT_DRAIN_CHUNK, rs);
	parts = calloc((size_t)nr * maxp, sizeof(*parts));
	if (!buf || !parts) {
		free(buf);
		free(parts);
		return ERR("out of memory"), -1;
	}
	if (uname(&u))
		memset(&u, 0, sizeof(u));
	snprintf(u.release, sizeof(u.release), "%s", org->release);
	for (i = 0; i < nr; i++)
		iot_drain_init(&rings[i], parts + (size_t)i * maxp);
	if (iot_writer_start(&w, fp, rs, disks, nr, org->mono_ns, org->real_ns,
			     u.release, u.nodename))
		goto wfail;
	for (i = 0; org->ids && i < nr; i++)
		if (ident_known(&org->ids[i]) &&
		    iot_writer_ident(&w, i, &org->ids[i]))
			goto wfail;
	if (org->boot) {
		w.span = 1;
		w.first_ns = UINT64_MAX;
	}
	for (i = 0; i < nr; i++) {
		gen = iot_ring_generation(&rings[i]);
		for (p = 0; p < rings[i].nr_parts; p++)
			if (iot_drain_part(&w, &rings[i], i, p,
					   parts + (size_t)i * maxp + p, buf,
					   &counts[i], 1, 0, gen))
				goto wfail;
	}
	if (org->boot && iot_writer_boot(&w, org->boot))
		goto wfail;
	for (i = 0; i < org->nr_infl; i++)
		if (iot_writer_inflight(&w, &org->infl[i]))
			goto wfail;
	for (i = 0; i < nr; i++)
		iot_drain_counts(&rings[i], parts + (size_t)i * maxp,
				 &counts[i]);
	if (iot_writer_finish(&w, counts, org->end_ns,
			      org->real_ns + (org->end_ns - org->mono_ns)))
		goto wfail;
	free(buf);
	free(parts);
	return 0;
wfail:
	werr = errno ? errno : EIO;
	ERR("%s", strerror(werr));
	free(buf);
	free(parts);
	errno = werr;
	return -3;
}
