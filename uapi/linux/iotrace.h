/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * iotrace - per-disk I/O flight recorder: user-space ABI.
 *
 * This header is the whole contract between the iotrace kernel module and
 * any reader of its rings (debugfs <disk>/ring) or of the trace files that
 * iotracectl writes.  Everything here is fixed-width and little-endian.
 *
 * Ring geometry, ABI 2.0 (one ring per traced disk, or per NVMe controller
 * for admin commands; Documentation/abi.rst):
 *
 *   offset 0            struct iotrace_ring_hdr    (hdr_size bytes)
 *   cpu_hdr_offset      struct iotrace_cpu_hdr     x nr_cpus, cpu_hdr_size
 *                       bytes apart (one cache line each)
 *   chunk_hdr_offset    struct iotrace_chunk_hdr   x nr_chunks,
 *                       chunk_hdr_size bytes apart
 *   data_offset         chunk 0, chunk 1, ...: chunk j starts at
 *                       data_offset + j * chunk_stride and holds
 *                       chunk_records records of record_size bytes
 *
 * The chunks are a pool shared by all CPUs: each CPU writes into its current
 * chunk and, when it is full, takes the chunk of the pool taken longest ago
 * that no CPU is writing.  A chunk header names the CPU that writes it and
 * the CPU sequence number of its slot 0 (first_seq); every CPU numbers its
 * records 0, 1, 2, ... contiguously.  A reader never hard-codes any of
 * these numbers: it takes them from the header.
 *
 * Publication: the record with CPU sequence number S is in slot
 * S - first_seq of its chunk.  The writer first stores ~S (low 32 bits) in
 * the slot's @seq, then the body, then (store-release) S.  A reader reads
 * the chunk header's @seq (load-acquire), copies a slot, reads the slot's
 * @seq before (load-acquire) and after the copy, keeps the copy only when
 * both equal the low 32 bits of first_seq + slot, and finally checks that
 * the chunk header's @seq did not change.  Anything else is a torn,
 * not-yet-written, overwritten or recycled record.
 *
 * ABI 1.x rings (struct iotrace_ring_hdr_v1: one part per possible CPU)
 * and trace files of 1.x records (struct iotrace_record_v1) are still
 * described here, for readers of old rings and files.
 */
#ifndef _UAPI_LINUX_IOTRACE_H
#define _UAPI_LINUX_IOTRACE_H

#include <linux/types.h>
#include <linux/ioctl.h>

/* "IOTR" little-endian */
#define IOTRACE_RING_MAGIC	0x52544f49U
#define IOTRACE_ABI_MAJOR	2
#define IOTRACE_ABI_MINOR	1
/* The previous major: rings of struct iotrace_ring_hdr_v1. */
#define IOTRACE_ABI_MAJOR_V1	1

#define IOTRACE_NAME_LEN	32
#define IOTRACE_CMD_LEN		64

/*
 * ABI 1.x: value of iotrace_record_v1.seq while the slot is being written.
 * ABI 2.0 writes ~seq instead (IOTRACE_SEQ_BUSY(seq)), which never equals a
 * sequence number a reader may expect in that slot.
 */
#define IOTRACE_SEQ_BUSY_V1	0xffffffffU
#define IOTRACE_SEQ_BUSY(seq)	(~(__u32)(seq))

/**
 * enum iotrace_op - operation of a request, iotrace's own encoding.
 *
 * Never the kernel's REQ_OP_* numbers, which differ between kernels.
 */
enum iotrace_op {
	IOTRACE_OP_READ		= 0,
	IOTRACE_OP_WRITE	= 1,
	IOTRACE_OP_FLUSH	= 2,
	IOTRACE_OP_DISCARD	= 3,
	IOTRACE_OP_SECURE_ERASE	= 4,
	IOTRACE_OP_WRITE_ZEROES	= 5,
	IOTRACE_OP_ZONE_OPEN	= 6,
	IOTRACE_OP_ZONE_CLOSE	= 7,
	IOTRACE_OP_ZONE_FINISH	= 8,
	IOTRACE_OP_ZONE_APPEND	= 9,
	IOTRACE_OP_ZONE_RESET	= 10,
	IOTRACE_OP_ZONE_RESET_ALL = 11,
	IOTRACE_OP_DRV_IN	= 12,	/* passthrough, device to host (and SCSI_IN < 5.14) */
	IOTRACE_OP_DRV_OUT	= 13,	/* passthrough, host to device (and SCSI_OUT) */
	IOTRACE_OP_UNKNOWN	= 255,
};

/* iotrace_record.opflags: request modifiers, iotrace's own encoding. */
#define IOTRACE_OPF_SYNC	(1U << 0)
#define IOTRACE_OPF_META	(1U << 1)
#define IOTRACE_OPF_PRIO	(1U << 2)
#define IOTRACE_OPF_NOMERGE	(1U << 3)
#define IOTRACE_OPF_IDLE	(1U << 4)
#define IOTRACE_OPF_FUA		(1U << 5)
#define IOTRACE_OPF_PREFLUSH	(1U << 6)
#define IOTRACE_OPF_RAHEAD	(1U << 7)
#define IOTRACE_OPF_BACKGROUND	(1U << 8)
#define IOTRACE_OPF_NOWAIT	(1U << 9)
#define IOTRACE_OPF_POLLED	(1U << 10)
#define IOTRACE_OPF_NOUNMAP	(1U << 11)

/* iotrace_record.rflags: what the record knows about its request. */
#define IOTRACE_RF_COMPLETE	(1U << 0)  /* completion seen */
#define IOTRACE_RF_ERROR	(1U << 1)  /* error != 0 or device error */
#define IOTRACE_RF_TIMEOUT	(1U << 2)  /* the request timed out */
#define IOTRACE_RF_REQUEUED	(1U << 3)  /* requeued/retried at least once */
#define IOTRACE_RF_PASSTHRU	(1U << 4)  /* passthrough (DRV_IN/OUT) */
#define IOTRACE_RF_CMD_VALID	(1U << 5)  /* cmd[] holds the command */
#define IOTRACE_RF_CMD_TRUNC	(1U << 6)  /* command longer than cmd[] */
#define IOTRACE_RF_NO_ISSUE	(1U << 7)  /* issue not seen: times partial */
#define IOTRACE_RF_QUEUE_VALID	(1U << 8)  /* queue_ns is meaningful */
#define IOTRACE_RF_STATUS_VALID	(1U << 9)  /* dev_status/dev_result set */
#define IOTRACE_RF_ADMIN	(1U << 10) /* controller admin queue */
#define IOTRACE_RF_QUEUE_SAT	(1U << 11) /* queue_ns saturated at U32_MAX */
/*
 * The block layer's flush machinery (a volatile write cache) carried out
 * this write's REQ_PREFLUSH before its data, or emulated its REQ_FUA
 * (no FUA support) with a flush after it; each of those flushes is a
 * FLUSH record of its own.  The record is the data phase.
 */
#define IOTRACE_RF_PREFLUSH	(1U << 12) /* a flush before it was its */
#define IOTRACE_RF_POSTFLUSH	(1U << 13) /* a flush after it was its */
/* ABI 2.0: no user submitter, the kernel's own I/O (pid is 0). */
#define IOTRACE_RF_KERNEL	(1U << 14)
/*
 * ABI 2.0: this completion fired a trigger of its disk
 * (IOTRACE_CMD_SET_TRIGGER; its IOTRACE_CMD_EVT_TRIGGER names the record).
 */
#define IOTRACE_RF_TRIGGER	(1U << 15)

/**
 * enum iotrace_cmd_type - what iotrace_record.cmd holds.
 * @IOTRACE_CMD_NONE: no command captured.
 * @IOTRACE_CMD_NVME: 64-byte NVMe submission queue entry, little-endian as
 *	sent, with the metadata pointer (bytes 16-23) and the data pointer
 *	(bytes 24-39) zeroed.
 * @IOTRACE_CMD_SCSI: SCSI CDB, cmd_len bytes (6 to 32).
 * @IOTRACE_CMD_ATA: ATA taskfile, struct iotrace_ata_tf.
 */
enum iotrace_cmd_type {
	IOTRACE_CMD_NONE	= 0,
	IOTRACE_CMD_NVME	= 1,
	IOTRACE_CMD_SCSI	= 2,
	IOTRACE_CMD_ATA		= 3,
};

/**
 * struct iotrace_ata_tf - ATA taskfile as issued (cmd[] for IOTRACE_CMD_ATA).
 * @command: ATA command register.
 * @feature: features (7:0).
 * @hob_feature: features (15:8).
 * @device: device register.
 * @protocol: libata protocol (ATA_PROT_*).
 * @flags: libata taskfile flags (ATA_TFLAG_*), low 8 bits.
 * @count: sector count, 16 bits (LBA48 high byte included).
 * @lba: LBA, 48 bits.
 */
struct iotrace_ata_tf {
	__u8	command;
	__u8	feature;
	__u8	hob_feature;
	__u8	device;
	__u8	protocol;
	__u8	flags;
	__u16	count;
	__u64	lba;
};

/**
 * struct iotrace_record - one request, issue and completion together
 *	(ABI 2.0).
 * @seq: low 32 bits of the record's CPU sequence number; written last, with
 *	release semantics.  IOTRACE_SEQ_BUSY(seq) while the slot is being
 *	written.  Sequence numbers are contiguous per CPU (0, 1, 2, ...); the
 *	CPU is the one named by the chunk header.
 * @bytes: bytes of the request (data length; 0 for a flush).
 * @issue_ns: CLOCK_MONOTONIC ns when the request was (last) issued to the
 *	driver; for an empty PREFLUSH write (WRITE, 0 bytes,
 *	IOTRACE_RF_NO_ISSUE and IOTRACE_RF_PREFLUSH), never issued itself,
 *	its allocation time (0: unknown).
 * @complete_ns: CLOCK_MONOTONIC ns when the request completed.
 * @sector: start sector, 512-byte units.
 * @queue_ns: ns from the request's allocation to its first issue; valid if
 *	IOTRACE_RF_QUEUE_VALID, saturated at U32_MAX (IOTRACE_RF_QUEUE_SAT).
 * @dev_status: device-level status, by @cmd_type: NVMe - the 15-bit status
 *	field of the completion (SC bits 7:0, SCT 10:8, CRD 12:11, M 13,
 *	DNR 14); SCSI - status byte 7:0, sense key 11:8, ASC 23:16,
 *	ASCQ 31:24; ATA - status register 7:0, error register 15:8.
 *	Valid if IOTRACE_RF_STATUS_VALID.
 * @dev_result: NVMe completion dword 0; 0 otherwise.
 * @error: block-layer status as a negative errno, 0 for success.
 * @rflags: IOTRACE_RF_* bits.
 * @opflags: IOTRACE_OPF_* bits.
 * @issue_cpu: CPU that issued the request.
 * @hwq: hardware queue index.
 * @tag: driver tag.
 * @op: enum iotrace_op.
 * @retries: times the request was requeued (saturates at 255).
 * @cmd_type: enum iotrace_cmd_type.
 * @cmd_len: valid bytes in @cmd (never covering IOTRACE_CMD_CGROUP_OFF
 *	for SCSI and ATA).
 * @pid: thread group id of the submitter (initial PID namespace), 0 when
 *	unknown; 0 with IOTRACE_RF_KERNEL for the kernel's own I/O.
 * @cmd: the command as given to the device, see enum iotrace_cmd_type;
 *	bytes IOTRACE_CMD_CGROUP_OFF .. + 7 hold the submitter's cgroup id
 *	(little-endian u64, 0 when unknown).
 */
struct iotrace_record {
	__u32	seq;
	__u32	bytes;
	__u64	issue_ns;
	__u64	complete_ns;
	__u64	sector;
	__u32	queue_ns;
	__u32	dev_status;
	__u32	dev_result;
	__s16	error;
	__u16	rflags;
	__u16	opflags;
	__u16	issue_cpu;
	__u16	hwq;
	__u16	tag;
	__u8	op;
	__u8	retries;
	__u8	cmd_type;
	__u8	cmd_len;
	__u32	pid;
	__u8	cmd[IOTRACE_CMD_LEN];
};

/*
 * ABI 2.0: offset in iotrace_record.cmd of the cgroup id (cgroup_id() of
 * the default-hierarchy cgroup), 8 bytes, little-endian.  A SCSI CDB is
 * kept to its first IOTRACE_CMD_CGROUP_OFF bytes; an ATA taskfile is 16
 * bytes; in an NVMe entry these bytes are PRP2, which iotrace zeroes.
 */
