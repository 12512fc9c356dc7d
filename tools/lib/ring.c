// SPDX-License-Identifier: GPL-2.0
/*
 * Ring reader: validates a ring's geometry from its header and copies
 * records out following the publication protocol of uapi/linux/iotrace.h,
 * so that it works both on a live mmap being written by the kernel and on
 * a snapshot file (cat ring > snap.ring).
 */
#include <endian.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "iot.h"

#define ERR(...) snprintf(err, errlen, __VA_ARGS__)

static int ring2_init(struct iot_ring *ring, const void *buf, size_t len,
		      char *err, size_t errlen);

static int add_ovf(uint64_t a, uint64_t b, uint64_t *r)
{
	return __builtin_add_overflow(a, b, r);
}

static int mul_ovf(uint64_t a, uint64_t b, uint64_t *r)
{
	return __builtin_mul_overflow(a, b, r);
}

/**
 * iot_ring_init() - validate a ring and set up a view of it.
 * @ring: view to fill.
 * @buf: ring bytes, 8-byte aligned.
 * @len: bytes at @buf.
 * @err: buffer for an error message.
 * @errlen: size of @err.
 *
 * Return: 0, or -1 with @err saying what is wrong.
 */
int iot_ring_init(struct iot_ring *ring, const void *buf, size_t len,
		  char *err, size_t errlen)
{
	const struct iotrace_ring_hdr *h = &ring->hdr;
	uint64_t end = 0, t;

	memset(ring, 0, sizeof(*ring));
	if ((uintptr_t)buf & 7)
		return ERR("ring buffer is not 8-byte aligned"), -1;
	if (len < 8)
		return ERR("too short for a ring header (%zu bytes)", len), -1;
	memcpy(&ring->hdr, buf, len < sizeof(*h) ? len : sizeof(*h));
	if (h->magic != IOTRACE_RING_MAGIC)
		return ERR("not an iotrace ring (magic 0x%08x, expected 0x%08x)",
			   h->magic, IOTRACE_RING_MAGIC), -1;
	if (h->abi_major == IOT_ABI_MAJOR2)
		return ring2_init(ring, buf, len, err, errlen);
	if (h->abi_major != IOTRACE_ABI_MAJOR)
		return snprintf(err, errlen,
				"ring ABI major version %u is not supported (this iotracectl reads %u.x and %u.x): use a matching iotracectl",
				h->abi_major, IOTRACE_ABI_MAJOR, IOT_ABI_MAJOR2), -1;
	if (len < sizeof(*h))
		return ERR("truncated ring: %zu bytes, the header alone is %zu",
			   len, sizeof(*h)), -1;
	if (h->hdr_size < sizeof(*h) || h->hdr_size > len)
		return ERR("corrupt ring header: hdr_size %u", h->hdr_size), -1;
	if (h->record_size < IOTRACE_RECORD_SIZE || h->record_size % 8 ||
	    h->record_size > IOT_MAX_RECORD)
		return ERR("corrupt ring header: record_size %u",
			   h->record_size), -1;
	if (!h->nr_parts || h->nr_parts > 65536)
		return ERR("corrupt ring header: nr_parts %u", h->nr_parts), -1;
	if (!h->part_records || (h->part_records & (h->part_records - 1)))
		return ERR("corrupt ring header: part_records %u is not a power of two",
			   h->part_records), -1;
	if (h->part_hdr_size < sizeof(struct iotrace_part_hdr) ||
	    h->part_hdr_size % 8 || h->part_hdr_offset % 8 ||
	    h->data_offset % 8 || h->part_stride % 8)
		return ERR("corrupt ring header: misaligned part geometry"), -1;
	if (mul_ovf(h->nr_parts, h->part_hdr_size, &t) ||
	    add_ovf(t, h->part_hdr_offset, &end) || end > len)
		return snprintf(err, errlen,
				"truncated or corrupt ring: part headers end at %llu, ring has %zu bytes",
				(unsigned long long)end, len), -1;
	if (mul_ovf(h->part_records, h->record_size, &t) || t > h->part_stride)
		return ERR("corrupt ring header: part_stride %llu < %u records of %u bytes",
			   (unsigned long long)h->part_stride, h->part_records,
			   h->record_size), -1;
	if (mul_ovf(h->nr_parts - 1, h->part_stride, &end) ||
	    add_ovf(end, t, &end) || add_ovf(end, h->data_offset, &end) ||
	    end > len)
		return ERR("truncated ring: records end at %llu but only %zu bytes are there",
			   (unsigned long long)end, len), -1;
	ring->base = buf;
	ring->len = len;
	ring->record_size = h->record_size;
	ring->nr_parts = h->nr_parts;
	ring->part_records = h->part_records;
	return 0;
}

/* ---- ABI 2.0: the chunk pool (Documentation/abi.rst) ------------------ */

