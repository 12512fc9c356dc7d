/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libiotrace - the reader core iotracectl's commands sit on: ring and
 * trace-file readers, record sources, decoders, submitter names.  Every
 * parser takes (buffer, length) so that fuzzers and host tests can drive it
 * without a kernel.
 */
#ifndef IOT_H
#define IOT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/iotrace.h>
#include "numfmt.h"

/* The ABI 2.0 structures, under names the transitional ones below leave. */
typedef struct iotrace_ring_hdr iot_ring_hdr2;
typedef struct iotrace_record iot_record2;
/* 2 and its minor, before the names below */
enum { IOT_ABI_MAJOR2 = IOTRACE_ABI_MAJOR, IOT_ABI_MINOR2 = IOTRACE_ABI_MINOR };

/*
 * The record the tool works on: the 1.x layout (struct iotrace_record_v1,
 * complete_cpu included) followed by the submitter (pid, cgroup), which is
 * what a trace file of minor 2 stores per record.  ring.c reads 1.x rings
 * as they are (no submitter) and converts each 2.0 record (complete_cpu
 * from its chunk's CPU, the cgroup out of cmd[]).  The tool's code names it
 * struct iotrace_record.
 */
struct iot_record {
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
	/* struct iotrace_file_rec_ext */
	__u32	pid;
	__u32	reserved2;
	__u64	cgroup;
};

_Static_assert(sizeof(struct iot_record) == IOTRACE_FILE_RECORD_SIZE,
	       "the tool's record is a trace file's minor 2 record");
_Static_assert(sizeof(struct iotrace_record_v1) == IOTRACE_RECORD_SIZE,
	       "1.x record");

#define iotrace_record		iot_record
#define iotrace_ring_hdr	iotrace_ring_hdr_v1
#define iotrace_part_hdr	iotrace_part_hdr_v1
#undef IOTRACE_SEQ_BUSY
#define IOTRACE_SEQ_BUSY	IOTRACE_SEQ_BUSY_V1
#undef IOTRACE_ABI_MAJOR
#undef IOTRACE_ABI_MINOR
#define IOTRACE_ABI_MAJOR	IOTRACE_ABI_MAJOR_V1
#define IOTRACE_ABI_MINOR	1

#define IOT_ERR_LEN	512
/*
 * A trace read from a stream (standard input, a pipe): up to this many
 * bytes are kept in memory, a longer one is copied to a temporary file
 * (input.c's spool()) and read from there in memory that does not grow.
 */
#define IOT_STREAM_MEM	(24u << 20)
#define IOT_MAX_DISKS	256
#define IOT_MAX_RECORD	4096	/* largest record_size accepted */
#define IOT_MAX_SKIPS	1024	/* damaged ranges a file reader skips */
/* a disk's parts in a file: a part per CPU, the kernel's NR_CPUS at most */
#define IOT_MAX_PARTS	8192
#define IOT_CRC_SLACK	(64ull << 20)	/* see iot_file_info.crc_left */
/*
 * The largest chunk header a file reader takes (a writer makes 40 bytes:
 * room for later minors' fields), and the largest payloads of the chunks
 * it reads whole: a trailer (256 disks of 4 KB of counts), a COMMS chunk
 * (a writer's: at most 1M names of 24 bytes, 24 MB) and an in-flight
 * chunk (a disk's whole in-flight table: 262,144 records of 144 bytes,
 * 36 MB).  A larger chunk is damaged (Documentation/abi.rst).
 */
#define IOT_MAX_CHUNK_HDR	4096u
#define IOT_MAX_TRAILER		(1024u * 1024)
#define IOT_MAX_COMMS		(64u << 20)
#define IOT_MAX_INFLIGHT	(64u << 20)

/**
 * struct iot_disk - a disk a record source holds records of.
 * @name: disk name.
 * @dev_major: device number.
 * @dev_minor: device number.
 * @lbs: logical block size, bytes.
 * @nr_parts: ring parts.
 * @part_records: records per part.
 * @flags: IOTRACE_RING_* flags.
 * @generation: ring generation.
 */
struct iot_disk {
	char name[IOTRACE_NAME_LEN + 1];
	uint32_t dev_major, dev_minor, lbs, nr_parts, part_records, flags;
	uint64_t generation;
};

/**
 * struct iot_counts - what a reader knows about records it did not get.
 * @completed: requests completed while enabled (ring: sum head + dropped +
 *	filtered).
 * @recorded: records put in the ring.
 * @present: records a snapshot could find in the ring.
 * @overwritten: records overwritten (ring) or not copied in time (file).
 * @dropped: requests the kernel could not record.
 * @filtered: requests the disk's filter left out.
 * @written: records written to a trace file (file sources).
 * @lost: records a recorder lost (file sources).
 * @torn: records skipped because they changed while being read.
 * @valid: records handed to the caller.
 * @gaps: trace files: sequence gaps between two chunks of one part.
 * @gap_records: the records missing in those gaps (provable loss).
 * @unread: trace files: records the trailer says were written that the
 *	reader did not find (damaged chunks).
 * @no_trailer: trace files: the file has no trailer, the counts it
 *	would have given (all but @present, @valid and the gaps) are unknown.
 */