#define IOTRACE_CMD_CGROUP_OFF	32

/*
 * In the ring of an NVMe multipath head (IOTRACE_RING_MPATH_HEAD): offset
 * in iotrace_record.cmd of the path that served the request, 4 bytes,
 * little-endian: 1 + the instance number of its controller (N of the
 * path disk nvmeXcNnY, of /dev/nvmeN), 0 when unknown.  These are the
 * NVMe entry's metadata pointer bytes, which iotrace zeroes; every other
 * ring leaves them as the command has them.
 */
#define IOTRACE_CMD_PATH_OFF	16

/**
 * struct iotrace_record_v1 - one request, issue and completion together
 *	(ABI 1.x layout, for readers of old rings and files).
 * @seq: low 32 bits of the record's part sequence number; written last, with
 *	release semantics.  IOTRACE_SEQ_BUSY_V1 while the slot is being written.
 *	Sequence numbers are contiguous within a part (0, 1, 2, ...).
 * @bytes: bytes of the request (data length; 0 for a flush).
 * @issue_ns: CLOCK_MONOTONIC ns when the request was issued to the driver.
 * @complete_ns: CLOCK_MONOTONIC ns when the request completed.
 * @sector: start sector, 512-byte units.
 * @queue_ns: ns from queue entry (request allocation) to issue; valid if
 *	IOTRACE_RF_QUEUE_VALID, saturated at U32_MAX (IOTRACE_RF_QUEUE_SAT).
 * @dev_status: device-level status, by @cmd_type: NVMe - the 15-bit status
 *	field of the completion (SC bits 7:0, SCT 10:8, CRD 12:11, M 13,
 *	DNR 14); SCSI - status byte 7:0, sense key 11:8, ASC 23:16,
 *	ASCQ 31:24; ATA - status register 7:0, error register 15:8.
 *	Valid if IOTRACE_RF_STATUS_VALID.
 * @dev_result: NVMe completion dword 0; 0 otherwise.
 * @error: block-layer status as a negative errno, 0 for success.
 * @rflags: IOTRACE_RF_* bits.
 * @opflags: IOTRACE_OPF_* bits.
 * @issue_cpu: CPU that issued the request.
 * @complete_cpu: CPU that completed it (and owns the part holding it).
 * @hwq: hardware queue index.
 * @tag: driver tag.
 * @op: enum iotrace_op.
 * @retries: times the request was requeued (saturates at 255).
 * @cmd_type: enum iotrace_cmd_type.
 * @cmd_len: valid bytes in @cmd.
 * @reserved: zero.
 * @cmd: the command as given to the device, see enum iotrace_cmd_type.
 */
struct iotrace_record_v1 {
	__u32	seq;
	__u32	bytes;
	__u64	issue_ns;
	__u64	complete_ns;
	__u64	sector;
	__u32	queue_ns;
	__u32	dev_status;
	__u32	dev_result;
	__s16	error;
	__u16	rflags;
	__u16	opflags;
	__u16	issue_cpu;
	__u16	complete_cpu;
	__u16	hwq;
	__u16	tag;
	__u8	op;
	__u8	retries;
	__u8	cmd_type;
	__u8	cmd_len;
	__u16	reserved;
	__u8	cmd[IOTRACE_CMD_LEN];
};

#define IOTRACE_RECORD_SIZE	128

/* iotrace_ring_hdr.flags */
#define IOTRACE_RING_ENABLED	(1U << 0)  /* tracing on */
#define IOTRACE_RING_DETACHED	(1U << 1)  /* disk gone: ring is final */
#define IOTRACE_RING_CONTROLLER	(1U << 2)  /* ring of a controller's admin queue */
/* buf_size 0: headers only, no chunk (nr_chunks 0): in-kernel metrics only */
#define IOTRACE_RING_METRICS_ONLY	(1U << 3)
/*
 * The ring of an NVMe multipath head (nvmeXnY): the records of the
 * requests its paths (the hidden disks nvmeXcNnY) served, each naming its
 * path at IOTRACE_CMD_PATH_OFF.
 */
#define IOTRACE_RING_MPATH_HEAD	(1U << 4)

/**
 * struct iotrace_ring_hdr - first bytes of every ring (debugfs <disk>/ring
 *	and /dev/iotrace/<disk>), ABI 2.0.  Up to @name, the same offsets and
 *	sizes as struct iotrace_ring_hdr_v1.
 * @magic: IOTRACE_RING_MAGIC.
 * @abi_major: IOTRACE_ABI_MAJOR; a reader refuses a major it does not know.
 * @abi_minor: IOTRACE_ABI_MINOR; fields are only ever added at the end.
 * @hdr_size: size of this header in the ring (a page).
 * @record_size: bytes per record (>= sizeof(struct iotrace_record)).
 * @nr_cpus: number of CPU headers (one per possible CPU).
 * @chunk_records: records per chunk, a power of two, at least 32.
 * @cpu_hdr_size: bytes between two CPU headers.
 * @flags: IOTRACE_RING_* bits.
 * @cpu_hdr_offset: offset of CPU 0's struct iotrace_cpu_hdr.
 * @data_offset: offset of chunk 0's first record.
 * @chunk_stride: bytes between two chunks' first records.
 * @ring_size: total bytes of the mapping.
 * @generation: incremented by every clear; a reader that sees it change
 *	restarts.
 * @logical_block_size: of the disk, bytes.
 * @dev_major: device number of the disk.
 * @dev_minor: device number of the disk.
 * @nr_chunks: chunks in the pool; 0 with IOTRACE_RING_METRICS_ONLY (no
 *	record is kept: the disk has its in-kernel metrics only).
 * @created_ns: CLOCK_MONOTONIC ns when the ring was created.
 * @enabled_ns: CLOCK_MONOTONIC ns when tracing was last enabled.
 * @name: disk (or controller) name, NUL-terminated.
 * @chunk_hdr_offset: offset of chunk 0's struct iotrace_chunk_hdr.
 * @chunk_hdr_size: bytes between two chunk headers.
 * @reserved1: zero.
 * @chunks_taken: the pool counter: chunk takes attempted since the disk
 *	got its first ring (a clear does not reset it, a resize carries it
 *	over); the next take tries chunk chunks_taken % nr_chunks first.
 * @hold_lo: 2.1: oldest take number (iotrace_chunk_hdr.seq) held.
 * @hold_hi: 2.1: newest take number held; 0: no hold.  A chunk whose seq
 *	is in hold_lo .. hold_hi is not recycled while the hold lasts
 *	(Documentation/abi.rst, "The hold").
 * @hold_ns: 2.1: CLOCK_MONOTONIC when the hold was set.
 * @reserved: zero; room for minor versions.
 */
struct iotrace_ring_hdr {
	__u32	magic;
	__u16	abi_major;
	__u16	abi_minor;
	__u32	hdr_size;
	__u32	record_size;
	__u32	nr_cpus;
	__u32	chunk_records;
	__u32	cpu_hdr_size;
	__u32	flags;
	__u64	cpu_hdr_offset;
	__u64	data_offset;
	__u64	chunk_stride;
	__u64	ring_size;
	__u64	generation;
	__u32	logical_block_size;
	__u32	dev_major;
	__u32	dev_minor;
	__u32	nr_chunks;
	__u64	created_ns;
	__u64	enabled_ns;
	char	name[IOTRACE_NAME_LEN];
	__u64	chunk_hdr_offset;
	__u32	chunk_hdr_size;
	__u32	reserved1;
	__u64	chunks_taken;
	__u64	hold_lo;
	__u64	hold_hi;
	__u64	hold_ns;
	__u64	reserved[10];
};

/* iotrace_cpu_hdr.cur and the chunk indexes of the writer state: none */
#define IOTRACE_CHUNK_NONE	0xffffffffU

/**
 * struct iotrace_cpu_hdr - per-CPU counters, ABI 2.0.
 * @head: records this CPU ever started (its next CPU sequence number).
 * @dropped: completions on this CPU, while enabled, that could not be
 *	recorded.
 * @filtered: completions on this CPU that the disk's filter left out.
 * @overwritten: records of this CPU's chunks that were recycled (added by
 *	the CPU that took the chunk, chunk_records at a time).
 * @cur: index of the CPU's current chunk, IOTRACE_CHUNK_NONE for none; a
 *	hint for readers.
 * @pending: writer state; readers ignore it.
 * @nest: writer state; readers ignore it.
 * @reserved: zero.
 *
 * For a disk: requests completed while enabled = sum(head) + sum(dropped)
 * + sum(filtered); present = sum(head) - sum(overwritten), less the
 * records still being written.
 */
struct iotrace_cpu_hdr {
	__u64	head;
	__u64	dropped;
	__u64	filtered;
	__u64	overwritten;
	__u32	cur;
	__u32	pending;
	__u64	nest;
	__u64	reserved[2];
};

/**
 * struct iotrace_chunk_hdr - one chunk of the pool, ABI 2.0.
 * @seq: the take number of this chunk's current use (from
 *	iotrace_ring_hdr.chunks_taken, unique for the ring's life): 0 never taken,
 *	all ones while being taken.  Stored last, with release semantics,
 *	when a CPU takes the chunk; a reader reads it (acquire) before and
 *	after copying records and drops the copies when it changed.
 * @first_seq: CPU sequence number of the record in slot 0.
 * @first_ns: CLOCK_MONOTONIC ns when the chunk was taken.
 * @last_ns: completion time of the latest record written into it (a hint).
 * @cpu: the CPU whose records the chunk holds.
 * @state: writer state; readers ignore it.
 * @reserved_slots: writer state; readers ignore it.
 * @refs: writer state; readers ignore it.
 * @next: writer state; readers ignore it.
 * @reserved: zero.
 */
struct iotrace_chunk_hdr {
	__u64	seq;
	__u64	first_seq;
	__u64	first_ns;
	__u64	last_ns;
	__u32	cpu;
	__u32	state;
	__u64	reserved_slots;
	__u64	refs;
	__u32	next;
	__u32	reserved;
};

/**
 * struct iotrace_ring_hdr_v1 - first bytes of an ABI 1.x ring.
 * @magic: IOTRACE_RING_MAGIC.
 * @abi_major: IOTRACE_ABI_MAJOR_V1; a reader refuses a major it does not know.
 * @abi_minor: 0 or 1; fields are only ever added at the end.
 * @hdr_size: size of this header in the ring (a page).
 * @record_size: bytes per record (>= sizeof(struct iotrace_record)).
 * @nr_parts: number of parts (one per possible CPU).
 * @part_records: records per part, a power of two.
 * @part_hdr_size: bytes between two part headers.
 * @part_hdr_offset: offset of part 0's struct iotrace_part_hdr_v1.
 * @data_offset: offset of part 0's first record.
 * @part_stride: bytes between two parts' first records.
 * @ring_size: total bytes of the mapping.
 * @flags: IOTRACE_RING_* bits.
 * @generation: incremented by every clear; a reader that sees it change
 *	restarts from the part heads.
 * @logical_block_size: of the disk, bytes.
 * @dev_major: device number of the disk.
 * @dev_minor: device number of the disk.
 * @created_ns: CLOCK_MONOTONIC ns when the ring was created.
 * @enabled_ns: CLOCK_MONOTONIC ns when tracing was last enabled.
 * @name: disk (or controller) name, NUL-terminated.
 * @reserved: zero; room for minor versions.
 */
struct iotrace_ring_hdr_v1 {
	__u32	magic;
	__u16	abi_major;
	__u16	abi_minor;
	__u32	hdr_size;
	__u32	record_size;
	__u32	nr_parts;
	__u32	part_records;
	__u32	part_hdr_size;
	__u32	flags;
	__u64	part_hdr_offset;
	__u64	data_offset;
	__u64	part_stride;
	__u64	ring_size;
	__u64	generation;
	__u32	logical_block_size;
	__u32	dev_major;
	__u32	dev_minor;
	__u32	reserved0;
	__u64	created_ns;
	__u64	enabled_ns;
	char	name[IOTRACE_NAME_LEN];
	__u64	reserved[16];
};

