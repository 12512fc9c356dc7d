/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iotrace - internal structures shared by the files of the module.
 */
#ifndef _IOTRACE_INTERNAL_H
#define _IOTRACE_INTERNAL_H

#include <linux/types.h>
#include <linux/capability.h>
#include <linux/user_namespace.h>
#include <linux/sizes.h>
#include <linux/kref.h>
#include <linux/refcount.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/rcupdate.h>
#include <linux/rculist.h>
#include <linux/hash.h>
#include <linux/blk-mq.h>
#include <linux/jump_label.h>
#include <linux/atomic.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/bitops.h>
#include <asm/local64.h>
#include <linux/iotrace.h>

#define IOTRACE_DEF_BUF_SIZE	(4UL * SZ_1M)
#define IOTRACE_MIN_BUF_SIZE	(64UL * SZ_1K)
#define IOTRACE_MAX_BUF_SIZE	(1UL * SZ_1G)
/* Records per chunk: a power of two in this range (ring.c). */
#define IOTRACE_MIN_CHUNK_RECORDS	32
#define IOTRACE_MAX_CHUNK_RECORDS	512
/* Chunks per possible CPU the geometry aims at (fewer: smaller chunks). */
#define IOTRACE_CHUNKS_PER_CPU	16
#define IOTRACE_CPU_HDR_SIZE	64
#define IOTRACE_CHUNK_HDR_SIZE	64
/* The in-flight table never has fewer tags per hardware queue than this. */
#define IOTRACE_MIN_TAGS	256

/**
 * struct iotrace_slot - issue-side state of one request in flight.
 * @gen: even while stable, odd while the owner rewrites the slot; lets the
 *	inflight reader tell a consistent copy (of the issue's fields, and
 *	of the command, which is written under it when its request owns the
 *	slot already, iotrace_cmd_slot(); the submitter's, written before
 *	the issue, and the status's, which no reader copies, are written
 *	without it, see iotrace_probe_io_start(); the release at
 *	completion is one store of @rq, which the reader checks again after
 *	its copy).
 * @rq: request that owns the slot, NULL when free.  Compared, never shown.
 * @issue_ns: time of the (last) issue.
 * @sector: start sector at issue.
 * @bytes: length at issue.
 * @queue_ns: queue entry to issue, saturated.
 * @rflags: IOTRACE_RF_* gathered so far (requeued, queue valid, ...).
 * @opflags: IOTRACE_OPF_* of the request.
 * @issue_cpu: CPU that issued it.
 * @tag: driver tag at issue.
 * @hwq: hardware queue at issue (a shared tag set's slots are per tag).
 * @op: enum iotrace_op.
 * @retries: requeue count, saturating.
 * @cgroup: cgroup id of the request's first bio at issue, 0 if none.
 * @seq_wait: the data phase of a flush sequence completed (its record
 *	written, counted as filtered or dropped, or on a disk without a
 *	ring counted in its metrics only); the request's last completion
 *	(no bytes left, when the block layer ends the sequence) only frees
 *	the slot and leaves it set; the next issue clears it.  A request
 *	issued before its disk was enabled takes the slot with it set.
 * @cmd_rq: request the captured command belongs to, NULL if none.
 * @cmd_type: enum iotrace_cmd_type of @cmd.
 * @cmd_len: valid bytes of @cmd.
 * @cmd_rflags: IOTRACE_RF_* that come with the command.
 * @status_rq: request the device status belongs to, NULL if none.
 * @status_rflags: IOTRACE_RF_* that come with the status.
 * @status_kind: IOTRACE_MSTATUS_* of @dev_status (metrics.c).
 * @status_eh: the status is libata's, whose error handler takes every
 *	command it handles with blk_abort_request(): RQF_TIMED_OUT then
 *	says nothing, @status_rflags says whether it timed out.
 * @dev_status: device status, see struct iotrace_record.
 * @dev_result: device result, see struct iotrace_record.
 * @sub_rq: request whose submitter @pid names (block_io_start), NULL if
 *	none: cleared when the request completes or is merged into another
 *	(freed without completing), so that the next request on the tag,
 *	the same struct request, never inherits it.
 * @start_ns: where IOTRACE_QUEUE_STAMP is 1 (compat.h), the time of
 *	@sub_rq's block_io_start (its allocation, see iotrace_rq_start()),
 *	or its own rq->start_time_ns for a passthrough request; owned by
 *	@sub_rq like @pid.
 * @pid: thread group id of the submitter, 0 if the kernel's own or unknown.
 * @sub_rflags: IOTRACE_RF_KERNEL or 0.
 * @cmd: the captured command.
 *
 * One slot per (hardware queue, tag), and one per hardware queue for the
 * block layer's own flush request (it borrows the tag of a request that
 * waits for it, iotrace_slot_of()).  Only the owner of the tag writes it:
 * the issuing path, then the completing path, never both at once.
 */
struct iotrace_slot {
	u32		gen;
	struct request	*rq;
	u64		issue_ns;
	u64		sector;
	u32		bytes;
	u32		queue_ns;
	u16		rflags;
	u16		opflags;
	u16		issue_cpu;
	u16		tag;
	u16		hwq;
	u8		op;
	u8		retries;
	u8		seq_wait;
	u64		cgroup;
	struct request	*cmd_rq;
	u8		cmd_type;
	u8		cmd_len;
	u16		cmd_rflags;
	struct request	*status_rq;
	u16		status_rflags;
	u8		status_kind;
	u8		status_eh;
	u32		dev_status;
	u32		dev_result;
	struct request	*sub_rq;
	u64		start_ns;
	u32		pid;
	u16		sub_rflags;
	u8		cmd[IOTRACE_CMD_LEN] __aligned(8);
} ____cacheline_aligned;

/**
 * struct iotrace_slot_table - an in-flight table, for its readers.
 * @users: the disk's reference (from the enable or regrowth that made
 *	the table to the disable or regrowth that drops it) and one per
 *	walk in progress.
 * @nr: slots in @slots.
 * @slots: the table (iotrace_disk.slots while the disk has it).
 * @flush_keys: per flush slot, the flush request it is kept for (NULL:
 *	free), claimed by the first probe that meets that request
 *	(iotrace_disk.flush_keys while the disk has the table).
 *
 * A reader without iotrace_mutex (LIST, GET_METRICS, the in-flight views)
 * walks a table it holds a reference on, for as long as the walk takes,
 * and a disable never waits for it: the last reference frees the table.
 * A table the disk dropped is no longer written (the disable's grace
 * period), so a walk that outlives the disable counts the requests in
 * flight when the disk was disabled.
 */
struct iotrace_slot_table {
	refcount_t		users;
	u32			nr;
	struct iotrace_slot	*slots;
	struct request		*flush_keys[];
};

/**
 * struct iotrace_slot_tables - the in-flight tables holding the requests
 *	of one disk, each referenced (iotrace_slot_tables_get()).
 * @nr: tables at @v.
 * @v: per table, the table and the path id that the records of a
 *	multipath head carry for its requests (IOTRACE_CMD_PATH_OFF; 0 for
 *	a disk's own table).
 * @one: @v's room for one table.
 */
struct iotrace_slot_tables {
	u32				nr;
	struct iotrace_slot_ref {
		struct iotrace_slot_table	*t;
		u32				path;
	}				*v, one;
};

/**
 * struct iotrace_filter - which completed requests are recorded.
 * @ops: IOTRACE_FILTER_OPS_ALL bits of the operations recorded.
 * @min_bytes: smallest byte count recorded.
 * @sector_min: first start sector recorded.
 * @sector_max: last start sector recorded (inclusive).
 * @rcu: frees a replaced filter after the probes that may read it.
 *
 * Never changed once published: a new filter replaces the pointer
 * (netlink.c), so a probe sees one filter whole, old or new.
 */
struct iotrace_filter {
	u32		ops;
	u32		min_bytes;
	u64		sector_min;
	u64		sector_max;
	struct rcu_head	rcu;
};

