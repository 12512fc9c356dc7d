// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace - the file operations of a ring, shared by debugfs <disk>/ring
 * and the character device /dev/iotrace/<disk> (chardev.c), and the
 * in-flight table snapshots of debugfs <disk>/inflight and the device's
 * IOTRACE_IOC_INFLIGHT and IOTRACE_IOC_INFLIGHT_RECORDS.
 *
 * An open ring file holds a reference on the disk (the mapping keeps it
 * through the file until the last unmap); each read and each mapping
 * holds the ring it reads (iotrace_ringbuf_get()), so a ring a resize
 * replaced is freed with its own last user; writing is refused: the ring
 * is read() or mapped read-only, never writably.  The module
 * stays loaded while such a file exists because its file_operations name
 * THIS_MODULE as their owner.
 */
#include <linux/kernel.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>
#include <linux/timekeeping.h>
#include "iotrace.h"
#include "compat.h"

/**
 * iotrace_ringf_open() - make @file a reader of the ring of @d.
 * @d: the disk; the caller makes sure it cannot be freed meanwhile.
 * @file: the file being opened.
 *
 * Return: 0, or -EPERM for an open for writing.
 */
int iotrace_ringf_open(struct iotrace_disk *d, struct file *file)
{
	if (file->f_mode & FMODE_WRITE)
		return -EPERM;
	kref_get(&d->kref);
	file->private_data = d;
	return 0;
}

/**
 * iotrace_ringf_release() - the last reference to an open ring file went.
 * @inode: its inode.
 * @file: the file.
 *
 * Return: 0.
 */
int iotrace_ringf_release(struct inode *inode, struct file *file)
{
	iotrace_disk_put(file->private_data);
	return 0;
}

/**
 * iotrace_ringbuf_get() - the current ring of a disk, kept allocated.
 * @d: the disk, referenced.
 *
 * A resize may replace the ring at any time; the one returned stays
 * allocated until iotrace_ringbuf_put(), its size in its own header.
 *
 * Return: the ring's users count, one more; NULL for a disk that has no
 * ring yet (never enabled).
 */
struct iotrace_ringbuf *iotrace_ringbuf_get(struct iotrace_disk *d)
{
	struct iotrace_ringbuf *rb;

	spin_lock(&d->ring_lock);
	rb = d->rb;
	if (rb)
		rb->users++;
	spin_unlock(&d->ring_lock);
	return rb;
}

/**
 * iotrace_ringbuf_put() - one user of a ring less; a ring a resize
 *	replaced is freed with its last user.
 * @d: the disk.
 * @rb: from iotrace_ringbuf_get().
 */
void iotrace_ringbuf_put(struct iotrace_disk *d, struct iotrace_ringbuf *rb)
{
	bool dead;

	spin_lock(&d->ring_lock);
	dead = !--rb->users && rb->retired;
	if (dead)
		list_del(&rb->node);
	spin_unlock(&d->ring_lock);
	if (dead) {
		iotrace_ring_mem_free(rb->mem);
		kfree(rb);
	}
}

static size_t iotrace_ringbuf_size(struct iotrace_ringbuf *rb)
{
	return ((struct iotrace_ring_hdr *)rb->mem)->ring_size;
}

ssize_t iotrace_ringf_read(struct file *file, char __user *buf, size_t count,
			   loff_t *ppos)
{
	struct iotrace_disk *d = file->private_data;
	struct iotrace_ringbuf *rb = iotrace_ringbuf_get(d);
	ssize_t ret;

	/* no ring yet: an empty file */
	if (!rb)
		return 0;
	/*
	 * The bytes as they are, as a mapping shows them: the probes write
	 * the ring meanwhile, and a reader validates what it copied by the
	 * ring's sequence numbers (abi.rst, "Reading a 2.0 ring").
	 */
	ret = data_race(simple_read_from_buffer(buf, count, ppos, rb->mem,
						iotrace_ringbuf_size(rb)));
	iotrace_ringbuf_put(d, rb);
	return ret;
}

