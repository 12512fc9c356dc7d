// SPDX-License-Identifier: GPL-2.0
/*
 * record: stream the live rings of one or more disks to a trace file until
 * a duration, a size, or SIGINT/SIGTERM.
 *
 * Per part, a cursor follows the kernel's head: each pass copies what is
 * new to the file (the library's iot_drain_part(), lib/drain.c).
 *
 * What is written is made durable (flushed and fdatasync()ed) at most
 * --sync-interval seconds and --sync-bytes bytes after it was written, so
 * that a crash or a SIGKILL loses no more than that: the readers read such
 * a file up to its last complete chunk.  SIGINT and SIGTERM finish the
 * file (the last records, the trailer) and stop.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "cmd.h"
#include "stack.h"

#define ERR(...) snprintf(err, errlen, __VA_ARGS__)

#define COMMS_EVERY_NS	100000000ull	/* command names read every 100 ms */

/*
 * The command names the kernel noted that the file does not have yet, as
 * a chunk (read every COMMS_EVERY_NS and at the end: a name is noted when
 * a pid first submits, before any of its requests completes).  Returns -1
 * on a write error; names that cannot be read are left out.
 */
static int write_comms(struct iot_writer *w, uint64_t *last, int final)
{
	struct iotrace_file_comm *v;
	uint64_t now = iot_now(CLOCK_MONOTONIC);
	int n, ret;

	if (!final && *last && now - *last < COMMS_EVERY_NS)
		return 0;
	*last = now;
	if (iot_comm_load_kernel() < 0)
		return 0;
	n = iot_comm_take_dirty(&v);
	if (n <= 0)
		return 0;
	ret = iot_writer_comms(w, v, (uint32_t)n);
	free(v);
	return ret;
}

/* the device stack is read again this often, and saved when it changed */
#define STACK_EVERY_NS	(5ull * 1000000000ull)

/**
 * struct rec_stack - what record saved of the device stack.
 * @last: the tables read last.
 * @when: CLOCK_MONOTONIC ns of that read (0: none yet).
 * @written: a stack chunk is in the file.
 */
struct rec_stack {
	struct iot_stack_tab last;
	uint64_t when;
	int written;
};

/*
 * The device-mapper and md devices above the disks (stack.c): read at the
 * start and every STACK_EVERY_NS, written as a stack chunk the first time
 * there is one (a system with none has no chunk) and whenever they
 * changed.  A failure to read them is said once, at the start; the
 * recording goes on.  Returns -1 on a write error.
 */
static int write_stack(struct iot_writer *w, struct rec_stack *rs)
{
	uint64_t now = iot_now(CLOCK_MONOTONIC);
	struct iot_stack_tab t;
	char err[IOT_ERR_LEN];
	int first = !rs->when, ret = 0;

	if (!first && now - rs->when < STACK_EVERY_NS)
		return 0;
	rs->when = now;
	memset(&t, 0, sizeof(t));
	if (iot_stack_read_system(&t, err, sizeof(err))) {
		if (first)
			fprintf(stderr, "record: the device stack is not saved: %s\n",
				err);
		return 0;
	}
	if (first && err[0])
		fprintf(stderr, "record: %s\n", err);
	t.mono_ns = now;
	if (rs->written ? !iot_stack_same(&t, &rs->last) :
	    iot_stack_has_upper(&t)) {
		ret = iot_writer_stack(w, &t);
		rs->written = 1;
	}
	iot_stack_tab_free(&rs->last);
	rs->last = t;
	return ret;
}

/**
 * rec_sync() - make what was written to @w durable: flush it and
 *	fdatasync() the file.
 * @w: the writer.
 * @synced: bytes of @w already durable; updated.
 *
 * An output that cannot be synced (a pipe, a terminal, /dev/null) is only
 * flushed.
 *
 * Return: 0, or -1 on a write or sync error (errno set).
 */
static int rec_sync(struct iot_writer *w, uint64_t *synced)
{
	if (fflush(w->fp))
		return -1;
	if (fdatasync(iot_out_fileno(w->fp)) && errno != EINVAL &&
	    errno != EROFS && errno != ENOTSUP)
		return -1;
	*synced = w->bytes;
	return 0;
}

/* A ring that went: its disk's name (the kernel's) as text. */
static void say_detached(const struct iot_disk *d)
{
	char text[IOT_TEXT_ROOM(IOTRACE_NAME_LEN)];

	fprintf(stderr,
		"record: %s: the ring was detached (disk removed or ring resized): its recording ends here\n",
		iot_text_str(text, sizeof(text), d->name));
}

/**
 * iot_record_rings() - record rings to @fp until told to stop.
 * @rings: ring views (live mmaps or in-memory rings being written).
 * @disks: their disk descriptions.
 * @nr: number of rings.
 * @fp: output stream.
 * @st: stop conditions.
 * @counts: per-ring counts, filled.
 * @err: error message buffer.
 * @errlen: its size.
 *
 * Return: 0, -1 with @err set, or -3 when writing @fp failed (@err says
 * why).
 */
int iot_record_rings(struct iot_ring *rings, const struct iot_disk *disks,
		     unsigned int nr, FILE *fp, const struct iot_rec_stop *st,
		     struct iot_counts *counts, char *err, size_t errlen)
{
	struct iot_drain_part **parts = calloc(nr, sizeof(*parts));
	uint64_t *gen = calloc(nr, sizeof(*gen));
	uint8_t *done = calloc(nr, 1);
	uint32_t rs = sizeof(struct iotrace_record), p;
	struct iot_writer w;
	struct utsname u;
	uint8_t *buf = NULL;
	uint64_t comms_ns = 0, sync_ns, synced = 0;
	struct rec_stack stk;
	unsigned int i;
	int ret = -1, last = 0, live, werr = 0;

