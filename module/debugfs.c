// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace - debugfs: /sys/kernel/debug/iotrace/{status,<disk>/...}.
 *
 * <disk>/ring is created "unsafe" because the debugfs proxy does not pass
 * mmap on: its open guards itself with debugfs_file_get() and takes a
 * reference on the disk (ringfile.c), which the mapping keeps through the
 * file until it is closed.  Under kernel lockdown debugfs refuses to open
 * it (it has mmap); /dev/iotrace/<disk> (chardev.c) gives the same bytes.
 * The other files use the regular proxy, which makes their operations
 * fail once the disk is gone and lets removal wait for them.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/sched/signal.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/timekeeping.h>
#include "iotrace.h"
#include "cmd.h"
#include "compat.h"

struct dentry *iotrace_debugfs_root;

/* ---- ring: ringfile.c, guarded by the debugfs file's lifetime ------- */

static int iotrace_ring_open(struct inode *inode, struct file *file)
{
	struct dentry *dentry = file->f_path.dentry;
	int ret;

	ret = debugfs_file_get(dentry);
	if (ret)
		return ret;
	ret = iotrace_ringf_open(inode->i_private, file);
	debugfs_file_put(dentry);
	return ret;
}

static const struct file_operations iotrace_ring_fops = {
	.owner		= THIS_MODULE,
	.open		= iotrace_ring_open,
	.release	= iotrace_ringf_release,
	.read		= iotrace_ringf_read,
	.llseek		= iotrace_ringf_llseek,
	.mmap		= iotrace_ringf_mmap,
};

/* ---- stats ----------------------------------------------------------- */