struct iot_counts {
	uint64_t completed, recorded, present, overwritten, dropped, filtered;
	uint64_t written, lost, torn, valid;
	uint64_t gaps, gap_records, unread;
	int no_trailer;
	int cleared;	/* a live ring cleared while it was read */
};

/**
 * struct iot_ring - a validated view of a ring (mmap or snapshot bytes).
 * @base: first byte of the ring.
 * @len: bytes available at @base.
 * @hdr: a copy of the ring header.
 * @record_size: bytes per record.
 * @nr_parts: parts (1.x) or CPU headers (2.0).
 * @part_records: records per part (1.x, a power of two); for 2.0 the
 *	records of the whole pool, the most one CPU can have present.
 * @v2: an ABI 2.0 ring (a pool of chunks), the fields below are valid.
 * @chunk_records: records per chunk.
 * @nr_chunks: chunks in the pool.
 * @cpu_hdr_offset: offset of CPU 0's header.
 * @chunk_hdr_offset: offset of chunk 0's header.
 * @chunk_stride: bytes between two chunks.
 * @cache: the chunk last found (a lookup cache, written through const),
 *	and during a snapshot the pool's chunks sorted by CPU and first
 *	sequence number (@cache.idx, @cache.nidx), during a recorder pass
 *	(iot_ring_pass_begin()) those of CPU @cache.pass_cpu once a lookup
 *	needs them (@cache.pass: not built yet); @cache.nscan counts the
 *	scans of every chunk header (index builds too), for the tests.
 */
struct iot_ring {
	const uint8_t *base;
	size_t len;
	struct iotrace_ring_hdr hdr;
	uint32_t record_size, nr_parts, part_records;
	int v2;
	uint32_t chunk_records, nr_chunks, cpu_hdr_size, chunk_hdr_size;
	uint64_t cpu_hdr_offset, chunk_hdr_offset, chunk_stride;
	struct {
		int valid, lo_valid;
		uint32_t cpu, k, lo_cpu;
		uint64_t first, take, lo;
		struct iot_chunk_ref *idx;
		uint32_t nidx;
		int pass;
		uint32_t pass_cpu;
		uint64_t nscan;
	} cache;
};

/* A chunk of a 2.0 ring as found by a snapshot (its index, by cpu, first). */
struct iot_chunk_ref {
	uint32_t cpu, k;
	uint64_t first, take;
};

/* Callback for every valid record; return non-zero to stop. */
typedef int (*iot_rec_cb)(void *arg, unsigned int disk,
			  const struct iotrace_record *r);

/* ring.c */
int iot_ring_init(struct iot_ring *ring, const void *buf, size_t len,
		  char *err, size_t errlen);
uint64_t iot_ring_head(const struct iot_ring *ring, uint32_t part);
uint64_t iot_ring_dropped(const struct iot_ring *ring, uint32_t part);
uint64_t iot_ring_filtered(const struct iot_ring *ring, uint32_t part);
int iot_ring_copy(const struct iot_ring *ring, uint32_t part, uint64_t seq,
		  void *out);
int iot_ring_copy_run(const struct iot_ring *ring, uint32_t part,
		      uint64_t seq, uint32_t max, struct iotrace_record *out,
		      uint32_t *n);
int iot_ring_snapshot(const struct iot_ring *ring, unsigned int disk,
		      iot_rec_cb cb, void *arg, struct iot_counts *c);
void iot_ring_disk(const struct iot_ring *ring, struct iot_disk *d);
int iot_ring_gone(const struct iot_ring *ring, uint32_t part, uint64_t seq);
uint64_t iot_ring_lo(const struct iot_ring *ring, uint32_t part);
#define IOT_RING_GAPS	8	/* gaps of a part noted by its readers */
uint32_t iot_ring_gaps(const struct iot_ring *ring, uint32_t part,
		       uint64_t lo, uint64_t head, uint64_t *gap_lo,
		       uint64_t *gap_hi, uint32_t max);
uint64_t iot_ring_in_gaps(const uint64_t *gap_lo, const uint64_t *gap_hi,
			  uint32_t n, uint64_t a, uint64_t b);
int iot_ring_detached(const struct iot_ring *ring);
uint64_t iot_ring_next(const struct iot_ring *ring, uint32_t part,
		       uint64_t seq);
void iot_ring_pass_begin(const struct iot_ring *ring, uint32_t part);
void iot_ring_pass_end(const struct iot_ring *ring);
uint64_t iot_ring_generation(const struct iot_ring *ring);
int iot_ring_same_generation(const struct iot_ring *ring, uint64_t gen);
void iot_ring_restart(const struct iot_ring *ring);

/**
 * struct iot_ring_follow - a reader of a live ring's new records.
 * @ring: the ring.
 * @cur: per part, the next sequence number to read.
 * @gen: the ring's generation when @cur was last reset; records are only
 *	handed out while the ring is still of it.
 * @lost: records overwritten or torn before they could be read.
 */