static int ring2_init(struct iot_ring *ring, const void *buf, size_t len,
		      char *err, size_t errlen)
{
	iot_ring_hdr2 h;
	uint64_t end = 0, t;

	if (len < sizeof(h))
		return ERR("truncated ring: %zu bytes, the header alone is %zu",
			   len, sizeof(h)), -1;
	memcpy(&h, buf, sizeof(h));
	if (h.hdr_size < sizeof(h) || h.hdr_size > len)
		return ERR("corrupt ring header: hdr_size %u", h.hdr_size), -1;
	if (h.record_size < IOTRACE_RECORD_SIZE || h.record_size % 8 ||
	    h.record_size > IOT_MAX_RECORD)
		return ERR("corrupt ring header: record_size %u",
			   h.record_size), -1;
	if (!h.nr_cpus || h.nr_cpus > 65536)
		return ERR("corrupt ring header: nr_cpus %u", h.nr_cpus), -1;
	if (h.chunk_records < 2 || (h.chunk_records & (h.chunk_records - 1)))
		return ERR("corrupt ring header: chunk_records %u is not a power of two",
			   h.chunk_records), -1;
	/* no chunk only in a metrics-only ring (buf_size 0): no records */
	if ((!h.nr_chunks && !(h.flags & IOTRACE_RING_METRICS_ONLY)) ||
	    h.nr_chunks == IOTRACE_CHUNK_NONE)
		return ERR("corrupt ring header: nr_chunks %u", h.nr_chunks), -1;
	if (h.cpu_hdr_size < sizeof(struct iotrace_cpu_hdr) ||
	    h.chunk_hdr_size < sizeof(struct iotrace_chunk_hdr) ||
	    h.cpu_hdr_size % 8 || h.chunk_hdr_size % 8 ||
	    h.cpu_hdr_offset % 8 || h.chunk_hdr_offset % 8 ||
	    h.data_offset % 8 || h.chunk_stride % 8)
		return ERR("corrupt ring header: misaligned chunk geometry"), -1;
	if (mul_ovf(h.nr_cpus, h.cpu_hdr_size, &t) ||
	    add_ovf(t, h.cpu_hdr_offset, &end) || end > len)
		return ERR("truncated or corrupt ring: CPU headers end at %llu, ring has %zu bytes",
			   (unsigned long long)end, len), -1;
	if (mul_ovf(h.nr_chunks, h.chunk_hdr_size, &t) ||
	    add_ovf(t, h.chunk_hdr_offset, &end) || end > len)
		return snprintf(err, errlen,
				"truncated or corrupt ring: chunk headers end at %llu, ring has %zu bytes",
				(unsigned long long)end, len), -1;
	if (mul_ovf(h.chunk_records, h.record_size, &t) || t > h.chunk_stride)
		return ERR("corrupt ring header: chunk_stride %llu < %u records of %u bytes",
			   (unsigned long long)h.chunk_stride, h.chunk_records,
			   h.record_size), -1;
	if (h.nr_chunks &&
	    (mul_ovf(h.nr_chunks - 1, h.chunk_stride, &end) ||
	     add_ovf(end, t, &end) || add_ovf(end, h.data_offset, &end) ||
	     end > len))
		return ERR("truncated ring: records end at %llu but only %zu bytes are there",
			   (unsigned long long)end, len), -1;
	ring->base = buf;
	ring->len = len;
	ring->record_size = h.record_size;
	ring->nr_parts = h.nr_cpus;
	ring->part_records = h.nr_chunks * h.chunk_records;
	ring->v2 = 1;
	ring->chunk_records = h.chunk_records;
	ring->nr_chunks = h.nr_chunks;
	ring->cpu_hdr_size = h.cpu_hdr_size;
	ring->chunk_hdr_size = h.chunk_hdr_size;
	ring->cpu_hdr_offset = h.cpu_hdr_offset;
	ring->chunk_hdr_offset = h.chunk_hdr_offset;
	ring->chunk_stride = h.chunk_stride;
	return 0;
}

static const struct iotrace_cpu_hdr *cpu_hdr2(const struct iot_ring *ring,
					      uint32_t cpu)
{
	return (const void *)(ring->base + ring->cpu_hdr_offset +
			      (uint64_t)cpu * ring->cpu_hdr_size);
}

static const struct iotrace_chunk_hdr *chunk_hdr2(const struct iot_ring *ring,
						  uint32_t k)
{
	return (const void *)(ring->base + ring->chunk_hdr_offset +
			      (uint64_t)k * ring->chunk_hdr_size);
}

/*
 * Chunk @k as a stable (take, cpu, first) triple: 0, or -1 when it is
 * unused, being taken or changed while read.
 */
static int chunk_read2(const struct iot_ring *ring, uint32_t k,
		       struct iot_chunk_ref *r)
{
	const struct iotrace_chunk_hdr *c = chunk_hdr2(ring, k);
	uint64_t take = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);

	if (!take || take == UINT64_MAX)
		return -1;
	r->cpu = __atomic_load_n(&c->cpu, __ATOMIC_RELAXED);
	r->first = __atomic_load_n(&c->first_seq, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&c->seq, __ATOMIC_RELAXED) != take)
		return -1;
	r->k = k;
	r->take = take;
	return 0;
}

/* Whether chunk @r (still taken as @r->take) holds @cpu's @seq; caches it. */
static int hit2(const struct iot_ring *ring, const struct iot_chunk_ref *r,
		uint32_t cpu, uint64_t seq)
{
	struct iot_ring *w = (struct iot_ring *)ring;	/* the cache only */

	if (r->cpu != cpu || seq < r->first ||
	    seq - r->first >= ring->chunk_records ||
	    __atomic_load_n(&chunk_hdr2(ring, r->k)->seq, __ATOMIC_ACQUIRE) !=
	    r->take)
		return 0;
	w->cache.valid = 1;
	w->cache.cpu = cpu;
	w->cache.k = r->k;
	w->cache.first = r->first;
	w->cache.take = r->take;
	return 1;
}

static int ref_cmp(const void *a, const void *b)
{
	const struct iot_chunk_ref *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return 0;
}

/* The first index entry of @cpu whose chunk may hold @seq (or past it). */
static uint32_t idx_find2(const struct iot_ring *ring, uint32_t cpu,
			  uint64_t seq)
{
	const struct iot_chunk_ref *x = ring->cache.idx;
	uint32_t lo = 0, hi = ring->cache.nidx;

	/* the last entry with (cpu, first) <= (cpu, seq), or the next one */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (x[mid].cpu < cpu || (x[mid].cpu == cpu && x[mid].first <= seq))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && x[lo - 1].cpu == cpu ? lo - 1 : lo;
}

#define IDX_ALL	UINT32_MAX	/* idx_build2(): the chunks of every CPU */