static int iotrace_stats_show(struct seq_file *m, void *v)
{
	struct iotrace_disk *d = m->private;
	struct iotrace_disk_mem mem;
	struct iotrace_counts c;
	struct iotrace_geom g;
	u64 inflight;

	/* the slots are walked without iotrace_mutex, on a reference */
	inflight = iotrace_slots_busy(d);
	/* the ring does not change under a resize while the mutex is held */
	mutex_lock(&iotrace_mutex);
	iotrace_ring_counts(d, &c);
	seq_printf(m, "recorded: %llu\n", c.recorded);
	seq_printf(m, "present: %llu\n", c.present);
	seq_printf(m, "overwritten: %llu\n", c.overwritten);
	seq_printf(m, "dropped: %llu\n", c.dropped);
	seq_printf(m, "filtered: %llu\n", c.filtered);
	seq_printf(m, "completed: %llu\n",
		   c.recorded + c.dropped + c.filtered);
	seq_printf(m, "inflight: %llu\n", inflight);
	seq_printf(m, "buf_size: %lu\n", d->buf_size);
	/* before the first enable: the ring that enable will make */
	if (d->ring || iotrace_ring_geometry(d->buf_size, &g)) {
		g.ring_size = d->ring_size;
		g.chunk_records = d->chunk_records;
		g.nr_chunks = d->nr_chunks;
		g.nr_cpus = d->nr_cpus;
	}
	seq_printf(m, "ring_size: %llu\n", (u64)g.ring_size);
	seq_printf(m, "chunk_records: %u\n", g.chunk_records);
	seq_printf(m, "nr_chunks: %u\n", g.nr_chunks);
	seq_printf(m, "nr_cpus: %u\n", g.nr_cpus);
	seq_printf(m, "enabled: %d\n", READ_ONCE(d->enabled) ? 1 : 0);
	seq_printf(m, "generation: %llu\n",
		   d->hdr ? READ_ONCE(d->hdr->generation) : 0);
	/* the in-flight table's, 0 while it has none (disabled) */
	seq_printf(m, "hw_queues: %u\n", d->slots ? d->nr_hwq : 0);
	seq_printf(m, "tags: %u\n", d->slots ? d->depth : 0);
	iotrace_disk_mem(d, &mem);
	seq_printf(m, "mem_ring: %llu\n", mem.ring);
	seq_printf(m, "mem_slots: %llu\n", mem.slots);
	seq_printf(m, "mem_metrics: %llu\n", mem.metrics);
	/* candidates the chunk takes tried, and the most one take tried */
	seq_printf(m, "take_attempts: %llu\n", d->hdr ?
		   (u64)atomic64_read((atomic64_t *)&d->hdr->chunks_taken) -
		   (u64)atomic64_read(&d->take_passed) : 0);
	seq_printf(m, "take_most: %u\n", READ_ONCE(d->take_most));
	/* 0: no hold; the mutex keeps an active one from being released */
	if (smp_load_acquire(&d->hold_state) == IOTRACE_HOLD_ACTIVE) {
		seq_printf(m, "hold_lo: %llu\n", READ_ONCE(d->hdr->hold_lo));
		seq_printf(m, "hold_hi: %llu\n", READ_ONCE(d->hdr->hold_hi));
	} else {
		seq_puts(m, "hold_lo: 0\nhold_hi: 0\n");
	}
	mutex_unlock(&iotrace_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(iotrace_stats);

/* ---- inflight -------------------------------------------------------- */

/*
 * The columns of a request in flight, ISSUE_NS to PID, at @now: the
 * submitter @pid if @sub (0: the kernel's own I/O), else unknown, "-".
 */
static void iotrace_inflight_cols(struct seq_file *m, u64 now, u64 issue_ns,
				  u8 op, u64 sector, u32 bytes, u16 hwq,
				  u16 tag, u16 cpu, bool sub, u32 pid)
{
	seq_printf(m, "%llu %llu %s %llu %u %u %u %u ", issue_ns,
		   now > issue_ns ? div_u64(now - issue_ns, NSEC_PER_USEC) : 0,
		   iotrace_op_name(op), sector, bytes, hwq, tag, cpu);
	if (sub)
		seq_printf(m, "%u", pid);
	else
		seq_putc(m, '-');
}

/*
 * inflight of an NVMe multipath head: its paths' requests (their hardware
 * queues and tags are the paths'), each with the path it was sent down
 * (nvmeXcCnY) in a last column, from the records its completions will
 * write (iotrace_inflight_records()).
 */
static int iotrace_inflight_head_show(struct seq_file *m,
				      struct iotrace_disk *d)
{
	struct iotrace_record *r;
	u32 i, n, torn;
	u64 now;

	seq_puts(m, "ISSUE_NS AGE_US OP SECTOR BYTES HWQ TAG CPU PID PATH\n");
	r = iotrace_inflight_records(d, &n, &torn);
	if (!r)
		return -ENOMEM;
	now = ktime_get_ns();
	for (i = 0; i < n; i++) {
		u32 path = le32_to_cpu(*(__le32 *)(r[i].cmd +
						   IOTRACE_CMD_PATH_OFF));

		/* pid 0 without IOTRACE_RF_KERNEL: none noted */
		iotrace_inflight_cols(m, now, r[i].issue_ns, r[i].op,
				      r[i].sector, r[i].bytes, r[i].hwq,
				      r[i].tag, r[i].issue_cpu,
				      r[i].pid ||
				      (r[i].rflags & IOTRACE_RF_KERNEL),
				      r[i].pid);
		seq_putc(m, ' ');
		if (path)
			seq_printf(m, "nvme%uc%un%u\n", d->mp_subsys, path - 1,
				   d->mp_ns);
		else
			seq_puts(m, "-\n");
	}
	kvfree(r);
	return 0;
}

static int iotrace_inflight_show(struct seq_file *m, void *v)
{
	struct iotrace_disk *d = m->private;
	struct iotrace_inflight_entry *e;
	u32 i, n;
	u64 now;

	if (d->mpath_head)
		return iotrace_inflight_head_show(m, d);
	seq_puts(m, "ISSUE_NS AGE_US OP SECTOR BYTES HWQ TAG CPU PID\n");
	e = iotrace_inflight_collect(d, &n);
	if (!e)
		return -ENOMEM;
	now = ktime_get_ns();
	for (i = 0; i < n; i++) {
		iotrace_inflight_cols(m, now, e[i].issue_ns, e[i].op,
				      e[i].sector, e[i].bytes, e[i].hwq,
				      e[i].tag, e[i].cpu,
				      e[i].flags & IOTRACE_INFL_SUBMITTER,
				      e[i].pid);
		seq_putc(m, '\n');
	}
	kvfree(e);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(iotrace_inflight);

/* ---- metrics: metrics.c --------------------------------------------- */

static int iotrace_metrics_file_show(struct seq_file *m, void *v)
{
	return iotrace_metrics_show(m, m->private);
}

static int iotrace_metrics_file_open(struct inode *inode, struct file *file)
{
	/* the text of 5 ops x 2 histograms can pass seq_file's first page */
	return single_open_size(file, iotrace_metrics_file_show,
				inode->i_private, 32 * PAGE_SIZE);
}

static const struct file_operations iotrace_metrics_fops = {
	.owner		= THIS_MODULE,
	.open		= iotrace_metrics_file_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* ---- trace: records merged across CPUs by completion time ------------ */

/**
 * struct iotrace_trace_chunk - a chunk as the reader found it.
 * @take: its take number (iotrace_chunk_hdr.seq).
 * @first: its first CPU sequence number.
 * @k: its index.
 * @cpu: the CPU whose records it holds.
 * @copied: the walk copied a record of it.
 */
struct iotrace_trace_chunk {
	u64 take;
	u64 first;
	u32 k;
	u32 cpu;
	bool copied;
};

/**
 * struct iotrace_trace_iter - state of one reader of <disk>/trace.
 * @d: the disk.
 * @pos: seq_file position of @cur (0 is the header line).
 * @chunks: the chunks in use when the walk started, by CPU and first
 *	sequence number.
 * @cap: entries @chunks has room for.
 * @cidx: per CPU, the index in @chunks of the chunk holding @next.
 * @cend: per CPU, one past its last entry in @chunks.
 * @next: per CPU, the next sequence number to look at.
 * @peek: per CPU, the record at @next when @have says so.
 * @have: per CPU, @peek is valid.
 * @cur: the record at @pos.
 * @cur_cpu: the CPU that completed it.
 * @at_end: no record at @pos.
 * @gen: the ring's generation when the walk started (a clear and a
 *	resize move it on: @chunks are then another ring's, or none).
 * @walked: records walked since the mutex was last let go.
 */
struct iotrace_trace_iter {
	struct iotrace_disk *d;
	loff_t pos;
	struct iotrace_trace_chunk *chunks;
	u32 cap;
	u32 *cidx;
	u32 *cend;
	u64 *next;
	struct iotrace_record *peek;
	bool *have;
	struct iotrace_record cur;
	u32 cur_cpu;
	bool at_end;
	u64 gen;
	u32 walked;
};

/* Records a walk goes through before it lets the mutex go. */
#define IOTRACE_TRACE_YIELD	1024

static int iotrace_trace_chunk_cmp(const void *a, const void *b)
{
	const struct iotrace_trace_chunk *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	/*
	 * The same numbers twice: a writer and one nested over it both took
	 * a chunk for them, and one gives its chunk back with no record in
	 * it, the earlier take or the later one (iotrace_trace_fill()).
	 */
	if (x->take != y->take)
		return x->take > y->take ? -1 : 1;
	return 0;
}

/* Return: 0, or -ENOMEM (no room for the walk's list of chunks). */
static int iotrace_trace_reset(struct iotrace_trace_iter *it)
{
	struct iotrace_disk *d = it->d;
	u32 k, n = 0, p, cpu;
	u64 last;

	it->pos = 0;
	it->at_end = false;
	/* never enabled: no ring, an empty file */
	if (!d->hdr) {
		it->at_end = true;
		return 0;
	}
	it->gen = READ_ONCE(d->hdr->generation);
	for (p = 0; p < d->nr_cpus; p++) {
		it->cidx[p] = 0;
		it->cend[p] = 0;
		it->have[p] = false;
	}
	if (it->cap < d->nr_chunks) {
		kvfree(it->chunks);
		it->chunks = kvcalloc(d->nr_chunks, sizeof(*it->chunks),
				      GFP_KERNEL);
		it->cap = it->chunks ? d->nr_chunks : 0;
		if (!it->chunks) {
			/* a read fails, not an empty ring shown */
			it->at_end = true;
			return -ENOMEM;
		}
	}
	/*
	 * The walk shows the chunks taken up to now, @last: the headers are
	 * read one after the other while CPUs take chunks, so a chunk taken
	 * during the pass may sit at an index already read while a later
	 * one of the same CPU sits at one still to come; keeping the later
	 * one would show its records after a gap of records that are in the
	 * ring.  Every chunk of a take up to @last was either taken before
	 * its index was read or holds no record yet (a take in flight, the
	 * CPU's newest): what the walk shows of a CPU has no hole that the
	 * ring does not have.
	 */
	last = (u64)atomic64_read((atomic64_t *)&d->hdr->chunks_taken);
	/* the count before the headers; pairs with the takers' cmpxchg */
	smp_rmb();
	for (k = 0; k < d->nr_chunks; k++) {
		struct iotrace_chunk_hdr *c = iotrace_chunk_hdr(d, k);
		struct iotrace_trace_chunk *e = &it->chunks[n];

		/* pairs with the taker's smp_store_release() */
		e->take = smp_load_acquire(&c->seq);
		if (!e->take || e->take > last)
			continue;
		cpu = READ_ONCE(c->cpu);
		e->first = READ_ONCE(c->first_seq);
		e->k = k;
		e->copied = false;
		/* header read before the take number again */
		smp_rmb();
		if (READ_ONCE(c->seq) != e->take || cpu >= d->nr_cpus)
			continue;
		e->cpu = cpu;
		n++;
	}
	sort(it->chunks, n, sizeof(*it->chunks), iotrace_trace_chunk_cmp, NULL);
	for (k = n; k-- > 0;) {
		p = it->chunks[k].cpu;
		if (!it->cend[p])
			it->cend[p] = k + 1;
		it->cidx[p] = k;
	}
	for (p = 0; p < d->nr_cpus; p++)
		it->next[p] = it->cidx[p] < it->cend[p] ?
			it->chunks[it->cidx[p]].first : 0;
	return 0;
}

/* Make @it->peek[p] the oldest intact record left of CPU @p, if any. */
static bool iotrace_trace_fill(struct iotrace_trace_iter *it, u32 p)
{
	u32 recs = it->d->chunk_records;

	while (!it->have[p] && it->cidx[p] < it->cend[p]) {
		struct iotrace_trace_chunk *e = &it->chunks[it->cidx[p]];

		if (it->next[p] < e->first)
			it->next[p] = e->first;
		if (it->next[p] - e->first >= recs) {
			it->cidx[p]++;
			/*
			 * Two takes of the same numbers (the comparator): the
			 * one given back has no record.  When it was this one,
			 * the other, next, is walked from its start.
			 */
			if (!e->copied && it->cidx[p] < it->cend[p] &&
			    e[1].first == e->first)
				it->next[p] = e->first;
			continue;
		}
		if (iotrace_ring_copy(it->d, e->k, e->take, e->first,
				      it->next[p], &it->peek[p])) {
			it->have[p] = true;
			e->copied = true;
		} else if (READ_ONCE(iotrace_chunk_hdr(it->d, e->k)->seq) !=
			   e->take) {
			/*
			 * Taken again: none of its records is that take's any
			 * more.  Skipped at once, not a record at a time: a
			 * ring recycled under the walk would otherwise cost a
			 * failed copy per record between two yields.
			 */
			it->next[p] = e->first + recs;
		} else {
			it->next[p]++;
		}
	}
	return it->have[p];
}

static void iotrace_trace_advance(struct iotrace_trace_iter *it)
{
	u32 p, best = U32_MAX;

	it->pos++;
	for (p = 0; p < it->d->nr_cpus; p++) {
		if (!iotrace_trace_fill(it, p))
			continue;
		if (best == U32_MAX ||
		    it->peek[p].complete_ns < it->peek[best].complete_ns)
			best = p;
	}
	if (best == U32_MAX) {
		it->at_end = true;
		return;
	}
	it->cur = it->peek[best];
	it->cur_cpu = best;
	it->have[best] = false;
	it->next[best]++;
}

/*
 * A seek (lseek(), pread()) far into the file walks every record before
 * it between one start() and stop(), under the mutex: a 1 GiB ring holds
 * 8 Mi records.  Every IOTRACE_TRACE_YIELD records the walk lets the
 * mutex go, so that control operations and a disk's removal are not held
 * up behind it, and ends when it cannot go on: the ring was cleared or
 * resized meanwhile (@it->chunks may be in a freed ring), the disk is
 * gone (its removal waits for this read), or the reader was killed.
 */
static void iotrace_trace_yield(struct iotrace_trace_iter *it)
{
	if (++it->walked < IOTRACE_TRACE_YIELD)
		return;
	it->walked = 0;
	mutex_unlock(&iotrace_mutex);
	cond_resched();
	mutex_lock(&iotrace_mutex);
	if (READ_ONCE(it->d->hdr->generation) != it->gen || !it->d->attached ||
	    fatal_signal_pending(current))
		it->at_end = true;
}

static void *iotrace_trace_start(struct seq_file *m, loff_t *pos)
{
	struct iotrace_trace_iter *it = m->private;

	/*
	 * held until stop(), let go only by iotrace_trace_yield(): a resize
	 * cannot swap the ring under the walk
	 */
	mutex_lock(&iotrace_mutex);
	if (*pos < it->pos || *pos == 0) {
		if (iotrace_trace_reset(it))
			return ERR_PTR(-ENOMEM);	/* stop() unlocks */
	} else if (!it->d->hdr || READ_ONCE(it->d->hdr->generation) != it->gen)
		/*
		 * Cleared or resized between two read()s: the walk's chunks
		 * are gone (a resize frees the ring they were in).  The file
		 * ends here; a read from offset 0 walks the ring as it is.
		 */
		it->at_end = true;
	while (it->pos < *pos && !it->at_end) {
		iotrace_trace_advance(it);
		iotrace_trace_yield(it);
	}
	return it->at_end ? NULL : it;
}

static void *iotrace_trace_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct iotrace_trace_iter *it = m->private;

	iotrace_trace_yield(it);
	if (it->at_end)
		it->pos++;
	else
		iotrace_trace_advance(it);
	*pos = it->pos;
	return it->at_end ? NULL : it;
}

static void iotrace_trace_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&iotrace_mutex);
}

static void iotrace_flags_str(char *buf, u16 rf, u16 of)
{
	static const char rch[] = "CETRPMXNQSAs";
	static const char och[] = "smpnifFrbwlu";
	int i, n = 0;

	for (i = 0; i < 12; i++)
		if (rf & (1U << i))
			buf[n++] = rch[i];
	buf[n++] = '/';
	for (i = 0; i < 12; i++)
		if (of & (1U << i))
			buf[n++] = och[i];
	buf[n] = '\0';
}

static int iotrace_trace_show(struct seq_file *m, void *v)
{
	struct iotrace_trace_iter *it = v;
	const struct iotrace_record *r = &it->cur;
	char flags[32];

	if (it->pos == 0) {
		seq_puts(m, "COMPLETE_NS LAT_NS QUEUE_NS OP SECTOR BYTES ERROR DEV_STATUS FLAGS CPU ISSUE_CPU HWQ TAG RETRIES SEQ\n");
		return 0;
	}
	iotrace_flags_str(flags, r->rflags, r->opflags);
	seq_printf(m, "%llu ", r->complete_ns);
	/* an empty PREFLUSH write: its wait from allocation (abi.rst) */
	if ((r->rflags & IOTRACE_RF_NO_ISSUE) &&
	    (!(r->rflags & IOTRACE_RF_PREFLUSH) || !r->issue_ns))
		seq_puts(m, "- ");
	else
		seq_printf(m, "%llu ", r->complete_ns - r->issue_ns);
	if (r->rflags & IOTRACE_RF_QUEUE_VALID)
		seq_printf(m, "%u ", r->queue_ns);
	else
		seq_puts(m, "- ");
	seq_printf(m, "%s %llu %u %d 0x%x %s %u ", iotrace_op_name(r->op),
		   r->sector, r->bytes, r->error, r->dev_status, flags,
		   it->cur_cpu);
	if (r->issue_cpu == U16_MAX)
		seq_puts(m, "- ");
	else
		seq_printf(m, "%u ", r->issue_cpu);
	seq_printf(m, "%u %u %u %u\n", r->hwq, r->tag, r->retries, r->seq);
	return 0;
}

static const struct seq_operations iotrace_trace_sops = {
	.start	= iotrace_trace_start,
	.next	= iotrace_trace_next,
	.stop	= iotrace_trace_stop,
	.show	= iotrace_trace_show,
};

static int iotrace_trace_open(struct inode *inode, struct file *file)
{
	struct iotrace_disk *d = inode->i_private;
	struct iotrace_trace_iter *it;
	int ret;

	it = __seq_open_private(file, &iotrace_trace_sops, sizeof(*it));
	if (!it)
		return -ENOMEM;
	it->d = d;
	/* every ring has nr_cpu_ids CPUs, also one made after this open */
	it->next = kcalloc(nr_cpu_ids, sizeof(u64), GFP_KERNEL);
	it->cidx = kcalloc(nr_cpu_ids, sizeof(u32), GFP_KERNEL);
	it->cend = kcalloc(nr_cpu_ids, sizeof(u32), GFP_KERNEL);
	it->have = kcalloc(nr_cpu_ids, sizeof(bool), GFP_KERNEL);
	it->peek = kvcalloc(nr_cpu_ids, sizeof(*it->peek), GFP_KERNEL);
	if (!it->next || !it->cidx || !it->cend || !it->have || !it->peek) {
		ret = -ENOMEM;
		goto err;
	}
	mutex_lock(&iotrace_mutex);
	ret = iotrace_trace_reset(it);
	mutex_unlock(&iotrace_mutex);
	if (ret)
		goto err;
	return 0;
err:
	kfree(it->next);
	kfree(it->cidx);
	kfree(it->cend);
	kfree(it->have);
	kvfree(it->peek);
	seq_release_private(inode, file);
	return ret;
}

static int iotrace_trace_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;
	struct iotrace_trace_iter *it = m->private;

	kfree(it->next);
	kfree(it->cidx);
	kfree(it->cend);
	kfree(it->have);
	kvfree(it->peek);
	kvfree(it->chunks);
	return seq_release_private(inode, file);
}