struct iot_ring_follow {
	const struct iot_ring *ring;
	uint64_t *cur;
	uint64_t gen;
	uint64_t lost;
};

int iot_ring_follow_init(struct iot_ring_follow *f, const struct iot_ring *ring);
int iot_ring_follow_poll(struct iot_ring_follow *f, iot_rec_cb cb, void *arg);
void iot_ring_follow_free(struct iot_ring_follow *f);

/**
 * struct iot_file_info - what the trace-file reader found.
 * @hdr: the file header (first sizeof bytes).
 * @nr_disks: disks in @disks.
 * @disks: disk table.
 * @counts: per-disk trailer counts (present = records read back).
 * @has_trailer: a trailer was found.
 * @chunks: records chunks read.
 * @gaps: sequence gaps between chunks of one (disk, part).
 * @gap_records: the records missing in them.
 * @trailer: the trailer.
 * @drop_behind: the buffer is a read-only file mapping of @fd: its bytes
 *	are read with pread() from @fd, and what the mapping was made to
 *	fault in is let go behind the reader (MADV_DONTNEED), so that memory
 *	use does not grow with the file.
 * @fd: the mapped file (with @drop_behind only).
 * @rd_err: a read of @fd failed: its errno, or -1 when the file ended
 *	before the bytes (cut while it was read); 0: none
 *	(iot_file_read_error()).
 * @changed_off: the offset of a chunk whose header, read again after the
 *	parse, is not one the parse would have taken (the file was written
 *	in place; @rd_err is EIO); 0: none.
 * @crc: the chunks have checksums (IOTRACE_FILE_CRC32C), checked.
 * @crc_left: while parsing, the bytes that chunks checksummed and not
 *	taken (a checksum that does not match, or a trailer or in-flight
 *	chunk that matches and is not one a writer makes) may still cost:
 *	the file's length and IOT_CRC_SLACK at first; a chunk larger than
 *	that is taken as damaged unread (chunk_check()).
 * @crc_bytes: the bytes the parse checksummed (the measure of its cost
 *	the tests check).
 * @merge_cmps: the comparisons of two records' merge keys the merges of
 *	the file made (iot_fmerge_next(): the measure of their cost the
 *	tests check).
 * @salvaged: the file is not whole: no trailer, damaged chunks skipped,
 *	records missing that the trailer counts, or bytes after the trailer
 *	(iot_file_salvage_str()).
 * @end: offset where reading stopped: the trailer's, or the end of the
 *	last chunk read.
 * @cut: bytes from @end to the end of the file that were not read.
 * @after: bytes after the trailer (from @after_off to the end of the
 *	file), not read.
 * @after_off: where they begin: the end of the trailer.
 * @after_file: those bytes begin with a trace file's magic (another file
 *	appended: files joined end to end).
 * @cut_why: IOT_CUT_INCOMPLETE (a chunk cut short) or IOT_CUT_DAMAGED
 *	(no valid chunk there).
 * @bad_chunks: damaged ranges skipped (a chunk, or several in a row).
 * @bad_bytes: their bytes.
 * @bad_off: offset of the first.
 * @unread: records the trailer says were written that were not read.
 * @mismatch: the trailer's written counts are not the records read.
 * @nr_skips: entries in @skips.
 * @skips: the damaged ranges, in file order.
 * @parts: per disk, its disks[].nr_parts parts: where their records
 *	chunks are (iot_file_merge() starts and ends each part's cursor
 *	there); NULL for a disk without records chunks; freed by
 *	iot_file_info_free().
 * @comms: the table the submitters' names of the file go to (set by the
 *	caller before iot_file_parse(), kept by it); NULL: the thread's
 *	(iot_comm_set()).
 * @infl: offsets of the IOTRACE_CHUNK_INFLIGHT chunks the parse took
 *	(checked whole: sizes and checksum), @nr_infl of them; freed by
 *	iot_file_info_free().
 * @nr_infl: how many.
 * @bad_infl: damaged chunks among @bad_chunks that held an in-flight
 *	chunk's magic.
 */
struct iot_file_info {
	struct iotrace_file_hdr hdr;
	unsigned int nr_disks;
	struct iot_disk disks[IOT_MAX_DISKS];
	struct iot_counts counts[IOT_MAX_DISKS];
	int has_trailer;
	uint64_t chunks, gaps, gap_records;
	struct iotrace_file_trailer trailer;
	int drop_behind, fd, rd_err;
	uint64_t changed_off;
	int crc, salvaged, cut_why, mismatch, after_file;
	uint64_t crc_left, crc_bytes, merge_cmps;
	uint64_t end, cut, after, after_off, bad_chunks, bad_bytes, bad_off;
	uint64_t unread;
	unsigned int nr_skips;
	struct {
		uint64_t off, end;
	} skips[IOT_MAX_SKIPS];
	struct iot_file_part *parts[IOT_MAX_DISKS];
	struct iot_comms *comms;
	uint64_t *infl;
	unsigned int nr_infl, bad_infl;
};