/**
 * idx_build2() - index the chunks of the pool by CPU and first sequence
 *	number.
 * @ring: the ring (its cache only is written).
 * @cpu: index only this CPU's chunks, or IDX_ALL.
 *
 * For the lookups of one snapshot or of one recorder pass: a chunk
 * recycled since is caught by its take number (hit2()), one taken since
 * is not in the index; a lookup the index cannot answer scans.  Counts as
 * a scan of the chunk headers (@ring->cache.nscan).
 */
static void idx_build2(const struct iot_ring *ring, uint32_t cpu)
{
	struct iot_ring *w = (struct iot_ring *)ring;	/* the cache only */
	struct iot_chunk_ref *x;
	uint32_t k, n = 0;

	x = malloc((size_t)ring->nr_chunks * sizeof(*x));
	if (!x)
		return;		/* the scans still answer */
	w->cache.nscan++;
	for (k = 0; k < ring->nr_chunks; k++)
		if (!chunk_read2(ring, k, &x[n]) &&
		    (cpu == IDX_ALL || x[n].cpu == cpu))
			n++;
	qsort(x, n, sizeof(*x), ref_cmp);
	w->cache.idx = x;
	w->cache.nidx = n;
}

static void idx_free2(const struct iot_ring *ring)
{
	struct iot_ring *w = (struct iot_ring *)ring;	/* the cache only */

	free(w->cache.idx);
	w->cache.idx = NULL;
	w->cache.nidx = 0;
}

/*
 * Find the chunk that holds CPU @cpu's sequence number @seq: 0 and the
 * cache set, or -1.  Tried in turn: the chunk last found, the CPU's
 * current chunk (cpu_hdr.cur: what a follower wants next), the index (a
 * snapshot's, or a recorder pass's, built here at the pass's first such
 * miss: the recorder is behind by more than the current chunk), and a scan
 * of every chunk.  The scan also notes the lowest first sequence number of
 * @cpu's chunks: every number below it is gone for good (it only grows
 * until a clear).
 */
static int find2(const struct iot_ring *ring, uint32_t cpu, uint64_t seq)
{
	struct iot_ring *w = (struct iot_ring *)ring;	/* the cache only */
	uint64_t lo = UINT64_MAX;
	uint32_t k, R = ring->chunk_records;
	struct iot_chunk_ref r;

	if (w->cache.valid && w->cache.cpu == cpu &&
	    seq - w->cache.first < R && seq >= w->cache.first &&
	    __atomic_load_n(&chunk_hdr2(ring, w->cache.k)->seq,
			    __ATOMIC_ACQUIRE) == w->cache.take)
		return 0;
	if (w->cache.lo_valid && w->cache.lo_cpu == cpu && seq < w->cache.lo)
		return -1;
	w->cache.valid = 0;
	k = __atomic_load_n(&cpu_hdr2(ring, cpu)->cur, __ATOMIC_RELAXED);
	if (k < ring->nr_chunks && !chunk_read2(ring, k, &r) &&
	    hit2(ring, &r, cpu, seq))
		return 0;
	if (!w->cache.idx && w->cache.pass && w->cache.pass_cpu == cpu) {
		w->cache.pass = 0;	/* once: out of memory, the scans */
		idx_build2(ring, cpu);
	}
	if (w->cache.idx) {
		k = idx_find2(ring, cpu, seq);
		if (k < w->cache.nidx && hit2(ring, &w->cache.idx[k], cpu, seq))
			return 0;
	}
	w->cache.nscan++;
	for (k = 0; k < ring->nr_chunks; k++) {
		if (chunk_read2(ring, k, &r) || r.cpu != cpu)
			continue;
		if (r.first < lo)
			lo = r.first;
		if (!w->cache.valid)
			hit2(ring, &r, cpu, seq);
	}
	if (lo != UINT64_MAX) {
		w->cache.lo_valid = 1;
		w->cache.lo_cpu = cpu;
		w->cache.lo = lo;
	}
	return w->cache.valid ? 0 : -1;
}

/* The lowest sequence number of @cpu still in a chunk, or its head. */
static uint64_t lo2(const struct iot_ring *ring, uint32_t cpu)
{
	uint64_t head = iot_ring_head(ring, cpu);
	const struct iot_chunk_ref *x = ring->cache.idx;
	uint32_t i;

	((struct iot_ring *)ring)->cache.lo_valid = 0;
	/*
	 * The index is sorted: @cpu's first chunk still taken as indexed is
	 * its lowest (chunks taken since hold newer numbers).
	 */
	for (i = x ? idx_find2(ring, cpu, 0) : ring->cache.nidx;
	     i < ring->cache.nidx && x[i].cpu == cpu; i++)
		if (__atomic_load_n(&chunk_hdr2(ring, x[i].k)->seq,
				    __ATOMIC_ACQUIRE) == x[i].take)
			return x[i].first < head ? x[i].first : head;
	find2(ring, cpu, UINT64_MAX);
	if (ring->cache.lo_valid && ring->cache.lo_cpu == cpu &&
	    ring->cache.lo < head)
		return ring->cache.lo;
	return head;
}

/* The 2.0 record and the tool's: the same bytes up to issue_cpu ... */
_Static_assert(offsetof(iot_record2, hwq) ==
	       offsetof(struct iotrace_record, complete_cpu),
	       "2.0 record: seq .. issue_cpu as in the tool's");
/* ... hwq .. cmd_len two bytes further on (after complete_cpu) ... */
_Static_assert(offsetof(struct iotrace_record, hwq) ==
	       offsetof(iot_record2, hwq) + 2 &&
	       offsetof(struct iotrace_record, reserved) ==
	       offsetof(iot_record2, pid) + 2,
	       "2.0 record: hwq .. cmd_len 2 bytes before the tool's");