static const struct file_operations iotrace_trace_fops = {
	.owner		= THIS_MODULE,
	.open		= iotrace_trace_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= iotrace_trace_release,
};

/* ---- enable, clear ---------------------------------------------------- */

static ssize_t iotrace_enable_read(struct file *file, char __user *buf,
				   size_t count, loff_t *ppos)
{
	struct iotrace_disk *d = file->private_data;
	char s[3] = { READ_ONCE(d->enabled) ? '1' : '0', '\n', '\0' };

	return simple_read_from_buffer(buf, count, ppos, s, 2);
}

static ssize_t iotrace_enable_write(struct file *file, const char __user *buf,
				    size_t count, loff_t *ppos)
{
	struct iotrace_disk *d = file->private_data;
	bool on;
	int ret;

	/* control, as over netlink: not the file's mode alone */
	if (!iotrace_file_admin(file))
		return -EPERM;
	ret = kstrtobool_from_user(buf, count, &on);
	if (ret)
		return ret;
	ret = iotrace_disk_set_enabled(d, on);
	return ret ? ret : count;
}

static const struct file_operations iotrace_enable_fops = {
	.owner		= THIS_MODULE,
	.open		= simple_open,
	.read		= iotrace_enable_read,
	.write		= iotrace_enable_write,
	.llseek		= default_llseek,
};