/**
 * struct iotrace_part_hdr_v1 - per-part counters of an ABI 1.x ring.
 * @head: records ever started in this part (the next sequence number).
 *	Records head - part_records .. head - 1 may be present.
 * @dropped: requests completed while enabled that could not be recorded.
 * @filtered: requests completed while enabled that the disk's filter left
 *	out (ABI minor 1; zero before).
 * @reserved: zero.
 *
 * Overwritten records of a part: max(0, head - part_records).
 * For a disk: requests completed while enabled = sum(head) + sum(dropped)
 * + sum(filtered), and present = sum(head) - overwritten.
 */
struct iotrace_part_hdr_v1 {
	__u64	head;
	__u64	dropped;
	__u64	filtered;
	__u64	reserved[5];
};

/*
 * ---------------------------------------------------------------------------
 * Trace file format (written by "iotracectl record", read by every reader).
 *
 *   offset 0           struct iotrace_file_hdr
 *   disk_offset        struct iotrace_file_disk x nr_disks, disk_size apart
 *   hdr_size           chunks, back to back, each a struct iotrace_file_chunk
 *                      followed by payload_size bytes:
 *                        IOTRACE_CHUNK_RECORDS: nr_records records of
 *                          the chunk's record_size bytes (major 1: the
 *                          header's), part sequence numbers
 *                          first_seq .. first_seq + nr_records - 1 of
 *                          (disk, part); a gap between two chunks of the
 *                          same (disk, part) is provable loss.
 *                        IOTRACE_CHUNK_COMMS (minor 2): nr_records
 *                          struct iotrace_file_comm entries,
 *                          payload_size / nr_records bytes apart: the
 *                          command names of submitters, written before the
 *                          records that name their pids.
 *                        IOTRACE_CHUNK_TRAILER: struct iotrace_file_trailer
 *                          then nr_disks x struct iotrace_file_counts,
 *                          counts_size apart.  Always the last chunk; a file
 *                          without it is truncated.
 *                      A reader skips chunks of a type it does not know.
 *
 * A reader refuses a file whose major it does not know; a newer minor
 * only ever adds fields at the end of structures (hdr_size, disk_size,
 * record_size, counts_size and the chunk hdr_size grow), so a reader steps
 * by the sizes stated in the file.  All sizes and offsets are multiples
 * of 8.
 *
 * Major 2 is major 1 minor 2 with shorter records: a record is laid out
 * as its 1.x record's first 64 bytes (IOTRACE_FILE_REC_HEAD), then struct
 * iotrace_file_rec_ext, then the 1.x record's command (IOTRACE_CMD_LEN
 * bytes, at IOTRACE_FILE_REC_CMD_OFF), record_size bytes in all; and a
 * records chunk states its own record size (iotrace_file_chunk
 * .record_size): each of its records is the first that many bytes of the
 * record, every byte after them zero.  A record without a command and
 * with a submitter is 80 bytes where major 1 needs 144.
 *
 * Checksums (minor 2, IOTRACE_FILE_CRC32C in the header's flags): every
 * chunk's header is at least 40 bytes and its crc field holds the CRC-32C
 * (Castagnoli, reflected polynomial 0x82f63b78, initial value and final
 * xor 0xffffffff: crc32c("123456789") = 0xe3069283) of the chunk's
 * hdr_size header bytes, the crc field taken as zero, followed by its
 * payload_size payload bytes.  A chunk whose checksum does not match is
 * damaged: a reader skips it and says so.  Files without the flag (minor
 * 0 and 1) have no checksum.
 * ---------------------------------------------------------------------------
 */
#define IOTRACE_FILE_MAGIC	"\x89IOTRC\r\n"	/* 8 bytes, no NUL */
#define IOTRACE_FILE_MAGIC_LEN	8
#define IOTRACE_FILE_MAJOR	2
#define IOTRACE_FILE_MINOR	0
#define IOTRACE_FILE_STR_LEN	128

/* iotrace_file_chunk.magic: "CHNK" and "TRLR", little-endian */
#define IOTRACE_CHUNK_RECORDS	0x4b4e4843U
#define IOTRACE_CHUNK_TRAILER	0x524c5254U
#define IOTRACE_CHUNK_COMMS	0x4d4d4f43U	/* "COMM", file minor 2 */

/* iotrace_file_hdr.flags */
#define IOTRACE_FILE_CRC32C	0x1U	/* every chunk has its crc (minor 2) */

/*
 * File major 1 minor 2: a record in a records chunk is a struct
 * iotrace_record_v1 followed by struct iotrace_file_rec_ext (record_size
 * >= 144); a reader of minor 0 or 1 files takes pid and cgroup as
 * unknown.  Major 2 holds the same 144 bytes in another order (see the
 * format above).
 */
#define IOTRACE_FILE_RECORD_SIZE	144

/*
 * File major 2: the record's layout (its 1.x fields before the submitter,
 * its command after it) and the shortest record a records chunk may hold.
 */
#define IOTRACE_FILE_REC_HEAD		64
#define IOTRACE_FILE_REC_EXT_OFF	64
#define IOTRACE_FILE_REC_CMD_OFF	80

/**
 * struct iotrace_file_rec_ext - what a trace file (minor 2) adds to each
 *	1.x record, at offset 128 (major 2: IOTRACE_FILE_REC_EXT_OFF).
 * @pid: iotrace_record.pid of the 2.x record (0: unknown or the kernel's
 *	own I/O, see IOTRACE_RF_KERNEL).
 * @reserved: zero.
 * @cgroup: the cgroup id of the 2.x record (0: unknown).
 */
struct iotrace_file_rec_ext {
	__u32	pid;
	__u32	reserved;
	__u64	cgroup;
};

/**
 * struct iotrace_file_comm - one entry of an IOTRACE_CHUNK_COMMS chunk.
 * @pid: thread group id.
 * @reserved: zero.
 * @comm: its command name when the kernel first saw it submit I/O,
 *	NUL-padded (not always NUL-terminated).
 *
 * A later entry for the same pid (a pid reused, or a process that changed
 * its name) replaces an earlier one.
 */
struct iotrace_file_comm {
	__u32	pid;
	__u32	reserved;
	char	comm[16];
};

/*
 * File minor 2: snapshots of "iotracectl watch" (issue 21).
 *
 * IOTRACE_CHUNK_TRIGGER: one struct iotrace_file_trigger (payload_size
 * bytes; a newer minor may make it longer) per disk of a snapshot, the
 * chunk's @disk naming the disk; nr_records, part and first_seq are zero.
 * Written after the records, before the trailer.  A reader that does not
 * know the chunk skips it: the file is an ordinary trace file.
 */
#define IOTRACE_CHUNK_TRIGGER	0x47495254U	/* "TRIG", file minor 2 */

/* iotrace_file_trigger.reason: the kernel's IOTRACE_TRIG_* bits (0-15) */
#define IOTRACE_FILE_TRIG_KERNEL	0x0000ffffU
/* iotrace_file_trigger.reason: SIGUSR1 or "iotracectl snapshot" */
#define IOTRACE_FILE_TRIG_MANUAL	(1U << 16)
/*
 * iotrace_file_trigger.reason: the module sent trigger events of the disk
 * that the watcher's event socket dropped (it overflowed); their reasons
 * and records are not known.
 */
#define IOTRACE_FILE_TRIG_LOST		(1U << 17)

/* iotrace_file_trigger.flags */
#define IOTRACE_FILE_TRIGF_SEQ		(1U << 0) /* @cpu and @seq are known */
#define IOTRACE_FILE_TRIGF_POST_CUT	(1U << 1) /* stopped before @post_ns */
#define IOTRACE_FILE_TRIGF_QUEUED	(1U << 2) /* waited for the previous snapshot to be saved */

/* iotrace_file_trigger.th_flags: the conditions set besides latency */
#define IOTRACE_FILE_TH_ERROR		(1U << 0)
#define IOTRACE_FILE_TH_DEVSTATUS	(1U << 1)
#define IOTRACE_FILE_TH_TIMEOUT		(1U << 2)

#define IOTRACE_FILE_ID_LEN		128
#define IOTRACE_FILE_TH_ERRNOS		8

/*
 * File minor 2: the requests in flight when the trace ends (written for a
 * previous boot's persistent region, whose in-flight tables survive it,
 * and by "iotracectl record" and the snapshot service from
 * IOTRACE_IOC_INFLIGHT as a recording or snapshot ends: a stuck request
 * has no record yet).
 *
 * IOTRACE_CHUNK_INFLIGHT: one per disk that had a request in flight (or a
 * slot being written), the chunk's @disk naming it and @nr_records the
 * requests; part and first_seq are zero.  The payload is one struct
 * iotrace_file_inflight, then @nr_records records of the file's
 * record_size bytes at its @rec_offset, oldest issue first, each as its
 * completion would have written it without complete_ns and
 * IOTRACE_RF_COMPLETE (seq 0).  Written after the records, before the
 * trailer.  A reader that does not know the chunk skips it.
 */
#define IOTRACE_CHUNK_INFLIGHT	0x544c4649U	/* "IFLT", file minor 2 */

/**
 * struct iotrace_file_inflight - payload header of an IOTRACE_CHUNK_INFLIGHT
 *	chunk.
 * @at_ns: CLOCK_MONOTONIC ns the requests were still in flight at (the
 *	newest time known of that boot: its clock anchor or its newest
 *	completion; a recording's or snapshot's: when the module
 *	collected them): a
 *	request's age is @at_ns - issue_ns.
 * @torn: slots of the disk that were being written when it stopped:
 *	counted, not given.
 * @rec_offset: offset of the first record from the start of the payload.
 * @reserved: zero.
 */
struct iotrace_file_inflight {
	__u64	at_ns;
	__u32	torn;
	__u32	rec_offset;
	__u64	reserved[2];
};

/*
 * File minor 2: who the disk is.
 *
 * IOTRACE_CHUNK_IDENT: one struct iotrace_file_ident (payload_size bytes;
 * a newer minor may make it longer) for a disk whose identity the writer
 * knew (a previous boot's region keeps it), the chunk's @disk naming it;
 * nr_records, part and first_seq are zero.  Written before the first
 * records chunk.  A reader that does not know the chunk skips it.
 */
#define IOTRACE_CHUNK_IDENT	0x544e4449U	/* "IDNT", file minor 2 */

/**
 * struct iotrace_file_ident - payload of an IOTRACE_CHUNK_IDENT chunk.
 * @sectors: the disk's capacity in 512-byte sectors (0: unknown).
 * @reserved0: zero.
 * @model: its model (sysfs), NUL-terminated, "" if unknown.
 * @serial: its serial number, the same.
 * @wwn: its world wide name (sysfs wwid), the same.
 * @reserved: zero.
 */
struct iotrace_file_ident {
	__u64	sectors;
	__u64	reserved0;
	char	model[IOTRACE_FILE_ID_LEN];
	char	serial[IOTRACE_FILE_ID_LEN];
	char	wwn[IOTRACE_FILE_ID_LEN];
	__u64	reserved[4];
};

/*
 * File minor 2: the boot the records come from, when it is not the
 * writer's: a previous boot's persistent region ("iotracectl previous
 * -o", what iotrace.service saves at start).
 *
 * IOTRACE_CHUNK_BOOT: one struct iotrace_file_boot (payload_size bytes;
 * a newer minor may make it longer); disk, nr_records, part and
 * first_seq are zero.  Written once, after the records.  A file without
 * it holds records of the boot that wrote it.
 */
#define IOTRACE_CHUNK_BOOT	0x544f4f42U	/* "BOOT", file minor 2 */

/* iotrace_file_boot.flags */
#define IOTRACE_FILE_BOOT_PANICKED	0x1U	/* that boot ended in a panic */
/* @refused is known (written from a region) */
#define IOTRACE_FILE_BOOT_REFUSED	0x2U
/* @evicted is known (a region of layout 1.4 and later) */
#define IOTRACE_FILE_BOOT_EVICTED	0x4U

/**
 * struct iotrace_file_boot - payload of an IOTRACE_CHUNK_BOOT chunk.
 * @boot_id: that boot's /proc/sys/kernel/random/boot_id, 16 bytes.
 * @flags: IOTRACE_FILE_BOOT_* bits.
 * @reserved0: zero.
 * @first_ns: CLOCK_MONOTONIC ns (that boot's) of the oldest completion
 *	the file holds; 0 without records.
 * @last_ns: the same of the newest completion.
 * @refused: with IOTRACE_FILE_BOOT_REFUSED: allocations of that boot's
 *	region that found no room (iotrace_preg_hdr.refused): disks not
 *	kept in it, resizes refused.
 * @evicted: with IOTRACE_FILE_BOOT_EVICTED: rings of removed disks its
 *	region cleared to make room (iotrace_preg_hdr.evicted).
 * @reserved: zero.
 *
 * The header's anchor is that boot's last clock anchor (its time of day
 * at @first_ns is anchor_real_ns - (anchor_mono_ns - @first_ns)), its
 * release that boot's.
 */