/* ... and the command where it is in the tool's */
_Static_assert(offsetof(struct iotrace_record, cmd) ==
	       offsetof(iot_record2, cmd) &&
	       sizeof(((struct iotrace_record *)0)->cmd) ==
	       sizeof(((iot_record2 *)0)->cmd),
	       "2.0 record: cmd as in the tool's");

/*
 * The 2.0 record at @src (a slot of a live ring: what is read here is
 * only kept once its copy is known good) of CPU @cpu as the record the
 * tool works on.  Every byte of @b is written: the reserved ones zeroed.
 */
static void rec2_to_v1(const uint8_t *src, uint32_t cpu,
		       struct iotrace_record *b)
{
	uint64_t cg;
	uint32_t pid;

	memcpy(b, src, offsetof(iot_record2, hwq));
	b->complete_cpu = cpu;
	memcpy(&b->hwq, src + offsetof(iot_record2, hwq),
	       offsetof(iot_record2, pid) - offsetof(iot_record2, hwq));
	b->reserved = 0;
	memcpy(b->cmd, src + offsetof(iot_record2, cmd), sizeof(b->cmd));
	/* the cgroup id is no command byte (1.x: zero, or NVMe's zeroed PRP2) */
	memcpy(&cg, b->cmd + IOTRACE_CMD_CGROUP_OFF, sizeof(cg));
	memset(b->cmd + IOTRACE_CMD_CGROUP_OFF, 0, sizeof(cg));
	memcpy(&pid, src + offsetof(iot_record2, pid), sizeof(pid));
	b->pid = pid;
	b->reserved2 = 0;
	b->cgroup = le64toh(cg);
}

/**
 * iot_rec2_read() - a 2.0 record (a ring's, or an in-flight slot's of the
 *	persistent region) as the record the tool works on.
 * @src: the record, IOTRACE_RECORD_SIZE bytes.
 * @cpu: the CPU that completed it (UINT16_MAX: not completed).
 * @b: out.
 */
void iot_rec2_read(const void *src, uint32_t cpu, struct iotrace_record *b)
{
	rec2_to_v1(src, cpu, b);
}

/*
 * Copy CPU @cpu's records @seq .. (at most @max, @max > 0, and no further
 * than the end of the chunk that holds @seq) into @out, converted: one
 * lookup of the chunk and one check of its take number for the whole run,
 * each record's sequence number read before (acquire) and after its copy.
 * *@n: the records copied, all good; the run ends at the first record that
 * is not, whose iot_ring_copy() value is returned (0 when none failed).
 * The take number is read after the last copy: if the chunk was taken
 * again meanwhile, nothing of the run is known good and none is kept
 * (*@n 0, 1 returned: the caller finds @seq gone).
 */
static int copy_run2(const struct iot_ring *ring, uint32_t cpu, uint64_t seq,
		     uint32_t max, struct iotrace_record *out, uint32_t *n)
{
	const uint8_t *slot;
	uint64_t take, left;
	uint32_t k, i, rs = ring->record_size;
	int ret = 0;

	*n = 0;
	if (find2(ring, cpu, seq))
		return 1;
	k = ring->cache.k;
	take = ring->cache.take;
	left = ring->chunk_records - (seq - ring->cache.first);
	if (max > left)
		max = left;
	slot = ring->base + ring->hdr.data_offset +
		(uint64_t)k * ring->chunk_stride +
		(seq - ring->cache.first) * (uint64_t)rs;
	for (i = 0; i < max; i++, slot += rs) {
		const uint32_t *sp = (const uint32_t *)slot;
		uint32_t want = (uint32_t)(seq + i);
		uint32_t s1 = __atomic_load_n(sp, __ATOMIC_ACQUIRE);

		if (s1 != want) {
			/* being written or not yet (~want), or another */
			ret = s1 == (uint32_t)~want ? 2 : 1;
			break;
		}
		rec2_to_v1(slot, cpu, &out[i]);
		/* the copy done before seq is read again */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(sp, __ATOMIC_RELAXED) != want) {
			ret = 2;	/* changed while copied */
			break;
		}
	}
	if (!i)
		return ret;
	/* every copy done before the take number is read again */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&chunk_hdr2(ring, k)->seq, __ATOMIC_RELAXED) != take)
		return 1;	/* recycled while copied */
	*n = i;
	return ret;
}

static int copy2(const struct iot_ring *ring, uint32_t cpu, uint64_t seq,
		 void *out)
{
	uint32_t n;

	return copy_run2(ring, cpu, seq, 1, out, &n);
}

static const struct iotrace_part_hdr *part_hdr(const struct iot_ring *ring,
					       uint32_t part)
{
	return (const void *)(ring->base + ring->hdr.part_hdr_offset +
			      (uint64_t)part * ring->hdr.part_hdr_size);
}

/* Next sequence number of a part (acquire: records before it are visible). */
uint64_t iot_ring_head(const struct iot_ring *ring, uint32_t part)
{
	if (ring->v2)
		return __atomic_load_n(&cpu_hdr2(ring, part)->head,
				       __ATOMIC_ACQUIRE);
	return __atomic_load_n(&part_hdr(ring, part)->head, __ATOMIC_ACQUIRE);
}

uint64_t iot_ring_dropped(const struct iot_ring *ring, uint32_t part)
{
	if (ring->v2)
		return __atomic_load_n(&cpu_hdr2(ring, part)->dropped,
				       __ATOMIC_RELAXED);
	return __atomic_load_n(&part_hdr(ring, part)->dropped,
			       __ATOMIC_RELAXED);
}