/**
 * struct iot_file_part - one (disk, part) of a trace file as
 *	iot_file_parse() found it.
 * @first: offset of its first records chunk with records, 0: none.
 * @last: offset of its last.
 * @want: while parsing, 1 + the sequence number expected next, 0: none.
 * @cursor: with @first, the index of its cursor in a merge (among the
 *	parts with records, in disk and part order: iot_fmerge_new()).
 */
struct iot_file_part {
	uint64_t first, last, want;
	uint32_t cursor;
};

#define IOT_CUT_INCOMPLETE	1
#define IOT_CUT_DAMAGED		2

/* file.c */
uint32_t iot_crc32c(uint32_t crc, const void *p, size_t n);
uint32_t iot_crc32c_sw(uint32_t crc, const void *p, size_t n);
uint32_t iot_file_chunk_crc(const void *hdr, uint32_t hdr_size,
			    const void *payload, uint64_t payload_size);
int iot_file_parse(const void *buf, size_t len, struct iot_file_info *fi,
		   iot_rec_cb cb, void *arg, char *err, size_t errlen);
int iot_file_salvage_str(const struct iot_file_info *fi, char *out,
			 size_t len);
void iot_file_info_free(struct iot_file_info *fi);
int iot_file_merge(const void *buf, size_t len, struct iot_file_info *fi,
		   int by_start, iot_rec_cb cb, void *arg);
void iot_file_read_error(const struct iot_file_info *fi, size_t len,
			 char *err, size_t errlen);
int iot_file_copy(struct iot_file_info *fi, const void *buf, uint64_t off,
		  void *dst, size_t n);
/**
 * struct iot_chunk_walk - a walk of the chunks a trace file's parse took
 *	(iot_file_chunks_begin(), iot_file_chunk_next()).
 * @off: where it goes on.
 * @skip: the next damaged range (iot_file_info.skips) ahead of @off.
 */
struct iot_chunk_walk {
	uint64_t off;
	unsigned int skip;
};

int iot_file_chunks_begin(const struct iot_file_info *fi,
			  struct iot_chunk_walk *w);
int iot_file_chunk_next(const void *buf, struct iot_file_info *fi,
			struct iot_chunk_walk *w, uint64_t *off,
			struct iotrace_file_chunk *ch);
int iot_file_chunk_at(const void *buf, size_t len, struct iot_file_info *fi,
		      uint64_t off, struct iotrace_file_chunk *ch);
/* the merge of iot_file_merge() and a walk in file order, pulled */
struct iot_fmerge;
int iot_fmerge_new(const void *buf, size_t len, struct iot_file_info *fi,
		   int by_start, struct iot_fmerge **out);
int iot_fmerge_next(struct iot_fmerge *fm, unsigned int *disk,
		    const struct iotrace_record **r);
void iot_fmerge_free(struct iot_fmerge *fm);
struct iot_fwalk;
int iot_fwalk_new(const void *buf, struct iot_file_info *fi,
		  struct iot_fwalk **out);
int iot_fwalk_next(struct iot_fwalk *fw, unsigned int *disk,
		   const struct iotrace_record **r);
void iot_fwalk_free(struct iot_fwalk *fw);
int iot_file_idents(const void *buf, size_t len, struct iot_file_info *fi,
		    struct iotrace_file_ident *out, unsigned char *have);
void iot_uuid_str(const uint8_t *u, char *out);
int iot_file_boot(const void *buf, size_t len, struct iot_file_info *fi,
		  struct iotrace_file_boot *out);
int iot_file_triggers(const void *buf, size_t len, struct iot_file_info *fi,
		      struct iotrace_file_trigger *out, unsigned int *disks,
		      unsigned int max);

/**
 * struct iot_inflight - a disk's requests in flight at a trace's end (a
 *	previous boot's: IOTRACE_CHUNK_INFLIGHT).
 * @disk: the disk's index in the file's table.
 * @at_ns: CLOCK_MONOTONIC ns they were still in flight at.
 * @torn: slots of the disk being written then (counted, not given).
 * @recs: the requests, oldest issue first, without a completion.
 * @nr: how many.
 */
struct iot_inflight {
	unsigned int disk;
	uint64_t at_ns;
	uint32_t torn;
	struct iotrace_record *recs;
	size_t nr;
};

int iot_file_inflight(const void *buf, size_t len, struct iot_file_info *fi,
		      int (*cb)(void *arg, const struct iot_inflight *t),
		      void *arg, unsigned int *damaged);

/**
 * struct iot_writer - trace-file writer state.
 * @fp: output stream.
 * @record_size: bytes per record.
 * @major: the file's major: IOTRACE_FILE_MAJOR for records of the tool's
 *	size (struct iotrace_record), 1 for another size (a test's 1.x
 *	records), written as they are.
 * @nr_disks: disks.
 * @chunks: records chunks written.
 * @bytes: bytes written.
 * @error: an I/O error happened.
 * @span: keep @first_ns and @last_ns (set after iot_writer_start()).
 * @first_ns: with @span, the oldest completion time written (U64_MAX:
 *	none yet).
 * @last_ns: with @span, the newest (0: none yet).
 */
/*
 * @pending: NULL, or per disk (@nr_disks) the in-flight table a recording
 * took before its last pass: a request of it whose completed record a
 * chunk written meanwhile carries leaves the table (iot_writer_chunk()).
 */
