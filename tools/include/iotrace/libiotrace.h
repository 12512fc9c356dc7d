/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libiotrace - read the block-I/O records of iotrace: trace files written
 * by "iotracectl record" (or "watch"), copies of a ring, a disk's live
 * ring (debugfs or /dev/iotrace), a previous boot's persistent region
 * (the module's copy, a copy of it, a crash dump), standard input.
 * Documentation/libiotrace.rst has the overview; every function and
 * structure is described here.
 *
 * Link with "pkg-config --cflags --libs libiotrace".  The shared library
 * is libiotrace.so.1: every function below has the symbol version
 * LIBIOTRACE_1, but those at the end, of LIBIOTRACE_1.1 and 1.2.  This header
 * stands alone: it needs neither the kernel's nor iotrace's uapi header,
 * and names nothing of the library's insides.
 *
 * Errors: functions return 0 or a value >= 0 on success and -1 on
 * failure, with a message (one line, no newline) that
 * iotrace_source_error() gives; nothing is printed and nothing exits.
 * Threads: a handle is used by one thread at a time; separate handles
 * may be used by separate threads at once.  The library keeps no state
 * outside its handles (it reads no environment variable).
 */
#ifndef IOTRACE_LIBIOTRACE_H
#define IOTRACE_LIBIOTRACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct iotrace_source - a record source: opaque, made by
 *	iotrace_source_new(), freed by iotrace_source_free().
 */
struct iotrace_source;

/* iotrace_open_opts.flags */
/* refuse a trace file that is not whole (cut short, damaged chunks) */
#define IOTRACE_OPEN_STRICT	(1u << 0)

/**
 * struct iotrace_open_opts - how iotrace_source_open() opens a source;
 *	NULL (or a zeroed structure) for the defaults.
 * @flags: IOTRACE_OPEN_* bits.
 * @debugfs: the iotrace debugfs directory a live disk's ring and the
 *	submitters' names are read from; NULL: /sys/kernel/debug/iotrace.
 * @devdir: the directory of the iotrace devices, a live disk's ring when
 *	debugfs cannot give it; NULL: /dev/iotrace.
 * @tmpdir: where a trace read from a pipe is copied to beyond its first
 *	24 MiB; NULL: /var/tmp.
 */
struct iotrace_open_opts {
	uint32_t flags;
	const char *debugfs;
	const char *devdir;
	const char *tmpdir;
};

/* iotrace_source_info.kind */
#define IOTRACE_KIND_FILE	1	/* a trace file */
#define IOTRACE_KIND_RING	2	/* a copy of a ring (a snapshot) */
#define IOTRACE_KIND_LIVE	3	/* a disk's live ring, mapped */

/* the room for a disk name with its NUL */
#define IOTRACE_DISK_NAME_SIZE	33
/* the room for a model, a serial number, a WWN, with its NUL */
#define IOTRACE_DISK_ID_SIZE	128
/* the room for a host name or kernel release, with its NUL */
#define IOTRACE_INFO_STR_SIZE	129

/**
 * struct iotrace_source_info - what a source is.
 * @kind: IOTRACE_KIND_*.
 * @nr_disks: disks in its disk table (iotrace_source_disk()).
 * @salvaged: a trace file that is not whole: it is read as far as it
 *	goes, iotrace_source_warning() says what is missing.
 * @start_ns: the trace's start, CLOCK_MONOTONIC ns of the traced host: a
 *	trace file's header; 0 for a ring.
 * @anchor_real_ns: a trace file: CLOCK_REALTIME ns of @start_ns (the
 *	records' times plus this minus @start_ns are wall-clock times); 0
 *	for a ring.
 * @host: a trace file: the traced host's name; "" for a ring.
 * @release: a trace file: the traced host's kernel release; "" for a ring.
 */
struct iotrace_source_info {
	uint32_t kind;
	uint32_t nr_disks;
	uint32_t salvaged;
	uint32_t reserved;
	uint64_t start_ns;
	uint64_t anchor_real_ns;
	char host[IOTRACE_INFO_STR_SIZE];
	char release[IOTRACE_INFO_STR_SIZE];
};

/**
 * struct iotrace_disk - one disk of a source's disk table.
 * @name: the disk's name ("nvme0n1").
 * @dev_major: device number.
 * @dev_minor: device number.
 * @logical_block_size: bytes.
 * @nr_parts: parts (CPUs) of the ring the records came from.
 * @part_records: records per part of that ring.
 * @ring_flags: the ring's flags (Documentation/abi.rst, IOTRACE_RING_*).
 * @generation: the ring's generation.
 * @model: the disk's model, "" when the source does not say (a snapshot
 *	of "iotracectl watch" does, and a previous boot's trace file, or its
 *	persistent region, where it was given).
 * @serial: its serial number, the same.
 * @wwn: its world wide name, the same.
 */
struct iotrace_disk {
	char name[IOTRACE_DISK_NAME_SIZE];
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t logical_block_size;
	uint32_t nr_parts;
	uint32_t part_records;
	uint32_t ring_flags;
	uint64_t generation;
	char model[IOTRACE_DISK_ID_SIZE];
	char serial[IOTRACE_DISK_ID_SIZE];
	char wwn[IOTRACE_DISK_ID_SIZE];
};

/* iotrace_loss.flags */
/* a trace file without a trailer: its trailer's counts are unknown */
#define IOTRACE_LOSS_NO_TRAILER	(1u << 0)
/*
 * a live ring cleared while it was read: the records are those of the
 * generation it had when the read began, up to the clear
 */
#define IOTRACE_LOSS_CLEARED	(1u << 1)

/**
 * struct iotrace_loss - a disk's records and what was not got of them.
 * @completed: requests completed while the disk was traced (a ring: the
 *	records written, dropped and filtered; a trace file: its trailer's).
 * @recorded: records put in the ring.
 * @present: records the reader could find.
 * @overwritten: records overwritten in the ring before they were read
 *	(a trace file: not copied in time by the recorder).
 * @dropped: requests the kernel could not record.
 * @filtered: requests the disk's filter left out.
 * @written: a trace file: records the recorder wrote.
 * @lost: a trace file: records the recorder lost.
 * @torn: records skipped because they changed while being read, or were
 *	damaged.
 * @valid: records handed to the caller.
 * @gaps: a trace file: sequence gaps between two chunks of one part.
 * @gap_records: the records missing in those gaps.
 * @unread: a trace file: records its trailer says were written that
 *	were not found (damaged chunks).
 * @late: records handed out after a later one, in the last
 *	iotrace_source_foreach(): they came later in the file than its
 *	reordering window (16,384 records) reaches.
 * @flags: IOTRACE_LOSS_* bits.
 */
struct iotrace_loss {
	uint64_t completed;
	uint64_t recorded;
	uint64_t present;
	uint64_t overwritten;
	uint64_t dropped;
	uint64_t filtered;
	uint64_t written;
	uint64_t lost;
	uint64_t torn;
	uint64_t valid;
	uint64_t gaps;
	uint64_t gap_records;
	uint64_t unread;
	uint64_t late;
	uint32_t flags;
	uint32_t reserved;
};

/* iotrace_rec.op: the block layer's operation */
#define IOTRACE_REC_OP_READ		0
#define IOTRACE_REC_OP_WRITE		1
#define IOTRACE_REC_OP_FLUSH		2
#define IOTRACE_REC_OP_DISCARD		3
#define IOTRACE_REC_OP_SECURE_ERASE	4
#define IOTRACE_REC_OP_WRITE_ZEROES	5
#define IOTRACE_REC_OP_ZONE_OPEN	6
#define IOTRACE_REC_OP_ZONE_CLOSE	7
#define IOTRACE_REC_OP_ZONE_FINISH	8
#define IOTRACE_REC_OP_ZONE_APPEND	9
#define IOTRACE_REC_OP_ZONE_RESET	10
#define IOTRACE_REC_OP_ZONE_RESET_ALL	11
#define IOTRACE_REC_OP_DRV_IN		12	/* passthrough, in */
#define IOTRACE_REC_OP_DRV_OUT		13	/* passthrough, out */
#define IOTRACE_REC_OP_UNKNOWN		255

/* iotrace_rec.rflags (Documentation/abi.rst: IOTRACE_RF_*) */
#define IOTRACE_REC_COMPLETE	(1u << 0)	/* completion seen */
#define IOTRACE_REC_ERROR	(1u << 1)	/* an errno or device error */
#define IOTRACE_REC_TIMEOUT	(1u << 2)	/* the request timed out */
#define IOTRACE_REC_REQUEUED	(1u << 3)	/* requeued */
#define IOTRACE_REC_PASSTHRU	(1u << 4)	/* a passthrough request */
#define IOTRACE_REC_CMD_VALID	(1u << 5)	/* @cmd holds it */
#define IOTRACE_REC_CMD_TRUNC	(1u << 6)	/* @cmd was cut */
#define IOTRACE_REC_NO_ISSUE	(1u << 7)	/* issue not seen */
#define IOTRACE_REC_QUEUE_VALID	(1u << 8)	/* @queue_ns is set */
#define IOTRACE_REC_STATUS_VALID (1u << 9)	/* @dev_status is set */
#define IOTRACE_REC_ADMIN	(1u << 10)	/* NVMe admin queue */
#define IOTRACE_REC_QUEUE_SAT	(1u << 11)	/* @queue_ns saturated */
#define IOTRACE_REC_PREFLUSH	(1u << 12)	/* a flush before it */
#define IOTRACE_REC_POSTFLUSH	(1u << 13)	/* a flush after it */
#define IOTRACE_REC_KERNEL	(1u << 14)	/* the kernel's own I/O */
#define IOTRACE_REC_TRIGGER	(1u << 15)	/* it fired a trigger */

/* iotrace_rec.cmd_type */
#define IOTRACE_REC_CMD_NONE	0
#define IOTRACE_REC_CMD_NVME	1	/* a 64-byte submission entry */
#define IOTRACE_REC_CMD_SCSI	2	/* a CDB */
#define IOTRACE_REC_CMD_ATA	3	/* a taskfile */

/* bytes of iotrace_rec.cmd */
#define IOTRACE_REC_CMD_LEN	64

/**
 * struct iotrace_rec - one request: its issue and its completion.
 * @disk: the index of its disk in the source's disk table.
 * @seq: its sequence number among its CPU's records (a 1.x ring's: its
 *	part's).
 * @issue_ns: CLOCK_MONOTONIC ns of its issue (see IOTRACE_REC_NO_ISSUE).
 * @complete_ns: of its completion (IOTRACE_REC_COMPLETE).
 * @sector: its first 512-byte sector; UINT64_MAX: none (a flush, most
 *	passthrough commands).
 * @bytes: its size.
 * @queue_ns: the time from its allocation to its issue
 *	(IOTRACE_REC_QUEUE_VALID).
 * @dev_status: the device's status (IOTRACE_REC_STATUS_VALID):
 *	iotrace_rec_status() spells it.
 * @dev_result: the device's result dword (NVMe), the same.
 * @error: the block layer's completion errno, negative; 0: success.
 * @rflags: IOTRACE_REC_* flags.
 * @opflags: the request's flags (Documentation/abi.rst: IOTRACE_OPF_*):
 *	iotrace_rec_opflags() spells them.
 * @issue_cpu: the CPU it was issued on.
 * @complete_cpu: the CPU it completed on.
 * @hwq: its hardware queue.
 * @tag: its tag.
 * @op: IOTRACE_REC_OP_*.
 * @retries: retries (SCSI).
 * @cmd_type: IOTRACE_REC_CMD_*: what @cmd holds.
 * @cmd_len: bytes of @cmd that are valid.
 * @pid: the process that submitted it, 0: unknown (and for the
 *	kernel's own I/O, IOTRACE_REC_KERNEL); iotrace_source_comm() names
 *	it.
 * @cgroup: the submitter's cgroup id, 0: unknown.
 * @cmd: the command as the device saw it (addresses zeroed):
 *	iotrace_rec_command() decodes it.
 */
struct iotrace_rec {
	uint32_t disk;
	uint32_t seq;
	uint64_t issue_ns;
	uint64_t complete_ns;
	uint64_t sector;
	uint32_t bytes;
	uint32_t queue_ns;
	uint32_t dev_status;
	uint32_t dev_result;
	int32_t error;
	uint16_t rflags;
	uint16_t opflags;
	uint16_t issue_cpu;
	uint16_t complete_cpu;
	uint16_t hwq;
	uint16_t tag;
	uint8_t op;
	uint8_t retries;
	uint8_t cmd_type;
	uint8_t cmd_len;
	uint32_t pid;
	uint64_t cgroup;
	uint8_t cmd[IOTRACE_REC_CMD_LEN];
};

/* the order of iotrace_source_foreach() */
/* by completion time (then issue time, disk, CPU, sequence number) */
#define IOTRACE_ORDER_COMPLETE	0
/* by start: issue time, or completion time without an issue */
#define IOTRACE_ORDER_START	1
/* as stored: a trace file's chunks in file order, a ring CPU by CPU */
#define IOTRACE_ORDER_STORED	2

/**
 * typedef iotrace_rec_fn - called for each record by
 *	iotrace_source_foreach().
 * @arg: the caller's argument.
 * @rec: the record, valid during the call.
 *
 * Return: 0 to go on, a positive value to stop (iotrace_source_foreach()
 * returns it).
 */
typedef int (*iotrace_rec_fn)(void *arg, const struct iotrace_rec *rec);

/**
 * iotrace_source_new() - make a handle.
 *
 * Return: a closed handle (iotrace_source_open() opens it), or NULL when
 * out of memory.
 */
struct iotrace_source *iotrace_source_new(void);

/**
 * iotrace_source_free() - close the source and free the handle.
 * @src: the handle, or NULL.
 */
void iotrace_source_free(struct iotrace_source *src);

/**
 * iotrace_source_open() - open a source: a trace file, a copy of a ring,
 *	a copy of a persistent region or an ELF crash dump holding one,
 *	"-" for any of them on standard input, "previous" for the module's
 *	copy of the previous boot's region, or the name of a traced disk
 *	(its live ring).
 * @src: the handle; a source it had open is closed first.
 * @what: a path, "-", "previous" (when no file has that name: the region
 *	at <@opts->debugfs>/previous, else <@opts->devdir>/previous), or a
 *	disk name (a name without "/" that is no file).
 * @opts: options, NULL for the defaults.
 *
 * A trace file is checked whole before this returns: a file another
 * program cannot have written, or of a newer major version, is refused;
 * one cut short or with damaged chunks is read as far as it goes
 * (iotrace_source_info() salvaged, iotrace_source_warning()) unless
 * IOTRACE_OPEN_STRICT.
 *
 * A persistent region (the boot that died, as a module loaded with
 * persist= kept it; Documentation/abi.rst) is read as the trace file
 * "iotracectl previous -o" writes of it, made in memory here: the newest
 * ring of each disk, dated by the region's clock anchor, of kind
 * IOTRACE_KIND_FILE.  A disk's ring that does not validate is left out
 * (the ring a resize replaced read instead if whole), the other disks'
 * read (iotrace_source_warning()).  One whose header does not check, a
 * dump without one and a region without a ring that validates are
 * refused.
 *
 * Return: 0, or -1 (iotrace_source_error() says why).
 */
int iotrace_source_open(struct iotrace_source *src, const char *what,
			const struct iotrace_open_opts *opts);

/**
 * iotrace_source_open_buffer() - open a trace file, a ring's copy, a
 *	persistent region's copy or an ELF crash dump held in memory.
 * @src: the handle; a source it had open is closed first.
 * @buf: the bytes; they must stay valid and unchanged while open.
 * @len: their length.
 * @label: the source's name in messages (NULL: "buffer").
 * @opts: options (only IOTRACE_OPEN_STRICT matters), NULL for none.
 *
 * Return: 0, or -1 (iotrace_source_error() says why).
 */
int iotrace_source_open_buffer(struct iotrace_source *src, const void *buf,
			       size_t len, const char *label,
			       const struct iotrace_open_opts *opts);

/**
 * iotrace_source_close() - close the source; the handle can be opened
 *	again.
 * @src: the handle.
 */
void iotrace_source_close(struct iotrace_source *src);

/**
 * iotrace_source_error() - the message of the handle's last failure.
 * @src: the handle.
 *
 * Return: one line without a newline, naming the source ("" when nothing
 * failed); valid until the next call on @src.
 */
const char *iotrace_source_error(const struct iotrace_source *src);

/**
 * iotrace_source_warning() - what a trace file read as far as it goes is
 *	missing (cut short, damaged chunks, records its trailer counts that
 *	were not found), or what of a persistent region was left out (a
 *	disk's ring that does not validate: "ring of DISK left out: WHY").
 * @src: the handle, open.
 *
 * Return: one line without a newline, "" for a whole file or region or a
 * ring; valid until the source is closed.
 */
const char *iotrace_source_warning(const struct iotrace_source *src);

/**
 * iotrace_source_info() - what the open source is.
 * @src: the handle, open.
 * @info: filled.
 *
 * Return: 0, or -1 when no source is open.
 */
int iotrace_source_info(struct iotrace_source *src,
			struct iotrace_source_info *info);

/**
 * iotrace_source_disk() - one disk of the source's disk table.
 * @src: the handle, open.
 * @index: from 0 to iotrace_source_info() nr_disks - 1.
 * @disk: filled.
 *
 * Return: 0, or -1 for an index beyond the table.
 */
int iotrace_source_disk(struct iotrace_source *src, unsigned int index,
			struct iotrace_disk *disk);

/**
 * iotrace_source_disk_index() - the index of a disk of the source.
 * @src: the handle, open.
 * @name: the disk's name.
 *
 * Return: its index, or -1 when the source holds no disk of that name
 * (iotrace_source_error() lists those it holds).
 */
int iotrace_source_disk_index(struct iotrace_source *src, const char *name);

/**
 * iotrace_source_foreach() - hand every record of the source to @fn.
 * @src: the handle, open.
 * @order: IOTRACE_ORDER_*: records of every disk and CPU merged by
 *	completion or start time, or as stored.
 * @fn: called for each record; it must not use @src.
 * @arg: its first argument.
 *
 * A trace file is read as a stream through a reordering window, in
 * memory that does not grow with the file (a record more than the
 * window late is handed out late and counted in iotrace_loss.late); a
 * ring is copied (a live one at the time of the call) and sorted.  It
 * may be called again: the source is read again (a live ring anew).
 * The loss accounting (iotrace_source_loss()) is that of the last call.
 *
 * Return: 0 after the last record, @fn's positive value when it stopped,
 * or -1 (iotrace_source_error() says why; the records handed out until
 * then were the file's).
 */
int iotrace_source_foreach(struct iotrace_source *src, int order,
			   iotrace_rec_fn fn, void *arg);

/**
 * iotrace_source_loss() - a disk's loss accounting.
 * @src: the handle, open.
 * @disk: the disk's index, or -1 for the sum over every disk.
 * @loss: filled: a trace file's counts from its trailer after
 *	iotrace_source_open(), a ring's after iotrace_source_foreach().
 *
 * Return: 0, or -1 for an index beyond the table.
 */
int iotrace_source_loss(struct iotrace_source *src, int disk,
			struct iotrace_loss *loss);

/**
 * iotrace_source_comm() - the name of a record's submitter.
 * @src: the handle, open: the names come from a trace file, or from what
 *	the kernel noted when a live disk was opened.
 * @rec: the record.
 *
 * Return: the process's command name, "[kernel]" for the kernel's own
 * I/O, "-" when not known; valid until the source is closed.
 */
const char *iotrace_source_comm(const struct iotrace_source *src,
				const struct iotrace_rec *rec);

/**
 * iotrace_op_name() - the name of an operation ("read", "write",
 *	"flush", ...).
 * @op: iotrace_rec.op.
 *
 * Return: a static string, "op?" for an unknown value.
 */
const char *iotrace_op_name(unsigned int op);

/**
 * iotrace_rec_command() - a record's command decoded to text (NVMe,
 *	SCSI or ATA), as "iotracectl show" prints it.
 * @rec: the record.
 * @buf: the text, NUL-terminated, cut to fit.
 * @size: bytes of @buf (256 hold any).
 *
 * Return: the length of the text ("-" when the record has no command).
 */
size_t iotrace_rec_command(const struct iotrace_rec *rec, char *buf,
			   size_t size);

/**
 * iotrace_rec_status() - a record's device status decoded to text.
 * @rec: the record.
 * @buf: the text, NUL-terminated, cut to fit.
 * @size: bytes of @buf (256 hold any).
 *
 * Return: the length of the text ("-" when the record has no status).
 */
size_t iotrace_rec_status(const struct iotrace_rec *rec, char *buf,
			  size_t size);

/**
 * iotrace_rec_errno() - a record's completion errno as text ("ok",
 *	"-EIO", ...; "-" when it did not complete).
 * @rec: the record.
 * @buf: the text, NUL-terminated, cut to fit.
 * @size: bytes of @buf (32 hold any).
 *
 * Return: the length of the text.
 */
size_t iotrace_rec_errno(const struct iotrace_rec *rec, char *buf,
			 size_t size);

/**
 * iotrace_rec_opflags() - a record's request flags as text
 *	("+sync+fua", "" for none).
 * @rec: the record.
 * @buf: the text, NUL-terminated, cut to fit.
 * @size: bytes of @buf (128 hold any).
 *
 * Return: the length of the text.
 */
size_t iotrace_rec_opflags(const struct iotrace_rec *rec, char *buf,
			   size_t size);

/*
 * The functions below have the symbol version LIBIOTRACE_1.1: the
 * records read in batches the caller pulls (a loop without a callback),
 * and their fields as columns, texts numbered in a table of strings
 * (what a binding makes its arrays of without a call per record).
 */

/**
 * iotrace_source_rewind() - begin reading the source's records anew, for
 *	iotrace_source_read().
 * @src: the handle, open.
 * @order: IOTRACE_ORDER_*, as for iotrace_source_foreach().
 *
 * The records come in the order, and are the records, that
 * iotrace_source_foreach() hands out: a trace file is read as a stream
 * through the same reordering window, in memory that does not grow with
 * the file; a ring is copied (a live one now) and sorted.  A read begun
 * before is dropped.  The loss accounting (iotrace_source_loss()) is that
 * of the last read begun, its late count that of the records read so far.
 * iotrace_source_foreach() ends a read under way, and so does closing
 * the source.
 *
 * Return: 0, or -1 (iotrace_source_error() says why).
 */
int iotrace_source_rewind(struct iotrace_source *src, int order);

/**
 * iotrace_source_read() - the next records of the read that
 *	iotrace_source_rewind() began.
 * @src: the handle, open.
 * @recs: filled with up to @max records.
 * @max: room in @recs.
 *
 * Return: the records put in @recs, at most @max; 0 after the last
 * (again on every later call); or -1 (iotrace_source_error() says why:
 * no read begun, or the file could not be read: the records put in
 * @recs by the calls before were the file's).  A failure met after
 * some records were put in @recs returns those; the next call fails.
 */
long iotrace_source_read(struct iotrace_source *src, struct iotrace_rec *recs,
			 size_t max);

/**
 * struct iotrace_strtab - a table of distinct strings, each with a number
 *	from 0 in the order they were added: opaque, made by
 *	iotrace_strtab_new(), freed by iotrace_strtab_free().
 */
struct iotrace_strtab;

/**
 * iotrace_strtab_new() - make an empty table of strings.
 *
 * Return: the table, or NULL when out of memory.
 */
struct iotrace_strtab *iotrace_strtab_new(void);

/**
 * iotrace_strtab_free() - free a table of strings.
 * @tab: the table, or NULL.
 */
void iotrace_strtab_free(struct iotrace_strtab *tab);

/**
 * iotrace_strtab_count() - the strings in a table.
 * @tab: the table.
 *
 * Return: their number; the numbers given so far are 0 to it - 1.
 */
size_t iotrace_strtab_count(const struct iotrace_strtab *tab);

/**
 * iotrace_strtab_data() - every string of a table, in the order of their
 *	numbers, each ended by its NUL, one after the other.
 * @tab: the table.
 * @size: set to the bytes at the pointer returned, the NULs included.
 *
 * Return: the bytes (no NUL in a string: the table holds C strings),
 * valid until @tab changes.
 */
const char *iotrace_strtab_data(const struct iotrace_strtab *tab,
				size_t *size);

/*
 * iotrace_column.field: the fields of the CSV record schema of
 * "iotracectl export -f csv" and "show -o csv", in its order (the CSV's
 * column numbers, from 0).  A number is given as it is in struct
 * iotrace_rec; a text as the schema spells it (TEXT); a field the schema
 * may leave empty (EMPTY) says when it is not (iotrace_column.present).
 */
#define IOTRACE_FIELD_DISK		0	/* TEXT the disk's name */
#define IOTRACE_FIELD_SEQ		1
#define IOTRACE_FIELD_ISSUE_NS		2
#define IOTRACE_FIELD_COMPLETE_NS	3	/* EMPTY: not completed */
#define IOTRACE_FIELD_QUEUE_NS		4	/* EMPTY: no queue time */
#define IOTRACE_FIELD_LATENCY_NS	5	/* EMPTY: no latency (below) */
#define IOTRACE_FIELD_OP		6	/* TEXT iotrace_op_name() */
#define IOTRACE_FIELD_OPFLAGS		7	/* TEXT, EMPTY: no flags */
#define IOTRACE_FIELD_SECTOR		8	/* EMPTY: UINT64_MAX */
#define IOTRACE_FIELD_BYTES		9
#define IOTRACE_FIELD_ERROR		10
#define IOTRACE_FIELD_STATUS		11	/* TEXT, EMPTY: not completed */
#define IOTRACE_FIELD_RFLAGS		12
#define IOTRACE_FIELD_ISSUE_CPU		13
#define IOTRACE_FIELD_COMPLETE_CPU	14
#define IOTRACE_FIELD_HWQ		15
#define IOTRACE_FIELD_TAG		16
#define IOTRACE_FIELD_RETRIES		17
#define IOTRACE_FIELD_CMD_TYPE		18
#define IOTRACE_FIELD_DEV_STATUS	19
#define IOTRACE_FIELD_DEV_STATUS_STR	20	/* TEXT iotrace_rec_status() */
#define IOTRACE_FIELD_COMMAND		21	/* TEXT iotrace_rec_command() */
#define IOTRACE_FIELD_PID		22
#define IOTRACE_FIELD_COMM		23	/* TEXT, EMPTY: name unknown */
#define IOTRACE_FIELD_CGROUP		24
#define IOTRACE_FIELD_NR		25

/* iotrace_column.type */
#define IOTRACE_COL_INT64	1	/* int64_t: a number field */
#define IOTRACE_COL_UINT64	2	/* uint64_t: a number field */
#define IOTRACE_COL_STRING	3	/* uint32_t: a text field's string */

/**
 * struct iotrace_column - a column iotrace_rec_columns() fills: one field
 *	of each record.
 * @field: IOTRACE_FIELD_*.
 * @type: IOTRACE_COL_*: IOTRACE_COL_INT64 or _UINT64 for a number field
 *	(a value beyond INT64_MAX, only a sector or a time or cgroup can
 *	be, is cast as C casts it), IOTRACE_COL_STRING for a text field.
 * @data: the values, record i's at index i: int64_t, uint64_t, or the
 *	uint32_t number of its string in the table of strings.
 * @present: NULL, or 1 byte per record set to 1 where the schema's field
 *	is not empty, 0 where it is (where a number is 0, a text "").
 */
struct iotrace_column {
	uint32_t field;
	uint32_t type;
	void *data;
	uint8_t *present;
};

/**
 * iotrace_rec_columns() - fields of records as columns: numbers, and
 *	texts as numbers of their strings in a table.
 * @src: the handle, open: the records' source (disk names, submitters).
 * @recs: the records.
 * @n: how many.
 * @cols: the columns to fill, each with room for @n values (and @n
 *	flags of @present).
 * @nr_cols: how many.
 * @tab: the table a text's string is looked up in, added to when new
 *	(NULL when no column is of IOTRACE_COL_STRING).
 *
 * The values are those of the CSV record schema: the latency is
 * complete_ns - issue_ns of a request that was issued (or an empty
 * PREFLUSH write with its allocation time) and completed, not before;
 * the status the errno's name ("ok", "-EIO"); the submitter's name, comm,
 * the one the source holds for the pid, the kernel's own I/O too (where
 * iotrace_source_comm() says "[kernel]").
 *
 * Return: 0, or -1 (iotrace_source_error() says why: no source open, a
 * field or type unknown, a type the field does not take, out of memory).
 */
int iotrace_rec_columns(struct iotrace_source *src,
			const struct iotrace_rec *recs, size_t n,
			const struct iotrace_column *cols, unsigned int nr_cols,
			struct iotrace_strtab *tab);

/*
 * The function below has the symbol version LIBIOTRACE_1.2: the requests
 * in flight at the end of a trace (a previous boot's).
 */

/**
 * struct iotrace_inflight_info - what iotrace_source_inflight() found.
 * @requests: the requests handed out.
 * @at_ns: CLOCK_MONOTONIC ns they were still in flight at (the newest
 *	time known of that boot; 0 when there is none): a request's age is
 *	@at_ns - issue_ns.
 * @torn: in-flight slots that were being written when it stopped
 *	(counted, not handed out).
 * @damaged: in-flight sections of the file left out (a checksum that does
 *	not match, sizes no writer makes).
 * @reserved: zero.
 */
struct iotrace_inflight_info {
	uint64_t requests;
	uint64_t at_ns;
	uint64_t torn;
	uint32_t damaged;
	uint32_t reserved;
};

/**
 * iotrace_source_inflight() - the requests in flight when a trace ended,
 *	or a live disk's now.
 * @src: the handle, open: a trace file that "iotracectl previous -o"
 *	wrote, a persistent region (the module's copy, "previous"), a copy
 *	of one or a crash dump; a recording of "iotracectl record" or a
 *	snapshot of "iotracectl watch" (those in flight as it ended); a
 *	live disk (its device's IOTRACE_IOC_INFLIGHT_RECORDS, in
 *	@opts->devdir: the requests in flight now, @info's at_ns the time
 *	the module collected them; from a module before that ioctl,
 *	IOTRACE_IOC_INFLIGHT's fields only: no queue time, op flags,
 *	cgroup or command); a copy of a ring has none.
 * @fn: called for each request, oldest issue first, disk by disk; it
 *	must not use @src.  A request's record is as its completion would
 *	have written it without a completion: complete_ns 0, rflags without
 *	IOTRACE_REC_COMPLETE, seq 0.
 * @arg: its first argument.
 * @info: NULL, or filled.
 *
 * Return: 0 after the last request, @fn's positive value when it
 * stopped, or -1 (iotrace_source_error() says why).
 */
int iotrace_source_inflight(struct iotrace_source *src, iotrace_rec_fn fn,
			    void *arg, struct iotrace_inflight_info *info);

/*
 * The function below has the symbol version LIBIOTRACE_1.3: which boot
 * a source's records come from.
 */

/* iotrace_boot.flags */
#define IOTRACE_BOOT_PANICKED	(1u << 0)	/* that boot ended in a panic */

/* the room for a boot id as text with its NUL (36 + 1, to 8 bytes) */
#define IOTRACE_BOOT_ID_SIZE	40

/**
 * struct iotrace_boot - the boot a source's records come from when it
 *	is not the boot that wrote the source: a previous boot's.
 * @boot_id: that boot's /proc/sys/kernel/random/boot_id, as text.
 * @flags: IOTRACE_BOOT_* bits.
 * @reserved: zero.
 * @first_ns: that boot's CLOCK_MONOTONIC ns of the oldest completion
 *	the source holds; 0 without records.
 * @last_ns: the same of the newest completion.
 *
 * iotrace_source_info() gives that boot's kernel release and clock
 * anchor: a time of that boot, @ns, is the wall-clock time
 * anchor_real_ns + (@ns - start_ns).
 */
struct iotrace_boot {
	char boot_id[IOTRACE_BOOT_ID_SIZE];
	uint32_t flags;
	uint32_t reserved;
	uint64_t first_ns;
	uint64_t last_ns;
};

/**
 * iotrace_source_boot() - whether a source's records are a previous
 *	boot's, and which.
 * @src: the handle, open.
 * @boot: filled when they are, zeroed when they are not.
 *
 * A persistent region (the module's copy, "previous", a copy of one or a
 * crash dump) is a previous boot's, and so is the trace file "iotracectl
 * previous -o" wrote of one (its boot chunk, Documentation/abi.rst); a
 * ring or any other trace file is not.
 *
 * Return: 1 when they are, 0 when they are not, or -1
 * (iotrace_source_error() says why).
 */
int iotrace_source_boot(struct iotrace_source *src, struct iotrace_boot *boot);

/*
 * The function below has the symbol version LIBIOTRACE_1.4: what a
 * previous boot's persistent region had no room for.
 */

/* iotrace_room.flags: which counts the source holds */
#define IOTRACE_ROOM_REFUSED	(1u << 0)	/* @refused is known */
#define IOTRACE_ROOM_EVICTED	(1u << 1)	/* @evicted is known */

/**
 * struct iotrace_room - what a previous boot's persistent region had no
 *	room for, as its header counted it.
 * @flags: IOTRACE_ROOM_* bits: the counts the source holds (a trace file
 *	written by an older iotracectl holds neither; a region of layout
 *	1.3 or older, or a file saved of one, no @evicted).
 * @refused: rings and in-flight tables that boot could not place in the
 *	region (their disks were not enabled).
 * @evicted: rings of removed disks that gave their room to another
 *	disk's allocation (those rings are not in the source).
 * @reserved: zero.
 */
struct iotrace_room {
	uint32_t flags;
	uint32_t refused;
	uint32_t evicted;
	uint32_t reserved[5];
};

/**
 * iotrace_source_room() - what the persistent region of a previous
 *	boot's source had no room for.
 * @src: the handle, open.
 * @room: filled when the source is a previous boot's (as
 *	iotrace_source_boot() says it), zeroed when it is not.
 *
 * A count the source does not hold has its flag clear and reads 0: no
 * room was refused is @flags & IOTRACE_ROOM_REFUSED with @refused 0.
 *
 * Return: 1 when the source is a previous boot's, 0 when it is not, or
 * -1 (iotrace_source_error() says why).
 */
int iotrace_source_room(struct iotrace_source *src, struct iotrace_room *room);

#ifdef __cplusplus
}
#endif

#endif /* IOTRACE_LIBIOTRACE_H */