struct iotrace_file_boot {
	__u8	boot_id[16];
	__u32	flags;
	__u32	reserved0;
	__u64	first_ns;
	__u64	last_ns;
	__u32	refused;
	__u32	evicted;
	__u64	reserved[2];
};

/**
 * struct iotrace_file_trigger - payload of an IOTRACE_CHUNK_TRIGGER chunk:
 *	why a snapshot of a disk was taken, and which disk it is.
 * @reason: IOTRACE_FILE_TRIG_* bits of the episode's first trigger.
 * @flags: IOTRACE_FILE_TRIGF_*.
 * @cpu: the CPU whose sequence numbers @seq counts (IOTRACE_FILE_TRIGF_SEQ).
 * @extra: further triggers of the disk that joined this snapshot's
 *	episode (within @episode_ns of its first, or while it was queued).
 * @seq: the triggering record's sequence number (IOTRACE_FILE_TRIGF_SEQ;
 *	0 for a manual trigger).
 * @mono_ns: CLOCK_MONOTONIC ns of the trigger (the kernel's time of the
 *	completion for a kernel trigger), the records' clock.
 * @real_ns: CLOCK_REALTIME ns of the same moment.
 * @save_mono_ns: CLOCK_MONOTONIC ns when the copy of the ring began.
 * @post_ns: how long records were taken after the trigger (asked).
 * @episode_ns: the episode window in force.
 * @number: this snapshot's ordinal among those the watcher saved.
 * @lat_ns: latency thresholds in force per enum iotrace_mop (0: none).
 * @th_flags: IOTRACE_FILE_TH_* conditions in force.
 * @requeues: requeue threshold in force (0: none).
 * @stuck_ns: in-flight age threshold in force (0: none).
 * @errnos: errnos of the error condition (0-terminated; none: any errno).
 * @model: the disk's model (sysfs), NUL-terminated, "" if unknown.
 * @serial: its serial number, the same.
 * @wwn: its world wide name (sysfs wwid), the same.
 * @reserved: zero.
 */
struct iotrace_file_trigger {
	__u32	reason;
	__u32	flags;
	__u32	cpu;
	__u32	extra;
	__u64	seq;
	__u64	mono_ns;
	__u64	real_ns;
	__u64	save_mono_ns;
	__u64	post_ns;
	__u64	episode_ns;
	__u64	number;
	__u64	lat_ns[5];
	__u32	th_flags;
	__u32	requeues;
	__u64	stuck_ns;
	__u32	errnos[IOTRACE_FILE_TH_ERRNOS];
	char	model[IOTRACE_FILE_ID_LEN];
	char	serial[IOTRACE_FILE_ID_LEN];
	char	wwn[IOTRACE_FILE_ID_LEN];
	__u64	reserved[4];
};

/*
 * File minor 2: stacked devices (issue 49).
 *
 * IOTRACE_CHUNK_STACK: the block devices above the traced disks as
 * "iotracectl record" read them (device-mapper tables, md RAID1 layouts,
 * partitions): one struct iotrace_file_stack, then @nr_devs struct
 * iotrace_file_stack_dev at @dev_offset (@dev_size apart) and @nr_segs
 * struct iotrace_file_stack_seg at @seg_offset (@seg_size apart), offsets
 * from the start of the payload.  The chunk's disk, part, nr_records and
 * first_seq are zero.  Written before the first records chunk and again
 * whenever the tables change; each is in force from its @mono_ns on.  A
 * reader that does not know the chunk skips it; one that knows it reads
 * a @version it knows (and the fields it knows of larger entries).
 */
#define IOTRACE_CHUNK_STACK	0x4b435453U	/* "STCK", file minor 2 */
#define IOTRACE_STACK_VERSION	1

/* iotrace_file_stack_dev.kind */
#define IOTRACE_STACK_DISK	1	/* a whole disk */
#define IOTRACE_STACK_PART	2	/* a partition */
#define IOTRACE_STACK_DM	3	/* a device-mapper device */
#define IOTRACE_STACK_MD	4	/* an md array */

/* iotrace_file_stack_seg.type: how @lower's sectors map to @upper's */
#define IOTRACE_STACK_SEG_PART		1	/* partition on its disk */
#define IOTRACE_STACK_SEG_LINEAR	2	/* dm linear */
#define IOTRACE_STACK_SEG_CRYPT		3	/* dm crypt */
#define IOTRACE_STACK_SEG_RAID1		4	/* md RAID1 member */

/* iotrace_file_stack.source: how the tables were read */
#define IOTRACE_STACK_SRC_SYSFS		(1U << 0) /* /sys/block: md, partitions */
#define IOTRACE_STACK_SRC_DM_IOCTL	(1U << 1) /* DM_TABLE_STATUS ioctl */
#define IOTRACE_STACK_SRC_DM_FAILED	(1U << 2) /* dm devices, no tables */

#define IOTRACE_STACK_NAME_LEN		128

/**
 * struct iotrace_file_stack - payload header of an IOTRACE_CHUNK_STACK chunk.
 * @version: IOTRACE_STACK_VERSION; a reader skips a version it does not know.
 * @source: IOTRACE_STACK_SRC_* bits.
 * @mono_ns: CLOCK_MONOTONIC ns when the tables were read.
 * @nr_devs: device entries.
 * @dev_size: bytes between two device entries (at least 200).
 * @dev_offset: offset of the first device entry in the payload.
 * @nr_segs: segment entries.
 * @seg_size: bytes between two segment entries (at least 64).
 * @seg_offset: offset of the first segment entry in the payload.
 * @reserved: zero.
 */
struct iotrace_file_stack {
	__u32	version;
	__u32	source;
	__u64	mono_ns;
	__u32	nr_devs;
	__u32	dev_size;
	__u32	dev_offset;
	__u32	nr_segs;
	__u32	seg_size;
	__u32	seg_offset;
	__u64	reserved[2];
};

/**
 * struct iotrace_file_stack_dev - one block device of the stack.
 * @kname: the kernel's name (dm-2, md0, sda2, sda), NUL-terminated.
 * @name: device-mapper devices: their name (vg0-data); else empty.
 * @dev_major: device number.
 * @dev_minor: device number.
 * @kind: IOTRACE_STACK_*.
 * @level: md: the RAID level (1 for RAID1; -1 linear, 0 RAID0, ...;
 *	only RAID1 has segments); else 0.
 * @sectors: size in 512-byte sectors.
 * @reserved: zero.
 */
struct iotrace_file_stack_dev {
	char	kname[32];
	char	name[IOTRACE_STACK_NAME_LEN];
	__u32	dev_major;
	__u32	dev_minor;
	__u32	kind;
	__s32	level;
	__u64	sectors;
	__u64	reserved[2];
};

/**
 * struct iotrace_file_stack_seg - sectors of one device that are sectors
 *	of another: @upper's [@start, @start + @len) are @lower's
 *	[@lower_start, @lower_start + @len), in 512-byte sectors.
 * @upper: index of the upper device in the chunk's device entries.
 * @type: IOTRACE_STACK_SEG_*.
 * @lower_major: the lower device's number (a device of the chunk's
 *	entries, or a disk of the file's disk table).
 * @lower_minor: see @lower_major.
 * @start: first sector of the segment on @upper.
 * @len: sectors.
 * @lower_start: the sector of @lower that is @upper's @start (dm linear
 *	and crypt: the table's device offset; md: the member's data_offset;
 *	a partition: its start).
 * @iv_offset: dm crypt: the table's iv_offset (it changes the IV, not
 *	where data is); else 0.
 * @reserved: zero.
 */
struct iotrace_file_stack_seg {
	__u32	upper;
	__u32	type;
	__u32	lower_major;
	__u32	lower_minor;
	__u64	start;
	__u64	len;
	__u64	lower_start;
	__u64	iv_offset;
	__u64	reserved[2];
};

/**
 * struct iotrace_file_hdr - first bytes of a trace file.
 * @magic: IOTRACE_FILE_MAGIC.
 * @major: IOTRACE_FILE_MAJOR; a reader refuses a major it does not know.
 * @minor: IOTRACE_FILE_MINOR; fields are only ever added at the end.
 * @hdr_size: offset of the first chunk (header and disk table included).
 * @record_size: bytes of a whole record (>= IOTRACE_RECORD_SIZE; major 1:
 *	of every record; major 2: a records chunk's may be fewer).
 * @nr_disks: entries in the disk table.
 * @disk_size: bytes between two disk table entries.
 * @flags: IOTRACE_FILE_CRC32C (minor 2), else zero.
 * @disk_offset: offset of the disk table.
 * @anchor_mono_ns: CLOCK_MONOTONIC ns read at the same moment as
 *	@anchor_real_ns: realtime = record time - mono + real.
 * @anchor_real_ns: CLOCK_REALTIME ns since the epoch.
 * @release: kernel release (uname -r) of the traced host, NUL-terminated.
 * @host: host name of the traced host, NUL-terminated.
 * @reserved: zero.
 */
struct iotrace_file_hdr {
	__u8	magic[IOTRACE_FILE_MAGIC_LEN];
	__u16	major;
	__u16	minor;
	__u32	hdr_size;
	__u32	record_size;
	__u32	nr_disks;
	__u32	disk_size;
	__u32	flags;
	__u64	disk_offset;
	__u64	anchor_mono_ns;
	__u64	anchor_real_ns;
	char	release[IOTRACE_FILE_STR_LEN];
	char	host[IOTRACE_FILE_STR_LEN];
	__u64	reserved[8];
};

/**
 * struct iotrace_file_disk - one traced disk (index = chunk @disk).
 * @name: disk name, NUL-terminated.
 * @dev_major: device number.
 * @dev_minor: device number.
 * @logical_block_size: bytes.
 * @nr_parts: parts of the ring the records came from.
 * @part_records: records per part in that ring.
 * @ring_flags: IOTRACE_RING_* of the ring when recording started.
 * @generation: ring generation when recording started.
 * @reserved: zero.
 */
struct iotrace_file_disk {
	char	name[IOTRACE_NAME_LEN];
	__u32	dev_major;
	__u32	dev_minor;
	__u32	logical_block_size;
	__u32	nr_parts;
	__u32	part_records;
	__u32	ring_flags;
	__u64	generation;
	__u64	reserved[4];
};

/**
 * struct iotrace_file_chunk - header of every chunk.
 * @magic: IOTRACE_CHUNK_*.
 * @hdr_size: bytes of this header; the payload follows it.
 * @payload_size: bytes of payload.
 * @disk: index in the disk table (records chunks).
 * @part: ring part the records came from (records chunks).
 * @nr_records: records in the payload (records chunks).
 * @first_seq: part sequence number of the first record (records chunks).
 * @crc: minor 2, with IOTRACE_FILE_CRC32C: the CRC-32C of this header
 *	(hdr_size bytes, @crc as zero) and the payload; absent (a header of
 *	32 bytes) before.
 * @record_size: major 2, records chunks: bytes per record in this chunk,
 *	a multiple of 8 from IOTRACE_FILE_REC_HEAD to the file header's
 *	record_size; zero in other chunks and in major 1 (where the header's
 *	applies).
 */
struct iotrace_file_chunk {
	__u32	magic;
	__u32	hdr_size;
	__u64	payload_size;
	__u16	disk;
	__u16	part;
	__u32	nr_records;
	__u64	first_seq;
	__u32	crc;
	__u32	record_size;
};

/* The chunk header before the checksum (file minor 0 and 1): 32 bytes. */
#define IOTRACE_FILE_CHUNK_SIZE_V0	32

/**
 * struct iotrace_file_trailer - payload of the IOTRACE_CHUNK_TRAILER chunk.
 * @end_mono_ns: CLOCK_MONOTONIC ns when recording stopped.
 * @end_real_ns: CLOCK_REALTIME ns when recording stopped.
 * @nr_disks: entries that follow (same as the header's).
 * @counts_size: bytes between two struct iotrace_file_counts.
 * @counts_offset: offset of the first struct iotrace_file_counts from the
 *	start of the trailer (the trailer may grow in a newer minor).
 * @reserved0: zero.
 * @chunks: records chunks written before the trailer.
 * @reserved: zero.
 */