/**
 * struct iotrace_trig - the triggers of a disk (trigger.c).
 * @lat_ns: per enum iotrace_mop, the device latency above which a
 *	completion fires (U64_MAX: never): the completion probe's one
 *	compare, indexed by the request's metrics op.
 * @md_flags: IOTRACE_MD_* bits of a completion that fire (error, device
 *	status, timeout); the probe's second test.
 * @requeues: the requeue count that fires, 0 for none.
 * @nr_errnos: entries of @errnos; 0: any errno fires (with error set).
 * @errnos: the positive errnos that fire.
 * @mop_lat_ns: the latency thresholds as set, per enum iotrace_mop (0: off).
 * @stuck_ns: age in flight that fires (the scan), 0 for none.
 * @rate_ns: least time between two events.
 * @hold_chunks: chunks a hit holds (the history before it), 0 for no
 *	hold, IOTRACE_TRIG_HOLD_MAX for the most the ring allows
 *	(iotrace_hold_max(), applied at the hit: a resize may change it).
 * @hold_ns: a hold nobody released ends this long after it was set.
 * @epoch: the epoch this set starts (iotrace_trig_state.epoch), given
 *	to its events when they are posted.
 *
 * Never changed once published: SET_TRIGGER replaces the pointer
 * (iotrace_disk.trig), so a probe sees one set whole, old or new.
 */
struct iotrace_trig {
	u64		lat_ns[IOTRACE_NR_MOPS];
	u8		md_flags;
	u8		requeues;
	u8		nr_errnos;
	u16		errnos[IOTRACE_TRIG_MAX_ERRNOS];
	u64		mop_lat_ns[IOTRACE_NR_MOPS];
	u64		stuck_ns;
	u64		rate_ns;
	u32		hold_chunks;
	u64		hold_ns;
	u64		epoch;
};

/* iotrace_disk.hold_state */
#define IOTRACE_HOLD_NONE	0	/* no hold: the ring header says 0 */
#define IOTRACE_HOLD_SETTING	1	/* a hit is setting it (a few stores) */
#define IOTRACE_HOLD_ACTIVE	2	/* the ring header has the hold */

/* iotrace_trig_evt.has */
#define IOTRACE_TE_SEQ		BIT(0)	/* @cpu, @seq, @generation */
#define IOTRACE_TE_ISSUE	BIT(1)	/* @issue_ns */
#define IOTRACE_TE_LAT		BIT(2)	/* @lat_ns */
#define IOTRACE_TE_STATUS	BIT(3)	/* @dev_status */
#define IOTRACE_TE_PID		BIT(4)	/* @pid */

/**
 * struct iotrace_trig_evt - the facts of one trigger event.
 * @seq: the record's CPU sequence number.
 * @generation: the ring's generation when it was written.
 * @time_ns: completion, requeue or scan time.
 * @issue_ns: issue time.
 * @lat_ns: device latency, or age in flight.
 * @sector: start sector.
 * @reason: IOTRACE_TRIG_* bits.
 * @errno_val: positive errno, 0 for none.
 * @dev_status: the record's device status.
 * @bytes: length.
 * @cpu: the CPU of @seq.
 * @pid: the submitter's pid, 0 for the kernel's own I/O.
 * @hwq: hardware queue.
 * @tag: tag.
 * @op: enum iotrace_op.
 * @retries: requeues.
 * @has: IOTRACE_TE_* bits: which fields are meaningful.
 * @epoch: the epoch of the set that fired (set by iotrace_trig_post()).
 */
struct iotrace_trig_evt {
	u64	seq;
	u64	epoch;
	u64	generation;
	u64	time_ns;
	u64	issue_ns;
	u64	lat_ns;
	u64	sector;
	u32	reason;
	u32	errno_val;
	u32	dev_status;
	u32	bytes;
	u32	cpu;
	u32	pid;
	u16	hwq;
	u16	tag;
	u8	op;
	u8	retries;
	u8	has;
};

/* iotrace_trig_state.flags */
#define IOTRACE_TS_PENDING	0	/* the event slot is taken */
#define IOTRACE_TS_READY	1	/* @ev is filled, to be sent */
#define IOTRACE_TS_HOLD		2	/* a hit set a hold: arm its expiry */

/**
 * struct iotrace_trig_state - a disk's trigger events (trigger.c).
 * @flags: IOTRACE_TS_* bits.
 * @last_ns: @time_ns of the last hit that became an event; written by
 *	the holder of IOTRACE_TS_PENDING only.
 * @scan_ns: the stuck scan's previous time, under iotrace_mutex.
 * @stuck_last_ns: the last stuck event's time, under iotrace_mutex.
 * @hits: hits since the triggers were set.
 * @events: events sent since then.
 * @suppressed: hits not sent since the last event.
 * @suppressed_total: hits not sent since the triggers were set.
 * @epoch: the set that started these counts (IOTRACE_A_TRIG_EPOCH), under
 *	iotrace_mutex.
 * @ev: the event being sent, owned by the holder of IOTRACE_TS_PENDING.
 */
struct iotrace_trig_state {
	unsigned long		flags;
	u64			last_ns;
	u64			scan_ns;
	u64			stuck_last_ns;
	atomic_long_t		hits;
	atomic_long_t		events;
	atomic_long_t		suppressed;
	atomic_long_t		suppressed_total;
	u64			epoch;
	struct iotrace_trig_evt	ev;
};

/**
 * struct iotrace_ringbuf - the memory of one ring and who still uses it.
 * @node: in iotrace_disk.retired once a resize replaced it.
 * @mem: the vmalloc()ed area (or the persistent region's).
 * @users: mappings of it and read()s in progress, under
 *	iotrace_disk.ring_lock.
 * @retired: replaced by a resize: freed when @users drops to zero.
 */
struct iotrace_ringbuf {
	struct list_head	node;
	void			*mem;
	unsigned int		users;
	bool			retired;
};

/**
 * struct iotrace_totals - counters of rings a resize replaced since the
 *	last clear.
 * @recorded: records started.
 * @overwritten: records lost to wrap-around.
 * @dropped: completions not recorded.
 * @filtered: completions the filter left out.
 * @resizes: rings replaced.
 */
struct iotrace_totals {
	u64	recorded;
	u64	overwritten;
	u64	dropped;
	u64	filtered;
	u32	resizes;
};

