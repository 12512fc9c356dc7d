// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder: live rings streamed to a trace file until told to stop,
 * for "iotracectl record" (record.c) and the snapshot service's recording
 * (service/watch.c).
 *
 * Per part, a cursor follows the kernel's head: each pass copies what is
 * new to the file (the library's iot_drain_part(), lib/drain.c).
 *
 * What is written is made durable (flushed and fdatasync()ed) at most
 * --sync-interval seconds and --sync-bytes bytes after it was written, so
 * that a crash or a SIGKILL loses no more than that: the readers read such
 * a file up to its last complete chunk.
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

/* Has @w reached --size (@st->max_bytes)? */
static int rec_full(const struct iot_rec_stop *st, const struct iot_writer *w)
{
	return st->max_bytes && w->bytes >= st->max_bytes;
}

/*
 * The requests in flight on each of the @nr disks, into @t (zeroed by the
 * caller), before the last pass over their rings: a request that
 * completes after its table was taken is in both (its completion after
 * the table's at_ns), none is in neither.  A ring already detached
 * (@done) and a disk without a device (its registration failed, or it
 * was removed) have none; another failure is said and the recording goes
 * on.
 */
static void rec_take_inflight(const struct iot_disk *disks,
			      const uint8_t *done, unsigned int nr,
			      const struct iot_rec_stop *st,
			      struct iot_inflight *t)
{
	char err[IOT_ERR_LEN], text[IOT_TEXT_ROOM(IOTRACE_NAME_LEN)];
	unsigned int i;
	int ret;

	for (i = 0; i < nr; i++) {
		if (done[i])
			continue;
		ret = iot_dev_inflight(iot_devdir(), disks[i].name, &t[i], err,
				       sizeof(err));
		if (!ret) {
			t[i].disk = i;
			continue;
		}
		memset(&t[i], 0, sizeof(t[i]));
		if (ret > 0 && iot_dev_absent(errno))
			continue;
		if (ret > 0)
			snprintf(err, sizeof(err), "%s/%s: %s", iot_devdir(),
				 disks[i].name, strerror(errno));
		if (st->infl_err)
			st->infl_err(st->arg, disks[i].name, err);
		else
			fprintf(stderr,
				"record: %s: no requests in flight saved: %s\n",
				iot_text_str(text, sizeof(text), disks[i].name),
				err);
	}
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
	struct iot_inflight *infl = calloc(nr, sizeof(*infl));
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
	if (!parts || !infl || !gen || !done)
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

		last = atomic_load(st->stop) ||
			(st->end_mono_ns &&
			 iot_now(CLOCK_MONOTONIC) >= st->end_mono_ns) ||
			rec_full(st, &w);
		if (last && st->inflight && !rec_full(st, &w)) {
			rec_take_inflight(disks, done, nr, st, infl);
			/* what completes before the pass below: once */
			w.pending = infl;
		}
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
				/* cleared: account what we had, restart at 0 */
				for (p = 0; p < rings[i].nr_parts; p++)
					iot_drain_new_gen(&parts[i][p],
							  &counts[i]);
				gen[i] = g;
				iot_ring_restart(&rings[i]);
			}
			for (p = 0; p < rings[i].nr_parts; p++) {
				if (iot_drain_part(&w, &rings[i], i, p,
						   &parts[i][p], buf,
						   &counts[i], final,
						   st->max_bytes, gen[i]))
					goto wfail;
				if (rec_full(st, &w))
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
	w.pending = NULL;
	for (i = 0; i < nr; i++)
		iot_drain_counts(&rings[i], parts[i], &counts[i]);
	if (st->before_finish && st->before_finish(&w, st->arg))
		goto wfail;
	/* at --size the records after the cut are still in the ring: none */
	if (!rec_full(st, &w))
		for (i = 0; i < nr; i++)
			if (iot_writer_inflight(&w, &infl[i]))
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
	if (infl)
		for (i = 0; i < nr; i++)
			free(infl[i].recs);
	free(infl);
	free(gen);
	free(done);
	free(buf);
	iot_stack_tab_free(&stk.last);
	if (werr)
		errno = werr;
	return ret;
}