loff_t iotrace_ringf_llseek(struct file *file, loff_t off, int whence)
{
	struct iotrace_disk *d = file->private_data;
	struct iotrace_ringbuf *rb = iotrace_ringbuf_get(d);
	size_t size = 0;

	if (rb) {
		size = iotrace_ringbuf_size(rb);
		iotrace_ringbuf_put(d, rb);
	}
	return fixed_size_llseek(file, off, whence, size);
}

/* Each mapping (and each part of a split one) holds its ring. */
static void iotrace_ringf_vm_open(struct vm_area_struct *vma)
{
	struct iotrace_disk *d = vma->vm_file->private_data;
	struct iotrace_ringbuf *rb = vma->vm_private_data;

	spin_lock(&d->ring_lock);
	rb->users++;
	spin_unlock(&d->ring_lock);
}

static void iotrace_ringf_vm_close(struct vm_area_struct *vma)
{
	iotrace_ringbuf_put(vma->vm_file->private_data, vma->vm_private_data);
}

static const struct vm_operations_struct iotrace_ringf_vm_ops = {
	.open	= iotrace_ringf_vm_open,
	.close	= iotrace_ringf_vm_close,
};

/**
 * iotrace_ringf_mmap() - map (part of) the ring read-only.
 * @file: an open ring file.
 * @vma: the new mapping.
 *
 * VM_MAYWRITE is cleared: mprotect(PROT_WRITE) fails later.  The mapping
 * holds the ring it maps (a resize may replace the disk's ring meanwhile).
 *
 * Return: 0, -EPERM for a writable mapping, -EINVAL outside the ring,
 * -ENODATA for a disk that has no ring yet (never enabled).
 */
int iotrace_ringf_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct iotrace_disk *d = file->private_data;
	unsigned long size = vma->vm_end - vma->vm_start;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	struct iotrace_ringbuf *rb;
	size_t ring_size;
	int ret;

	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	rb = iotrace_ringbuf_get(d);
	/* nothing to map before the disk was first enabled */
	if (!rb)
		return -ENODATA;
	ring_size = iotrace_ringbuf_size(rb);
	if (off >= ring_size || size > ring_size - off) {
		ret = -EINVAL;
		goto err_put;
	}
	iotrace_vma_make_ro(vma);
	ret = iotrace_ring_mmap(vma, rb->mem, vma->vm_pgoff);
	if (ret)
		goto err_put;
	vma->vm_private_data = rb;
	vma->vm_ops = &iotrace_ringf_vm_ops;
	return 0;

err_put:
	iotrace_ringbuf_put(d, rb);
	return ret;
}

static int iotrace_inflight_cmp(const void *a, const void *b)
{
	const struct iotrace_inflight_entry *x = a, *y = b;

	if (x->issue_ns != y->issue_ns)
		return x->issue_ns < y->issue_ns ? -1 : 1;
	return 0;
}

/* The fields of an issue, as they are (iotrace_slot_read()); true. */
static bool iotrace_slot_fields(const struct iotrace_slot *s,
				struct iotrace_slot_issue *v)
{
	v->issue_ns = s->issue_ns;
	v->sector = s->sector;
	v->bytes = s->bytes;
	v->issue_cpu = s->issue_cpu;
	v->tag = s->tag;
	v->hwq = s->hwq;
	v->op = s->op;
	v->retries = s->retries;
	return true;
}

/*
 * The submitter block_io_start noted for @rq in @s (iotrace_slot_start()),
 * as they are: no flag when it noted none for @rq, nor when @rq started
 * outside a task (pid 0 without IOTRACE_RF_KERNEL: unknown, as in a
 * record).  The tag sub_rq is set after the fields it covers (smp_wmb());
 * a request that ends meanwhile fails the checks of iotrace_slot_read()
 * after it.
 */