/**
 * struct iotrace_disk - one traced whole disk and its ring.
 * @kref: the disk list, open ring files and mappings each hold one.
 * @hnode: in iotrace_disk_hash, keyed by @gd, RCU.
 * @node: in iotrace_disks, under iotrace_mutex.
 * @gd: the gendisk, used as a lookup key only; NULL once detached and
 *	never dereferenced after the disk was removed.  NULL for a controller.
 * @ctrl_key: controller ring: the controller device's driver data (the
 *	nvme_ctrl), compared with the admin tag set's driver data, never
 *	dereferenced; NULL for a disk and once detached.
 * @bus_key: controller ring: the driver data of the controller's bus
 *	device (6.1's nvme-pci gives that, its nvme_dev, to the admin tag
 *	set), compared only.
 * @bus_dev: controller ring: the bus (PCI) device, compared only.
 * @rec_rflags: IOTRACE_RF_* every record of this ring carries
 *	(IOTRACE_RF_ADMIN for a controller).
 * @state: IOTRACE_ST_* bits, what the probes do for this disk; one word,
 *	read once per probe (smp_load_acquire) and written with one
 *	store-release (iotrace_disk_set_state()), so that no probe can see
 *	half of a change on any memory model.
 * @head: an NVMe multipath path's head (its ring gets this path's
 *	records too), while both are attached; set and cleared under
 *	iotrace_mutex, read by the completion probe (RCU).  NULL otherwise.
 * @path_id: an NVMe multipath path's (nvmeXcNnY): 1 + N, its
 *	controller's instance, stamped in its head's records
 *	(IOTRACE_CMD_PATH_OFF); 0 for every other disk.
 * @dm_rq: a device-mapper disk with requests (dm-multipath), which ends
 *	each request twice (iotrace_complete_unowned()).
 * @mpath_head: the ring of an NVMe multipath head (nvmeXnY): no
 *	requests, no in-flight table of its own.
 * @mp_subsys: a head's or path's subsystem instance (X).
 * @mp_ns: a head's or path's namespace instance (Y).
 * @enabled: user-visible enable state, under iotrace_mutex.
 * @attached: still in the hash and debugfs, under iotrace_mutex.
 * @cmds: a command hook has written a slot of this disk, so its ring
 *	may hold command bytes; until then every record's command area is
 *	still zero (the ring is zeroed when it is allocated and reset) and
 *	the completion does not clear it.  Set once, never cleared.
 * @ata: libata issued a taskfile for this disk: an ATA disk (on an AHCI
 *	host, or SATA behind a libsas HBA beside SAS disks), whose status
 *	the ATA probes record; the SCSI probe leaves its commands alone,
 *	those libata answers itself too.  Set once, never cleared.
 * @ring: vmalloc()ed memory or the persistent region's, mapped by
 *	readers; NULL until the disk is first enabled (or resized), then
 *	kept until the disk is freed.
 * @buf_size: buf_size the ring was sized for (before the ring exists:
 *	the size it will have).
 * @ring_size: bytes of @ring (at most @buf_size), 0 without a ring.
 * @hdr: the ring header (start of @ring), NULL without a ring.
 * @cpu_hdrs: CPU 0's header in @ring (@hdr's cpu_hdr_offset), cached:
 *	the writer's fast path computes no offset from the header.
 * @chunk_hdrs: chunk 0's header in @ring (chunk_hdr_offset).
 * @data: chunk 0's first record in @ring (data_offset).
 * @chunk_records: records per chunk (power of two).
 * @nr_chunks: chunks in the pool.
 * @nr_cpus: CPU headers in the ring (nr_cpu_ids).
 * @seq_base: the CPU heads' value after the last reset (0 but for the
 *	debug_seq_start test hook).
 * @slots: in-flight table, iotrace_nr_slots() slots, allocated by each
 *	enable, replaced by a regrowth and dropped by each disable (NULL
 *	while disabled); changed under iotrace_mutex and @slots_lock, read
 *	by the probes (when their state says IOTRACE_ST_SLOTS) and under
 *	iotrace_mutex.
 * @slot_table: @slots with its size and users count, for the readers
 *	that do not hold iotrace_mutex (iotrace_slots_get()); NULL while
 *	disabled.
 * @slots_lock: protects @slot_table against a reader taking its
 *	reference while an enable, a regrowth or a disable changes it.
 * @slots_regrown: the table was regrown since the enable: a request in
 *	flight across the regrowth that ends a flush sequence without
 *	owning its slot had its data phase recorded (probe.c).
 * @nr_hwq: hardware queues covered by @slots (1 for a tag set whose tags
 *	are shared by its hardware queues: a tag is unique across them).
 * @depth: tags per hardware queue covered by @slots.
 * @nr_flush: flush slots after the tag slots, one per hardware queue
 *	(and so per flush queue), each kept for one flush request.
 * @flush_keys: which flush request each flush slot is kept for (the
 *	table's, see struct iotrace_slot_table).
 * @tags_shared: the tag set's tags (driver and scheduler) are shared by
 *	its hardware queues: the tag slots are one table of @depth.
 * @hwq_stride: tag slots between two hardware queues' first ones: @depth,
 *	0 when @tags_shared.
 * @dev_major: device number (the ring header's copy is made with the ring).
 * @dev_minor: device number.
 * @lbs: logical block size, for the ring header.
 * @hdr_flags: IOTRACE_RING_* flags the ring header starts with.
 * @dir: debugfs directory of the disk.
 * @cdev: its /dev/iotrace/<disk> device (chardev.c), NULL if none.
 * @name: disk name.
 * @filter: which requests are recorded, NULL for all (netlink.c), RCU.
 * @totals: counters carried over ring swaps since the last clear.
 * @held: per-CPU completions seen while the ring was being reset or
 *	swapped (IOTRACE_ST_SLOTS without IOTRACE_ST_RECORD); never reset.
 * @held_base: sum of @held at the last clear.
 * @nl_flags: IOTRACE_NL_* bits (overflow event state).
 * @slots_flags: IOTRACE_SLOTS_* bits: a probe saw a request the table
 *	does not cover (iotrace_slots_outgrown()).
 * @metrics: in-kernel metrics (metrics.c), from the first enable as long
 *	as the disk lives (store-released once, iotrace_disk_metrics());
 *	NULL before and with metrics=N.
 * @trig: the triggers (trigger.c), NULL for none, RCU.
 * @tstate: the state of its events.
 * @hold_state: IOTRACE_HOLD_*: whether the ring has a hold (trigger.c);
 *	NONE -> SETTING by one cmpxchg of the hit that sets it, then ACTIVE;
 *	back to NONE by iotrace_hold_release() only, under iotrace_mutex.
 * @hold_until_ns: when the active hold expires (written while SETTING).
 * @take_passed: take numbers the takers passed over without trying
 *	them (a held range skipped in one step, ring.c): chunks_taken less
 *	this is the candidates tried.  Never reset, as chunks_taken.
 * @take_most: the most candidates one chunk take tried since the ring
 *	was last reset (debugfs stats; a racy maximum, a hint).
 * @ring_lock: protects @rb, @retired and every ring's users count.
 * @rb: the current ring's memory (@ring) and its users, NULL without a
 *	ring.
 * @retired: rings a resize replaced while mapped or being read; each is
 *	freed when its own last user goes.
 * @pslots: with persist=: the in-flight table's copy in the persistent
 *	region (preg.c), @nr_pslots slots indexed as @slots; set with
 *	@slots (at an enable, or a regrowth while the probes keep no
 *	slots), NULL without.
 * @nr_pslots: slots of @pslots.
 * @preg_disk_gen: with persist=: the disk's number in the region's
 *	entries, given at its first allocation there.
 * @preg_id: with persist=: the disk's identity as user space gave it
 *	(IOTRACE_CMD_SET_IDENTITY), written beside each of its entries, or
 *	NULL; set and read under preg.c's lock.
 */
struct iotrace_disk {
	struct kref		kref;
	struct hlist_node	hnode;
	struct list_head	node;
	struct gendisk		*gd;
	const void		*ctrl_key;
	const void		*bus_key;
	const struct device	*bus_dev;
	u16			rec_rflags;
	unsigned int		state;
	struct iotrace_disk __rcu *head;
	u32			path_id;
	bool			mpath_head;
	bool			dm_rq;
	u32			mp_subsys;
	u32			mp_ns;
	bool			enabled;
	bool			attached;
	bool			cmds;
	bool			ata;
	void			*ring;
	unsigned long		buf_size;
	size_t			ring_size;
	struct iotrace_ring_hdr	*hdr;
	void			*cpu_hdrs;
	void			*chunk_hdrs;
	void			*data;
	u32			chunk_records;
	u32			nr_chunks;
	u32			nr_cpus;
	u64			seq_base;
	struct iotrace_slot	*slots;
	struct iotrace_slot_table *slot_table;
	spinlock_t		slots_lock;	/* @slot_table */
	bool			slots_regrown;
	u32			nr_hwq;
	u32			depth;
	u32			nr_flush;
	struct request		**flush_keys;
	bool			tags_shared;
	u32			hwq_stride;
	u32			dev_major;
	u32			dev_minor;
	u32			lbs;
	u32			hdr_flags;
	struct dentry		*dir;
	struct iotrace_cdev	*cdev;
	char			name[IOTRACE_NAME_LEN];
	/* netlink.c */
	struct iotrace_filter __rcu *filter;
	struct iotrace_totals	totals;
	u64 __percpu		*held;
	u64			held_base;
	unsigned long		nl_flags;
	unsigned long		slots_flags;
	struct iotrace_metrics	*metrics;
	struct iotrace_trig __rcu *trig;
	struct iotrace_trig_state tstate;
	unsigned int		hold_state;
	u64			hold_until_ns;
	atomic64_t		take_passed;
	u32			take_most;
	spinlock_t		ring_lock;	/* @rb, @retired, users */
	struct iotrace_ringbuf	*rb;
	struct list_head	retired;
	/* preg.c */
	struct iotrace_preg_slot *pslots;
	u32			nr_pslots;
	u64			preg_disk_gen;
	struct iotrace_preg_ident *preg_id;
};

/* iotrace_disk.state: the probes keep the in-flight table (enabled) */
#define IOTRACE_ST_SLOTS	BIT(0)
/* iotrace_disk.state: the completion probe writes the ring */
#define IOTRACE_ST_RECORD	BIT(1)

/* iotrace_disk.slots_flags: a regrowth of the in-flight table is asked */
#define IOTRACE_SLOTS_OUTGROWN	0
/*
 * iotrace_disk.slots_flags: a flush request found every flush slot kept
 * for another (hardware queues replaced): a new table even if the tag set
 * did not grow
 */
#define IOTRACE_SLOTS_REKEY	1

/*
 * Slots a walk of an in-flight table reads between two cond_resched(): a
 * table can have millions (hardware queues times tags), its readers need
 * no privilege (LIST, GET_METRICS), and the stuck scan walks every armed
 * disk's.
 */
#define IOTRACE_SLOT_BATCH	4096

