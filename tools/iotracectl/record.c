// SPDX-License-Identifier: GPL-2.0
/*
 * record: stream the live rings of one or more disks to a trace file until
 * a duration, a size, or SIGINT/SIGTERM.
 *
 * The recording itself is util/recorder.c's iot_record_rings().  SIGINT
 * and SIGTERM finish the file (the last records, the requests still in
 * flight, the trailer) and stop.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cmd.h"

/* What was recorded of a disk (its name, the kernel's, as text). */
static void say_counts(const struct iot_disk *d, const struct iot_counts *c)
{
	char text[IOT_TEXT_ROOM(IOTRACE_NAME_LEN)];

	fprintf(stderr,
		"%s: %llu records written, %llu lost (%llu overwritten, %llu torn), %llu dropped by the kernel\n",
		iot_text_str(text, sizeof(text), d->name),
		(unsigned long long)c->written, (unsigned long long)c->lost,
		(unsigned long long)c->overwritten,
		(unsigned long long)c->torn, (unsigned long long)c->dropped);
}

static atomic_int stop_flag;

static void on_sig(int sig)
{
	(void)sig;
	atomic_store(&stop_flag, 1);
}

int cmd_record(struct iot_opts *o, int argc, char **argv)
{
	struct iot_src *src = NULL;
	struct iot_ring *rings = NULL;
	struct iot_disk *disks = NULL;
	struct iot_counts *counts = NULL;
	struct iot_rec_stop st = { .stop = &stop_flag, .inflight = 1 };
	struct sigaction sa;
	char err[IOT_ERR_LEN];
	FILE *fp = NULL;
	int i, j, opened = 0, rc = 1, ret;

	if (!argc || !o->out) {
		iot_err("record needs DISK... and -o FILE (the trace file to write)");
		return 2;
	}
	if (argc > IOT_MAX_DISKS) {
		iot_err("record: at most %d disks", IOT_MAX_DISKS);
		return 2;
	}
	src = calloc(argc, sizeof(*src));
	rings = calloc(argc, sizeof(*rings));
	disks = calloc(argc, sizeof(*disks));
	counts = calloc(argc, sizeof(*counts));
	if (!src || !rings || !disks || !counts) {
		iot_err("out of memory");
		goto out;
	}
	for (i = 0; i < argc; i++, opened++) {
		char e[IOT_ERR_LEN];

		if (iot_map_live(argv[i], &src[i], err, sizeof(err))) {
			iot_err("record: %s", err);
			goto out;
		}
		snprintf(src[i].label, sizeof(src[i].label), "%s", argv[i]);
		if (iot_ring_init(&rings[i], src[i].buf, src[i].len, e,
				  sizeof(e))) {
			iot_err("record: %s: %s", argv[i], e);
			opened++;
			goto out;
		}
		/* a ring of size 0 (buf_size=0, resize 0) holds nothing */
		if (rings[i].hdr.flags & IOTRACE_RING_METRICS_ONLY) {
			iot_err("record: %s keeps in-kernel metrics only (ring size 0): nothing to record; `iotracectl resize %s SIZE` gives it a ring",
				argv[i], argv[i]);
			opened++;
			goto out;
		}
		iot_ring_disk(&rings[i], &disks[i]);
		if (!disks[i].name[0])
			snprintf(disks[i].name, sizeof(disks[i].name), "%s",
				 argv[i]);
		/* the same ring twice: each record would be written twice */
		for (j = 0; j < i; j++)
			if (disks[j].dev_major == disks[i].dev_major &&
			    disks[j].dev_minor == disks[i].dev_minor &&
			    !strcmp(disks[j].name, disks[i].name)) {
				iot_err("record: %s given twice", argv[i]);
				opened++;
				rc = 2;
				goto out;
			}
	}
	fp = strcmp(o->out, "-") ? iot_out_fopen(o->out) : stdout;
	if (!fp)
		goto out;	/* said */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sig;
	sa.sa_flags = SA_RESTART;	/* a write to a pipe is not cut */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* a closed output pipe is said, not a silent end */
	iot_out_no_sigpipe();
	if (o->duration)
		st.end_mono_ns = iot_now(CLOCK_MONOTONIC) +
			(uint64_t)(o->duration * 1e9);
	st.max_bytes = o->size;
	st.poll_ms = o->poll_ms;
	st.sync_ns = (uint64_t)(o->sync_interval * 1e9);
	st.sync_bytes = o->sync_bytes;
	ret = iot_record_rings(rings, disks, argc, fp, &st, counts, err,
			       sizeof(err));
	if (ret == -3) {
		iot_write_error(fp == stdout ? "standard output" : o->out,
				errno);
		goto out;
	}
	if (ret) {
		iot_err("record: %s: %s", o->out, err);
		goto out;
	}
	for (i = 0; i < argc; i++)
		say_counts(&disks[i], &counts[i]);
	rc = 0;
out:
	if (fp && fp != stdout && iot_out_close(fp, o->out))
		rc = 1;
	for (i = 0; i < opened; i++)
		if (src[i].mapped == 1)
			iot_src_close(&src[i]);
	free(src);
	free(rings);
	free(disks);
	free(counts);
	return rc;
}