struct iotrace_file_trailer {
	__u64	end_mono_ns;
	__u64	end_real_ns;
	__u32	nr_disks;
	__u32	counts_size;
	__u32	counts_offset;
	__u32	reserved0;
	__u64	chunks;
	__u64	reserved[3];
};

/**
 * struct iotrace_file_counts - per-disk accounting over the recording.
 * @completed: requests completed while tracing was enabled during the
 *	recording (@recorded + @dropped + @filtered).
 * @recorded: records the kernel put in the ring during the recording, plus
 *	those already present when it started.
 * @overwritten: records overwritten in the ring before the recorder
 *	could copy them.
 * @dropped: requests the kernel could not record (part header delta).
 * @written: records written to this file.
 * @lost: records the recorder did not write (@recorded - @written):
 *	@overwritten plus @torn.
 * @torn: records skipped because they changed while being copied.
 * @filtered: requests the disk's filter left out (part header delta;
 *	file minor 1, zero before).
 */
struct iotrace_file_counts {
	__u64	completed;
	__u64	recorded;
	__u64	overwritten;
	__u64	dropped;
	__u64	written;
	__u64	lost;
	__u64	torn;
	__u64	filtered;
};

/*
 * ---------------------------------------------------------------------------
 * Control: generic netlink family IOTRACE_GENL_NAME.
 *
 * Requests name a disk with IOTRACE_A_DISK_NAME.  IOTRACE_CMD_LIST without a
 * name is a dump (one message per disk); with a name it answers for that
 * disk.  IOTRACE_CMD_LIST and IOTRACE_CMD_GET_METRICS only read and are
 * open to anyone; every other request changes state and needs
 * CAP_SYS_ADMIN (and CAP_NET_ADMIN, which generic netlink checks first):
 * EPERM otherwise.
 * Attributes are validated strictly: an unknown attribute, a reply-only
 * attribute in a request, a wrong length or a value out of range is
 * refused with EINVAL (and an extended ack message) before anything
 * changes.  A disk that does not exist is ENODEV.
 *
 * The multicast group IOTRACE_GENL_MCGRP carries IOTRACE_CMD_EVT_* messages
 * with the disk's name, device number and, for an overflow, the counters.
 * ---------------------------------------------------------------------------
 */
#define IOTRACE_GENL_NAME	"iotrace"
/*
 * Version 2 added IOTRACE_CMD_SET_NVME_LAYOUT and the IOTRACE_A_NVME_*
 * attributes; version 3 the in-kernel metrics (IOTRACE_CMD_GET_METRICS,
 * IOTRACE_CMD_RESET_METRICS, IOTRACE_A_M_*); version 4 the triggers
 * (IOTRACE_CMD_SET_TRIGGER, IOTRACE_CMD_EVT_TRIGGER, IOTRACE_A_TRIG_*);
 * version 5 the hold (IOTRACE_A_TRIG_HOLD_*, IOTRACE_A_HOLD_*,
 * IOTRACE_CMD_RELEASE_HOLD); version 6 IOTRACE_A_TRIG_EVENTS in
 * IOTRACE_CMD_EVT_TRIGGER; version 7 IOTRACE_A_TRIG_EPOCH; version 8
 * IOTRACE_A_MEM_RING, IOTRACE_A_MEM_SLOTS and IOTRACE_A_MEM_METRICS, and
 * enum iotrace_mop the kernel's accounting groups (same layout, same
 * attributes); version 9 IOTRACE_CMD_SET_IDENTITY and IOTRACE_A_ID_*;
 * version 10 IOTRACE_A_TRIG_PID in IOTRACE_CMD_EVT_TRIGGER; version 11
 * IOTRACE_A_HOLD_NS in IOTRACE_CMD_RELEASE_HOLD.
 * Commands and attributes are only ever added at the end.
 */
#define IOTRACE_GENL_VERSION	11
#define IOTRACE_GENL_MCGRP	"events"

/**
 * enum iotrace_genl_cmd - generic netlink commands of the iotrace family.
 * @IOTRACE_CMD_UNSPEC: not a command.
 * @IOTRACE_CMD_LIST: disks and their state; a dump, or one disk when
 *	IOTRACE_A_DISK_NAME is given (also in a dump: one message).  Reply:
 *	the disk attributes.
 * @IOTRACE_CMD_ENABLE: start tracing IOTRACE_A_DISK_NAME.
 * @IOTRACE_CMD_DISABLE: stop tracing IOTRACE_A_DISK_NAME.
 * @IOTRACE_CMD_CLEAR: empty the ring of IOTRACE_A_DISK_NAME (the same code
 *	path as debugfs <disk>/clear); the generation moves on and the totals
 *	start again from zero.
 * @IOTRACE_CMD_RESIZE: replace the ring of IOTRACE_A_DISK_NAME by one of
 *	IOTRACE_A_BUF_SIZE bytes, live.  The old ring is marked
 *	IOTRACE_RING_DETACHED (existing mappings stay valid and final), the
 *	new ring starts empty with a higher generation, and the counters of
 *	the old ring are carried into the IOTRACE_A_TOTAL_* attributes.
 * @IOTRACE_CMD_SET_FILTER: replace the filter of IOTRACE_A_DISK_NAME by the
 *	IOTRACE_A_FILTER_* attributes given (absent ones pass everything).
 * @IOTRACE_CMD_EVT_DISK_ADDED: event: a disk was attached.
 * @IOTRACE_CMD_EVT_DISK_REMOVED: event: a disk was detached.
 * @IOTRACE_CMD_EVT_OVERFLOW: event: the ring of a disk overwrote its first
 *	record since tracing was enabled, cleared or resized.
 * @IOTRACE_CMD_SET_NVME_LAYOUT: where the running nvme driver keeps the
 *	completion status and result of a request (struct nvme_request, the
 *	start of every NVMe request's private data), as read from its BTF:
 *	IOTRACE_A_NVME_STATUS_OFF/_SIZE and IOTRACE_A_NVME_RESULT_OFF/_SIZE,
 *	all four; with none of them the layout is forgotten.  Without a
 *	layout no NVMe status is recorded.  Refused with EINVAL: a status
 *	that is not an aligned 2-byte field, a result not 4 or 8 bytes
 *	4-byte aligned, overlapping fields, or fields beyond the request
 *	data (tag set cmd_size) of a traced NVMe disk.  No IOTRACE_A_DISK_NAME:
 *	the layout is global, and forgotten when nvme_core is unloaded
 *	(genl version 2).
 * @IOTRACE_CMD_GET_METRICS: the in-kernel metrics of IOTRACE_A_DISK_NAME
 *	(required; no dump: one reply is ~10 KiB, list the disks with
 *	IOTRACE_CMD_LIST): IOTRACE_A_DISK_NAME, IOTRACE_A_M_RESET_NS,
 *	IOTRACE_A_M_NOW_NS, one IOTRACE_A_M_OP per metrics op (binary, a
 *	struct iotrace_metrics_op), IOTRACE_A_M_TIMEOUTS,
 *	IOTRACE_A_M_REQUEUES, IOTRACE_A_M_INFLIGHT,
 *	IOTRACE_A_M_INFLIGHT_OLDEST_NS and one IOTRACE_A_M_ERROR per error
 *	kind seen (binary, a struct iotrace_metrics_error).  Needs no privilege
 *	(genl version 3).
 * @IOTRACE_CMD_RESET_METRICS: zero the metrics of IOTRACE_A_DISK_NAME and
 *	set IOTRACE_A_M_RESET_NS to now.  The ring is not touched (genl
 *	version 3).
 * @IOTRACE_CMD_SET_TRIGGER: replace the triggers of IOTRACE_A_DISK_NAME,
 *	at once, by the IOTRACE_A_TRIG_* conditions given (with none of
 *	them: no triggers); IOTRACE_A_TRIG_RATE_NS defaults to 1 s.
 *	CAP_SYS_ADMIN (genl version 4).
 * @IOTRACE_CMD_EVT_TRIGGER: event: a trigger of a disk fired
 *	(IOTRACE_A_TRIG_REASON and the request's facts, and the hold,
 *	IOTRACE_A_HOLD_LO/HI, when one is active; see
 *	Documentation/netlink.rst), rate-limited per disk (genl version 4).
 * @IOTRACE_CMD_RELEASE_HOLD: end the hold of IOTRACE_A_DISK_NAME (its
 *	held chunks may be recycled again); with IOTRACE_A_HOLD_HI only if
 *	that is still the hold (else nothing), and with IOTRACE_A_HOLD_NS
 *	(version 11) only if it is still the hold set then: two holds in a
 *	row have the same HOLD_HI when no chunk was taken between them.  No
 *	hold: nothing, not an error.  A HOLD_HI or HOLD_NS of 0 names no
 *	hold: EINVAL.  Version 5.
 * @IOTRACE_CMD_SET_IDENTITY: who IOTRACE_A_DISK_NAME is, as user space
 *	reads it from sysfs (the udev rule gives it when a disk or the
 *	module comes): IOTRACE_A_ID_MODEL, IOTRACE_A_ID_SERIAL and
 *	IOTRACE_A_ID_WWN, each optional (absent: "").  Kept only with
 *	persist=, in the region beside the disk's rings and in-flight table
 *	(struct iotrace_preg_id), for the next boot; without it, accepted
 *	and not kept.  Version 9.
 * @__IOTRACE_CMD_MAX: number of commands.
 */
enum iotrace_genl_cmd {
	IOTRACE_CMD_UNSPEC,
	IOTRACE_CMD_LIST,
	IOTRACE_CMD_ENABLE,
	IOTRACE_CMD_DISABLE,
	IOTRACE_CMD_CLEAR,
	IOTRACE_CMD_RESIZE,
	IOTRACE_CMD_SET_FILTER,
	IOTRACE_CMD_EVT_DISK_ADDED,
	IOTRACE_CMD_EVT_DISK_REMOVED,
	IOTRACE_CMD_EVT_OVERFLOW,
	IOTRACE_CMD_SET_NVME_LAYOUT,
	IOTRACE_CMD_GET_METRICS,
	IOTRACE_CMD_RESET_METRICS,
	IOTRACE_CMD_SET_TRIGGER,
	IOTRACE_CMD_EVT_TRIGGER,
	IOTRACE_CMD_RELEASE_HOLD,
	IOTRACE_CMD_SET_IDENTITY,
	__IOTRACE_CMD_MAX,
};

#define IOTRACE_CMD_MAX	(__IOTRACE_CMD_MAX - 1)

/* IOTRACE_A_FILTER_OPS: bit (1 << enum iotrace_op) for ops 0..30. */
#define IOTRACE_FILTER_OP_OTHER	(1U << 31)  /* IOTRACE_OP_UNKNOWN */
#define IOTRACE_FILTER_OPS_ALL	(((1U << (IOTRACE_OP_DRV_OUT + 1)) - 1) | \
				 IOTRACE_FILTER_OP_OTHER)