/*
 * Slots of @d: one per (hardware queue, tag), one flush slot per queue;
 * none while @d keeps no slot table.
 */
static inline u32 iotrace_nr_slots(const struct iotrace_disk *d)
{
	return d->slots ? d->nr_hwq * d->depth + d->nr_flush : 0;
}

/* The most bytes an in-flight table may take. */
#define IOTRACE_MAX_SLOTS_BYTES	(256UL * SZ_1M)
/* A larger in-flight table is vmalloc()ed. */
#define IOTRACE_SLOTS_KMALLOC_MAX	(8UL * PAGE_SIZE)

/*
 * The metrics of @d, NULL before its first enable (or with metrics=N):
 * set once with a store-release, after they were initialized.
 */
static inline struct iotrace_metrics *
iotrace_disk_metrics(struct iotrace_disk *d)
{
	/* pairs with the store-release in iotrace_disk_provision() */
	return smp_load_acquire(&d->metrics);
}

/**
 * struct iotrace_disk_mem - what a disk's recording costs now.
 * @ring: bytes of its ring (vmalloc).
 * @slots: bytes of its in-flight table (kvmalloc).
 * @metrics: bytes of its metrics (per-CPU part on every possible CPU,
 *	and the shared part).
 */
struct iotrace_disk_mem {
	u64	ring;
	u64	slots;
	u64	metrics;
};

/**
 * struct iotrace_slot_issue - what a reader of the in-flight table copies
 *	of a slot (iotrace_slot_read()).
 * @issue_ns: CLOCK_MONOTONIC ns of the issue.
 * @sector: start sector.
 * @bytes: length.
 * @issue_cpu: CPU that issued it.
 * @tag: its tag.
 * @op: enum iotrace_op.
 * @retries: requeues so far.
 * @pid: the submitter's pid (with IOTRACE_INFL_SUBMITTER in @sub).
 * @sub: IOTRACE_INFL_* bits: whether the submitter was noted, and whether
 *	it is the kernel.
 */
struct iotrace_slot_issue {
	u64	issue_ns;
	u64	sector;
	u32	bytes;
	u16	issue_cpu;
	u16	tag;
	u16	hwq;
	u8	op;
	u8	retries;
	u32	pid;
	u8	sub;
};

bool iotrace_slot_read(struct iotrace_slot *s, struct iotrace_slot_issue *v);

/**
 * struct iotrace_counts - a consistent-enough sum of a ring's counters.
 * @recorded: records ever started (sum of CPU heads).
 * @overwritten: records lost to wrap-around.
 * @present: records the ring can still hold.
 * @dropped: completions that could not be recorded.
 * @filtered: completions the filter left out.
 * @inflight: requests issued and not completed, per the slot table.
 */
struct iotrace_counts {
	u64 recorded;
	u64 overwritten;
	u64 present;
	u64 dropped;
	u64 filtered;
	u64 inflight;
};

extern unsigned long iotrace_buf_size;
extern struct mutex iotrace_mutex;
extern struct list_head iotrace_disks;
extern struct dentry *iotrace_debugfs_root;

/**
 * struct iotrace_geom - the layout of a ring (iotrace_ring_geometry()).
 * @nr_cpus: CPU headers.
 * @chunk_records: records per chunk.
 * @nr_chunks: chunks.
 * @cpu_hdr_offset: offset of CPU 0's header.
 * @chunk_hdr_offset: offset of chunk 0's header.
 * @data_offset: offset of chunk 0's first record.
 * @ring_size: bytes.
 */
struct iotrace_geom {
	u32	nr_cpus;
	u32	chunk_records;
	u32	nr_chunks;
	u64	cpu_hdr_offset;
	u64	chunk_hdr_offset;
	u64	data_offset;
	u64	ring_size;
};

/* ring.c */
int iotrace_ring_alloc(struct iotrace_disk *d, unsigned long buf_size);
int iotrace_ring_mmap(struct vm_area_struct *vma, void *mem,
		      unsigned long pgoff);
void iotrace_ring_hdr_publish(struct iotrace_disk *d);
void iotrace_ring_free(struct iotrace_disk *d);
void iotrace_ring_mem_free(void *mem);
void iotrace_ring_mem_discard(void *mem);

struct seq_file;

/* preg.c: the persistent region (persist=) */
DECLARE_STATIC_KEY_FALSE(iotrace_preg_key);
int iotrace_preg_init(void);
void iotrace_preg_quiesce(void);
void iotrace_preg_exit(void);
void iotrace_preg_unwind(void);
void *iotrace_preg_alloc(struct iotrace_disk *d, size_t bytes, u32 nr_slots);
void iotrace_preg_show(struct seq_file *m);
bool iotrace_preg_owns(const void *p);
void iotrace_preg_free(void *p);
void iotrace_preg_free_removed(void *p);
void iotrace_preg_abort(void);
void iotrace_preg_publish(void);
void iotrace_preg_discard(void *p);
void iotrace_preg_adopt(struct iotrace_disk *d);
int iotrace_preg_set_ident(struct iotrace_disk *d, const char *model,
			   const char *serial, const char *wwn);
void iotrace_preg_forget(struct iotrace_disk *d);
int iotrace_preg_mmap(struct vm_area_struct *vma, void *p,
		      unsigned long pgoff);
unsigned long iotrace_ring_min_size(void);
int iotrace_ring_geometry(unsigned long buf_size, struct iotrace_geom *g);
void iotrace_ring_reset(struct iotrace_disk *d);
void iotrace_ring_counts(struct iotrace_disk *d, struct iotrace_counts *c);
bool iotrace_ring_switch(struct iotrace_disk *d, struct iotrace_cpu_hdr *h,
			 u32 cpu, u32 j, int tries);
void iotrace_ring_settle(struct iotrace_disk *d, struct iotrace_cpu_hdr *h);
void iotrace_chunk_full(struct iotrace_chunk_hdr *c);
bool iotrace_ring_copy(struct iotrace_disk *d, u32 k, u64 take, u64 first,
		       u64 seq, struct iotrace_record *out);

static inline struct iotrace_cpu_hdr *
iotrace_cpu_hdr(struct iotrace_disk *d, u32 cpu)
{
	return d->cpu_hdrs + (size_t)cpu * IOTRACE_CPU_HDR_SIZE;
}

static inline struct iotrace_chunk_hdr *
iotrace_chunk_hdr(struct iotrace_disk *d, u32 k)
{
	return d->chunk_hdrs + (size_t)k * IOTRACE_CHUNK_HDR_SIZE;
}

/* Slot @i of chunk @k. */
static inline struct iotrace_record *
iotrace_chunk_rec(struct iotrace_disk *d, u32 k, u32 i)
{
	return d->data +
		((size_t)k * d->chunk_records + i) * IOTRACE_RECORD_SIZE;
}

/*
 * The writer's fast path, inline in the completion probe: a slot of the
 * CPU's current chunk (ring.c has the chunk switch and the settling of
 * pending chunks, out of line).
 */

/* A writer of CPU header @h leaves; the outermost one settles pending. */
static __always_inline void iotrace_ring_leave(struct iotrace_disk *d,
					       struct iotrace_cpu_hdr *h)
{
	barrier();
	if (!local64_sub_return(1, (local64_t *)&h->nest) &&
	    unlikely(READ_ONCE(h->pending) != IOTRACE_CHUNK_NONE))
		iotrace_ring_settle(d, h);
}

/*
 * Reserve the next slot of chunk @j, CPU header @h's current one, and
 * mark it busy, its CPU sequence number in @seq; NULL when the chunk is
 * full.
 */
static __always_inline struct iotrace_record *
iotrace_ring_slot(struct iotrace_disk *d, struct iotrace_cpu_hdr *h, u32 j,
		  u64 *seq)
{
	struct iotrace_chunk_hdr *c = iotrace_chunk_hdr(d, j);
	u64 i = local64_inc_return((local64_t *)&c->reserved_slots) - 1;
	struct iotrace_record *r;

	if (unlikely(i >= d->chunk_records))
		return NULL;
	*seq = c->first_seq + i;
	r = iotrace_chunk_rec(d, j, i);
	local64_inc((local64_t *)&h->head);
	WRITE_ONCE(r->seq, IOTRACE_SEQ_BUSY(*seq));
	/* busy visible before any byte of the body changes */
	smp_wmb();
	return r;
}

