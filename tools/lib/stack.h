/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stacked devices (issue 49): the device-mapper tables, md RAID1 layouts
 * and partitions above the traced disks, read from the running system,
 * saved in a trace file (IOTRACE_CHUNK_STACK) and used to say, for a
 * record of a physical disk, which logical device and sector it is of.
 */
#ifndef IOT_STACK_H
#define IOT_STACK_H

#include <stddef.h>
#include <stdint.h>
#include "iot.h"

/**
 * struct iot_stack_tab - the stack as read at one time (one chunk).
 * @mono_ns: CLOCK_MONOTONIC ns when it was read.
 * @source: IOTRACE_STACK_SRC_* bits.
 * @nr_devs: devices in @devs.
 * @nr_segs: segments in @segs.
 * @devs: the block devices (disks, partitions, dm, md).
 * @segs: how sectors of one are sectors of another.
 */
struct iot_stack_tab {
	uint64_t mono_ns;
	uint32_t source;
	unsigned int nr_devs, nr_segs;
	struct iotrace_file_stack_dev *devs;
	struct iotrace_file_stack_seg *segs;
};

/**
 * struct iot_stack - the tables of a trace file (or of the running
 *	system: one), oldest first.
 * @n: tables.
 * @t: the tables.
 */
struct iot_stack {
	unsigned int n;
	struct iot_stack_tab *t;
};

/**
 * struct iot_stack_hop - where a sector of a disk is one level up.
 * @dev: index of the upper device in the table's @devs.
 * @sector: the sector there.
 * @type: IOTRACE_STACK_SEG_* of the segment.
 * @partial: the request runs past the end of the segment.
 */
struct iot_stack_hop {
	unsigned int dev;
	uint64_t sector;
	uint32_t type;
	int partial;
};

/* the most levels iot_stack_map() follows */
#define IOT_STACK_DEPTH	16

int iot_stack_read_system(struct iot_stack_tab *t, char *err, size_t errlen);
int iot_stack_parse_dm(struct iot_stack_tab *t, unsigned int upper,
		       const char *line);
int iot_stack_encode(const struct iot_stack_tab *t, uint8_t **out,
		     size_t *len);
int iot_stack_decode(struct iot_stack_tab *t, const void *p, size_t len);
int iot_stack_same(const struct iot_stack_tab *a,
		   const struct iot_stack_tab *b);
int iot_stack_has_upper(const struct iot_stack_tab *t);
void iot_stack_tab_free(struct iot_stack_tab *t);
void iot_stack_free(struct iot_stack *st);
const struct iot_stack_tab *iot_stack_at(const struct iot_stack *st,
					 uint64_t ns);
int iot_stack_map(const struct iot_stack_tab *t, const char *disk,
		  uint32_t major, uint32_t minor, uint64_t sector,
		  uint32_t bytes, struct iot_stack_hop *hops, int max);
const char *iot_stack_name(const struct iot_stack_tab *t, unsigned int dev);
int iot_stack_top(const struct iot_stack *st, const struct iot_disk *d,
		  const struct iotrace_record *r, const char **name,
		  uint64_t *sector, int *partial);
int iot_writer_stack(struct iot_writer *w, const struct iot_stack_tab *t);
int iot_file_stacks(const void *buf, size_t len, struct iot_file_info *fi,
		    struct iot_stack *st);
int iot_src_stack(struct iot_src *src, struct iot_stack *st, char *err,
		  size_t errlen);

#endif /* IOT_STACK_H */
