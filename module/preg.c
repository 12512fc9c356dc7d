// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace - the persistent region (persist=): rings and in-flight tables
 * in memory a warm reboot keeps, and the previous boot's, offered to the
 * next one.
 *
 * The region is a physical range reserved at boot: by name with
 * reserve_mem=SIZE:ALIGN:NAME (6.11 and newer), or by address with
 * memmap=SIZE$ADDR (any kernel; x86).  It is mapped write-back cached:
 * the probes store to it as they store to a vmalloc ring.  Its layout is
 * Documentation/abi.rst's "The persistent region": a header, a table of
 * allocations (a disk's ring, a 2.x ring image byte for byte, or its
 * in-flight table of struct iotrace_preg_slot), then the allocations.
 *
 * At load the module looks at what the region holds.  A region another
 * boot's module wrote, whose header and entries check, is copied to
 * memory of its own, read-only in debugfs "previous" and
 * /dev/iotrace/previous (mode 0400) until "previous_release" or unload;
 * anything else is refused with one message naming the check that failed.
 * Then the region is formatted for this boot, and rings and in-flight
 * tables are allocated in it instead of vmalloc() for as long as the module
 * is loaded: a disk that finds no room is refused (its enable or resize
 * fails with -ENOSPC), said by name with the room it needed.
 *
 * Locking: iotrace_preg_lock serializes the allocator (a ring's last unmap
 * frees it under mmap_lock); iotrace_prev_lock the previous boot's copy
 * and its readers (who copy to user space under it).  Neither is taken
 * with the other.  The probes write the rings and tables they were given
 * and take no lock.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mm.h>
#include <linux/io.h>
#include <linux/fs.h>
#include <linux/debugfs.h>
#include <linux/miscdevice.h>
#include <linux/vmalloc.h>
#include <linux/refcount.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>
#include <linux/seq_file.h>
#include <linux/sort.h>
#include <linux/uuid.h>
#include "iotrace.h"
#include "compat.h"

DEFINE_STATIC_KEY_FALSE(iotrace_preg_key);

static char iotrace_persist[64];
module_param_string(persist, iotrace_persist, sizeof(iotrace_persist), 0444);
MODULE_PARM_DESC(persist,
		 "keep the rings and in-flight tables in memory a warm reboot keeps: the name of a reserve_mem=SIZE:ALIGN:NAME region (6.11+), or SIZE@ADDR of a memmap=SIZE$ADDR range (e.g. 64M@0x30000000); empty (default): vmalloc");

/* Allocations the region's table has room for. */
#define IOTRACE_PREG_MAX_DISKS	128
/* The disk table's bytes, and the identity table's after it. */
#define IOTRACE_PREG_TABLE	(IOTRACE_PREG_MAX_DISKS * IOTRACE_PREG_DISK_SIZE)
#define IOTRACE_PREG_ID_TABLE	(IOTRACE_PREG_MAX_DISKS * IOTRACE_PREG_ID_SIZE)
/* The smallest region: the header, the tables and one 64K ring. */
#define IOTRACE_PREG_MIN_SIZE	(IOTRACE_PREG_HDR_SIZE + IOTRACE_PREG_TABLE + \
				 IOTRACE_PREG_ID_TABLE + SZ_64K)

/**
 * struct iotrace_preg_ident - a disk's identity as user space gave it
 *	(IOTRACE_CMD_SET_IDENTITY), kept with persist= only.
 * @model: the model, NUL-padded.
 * @serial: the serial number, NUL-padded.
 * @wwn: the world wide name, NUL-padded.
 */
struct iotrace_preg_ident {
	char	model[IOTRACE_FILE_ID_LEN];
	char	serial[IOTRACE_FILE_ID_LEN];
	char	wwn[IOTRACE_FILE_ID_LEN];
};

/**
 * struct iotrace_preg - the region of this module instance.
 * @phys: its physical address.
 * @size: its bytes.
 * @va: its kernel mapping (write-back).
 * @hdr: the header, at @va.
 * @disks: the allocation table.
 * @ids: the identity table, one entry per allocation entry.
 * @gen: allocations made so far (the next entry's number less one).
 * @anchor: rewrites the clock anchor every second.
 * @panic_nb: marks the header at a panic.
 * @prev: the previous boot's region as found at load (vmalloc), or NULL.
 * @prev_size: its bytes.
 * @prev_users: references on @prev: the module's until it is released,
 *	and each read's while it copies to user space.
 * @prev_file: debugfs "previous" (NULL if none).
 * @prev_rel: debugfs "previous_release".
 * @prev_cdev: /dev/iotrace/previous registered.
 * @exiting: the module is being unloaded: what it frees stays in the
 *	table, for the next load to read as the previous trace.
 * @aborting: the load failed: no ring it made is kept as a removed disk's.
 */
struct iotrace_preg {
	phys_addr_t			phys;
	size_t				size;
	void				*va;
	struct iotrace_preg_hdr		*hdr;
	struct iotrace_preg_disk	*disks;
	struct iotrace_preg_id		*ids;
	u64				gen;
	struct delayed_work		anchor;
	struct notifier_block		panic_nb;
	void				*prev;
	size_t				prev_size;
	refcount_t			prev_users;
	struct dentry			*prev_file;
	struct dentry			*prev_rel;
	bool				prev_cdev;
	bool				exiting;
	bool				aborting;
};

static struct iotrace_preg iotrace_preg;
/* the allocator; taken under mmap_lock (a ring's last unmap frees it) */
static DEFINE_MUTEX(iotrace_preg_lock);
/*
 * @prev and @prev_size, and a reference taken on them: never held across a
 * copy to user space (a reader's fault can wait for as long as it likes),
 * never with iotrace_preg_lock
 */
static DEFINE_MUTEX(iotrace_prev_lock);

/* CRC-32C as abi.rst gives it: initial value and final xor all ones. */
static u32 iotrace_preg_crc(u32 crc, const void *p, size_t n)
{
	return iotrace_crc32c(crc, p, n);
}

static u32 iotrace_preg_hdr_crc(const struct iotrace_preg_hdr *h)
{
	u32 c = ~0U;

	c = iotrace_preg_crc(c, h, 24);
	c = iotrace_preg_crc(c, (const u8 *)h + 32, 80);
	return ~c;
}

/* The checksum of entry @e as if its flags were @flags. */
static u32 iotrace_preg_entry_crc_as(const struct iotrace_preg_disk *e,
				     u32 flags)
{
	const size_t at = offsetof(struct iotrace_preg_disk, flags);
	const size_t end = offsetof(struct iotrace_preg_disk, entry_crc);
	__le32 f = cpu_to_le32(flags);
	u32 c;

	c = iotrace_preg_crc(~0U, e, at);
	c = iotrace_preg_crc(c, &f, sizeof(f));
	c = iotrace_preg_crc(c, (const u8 *)e + at + sizeof(f),
			     end - at - sizeof(f));
	return ~c;
}