static void iotrace_slot_submitter(const struct iotrace_slot *s,
				   const struct request *rq,
				   struct iotrace_slot_issue *v)
{
	v->pid = 0;
	v->sub = 0;
	if (READ_ONCE(s->sub_rq) != rq)
		return;
	/* pairs with the smp_wmb() before sub_rq is set */
	smp_rmb();
	/* the tag's next request may write it: the caller's checks drop it */
	v->pid = data_race(s->pid);
	/* as the pid */
	if (data_race(s->sub_rflags) & IOTRACE_RF_KERNEL)
		v->sub = IOTRACE_INFL_SUBMITTER | IOTRACE_INFL_KERNEL;
	else if (v->pid)
		v->sub = IOTRACE_INFL_SUBMITTER;
}

/*
 * Whether the request owning slot @s is through with its record: the data
 * phase of a flush sequence completed (seq_wait; its record written,
 * counted as filtered or dropped, or on a disk without a ring counted in
 * its metrics only) and the request waits only for its post-flush, a
 * request of its own in flight (its hardware queue's flush slot).  The
 * readers of the requests in flight leave it out: each request in flight
 * is one whose record is still to come, and a recording or snapshot keeps
 * it once.  seq_wait only goes from 0 to 1 while the slot has its owner,
 * or with the owner's store-release after it (a request issued before its
 * disk was enabled, at its data phase's end); the end of the sequence
 * empties the slot and leaves it set, and the next issue clears it before
 * it stores the new owner (store-release): a reader that sees an owner
 * sees its seq_wait.
 */
static bool iotrace_slot_recorded(const struct iotrace_slot *s)
{
	return READ_ONCE(s->seq_wait);
}

/* Whether slot @s holds a request in flight, as the readers count them. */
static bool iotrace_slot_in_flight(const struct iotrace_slot *s)
{
	/* pairs with the store-release of the owner at issue */
	return smp_load_acquire(&s->rq) && !iotrace_slot_recorded(s);
}

/**
 * iotrace_slot_read() - copy the issue of the request in flight in a slot.
 * @s: the slot.
 * @v: the copy.
 *
 * The slot's issuer may change it meanwhile: the copy is made between two
 * reads of its generation (odd while the issue writes it) and of its
 * owner, and kept only when neither changed (a completion frees the slot
 * without a generation bump; the next issue bumps it before it writes).
 *
 * Return: true when @s held a request issued and not completed nor
 * recorded (iotrace_slot_recorded()), and @v is a whole copy of its issue.
 */
bool iotrace_slot_read(struct iotrace_slot *s, struct iotrace_slot_issue *v)
{
	/* pairs with the smp_wmb() after an odd generation */
	u32 gen = smp_load_acquire(&s->gen);
	struct request *rq = READ_ONCE(s->rq);
	bool done;

	if ((gen & 1) || !rq)
		return false;
	/*
	 * A seqlock's read: the next issue on the slot's tag may write it
	 * meanwhile (plain stores, probe.c), and a torn copy is dropped by
	 * the checks of gen and rq after it.  The submitter is @rq's when
	 * they pass: a request that reuses @rq (the tag's next) notes its
	 * own only after @rq completed, which empties the slot, and its
	 * issue moves the generation on.
	 */
	data_race(iotrace_slot_fields(s, v));
	iotrace_slot_submitter(s, rq, v);
	/* in the copy: @rq's, when the checks after it pass */
	done = iotrace_slot_recorded(s);
	/* copy done before the generation is read again */
	smp_rmb();
	return READ_ONCE(s->gen) == gen && READ_ONCE(s->rq) == rq && !done;
}

/*
 * The record @rq's completion would write, without the completion, from
 * the slot @s it owns, as it is (iotrace_slot_read_rec()); @rec_rflags are
 * the ring's own record flags.  A passthrough request is told by its op:
 * the slot keeps no pointer a reader may follow.  Return: true.
 */