/**
 * iotrace_ring_reserve() - reserve the next slot of this CPU.
 * @d: the disk.
 * @cpu: this CPU (held: preemption disabled until iotrace_ring_commit()).
 * @seq: out, the record's CPU sequence number.
 * @chunk: out, its chunk.
 *
 * Marks the slot busy (~seq).  Every successful reserve must be followed
 * by iotrace_ring_commit() on the same CPU.  IRQ-safe on this CPU: local64
 * operations, no LOCK prefix.  The outs are scalars, not a structure: an
 * inline function's scalar outs stay in registers, where a structure would
 * be zeroed in memory first (Debian's kernels initialize every local).
 *
 * Return: the record, or NULL when the completion could not be recorded
 * (counted in the CPU's dropped).
 */
static __always_inline struct iotrace_record *
iotrace_ring_reserve(struct iotrace_disk *d, u32 cpu, u64 *seq, u32 *chunk)
{
	struct iotrace_cpu_hdr *h = iotrace_cpu_hdr(d, cpu);
	struct iotrace_record *r;
	int tries;
	u32 j;

	local64_inc((local64_t *)&h->nest);
	/* in the probe before the current chunk is read */
	barrier();
	j = READ_ONCE(h->cur);
	for (tries = 0; ; tries++) {
		if (likely(j != IOTRACE_CHUNK_NONE)) {
			r = iotrace_ring_slot(d, h, j, seq);
			if (likely(r)) {
				*chunk = j;
				return r;
			}
		}
		/* the outs' addresses stay here: the switch is out of line */
		if (!iotrace_ring_switch(d, h, cpu, j, tries))
			return NULL;
		j = READ_ONCE(h->cur);
	}
}

/**
 * iotrace_ring_commit() - publish a record filled after
 *	iotrace_ring_reserve().
 * @d: the disk.
 * @cpu: the CPU that reserved it (still held).
 * @r: the record.
 * @seq: its CPU sequence number.
 * @chunk: its chunk.
 */
static __always_inline void iotrace_ring_commit(struct iotrace_disk *d,
						u32 cpu,
						struct iotrace_record *r,
						u64 seq, u32 chunk)
{
	struct iotrace_chunk_hdr *c = iotrace_chunk_hdr(d, chunk);
	u64 t = r->complete_ns;

	/* publish: the body is visible before the sequence number */
	smp_store_release(&r->seq, (u32)seq);
	WRITE_ONCE(c->last_ns, t);
	if (unlikely(!local64_sub_return(1, (local64_t *)&c->refs)))
		iotrace_chunk_full(c);
	iotrace_ring_leave(d, iotrace_cpu_hdr(d, cpu));
}

/* probe.c */
int iotrace_probes_find(void);
int iotrace_probes_get(void);
void iotrace_probes_put(void);
bool iotrace_probes_registered(void);
bool iotrace_probes_submitter(void);
const char *iotrace_op_name(u8 op);
/*
 * Every probe holds its CPU (preempt_disable_notrace()) from choosing a
 * per-CPU part or writing a slot to publishing: since 7.x tracepoint
 * probes run under SRCU, preemptible.  IOTRACE_DEBUG builds check it where
 * the CPU is needed, and what iotrace_assert() says (release builds do
 * not evaluate it).
 */
#ifdef IOTRACE_DEBUG
#define iotrace_assert(cond)		WARN_ON_ONCE(!(cond))
#else
#define iotrace_assert(cond)		BUILD_BUG_ON_INVALID(cond)
#endif
#define iotrace_assert_cpu_held()	iotrace_assert(!preemptible())

/*
 * IOTRACE_PROF=y (a profiling build, never a release one): the probes
 * count the guest clock spent in each of their parts (Documentation/
 * benchmark.rst, "Instructions per probe"); debugfs iotrace/prof
 * shows the sums, a write clears them.
 */
enum iotrace_prof_part {
	IOTRACE_PF_CALIB,	/* two clock reads back to back */
	IOTRACE_PF_IO_START,	/* block_io_start probe, whole */
	IOTRACE_PF_ISSUE,	/* block_rq_issue probe, whole */
	IOTRACE_PF_ISSUE_CLOCK,	/* its ktime_get_ns() */
	IOTRACE_PF_COMPLETE,	/* block_rq_complete probe, whole */
	IOTRACE_PF_C_LOOKUP,	/* disk lookup, state, slot */
	IOTRACE_PF_C_CLOCK,	/* its ktime_get_ns() */
	IOTRACE_PF_C_COUNT,	/* the metrics */
	IOTRACE_PF_C_TRIG,	/* the trigger test */
	IOTRACE_PF_C_RECORD,	/* the record's tests: state, CPU, filter */
	IOTRACE_PF_C_FILL,	/* the record's fill and slot release */
	IOTRACE_PF_NVME_CMD,	/* nvme_setup_cmd probe: the command noted */
	IOTRACE_PF_NVME_STATUS,	/* nvme_complete_rq probe: the status noted */
	IOTRACE_PF_IO_START_LOOKUP,	/* block_io_start: disk, state, slot */
	IOTRACE_PF_IO_START_CLOCK,	/* its allocation stamp (6.9+) */
	IOTRACE_PF_ISSUE_LOOKUP,	/* block_rq_issue: disk, state, slot */
	IOTRACE_PF_C_RESERVE,	/* the record's reserve */
	IOTRACE_PF_C_COMMIT,	/* its publication */
	IOTRACE_PF_NR
};

#ifdef IOTRACE_PROF
extern bool iotrace_prof_parts;
u64 iotrace_prof_now(void);
void iotrace_prof_note(unsigned int part, u64 t0);
int iotrace_prof_show(struct seq_file *m, void *v);
void iotrace_prof_clear(void);
/* the whole probe: t0 at its start, iotrace_prof() at its end */
#define IOTRACE_PROF_T(v)		u64 v = iotrace_prof_now()
#define iotrace_prof(part, t0)		iotrace_prof_note(part, t0)
#define IOTRACE_PROF_P(v)		u64 v = 0
/* its parts, when the module parameter prof_parts is set */
#define iotrace_prof_pstart(v)					\
	do {							\
		if (iotrace_prof_parts)				\
			(v) = iotrace_prof_now();		\
	} while (0)
#define iotrace_prof_part(part, t0)				\
	do {							\
		if (iotrace_prof_parts)				\
			iotrace_prof_note(part, t0);		\
	} while (0)
#else
#define IOTRACE_PROF_T(v)		u64 v __maybe_unused = 0
#define IOTRACE_PROF_P(v)		u64 v __maybe_unused = 0
#define iotrace_prof_pstart(v)		((void)(v))
static inline void iotrace_prof(unsigned int part, u64 t0)
{
}

static inline void iotrace_prof_part(unsigned int part, u64 t0)
{
}
#endif

/*
 * A command area (a record's, a slot's): copied, or cleared but for a
 * record's cgroup id's eight bytes (q[4], which the caller writes), in
 * 8-byte stores.  For 64 bytes gcc emits rep movs / rep stos, whose
 * start-up costs more than eight stores on hardware (and which QEMU's
 * instruction count counts per iteration, Documentation/benchmark.rst);
 * volatile stores, written out, keep it from making them a
 * memcpy()/memset() or a loop again.
 */
static __always_inline void iotrace_cmd_copy(u8 *dst, const u8 *src)
{
	const u64 *p = (const u64 *)src;
	u64 *q = (u64 *)dst;

	BUILD_BUG_ON(IOTRACE_CMD_LEN != 8 * sizeof(u64) ||
		     IOTRACE_CMD_CGROUP_OFF != 4 * sizeof(u64) ||
		     offsetof(struct iotrace_record, cmd) % sizeof(u64) ||
		     offsetof(struct iotrace_slot, cmd) % sizeof(u64));
	WRITE_ONCE(q[0], p[0]);
	WRITE_ONCE(q[1], p[1]);
	WRITE_ONCE(q[2], p[2]);
	WRITE_ONCE(q[3], p[3]);
	WRITE_ONCE(q[4], p[4]);
	WRITE_ONCE(q[5], p[5]);
	WRITE_ONCE(q[6], p[6]);
	WRITE_ONCE(q[7], p[7]);
}

static __always_inline void iotrace_cmd_clear(u8 *dst)
{
	u64 *q = (u64 *)dst;

	WRITE_ONCE(q[0], 0);
	WRITE_ONCE(q[1], 0);
	WRITE_ONCE(q[2], 0);
	WRITE_ONCE(q[3], 0);
	WRITE_ONCE(q[5], 0);
	WRITE_ONCE(q[6], 0);
	WRITE_ONCE(q[7], 0);
}