static u32 iotrace_preg_entry_crc(const struct iotrace_preg_disk *e)
{
	return iotrace_preg_entry_crc_as(e, e->flags);
}

/*
 * Whether the checksum of entry @e holds: as written, or for a ring marked
 * removed without the mark (a crash between the mark and its checksum,
 * iotrace_preg_mark_removed()).
 */
static bool iotrace_preg_entry_whole(const struct iotrace_preg_disk *e)
{
	return iotrace_preg_entry_crc(e) == e->entry_crc ||
	       ((e->flags & IOTRACE_PREG_D_REMOVED) &&
		iotrace_preg_entry_crc_as(e, e->flags &
					  ~IOTRACE_PREG_D_REMOVED) ==
		e->entry_crc);
}

static u32 iotrace_preg_id_crc(const struct iotrace_preg_id *p)
{
	return ~iotrace_preg_crc(~0U, (const u8 *)p + sizeof(p->id_crc),
				 sizeof(*p) - sizeof(p->id_crc));
}

/* ---- finding and mapping the region ------------------------------------- */

/*
 * persist=SIZE@ADDR (or SIZE$ADDR, as memmap= has it): a physical range.
 * Return: 0, or -EINVAL when @s is not of that form (a name, then).
 */
static int iotrace_preg_parse_range(const char *s, phys_addr_t *addr,
				    size_t *size)
{
	char *end;
	unsigned long long v, a;

	v = memparse(s, &end);
	if (end == s || (*end != '@' && *end != '$'))
		return -EINVAL;
	s = end + 1;
	a = memparse(s, &end);
	if (end == s || *end)
		return -EINVAL;
	*addr = a;
	*size = v;
	return 0;
}

/* A resource that is not "Reserved", or one a driver claimed. */
static int iotrace_preg_res_taken(struct resource *res, void *arg)
{
	if (res->desc != IORES_DESC_RESERVED || (res->flags & IORESOURCE_BUSY))
		return -EBUSY;
	return 0;
}

/* Any resource a driver claimed (IORESOURCE_BUSY), however deep. */
static int iotrace_preg_res_busy(struct resource *res, void *arg)
{
	return -EBUSY;
}

/*
 * Whether [@addr, @addr + @size), which holds no System RAM, is free for
 * the module to zero: what /proc/iomem lists there is "Reserved" only
 * (what memmap=SIZE$ADDR makes, and holes), or nothing at all (x86
 * lists its reserved ranges once PCI is set up: none with pci=off).  A
 * device's, ACPI's or persistent memory's range is not, nor one with a
 * resource claimed in it: x86 lists the PCI configuration space (ECAM)
 * as a device's over a "Reserved" range, and a driver's claim of a
 * "Reserved" range is its child.  The firmware's own reserved ranges
 * cannot be told from memmap='s.
 *
 * The first walk sees each resource that is the first to cover a part of
 * the range, outermost first (a "Reserved" range hides its children from
 * it); the second, which asks for IORESOURCE_BUSY, finds those children
 * (e820 marks no "Reserved" range above 1 MiB busy).
 */
static bool iotrace_preg_range_free(phys_addr_t addr, size_t size)
{
	u64 end = addr + size - 1;

	if (walk_iomem_res_desc(IORES_DESC_NONE, IORESOURCE_MEM, addr, end,
				NULL, iotrace_preg_res_taken) == -EBUSY)
		return false;
	return walk_iomem_res_desc(IORES_DESC_NONE,
				   IORESOURCE_MEM | IORESOURCE_BUSY, addr, end,
				   NULL, iotrace_preg_res_busy) != -EBUSY;
}

static int iotrace_preg_find(phys_addr_t *addr, size_t *size)
{
	int ret;

	if (!iotrace_preg_parse_range(iotrace_persist, addr, size)) {
		/* the kernel's RAM is not ours: memmap= takes it out */
		if (!*size || *addr + *size <= *addr ||
		    region_intersects(*addr, *size, IORESOURCE_SYSTEM_RAM,
				      IORES_DESC_NONE) != REGION_DISJOINT) {
			pr_err("iotrace: persist=%s: the range is not reserved (it is, or holds, System RAM in /proc/iomem, or wraps): boot with memmap=SIZE$ADDR for it\n",
			       iotrace_persist);
			return -EINVAL;
		}
		if (!iotrace_preg_range_free(*addr, *size)) {
			pr_err("iotrace: persist=%s: the range holds what /proc/iomem lists as other than \"Reserved\" (a device's, ACPI's or persistent memory), or a range a driver claimed: boot with memmap=SIZE$ADDR for it\n",
			       iotrace_persist);
			return -EINVAL;
		}
		return 0;
	}
	ret = iotrace_reserve_mem_find(iotrace_persist, addr, size);
	if (ret == -EOPNOTSUPP)
		pr_err("iotrace: persist=%s: not SIZE@ADDR, and this kernel has no reserve_mem= (6.11 and newer): give the range of a memmap=SIZE$ADDR reservation\n",
		       iotrace_persist);
	else if (ret)
		pr_err("iotrace: persist=%s: no reserve_mem= region of that name (the kernel command line needs reserve_mem=SIZE:ALIGN:%s)\n",
		       iotrace_persist, iotrace_persist);
	return ret;
}

static int iotrace_preg_map(void)
{
	struct iotrace_preg *r = &iotrace_preg;
	phys_addr_t addr;
	size_t size;
	int ret;

	ret = iotrace_preg_find(&addr, &size);
	if (ret)
		return ret;
	if (size < IOTRACE_PREG_MIN_SIZE || !PAGE_ALIGNED(addr) ||
	    !PAGE_ALIGNED(size)) {
		pr_err("iotrace: persist=%s: %zu bytes at a page-aligned address, page-aligned, at least %lu, are needed\n",
		       iotrace_persist, size,
		       (unsigned long)IOTRACE_PREG_MIN_SIZE);
		return -EINVAL;
	}
	/*
	 * Write-back: a reserve_mem= region is RAM, mapped through the
	 * direct map; a memmap= range is ioremap_cache()d.  Never
	 * write-combined or uncached: the probes store to it per request.
	 */
	r->va = memremap(addr, size, MEMREMAP_WB);
	if (!r->va) {
		pr_err("iotrace: persist=%s: cannot map %zu bytes write-back (is the range reserved, and RAM?)\n",
		       iotrace_persist, size);
		return -ENOMEM;
	}
	r->phys = addr;
	r->size = size;
	r->hdr = r->va;
	r->disks = r->va + IOTRACE_PREG_HDR_SIZE;
	r->ids = r->va + IOTRACE_PREG_HDR_SIZE + IOTRACE_PREG_TABLE;
	return 0;
}

/* ---- the previous boot's region ------------------------------------------ */

/*
 * Check the header of @h (@size bytes of region): NULL if it is one this
 * module reads, else what failed.  @first: no magic at all (never used,
 * or a cold boot's garbage).
 */