static bool iotrace_slot_rec_copy(const struct iotrace_slot *s,
				  const struct request *rq, u16 rec_rflags,
				  struct iotrace_record *r)
{
	u16 rflags = (s->rflags | rec_rflags) & ~IOTRACE_RF_COMPLETE;

	rflags |= iotrace_slot_rec(r, s, rq);
	if (r->op == IOTRACE_OP_DRV_IN || r->op == IOTRACE_OP_DRV_OUT)
		rflags |= IOTRACE_RF_PASSTHRU;
	r->rflags = rflags;
	return true;
}

/**
 * iotrace_slot_read_rec() - the request in flight in a slot, as a record.
 * @s: the slot.
 * @rec_rflags: the ring's own record flags (struct iotrace_disk).
 * @r: the record, as the request's completion would write it without the
 *	completion (struct iotrace_inflight_records).
 *
 * iotrace_slot_read() of the whole issue: its queue time, op flags,
 * cgroup and command too.  A command rewritten while its request owns the
 * slot is written under an odd generation (iotrace_cmd_slot()).
 *
 * Return: true when @s held a request issued and not completed nor
 * recorded (iotrace_slot_recorded()), and @r is a whole copy of it.
 */
static bool iotrace_slot_read_rec(struct iotrace_slot *s, u16 rec_rflags,
				  struct iotrace_record *r)
{
	/* pairs with the smp_wmb() after an odd generation */
	u32 gen = smp_load_acquire(&s->gen);
	struct request *rq = READ_ONCE(s->rq);
	bool done;

	if ((gen & 1) || !rq)
		return false;
	/* a seqlock's read, as in iotrace_slot_read() */
	data_race(iotrace_slot_rec_copy(s, rq, rec_rflags, r));
	done = iotrace_slot_recorded(s);
	/* copy done before the generation is read again */
	smp_rmb();
	return READ_ONCE(s->gen) == gen && READ_ONCE(s->rq) == rq && !done;
}

/*
 * Room for @n elements of @size bytes in *@v, which holds *@cap: doubled
 * when full (a table may have millions of slots, with a few requests in
 * flight), charged to the caller's memory cgroup.
 * Return: false when out of memory (*@v is kept).
 */
static bool iotrace_array_room(void **v, u32 *cap, u32 n, size_t size)
{
	void *nv;
	u32 ncap;

	if (n < *cap)
		return true;
	ncap = max(2 * *cap, 64U);
	nv = kvmalloc_array(ncap, size, GFP_KERNEL_ACCOUNT);
	if (!nv)
		return false;
	if (n)
		memcpy(nv, *v, (size_t)n * size);
	kvfree(*v);
	*v = nv;
	*cap = ncap;
	return true;
}

static bool iotrace_recs_room(struct iotrace_record **v, u32 *cap, u32 n)
{
	return iotrace_array_room((void **)v, cap, n, sizeof(**v));
}

/*
 * Append the requests in flight in @t to *@ev (*@n of *@cap used).
 * Return: false when out of memory.
 */
static bool iotrace_inflight_walk(struct iotrace_slot_table *t,
				  struct iotrace_inflight_entry **ev, u32 *n,
				  u32 *cap)
{
	struct iotrace_inflight_entry *e;
	u32 i;

	for (i = 0; i < t->nr; i++) {
		struct iotrace_slot_issue v;

		if (!((i + 1) % IOTRACE_SLOT_BATCH))
			cond_resched();
		if (!iotrace_slot_read(&t->slots[i], &v))
			continue;
		if (!iotrace_array_room((void **)ev, cap, *n, sizeof(**ev)))
			return false;
		e = &(*ev)[*n];
		memset(e, 0, sizeof(*e));
		e->issue_ns = v.issue_ns;
		e->sector = v.sector;
		e->bytes = v.bytes;
		e->hwq = v.hwq;
		e->tag = v.tag;
		e->cpu = v.issue_cpu;
		e->op = v.op;
		e->flags = v.sub;
		e->pid = v.pid;
		(*n)++;
	}
	return true;
}