/**
 * iotrace_slot_rec() - the request @rq that slot @s holds, in record @r as
 *	its completion would fill it, without the completion.
 * @r: the record: complete_ns, seq, error and the device status zero.
 * @s: the slot.
 * @rq: its request: the submitter and the command are taken only when
 *	tagged with it (see struct iotrace_slot).
 *
 * The caller adds the ring's flags, the slot's and IOTRACE_RF_PASSTHRU.
 *
 * Return: the IOTRACE_RF_* flags the submitter and the command add
 * (IOTRACE_RF_CMD_VALID when the command was taken).
 */
static __always_inline u16 iotrace_slot_rec(struct iotrace_record *r,
					    const struct iotrace_slot *s,
					    const struct request *rq)
{
	u16 rflags = 0;

	r->pid = 0;
	if (READ_ONCE(s->sub_rq) == rq) {
		/* pairs with the smp_wmb() before sub_rq is set */
		smp_rmb();
		r->pid = s->pid;
		rflags |= s->sub_rflags;
	}
	if (READ_ONCE(s->cmd_rq) == rq) {
		/* pairs with the smp_wmb() before cmd_rq is set */
		smp_rmb();
		r->cmd_type = s->cmd_type;
		r->cmd_len = s->cmd_len;
		iotrace_cmd_copy(r->cmd, s->cmd);
		rflags |= s->cmd_rflags;
	} else {
		r->cmd_type = IOTRACE_CMD_NONE;
		r->cmd_len = 0;
		iotrace_cmd_clear(r->cmd);
	}
	r->seq = 0;
	r->bytes = s->bytes;
	r->issue_ns = s->issue_ns;
	r->complete_ns = 0;
	r->sector = s->sector;
	r->queue_ns = s->queue_ns;
	r->dev_status = 0;
	r->dev_result = 0;
	r->error = 0;
	r->opflags = s->opflags;
	r->issue_cpu = s->issue_cpu;
	r->hwq = s->hwq;
	r->tag = s->tag;
	r->op = s->op;
	r->retries = s->retries;
	/* after the command: its area holds the cgroup id */
	*(__le64 *)(r->cmd + IOTRACE_CMD_CGROUP_OFF) = cpu_to_le64(s->cgroup);
	return rflags;
}

void iotrace_note_cmd(struct request *rq, u8 type, const void *cmd, u8 len,
		      u16 rflags);
struct iotrace_slot *iotrace_cmd_slot(struct request *rq);
void iotrace_cmd_issued(struct iotrace_slot *s, struct request *rq);
struct iotrace_slot *iotrace_ata_cmd_slot(struct request *rq);

/**
 * iotrace_cmd_publish() - tag the command a hook wrote into slot @s's
 *	command area (after iotrace_cmd_slot()) with its request.
 * @s: the slot iotrace_cmd_slot() gave for @rq.
 * @rq: the request.
 * @type: enum iotrace_cmd_type.
 * @len: the command's length, IOTRACE_CMD_LEN at most.
 * @rflags: IOTRACE_RF_* to add to the record (e.g. IOTRACE_RF_ADMIN).
 *
 * Context: as iotrace_cmd_slot().
 */
static __always_inline void iotrace_cmd_publish(struct iotrace_slot *s,
						struct request *rq, u8 type,
						u8 len, u16 rflags)
{
	s->cmd_type = type;
	s->cmd_len = len;
	s->cmd_rflags = rflags | IOTRACE_RF_CMD_VALID;
	/* command complete before it is tagged with its request */
	smp_wmb();
	WRITE_ONCE(s->cmd_rq, rq);
	/* odd: written while @rq owns the slot, see iotrace_cmd_slot() */
	if (unlikely(READ_ONCE(s->gen) & 1))
		iotrace_cmd_issued(s, rq);
}

void iotrace_note_status(struct request *rq, u32 dev_status, u32 dev_result,
			 u16 rflags, u8 status_kind);
void iotrace_note_scsi_status(struct request *rq, u32 dev_status, u16 rflags);
void iotrace_note_eh_status(struct request *rq, u32 dev_status, u16 rflags,
			    u8 status_kind);

/* comm.c: command names of the submitters, per CPU */
#define IOTRACE_COMM_BITS	8

/**
 * struct iotrace_comm - a (pid, command name) entry.
 * @seq: odd while the entry is written.
 * @pid: thread group id; 0 for an empty entry.
 * @comm: the submitting thread's name when the pid was last noted.
 */
struct iotrace_comm {
	u32	seq;
	u32	pid;
	char	comm[TASK_COMM_LEN] __aligned(8);
};

extern struct iotrace_comm __percpu *iotrace_comms;
struct seq_file;
void iotrace_comm_set(struct iotrace_comm *e, u32 pid);

/*
 * Whether entry name @e is the current task's name: two 8-byte words each
 * (TASK_COMM_LEN is 16; the task's may be unaligned, hence __packed).
 * The task's may change under us (another thread writing
 * /proc/<pid>/comm): a torn read only notes the name again.
 */
struct iotrace_comm_words {
	u64	w[2];
} __packed;

static __always_inline bool iotrace_comm_same(const char *e)
{
	const struct iotrace_comm_words *a = (const void *)e;
	const struct iotrace_comm_words *b = (const void *)current->comm;

	BUILD_BUG_ON(sizeof(*b) != TASK_COMM_LEN);
	return !((a->w[0] ^ b->w[0]) | (a->w[1] ^ b->w[1]));
}

/**
 * iotrace_comm_note() - remember the command name of the current task,
 *	the submitter of a request, under @pid (inline: a hit, the usual
 *	case, is a compare of the pid and of the name in this CPU's table).
 * @pid: its thread group id (not 0).
 *
 * The name is compared too: a pid noted before its process called exec()
 * (whose first reads, of the program, come before the task takes the
 * program's name) or renamed itself, or a pid used again by a new
 * process, is noted again under the name it has now.
 *
 * Context: block_io_start's probe, task context, preemption disabled.
 */
static __always_inline void iotrace_comm_note(u32 pid)
{
	struct iotrace_comm *e;

	if (!iotrace_comms)
		return;
	iotrace_assert_cpu_held();
	e = this_cpu_ptr(iotrace_comms) + hash_32(pid, IOTRACE_COMM_BITS);
	if (likely(READ_ONCE(e->pid) == pid && iotrace_comm_same(e->comm)))
		return;
	iotrace_comm_set(e, pid);
}

int iotrace_comm_show(struct seq_file *m, void *v);
int iotrace_comm_init(void);
void iotrace_comm_exit(void);

/* metrics.c: per-disk counters and latency histograms */
/* iotrace_mdone.flags */
#define IOTRACE_MD_DEV		BIT(0)	/* @dev_ns valid: the issue was seen */
#define IOTRACE_MD_QUEUE	BIT(1)	/* @queue_ns valid */
#define IOTRACE_MD_TIMEOUT	BIT(2)	/* the request timed out */
#define IOTRACE_MD_ERROR	BIT(3)	/* an errno or a device error */
#define IOTRACE_MD_DEVSTATUS	BIT(4)	/* a device error */

/**
 * struct iotrace_mdone - what the completion probe tells the metrics.
 * @dev_ns: issue to completion; 0 without IOTRACE_MD_DEV.
 * @queue_ns: queue entry to issue.
 * @bytes: length at issue.
 * @errno_val: positive errno, 0 for none.
 * @status: device status class (see IOTRACE_MSTATUS_*), 0 for none.
 * @flags: IOTRACE_MD_* bits.
 * @op: enum iotrace_op (the record's, the trigger event's).
 * @mop: enum iotrace_mop, the kernel's accounting group of the request
 *	(the metrics', the latency thresholds').
 * @status_kind: IOTRACE_MSTATUS_* of @status, NONE without a device error.
 */
struct iotrace_mdone {
	u64	dev_ns;
	u64	queue_ns;
	u32	bytes;
	u32	errno_val;
	u16	status;
	u8	flags;
	u8	op;
	u8	mop;
	u8	status_kind;
};

/**
 * struct iotrace_msnap - the metrics of a disk summed over CPUs.
 * @op: per enum iotrace_mop, in the uapi layout.
 * @timeouts: completions of requests that timed out.
 * @requeues: requeues.
 */
struct iotrace_msnap {
	struct iotrace_metrics_op	op[IOTRACE_NR_MOPS];
	u64				timeouts;
	u64				requeues;
};

