/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the libFuzzer harnesses: a record callback that runs every
 * record through the decoders, as "show" does.  (The statistics are left
 * out: resetting their histograms costs megabytes of memset per input.)
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "iot.h"

/* Harnesses return this to libFuzzer; anything else is reserved. */
#define FUZZ_DONE	0

/*
 * Decode one record into an exact-size heap buffer whose size the record's
 * tag picks (1 to 256 bytes): ASan sees a decoder writing past the length
 * it is given, and every result must be NUL-terminated.
 */
static int fuzz_record(void *arg, unsigned int disk,
		       const struct iotrace_record *r)
{
	static const size_t sizes[] = { 1, 7, 24, 256 };
	size_t n = sizes[r->tag & 3];
	char *out = malloc(n);

	(void)arg;
	(void)disk;
	if (!out)
		abort();
	iot_decode_cmd(r, out, n);
	if (strnlen(out, n) == n)
		abort();
	iot_decode_status(r, out, n);
	if (strnlen(out, n) == n)
		abort();
	iot_opflags_str(r, out, n);
	if (strnlen(out, n) == n)
		abort();
	iot_errno_name(r->error, out, n);
	if (strnlen(out, n) == n)
		abort();
	free(out);
	(void)iot_op_name(r->op);
	return 0;
}

/* An 8-byte aligned copy of the input, exactly @size bytes long. */
static uint8_t *fuzz_copy(const uint8_t *data, size_t size)
{
	uint8_t *p = malloc(size ? size : 1);

	if (!p)
		abort();
	memcpy(p, data, size);
	return p;
}

#endif /* FUZZ_COMMON_H */