/**
 * iotrace_inflight_collect() - the requests of a disk in flight now.
 * @d: the disk.
 * @nr: set to the number of entries returned.
 *
 * The tables holding them (iotrace_slot_tables_get(): a multipath head's
 * are its paths') are walked with references on them, no lock held, the
 * CPU yielded every IOTRACE_SLOT_BATCH slots.
 *
 * Return: a kvmalloc()ed array of *@nr entries, oldest issue first (free
 * it with kvfree()), or NULL when out of memory.  A disk that keeps no
 * slot table (not enabled) has none in flight.
 */
struct iotrace_inflight_entry *iotrace_inflight_collect(struct iotrace_disk *d,
							u32 *nr)
{
	struct iotrace_inflight_entry *e = NULL;
	struct iotrace_slot_tables w;
	u32 i, n = 0, cap = 0;
	bool ok = iotrace_array_room((void **)&e, &cap, 0, sizeof(*e));

	if (iotrace_slot_tables_get(d, &w)) {
		kvfree(e);
		return NULL;
	}
	for (i = 0; ok && i < w.nr; i++)
		ok = iotrace_inflight_walk(w.v[i].t, &e, &n, &cap);
	iotrace_slot_tables_put(&w);
	if (!ok) {
		kvfree(e);
		return NULL;
	}
	sort(e, n, sizeof(*e), iotrace_inflight_cmp, NULL);
	*nr = n;
	return e;
}

static int iotrace_rec_issue_cmp(const void *a, const void *b)
{
	const struct iotrace_record *x = a, *y = b;

	if (x->issue_ns != y->issue_ns)
		return x->issue_ns < y->issue_ns ? -1 : 1;
	return 0;
}

/* Reads of a slot being written before it counts as torn. */
#define IOTRACE_SLOT_TRIES	3

/*
 * Append the requests in flight in @t to *@v (*@n of *@cap used), each
 * stamped with @path (struct iotrace_slot_tables); count in *@torn the
 * slots torn on every read.  Return: false when out of memory.
 */
static bool iotrace_inflight_recs_walk(struct iotrace_slot_table *t, u32 path,
				       u16 rec_rflags, struct iotrace_record **v,
				       u32 *n, u32 *cap, u32 *torn)
{
	u32 i;

	for (i = 0; i < t->nr; i++) {
		struct iotrace_slot *s = &t->slots[i];
		struct iotrace_record *r;
		int k;

		if (!((i + 1) % IOTRACE_SLOT_BATCH))
			cond_resched();
		if (!iotrace_slot_in_flight(s))
			continue;
		if (!iotrace_recs_room(v, cap, *n))
			return false;
		r = &(*v)[*n];
		for (k = 0; k < IOTRACE_SLOT_TRIES; k++) {
			if (iotrace_slot_read_rec(s, rec_rflags, r))
				break;
			cpu_relax();
		}
		if (k == IOTRACE_SLOT_TRIES) {
			if (iotrace_slot_in_flight(s))
				(*torn)++;
			continue;
		}
		/* as the head's record of its completion (iotrace_fill()) */
		if (path)
			*(__le32 *)(r->cmd + IOTRACE_CMD_PATH_OFF) =
				cpu_to_le32(path);
		(*n)++;
	}
	return true;
}

/**
 * iotrace_inflight_records() - the requests of a disk in flight now, as
 *	records (IOTRACE_IOC_INFLIGHT_RECORDS).
 * @d: the disk.
 * @nr: set to the number of records returned.
 * @torn: set to the slots held by a request that were being written on
 *	each of IOTRACE_SLOT_TRIES reads.
 *
 * The walk of iotrace_inflight_collect(), each request copied whole
 * (iotrace_slot_read_rec()); a multipath head's carry their path's id at
 * IOTRACE_CMD_PATH_OFF, as its completion's record will.
 *
 * Context: process, may sleep; iotrace_mutex not held.
 * Return: a kvmalloc()ed array of *@nr records, oldest issue first (free
 * it with kvfree()), or NULL when out of memory.
 */