/**
 * struct iotrace_mread - one reading of the metrics of a disk.
 * @snap: the counters since the last reset.
 * @reset_ns: CLOCK_REALTIME of the last reset.
 * @nr_errors: entries in @errors.
 * @errors: the error kinds seen since the reset.
 */
struct iotrace_mread {
	struct iotrace_msnap		snap;
	u64				reset_ns;
	unsigned int			nr_errors;
	struct iotrace_metrics_error	errors[];
};

/**
 * iotrace_rq_mop() - the metrics op of a request: the kernel's accounting
 *	group (op_stat_group(), and flush for REQ_OP_FLUSH), passthrough
 *	apart.  Read from REQ_OP_*, so that a kernel's numbering (the
 *	direction of its zone operations) is followed as its stat file does.
 * @rq: the request.
 *
 * Return: enum iotrace_mop.
 */
static __always_inline u8 iotrace_rq_mop(struct request *rq)
{
	if (blk_rq_is_passthrough(rq))
		return IOTRACE_MOP_PASSTHRU;
	if (req_op(rq) == REQ_OP_FLUSH)
		return IOTRACE_MOP_FLUSH;
	if (op_is_discard(rq->cmd_flags))
		return IOTRACE_MOP_DISCARD;
	return op_is_write(rq->cmd_flags) ? IOTRACE_MOP_WRITE :
		IOTRACE_MOP_READ;
}

/* A per-CPU bucket that reaches this is folded into the shared totals. */
#define IOTRACE_MFOLD		0x8000U
/* Error kinds kept per disk; the rest count in one overflow entry. */
#define IOTRACE_MERR_MAX	32

enum { IOTRACE_MH_DEV, IOTRACE_MH_QUEUE, IOTRACE_NR_MH };

/**
 * struct iotrace_mcpu_op - one CPU's counters of one operation.
 * @requests: completions.
 * @bytes: their bytes.
 * @dev_sum_ns: sum of device latencies.
 * @queue_sum_ns: sum of queue latencies.
 *
 * How many completions had a device (queue) latency is the sum of their
 * histogram's buckets, so it is not counted apart.
 */
struct iotrace_mcpu_op {
	u64	requests;
	u64	bytes;
	u64	dev_sum_ns;
	u64	queue_sum_ns;
};

/**
 * struct iotrace_mcpu - one CPU's metrics of one disk.
 * @op: counters per enum iotrace_mop.
 * @timeouts: completions of requests that timed out.
 * @requeues: requeues.
 * @hist: histogram buckets per op and kind (device, queue), below
 *	IOTRACE_MFOLD (plus what nested completions added meanwhile).
 */
struct iotrace_mcpu {
	struct iotrace_mcpu_op	op[IOTRACE_NR_MOPS];
	u64			timeouts;
	u64			requeues;
	u16			hist[IOTRACE_NR_MOPS][IOTRACE_NR_MH]
				    [IOTRACE_HIST_BUCKETS];
};

/**
 * struct iotrace_mkind - one kind of error and its count.
 * @count: completions of this kind.
 * @mop: enum iotrace_mop.
 * @status_kind: IOTRACE_MSTATUS_*.
 * @status: status class.
 * @errno_val: positive errno, 0 for none.
 */
struct iotrace_mkind {
	u64	count;
	u8	mop;
	u8	status_kind;
	u16	status;
	u32	errno_val;
};

/**
 * struct iotrace_metrics - the metrics of one disk.
 * @pcpu: per-CPU counters and buckets, written by the probes only.
 * @fold_lock: serializes folds (rare, any context).  Raw, as @err_lock:
 *	taken by the completion probe with preemption off, where a
 *	PREEMPT_RT spinlock_t would sleep; both hold a few stores.
 * @fold_seq: write side held while a bucket moves into @shared.
 * @shared: folded buckets, under @fold_lock.
 * @lock: serializes readers and resets (@base, @reset_ns).
 * @base: the sums at the last reset, subtracted from every reading.
 * @reset_ns: CLOCK_REALTIME of the last reset (or of the allocation).
 * @err_lock: protects @op_errors, @err, @nr_err and @err_over (any
 *	context): the errors per op and per kind change, are read and are
 *	reset together, so they always agree.
 * @op_errors: completions with an error since the reset, per op.
 * @nr_err: entries used in @err.
 * @err: error kinds seen since the reset.
 * @err_over: errors of kinds past the table's room.
 */
struct iotrace_metrics {
	struct iotrace_mcpu __percpu	*pcpu;
	raw_spinlock_t			fold_lock;	/* folds */
	seqcount_t			fold_seq;
	u64				shared[IOTRACE_NR_MOPS][IOTRACE_NR_MH]
					      [IOTRACE_HIST_BUCKETS];
	struct mutex			lock;		/* @base, readers */
	struct iotrace_msnap		base;
	u64				reset_ns;
	raw_spinlock_t			err_lock;	/* @err */
	u64				op_errors[IOTRACE_NR_MOPS];
	unsigned int			nr_err;
	struct iotrace_mkind		err[IOTRACE_MERR_MAX];
	u64				err_over;
};

/**
 * iotrace_hist_bucket() - the histogram bucket of a latency.
 * @ns: the latency.
 *
 * Return: 0 below 2^IOTRACE_HIST_MIN_SHIFT, then four buckets per power
 * of two, IOTRACE_HIST_BUCKETS - 1 from 2^IOTRACE_HIST_MAX_SHIFT on.
 */
static __always_inline unsigned int iotrace_hist_bucket(u64 ns)
{
	unsigned int o;

	if (ns < BIT_ULL(IOTRACE_HIST_MIN_SHIFT))
		return 0;
	/* ns is not 0 */
	o = BITS_PER_LONG == 64 ? __fls(ns) : fls64(ns) - 1;
	if (o >= IOTRACE_HIST_MAX_SHIFT)
		return IOTRACE_HIST_BUCKETS - 1;
	return 1 + ((o - IOTRACE_HIST_MIN_SHIFT) << IOTRACE_HIST_SUB_SHIFT) +
		((ns >> (o - IOTRACE_HIST_SUB_SHIFT)) &
		 ((1U << IOTRACE_HIST_SUB_SHIFT) - 1));
}

void iotrace_metrics_fold(struct iotrace_metrics *m, u8 mop, unsigned int h,
			  unsigned int b);
void iotrace_metrics_error(struct iotrace_metrics *m, u8 mop, u32 errno_val,
			   u8 status_kind, u16 status);

/*
 * The per-CPU storage is reached by pointer arithmetic from constant
 * subscripts, not by a subscript per index: the indexes are in range by
 * construction (iotrace_rq_mop(), iotrace_hist_bucket()), and kernels built
 * with UBSAN_BOUNDS (Debian's 7.x) would check every variable subscript on
 * every completion.
 */
static __always_inline void iotrace_metrics_hist(struct iotrace_metrics *m,
						 u16 __percpu *hop, u8 mop,
						 unsigned int h, u64 ns)
{
	unsigned int b = iotrace_hist_bucket(ns);
	u16 __percpu *p = hop + h * IOTRACE_HIST_BUCKETS + b;

	if (unlikely(this_cpu_inc_return(*p) >= IOTRACE_MFOLD))
		iotrace_metrics_fold(m, mop, h, b);
}

/**
 * iotrace_metrics_complete() - count the final completion of a request
 *	(inline in the completion probe).
 * @m: the metrics of its disk.
 * @x: what the completion probe learnt.
 *
 * Touches only the completing CPU's storage with this_cpu operations:
 * single instructions that an interrupt on the same CPU cannot split, no
 * LOCK prefix.
 *
 * Context: the completion probe, preemption disabled, any context.
 */