/**
 * enum iotrace_genl_attr - attributes of the iotrace family.
 * @IOTRACE_A_UNSPEC: not an attribute.
 * @IOTRACE_A_PAD: padding for 64-bit attributes; refused in requests.
 * @IOTRACE_A_DISK_NAME: string, disk name (at most IOTRACE_NAME_LEN - 1
 *	characters, NUL-terminated).  Requests and replies.
 * @IOTRACE_A_DEV_MAJOR: u32, reply only.
 * @IOTRACE_A_DEV_MINOR: u32, reply only.
 * @IOTRACE_A_ENABLED: u8, 0 or 1, reply only.
 * @IOTRACE_A_BUF_SIZE: u64, bytes allowed for the ring.  RESIZE request
 *	(65536 .. 1 GiB and at least two 4 KiB chunks per possible CPU plus
 *	the headers, or 0 for metrics only; else EINVAL), replies.
 * @IOTRACE_A_RING_SIZE: u64, bytes of the ring mapping, reply only.
 * @IOTRACE_A_NR_PARTS: u32, reply only: the ring's parts (ABI 1.x), its
 *	CPU headers (ABI 2.0: iotrace_ring_hdr.nr_cpus).
 * @IOTRACE_A_PART_RECORDS: u32, reply only: records per part (ABI 1.x),
 *	per chunk (ABI 2.0: iotrace_ring_hdr.chunk_records).
 * @IOTRACE_A_GENERATION: u64, ring generation, reply only.
 * @IOTRACE_A_RECORDED: u64, records started in the current ring.
 * @IOTRACE_A_PRESENT: u64, records the current ring still holds.
 * @IOTRACE_A_OVERWRITTEN: u64, records lost to wrap-around (current ring).
 * @IOTRACE_A_DROPPED: u64, completions not recorded (current ring).
 * @IOTRACE_A_FILTERED: u64, completions the filter left out (current ring).
 * @IOTRACE_A_INFLIGHT: u64, requests in flight.
 * @IOTRACE_A_TOTAL_COMPLETED: u64, requests completed while enabled since
 *	the last clear, over every ring a resize replaced and the current
 *	one: TOTAL_COMPLETED = TOTAL_RECORDED + TOTAL_DROPPED +
 *	TOTAL_FILTERED, TOTAL_RECORDED = PRESENT + TOTAL_OVERWRITTEN +
 *	(records of replaced rings still present there).
 * @IOTRACE_A_TOTAL_RECORDED: u64, see above.
 * @IOTRACE_A_TOTAL_OVERWRITTEN: u64, see above.
 * @IOTRACE_A_TOTAL_DROPPED: u64, see above.
 * @IOTRACE_A_TOTAL_FILTERED: u64, see above.
 * @IOTRACE_A_RESIZES: u32, rings replaced since the last clear.
 * @IOTRACE_A_FILTER_OPS: u32, operations recorded: IOTRACE_FILTER_OPS_ALL
 *	bits only.  Request (SET_FILTER) and reply.
 * @IOTRACE_A_FILTER_SECTOR_MIN: u64, first sector recorded (request, reply).
 * @IOTRACE_A_FILTER_SECTOR_MAX: u64, last sector recorded, inclusive;
 *	below IOTRACE_A_FILTER_SECTOR_MIN is EINVAL.
 * @IOTRACE_A_FILTER_MIN_BYTES: u32, smallest request recorded, bytes
 *	(at most 1 GiB).
 * @IOTRACE_A_NVME_STATUS_OFF: u32, byte offset of the status (u16) in
 *	struct nvme_request.  SET_NVME_LAYOUT request; LIST replies when a
 *	layout is in use.
 * @IOTRACE_A_NVME_STATUS_SIZE: u32, its size: 2.
 * @IOTRACE_A_NVME_RESULT_OFF: u32, byte offset of the result (union
 *	nvme_result, dword 0 at its start).
 * @IOTRACE_A_NVME_RESULT_SIZE: u32, its size: 4 or 8.
 * @IOTRACE_A_NVME_STATUS: u8, reply only (LIST): 1 when NVMe status is
 *	recorded (a layout is in use), 0 when not.  The same for every disk.
 * @IOTRACE_A_M_RESET_NS: u64, CLOCK_REALTIME of the last metrics reset (or
 *	of the disk's attachment), reply only.
 * @IOTRACE_A_M_NOW_NS: u64, CLOCK_MONOTONIC when the metrics were read,
 *	reply only.
 * @IOTRACE_A_M_OP: binary, one struct iotrace_metrics_op; repeated, one per
 *	enum iotrace_mop, reply only.
 * @IOTRACE_A_M_TIMEOUTS: u64, completions of requests that timed out.
 * @IOTRACE_A_M_REQUEUES: u64, requeues seen (a request requeued twice
 *	counts twice).
 * @IOTRACE_A_M_INFLIGHT: u64, requests issued and not completed now.
 * @IOTRACE_A_M_INFLIGHT_OLDEST_NS: u64, CLOCK_MONOTONIC issue time of the
 *	oldest request in flight; absent when none is.
 * @IOTRACE_A_M_ERROR: binary, one struct iotrace_metrics_error; repeated,
 *	one per error kind seen since the reset, reply only.
 * @IOTRACE_A_TRIG_LAT_READ: u64, trigger: device latency of a read above
 *	this many ns (1 .. 1 hour; 0: off).  SET_TRIGGER, LIST replies.
 * @IOTRACE_A_TRIG_LAT_WRITE: u64, the same for IOTRACE_MOP_WRITE.
 * @IOTRACE_A_TRIG_LAT_FLUSH: u64, the same for IOTRACE_MOP_FLUSH.
 * @IOTRACE_A_TRIG_LAT_DISCARD: u64, the same for IOTRACE_MOP_DISCARD.
 * @IOTRACE_A_TRIG_LAT_OTHER: u64, the same for IOTRACE_MOP_PASSTHRU
 *	(IOTRACE_A_TRIG_LAT_READ + enum iotrace_mop: a request's group is
 *	its metrics group).
 * @IOTRACE_A_TRIG_ERROR: u8, 0 or 1, trigger: a completion with an errno
 *	(with IOTRACE_A_TRIG_ERRNO: one of those).
 * @IOTRACE_A_TRIG_ERRNO: u32, a positive errno (1 .. 4095).  SET_TRIGGER:
 *	repeated, at most IOTRACE_TRIG_MAX_ERRNOS, needs IOTRACE_A_TRIG_ERROR;
 *	LIST replies: repeated; EVT_TRIGGER: the completion's errno.
 * @IOTRACE_A_TRIG_DEVSTATUS: u8, 0 or 1, trigger: a device status that
 *	is not success (NVMe SCT/SC, SCSI status/sense, ATA error).
 * @IOTRACE_A_TRIG_TIMEOUT: u8, 0 or 1, trigger: a request that timed out.
 * @IOTRACE_A_TRIG_REQUEUES: u32, trigger: the N-th requeue of a request
 *	(1 .. 255; 0: off).
 * @IOTRACE_A_TRIG_STUCK_NS: u64, trigger: a request in flight longer than
 *	this (100 ms .. 1 day; 0: off).
 * @IOTRACE_A_TRIG_RATE_NS: u64, least ns between two events of the disk
 *	(0 .. 1 hour; default 1 s).
 * @IOTRACE_A_TRIG_HITS: u64, LIST reply: hits since the triggers were set.
 * @IOTRACE_A_TRIG_EVENTS: u64, LIST reply: events sent since then;
 *	EVT_TRIGGER (genl version 6): that count, this event included.
 * @IOTRACE_A_TRIG_SUPPRESSED_TOTAL: u64, LIST reply: hits the rate limit
 *	kept from being events since then.
 * @IOTRACE_A_TRIG_REASON: u32, EVT_TRIGGER: IOTRACE_TRIG_* bits.
 * @IOTRACE_A_TRIG_SUPPRESSED: u64, EVT_TRIGGER: hits not sent as events
 *	since the disk's previous event.
 * @IOTRACE_A_TRIG_CPU: u32, EVT_TRIGGER: the CPU whose sequence numbers
 *	the record carries (with IOTRACE_A_TRIG_SEQ).
 * @IOTRACE_A_TRIG_SEQ: u64, EVT_TRIGGER: the record's CPU sequence
 *	number; absent when no record was written (filtered, dropped, or
 *	a request still in flight).
 * @IOTRACE_A_TRIG_OP: u8, EVT_TRIGGER: enum iotrace_op.
 * @IOTRACE_A_TRIG_TIME_NS: u64, EVT_TRIGGER: CLOCK_MONOTONIC of the
 *	completion, or of the requeue or scan that found the request.
 * @IOTRACE_A_TRIG_ISSUE_NS: u64, EVT_TRIGGER: issue time (absent when the
 *	issue was not seen).
 * @IOTRACE_A_TRIG_LATENCY_NS: u64, EVT_TRIGGER: device latency, or the
 *	age of a request in flight.
 * @IOTRACE_A_TRIG_DEV_STATUS: u32, EVT_TRIGGER: the record's dev_status,
 *	when valid.
 * @IOTRACE_A_TRIG_SECTOR: u64, EVT_TRIGGER: start sector.
 * @IOTRACE_A_TRIG_BYTES: u32, EVT_TRIGGER: bytes.
 * @IOTRACE_A_TRIG_HWQ: u32, EVT_TRIGGER: hardware queue.
 * @IOTRACE_A_TRIG_TAG: u32, EVT_TRIGGER: tag.
 * @IOTRACE_A_TRIG_RETRIES: u32, EVT_TRIGGER: requeues of the request.
 * @IOTRACE_A_TRIG_HOLD_CHUNKS: u32, SET_TRIGGER and LIST replies: at a
 *	hit, hold this many of the newest chunks (0 or absent: no hold;
 *	IOTRACE_TRIG_HOLD_MAX: the most allowed, half the pool).  Above the
 *	most allowed for the disk's ring: EINVAL.
 * @IOTRACE_A_TRIG_HOLD_NS: u64, SET_TRIGGER and LIST replies: a hold
 *	nobody released ends this long after it was set (1 s .. 1 hour;
 *	default 30 s).
 * @IOTRACE_A_HOLD_LO: u64, EVT_TRIGGER and LIST replies while a hold is
 *	active: iotrace_ring_hdr.hold_lo.
 * @IOTRACE_A_HOLD_HI: u64, the same: iotrace_ring_hdr.hold_hi.
 *	RELEASE_HOLD request: release only this hold.
 * @IOTRACE_A_HOLD_NS: u64, EVT_TRIGGER and LIST replies while a hold is
 *	active: iotrace_ring_hdr.hold_ns.  RELEASE_HOLD request (version
 *	11): release only the hold set at this time.
 * @IOTRACE_A_TRIG_EPOCH: u64, LIST replies (with the triggers) and
 *	EVT_TRIGGER (genl version 7): the SET_TRIGGER that started the
 *	disk's counts (IOTRACE_A_TRIG_EVENTS and the others), as a number
 *	the module gives each SET_TRIGGER of any disk, larger than all
 *	before it.  An event whose epoch is below the one a listener set
 *	was sent before that set: its count is of the triggers before.
 * @IOTRACE_A_MEM_RING: u64, LIST replies (genl version 8): bytes of the
 *	disk's ring now, 0 before the disk was first enabled (or resized).
 * @IOTRACE_A_MEM_SLOTS: u64, LIST replies (genl version 8): bytes of its
 *	in-flight table now, 0 while it is disabled.
 * @IOTRACE_A_MEM_METRICS: u64, LIST replies (genl version 8): bytes of its
 *	metrics (the per-CPU part counted for every possible CPU), 0 before
 *	the disk was first enabled and with metrics=N.
 * @IOTRACE_A_ID_MODEL: string, SET_IDENTITY (genl version 9): the
 *	disk's model, at most IOTRACE_FILE_ID_LEN - 1 bytes.
 * @IOTRACE_A_ID_SERIAL: string, SET_IDENTITY: its serial number, the same.
 * @IOTRACE_A_ID_WWN: string, SET_IDENTITY: its world wide name, the same.
 * @IOTRACE_A_TRIG_PID: u32, EVT_TRIGGER (genl version 10): the process
 *	(thread group id) that submitted the request, 0 for the kernel's
 *	own I/O (the record's pid and IOTRACE_RF_KERNEL); absent when the
 *	submitter was not noted (see IOTRACE_INFL_SUBMITTER).
 * @__IOTRACE_A_MAX: number of attributes.
 *
 * A request passes the filter when its operation is in the mask, its start
 * sector in [SECTOR_MIN, SECTOR_MAX] and its byte count at least MIN_BYTES
 * (a flush of 0 bytes only passes with MIN_BYTES 0).
 */