struct iotrace_record *iotrace_inflight_records(struct iotrace_disk *d, u32 *nr,
						u32 *torn)
{
	u16 rec_rflags = READ_ONCE(d->rec_rflags);
	struct iotrace_record *v = NULL;
	struct iotrace_slot_tables w;
	u32 i, n = 0, cap = 0, nt = 0;
	bool ok = iotrace_recs_room(&v, &cap, 0);

	if (iotrace_slot_tables_get(d, &w)) {
		kvfree(v);
		return NULL;
	}
	for (i = 0; ok && i < w.nr; i++)
		ok = iotrace_inflight_recs_walk(w.v[i].t, w.v[i].path,
						rec_rflags, &v, &n, &cap, &nt);
	iotrace_slot_tables_put(&w);
	if (!ok) {
		kvfree(v);
		return NULL;
	}
	sort(v, n, sizeof(*v), iotrace_rec_issue_cmp, NULL);
	*nr = n;
	*torn = nt;
	return v;
}

/**
 * iotrace_slots_busy() - requests of a disk in flight, per its slot tables.
 * @d: the disk, referenced.
 *
 * Walks the tables (iotrace_slot_tables_get()) with references on them, no
 * lock held, and yields the CPU every IOTRACE_SLOT_BATCH slots: call it
 * without iotrace_mutex, so that a reader without privilege never holds
 * anything that disk hotplug or control waits for while it walks (a
 * disable drops the table without waiting for the walk).
 *
 * Context: process, may sleep; iotrace_mutex not held.
 * Return: the slots that hold a request.
 */
u64 iotrace_slots_busy(struct iotrace_disk *d)
{
	struct iotrace_slot_tables w;
	u64 n = 0;
	u32 i, j;

	if (iotrace_slot_tables_get(d, &w))
		return 0;
	for (j = 0; j < w.nr; j++) {
		struct iotrace_slot_table *t = w.v[j].t;

		for (i = 0; i < t->nr; i++) {
			if (iotrace_slot_in_flight(&t->slots[i]))
				n++;
			if (!((i + 1) % IOTRACE_SLOT_BATCH))
				cond_resched();
		}
	}
	iotrace_slot_tables_put(&w);
	return n;
}

/**
 * iotrace_inflight_oldest() - how many requests of a disk are in flight,
 *	and the issue time of the oldest: what the metrics show of them.
 * @d: the disk.
 * @oldest_ns: set to the oldest one's issue time (0 when none).
 *
 * The pass over the slots of iotrace_inflight_collect(), without its
 * array: nothing allocated (but a multipath head's list of its paths),
 * nothing sorted, whatever the disk's tags (a scrape of the metrics needs
 * no privilege), no lock held, the CPU yielded as iotrace_slots_busy()
 * does.
 *
 * Context: process, may sleep; iotrace_mutex not held.
 *
 * Return: the number of requests in flight.
 */
u32 iotrace_inflight_oldest(struct iotrace_disk *d, u64 *oldest_ns)
{
	struct iotrace_slot_tables w;
	u32 i, j, n = 0;
	u64 oldest = 0;

	if (iotrace_slot_tables_get(d, &w))
		w.nr = 0;
	for (j = 0; j < w.nr; j++) {
		struct iotrace_slot_table *t = w.v[j].t;

		for (i = 0; i < t->nr; i++) {
			struct iotrace_slot_issue v;

			if (!((i + 1) % IOTRACE_SLOT_BATCH))
				cond_resched();
			if (!iotrace_slot_read(&t->slots[i], &v))
				continue;
			if (!n++ || v.issue_ns < oldest)
				oldest = v.issue_ns;
		}
	}
	iotrace_slot_tables_put(&w);
	*oldest_ns = oldest;
	return n;
}