static __always_inline void
iotrace_metrics_complete(struct iotrace_metrics *m,
			 const struct iotrace_mdone *x)
{
	/* once: the per-CPU operations could alias m for the compiler */
	struct iotrace_mcpu __percpu *pc = m->pcpu;
	u8 mop = x->mop;
	struct iotrace_mcpu_op __percpu *o = pc->op + mop;
	/* the op's histograms, hist[mop] */
	u16 __percpu *hop = &pc->hist[0][0][0] +
		(unsigned int)mop * IOTRACE_NR_MH * IOTRACE_HIST_BUCKETS;

	iotrace_assert_cpu_held();
	this_cpu_inc(o->requests);
	this_cpu_add(o->bytes, x->bytes);
	if (x->flags & IOTRACE_MD_DEV) {
		this_cpu_add(o->dev_sum_ns, x->dev_ns);
		iotrace_metrics_hist(m, hop, mop, IOTRACE_MH_DEV, x->dev_ns);
	}
	if (x->flags & IOTRACE_MD_QUEUE) {
		this_cpu_add(o->queue_sum_ns, x->queue_ns);
		iotrace_metrics_hist(m, hop, mop, IOTRACE_MH_QUEUE,
				     x->queue_ns);
	}
	if (unlikely(x->flags & IOTRACE_MD_TIMEOUT))
		this_cpu_inc(pc->timeouts);
	if (unlikely(x->flags & IOTRACE_MD_ERROR)) {
		/* scalars: @x stays in registers (no address taken) */
		iotrace_metrics_error(m, mop, x->errno_val, x->status_kind,
				      x->status);
	}
}

struct seq_file;
extern bool iotrace_metrics_on;
DECLARE_STATIC_KEY_TRUE(iotrace_metrics_key);

/*
 * Does the module keep metrics (metrics=Y)?  A static key set once at load
 * (iotrace_metrics_init()): when they are kept, every enabled disk has
 * them (d->metrics is set).
 */
static __always_inline bool iotrace_metrics_kept(void)
{
	return static_branch_likely(&iotrace_metrics_key);
}

void iotrace_metrics_init(void);
struct iotrace_metrics *iotrace_metrics_alloc(void);
void iotrace_metrics_free(struct iotrace_metrics *m);
void iotrace_metrics_requeue(struct iotrace_metrics *m);
struct iotrace_mread *iotrace_mread_alloc(void);
void iotrace_metrics_read(struct iotrace_metrics *m, struct iotrace_mread *out);
void iotrace_metrics_reset(struct iotrace_metrics *m);
int iotrace_metrics_show(struct seq_file *sf, struct iotrace_disk *d);

/* disk.c */
#define IOTRACE_HASH_BITS	6
extern struct hlist_head iotrace_disk_hash[1 << IOTRACE_HASH_BITS];

/**
 * iotrace_disk_lookup() - find the traced disk of a gendisk (inline: every
 *	probe starts with it).
 * @gd: the gendisk, used as a key only.
 *
 * Context: rcu_read_lock() (or preemption disabled) held.
 * Return: the disk or NULL.
 */
static __always_inline struct iotrace_disk *
iotrace_disk_lookup(struct gendisk *gd)
{
	struct hlist_head *b = &iotrace_disk_hash[hash_ptr(gd,
							   IOTRACE_HASH_BITS)];
	struct iotrace_disk *d;

	hlist_for_each_entry_rcu(d, b, hnode)
		if (d->gd == gd)
			return d;
	return NULL;
}

struct iotrace_disk *iotrace_disk_alloc(const char *name, u32 nr_hwq,
					u32 depth);
int iotrace_disk_publish(struct iotrace_disk *d, struct hlist_head *head);
void iotrace_disk_detach_locked(struct iotrace_disk *d);
void iotrace_disk_detached(struct iotrace_disk *d);
int iotrace_disk_set_enabled(struct iotrace_disk *d, bool on);
int iotrace_disk_clear(struct iotrace_disk *d);
int iotrace_disk_ring_alloc(struct iotrace_disk *d);
void iotrace_disk_mem(struct iotrace_disk *d, struct iotrace_disk_mem *m);
void iotrace_disk_set_state(struct iotrace_disk *d, unsigned int state);
void iotrace_disk_put(struct iotrace_disk *d);
struct iotrace_slot_table *iotrace_slots_get(struct iotrace_disk *d);
void iotrace_slots_put(struct iotrace_slot_table *t);
void iotrace_slots_outgrown(struct iotrace_disk *d);
int iotrace_slot_tables_get(struct iotrace_disk *d,
			    struct iotrace_slot_tables *w);
void iotrace_slot_tables_put(struct iotrace_slot_tables *w);
int iotrace_disks_init(void);
void iotrace_disks_publish(void);
void iotrace_disks_exit(void);
bool iotrace_disk_selected(const char *name);
bool iotrace_disks_select_all(void);
int iotrace_disks_check_selection(void);
int iotrace_disks_check_names(void);

/* ctrl.c: NVMe controller rings (admin queue) */
struct iotrace_disk *iotrace_ctrl_lookup(const void *key);
int iotrace_ctrls_init(void);
void iotrace_ctrls_exit(void);
unsigned int iotrace_ctrls_count(void);

/**
 * iotrace_file_admin() - may a write to @file change iotrace's state?
 * @file: a control file (debugfs enable, clear, previous_release, prof).
 *
 * As over netlink (netlink_capable()), both the process that opened
 * @file and the one writing must have CAP_SYS_ADMIN: a descriptor opened
 * without it gains nothing when passed to a process that has it, nor one
 * opened with it when passed to a process without.
 *
 * Return: true if both have it.
 */
static inline bool iotrace_file_admin(const struct file *file)
{
	return file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN) &&
	       capable(CAP_SYS_ADMIN);
}

/* debugfs.c */
void iotrace_debugfs_init(void);
void iotrace_debugfs_exit(void);
int iotrace_debugfs_add_disk(struct iotrace_disk *d);
void iotrace_debugfs_remove_disk(struct iotrace_disk *d);

/* ringfile.c: ring file operations of debugfs and the device */
struct iotrace_ringbuf *iotrace_ringbuf_get(struct iotrace_disk *d);
void iotrace_ringbuf_put(struct iotrace_disk *d, struct iotrace_ringbuf *rb);
int iotrace_ringf_open(struct iotrace_disk *d, struct file *file);
int iotrace_ringf_release(struct inode *inode, struct file *file);
ssize_t iotrace_ringf_read(struct file *file, char __user *buf, size_t count,
			   loff_t *ppos);
loff_t iotrace_ringf_llseek(struct file *file, loff_t off, int whence);
int iotrace_ringf_mmap(struct file *file, struct vm_area_struct *vma);
struct iotrace_inflight_entry *iotrace_inflight_collect(struct iotrace_disk *d,
							u32 *nr);
struct iotrace_record *iotrace_inflight_records(struct iotrace_disk *d, u32 *nr,
						u32 *torn);
u32 iotrace_inflight_oldest(struct iotrace_disk *d, u64 *oldest_ns);
u64 iotrace_slots_busy(struct iotrace_disk *d);

/* chardev.c: /dev/iotrace/<disk> */
void iotrace_chardev_init(void);
void iotrace_chardev_exit(void);
int iotrace_chardev_add(struct iotrace_disk *d);
void iotrace_chardev_remove(struct iotrace_disk *d);

/* netlink.c: control over generic netlink, events */
#define IOTRACE_NL_OVERFLOW	0	/* nl_flags: overwrote since reset */
#define IOTRACE_NL_OVF_SENT	1	/* nl_flags: overflow announced */
void iotrace_netlink_init(void);
int iotrace_netlink_register(void);
void iotrace_netlink_exit(void);
void iotrace_nl_disk_event(struct iotrace_disk *d, bool added);
void iotrace_nl_note_overflow(struct iotrace_disk *d);
void iotrace_nl_reset(struct iotrace_disk *d, u64 held);
void iotrace_nl_list_changed(void);
void iotrace_nl_release(struct iotrace_disk *d);
u64 iotrace_nl_held(struct iotrace_disk *d);
bool iotrace_filter_pass(const struct iotrace_filter *f, u8 op, u64 sector,
			 u32 bytes);
void iotrace_nl_trig_send(struct iotrace_disk *d,
			  const struct iotrace_trig_evt *ev, u64 suppressed,
			  u64 events);

/* trigger.c: triggers and their events */
u32 iotrace_trig_reason(const struct iotrace_trig *t,
			const struct iotrace_mdone *x);
void iotrace_trig_post(struct iotrace_disk *d, const struct iotrace_trig *t,
		       const struct iotrace_trig_evt *ev);
void iotrace_trig_set(struct iotrace_disk *d, struct iotrace_trig *t);
u32 iotrace_hold_max(const struct iotrace_disk *d);
bool iotrace_hold_set(struct iotrace_disk *d, const struct iotrace_trig *t,
		      u64 now);
bool iotrace_hold_release(struct iotrace_disk *d, u64 hi, u64 ns);
void iotrace_trig_release(struct iotrace_disk *d);
void iotrace_trig_init(void);
void iotrace_trig_exit(void);

#endif /* _IOTRACE_INTERNAL_H */
