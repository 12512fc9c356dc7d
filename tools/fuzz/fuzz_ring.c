// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the ring reader (iot_ring_init, iot_ring_snapshot) on
 * arbitrary bytes, as "iotracectl show SNAPSHOT.ring" reads a copy of a
 * debugfs ring, and as show -f's follower polls a live one.  Inputs
 * without the ring magic get it prepended.  Every record found goes
 * through the decoders; the recorder's lookups (its passes) run too.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[IOT_ERR_LEN] = "";
	static struct iotrace_record run[16];
	struct iot_ring_follow f;
	struct iot_counts c;
	struct iot_src s;
	struct iot_disk d;
	uint32_t p;
	uint8_t *buf;
	size_t len = size;

	if (size >= 4 && !memcmp(data, "IOTR", 4)) {
		buf = fuzz_copy(data, size);
	} else {
		len = size + 4;
		buf = malloc(len);
		if (!buf)
			abort();
		memcpy(buf, "IOTR", 4);
		memcpy(buf + 4, data, size);
	}
	if (!iot_src_open_buf(&s, "fuzz", buf, len, err, sizeof(err))) {
		if (s.is_file)
			abort();
		iot_src_read(&s, fuzz_record, NULL, err, sizeof(err));
		/* the per-part accessors "show" and the live reader use */
		memset(&c, 0, sizeof(c));
		iot_ring_disk(&s.ring, &d);
		if (strnlen(d.name, sizeof(d.name)) == sizeof(d.name))
			abort();
		for (p = 0; p < s.ring.nr_parts && p < 64; p++) {
			c.recorded += iot_ring_head(&s.ring, p);
			c.dropped += iot_ring_dropped(&s.ring, p);
			(void)iot_ring_gone(&s.ring, p, 0);
		}
		/* the recorder's passes (their index) over the first runs */
		for (p = 0; p < s.ring.nr_parts && p < 64; p++) {
			uint64_t q = iot_ring_lo(&s.ring, p);
			uint32_t i, n;

			iot_ring_pass_begin(&s.ring, p);
			for (i = 0; i < 64; i++) {
				if (!iot_ring_copy_run(&s.ring, p, q, 16, run,
						       &n)) {
					q += n;
					continue;
				}
				q += n;
				if (iot_ring_gone(&s.ring, p, q))
					q = iot_ring_next(&s.ring, p, q);
				else
					q++;
			}
			iot_ring_pass_end(&s.ring);
		}
		/*
		 * show -f's follower, as if the ring had been cleared since
		 * it started: every record from the parts' first on (what a
		 * corrupt head or generation makes of the loop is the point)
		 */
		if (iot_ring_follow_init(&f, &s.ring))
			abort();
		f.gen = ~f.gen;
		iot_ring_follow_poll(&f, fuzz_record, NULL);
		iot_ring_follow_poll(&f, fuzz_record, NULL);
		iot_ring_follow_free(&f);
	}
	if (strnlen(err, sizeof(err)) == sizeof(err))
		abort();
	iot_src_close(&s);
	free(buf);
	return FUZZ_DONE;
}