	memset(&stk, 0, sizeof(stk));
	if (!parts || !gen || !done)
		goto nomem;
	buf = calloc(IOT_DRAIN_CHUNK, rs);
	if (!buf)
		goto nomem;
	if (uname(&u))
		memset(&u, 0, sizeof(u));
	for (i = 0; i < nr; i++) {
		parts[i] = calloc(rings[i].nr_parts, sizeof(**parts));
		if (!parts[i])
			goto nomem;
		gen[i] = iot_ring_generation(&rings[i]);
		/* start with what the ring holds now (a hold too) */
		iot_drain_init(&rings[i], parts[i]);
		memset(&counts[i], 0, sizeof(counts[i]));
	}
	if (iot_writer_start(&w, fp, rs, disks, nr, iot_now(CLOCK_MONOTONIC),
			     iot_now(CLOCK_REALTIME), u.release, u.nodename))
		goto wfail;
	sync_ns = iot_now(CLOCK_MONOTONIC);
	while (!last) {
		uint64_t before = w.bytes;

		last = *st->stop ||
			(st->end_mono_ns &&
			 iot_now(CLOCK_MONOTONIC) >= st->end_mono_ns) ||
			(st->max_bytes && w.bytes >= st->max_bytes);
		live = 0;
		if (write_comms(&w, &comms_ns, last))
			goto wfail;
		if (write_stack(&w, &stk))
			goto wfail;
		for (i = 0; i < nr; i++) {
			uint64_t g = iot_ring_generation(&rings[i]);
			int final = last;

			if (done[i])
				continue;
			/*
			 * A detached ring (its disk removed, or replaced by a
			 * resize) is final: drain it once more and stop.
			 */
			if (iot_ring_detached(&rings[i])) {
				final = 1;
				done[i] = 1;
				say_detached(&disks[i]);
			} else {
				live++;
			}

			if (g != gen[i]) {
				/*
				 * cleared: account what we had (each cursor
				 * moved in its generation only: no wrap),
				 * restart at 0
				 */
				for (p = 0; p < rings[i].nr_parts; p++) {
					struct iot_drain_part *rp;

					rp = &parts[i][p];
					counts[i].recorded += rp->cur -
						rp->start_head;
					rp->cur = 0;
					rp->start_head = 0;
					rp->start_dropped = 0;
					rp->start_filtered = 0;
				}
				gen[i] = g;
				iot_ring_restart(&rings[i]);
			}
			for (p = 0; p < rings[i].nr_parts; p++) {
				if (iot_drain_part(&w, &rings[i], i, p,
						   &parts[i][p], buf,
						   &counts[i], final,
						   st->max_bytes, gen[i]))
					goto wfail;
				if (st->max_bytes && w.bytes >= st->max_bytes)
					break;
			}
		}
		/* durable within --sync-interval and --sync-bytes */
		if (w.bytes != synced && !last &&
		    ((st->sync_ns &&
		      iot_now(CLOCK_MONOTONIC) - sync_ns >= st->sync_ns) ||
		     (st->sync_bytes && w.bytes - synced >= st->sync_bytes))) {
			if (rec_sync(&w, &synced))
				goto wfail;
			sync_ns = iot_now(CLOCK_MONOTONIC);
		}
		if (!live && !last) {
			fprintf(stderr, "record: no ring left to record: stopping\n");
			break;
		}
		if (!last && w.bytes == before && st->poll_ms) {
			struct timespec ts = {
				.tv_sec = st->poll_ms / 1000,
				.tv_nsec = (st->poll_ms % 1000) * 1000000L,
			};

			nanosleep(&ts, NULL);
		}
	}
	for (i = 0; i < nr; i++)
		iot_drain_counts(&rings[i], parts[i], &counts[i]);
	if (st->before_finish && st->before_finish(&w, st->arg))
		goto wfail;
	if (iot_writer_finish(&w, counts, iot_now(CLOCK_MONOTONIC),
			      iot_now(CLOCK_REALTIME)))
		goto wfail;
	/* the trailer too: a finished recording survives a crash */
	if ((st->sync_ns || st->sync_bytes) && rec_sync(&w, &synced))
		goto wfail;
	ret = 0;
	goto out;
nomem:
	ERR("out of memory");
	goto out;
wfail:
	werr = errno ? errno : EIO;
	ERR("%s", strerror(werr));
	ret = -3;	/* a failed write */
out:
	if (parts)
		for (i = 0; i < nr; i++)
			free(parts[i]);
	free(parts);
	free(gen);
	free(done);
	free(buf);
	iot_stack_tab_free(&stk.last);
	if (werr)
		errno = werr;
	return ret;
}

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

static volatile int stop_flag;

static void on_sig(int sig)
{
	(void)sig;
	stop_flag = 1;
}

int cmd_record(struct iot_opts *o, int argc, char **argv)
{
	struct iot_src *src = NULL;
	struct iot_ring *rings = NULL;
	struct iot_disk *disks = NULL;
	struct iot_counts *counts = NULL;
	struct iot_rec_stop st = { .stop = &stop_flag };
	struct sigaction sa;
	char err[IOT_ERR_LEN];
	FILE *fp = NULL;
	int i, opened = 0, rc = 1, ret;

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
		iot_ring_disk(&rings[i], &disks[i]);
		if (!disks[i].name[0])
			snprintf(disks[i].name, sizeof(disks[i].name), "%s",
				 argv[i]);
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