enum iotrace_genl_attr {
	IOTRACE_A_UNSPEC,
	IOTRACE_A_PAD,
	IOTRACE_A_DISK_NAME,
	IOTRACE_A_DEV_MAJOR,
	IOTRACE_A_DEV_MINOR,
	IOTRACE_A_ENABLED,
	IOTRACE_A_BUF_SIZE,
	IOTRACE_A_RING_SIZE,
	IOTRACE_A_NR_PARTS,
	IOTRACE_A_PART_RECORDS,
	IOTRACE_A_GENERATION,
	IOTRACE_A_RECORDED,
	IOTRACE_A_PRESENT,
	IOTRACE_A_OVERWRITTEN,
	IOTRACE_A_DROPPED,
	IOTRACE_A_FILTERED,
	IOTRACE_A_INFLIGHT,
	IOTRACE_A_TOTAL_COMPLETED,
	IOTRACE_A_TOTAL_RECORDED,
	IOTRACE_A_TOTAL_OVERWRITTEN,
	IOTRACE_A_TOTAL_DROPPED,
	IOTRACE_A_TOTAL_FILTERED,
	IOTRACE_A_RESIZES,
	IOTRACE_A_FILTER_OPS,
	IOTRACE_A_FILTER_SECTOR_MIN,
	IOTRACE_A_FILTER_SECTOR_MAX,
	IOTRACE_A_FILTER_MIN_BYTES,
	IOTRACE_A_NVME_STATUS_OFF,
	IOTRACE_A_NVME_STATUS_SIZE,
	IOTRACE_A_NVME_RESULT_OFF,
	IOTRACE_A_NVME_RESULT_SIZE,
	IOTRACE_A_NVME_STATUS,
	IOTRACE_A_M_RESET_NS,
	IOTRACE_A_M_NOW_NS,
	IOTRACE_A_M_OP,
	IOTRACE_A_M_TIMEOUTS,
	IOTRACE_A_M_REQUEUES,
	IOTRACE_A_M_INFLIGHT,
	IOTRACE_A_M_INFLIGHT_OLDEST_NS,
	IOTRACE_A_M_ERROR,
	IOTRACE_A_TRIG_LAT_READ,
	IOTRACE_A_TRIG_LAT_WRITE,
	IOTRACE_A_TRIG_LAT_FLUSH,
	IOTRACE_A_TRIG_LAT_DISCARD,
	IOTRACE_A_TRIG_LAT_OTHER,
	IOTRACE_A_TRIG_ERROR,
	IOTRACE_A_TRIG_ERRNO,
	IOTRACE_A_TRIG_DEVSTATUS,
	IOTRACE_A_TRIG_TIMEOUT,
	IOTRACE_A_TRIG_REQUEUES,
	IOTRACE_A_TRIG_STUCK_NS,
	IOTRACE_A_TRIG_RATE_NS,
	IOTRACE_A_TRIG_HITS,
	IOTRACE_A_TRIG_EVENTS,
	IOTRACE_A_TRIG_SUPPRESSED_TOTAL,
	IOTRACE_A_TRIG_REASON,
	IOTRACE_A_TRIG_SUPPRESSED,
	IOTRACE_A_TRIG_CPU,
	IOTRACE_A_TRIG_SEQ,
	IOTRACE_A_TRIG_OP,
	IOTRACE_A_TRIG_TIME_NS,
	IOTRACE_A_TRIG_ISSUE_NS,
	IOTRACE_A_TRIG_LATENCY_NS,
	IOTRACE_A_TRIG_DEV_STATUS,
	IOTRACE_A_TRIG_SECTOR,
	IOTRACE_A_TRIG_BYTES,
	IOTRACE_A_TRIG_HWQ,
	IOTRACE_A_TRIG_TAG,
	IOTRACE_A_TRIG_RETRIES,
	IOTRACE_A_TRIG_HOLD_CHUNKS,
	IOTRACE_A_TRIG_HOLD_NS,
	IOTRACE_A_HOLD_LO,
	IOTRACE_A_HOLD_HI,
	IOTRACE_A_HOLD_NS,
	IOTRACE_A_TRIG_EPOCH,
	IOTRACE_A_MEM_RING,
	IOTRACE_A_MEM_SLOTS,
	IOTRACE_A_MEM_METRICS,
	IOTRACE_A_ID_MODEL,
	IOTRACE_A_ID_SERIAL,
	IOTRACE_A_ID_WWN,
	IOTRACE_A_TRIG_PID,
	__IOTRACE_A_MAX,
};

#define IOTRACE_A_MAX	(__IOTRACE_A_MAX - 1)

/* IOTRACE_A_TRIG_REASON: the conditions that held (genl version 4). */
#define IOTRACE_TRIG_LATENCY	(1U << 0)  /* device latency above its op's */
#define IOTRACE_TRIG_ERROR	(1U << 1)  /* an errno (of the list) */
#define IOTRACE_TRIG_DEVSTATUS	(1U << 2)  /* device status not success */
#define IOTRACE_TRIG_TIMEOUT	(1U << 3)  /* the request timed out */
#define IOTRACE_TRIG_REQUEUES	(1U << 4)  /* its N-th requeue */
#define IOTRACE_TRIG_STUCK	(1U << 5)  /* in flight too long */

/* SET_TRIGGER: at most this many IOTRACE_A_TRIG_ERRNO. */
#define IOTRACE_TRIG_MAX_ERRNOS	8

/* IOTRACE_A_TRIG_HOLD_CHUNKS: the most the disk's ring allows (version 5) */
#define IOTRACE_TRIG_HOLD_MAX	0xffffffffU

/*
 * ---------------------------------------------------------------------------
 * In-kernel metrics (genl version 3).
 *
 * Every completion of an enabled disk is counted, filtered or not and
 * whether or not its ring had room; clear and resize leave the metrics
 * alone, IOTRACE_CMD_RESET_METRICS zeroes them.  The debugfs file
 * <disk>/metrics shows the same figures as text.
 *
 * Latency histograms are log-linear: bucket 0 holds [0, 1024) ns; bucket
 * b in 1 .. IOTRACE_HIST_BUCKETS - 2 holds [lo, lo + 2^(o - 2)) ns with
 * o = IOTRACE_HIST_MIN_SHIFT + (b - 1) / 4 and
 * lo = 2^o + ((b - 1) % 4) * 2^(o - 2)  (four sub-buckets per power of
 * two, each at most 25% wide, up to 2^37 ns = 137 s); the last bucket
 * holds everything from 2^IOTRACE_HIST_MAX_SHIFT ns on.
 * ---------------------------------------------------------------------------
 */
#define IOTRACE_HIST_SUB_SHIFT	2
#define IOTRACE_HIST_MIN_SHIFT	10
#define IOTRACE_HIST_MAX_SHIFT	37
#define IOTRACE_HIST_BUCKETS	((IOTRACE_HIST_MAX_SHIFT - \
				  IOTRACE_HIST_MIN_SHIFT) * \
				 (1 << IOTRACE_HIST_SUB_SHIFT) + 2)

/**
 * enum iotrace_mop - the operations metrics are kept for: the kernel's own
 *	accounting groups (op_stat_group(), the columns of
 *	/sys/block/<disk>/stat), taken from the request's REQ_OP_* at
 *	completion, and passthrough apart (genl version 8; before, write
 *	zeroes and zone operations counted in the last one, secure erase as
 *	a discard).
 * @IOTRACE_MOP_READ: every read-direction op: IOTRACE_OP_READ (and, on
 *	kernels before 6.0, the zone operations the kernel numbers even:
 *	reset, reset all, open, finish).
 * @IOTRACE_MOP_WRITE: every write-direction op but discard:
 *	IOTRACE_OP_WRITE, IOTRACE_OP_WRITE_ZEROES, IOTRACE_OP_SECURE_ERASE,
 *	the zone operations (6.0 on: all of them).
 * @IOTRACE_MOP_FLUSH: IOTRACE_OP_FLUSH, the flush machinery's requests.
 * @IOTRACE_MOP_DISCARD: IOTRACE_OP_DISCARD only.
 * @IOTRACE_MOP_PASSTHRU: passthrough requests (IOTRACE_OP_DRV_IN,
 *	IOTRACE_OP_DRV_OUT; IOTRACE_RF_PASSTHRU in their records), which
 *	the stat file does not count (6.1 and newer) or counts as reads and
 *	writes (5.10, when the request names its disk).
 * @IOTRACE_MOP_OTHER: the old name of IOTRACE_MOP_PASSTHRU.
 * @IOTRACE_NR_MOPS: number of metrics ops.
 */
enum iotrace_mop {
	IOTRACE_MOP_READ	= 0,
	IOTRACE_MOP_WRITE	= 1,
	IOTRACE_MOP_FLUSH	= 2,
	IOTRACE_MOP_DISCARD	= 3,
	IOTRACE_MOP_PASSTHRU	= 4,
	IOTRACE_MOP_OTHER	= IOTRACE_MOP_PASSTHRU,
	IOTRACE_NR_MOPS		= 5,
};

/**
 * struct iotrace_metrics_op - the metrics of one operation of one disk
 *	(IOTRACE_A_M_OP), summed over CPUs.
 * @mop: enum iotrace_mop.
 * @pad: zero.
 * @requests: completions.
 * @bytes: bytes of those completions (the request's length at issue).
 * @errors: completions with an error or a device error status.
 * @dev_sum_ns: sum of the device latencies (issue to completion) of the
 *	completions that were issued (@dev_count of them).
 * @dev_count: completions with a device latency (issue seen): the sum of
 *	@dev_hist's buckets.
 * @queue_sum_ns: sum of the queue latencies (queue entry to issue).
 * @queue_count: completions with a queue latency: the sum of @queue_hist's
 *	buckets.
 * @dev_hist: device latency histogram, see IOTRACE_HIST_BUCKETS.
 * @queue_hist: queue latency histogram.
 */
struct iotrace_metrics_op {
	__u8	mop;
	__u8	pad[7];
	__u64	requests;
	__u64	bytes;
	__u64	errors;
	__u64	dev_sum_ns;
	__u64	dev_count;
	__u64	queue_sum_ns;
	__u64	queue_count;
	__u64	dev_hist[IOTRACE_HIST_BUCKETS];
	__u64	queue_hist[IOTRACE_HIST_BUCKETS];
};

/* struct iotrace_metrics_error.status_kind */
#define IOTRACE_MSTATUS_NONE	0	/* no device status: errno only */
#define IOTRACE_MSTATUS_NVME	1	/* status: NVMe SCT << 8 | SC */
#define IOTRACE_MSTATUS_SCSI	2	/* status: SAM status byte */
#define IOTRACE_MSTATUS_ATA	3	/* status: ATA status << 8 | error */
#define IOTRACE_MSTATUS_OVERFLOW 255	/* every kind past the table's room */

/**
 * struct iotrace_metrics_error - errors of one kind (IOTRACE_A_M_ERROR).
 * @count: completions of this kind.
 * @mop: enum iotrace_mop.
 * @status_kind: IOTRACE_MSTATUS_*.
 * @status: the device status class, see IOTRACE_MSTATUS_*.
 * @errno_val: the positive errno the block layer completed with, 0 when
 *	only the device reported an error.
 */
struct iotrace_metrics_error {
	__u64	count;
	__u8	mop;
	__u8	status_kind;
	__u16	status;
	__u32	errno_val;
};

/*
 * The character device /dev/iotrace/<disk> (one per ring, mode 0400):
 * read() and a read-only mmap() give the same bytes as debugfs
 * <disk>/ring, and the device also works under kernel lockdown.  Its two
 * ioctls give the requests in flight: IOTRACE_IOC_INFLIGHT what debugfs
 * <disk>/inflight shows of each, IOTRACE_IOC_INFLIGHT_RECORDS (a module
 * before it: ENOTTY) each as a record.
 */
#define IOTRACE_DEV_DIR		"/dev/iotrace"

/**
 * struct iotrace_inflight_entry - one request issued and not completed.
 * @issue_ns: time of the (last) issue, CLOCK_MONOTONIC.
 * @sector: start sector.
 * @bytes: length.
 * @hwq: hardware queue.
 * @tag: driver tag.
 * @cpu: CPU that issued it.
 * @op: enum iotrace_op.
 * @flags: IOTRACE_INFL_* bits (zero from a module before they came: the
 *	submitter unknown).
 * @pid: with IOTRACE_INFL_SUBMITTER, the process (thread group id) that
 *	submitted the request, 0 for the kernel's own I/O
 *	(IOTRACE_INFL_KERNEL); as iotrace_record.pid says once it completes.
 *	0 otherwise.
 */
struct iotrace_inflight_entry {
	__u64	issue_ns;
	__u64	sector;
	__u32	bytes;
	__u16	hwq;
	__u16	tag;
	__u16	cpu;
	__u8	op;
	__u8	flags;
	__u32	pid;
};

/*
 * iotrace_inflight_entry.flags.  The submitter is noted where the request
 * starts (block_io_start, Linux 6.5 and later, module parameter
 * submitter=Y): without IOTRACE_INFL_SUBMITTER it is unknown (an older
 * kernel or module, submitter=N, a flush or passthrough request of the
 * kernel's, a request issued before the disk was enabled or started
 * outside a task).
 */