/* Completions the disk's filter left out (zero before ABI minor 1). */
uint64_t iot_ring_filtered(const struct iot_ring *ring, uint32_t part)
{
	if (ring->v2)
		return __atomic_load_n(&cpu_hdr2(ring, part)->filtered,
				       __ATOMIC_RELAXED);
	return __atomic_load_n(&part_hdr(ring, part)->filtered,
			       __ATOMIC_RELAXED);
}

/**
 * iot_ring_copy() - copy the record with part sequence number @seq.
 * @ring: the ring.
 * @part: part index.
 * @seq: sequence number wanted.
 * @out: a struct iotrace_record (the tool's record, whatever the ring's
 *	record_size).
 *
 * What @out holds when the record could not be copied is undefined (a
 * torn copy may be there; 2.x: converted from the slot as it was read).
 *
 * Return: 0 when @out holds the record, 1 when the slot holds another
 * sequence (overwritten or not yet written), 2 when it changed while being
 * copied or is being written (torn).
 */
int iot_ring_copy(const struct iot_ring *ring, uint32_t part, uint64_t seq,
		  void *out)
{
	const uint8_t *slot;
	const uint32_t *sp;
	uint32_t want = (uint32_t)seq, s1, s2;

	/*
	 * A 2.0 ring before its 1.x slot is even computed: the 1.x fields
	 * of its header (ring->hdr) are other fields there, which
	 * iot_ring_init() did not bound as a 1.x geometry (a pool of one
	 * chunk has a stride of any size), and a pointer that overflows
	 * is undefined behaviour whether it is read or not.
	 */
	if (ring->v2)
		return copy2(ring, part, seq, out);
	slot = ring->base + ring->hdr.data_offset +
		(uint64_t)part * ring->hdr.part_stride +
		(seq & (ring->part_records - 1)) * (uint64_t)ring->record_size;
	sp = (const uint32_t *)slot;
	s1 = __atomic_load_n(sp, __ATOMIC_ACQUIRE);
	if (s1 == IOTRACE_SEQ_BUSY)
		return 2;
	if (s1 != want)
		return 1;
	/* a 1.x record, no submitter (bytes past 128 are no pid) */
	memset(out, 0, sizeof(struct iotrace_record));
	memcpy(out, slot, IOTRACE_RECORD_SIZE);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	s2 = __atomic_load_n(sp, __ATOMIC_RELAXED);
	if (s2 != want)
		return 2;
	return 0;
}

/**
 * iot_ring_copy_run() - copy the records of @part from sequence number
 *	@seq on, as far as they are good and in one stretch of the ring.
 * @ring: the ring.
 * @part: part index (2.x: the CPU).
 * @seq: first sequence number wanted.
 * @max: at most this many (> 0; the caller keeps below the head).
 * @out: room for @max struct iotrace_record (the tool's record).
 * @n: out, the records copied into @out (@seq .. @seq + *@n - 1), each
 *	as iot_ring_copy() would have copied it.
 *
 * For 2.x rings, the records of one chunk are copied together: the
 * chunk found and its take number checked once for the run, each record's
 * sequence number checked as iot_ring_copy() checks it.  A run ends at
 * @max, at the end of the chunk, or at the first record that cannot be
 * copied.  1.x rings: iot_ring_copy() record by record.
 *
 * Return: 0 when *@n stopped at @max or at a chunk's end (*@n > 0, call
 * again for more), else iot_ring_copy()'s value for record @seq + *@n.
 */
int iot_ring_copy_run(const struct iot_ring *ring, uint32_t part,
		      uint64_t seq, uint32_t max, struct iotrace_record *out,
		      uint32_t *n)
{
	uint32_t i;
	int r = 0;

	if (ring->v2)
		return copy_run2(ring, part, seq, max, out, n);
	for (i = 0; i < max; i++) {
		r = iot_ring_copy(ring, part, seq + i, &out[i]);
		if (r)
			break;
	}
	*n = i;
	return r;
}

/*
 * The lowest first sequence number above @seq of CPU @cpu's chunks (one
 * scan of the chunk headers), or UINT64_MAX when none is above.
 */
static uint64_t next2(const struct iot_ring *ring, uint32_t cpu, uint64_t seq)
{
	uint64_t best = UINT64_MAX;
	struct iot_chunk_ref r;
	uint32_t k;

	((struct iot_ring *)ring)->cache.nscan++;
	for (k = 0; k < ring->nr_chunks; k++)
		if (!chunk_read2(ring, k, &r) && r.cpu == cpu &&
		    r.first > seq && r.first < best)
			best = r.first;
	return best;
}

/*
 * Past record @seq of @part, found gone (iot_ring_gone()), below @head:
 * where the gap it begins ends, so that a reader steps over it at once.
 * 2.x: the next chunk of the CPU's above @seq, or @head when none is
 * above: no chunk holds a number in between (one that did would hold
 * @seq too, or be above it), so each is gone as @seq is.  1.x: @seq + 1.
 */
