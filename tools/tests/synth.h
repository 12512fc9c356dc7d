/* SPDX-License-Identifier: GPL-2.0 */
/* Synthetic rings, records and trace files for host tests and benchmarks. */
#ifndef SYNTH_H
#define SYNTH_H

#include "iot.h"

uint8_t *synth_ring_new(uint32_t nr_parts, uint32_t part_records,
			uint32_t record_size, const char *name, size_t *len);
void synth_ring_push(uint8_t *ring, uint32_t part,
		     const struct iotrace_record *r);
uint8_t *synth_ring2_new(uint32_t nr_cpus, uint32_t chunk_records,
			 uint32_t nr_chunks, const char *name, size_t *len);
int synth_ring2_push(uint8_t *ring, uint32_t cpu,
		     const struct iotrace_record *r, int publish);
void synth_ring_clear(uint8_t *ring);
void synth_ring_drop(uint8_t *ring, uint32_t part, uint64_t n);
void synth_rec(struct iotrace_record *r, uint64_t i);
uint64_t synth_check(const struct iotrace_record *r);
void synth_stamp(struct iotrace_record *r, uint64_t id);
int synth_write_big(const char *path, uint64_t n, int issue_order);
int synth_write_spread(const char *path, uint64_t n);
int synth_write_longlat(const char *path, uint64_t n, uint64_t lat);

#endif