struct iot_writer {
	FILE *fp;
	uint32_t record_size, major;
	unsigned int nr_disks;
	uint64_t chunks, bytes;
	int error;
	int span;
	uint64_t first_ns, last_ns;
	struct iot_inflight *pending;
};

int iot_writer_start(struct iot_writer *w, FILE *fp, uint32_t record_size,
		     const struct iot_disk *disks, unsigned int nr_disks,
		     uint64_t mono_ns, uint64_t real_ns, const char *release,
		     const char *host);
int iot_writer_chunk(struct iot_writer *w, unsigned int disk,
		     unsigned int part, uint64_t first_seq, const void *recs,
		     uint32_t nr);
int iot_writer_inflight(struct iot_writer *w, const struct iot_inflight *t);
void iot_inflight_drop_done(struct iot_inflight *t,
			    const struct iotrace_record *recs, uint32_t nr);
int iot_writer_ident(struct iot_writer *w, unsigned int disk,
		     const struct iotrace_file_ident *id);
int iot_writer_boot(struct iot_writer *w, const struct iotrace_file_boot *b);
int iot_writer_comms(struct iot_writer *w,
		     const struct iotrace_file_comm *v, uint32_t nr);
int iot_writer_finish(struct iot_writer *w, const struct iot_counts *counts,
		      uint64_t mono_ns, uint64_t real_ns);
int iot_writer_other(struct iot_writer *w, struct iotrace_file_chunk *ch,
		     const void *payload);

/* drain.c: a ring's records into a trace file being written */
#define IOT_DRAIN_CHUNK	1024	/* records per file chunk */

/**
 * struct iot_drain_part - the drain state of one part of one ring.
 * @cur: next sequence number to copy.
 * @start_head: the lowest sequence number the ring held when recording
 *	started (a hold's too), or 0 after a clear.
 * @start_dropped: dropped counter then.
 * @start_filtered: filtered counter then.
 * @seen_dropped: dropped counter at the last pass in the cursor's
 *	generation (what a clear adds up, iot_drain_new_gen()).
 * @seen_filtered: filtered counter likewise.
 * @gap_lo: the gaps above @start_head already overwritten when recording
 *	started (between a hold's chunks and the newer ones): each from
 *	@gap_lo[i] up to @gap_hi[i], ascending; neither recorded nor lost.
 * @gap_hi: their ends.
 * @nr_gaps: how many; more than IOT_RING_GAPS are kept as one (the last
 *	taken up to the end of the rest).
 * @pre_gone: the records of those gaps the cursor stepped over.
 */
struct iot_drain_part {
	uint64_t cur, start_head, start_dropped, start_filtered;
	uint64_t seen_dropped, seen_filtered;
	uint64_t gap_lo[IOT_RING_GAPS], gap_hi[IOT_RING_GAPS];
	uint32_t nr_gaps;
	uint64_t pre_gone;
};

/**
 * struct iot_rec_origin - the boot rings written by iot_rings_write()
 *	come from (a persistent region's).
 * @mono_ns: its last clock anchor, CLOCK_MONOTONIC (the records' clock).
 * @real_ns: CLOCK_REALTIME at the same moment.
 * @end_ns: its newest time known (CLOCK_MONOTONIC): the file's end.
 * @release: its kernel release.
 * @infl: its requests in flight, a table per disk (@nr_infl of them),
 *	written before the trailer (iot_writer_inflight()).
 * @nr_infl: how many tables.
 * @ids: NULL, or who each disk is (one per disk, as the disks given):
 *	written as an identity chunk (iot_writer_ident()) for each that is
 *	not all zero.
 * @boot: NULL, or the boot the rings are of when it is not this one (a
 *	previous boot's region): its id, flags and counts, written as a
 *	boot chunk (iot_writer_boot()) after the records.
 */
struct iot_rec_origin {
	uint64_t mono_ns, real_ns, end_ns;
	char release[65];
	const struct iot_inflight *infl;
	unsigned int nr_infl;
	const struct iotrace_file_ident *ids;
	const struct iotrace_file_boot *boot;
};

void iot_drain_init(const struct iot_ring *ring, struct iot_drain_part *parts);
void iot_drain_new_gen(struct iot_drain_part *rp, struct iot_counts *c);
int iot_drain_part(struct iot_writer *w, const struct iot_ring *ring,
		   unsigned int disk, uint32_t p, struct iot_drain_part *rp,
		   uint8_t *buf, struct iot_counts *c, int final,
		   uint64_t limit, uint64_t gen);
void iot_drain_counts(const struct iot_ring *ring,
		      const struct iot_drain_part *parts, struct iot_counts *c);
int iot_rings_write(const struct iot_ring *rings, const struct iot_disk *disks,
		    unsigned int nr, FILE *fp, const struct iot_rec_origin *org,
		    struct iot_counts *counts, char *err, size_t errlen);