static const char *iotrace_preg_hdr_bad(const struct iotrace_preg_hdr *h,
					size_t size, bool *first)
{
	u64 table;

	*first = false;
	if (h->magic != IOTRACE_PREG_MAGIC) {
		*first = true;
		return "no region magic: never written, or lost by a power cycle";
	}
	if (h->major != IOTRACE_PREG_MAJOR)
		return "another layout major version";
	if (h->hdr_size != IOTRACE_PREG_HDR_SIZE)
		return "header size";
	if (iotrace_preg_hdr_crc(h) != h->hdr_crc)
		return "header checksum";
	if (h->region_size != size)
		return "region size differs from the reservation";
	if (h->disk_entry_size != IOTRACE_PREG_DISK_SIZE ||
	    h->max_disks > IOTRACE_PREG_MAX_DISKS)
		return "allocation table geometry";
	table = (u64)h->max_disks * h->disk_entry_size;
	if (h->disk_off < IOTRACE_PREG_HDR_SIZE || h->disk_off > size ||
	    table > size - h->disk_off || h->data_off < h->disk_off + table ||
	    h->data_off > size)
		return "table offsets outside the region";
	return NULL;
}

/* Whether [@off, @off + @len) lies in the data area of a @size region. */
static bool iotrace_preg_span_ok(const struct iotrace_preg_hdr *h,
				 size_t size, u64 off, u64 len)
{
	return off >= h->data_off && off <= size && len <= size - off &&
	       PAGE_ALIGNED(off);
}

/*
 * Whether the identity table of @h (minor 1) lies between its disk table
 * and its data, as this module lays it out.
 */
static bool iotrace_preg_ids_ok(const struct iotrace_preg_hdr *h)
{
	u64 table = (u64)h->max_disks * h->disk_entry_size;

	return h->id_entry_size == IOTRACE_PREG_ID_SIZE &&
	       h->id_off >= h->disk_off + table && h->id_off <= h->data_off &&
	       (u64)h->max_disks * IOTRACE_PREG_ID_SIZE <=
	       h->data_off - h->id_off;
}

/*
 * An entry of the previous boot: NULL if whole, else what failed.  Its
 * end in the region in *@end.
 */
static const char *iotrace_preg_entry_bad(const struct iotrace_preg_hdr *h,
					  size_t size,
					  const struct iotrace_preg_disk *e,
					  u64 *end)
{
	*end = 0;
	if (!iotrace_preg_entry_whole(e))
		return "checksum";
	if ((e->flags & IOTRACE_PREG_D_RING) &&
	    (!iotrace_preg_span_ok(h, size, e->ring_off, e->ring_size) ||
	     e->ring_size < PAGE_SIZE))
		return "ring outside the region";
	if ((e->flags & IOTRACE_PREG_D_SLOTS) &&
	    (e->slot_size != IOTRACE_PREG_SLOT_SIZE ||
	     !iotrace_preg_span_ok(h, size, e->slots_off,
				   (u64)e->nr_slots * e->slot_size)))
		return "in-flight table outside the region";
	if (e->flags & IOTRACE_PREG_D_RING)
		*end = e->ring_off + e->ring_size;
	if (e->flags & IOTRACE_PREG_D_SLOTS)
		*end = max_t(u64, *end, e->slots_off +
			     (u64)e->nr_slots * e->slot_size);
	return NULL;
}

/*
 * Copy what the previous boot left in the region, if it checks, to
 * iotrace_preg.prev; say in the log what was found.  The region itself is
 * formatted afterwards, only if this returns 0: -ENOMEM when a previous
 * boot's trace is there and cannot be copied (the load fails, the region
 * is left as it is).
 */
static int iotrace_preg_take_previous(void)
{
	struct iotrace_preg *r = &iotrace_preg;
	const struct iotrace_preg_hdr *h = r->hdr;
	struct iotrace_preg_hdr *ch;
	struct iotrace_preg_disk *e;
	unsigned int i, used = 0, damaged = 0;
	const char *bad;
	u64 end, len;
	bool first;

	bad = iotrace_preg_hdr_bad(h, r->size, &first);
	if (bad) {
		if (first)
			pr_info("iotrace: persist: no previous boot's trace in the region (%s)\n",
				bad);
		else
			pr_warn("iotrace: persist: the region's contents were refused (%s): not read, formatted anew\n",
				bad);
		return 0;
	}
	len = h->data_off;
	for (i = 0; i < h->max_disks; i++) {
		const struct iotrace_preg_disk *pe = r->va + h->disk_off +
						     (u64)i * h->disk_entry_size;

		if (!(pe->flags & IOTRACE_PREG_D_USED))
			continue;
		if (iotrace_preg_entry_bad(h, r->size, pe, &end))
			continue;
		len = max(len, end);
	}
	/* not at the cost of the OOM killer's victims: fail instead */
	if (len >> PAGE_SHIFT < si_mem_available())
		r->prev = __vmalloc(len, GFP_KERNEL | __GFP_NOWARN |
				    __GFP_RETRY_MAYFAIL);
	if (!r->prev) {
		pr_err("iotrace: persist: the previous boot's trace (%llu bytes) cannot be copied out of the region (more than the memory available): not loaded, the region left as it is; load with more memory free to read it, or without persist=\n",
		       len);
		return -ENOMEM;
	}
	memcpy(r->prev, r->va, len);
	r->prev_size = len;
	refcount_set(&r->prev_users, 1);
	ch = r->prev;
	for (i = 0; i < ch->max_disks; i++) {
		e = r->prev + ch->disk_off + (u64)i * ch->disk_entry_size;
		if (!(e->flags & IOTRACE_PREG_D_USED))
			continue;
		bad = iotrace_preg_entry_bad(ch, r->size, e, &end);
		if (bad) {
			pr_warn("iotrace: persist: previous boot's entry %u refused (%s)\n",
				i, bad);
			memset(e, 0, sizeof(*e));
			damaged++;
			continue;
		}
		used++;
	}
	if (ch->id_off && !iotrace_preg_ids_ok(ch)) {
		pr_warn("iotrace: persist: the previous boot's identity table is outside its tables: left out\n");
		ch->id_off = 0;
	}
	ch->state = IOTRACE_PREG_KEPT;
	ch->damaged = damaged;
	ch->nr_disks = used;
	pr_info("iotrace: persist: the previous boot's trace (%.64s, %u rings and tables, %u refused as damaged, %zu bytes%s) is in previous\n",
		ch->release, used, damaged, r->prev_size,
		(ch->flags & IOTRACE_PREG_PANICKED) ? ", it panicked" : "");
	/* layout 1.3 and older: the word of @evicted was reserved */
	if (ch->minor < 4 && ch->refused)
		pr_info("iotrace: persist: that boot's region refused %u allocations for want of room\n",
			ch->refused);
	else if (ch->minor >= 4 && (ch->refused || ch->evicted))
		pr_info("iotrace: persist: that boot's region refused %u allocations for want of room and evicted %u rings of removed disks\n",
			ch->refused, ch->evicted);
	return 0;
}

/* ---- this boot's region --------------------------------------------------- */

