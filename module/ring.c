// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace - ring memory (ABI 2.0): geometry, allocation, reset, the chunk
 * pool (reserve, commit, take) and counters.
 *
 * The layout is the one documented in uapi/linux/iotrace.h: a header page,
 * one struct iotrace_cpu_hdr per possible CPU, one struct iotrace_chunk_hdr
 * per chunk (each block rounded up to a page), then the chunks.  The writer
 * protocol, and why it is safe against nesting on one CPU and against other
 * CPUs recycling chunks, is in Documentation/module.rst ("The chunk
 * protocol").  In short:
 *
 *  - a chunk is FREE, CURRENT or FULL; only a FREE or FULL chunk is taken,
 *    with one cmpxchg (iotrace_chunk_take());
 *  - while CURRENT only its CPU touches its writer state, with local_t
 *    operations and cmpxchg_local();
 *  - a CURRENT chunk holds chunk_records + 1 references: one per slot,
 *    dropped when that slot's record is published, and one for being
 *    (or having been) the CPU's current chunk, dropped once another chunk
 *    replaced it and no writer of the CPU is inside (nest == 0); the last
 *    drop makes it FULL.
 */
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/vmalloc.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/atomic.h>
#include <asm/local64.h>
#include "iotrace.h"

/* iotrace_chunk_hdr.state */
#define IOTRACE_CHUNK_FREE	0
#define IOTRACE_CHUNK_CURRENT	1
#define IOTRACE_CHUNK_FULL	2

/* A writer gives up (dropped) after taking this many chunks in a row. */
#define IOTRACE_SWITCH_TRIES	4

#ifdef IOTRACE_DEBUG
/*
 * Test hook (debug builds only): the CPU sequence number of every CPU's
 * first record after a clear, rounded down to a whole chunk, so that a
 * test reaches 2^32 (the busy-marker wrap) in a few thousand records.  The
 * CPU heads start there too (they are the next sequence numbers); the
 * module's own counters subtract it (iotrace_disk.seq_base).
 */
static unsigned long long iotrace_seq_start;
module_param_named(debug_seq_start, iotrace_seq_start, ullong, 0644);
MODULE_PARM_DESC(debug_seq_start,
		 "debug: first CPU sequence number after a clear (busy-marker tests)");
static u64 iotrace_first_seq(const struct iotrace_disk *d)
{
	return round_down((u64)READ_ONCE(iotrace_seq_start),
			  (u64)d->chunk_records);
}
#else
static u64 iotrace_first_seq(const struct iotrace_disk *d)
{
	return 0;
}
#endif

static u64 iotrace_cpu_blk(u32 nr_cpus)
{
	return round_up((u64)nr_cpus * IOTRACE_CPU_HDR_SIZE, PAGE_SIZE);
}

static u64 iotrace_chunk_blk(u64 nr_chunks)
{
	return round_up(nr_chunks * IOTRACE_CHUNK_HDR_SIZE, PAGE_SIZE);
}

/* Bytes of a ring of @n chunks of @recs records for @nr_cpus CPUs. */
static u64 iotrace_ring_bytes(u32 nr_cpus, u64 n, u32 recs)
{
	return PAGE_SIZE + iotrace_cpu_blk(nr_cpus) + iotrace_chunk_blk(n) +
		n * recs * IOTRACE_RECORD_SIZE;
}

/* Most chunks of @recs records that @buf_size holds. */
static u64 iotrace_fit_chunks(unsigned long buf_size, u32 nr_cpus, u32 recs)
{
	u64 fixed = PAGE_SIZE + iotrace_cpu_blk(nr_cpus);
	u64 n;

	if (buf_size <= fixed)
		return 0;
	n = div64_u64(buf_size - fixed,
		      (u64)recs * IOTRACE_RECORD_SIZE + IOTRACE_CHUNK_HDR_SIZE);
	while (n && iotrace_ring_bytes(nr_cpus, n, recs) > buf_size)
		n--;
	return n;
}

/**
 * iotrace_ring_min_size() - smallest buf_size that gives every possible
 *	CPU two chunks of IOTRACE_MIN_CHUNK_RECORDS records.
 *
 * Return: bytes, never below IOTRACE_MIN_BUF_SIZE.
 */
unsigned long iotrace_ring_min_size(void)
{
	u64 min = iotrace_ring_bytes(nr_cpu_ids, 2ULL * nr_cpu_ids,
				     IOTRACE_MIN_CHUNK_RECORDS);

	return max_t(u64, min, IOTRACE_MIN_BUF_SIZE);
}

/**
 * iotrace_ring_geometry() - lay out a ring of at most @buf_size bytes.
 * @buf_size: bytes allowed for the whole ring; 0 for none (metrics only).
 * @g: out, the layout.
 *
 * The largest chunk (up to IOTRACE_MAX_CHUNK_RECORDS records) that still
 * gives IOTRACE_CHUNKS_PER_CPU chunks per possible CPU, else the smallest
 * chunk if that gives at least two per possible CPU.  A @buf_size of 0 is
 * a ring of no chunk: the header and the CPU headers (the counters) only,
 * a page and a page per 64 possible CPUs.
 *
 * Return: 0, or -ERANGE when @buf_size is outside the documented range.
 */
int iotrace_ring_geometry(unsigned long buf_size, struct iotrace_geom *g)
{
	u32 nr_cpus = nr_cpu_ids;
	u32 recs;
	u64 n = 0;

	if (!buf_size) {
		recs = IOTRACE_MIN_CHUNK_RECORDS;
		goto layout;
	}
	if (buf_size < iotrace_ring_min_size() ||
	    buf_size > IOTRACE_MAX_BUF_SIZE)
		return -ERANGE;
	for (recs = IOTRACE_MAX_CHUNK_RECORDS;
	     recs >= IOTRACE_MIN_CHUNK_RECORDS; recs /= 2) {
		n = iotrace_fit_chunks(buf_size, nr_cpus, recs);
		if (n >= (u64)IOTRACE_CHUNKS_PER_CPU * nr_cpus)
			break;
	}
	if (recs < IOTRACE_MIN_CHUNK_RECORDS)
		recs = IOTRACE_MIN_CHUNK_RECORDS;
	if (n < 2ULL * nr_cpus || n >= IOTRACE_CHUNK_NONE)
		return -ERANGE;
layout:
	g->nr_cpus = nr_cpus;
	g->chunk_records = recs;
	g->nr_chunks = n;
	g->cpu_hdr_offset = PAGE_SIZE;
	g->chunk_hdr_offset = PAGE_SIZE + iotrace_cpu_blk(nr_cpus);
	g->data_offset = g->chunk_hdr_offset + iotrace_chunk_blk(n);
	g->ring_size = iotrace_ring_bytes(nr_cpus, n, recs);
	return 0;
}

/**
 * iotrace_ring_reset() - empty a ring that no probe is writing.
 * @d: the disk; recording must be off and synchronized.
 *
 * Every slot's seq becomes ~index (no reader expects it), every chunk is
 * free and never taken, every CPU has no current chunk; then the
 * generation moves on.
 */
void iotrace_ring_reset(struct iotrace_disk *d)
{
	u32 c, i;

	for (c = 0; c < d->nr_chunks; c++) {
		struct iotrace_chunk_hdr *ch = iotrace_chunk_hdr(d, c);

		WRITE_ONCE(ch->seq, 0);
		for (i = 0; i < d->chunk_records; i++)
			WRITE_ONCE(iotrace_chunk_rec(d, c, i)->seq, ~i);
		/* seq invalid everywhere before the bodies change */
		smp_wmb();
		for (i = 0; i < d->chunk_records; i++)
			memset((u8 *)iotrace_chunk_rec(d, c, i) + sizeof(u32), 0,
			       IOTRACE_RECORD_SIZE - sizeof(u32));
		ch->first_seq = 0;
		ch->first_ns = 0;
		ch->last_ns = 0;
		ch->cpu = 0;
		ch->reserved_slots = 0;
		ch->refs = 0;
		ch->next = IOTRACE_CHUNK_NONE;
		ch->reserved = 0;
		WRITE_ONCE(ch->state, IOTRACE_CHUNK_FREE);
		if (!(c % 64))
			cond_resched();
	}
	d->seq_base = iotrace_first_seq(d);
	WRITE_ONCE(d->take_most, 0);
	for (c = 0; c < d->nr_cpus; c++) {
		struct iotrace_cpu_hdr *h = iotrace_cpu_hdr(d, c);

		memset(h, 0, sizeof(*h));
		h->head = d->seq_base;
		h->cur = IOTRACE_CHUNK_NONE;
		h->pending = IOTRACE_CHUNK_NONE;
	}
	/*
	 * chunks_taken goes on: take numbers stay unique for the ring's
	 * life, so that a reader copying across the clear cannot take a
	 * chunk's new use (same index, CPU and first sequence number: the
	 * heads restart) for the one it began with.
	 */
	/* heads and counters reset before readers see the new generation */
	smp_wmb();
	WRITE_ONCE(d->hdr->generation, d->hdr->generation + 1);
}

/*
 * The memory a ring leaves to the host, at least: a 16th of its RAM, at
 * most 256 MiB.  Rings taken one after another (disks=all) stop there,
 * not where the next allocation of another process has nothing left.
 */
static unsigned long iotrace_ring_mem_reserve(void)
{
	return min_t(unsigned long, totalram_pages() / 16,
		     SZ_256M >> PAGE_SHIFT);
}

/*
 * The memory of a ring outside the persistent region, zeroed, or NULL.
 * Never at the cost of the host's processes: a ring that would leave less
 * than iotrace_ring_mem_reserve() of the memory available (MemAvailable:
 * free, and what reclaim can free without swapping) is refused before a
 * page is taken, and one that reclaim then cannot satisfy fails
 * (__GFP_RETRY_MAYFAIL) instead of having the OOM killer make room;
 * quietly, the caller says it.  Not vmalloc_user(), which cannot take
 * those flags: the mapping is made page by page (iotrace_ring_mmap()).
 */
static void *iotrace_ring_vmalloc(unsigned long size)
{
	unsigned long avail = max(si_mem_available(), 0L);

	avail -= min(avail, iotrace_ring_mem_reserve());
	if (size >> PAGE_SHIFT > avail)
		return NULL;
	return __vmalloc(size, GFP_KERNEL | __GFP_ZERO | __GFP_RETRY_MAYFAIL |
			 __GFP_NOWARN);
}

/**
 * iotrace_ring_mmap() - map ring memory @mem read-only into @vma.
 * @vma: the mapping, its size checked by the caller.
 * @mem: the memory of a ring, iotrace_ring_alloc()'s.
 * @pgoff: the mapping's first page in @mem.
 *
 * Context: the mmap lock held for writing (file_operations.mmap).
 * Return: 0 or a negative errno.
 */
int iotrace_ring_mmap(struct vm_area_struct *vma, void *mem,
		      unsigned long pgoff)
{
	unsigned long addr;
	void *p;
	int ret;

	if (iotrace_preg_owns(mem))
		return iotrace_preg_mmap(vma, mem, pgoff);
	p = mem + (pgoff << PAGE_SHIFT);
	for (addr = vma->vm_start; addr < vma->vm_end; addr += PAGE_SIZE) {
		ret = vm_insert_page(vma, addr, vmalloc_to_page(p));
		if (ret)
			return ret;
		p += PAGE_SIZE;
	}
	return 0;
}

/**
 * iotrace_ring_alloc() - allocate and format the ring of a disk.
 * @d: the disk; its name must be set.
 * @buf_size: bytes allowed for the ring.
 *
 * The header is written without its magic: iotrace_ring_hdr_publish()
 * writes it once the ring is the disk's.  In the persistent region, a
 * crash before that leaves a ring the next boot does not take for the
 * disk's newest (a resize's stand-in, still empty, while the disk records
 * into the ring it replaces), nor a header half written.
 *
 * Return: 0 or a negative errno.
 */
int iotrace_ring_alloc(struct iotrace_disk *d, unsigned long buf_size)
{
	struct iotrace_ring_hdr *h;
	struct iotrace_geom g;
	int ret;

	BUILD_BUG_ON(sizeof(struct iotrace_record) != IOTRACE_RECORD_SIZE);
	BUILD_BUG_ON(sizeof(struct iotrace_cpu_hdr) != IOTRACE_CPU_HDR_SIZE);
	BUILD_BUG_ON(sizeof(struct iotrace_chunk_hdr) !=
		     IOTRACE_CHUNK_HDR_SIZE);
	BUILD_BUG_ON(sizeof(struct iotrace_ring_hdr) !=
		     sizeof(struct iotrace_ring_hdr_v1));
	BUILD_BUG_ON(sizeof(struct iotrace_ring_hdr) > PAGE_SIZE);
	BUILD_BUG_ON(sizeof(local64_t) != sizeof(u64));
	BUILD_BUG_ON(IOTRACE_CMD_CGROUP_OFF + sizeof(u64) > IOTRACE_CMD_LEN);

	ret = iotrace_ring_geometry(buf_size, &g);
	if (ret)
		return ret;
	d->nr_cpus = g.nr_cpus;
	d->chunk_records = g.chunk_records;
	d->nr_chunks = g.nr_chunks;
	d->buf_size = buf_size;
	d->ring_size = g.ring_size;
	if (static_branch_unlikely(&iotrace_preg_key)) {
		/* persist=: in the region, or none (said in the log) */
		d->ring = iotrace_preg_alloc(d, d->ring_size, 0);
		if (!d->ring)
			return -ENOSPC;
	} else {
		d->ring = iotrace_ring_vmalloc(d->ring_size);
		if (!d->ring)
			return -ENOMEM;
	}
	h = d->ring;
	d->hdr = h;
	d->cpu_hdrs = d->ring + g.cpu_hdr_offset;
	d->chunk_hdrs = d->ring + g.chunk_hdr_offset;
	d->data = d->ring + g.data_offset;
	h->abi_major = IOTRACE_ABI_MAJOR;
	h->abi_minor = IOTRACE_ABI_MINOR;
	h->hdr_size = PAGE_SIZE;
	h->record_size = IOTRACE_RECORD_SIZE;
	h->nr_cpus = g.nr_cpus;
	h->chunk_records = g.chunk_records;
	h->cpu_hdr_size = IOTRACE_CPU_HDR_SIZE;
	h->cpu_hdr_offset = g.cpu_hdr_offset;
	h->data_offset = g.data_offset;
	h->chunk_stride = (u64)g.chunk_records * IOTRACE_RECORD_SIZE;
	h->ring_size = d->ring_size;
	h->nr_chunks = g.nr_chunks;
	h->chunk_hdr_offset = g.chunk_hdr_offset;
	h->chunk_hdr_size = IOTRACE_CHUNK_HDR_SIZE;
	h->created_ns = ktime_get_ns();
	if (!g.nr_chunks)
		h->flags = IOTRACE_RING_METRICS_ONLY;
	strscpy(h->name, d->name, sizeof(h->name));
	iotrace_ring_reset(d);
	h->generation = 0;
	return 0;
}

/**
 * iotrace_ring_hdr_publish() - make @d's ring, iotrace_ring_alloc()ed and
 *	its header complete, a ring: its magic, written last.
 * @d: the disk.
 *
 * Context: before the ring is the disk's (d->rb), so before any reader
 * can map it.
 */
void iotrace_ring_hdr_publish(struct iotrace_disk *d)
{
	/* the header whole before the magic, for the region's next reader */
	wmb();
	WRITE_ONCE(d->hdr->magic, IOTRACE_RING_MAGIC);
}

/**
 * iotrace_ring_mem_free() - free the memory of a ring.
 * @mem: iotrace_ring_alloc()'s, vmalloc'ed or the persistent region's;
 *	NULL does nothing.
 *
 * Context: process.
 */
void iotrace_ring_mem_free(void *mem)
{
	if (iotrace_preg_owns(mem))
		iotrace_preg_free(mem);
	else
		vfree(mem);
}

/* iotrace_ring_mem_free() of a ring no disk had: never kept in the region */
void iotrace_ring_mem_discard(void *mem)
{
	if (iotrace_preg_owns(mem))
		iotrace_preg_discard(mem);
	else
		vfree(mem);
}

/**
 * iotrace_ring_free() - free the ring of a disk that is gone (removed, or
 *	the module unloaded): in the persistent region it stays, for the
 *	next boot to read after a crash (iotrace_preg_free_removed()).
 * @d: the disk, unreferenced.
 *
 * Context: process.
 */
void iotrace_ring_free(struct iotrace_disk *d)
{
	if (iotrace_preg_owns(d->ring))
		iotrace_preg_free_removed(d->ring);
	else
		vfree(d->ring);
	d->ring = NULL;
	d->hdr = NULL;
	d->cpu_hdrs = NULL;
	d->chunk_hdrs = NULL;
	d->data = NULL;
}

/* ---- the chunk pool ------------------------------------------------------ */

static inline local64_t *iotrace_l64(__u64 *p)
{
	return (local64_t *)p;
}

/*
 * Is chunk @c held (its take number in the ring's hold, trigger.c)?  One
 * load of hold_hi, on the line of chunks_taken the taker just wrote;
 * the range is read only while a hold is active.  Return 0 if not, else
 * the held take numbers after the chunk's (hold_hi less its take number).
 */
static __always_inline u64 iotrace_chunk_held(struct iotrace_disk *d,
					      struct iotrace_chunk_hdr *c)
{
	/* pairs with the store-release of hold_hi in iotrace_hold_set() */
	u64 hi = smp_load_acquire(&d->hdr->hold_hi);
	u64 take;

	if (likely(!hi))
		return 0;
	take = READ_ONCE(c->seq);
	if (take < READ_ONCE(d->hdr->hold_lo) || take > hi)
		return 0;
	return hi - take + 1;
}

/*
 * The candidate of take number @n is held, and @after more take numbers
 * after its own are: the held chunks, which follow it in round-robin
 * order (a chunk's take number n sits at index (n - 1) % nr_chunks).  Move
 * chunks_taken past them in one step, if no take moved it since @n: the
 * next candidate is then the first chunk after the range.  A take that
 * did move it goes on from where it is; a CPU that loses here tries the
 * next candidate, held or not, as before.  The chunks of the range that
 * are not held (it holds take numbers, some of which found no chunk) are
 * passed over for this round: kept longer, never lost.
 */
static void iotrace_hold_skip(struct iotrace_disk *d, u64 n, u64 after)
{
	s64 old = n;

	/* a hold is half the pool at most (iotrace_hold_max()) */
	after = min_t(u64, after, d->nr_chunks / 2);
	if (after &&
	    atomic64_try_cmpxchg((atomic64_t *)&d->hdr->chunks_taken, &old,
				 n + after))
		atomic64_add(after, &d->take_passed);
}

/*
 * A take tried @tried candidates: the most of one take, for debugfs
 * stats.  Once per chunk, out of the record path; two takes on two CPUs
 * may race here and the smaller may win, which only makes the hint low.
 */
static void iotrace_take_note(struct iotrace_disk *d, u32 tried)
{
	if (unlikely(tried > READ_ONCE(d->take_most)))
		WRITE_ONCE(d->take_most, tried);
}

/*
 * Take a free or full chunk for CPU @cpu, to hold its sequence numbers
 * @first ..: one atomic increment of the pool counter and one cmpxchg per
 * candidate; the candidates in round-robin order are the chunks taken
 * longest ago; a chunk some CPU writes is skipped, and the ring's hold
 * in one step (iotrace_hold_skip()).  Return its index, or
 * IOTRACE_CHUNK_NONE when every chunk is being written or held.
 */
static u32 iotrace_chunk_take(struct iotrace_disk *d, u32 cpu, u64 first)
{
	u32 recs = d->chunk_records;
	u32 tries, k, i, st;
	u64 held, now;

	for (tries = 0; tries < d->nr_chunks; tries++) {
		u64 n = atomic64_inc_return((atomic64_t *)&d->hdr->chunks_taken);
		u64 q = n - 1;
		struct iotrace_chunk_hdr *c;
		u32 victim;

		k = do_div(q, d->nr_chunks);
		c = iotrace_chunk_hdr(d, k);
		/* a held one first: a current chunk may be in the range too */
		held = iotrace_chunk_held(d, c);
		if (unlikely(held)) {
			iotrace_hold_skip(d, n, held - 1);
			continue;
		}
		st = READ_ONCE(c->state);
		if (st == IOTRACE_CHUNK_CURRENT)
			continue;
		/*
		 * Full ordering: the previous owner's records, counters and
		 * writer state (settled before its store-release of FULL) are
		 * seen before they are rewritten.
		 */
		if (cmpxchg(&c->state, st, IOTRACE_CHUNK_CURRENT) != st)
			continue;
		/*
		 * And the hold is read again after the claim: a hold set
		 * before it (store, smp_mb()) is seen here, so only a claim
		 * already made when the hold was set can take a held chunk
		 * (module.rst, "The hold").  Nothing was changed: put it back.
		 */
		if (unlikely(iotrace_chunk_held(d, c))) {
			/* as it was: its previous owner's state unchanged */
			smp_store_release(&c->state, st);
			continue;
		}
		victim = c->cpu;
		if (st == IOTRACE_CHUNK_FULL && victim < d->nr_cpus) {
			atomic64_add(recs, (atomic64_t *)
				     &iotrace_cpu_hdr(d, victim)->overwritten);
			iotrace_nl_note_overflow(d);
		}
		WRITE_ONCE(c->seq, U64_MAX);
		/* readers drop what they copied from the previous use */
		smp_wmb();
		/*
		 * Readers (the trace view, iotrace_ring_copy()) read these
		 * locklessly between two reads of seq: marked, whole words.
		 */
		WRITE_ONCE(c->cpu, cpu);
		WRITE_ONCE(c->first_seq, first);
		now = ktime_get_ns();
		WRITE_ONCE(c->first_ns, now);
		WRITE_ONCE(c->last_ns, now);
		/* the previous owner's records never match the new numbers */
		for (i = 0; i < recs; i++)
			WRITE_ONCE(iotrace_chunk_rec(d, k, i)->seq,
				   IOTRACE_SEQ_BUSY(first + i));
		local64_set(iotrace_l64(&c->reserved_slots), 0);
		local64_set(iotrace_l64(&c->refs), recs + 1);
		c->next = IOTRACE_CHUNK_NONE;
		/* header and slots done before the new take number */
		smp_store_release(&c->seq, n);
		iotrace_take_note(d, tries + 1);
		return k;
	}
	iotrace_take_note(d, tries);
	return IOTRACE_CHUNK_NONE;
}

/* A chunk taken and never used (a nested writer installed another). */
static void iotrace_chunk_giveback(struct iotrace_disk *d, u32 k)
{
	struct iotrace_chunk_hdr *c = iotrace_chunk_hdr(d, k);

	WRITE_ONCE(c->seq, 0);
	/* no records: readers skip it, and drop what they copied */
	smp_store_release(&c->state, IOTRACE_CHUNK_FREE);
}

/* Drop a reference of chunk @k; the last one makes it recyclable. */
static void iotrace_chunk_put(struct iotrace_disk *d, u32 k)
{
	struct iotrace_chunk_hdr *c = iotrace_chunk_hdr(d, k);

	if (!local64_sub_return(1, iotrace_l64(&c->refs)))
		iotrace_chunk_full(c);
}

/* The last reference of chunk @c is gone: it can be taken again. */
void iotrace_chunk_full(struct iotrace_chunk_hdr *c)
{
	/* records and writer state settled before it can be taken */
	smp_store_release(&c->state, IOTRACE_CHUNK_FULL);
}

/*
 * Replace CPU @cpu's current chunk @j (IOTRACE_CHUNK_NONE: none yet) by
 * a new one.  Return false when no chunk could be taken.
 */
static bool iotrace_chunk_switch(struct iotrace_disk *d,
				 struct iotrace_cpu_hdr *h, u32 cpu, u32 j)
{
	u64 first;
	u32 k, old;

	/* no chunk yet: nothing was reserved, head is the first number */
	first = j == IOTRACE_CHUNK_NONE ? READ_ONCE(h->head) :
		iotrace_chunk_hdr(d, j)->first_seq + d->chunk_records;
	k = iotrace_chunk_take(d, cpu, first);
	if (k == IOTRACE_CHUNK_NONE)
		return false;
	if (cmpxchg_local(&h->cur, j, k) != j) {
		/* a writer nested over this one switched first */
		iotrace_chunk_giveback(d, k);
		return true;
	}
	if (j == IOTRACE_CHUNK_NONE)
		return true;
	/* its "current" reference goes when no writer may still hold it */
	do {
		old = READ_ONCE(h->pending);
		WRITE_ONCE(iotrace_chunk_hdr(d, j)->next, old);
	} while (cmpxchg_local(&h->pending, old, j) != old);
	return true;
}

/*
 * The outermost writer of CPU header @h has left (iotrace_ring_leave()):
 * it settles the chunks pending their "current" reference.
 */
void iotrace_ring_settle(struct iotrace_disk *d, struct iotrace_cpu_hdr *h)
{
	u32 p, next;

	do {
		p = READ_ONCE(h->pending);
		if (p == IOTRACE_CHUNK_NONE)
			return;
	} while (cmpxchg_local(&h->pending, p, IOTRACE_CHUNK_NONE) != p);
	/* the list is ours alone now: no writer of this CPU holds them */
	while (p != IOTRACE_CHUNK_NONE) {
		next = READ_ONCE(iotrace_chunk_hdr(d, p)->next);
		iotrace_chunk_put(d, p);
		p = next;
	}
}

/**
 * iotrace_ring_switch() - iotrace_ring_reserve() when CPU header @h has no
 *	current chunk with room (@j, IOTRACE_CHUNK_NONE if none): switch
 *	chunks, IOTRACE_SWITCH_TRIES times at most for one record.
 * @d: the disk.
 * @h: this CPU's header, entered (iotrace_ring_reserve()).
 * @cpu: this CPU.
 * @j: the current chunk that was full.
 * @tries: switches made for this record so far.
 *
 * Out of line, without the caller's slot: the reservation's state stays
 * in the probe's registers.
 *
 * Return: true when the caller may try @h's current chunk again, false
 * when the completion cannot be recorded (counted in the CPU's dropped;
 * the CPU header is left).
 */
bool iotrace_ring_switch(struct iotrace_disk *d, struct iotrace_cpu_hdr *h,
			 u32 cpu, u32 j, int tries)
{
	if (tries < IOTRACE_SWITCH_TRIES && iotrace_chunk_switch(d, h, cpu, j))
		return true;
	local64_inc(iotrace_l64(&h->dropped));
	iotrace_ring_leave(d, h);
	return false;
}

/**
 * iotrace_ring_copy() - copy one record if it is the one expected.
 * @d: the disk.
 * @k: the chunk.
 * @take: the chunk's take number (iotrace_chunk_hdr.seq) the caller saw.
 * @first: the chunk's first_seq at that take.
 * @seq: the CPU sequence number wanted, @first .. @first + chunk_records - 1.
 * @out: where to copy.
 *
 * Return: true if @out holds the complete record @seq of that take, false
 * if the slot is being written, was never written or the chunk was taken
 * again.
 */
bool iotrace_ring_copy(struct iotrace_disk *d, u32 k, u64 take, u64 first,
		       u64 seq, struct iotrace_record *out)
{
	struct iotrace_chunk_hdr *c;
	struct iotrace_record *r;

	/* a chunk of this ring: not one of a ring a resize replaced */
	if (k >= d->nr_chunks || seq < first ||
	    seq - first >= d->chunk_records)
		return false;
	c = iotrace_chunk_hdr(d, k);
	r = iotrace_chunk_rec(d, k, seq - first);
	/* pairs with the taker's smp_store_release() of the chunk's seq */
	if (smp_load_acquire(&c->seq) != take)
		return false;
	/* pairs with the writer's smp_store_release() of seq */
	if (smp_load_acquire(&r->seq) != (u32)seq)
		return false;
	/*
	 * A seqlock's read: the slot's next writer may change it meanwhile,
	 * and the reads of seq around the copy drop a torn one.
	 */
	data_race(memcpy(out, r, sizeof(*out)));
	/* copy done before seq is read again; pairs with the writer's smp_wmb() */
	smp_rmb();
	if (READ_ONCE(r->seq) != (u32)seq || out->seq != (u32)seq)
		return false;
	/* the record read before the take number; pairs with the taker's smp_wmb() */
	smp_rmb();
	return READ_ONCE(c->seq) == take;
}

/**
 * iotrace_ring_counts() - sum the counters of a ring.
 * @d: the disk.
 * @c: out; @c->inflight is left 0 (iotrace_slots_busy() counts it).
 *
 * Exact once recording is quiet; while probes run, each CPU's counters
 * are read without a lock and may be a few records behind.  One pass
 * over the CPU headers: bounded work, fit for iotrace_mutex.
 */
void iotrace_ring_counts(struct iotrace_disk *d, struct iotrace_counts *c)
{
	u32 p;

	memset(c, 0, sizeof(*c));
	for (p = 0; p < d->nr_cpus; p++) {
		struct iotrace_cpu_hdr *h = iotrace_cpu_hdr(d, p);

		c->recorded += READ_ONCE(h->head) - d->seq_base;
		c->overwritten += READ_ONCE(h->overwritten);
		c->dropped += READ_ONCE(h->dropped);
		c->filtered += READ_ONCE(h->filtered);
	}
	c->present = c->recorded - min(c->overwritten, c->recorded);
}