/* preg.c: the persistent region (abi.rst, "The persistent region") */
/**
 * struct iot_preg - a persistent region whose header checks.
 * @buf: its bytes, @len of them (at most its region_size).
 * @len: their length.
 * @own: @buf when allocated here (iot_preg_free() frees it), else NULL.
 * @h: its header, at @buf.
 * @label: where it was read from ("FILE", "<debugfs>/previous"), for
 *	messages.
 * @in_core: it was found in an ELF core's memory, at physical address
 *	@phys.
 * @phys: that address.
 * @anchor_mono_ns: the clock anchor that dates its records: the header's,
 *	or its previous one (minor 2) when the crash came while the anchor
 *	was rewritten (@anchor_seq odd).
 * @anchor_real_ns: CLOCK_REALTIME at @anchor_mono_ns.
 * @anchor_prev: the previous anchor is the one.
 */
struct iot_preg {
	const uint8_t *buf;
	size_t len;
	uint8_t *own;
	const struct iotrace_preg_hdr *h;
	char label[300];
	int in_core;
	uint64_t phys;
	uint64_t anchor_mono_ns, anchor_real_ns;
	int anchor_prev;
};

/**
 * struct iot_preg_ring - what a ring of a region holds.
 * @records: records a snapshot finds in it.
 * @last_ns: the newest completion among them (0: none).
 * @counts: the snapshot's counts (overwritten, torn...).
 */
struct iot_preg_ring {
	uint64_t records, last_ns;
	struct iot_counts counts;
};

/**
 * struct iot_preg_left - a disk whose newest ring iot_preg_rings() left
 *	out: it does not validate (bytes written over it, a crash between
 *	its entry and its header).
 * @e: that ring's entry.
 * @instead: the entry of the disk's ring a resize replaced read in its
 *	place (the newest of them that validates), NULL: none.
 * @why: what is wrong with the ring of @e (iot_ring_init()).
 */
struct iot_preg_left {
	const struct iotrace_preg_disk *e, *instead;
	char why[IOT_ERR_LEN];
};

int iot_preg_is_region(const void *buf, size_t len);
int iot_preg_is_core(const void *buf, size_t len);
int iot_preg_open_buf(struct iot_preg *r, const char *label, const void *buf,
		      size_t len, char *err, size_t errlen);
int iot_preg_open_core_fd(struct iot_preg *r, const char *label, int fd,
			  char *err, size_t errlen);
int iot_preg_open(struct iot_preg *r, const char *path, const char *debugfs,
		  const char *devdir, char *err, size_t errlen);
void iot_preg_free(struct iot_preg *r);
const struct iotrace_preg_disk *iot_preg_entry(const struct iot_preg *r,
					       unsigned int i, int *damaged);
int iot_preg_disk_ident(const struct iot_preg *r, uint64_t disk_gen,
			struct iotrace_file_ident *out);
int iot_preg_newest(const struct iot_preg *r,
		    const struct iotrace_preg_disk *e);
int iot_preg_ring_read(const struct iot_preg *r,
		       const struct iotrace_preg_disk *e,
		       struct iot_preg_ring *out, char *err, size_t errlen);
uint64_t iot_preg_end(const struct iot_preg *r);
int iot_preg_rings(const struct iot_preg *r, struct iot_ring *rings,
		   struct iot_disk *disks, uint64_t *disk_gens,
		   unsigned int *nr, struct iot_preg_left *left,
		   unsigned int *nr_left, char *err, size_t errlen);
void iot_preg_left_str(const struct iot_preg_left *l, char *out, size_t len);
int iot_preg_inflight(const struct iot_preg *r, const uint64_t *disk_gens,
		      unsigned int nr, uint64_t at_ns,
		      struct iot_inflight **out, uint64_t *orphans);
void iot_preg_inflight_free(struct iot_inflight *v, unsigned int nr);
int iot_preg_write(const struct iot_preg *r, const struct iot_ring *rings,
		   const struct iot_disk *disks, const uint64_t *disk_gens,
		   unsigned int nr, FILE *fp, uint64_t end_ns,
		   struct iot_counts *counts, uint64_t *orphans, char *err,
		   size_t errlen);
int iot_preg_trace(const struct iot_preg *r, uint8_t **out, size_t *len,
		   char *warn, size_t warnlen, char *err, size_t errlen);

/* decode.c and decode_*.c: all write a NUL-terminated string to out */
struct iot_name {
	uint32_t code;
	const char *name;
};

/**
 * struct iot_table - a decoder table, exported for tests.
 * @what: description.
 * @names: entries.
 * @nr: entries.
 */
struct iot_table {
	const char *what;
	const struct iot_name *names;
	size_t nr;
};

const char *iot_lookup(const struct iot_name *t, size_t nr, uint32_t code);
void iot_index8(const struct iot_name *t, size_t nr, const char **idx);
const char *iot_op_name(unsigned int op);
int iot_op_parse(const char *s);
void iot_errno_name(int err, char *out, size_t len);
void iot_decode_nvme(const uint8_t *cmd, size_t len, int admin, char *out,
		     size_t outlen);