#define IOTRACE_INFL_SUBMITTER	(1U << 0)	/* @pid is the submitter */
#define IOTRACE_INFL_KERNEL	(1U << 1)	/* the kernel's own I/O: pid 0 */

/**
 * struct iotrace_inflight_req - argument of IOTRACE_IOC_INFLIGHT.
 * @entries: user address of an array of @max struct iotrace_inflight_entry.
 * @max: in: room at @entries.
 * @count: out: requests in flight, oldest issue first; the first
 *	min(@count, @max) are copied.
 * @now_ns: out: CLOCK_MONOTONIC when they were collected.
 */
struct iotrace_inflight_req {
	__u64	entries;
	__u32	max;
	__u32	count;
	__u64	now_ns;
};

/**
 * struct iotrace_inflight_records - argument of IOTRACE_IOC_INFLIGHT_RECORDS:
 *	the requests in flight as records.
 * @records: user address of room for @max records, @record_size bytes
 *	apart.
 * @max: in: records that fit at @records.
 * @record_size: in: the distance between two records at @records, at least
 *	sizeof(struct iotrace_record); out: the bytes of each that the
 *	module filled (sizeof(struct iotrace_record)), the rest of each
 *	zeroed.
 * @count: out: requests in flight, oldest issue first; the first
 *	min(@count, @max) are copied.
 * @torn: out: slots held by a request that were being written on each
 *	read of them (a request being issued or requeued): not counted in
 *	@count.
 * @now_ns: out: CLOCK_MONOTONIC when they were collected.
 * @reserved: zero in; zero out.
 *
 * Each record is the one the request's completion would write, without
 * the completion: complete_ns, seq, error and the device status zero, no
 * IOTRACE_RF_COMPLETE; its issue time, sector, length, op and op flags,
 * queue time, hardware queue, tag, CPU, requeues, cgroup, submitter and,
 * where a hook captured it, its command, with their IOTRACE_RF_* flags.
 * An NVMe multipath head's are its paths' requests, each with its path at
 * IOTRACE_CMD_PATH_OFF as in the head's records.
 */
struct iotrace_inflight_records {
	__u64	records;
	__u32	max;
	__u32	record_size;
	__u32	count;
	__u32	torn;
	__u64	now_ns;
	__u64	reserved[2];
};

/*
 * The persistent region, layout 1 (Documentation/abi.rst): the rings and
 * in-flight tables of a module loaded with persist=, in memory that a warm
 * reboot keeps.  The next boot's module offers the previous boot's region
 * read-only (debugfs "previous", /dev/iotrace/previous); a crash dump
 * holds it in its physical memory, found by IOTRACE_PREG_MAGIC at a page
 * boundary.  Little-endian, no kernel address anywhere.
 */
#define IOTRACE_PREG_MAGIC	0x4745525052544f49ULL	/* "IOTRPREG" */
#define IOTRACE_PREG_MAJOR	1
#define IOTRACE_PREG_MINOR	4
#define IOTRACE_PREG_HDR_SIZE	4096
#define IOTRACE_PREG_DISK_SIZE	512
#define IOTRACE_PREG_SLOT_SIZE	192
#define IOTRACE_PREG_ID_SIZE	512	/* minor 1 */

/* iotrace_preg_hdr.state */
#define IOTRACE_PREG_LIVE	1	/* a module writes it */
#define IOTRACE_PREG_KEPT	2	/* a module found it at load */

/* iotrace_preg_hdr.flags */
#define IOTRACE_PREG_PANICKED	(1U << 0) /* the writing kernel panicked */

/**
 * struct iotrace_preg_hdr - the persistent region's header (4 KiB).
 * @magic: IOTRACE_PREG_MAGIC.
 * @major: IOTRACE_PREG_MAJOR; a reader refuses another.
 * @minor: IOTRACE_PREG_MINOR; a reader reads a higher one.
 * @hdr_size: IOTRACE_PREG_HDR_SIZE.
 * @region_size: bytes reserved.
 * @state: IOTRACE_PREG_*; not covered by @hdr_crc.
 * @flags: IOTRACE_PREG_PANICKED; not covered by @hdr_crc.
 * @boot_id: the writing boot's /proc/sys/kernel/random/boot_id (16
 *	bytes), zero if it could not be read.
 * @release: the writing kernel's release, NUL padded.
 * @anchor_seq: odd while the anchor is rewritten: then the anchor may be
 *	half written, and (minor 2) @anchor_prev_mono_ns and
 *	@anchor_prev_real_ns date the records.
 * @max_disks: entries at @disk_off.
 * @disk_entry_size: IOTRACE_PREG_DISK_SIZE.
 * @nr_disks: entries in use (a hint; the entries' flags are the truth).
 * @anchor_mono_ns: CLOCK_MONOTONIC at the anchor, the records' clock.
 * @anchor_real_ns: CLOCK_REALTIME at the same moment; rewritten every
 *	second, so that the last one before a crash dates the records.
 * @disk_off: the disk table's offset.
 * @data_off: the first byte of the allocations (rings, in-flight tables).
 * @data_used: the end of the last allocation, from @data_off.
 * @refused: allocations that found no room (each said in the log).
 * @hdr_crc: CRC-32C (abi.rst's) of bytes 0-23 and 32-111: the identity.
 * @loaded_ns: CLOCK_MONOTONIC when the module formatted the region.
 * @damaged: in a region found at load: entries whose checksum or offsets
 *	failed, zeroed in the copy offered (0 in a live region).
 * @evicted: minor 4: rings of removed disks (IOTRACE_PREG_D_REMOVED)
 *	cleared to give their room to another allocation (each said in the
 *	log); 0 before.
 * @id_off: minor 1: the identity table's offset (@max_disks entries of
 *	@id_entry_size bytes, between the disk table and @data_off); 0
 *	before (no identities).
 * @id_entry_size: minor 1: IOTRACE_PREG_ID_SIZE.
 * @reserved3: zero.
 * @anchor_prev_mono_ns: minor 2: the anchor before the one being
 *	rewritten, copied while @anchor_seq is even; 0 before the first.
 * @anchor_prev_real_ns: minor 2: its CLOCK_REALTIME.
 * @reserved: zero.
 */
struct iotrace_preg_hdr {
	__u64	magic;
	__u16	major;
	__u16	minor;
	__u32	hdr_size;
	__u64	region_size;
	__u32	state;
	__u32	flags;
	__u8	boot_id[16];
	char	release[64];
	__u32	anchor_seq;
	__u32	max_disks;
	__u32	disk_entry_size;
	__u32	nr_disks;
	__u64	anchor_mono_ns;
	__u64	anchor_real_ns;
	__u64	disk_off;
	__u64	data_off;
	__u64	data_used;
	__u32	refused;
	__u32	hdr_crc;
	__u64	loaded_ns;
	__u32	damaged;
	__u32	evicted;
	__u64	id_off;
	__u32	id_entry_size;
	__u32	reserved3;
	__u64	anchor_prev_mono_ns;
	__u64	anchor_prev_real_ns;
	__u8	reserved[3872];
};

/* iotrace_preg_disk.flags */
#define IOTRACE_PREG_D_USED	(1U << 0) /* the entry is in use */
#define IOTRACE_PREG_D_RING	(1U << 1) /* a ring at ring_off */
#define IOTRACE_PREG_D_SLOTS	(1U << 2) /* an in-flight table */
#define IOTRACE_PREG_D_MPATH	(1U << 3) /* an NVMe multipath head's */
#define IOTRACE_PREG_D_CTRL	(1U << 4) /* a controller's (admin) */
/* minor 3: the ring's disk was removed; kept until its room is needed */
#define IOTRACE_PREG_D_REMOVED	(1U << 5)

/**
 * struct iotrace_preg_disk - one allocation of the region: a disk's ring
 *	(a 2.x ring image, as <disk>/ring maps it) or its in-flight table.
 * @name: the disk's name, NUL-terminated.
 * @dev_major: its device number.
 * @dev_minor: its device number.
 * @flags: IOTRACE_PREG_D_*.
 * @lbs: logical block size.
 * @sectors: minor 1: the disk's capacity in 512-byte sectors when the
 *	allocation was made (0 for a controller, and before minor 1).
 * @model: "" (the identity is in struct iotrace_preg_id).
 * @serial: "".
 * @wwn: "".
 * @slots_off: the in-flight table's offset in the region.
 * @nr_slots: its slots.
 * @slot_size: IOTRACE_PREG_SLOT_SIZE.
 * @ring_off: the ring's offset in the region.
 * @ring_size: its bytes.
 * @gen: the allocation's number in this boot (from 1), so that entries
 *	reused for another disk, and a disk's rings across resizes, are told
 *	apart; the newest ring of a disk has the highest.
 * @disk_gen: the disk's attach number: its ring and its in-flight table
 *	have the same.
 * @reserved: zero.
 * @entry_crc: CRC-32C of the bytes before it.
 */
struct iotrace_preg_disk {
	char	name[IOTRACE_NAME_LEN];
	__u32	dev_major;
	__u32	dev_minor;
	__u32	flags;
	__u32	lbs;
	__u64	sectors;
	char	model[IOTRACE_FILE_ID_LEN];
	char	serial[IOTRACE_FILE_ID_LEN];
	char	wwn[IOTRACE_FILE_ID_LEN];
	__u64	slots_off;
	__u32	nr_slots;
	__u32	slot_size;
	__u64	ring_off;
	__u64	ring_size;
	__u64	gen;
	__u64	disk_gen;
	__u8	reserved[20];
	__u32	entry_crc;
};

/**
 * struct iotrace_preg_id - minor 1: the identity of the disk of the entry
 *	at the same index of the disk table, as user space read it from
 *	sysfs and gave it (IOTRACE_CMD_SET_IDENTITY).  Kept apart from the
 *	entry, with its own checksum, so that a crash while it is rewritten
 *	costs the identity, never the ring.
 * @id_crc: CRC-32C of the 508 bytes after it; one that does not match
 *	(a crash while it was written) is no identity.
 * @reserved0: zero.
 * @gen: the entry's @gen: an identity of another @gen (an entry used
 *	again) is not that entry's.  0: none.
 * @model: the disk's model (sysfs device/model), NUL-terminated.
 * @serial: its serial number (device/serial), NUL-terminated.
 * @wwn: its world wide name (wwid or device/wwid), NUL-terminated.
 * @reserved: zero.
 */
struct iotrace_preg_id {
	__u32	id_crc;
	__u32	reserved0;
	__u64	gen;
	char	model[IOTRACE_FILE_ID_LEN];
	char	serial[IOTRACE_FILE_ID_LEN];
	char	wwn[IOTRACE_FILE_ID_LEN];
	__u8	reserved[112];
};

/* iotrace_preg_slot.flags */
#define IOTRACE_PREG_S_CMD	(1U << 0) /* the command was captured */

/**
 * struct iotrace_preg_slot - a request in flight, in the region (192 B).
 * @gen: 0 empty; odd while it is written; even and not 0: @rec holds a
 *	request issued and not completed.
 * @flags: IOTRACE_PREG_S_*.
 * @reserved: zero.
 * @rec: the request as its completion would record it, without
 *	complete_ns and IOTRACE_RF_COMPLETE: issue time, sector, bytes, op,
 *	hardware queue, tag, queue time, command and submitter.
 */
struct iotrace_preg_slot {
	__u32			gen;
	__u32			flags;
	__u8			reserved[56];
	struct iotrace_record	rec;
};

#define IOTRACE_IOC_MAGIC	0xb9	/* free in ioctl-number.rst (6.12) */
#define IOTRACE_IOC_INFLIGHT	_IOWR(IOTRACE_IOC_MAGIC, 1, \
				      struct iotrace_inflight_req)
#define IOTRACE_IOC_INFLIGHT_RECORDS	_IOWR(IOTRACE_IOC_MAGIC, 2, \
					      struct iotrace_inflight_records)
/*
 * On /dev/iotrace/previous: free the module's copy of the previous boot's
 * region, as a write to debugfs previous_release does (CAP_SYS_ADMIN of
 * the opener and the caller); works where debugfs is locked down.
 */
#define IOTRACE_IOC_PREVIOUS_RELEASE	_IO(IOTRACE_IOC_MAGIC, 3)

#endif /* _UAPI_LINUX_IOTRACE_H */