static uint64_t gap_end(const struct iot_ring *ring, uint32_t part,
			uint64_t seq, uint64_t head)
{
	uint64_t nx;

	if (!ring->v2)
		return seq + 1;
	nx = next2(ring, part, seq);
	return nx < head ? nx : head;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The first sequence numbers of @cpu's chunks, ascending, into @first
 * (room for nr_chunks): from the index when there is one (a snapshot's),
 * else from one scan of the chunk headers.
 */
static uint32_t cpu_firsts2(const struct iot_ring *ring, uint32_t cpu,
			    uint64_t *first)
{
	const struct iot_chunk_ref *x = ring->cache.idx;
	struct iot_chunk_ref r;
	uint32_t i, n = 0;

	if (x) {
		for (i = idx_find2(ring, cpu, 0);
		     i < ring->cache.nidx && x[i].cpu == cpu; i++)
			if (__atomic_load_n(&chunk_hdr2(ring, x[i].k)->seq,
					    __ATOMIC_ACQUIRE) == x[i].take)
				first[n++] = x[i].first;
		return n;
	}
	((struct iot_ring *)ring)->cache.nscan++;
	for (i = 0; i < ring->nr_chunks; i++)
		if (!chunk_read2(ring, i, &r) && r.cpu == cpu)
			first[n++] = r.first;
	qsort(first, n, sizeof(*first), cmp_u64);
	return n;
}

/**
 * iot_ring_gaps() - the runs of sequence numbers of @part from @lo up to
 *	@head that no chunk holds: what was overwritten between the chunks
 *	a hold keeps and the newer ones (ABI 2.1).
 * @ring: the ring.
 * @part: the part (the CPU).
 * @lo: the lowest sequence number of interest (iot_ring_lo()).
 * @head: the part's head, read before.
 * @gap_lo: the gaps' first numbers, ascending.
 * @gap_hi: the numbers past each gap.
 * @max: room in @gap_lo and @gap_hi; a gap after @max - 1 others extends
 *	the last one, so that every gap is within one.
 *
 * A chunk being taken while its header is read is not seen: its records
 * count as a gap (they are being overwritten).  1.x rings (no holds) and
 * out of memory: none.
 *
 * Return: the number of gaps.
 */
uint32_t iot_ring_gaps(const struct iot_ring *ring, uint32_t part,
		       uint64_t lo, uint64_t head, uint64_t *gap_lo,
		       uint64_t *gap_hi, uint32_t max)
{
	uint64_t *first, at = lo;
	uint32_t k, n, nr = 0;

	if (!ring->v2 || !max || lo >= head)
		return 0;
	first = malloc(((size_t)ring->nr_chunks + 1) * sizeof(*first));
	if (!first)
		return 0;
	n = cpu_firsts2(ring, part, first);
	for (k = 0; k <= n; k++) {
		uint64_t f = k < n ? first[k] : head;

		if (f > head)
			f = head;
		if (f > at) {
			if (nr < max) {
				gap_lo[nr] = at;
				nr++;
			}
			gap_hi[nr - 1] = f;
		}
		if (k < n && first[k] + ring->chunk_records > at)
			at = first[k] + ring->chunk_records;
		if (at >= head)
			break;
	}
	free(first);
	return nr;
}

/**
 * iot_ring_in_gaps() - how many of the sequence numbers from @a up to @b
 *	are within the gaps of iot_ring_gaps().
 * @lo: the gaps' first numbers.
 * @hi: the numbers past each.
 * @n: how many.
 * @a: the first number.
 * @b: the number past the last.
 *
 * Return: the count.
 */
uint64_t iot_ring_in_gaps(const uint64_t *lo, const uint64_t *hi, uint32_t n,
			  uint64_t a, uint64_t b)
{
	uint64_t sum = 0;
	uint32_t i;

	for (i = 0; i < n; i++) {
		uint64_t x = lo[i] > a ? lo[i] : a;
		uint64_t y = hi[i] < b ? hi[i] : b;

		if (x < y)
			sum += y - x;
	}
	return sum;
}

/**
 * iot_ring_snapshot() - hand every record present in the ring to @cb.
 * @ring: the ring.
 * @disk: disk index passed to @cb.
 * @cb: callback.
 * @arg: its argument.
 * @c: counters, added to.
 *
 * The records handed out are of the generation the ring had when the
 * snapshot began: a clear during it (a live ring) ends it at the first
 * copy made (or failed) after the clear, which is not handed out, and
 * sets @c->cleared; the counts are then those of what was read up to
 * there (the part's records from that one on are not counted recorded).
 * A clear after the last copy is not seen: what was read is whole.
 *
 * Return: 0, or the callback's non-zero value.
 */
int iot_ring_snapshot(const struct iot_ring *ring, unsigned int disk,
		      iot_rec_cb cb, void *arg, struct iot_counts *c)
{
	uint64_t rec[IOT_MAX_RECORD / 8];
	uint8_t *buf = (uint8_t *)rec;
	uint64_t gen = iot_ring_generation(ring);
	uint32_t p;
	int ret = 0, cut = 0;

	/* 2.0: the chunks indexed once, not scanned at every chunk crossed */
	if (ring->v2)
		idx_build2(ring, IDX_ALL);

	for (p = 0; p < ring->nr_parts && !ret && !cut; p++) {
		uint64_t head = iot_ring_head(ring, p);
		uint64_t from, overwritten;
		uint64_t dropped = iot_ring_dropped(ring, p), s;
		uint64_t filtered = iot_ring_filtered(ring, p);
		uint64_t glo[IOT_RING_GAPS], ghi[IOT_RING_GAPS];
		uint32_t ng = 0;

		if (ring->v2) {
			/*
			 * whole chunks recycled, counted by the writers: the
			 * gaps already there (a hold's chunks below newer
			 * ones) are stepped over, not counted again
			 */
			from = lo2(ring, p);
			ng = iot_ring_gaps(ring, p, from, head, glo, ghi,
					   IOT_RING_GAPS);
			overwritten = __atomic_load_n(&cpu_hdr2(ring, p)->overwritten,
						      __ATOMIC_RELAXED);
		} else {
			from = head > ring->part_records ?
				head - ring->part_records : 0;
			overwritten = from;
		}
		/* the part's head and counters of a clear that came since */
		if (!iot_ring_same_generation(ring, gen)) {
			c->cleared = 1;
			cut = 1;
			break;
		}
		c->overwritten += overwritten;
		c->recorded += head;
		c->dropped += dropped;
		c->filtered += filtered;
		c->completed += head + dropped + filtered;
		for (s = from; s < head && !ret; s++) {
			int fail = iot_ring_copy(ring, p, s, buf);
			uint64_t nx;

			/*
			 * The copy, or its failure (the clear wipes the
			 * slots), of a generation since: the part's head is
			 * counted as far as it was read, the rest of it and
			 * the parts after are not
			 */
			if (!iot_ring_same_generation(ring, gen)) {
				c->recorded -= head - s;
				c->completed -= head - s;
				c->cleared = 1;
				cut = 1;
				break;
			}
			if (fail) {
				/*
				 * Overwritten since we read head (the whole
				 * gap it begins, in one step), or not yet
				 * published (head counts records started).
				 */
				if (!iot_ring_gone(ring, p, s)) {
					c->torn++;
					continue;
				}
				nx = gap_end(ring, p, s, head);
				c->overwritten += nx - s -
					iot_ring_in_gaps(glo, ghi, ng, s, nx);
				s = nx - 1;
				continue;
			}
			c->present++;
			c->valid++;
			ret = cb(arg, disk, (const struct iotrace_record *)buf);
		}
	}
	if (ring->v2)
		idx_free2(ring);
	return ret;
}

void iot_ring_disk(const struct iot_ring *ring, struct iot_disk *d)
{
	memset(d, 0, sizeof(*d));
	memcpy(d->name, ring->hdr.name, IOTRACE_NAME_LEN);
	d->name[IOTRACE_NAME_LEN] = 0;
	d->dev_major = ring->hdr.dev_major;
	d->dev_minor = ring->hdr.dev_minor;
	d->lbs = ring->hdr.logical_block_size;
	d->nr_parts = ring->nr_parts;
	d->part_records = ring->part_records;
	d->flags = ring->hdr.flags;
	d->generation = ring->hdr.generation;
}

/**
 * iot_ring_pass_begin() - start a pass over the records of @part (the
 *	recorder's drain of one part).
 * @ring: the ring (its lookup cache only is written).
 * @part: the part (2.x: the CPU).
 *
 * 2.x: the lookups of @part's chunks until iot_ring_pass_end() may use an
 * index of its chunks, built at the first lookup that is neither in the
 * chunk last found nor in the CPU's current chunk (a reader behind by more
 * than that chunk), instead of scanning every chunk header at each chunk
 * crossed.  The answers are those of the scans: a chunk recycled since the
 * index was built is caught by its take number, one taken since is not in
 * it, and a lookup the index cannot answer scans.  1.x: nothing.
 */
void iot_ring_pass_begin(const struct iot_ring *ring, uint32_t part)
{
	struct iot_ring *w = (struct iot_ring *)ring;	/* the cache only */

	if (!ring->v2)
		return;
	idx_free2(ring);
	w->cache.pass = 1;
	w->cache.pass_cpu = part;
}

/**
 * iot_ring_pass_end() - end the pass of iot_ring_pass_begin(): its index
 *	(it grows stale as the writers take chunks) is freed.
 * @ring: the ring.
 */
void iot_ring_pass_end(const struct iot_ring *ring)
{
	struct iot_ring *w = (struct iot_ring *)ring;	/* the cache only */

	if (!ring->v2)
		return;
	w->cache.pass = 0;
	idx_free2(ring);
}

/**
 * iot_ring_generation() - the ring's generation (moved on by every clear).
 * @ring: a live ring.
 *
 * Read with acquire semantics: what is read of the ring after it is at
 * least as new as the clear that set it.  A reader reads it before what
 * it reads of a generation (the heads, the records), and checks it with
 * iot_ring_same_generation() after.
 *
 * Return: the generation.
 */
uint64_t iot_ring_generation(const struct iot_ring *ring)
{
	const struct iotrace_ring_hdr *h =
		(const struct iotrace_ring_hdr *)ring->base;

	return __atomic_load_n(&h->generation, __ATOMIC_ACQUIRE);
}

/**
 * iot_ring_same_generation() - whether no clear became visible since
 *	@gen was read (iot_ring_generation()): what was copied since is of
 *	generation @gen.
 * @ring: a live ring.
 * @gen: the generation the reader reads.
 *
 * As a seqlock's reader re-reads its sequence count: every load before
 * this call (a record's copy, a head) is done before the generation is
 * read again.  A clear resets the ring and only then moves the generation
 * on, and the writers write the new generation's records after it moved
 * on: a copy that read any of them sees the generation moved on here.  A
 * copy that read a slot being reset fails its own check (the slot's
 * sequence number, the chunk's take number).
 *
 * Return: 1 while the ring is of generation @gen, 0 once it was cleared.
 */
int iot_ring_same_generation(const struct iot_ring *ring, uint64_t gen)
{
	const struct iotrace_ring_hdr *h =
		(const struct iotrace_ring_hdr *)ring->base;

	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&h->generation, __ATOMIC_RELAXED) == gen;
}

/**
 * iot_ring_restart() - forget what the lookups know of the ring's
 *	previous generation, for a reader that saw the generation move on.
 * @ring: the ring (its lookup cache only is written).
 *
 * 2.x: the lowest sequence number a CPU still has only grows until a
 * clear; one noted before the clear would have the new generation's first
 * records taken for overwritten.  The chunk last found is checked by its
 * take number (unique across clears) anyway.  1.x: nothing to forget.
 */
void iot_ring_restart(const struct iot_ring *ring)
{
	struct iot_ring *w = (struct iot_ring *)ring;	/* the cache only */

	w->cache.valid = 0;
	w->cache.lo_valid = 0;
	if (ring->v2)
		idx_free2(ring);
}

/* Whether record @seq of @part has been overwritten (is no longer present). */
int iot_ring_gone(const struct iot_ring *ring, uint32_t part, uint64_t seq)
{
	uint64_t head = iot_ring_head(ring, part);

	/* 2.0: in no chunk of its CPU (recycled, or never written) */
	if (ring->v2)
		return seq < head && find2(ring, part, seq);

	return head > ring->part_records && head - ring->part_records > seq;
}

/**
 * iot_ring_lo() - the lowest sequence number of @part still in the ring.
 * @ring: the ring.
 * @part: the part (2.0: the CPU).
 *
 * 2.x: the lowest first_seq of the CPU's chunks (or its head).  With a
 * hold (ABI 2.1) the held chunks may be older than the pool's size below
 * the head: they are still there.  1.x: head minus the part's records.
 *
 * Return: the sequence number.
 */
uint64_t iot_ring_lo(const struct iot_ring *ring, uint32_t part)
{
	uint64_t head = iot_ring_head(ring, part);

	if (ring->v2)
		return lo2(ring, part);
	return head > ring->part_records ? head - ring->part_records : 0;
}

/**
 * iot_ring_next() - past a record of @part that is gone: the next
 *	sequence number that may still be there.
 * @ring: the ring.
 * @part: the part.
 * @seq: the record found gone.
 *
 * 2.x: the lowest first_seq above @seq of the CPU's chunks (one scan of
 * the chunk headers), so that a gap of many chunks, such as the records
 * overwritten between a hold and the newest chunks, is stepped over at
 * once; @seq + 1 when no chunk is above (or for 1.x).
 *
 * Return: the sequence number.
 */
uint64_t iot_ring_next(const struct iot_ring *ring, uint32_t part,
		       uint64_t seq)
{
	uint64_t best;

	if (!ring->v2)
		return seq + 1;
	best = next2(ring, part, seq);
	return best == UINT64_MAX ? seq + 1 : best;
}

/**
 * iot_ring_detached() - whether @ring is final (IOTRACE_RING_DETACHED:
 *	its disk was removed, or a resize replaced it).
 * @ring: a live ring.
 *
 * Once it is, the kernel writes no more record into @ring: a read after
 * this returned 1 reads everything the ring will ever hold.
 *
 * Return: 1 or 0.
 */
int iot_ring_detached(const struct iot_ring *ring)
{
	const struct iotrace_ring_hdr *h =
		(const struct iotrace_ring_hdr *)ring->base;

	return !!(__atomic_load_n(&h->flags, __ATOMIC_ACQUIRE) &
		  IOTRACE_RING_DETACHED);
}

/**
 * iot_ring_follow_init() - start following @ring from its heads now.
 * @f: the follower.
 * @ring: a live ring.
 *
 * Return: 0, or -1 when out of memory.
 */
int iot_ring_follow_init(struct iot_ring_follow *f, const struct iot_ring *ring)
{
	uint32_t p;

	memset(f, 0, sizeof(*f));
	f->ring = ring;
	f->cur = calloc(ring->nr_parts, sizeof(*f->cur));
	if (!f->cur)
		return -1;
	/* the generation first: heads of a clear under way are of the next */
	f->gen = iot_ring_generation(ring);
	for (p = 0; p < ring->nr_parts; p++)
		f->cur[p] = iot_ring_head(ring, p);
	return 0;
}

/**
 * iot_ring_follow_poll() - the records published since the last poll.
 * @f: the follower.
 * @cb: called for each record, part by part (disk 0); non-zero stops.
 * @arg: for @cb.
 *
 * A clear (new generation) starts every part over; what the poll copies
 * is handed out only while the ring is still of the generation it started
 * with (iot_ring_same_generation() after each copy): a clear during the
 * poll ends it, and the next one starts over, so that no record is handed
 * out under two generations.  A record being written is left for the next
 * poll; records the writers overwrote or tore first are counted in
 * @f->lost.
 *
 * Return: 0, or what @cb returned.
 */
int iot_ring_follow_poll(struct iot_ring_follow *f, iot_rec_cb cb, void *arg)
{
	const struct iot_ring *ring = f->ring;
	uint64_t rec[IOT_MAX_RECORD / 8], g;
	uint32_t p;
	int ret = 0, cleared = 0;

	g = iot_ring_generation(ring);
	if (g != f->gen) {
		/* cleared: every part from its first record, nothing known */
		memset(f->cur, 0, ring->nr_parts * sizeof(*f->cur));
		f->gen = g;
		iot_ring_restart(ring);
	}
	for (p = 0; p < ring->nr_parts && !ret && !cleared; p++) {
		uint64_t head = iot_ring_head(ring, p), s;

		if (!iot_ring_same_generation(ring, g))
			break;	/* cleared: the next poll starts over */
		/*
		 * A head below the cursor is a clear under way (the heads
		 * are reset before the generation moves on): nothing of
		 * this part until the generation has moved on.
		 */
		if (head < f->cur[p])
			continue;
		if (head - f->cur[p] > ring->part_records) {
			f->lost += head - ring->part_records - f->cur[p];
			f->cur[p] = head - ring->part_records;
		}
		for (s = f->cur[p]; s < head; s++) {
			int r = iot_ring_copy(ring, p, s, rec), gone;
			uint64_t nx;

			/*
			 * A clear during the copy: the record may be the next
			 * generation's (handed out again after the restart)
			 * or a slot being reset, neither lost nor good.
			 */
			if (!iot_ring_same_generation(ring, g)) {
				cleared = 1;
				break;
			}
			gone = r && iot_ring_gone(ring, p, s);
			if (r == 2 && !gone)
				break;	/* being written: next time */
			if (r && !gone) {
				f->lost++;	/* torn */
				continue;
			}
			if (r) {
				/* the whole gap it begins, in one step */
				nx = gap_end(ring, p, s, head);
				f->lost += nx - s;
				s = nx - 1;
				continue;
			}
			ret = cb(arg, 0, (const struct iotrace_record *)rec);
			if (ret) {
				s++;
				break;
			}
		}
		f->cur[p] = s;
	}
	return ret;
}

void iot_ring_follow_free(struct iot_ring_follow *f)
{
	free(f->cur);
	f->cur = NULL;
}