/*
 * iotrace_preg_anchor_write() - rewrite the clock anchor so that a crash at
 * any point leaves a whole pair to date the records by: the pair the next
 * boot reads is the anchor while @anchor_seq is even, the previous one
 * (copied before the count turns odd) while it is odd.  A count found odd
 * (the panic notifier on a CPU stopped in the middle of a rewrite) keeps
 * the previous pair, which is whole, and only the anchor is written.
 */
static void iotrace_preg_anchor_write(struct iotrace_preg_hdr *h, u64 mono,
				      u64 real)
{
	u32 seq = READ_ONCE(h->anchor_seq);

	if (!(seq & 1)) {
		h->anchor_prev_mono_ns = h->anchor_mono_ns;
		h->anchor_prev_real_ns = h->anchor_real_ns;
		/* the previous pair whole before the count is odd */
		smp_wmb();
		WRITE_ONCE(h->anchor_seq, ++seq);
		/* odd before the anchor changes */
		smp_wmb();
	}
	h->anchor_mono_ns = mono;
	h->anchor_real_ns = real;
	/* anchor whole before the even number */
	smp_wmb();
	WRITE_ONCE(h->anchor_seq, seq + 1);
}

static void iotrace_preg_anchor_fn(struct work_struct *w)
{
	iotrace_preg_anchor_write(iotrace_preg.hdr, ktime_get_ns(),
				  ktime_get_real_ns());
	queue_delayed_work(IOTRACE_WQ, &iotrace_preg.anchor, HZ);
}

static int iotrace_preg_panic(struct notifier_block *nb, unsigned long ev,
			      void *p)
{
	struct iotrace_preg_hdr *h = iotrace_preg.hdr;

	WRITE_ONCE(h->flags, h->flags | IOTRACE_PREG_PANICKED);
	/* the other CPUs are stopped: no rewrite runs beside this one */
	iotrace_preg_anchor_write(h, ktime_get_mono_fast_ns(),
				  ktime_get_real_fast_ns());
	return NOTIFY_DONE;
}

/*
 * The boot id user space knows (/proc/sys/kernel/random/boot_id), as 16
 * bytes; zero when it cannot be read.
 */
static void iotrace_preg_boot_id(u8 *id)
{
	char buf[UUID_STRING_LEN + 1] = "";
	loff_t pos = 0;
	struct file *f;
	ssize_t n;

	memset(id, 0, 16);
	f = filp_open("/proc/sys/kernel/random/boot_id", O_RDONLY, 0);
	if (IS_ERR(f))
		return;
	n = kernel_read(f, buf, UUID_STRING_LEN, &pos);
	filp_close(f, NULL);
	if (n != UUID_STRING_LEN)
		return;
	buf[UUID_STRING_LEN] = '\0';
	if (uuid_parse(buf, (uuid_t *)id))
		memset(id, 0, 16);
}

static void iotrace_preg_format(void)
{
	struct iotrace_preg *r = &iotrace_preg;
	struct iotrace_preg_hdr *h = r->hdr;

	BUILD_BUG_ON(sizeof(struct iotrace_preg_hdr) != IOTRACE_PREG_HDR_SIZE);
	BUILD_BUG_ON(sizeof(struct iotrace_preg_disk) !=
		     IOTRACE_PREG_DISK_SIZE);
	BUILD_BUG_ON(sizeof(struct iotrace_preg_slot) !=
		     IOTRACE_PREG_SLOT_SIZE);
	BUILD_BUG_ON(sizeof(struct iotrace_preg_id) != IOTRACE_PREG_ID_SIZE);
	/* the magic last: a crash while formatting leaves no region */
	WRITE_ONCE(h->magic, 0);
	/* no magic before the header and table are cleared */
	wmb();
	/* all of it: no byte of an earlier use is offered next time */
	memset(r->va, 0, r->size);
	h->major = IOTRACE_PREG_MAJOR;
	h->minor = IOTRACE_PREG_MINOR;
	h->hdr_size = IOTRACE_PREG_HDR_SIZE;
	h->region_size = r->size;
	h->state = IOTRACE_PREG_LIVE;
	iotrace_preg_boot_id(h->boot_id);
	strscpy_pad(h->release, utsname()->release, sizeof(h->release));
	h->max_disks = IOTRACE_PREG_MAX_DISKS;
	h->disk_entry_size = IOTRACE_PREG_DISK_SIZE;
	h->disk_off = IOTRACE_PREG_HDR_SIZE;
	h->id_off = IOTRACE_PREG_HDR_SIZE + IOTRACE_PREG_TABLE;
	h->id_entry_size = IOTRACE_PREG_ID_SIZE;
	h->data_off = PAGE_ALIGN(h->id_off + IOTRACE_PREG_ID_TABLE);
	h->loaded_ns = ktime_get_ns();
	iotrace_preg_anchor_write(h, ktime_get_ns(), ktime_get_real_ns());
	h->magic = IOTRACE_PREG_MAGIC;
	h->hdr_crc = iotrace_preg_hdr_crc(h);
	/* the region formatted before any ring is allocated in it */
	wmb();
}

/* ---- the allocator -------------------------------------------------------- */

struct iotrace_preg_span {
	u64	off;
	u64	end;
};