void iot_decode_nvme_status(uint32_t status, char *out, size_t outlen);
void iot_decode_scsi(const uint8_t *cdb, size_t len, char *out, size_t outlen);
void iot_decode_scsi_status(uint32_t status, char *out, size_t outlen);
void iot_decode_ata(const uint8_t *tf, size_t len, char *out, size_t outlen);
void iot_decode_ata_status(uint32_t status, char *out, size_t outlen);
void iot_decode_cmd(const struct iotrace_record *r, char *out, size_t outlen);
void iot_rec2_read(const void *src, uint32_t cpu, struct iotrace_record *b);
int iot_path_head(const char *disk, char *head, size_t len);
int iot_rec_path(const char *disk, const struct iotrace_record *r, char *out,
		 size_t outlen);
void iot_decode_status(const struct iotrace_record *r, char *out,
		       size_t outlen);
void iot_opflags_str(const struct iotrace_record *r, char *out, size_t len);
extern struct iot_table iot_tables[];
extern const size_t iot_nr_tables;
/* the decoders' tables (decode_*.c) and their sizes, iot_tables' entries */
extern const struct iot_name iot_nvme_admin_ops[], iot_nvme_io_ops[],
	iot_nvme_sc_generic[], iot_nvme_sc_cmd[], iot_nvme_sc_media[],
	iot_nvme_sc_path[], iot_nvme_sct[], iot_scsi_ops[], iot_scsi_sai16[],
	iot_scsi_sense_keys[], iot_scsi_status[], iot_ata_smart[],
	iot_ata_setfeatures[];
extern struct iot_name iot_ata_ops[];
extern const size_t iot_nvme_admin_ops_nr, iot_nvme_io_ops_nr,
	iot_nvme_sc_generic_nr, iot_nvme_sc_cmd_nr, iot_nvme_sc_media_nr,
	iot_nvme_sc_path_nr, iot_nvme_sct_nr, iot_scsi_ops_nr,
	iot_scsi_sai16_nr, iot_scsi_sense_keys_nr, iot_scsi_status_nr,
	iot_ata_ops_nr, iot_ata_smart_nr, iot_ata_setfeatures_nr;

/* util */
uint64_t iot_now(int clock);
const char *iot_decimal_end(const char *s);
int iot_read_all(const char *path, uint8_t **buf, size_t *len, char *err,
		 size_t errlen);
size_t iot_utf8_seq(const unsigned char *s, uint32_t *cp);
/* the most iot_text_str() makes of @n bytes, with its NUL */
#define IOT_TEXT_ROOM(n)	(4 * (n) + 1)
char *iot_text_str(char *buf, size_t size, const char *s);

/**
 * struct iot_src_opts - how a source is opened (iot_src_open_opts()).
 * @strict: refuse a trace file that is not whole instead of reading what
 *	it holds.
 * @cli: messages say what to do with iotracectl's commands, options and
 *	environment variables (the commands'; not for other programs).
 * @inputs: note the regular file read among the inputs (iot_src_input()).
 * @debugfs: the iotrace debugfs directory (live rings, submitters' names).
 * @devdir: the directory of the iotrace devices (live rings).
 * @tmpdir: where a long stream (standard input) is copied to.
 * @comms: the table the submitters' names go to (a trace file's, the
 *	kernel's for a live disk); NULL: the thread's (iot_comm_get()).
 */
struct iot_src_opts {
	int strict, cli, inputs;
	const char *debugfs, *devdir, *tmpdir;
	struct iot_comms *comms;
};

/**
 * struct iot_src - something records can be read from: a trace file, a
 * ring snapshot file, or a live disk's ring (mmap).
 * @label: the argument it was opened from.
 * @is_file: a trace file (else a ring).
 * @live: a live ring (debugfs or /dev/iotrace).
 * @buf: bytes (mapped or read).
 * @len: their length.
 * @mapped: @buf is an mmap.
 * @fd: the trace file @buf maps, read with pread() (else -1).
 * @input: 1 + its entry among the files read (iot_src_input()), 0: none.
 * @ring: the ring view (rings).
 * @fi: file information (trace files; filled by iot_src_read()).
 * @nr_disks: disks.
 * @disks: disk table (rings: one entry).
 * @counts: per-disk counts after iot_src_read().
 * @opts: how it was opened.
 * @preg: a persistent region (a copy of one, an ELF core's, the module's
 *	"previous"), read as the trace file "iotracectl previous -o" writes
 *	of it (@is_file, @buf holds that file): a copy of the region's
 *	header, the previous boot's identity; NULL for other sources.
 * @preg_left: what of that region was left out (rings that do not
 *	validate, iot_preg_trace()), "" for nothing.
 */
struct iot_src {
	char label[256];
	int is_file, live;
	uint8_t *buf;
	size_t len;
	int mapped, fd;
	int input;
	struct iot_ring ring;
	struct iot_file_info *fi;
	unsigned int nr_disks;
	struct iot_disk *disks;
	struct iot_counts *counts;
	struct iot_src_opts opts;
	struct iotrace_preg_hdr *preg;
	char preg_left[IOT_ERR_LEN];
};

/*
 * String building without printf (the decoders' common cases, per
 * record): each writes at @p, never at or past @end - 1, keeps the string
 * NUL-terminated (@p < @end) and returns its new end, cut as snprintf()
 * would cut it.
 */