static ssize_t iotrace_clear_write(struct file *file, const char __user *buf,
				   size_t count, loff_t *ppos)
{
	int ret;

	if (!iotrace_file_admin(file))
		return -EPERM;
	ret = iotrace_disk_clear(file->private_data);
	return ret ? ret : count;
}

static const struct file_operations iotrace_clear_fops = {
	.owner		= THIS_MODULE,
	.open		= simple_open,
	.write		= iotrace_clear_write,
	.llseek		= noop_llseek,
};

/* ---- status ------------------------------------------------------------ */

static int iotrace_status_show(struct seq_file *m, void *v)
{
	struct iotrace_disk *d;
	unsigned int n = 0, on = 0;

	mutex_lock(&iotrace_mutex);
	list_for_each_entry(d, &iotrace_disks, node) {
		n++;
		on += d->enabled;
	}
	seq_printf(m, "probes: %d\n", iotrace_probes_registered() ? 1 : 0);
	seq_printf(m, "disks: %u\n", n);
	seq_printf(m, "enabled_disks: %u\n", on);
	seq_printf(m, "buf_size: %lu\n", iotrace_buf_size);
	seq_printf(m, "submitter: %d\n", iotrace_probes_submitter() ? 1 : 0);
	seq_printf(m, "metrics: %d\n", iotrace_metrics_on ? 1 : 0);
	list_for_each_entry(d, &iotrace_disks, node)
		seq_printf(m, "disk: %s %d\n", d->name, d->enabled ? 1 : 0);
	mutex_unlock(&iotrace_mutex);
	/* persist=: the region's room and what it gave up */
	iotrace_preg_show(m);
	/* command probes: attached with the block probes; NVMe status guard */
	iotrace_cmd_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(iotrace_status);

/**
 * iotrace_debugfs_add_disk() - create <disk>/ and its files.
 * @d: the disk.
 *
 * Return: 0 or a negative errno.
 */
int iotrace_debugfs_add_disk(struct iotrace_disk *d)
{
	struct dentry *dir;

	/* no debugfs (debugfs=off, or none built): /dev/iotrace and netlink */
	if (!iotrace_debugfs_root)
		return 0;
	dir = debugfs_create_dir(d->name, iotrace_debugfs_root);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	d->dir = dir;
	debugfs_create_file_unsafe("ring", 0400, dir, d, &iotrace_ring_fops);
	debugfs_create_file("trace", 0400, dir, d, &iotrace_trace_fops);
	debugfs_create_file("stats", 0400, dir, d, &iotrace_stats_fops);
	debugfs_create_file("inflight", 0400, dir, d, &iotrace_inflight_fops);
	if (iotrace_metrics_on)
		debugfs_create_file("metrics", 0400, dir, d,
				    &iotrace_metrics_fops);
	debugfs_create_file("enable", 0600, dir, d, &iotrace_enable_fops);
	debugfs_create_file("clear", 0200, dir, d, &iotrace_clear_fops);
	return 0;
}

void iotrace_debugfs_remove_disk(struct iotrace_disk *d)
{
	debugfs_remove_recursive(d->dir);
	d->dir = NULL;
}

static int iotrace_comms_show(struct seq_file *m, void *v)
{
	return iotrace_comm_show(m, v);
}
DEFINE_SHOW_ATTRIBUTE(iotrace_comms);

#ifdef IOTRACE_PROF
static int iotrace_prof_open(struct inode *inode, struct file *file)
{
	return single_open(file, iotrace_prof_show, NULL);
}

static ssize_t iotrace_prof_write(struct file *file, const char __user *buf,
				  size_t len, loff_t *ppos)
{
	if (!iotrace_file_admin(file))
		return -EPERM;
	iotrace_prof_clear();
	return len;
}

static const struct file_operations iotrace_prof_fops = {
	.owner		= THIS_MODULE,
	.open		= iotrace_prof_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= iotrace_prof_write,
};
#endif

/**
 * iotrace_debugfs_init() - create the iotrace/ directory and its files.
 *
 * debugfs is optional: with debugfs=off on the kernel command line (or a
 * kernel without it) the module runs without these files, and its rings
 * are reached through /dev/iotrace and netlink (iotrace_debugfs_root stays
 * NULL, and no disk gets a directory).
 *
 * Context: module load, after every step that can fail (an open file
 * holds a reference to the module that a failing load does not wait for).
 */
void iotrace_debugfs_init(void)
{
	struct dentry *root;

	root = debugfs_create_dir("iotrace", NULL);
	if (IS_ERR_OR_NULL(root)) {
		pr_info("iotrace: no debugfs (%ld): rings through /dev/iotrace and netlink only\n",
			PTR_ERR(root));
		return;
	}
	iotrace_debugfs_root = root;
	debugfs_create_file("status", 0400, root, NULL, &iotrace_status_fops);
	debugfs_create_file("comms", 0400, root, NULL, &iotrace_comms_fops);
#ifdef IOTRACE_PROF
	debugfs_create_file("prof", 0600, root, NULL, &iotrace_prof_fops);
#endif
}

void iotrace_debugfs_exit(void)
{
	debugfs_remove_recursive(iotrace_debugfs_root);
	iotrace_debugfs_root = NULL;
}