static int iotrace_preg_span_cmp(const void *a, const void *b)
{
	const struct iotrace_preg_span *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* iotrace_preg_gap()'s, one per table entry; under iotrace_preg_lock */
static struct iotrace_preg_span iotrace_preg_spans[IOTRACE_PREG_MAX_DISKS];

/*
 * The first gap of @len bytes in the data area; with @removed_free, as if
 * the rings of removed disks had given their room.  Return: its offset,
 * or 0 for none.
 * Context: iotrace_preg_lock held.
 */
static u64 iotrace_preg_gap(u64 len, bool removed_free)
{
	struct iotrace_preg_span *spans = iotrace_preg_spans;
	struct iotrace_preg *r = &iotrace_preg;
	struct iotrace_preg_hdr *h = r->hdr;
	unsigned int i, n = 0;
	u64 at = h->data_off;

	for (i = 0; i < IOTRACE_PREG_MAX_DISKS; i++) {
		struct iotrace_preg_disk *e = &r->disks[i];

		if (!(e->flags & IOTRACE_PREG_D_USED) ||
		    (removed_free && (e->flags & IOTRACE_PREG_D_REMOVED)))
			continue;
		if (e->flags & IOTRACE_PREG_D_RING)
			spans[n++] = (struct iotrace_preg_span)
				{ e->ring_off, e->ring_off +
				  PAGE_ALIGN(e->ring_size) };
		else
			spans[n++] = (struct iotrace_preg_span)
				{ e->slots_off, e->slots_off +
				  PAGE_ALIGN((u64)e->nr_slots * e->slot_size) };
	}
	sort(spans, n, sizeof(*spans), iotrace_preg_span_cmp, NULL);
	for (i = 0; i < n; i++) {
		if (spans[i].off - at >= len)
			break;
		at = max(at, spans[i].end);
	}
	if (at > r->size || r->size - at < len)
		return 0;
	return at;
}

/*
 * Write the identity of entry @i (@e) of the table: @id's, or none.  The
 * checksum last: a crash before it leaves no identity, and the entry,
 * checked on its own, whole.
 * Context: iotrace_preg_lock held.
 */
static void iotrace_preg_id_write(unsigned int i,
				  const struct iotrace_preg_disk *e,
				  const struct iotrace_preg_ident *id)
{
	struct iotrace_preg_id *p = &iotrace_preg.ids[i];

	WRITE_ONCE(p->id_crc, 0);
	/* the old checksum is gone before any byte it covered changes */
	wmb();
	memset(p, 0, sizeof(*p));
	if (!id)
		return;
	p->gen = e->gen;
	memcpy(p->model, id->model, sizeof(p->model));
	memcpy(p->serial, id->serial, sizeof(p->serial));
	memcpy(p->wwn, id->wwn, sizeof(p->wwn));
	/* the checksum after what it covers */
	wmb();
	WRITE_ONCE(p->id_crc, iotrace_preg_id_crc(p));
}

/*
 * Clear entry @i of the table: the next boot does not see it.
 * Context: iotrace_preg_lock held.
 */
static void iotrace_preg_clear(unsigned int i)
{
	struct iotrace_preg *r = &iotrace_preg;
	struct iotrace_preg_disk *e = &r->disks[i];

	WRITE_ONCE(e->flags, 0);
	memset(e, 0, sizeof(*e));
	iotrace_preg_id_write(i, e, NULL);
	r->hdr->nr_disks--;
}

/* A free entry of the table, or NULL.  Context: iotrace_preg_lock held. */
static struct iotrace_preg_disk *iotrace_preg_entry_free(void)
{
	unsigned int i;

	for (i = 0; i < IOTRACE_PREG_MAX_DISKS; i++)
		if (!(iotrace_preg.disks[i].flags & IOTRACE_PREG_D_USED))
			return &iotrace_preg.disks[i];
	return NULL;
}

/*
 * Whether an allocation of @len bytes would find an entry and a gap once
 * every ring of a removed disk gave its room.
 * Context: iotrace_preg_lock held.
 */
static bool iotrace_preg_fits_evicting(u64 len)
{
	unsigned int i;
	bool entry = false;

	for (i = 0; i < IOTRACE_PREG_MAX_DISKS && !entry; i++)
		entry = !(iotrace_preg.disks[i].flags & IOTRACE_PREG_D_USED) ||
			(iotrace_preg.disks[i].flags & IOTRACE_PREG_D_REMOVED);
	return entry && iotrace_preg_gap(len, true);
}

/*
 * Make room: clear the oldest ring of a removed disk (IOTRACE_PREG_D_REMOVED,
 * kept for a crash that follows its removal).
 * @name: the disk that needs the room.
 * Context: iotrace_preg_lock held.
 * Return: true if one was cleared, false if there is none.
 */
static bool iotrace_preg_evict(const char *name)
{
	struct iotrace_preg *r = &iotrace_preg;
	unsigned int i, old = IOTRACE_PREG_MAX_DISKS;

	for (i = 0; i < IOTRACE_PREG_MAX_DISKS; i++) {
		const struct iotrace_preg_disk *e = &r->disks[i];

		if ((e->flags & IOTRACE_PREG_D_USED) &&
		    (e->flags & IOTRACE_PREG_D_REMOVED) &&
		    (old == IOTRACE_PREG_MAX_DISKS ||
		     e->gen < r->disks[old].gen))
			old = i;
	}
	if (old == IOTRACE_PREG_MAX_DISKS)
		return false;
	pr_info("iotrace: persist: the ring of %.32s, kept since its disk was removed, gives its room to %s\n",
		r->disks[old].name, name);
	iotrace_preg_clear(old);
	r->hdr->evicted++;
	return true;
}

/**
 * iotrace_preg_alloc() - zeroed memory of the region for a ring or an
 *	in-flight table of @d.
 * @d: the disk (its name, device number, block size and kind).
 * @bytes: the ring's bytes, or the table's.
 * @nr_slots: 0 for a ring, else the table's slots.
 *
 * The rings of removed disks the region keeps give their room, the oldest
 * first, when there is no other and that is enough; else none goes.
 *
 * Context: process, may sleep.
 * Return: the memory, or NULL (said in the log) when the region has no
 * room or no free entry.
 */
void *iotrace_preg_alloc(struct iotrace_disk *d, size_t bytes, u32 nr_slots)
{
	struct iotrace_preg *r = &iotrace_preg;
	struct iotrace_preg_disk *e;
	u64 len = PAGE_ALIGN(bytes), off;
	void *p = NULL;

	mutex_lock(&iotrace_preg_lock);
	e = iotrace_preg_entry_free();
	off = e ? iotrace_preg_gap(len, false) : 0;
	/* removed disks' rings give their room only if that is enough */
	if ((!e || !off) && iotrace_preg_fits_evicting(len)) {
		while ((!e || !off) && iotrace_preg_evict(d->name)) {
			e = iotrace_preg_entry_free();
			off = e ? iotrace_preg_gap(len, false) : 0;
		}
	}
	if (!e || !off) {
		r->hdr->refused++;
		pr_warn("iotrace: %s: no room in the persistent region for its %s of %llu bytes (%zu bytes in all, %s): %s\n",
			d->name, nr_slots ? "in-flight table" : "ring", len,
			r->size, e ? "the rest is in use" :
			"every allocation entry is in use",
			nr_slots && d->enabled ? "not regrown" : "not enabled");
		goto out;
	}
	p = r->va + off;
	memset(p, 0, len);
	memset(e, 0, sizeof(*e));
	strscpy(e->name, d->name, sizeof(e->name));
	e->dev_major = d->dev_major;
	e->dev_minor = d->dev_minor;
	e->lbs = d->lbs;
	if (d->gd)
		e->sectors = get_capacity(d->gd);
	if (!d->preg_disk_gen)
		d->preg_disk_gen = ++r->gen;
	e->disk_gen = d->preg_disk_gen;
	e->gen = ++r->gen;
	e->flags = IOTRACE_PREG_D_USED;
	if (d->mpath_head)
		e->flags |= IOTRACE_PREG_D_MPATH;
	if (d->rec_rflags & IOTRACE_RF_ADMIN)
		e->flags |= IOTRACE_PREG_D_CTRL;
	if (nr_slots) {
		e->flags |= IOTRACE_PREG_D_SLOTS;
		e->slots_off = off;
		e->nr_slots = nr_slots;
		e->slot_size = IOTRACE_PREG_SLOT_SIZE;
	} else {
		e->flags |= IOTRACE_PREG_D_RING;
		e->ring_off = off;
		e->ring_size = bytes;
	}
	e->entry_crc = iotrace_preg_entry_crc(e);
	iotrace_preg_id_write(e - r->disks, e, d->preg_id);
	r->hdr->nr_disks++;
	r->hdr->data_used = max(r->hdr->data_used,
				off + len - r->hdr->data_off);
out:
	mutex_unlock(&iotrace_preg_lock);
	return p;
}

/**
 * iotrace_preg_show() - the region's lines of debugfs "status": its size,
 *	the bytes its allocations hold, the rings of removed disks it keeps,
 *	and its header's counts of allocations refused and rings evicted.
 * @m: the status file.
 *
 * Nothing without persist=.  Context: process, may sleep.
 */
void iotrace_preg_show(struct seq_file *m)
{
	struct iotrace_preg *r = &iotrace_preg;
	u64 used = 0;
	unsigned int i, kept = 0;

	mutex_lock(&iotrace_preg_lock);
	/* formatted (the key), not yet unmapped (@va, NULLed under the lock) */
	if (!r->va || !static_key_enabled(&iotrace_preg_key))
		goto out;
	for (i = 0; i < IOTRACE_PREG_MAX_DISKS; i++) {
		const struct iotrace_preg_disk *e = &r->disks[i];

		if (!(e->flags & IOTRACE_PREG_D_USED))
			continue;
		if (e->flags & IOTRACE_PREG_D_RING)
			used += PAGE_ALIGN(e->ring_size);
		if (e->flags & IOTRACE_PREG_D_SLOTS)
			used += PAGE_ALIGN((u64)e->nr_slots * e->slot_size);
		kept += !!(e->flags & IOTRACE_PREG_D_REMOVED);
	}
	seq_printf(m, "persist_size: %zu\n", r->size);
	seq_printf(m, "persist_used: %llu\n", used);
	seq_printf(m, "persist_removed_kept: %u\n", kept);
	seq_printf(m, "persist_refused: %u\n", r->hdr->refused);
	seq_printf(m, "persist_evicted: %u\n", r->hdr->evicted);
out:
	mutex_unlock(&iotrace_preg_lock);
}

/**
 * iotrace_preg_owns() - whether @p is memory of the region.
 * @p: a ring or in-flight table, or NULL.
 *
 * Return: true if iotrace_preg_alloc() gave it.
 */
bool iotrace_preg_owns(const void *p)
{
	struct iotrace_preg *r = &iotrace_preg;

	return r->va && p >= r->va && p < r->va + r->size;
}

/*
 * How iotrace_preg_put() gives a ring back (an in-flight table always
 * goes: nothing is in flight on a disk that is gone or a module unloaded).
 * @IOTRACE_PREG_DROP: its entry is cleared.
 * @IOTRACE_PREG_KEEP_UNLOAD: kept if the module is being unloaded, for the
 *	next load; else cleared.
 * @IOTRACE_PREG_KEEP_REMOVED: kept: the last ring of a disk that was
 *	removed, IOTRACE_PREG_D_REMOVED unless the module is being unloaded.
 */
enum iotrace_preg_put_how {
	IOTRACE_PREG_DROP,
	IOTRACE_PREG_KEEP_UNLOAD,
	IOTRACE_PREG_KEEP_REMOVED,
};

/*
 * Mark entry @e, a ring kept after its disk was removed: for a reader of
 * the next boot, and so that it gives its room when an allocation needs
 * it (iotrace_preg_evict()).  The old checksum stays until the new one
 * is written: a crash in between leaves an entry whose checksum holds
 * without the mark, which a reader takes as whole
 * (iotrace_preg_entry_whole()), so the ring is never lost to it.
 * Context: iotrace_preg_lock held.
 */
static void iotrace_preg_mark_removed(struct iotrace_preg_disk *e)
{
	WRITE_ONCE(e->flags, e->flags | IOTRACE_PREG_D_REMOVED);
	/* the mark before the checksum that covers it */
	wmb();
	WRITE_ONCE(e->entry_crc, iotrace_preg_entry_crc(e));
}

/* Give back @p, iotrace_preg_alloc()ed, as @how says. */
static void iotrace_preg_put(void *p, enum iotrace_preg_put_how how)
{
	struct iotrace_preg *r = &iotrace_preg;
	u64 off;
	unsigned int i;

	if (!p)
		return;
	off = p - r->va;
	mutex_lock(&iotrace_preg_lock);
	for (i = 0; i < IOTRACE_PREG_MAX_DISKS; i++) {
		struct iotrace_preg_disk *e = &r->disks[i];

		if (!(e->flags & IOTRACE_PREG_D_USED))
			continue;
		if (((e->flags & IOTRACE_PREG_D_RING) && e->ring_off == off) ||
		    ((e->flags & IOTRACE_PREG_D_SLOTS) && e->slots_off == off)) {
			if ((e->flags & IOTRACE_PREG_D_RING) &&
			    how != IOTRACE_PREG_DROP && !r->aborting &&
			    (r->exiting || how == IOTRACE_PREG_KEEP_REMOVED)) {
				if (!r->exiting)
					iotrace_preg_mark_removed(e);
				break;
			}
			iotrace_preg_clear(i);
			break;
		}
	}
	mutex_unlock(&iotrace_preg_lock);
}

/**
 * iotrace_preg_free() - give back what iotrace_preg_alloc() gave.
 * @p: the memory; NULL does nothing.
 *
 * Its entry is cleared: the next boot does not see it; but a ring freed
 * while the module is unloaded stays for the next load.
 * Context: process.
 */
void iotrace_preg_free(void *p)
{
	iotrace_preg_put(p, IOTRACE_PREG_KEEP_UNLOAD);
}

/**
 * iotrace_preg_free_removed() - give back the last ring of a disk that is
 *	gone (removed, or the module unloaded).
 * @p: the memory; NULL does nothing.
 *
 * The ring stays in the region: for the next load after an unload, and
 * after a removal (IOTRACE_PREG_D_REMOVED) for a crash that follows it,
 * until an allocation needs its room.
 * Context: process.
 */
void iotrace_preg_free_removed(void *p)
{
	iotrace_preg_put(p, IOTRACE_PREG_KEEP_REMOVED);
}

/**
 * iotrace_preg_discard() - give back a ring no disk ever had (a resize
 *	that did not happen): its entry is cleared, unloading or not.
 * @p: the memory; NULL does nothing.
 *
 * Context: process.
 */
void iotrace_preg_discard(void *p)
{
	iotrace_preg_put(p, IOTRACE_PREG_DROP);
}

/**
 * iotrace_preg_adopt() - the ring of @d in the region (a resize made it
 *	for a stand-in) says whose it is: the disk's number, capacity and
 *	identity, as iotrace_preg_alloc() writes them for the disk itself.
 * @d: the disk, attached, its new ring installed.
 *
 * Context: iotrace_mutex held (the disk stays attached).
 */
void iotrace_preg_adopt(struct iotrace_disk *d)
{
	struct iotrace_preg *r = &iotrace_preg;
	u64 off;
	unsigned int i;

	lockdep_assert_held(&iotrace_mutex);
	if (!iotrace_preg_owns(d->ring))
		return;
	off = d->ring - r->va;
	mutex_lock(&iotrace_preg_lock);
	for (i = 0; i < IOTRACE_PREG_MAX_DISKS; i++) {
		struct iotrace_preg_disk *e = &r->disks[i];

		if (!(e->flags & IOTRACE_PREG_D_RING) || e->ring_off != off)
			continue;
		/* a disk whose first ring in the region this is */
		if (!d->preg_disk_gen)
			d->preg_disk_gen = e->disk_gen;
		WRITE_ONCE(e->entry_crc, 0);
		/* the old checksum is gone before any byte it covered changes */
		wmb();
		e->disk_gen = d->preg_disk_gen;
		if (d->gd)
			e->sectors = get_capacity(d->gd);
		/* the checksum after what it covers */
		wmb();
		WRITE_ONCE(e->entry_crc, iotrace_preg_entry_crc(e));
		iotrace_preg_id_write(i, e, d->preg_id);
		break;
	}
	mutex_unlock(&iotrace_preg_lock);
}

/**
 * iotrace_preg_set_ident() - keep who @d is, beside its rings and
 *	in-flight table in the region, for the next boot.
 * @d: the disk.
 * @model: its model ("" if unknown).
 * @serial: its serial number (the same).
 * @wwn: its world wide name (the same).
 *
 * Written now beside each of its entries, and beside those it gets later
 * (a resize, the next enable).  Without persist= nothing is kept.
 * Context: process, may sleep.
 * Return: 0, or -ENOMEM.
 */
int iotrace_preg_set_ident(struct iotrace_disk *d, const char *model,
			   const char *serial, const char *wwn)
{
	struct iotrace_preg *r = &iotrace_preg;
	struct iotrace_preg_ident *id, *old;
	unsigned int i;

	if (!static_key_enabled(&iotrace_preg_key))
		return 0;
	id = kzalloc(sizeof(*id), GFP_KERNEL);
	if (!id)
		return -ENOMEM;
	strscpy_pad(id->model, model, sizeof(id->model));
	strscpy_pad(id->serial, serial, sizeof(id->serial));
	strscpy_pad(id->wwn, wwn, sizeof(id->wwn));
	mutex_lock(&iotrace_preg_lock);
	old = d->preg_id;
	d->preg_id = id;
	for (i = 0; i < IOTRACE_PREG_MAX_DISKS && d->preg_disk_gen; i++) {
		struct iotrace_preg_disk *e = &r->disks[i];

		if ((e->flags & IOTRACE_PREG_D_USED) &&
		    e->disk_gen == d->preg_disk_gen)
			iotrace_preg_id_write(i, e, id);
	}
	mutex_unlock(&iotrace_preg_lock);
	kfree(old);
	return 0;
}

/**
 * iotrace_preg_forget() - free what iotrace_preg_set_ident() kept of @d.
 * @d: the disk, being freed.
 */
void iotrace_preg_forget(struct iotrace_disk *d)
{
	kfree(d->preg_id);
	d->preg_id = NULL;
}

/**
 * iotrace_preg_mmap() - map region memory @p read-only into @vma.
 * @vma: the mapping, its size checked by the caller.
 * @p: iotrace_preg_alloc()ed memory.
 * @pgoff: the mapping's first page in @p.
 *
 * Return: 0 or a negative errno.
 */
int iotrace_preg_mmap(struct vm_area_struct *vma, void *p, unsigned long pgoff)
{
	phys_addr_t pa = iotrace_preg.phys + (p - iotrace_preg.va);

	return remap_pfn_range(vma, vma->vm_start, PHYS_PFN(pa) + pgoff,
			       vma->vm_end - vma->vm_start, vma->vm_page_prot);
}

/* ---- the previous boot's region, read-only -------------------------------- */

/* The last reference on the previous boot's copy @p frees it. */
static void iotrace_prev_put(void *p)
{
	if (!p || !refcount_dec_and_test(&iotrace_preg.prev_users))
		return;
	/* no region header left in free pages for a crash dump's scan */
	((struct iotrace_preg_hdr *)p)->magic = 0;
	vfree(p);
}

/*
 * The copy is read on a reference, without iotrace_prev_lock: a reader
 * whose buffer faults for long (userfaultfd, FUSE) holds up neither the
 * other readers nor a release, whose memory goes with the last read.
 * Neither file's private data is used: an open file of either reads
 * nothing more once the copy is released.
 */
static ssize_t iotrace_prev_read(struct file *file, char __user *buf,
				 size_t count, loff_t *ppos)
{
	size_t size = 0;
	ssize_t ret;
	void *p;

	mutex_lock(&iotrace_prev_lock);
	p = iotrace_preg.prev;
	if (p) {
		refcount_inc(&iotrace_preg.prev_users);
		size = iotrace_preg.prev_size;
	}
	mutex_unlock(&iotrace_prev_lock);
	ret = simple_read_from_buffer(buf, count, ppos, p, size);
	iotrace_prev_put(p);
	return ret;
}

static int iotrace_prev_open(struct inode *inode, struct file *file)
{
	if (file->f_mode & FMODE_WRITE)
		return -EPERM;
	return 0;
}

/* debugfs "previous": read-only (no ioctl: readable under lockdown) */
static const struct file_operations iotrace_prev_fops = {
	.owner		= THIS_MODULE,
	.open		= iotrace_prev_open,
	.read		= iotrace_prev_read,
	.llseek		= default_llseek,
};

static long iotrace_prev_ioctl(struct file *file, unsigned int cmd,
			       unsigned long arg);

/* /dev/iotrace/previous: the same, and IOTRACE_IOC_PREVIOUS_RELEASE */
static const struct file_operations iotrace_prev_cdev_fops = {
	.owner		= THIS_MODULE,
	.open		= iotrace_prev_open,
	.read		= iotrace_prev_read,
	.llseek		= default_llseek,
	.unlocked_ioctl	= iotrace_prev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct miscdevice iotrace_prev_misc = {
	.minor		= MISC_DYNAMIC_MINOR,
	.name		= "iotrace-previous",
	.nodename	= "iotrace/previous",
	.mode		= 0400,
	.fops		= &iotrace_prev_cdev_fops,
};

static void iotrace_prev_drop(void)
{
	/* one dropper at a time; readers never take it */
	static DEFINE_MUTEX(drop_lock);
	void *p;

	mutex_lock(&drop_lock);
	if (iotrace_preg.prev_cdev)
		misc_deregister(&iotrace_prev_misc);
	iotrace_preg.prev_cdev = false;
	debugfs_remove(iotrace_preg.prev_file);
	iotrace_preg.prev_file = NULL;
	mutex_lock(&iotrace_prev_lock);
	p = iotrace_preg.prev;
	iotrace_preg.prev = NULL;
	iotrace_preg.prev_size = 0;
	mutex_unlock(&iotrace_prev_lock);
	iotrace_prev_put(p);
	mutex_unlock(&drop_lock);
}

static ssize_t iotrace_prev_release_write(struct file *file,
					  const char __user *buf,
					  size_t count, loff_t *ppos)
{
	if (!iotrace_file_admin(file))
		return -EPERM;
	if (iotrace_preg.prev)
		pr_info("iotrace: persist: the previous boot's trace released\n");
	iotrace_prev_drop();
	return count;
}

/*
 * IOTRACE_IOC_PREVIOUS_RELEASE on /dev/iotrace/previous: what a write to
 * debugfs previous_release does, where debugfs refuses writable files
 * (lockdown) or is not mounted.  The device goes with the copy; this
 * open file reads nothing more.
 */
static long iotrace_prev_ioctl(struct file *file, unsigned int cmd,
			       unsigned long arg)
{
	if (cmd != IOTRACE_IOC_PREVIOUS_RELEASE)
		return -ENOTTY;
	if (!iotrace_file_admin(file))
		return -EPERM;
	if (iotrace_preg.prev)
		pr_info("iotrace: persist: the previous boot's trace released\n");
	iotrace_prev_drop();
	return 0;
}

static const struct file_operations iotrace_prev_release_fops = {
	.owner		= THIS_MODULE,
	.write		= iotrace_prev_release_write,
	.llseek		= noop_llseek,
};

/**
 * iotrace_preg_publish() - create the files of the previous boot's trace:
 *	previous and previous_release in debugfs, /dev/iotrace/previous.
 *
 * Context: module load, after every step that can fail (an open file
 * holds a reference to the module that a failing load does not wait for),
 * after iotrace_debugfs_init().
 */
void iotrace_preg_publish(void)
{
	struct iotrace_preg *r = &iotrace_preg;
	int ret;

	if (!r->va)
		return;
	if (r->prev) {
		/*
		 * "unsafe": without debugfs's proxy of every read, whose
		 * removal would wait for a read held in its copy to user
		 * space; iotrace_prev_read() needs nothing of the file
		 */
		if (iotrace_debugfs_root)
			r->prev_file =
				debugfs_create_file_unsafe("previous", 0400,
							   iotrace_debugfs_root,
							   NULL,
							   &iotrace_prev_fops);
		ret = misc_register(&iotrace_prev_misc);
		if (ret)
			pr_warn("iotrace: persist: cannot create /dev/iotrace/previous: %d\n",
				ret);
		else
			r->prev_cdev = true;
	}
	/* last: a release drops the files above, made by then */
	if (iotrace_debugfs_root)
		r->prev_rel = debugfs_create_file("previous_release", 0200,
						  iotrace_debugfs_root, NULL,
						  &iotrace_prev_release_fops);
}

/* ---- load and unload ------------------------------------------------------ */

/**
 * iotrace_preg_init() - find the region persist= names, keep what the
 *	previous boot left in it and format it for this boot.
 *
 * Context: module load, before any disk is attached.
 * Return: 0 (also without persist=) or a negative errno: a region named
 * that cannot be used fails the load.
 */
int iotrace_preg_init(void)
{
	struct iotrace_preg *r = &iotrace_preg;
	int ret;

	if (!iotrace_persist[0])
		return 0;
	ret = iotrace_preg_map();
	if (ret)
		return ret;
	ret = iotrace_preg_take_previous();
	if (ret) {
		memunmap(r->va);
		r->va = NULL;
		return ret;
	}
	iotrace_preg_format();
	INIT_DELAYED_WORK(&r->anchor, iotrace_preg_anchor_fn);
	queue_delayed_work(IOTRACE_WQ, &r->anchor, HZ);
	r->panic_nb.notifier_call = iotrace_preg_panic;
	atomic_notifier_chain_register(&panic_notifier_list, &r->panic_nb);
	static_branch_enable(&iotrace_preg_key);
	pr_info("iotrace: persist: rings and in-flight tables in %zu bytes of persistent memory\n",
		r->size);
	return 0;
}

/**
 * iotrace_preg_quiesce() - the module is being unloaded: the rings and
 *	tables it frees from now on stay in the region, for the next load.
 */
void iotrace_preg_quiesce(void)
{
	mutex_lock(&iotrace_preg_lock);
	iotrace_preg.exiting = true;
	mutex_unlock(&iotrace_preg_lock);
}

/**
 * iotrace_preg_abort() - the load is failing after disks were enabled:
 *	the rings they give back are not kept as removed disks' (the load's
 *	error path, before the disks are freed).
 */
void iotrace_preg_abort(void)
{
	mutex_lock(&iotrace_preg_lock);
	iotrace_preg.aborting = true;
	mutex_unlock(&iotrace_preg_lock);
}

/* No more writes to the region by this module: once only. */
static void iotrace_preg_stop(void)
{
	struct iotrace_preg *r = &iotrace_preg;

	if (!static_key_enabled(&iotrace_preg_key))
		return;
	static_branch_disable(&iotrace_preg_key);
	atomic_notifier_chain_unregister(&panic_notifier_list, &r->panic_nb);
	cancel_delayed_work_sync(&r->anchor);
}

/**
 * iotrace_preg_unwind() - the load failed after iotrace_preg_init(): put
 *	the previous boot's region back as it was found, for the next load.
 *
 * Context: module load's error path, after every disk was freed.
 */
void iotrace_preg_unwind(void)
{
	struct iotrace_preg *r = &iotrace_preg;

	if (!r->va)
		return;
	iotrace_preg_stop();
	mutex_lock(&iotrace_prev_lock);
	if (r->prev) {
		const struct iotrace_preg_hdr *ph = r->prev;
		size_t m = sizeof(ph->magic);

		/*
		 * As it was: live, its entries (those that checked).  The
		 * magic goes first and comes back last: a crash while this
		 * load's rings are overwritten leaves no region, never the
		 * previous header over some of this load's records.
		 */
		WRITE_ONCE(r->hdr->magic, 0);
		wmb();	/* no magic before any byte of the copy */
		memcpy(r->va + m, r->prev + m, r->prev_size - m);
		r->hdr->state = IOTRACE_PREG_LIVE;
		r->hdr->damaged = 0;
		wmb();	/* the whole copy before the magic */
		WRITE_ONCE(r->hdr->magic, ph->magic);
		pr_info("iotrace: persist: the load failed: the previous boot's trace is put back in the region\n");
	}
	mutex_unlock(&iotrace_prev_lock);
	iotrace_preg_exit();
}

/**
 * iotrace_preg_exit() - stop writing the region and unmap it; its contents
 *	stay for the next load (a reload reads them as the previous trace).
 *
 * Context: module unload, after every disk was freed.
 */
void iotrace_preg_exit(void)
{
	struct iotrace_preg *r = &iotrace_preg;
	void *va = r->va;

	if (!va)
		return;
	iotrace_preg_stop();
	debugfs_remove(r->prev_rel);
	iotrace_prev_drop();
	/* status (iotrace_preg_show()) may be read while a load fails */
	mutex_lock(&iotrace_preg_lock);
	r->va = NULL;
	mutex_unlock(&iotrace_preg_lock);
	memunmap(va);
}