static inline char *iot_put_s(char *p, char *end, const char *s)
{
	size_t n;

	if (p >= end)
		return p;
	/* a literal's length is a constant here: one store of its bytes */
	n = strlen(s);
	if (n > (size_t)(end - p - 1))
		n = end - p - 1;
	memcpy(p, s, n);
	p += n;
	*p = 0;
	return p;
}

static inline char *iot_put_u(char *p, char *end, uint64_t v)
{
	char t[IOT_FMT_ROOM + 1];

	if (p >= end)
		return p;
	if (end - p > IOT_FMT_ROOM) {
		p = iot_fmt_u64(p, v);
		*p = 0;
		return p;
	}
	/* near the end: made aside, cut to fit */
	*iot_fmt_u64(t, v) = 0;
	return iot_put_s(p, end, t);
}

/* "0x" and two lower-case hex digits */
static inline char *iot_put_x2(char *p, char *end, unsigned int v)
{
	char t[5] = { '0', 'x', "0123456789abcdef"[(v >> 4) & 15],
		      "0123456789abcdef"[v & 15], 0 };

	return iot_put_s(p, end, t);
}

/* input.c */
extern int iot_strict;
const char *iot_debugfs(void);

/* comm.c: pid -> command name */
#define IOT_COMM_LEN	16

/**
 * struct iot_comms - a table of submitters' names (comm.c); zeroed: empty.
 * @tab: open-addressed slots.
 * @cap: slots (a power of two, 0: none yet).
 * @used: slots in use.
 * @ndirty: entries named or renamed since iot_comm_take_dirty().
 */
struct iot_comms {
	struct comm_ent *tab;
	size_t cap, used, ndirty;
};

int iot_comms_set(struct iot_comms *t, uint32_t pid, const char *comm,
		  size_t len);
const char *iot_comms_get(const struct iot_comms *t, uint32_t pid);
int iot_comms_load_kernel(struct iot_comms *t, const char *debugfs);
void iot_comms_free(struct iot_comms *t);
/* the thread's table, the commands' */
int iot_comm_set(uint32_t pid, const char *comm, size_t len);
const char *iot_comm_get(uint32_t pid);
const char *iot_rec_comm(const struct iotrace_record *r);
int iot_rec_has_pid(const struct iotrace_record *r);
const char *iot_rec_pid(const struct iotrace_record *r, char *buf,
			size_t len);
int iot_comm_load_kernel(void);
int iot_comm_take_dirty(struct iotrace_file_comm **out);
void iot_comm_reset(void);
const char *iot_devdir(void);
int iot_dev_inflight(const char *devdir, const char *disk,
		     struct iot_inflight *t, char *err, size_t errlen);
int iot_dev_absent(int eno);
/*
 * Whether the record is an empty PREFLUSH write never issued itself (the
 * flush machinery ends it after its flush) that carries its allocation
 * time in issue_ns (0 from a module that kept none): its latency is the
 * wait of the fsync() that sent it (Documentation/abi.rst).
 */
static inline int iot_rec_flush_wait(const struct iotrace_record *r)
{
	const uint32_t f = IOTRACE_RF_NO_ISSUE | IOTRACE_RF_PREFLUSH;

	return (r->rflags & f) == f && r->issue_ns;
}

/*
 * The time a record starts: its issue, else (no issue seen, or none
 * recorded) its completion.
 */
static inline uint64_t iot_rec_start(const struct iotrace_record *r)
{
	return (r->rflags & IOTRACE_RF_NO_ISSUE) || !r->issue_ns ?
	       r->complete_ns : r->issue_ns;
}

void iot_src_opts_cmd(struct iot_src_opts *o);
int iot_src_open(struct iot_src *s, const char *arg, char *err,
		 size_t errlen);
int iot_src_open_opts(struct iot_src *s, const char *arg,
		      const struct iot_src_opts *o, char *err, size_t errlen);
int iot_src_open_buf(struct iot_src *s, const char *label, const void *buf,
		     size_t len, char *err, size_t errlen);
int iot_src_open_buf_opts(struct iot_src *s, const char *label,
			  const void *buf, size_t len,
			  const struct iot_src_opts *o, char *err,
			  size_t errlen);
int iot_src_read(struct iot_src *s, iot_rec_cb cb, void *arg, char *err,
		 size_t errlen);
int iot_src_read_merged(struct iot_src *s, int by_start, iot_rec_cb cb,
			void *arg, char *err, size_t errlen);
void iot_src_close(struct iot_src *s);
int iot_src_disk_index(const struct iot_src *s, const char *name);
void iot_src_disk_list(const struct iot_src *s, char *list, size_t len);
void iot_src_read_error(const struct iot_src *s, char *err, size_t errlen);
uint64_t iot_src_start(struct iot_src *src);
int iot_map_live(const char *disk, struct iot_src *s, char *err,
		 size_t errlen);
struct stat;
const char *iot_src_input(const struct stat *st);
const char *iot_src_mapped(const void *addr);

#endif /* IOT_H */
