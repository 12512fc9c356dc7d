// SPDX-License-Identifier: GPL-2.0
/*
 * iotracectl watch: the snapshot service (issue 21), and iotracectl
 * snapshot, which asks a running watcher for one.
 *
 * Triggers come from the kernel (trigger events, watch_nl.c), SIGUSR1
 * (every watched disk) and the control socket RUN_DIR/watch.sock
 * ("snapshot [DISK]" lines); all go through watch_on_trigger().  The main
 * thread takes them in; a dispatcher thread gathers the disks whose
 * snapshot is pending into a job and starts a saver thread for it, which
 * writes the ring's records at the time it starts plus those completed up
 * to the trigger time + --post (the recording loop of "record"), then a
 * trigger chunk per disk, the trailer, fsync and a rename from a hidden
 * temporary name, so a snapshot file is whole or not there.  One saver
 * per disk: a disk is in at most one job at a time (its triggers meanwhile
 * join or queue, below), and the jobs of other disks run beside it, so a
 * disk's --post never holds another disk's snapshot back.
 *
 * A watched disk that goes and comes back (the module's "added" event) is
 * made ready again as at the start: resized, its triggers given to the
 * kernel (a new disk has none), then enabled; a disk given by wwn=,
 * serial= or by-id= is looked up again, under whatever name it has now.
 * save() looks each disk up again too (watch_recheck()): a disk whose
 * name another disk took is left out, and the identity in the trigger
 * chunk is the disk's at the snapshot.
 *
 * Episodes, per disk:
 *   - a trigger starts an episode and a snapshot, unless the disk's
 *     snapshot is pending or being saved (its trigger chunk not yet
 *     written): then a trigger within --episode of the episode's first
 *     joins it (counted in the chunk's @extra);
 *   - a trigger later than that, while the snapshot is still being saved,
 *     queues one next snapshot of the disk, which starts when the current
 *     one is done; later triggers join the queued one, whatever their time;
 *   - starting or queueing a snapshot counts against --max-per-hour
 *     (snapshots in the last 3600 s); a trigger over the limit is refused,
 *     said once an hour with the number refused since.
 * After each snapshot the oldest snapshot files of the directory go until
 * at most --max-files and --max-bytes remain (the newest always stays).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "macros.h"
#include "trigger.h"
#include "watch.h"

#define NS_PER_S	1000000000ull
#define HOUR_NS		(3600ull * NS_PER_S)
#define SNAP_PREFIX	"iotrace-"
#define SNAP_SUFFIX	".iot"
#define TMP_PREFIX	".iotrace-"
#define TMP_SUFFIX	".tmp"
/* a client of the control socket sends its line within this, in all */
#define CLIENT_DEADLINE_MS	1000
/*
 * The disks' part of a snapshot's file name, at most: their names joined
 * by '+', else the first one's and "+N-more" (the file lists them all), so
 * that the name stays well under NAME_MAX whatever the number of disks.
 */
#define SNAP_NAMES_MAX	128

/**
 * struct watch - the watcher.
 * @c: configuration.
 * @mu: protects everything below.
 * @cv: the saver waits on it.
 * @d: per watched disk.
 * @pending: disks whose @cur waits for the saver.
 * @stop: SIGTERM or SIGINT: the saver cuts the snapshot short and ends.
 * @number: snapshots started.
 * @starts: start times of the last @c->max_per_hour snapshots (a ring).
 * @nstarts: entries used in @starts.
 * @refused: triggers refused since the last message about it.
 * @refused_total: all refused.
 * @refuse_said_ns: when the last refusal was said (0: never).
 * @saved: snapshot files written.
 * @running: saver threads running.
 * @o: the command's options (enable and resize of a disk that came back).
 * @rmu: one retention pass at a time.
 */
struct watch {
	struct watch_conf *c;
	struct iot_opts *o;
	pthread_mutex_t mu, rmu;
	pthread_cond_t cv;
	struct watch_ep d[WATCH_MAX_DISKS];
	int pending;
	atomic_int stop;
	uint64_t number;
	uint64_t *starts;
	uint64_t nstarts;
	uint64_t refused, refused_total, refuse_said_ns;
	uint64_t saved;
	int running;
};

/* the longest line watch_info() prints whole (before its escapes) */
#define WATCH_INFO_MAX	4096

static __printf(1, 2) void watch_info(const char *fmt, ...);

/*
 * One line of the log.  What it names came from the kernel (disk names),
 * the disks (model, serial, wwn), a client of the socket or a file: the
 * line is printed as the text outputs print a name (iot_text_str()), so
 * that none of it can end the line or send a terminal an escape.
 */
static void watch_info(const char *fmt, ...)
{
	char line[WATCH_INFO_MAX], text[IOT_TEXT_ROOM(WATCH_INFO_MAX)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	iot_text_str(text, sizeof(text), line);
	/* one line, whatever the other threads say */
	fprintf(stderr, "iotracectl watch: %s\n", text);
}

/* Room for one more snapshot this hour (@now): 1, or 0 when refused. */
static int rate_ok(struct watch *w, uint64_t now, const char *what)
{
	uint64_t max = w->c->max_per_hour, oldest;

	if (w->nstarts >= max) {
		oldest = w->starts[(w->nstarts - max) % max];
		if (now - oldest < HOUR_NS) {
			w->refused++;
			w->refused_total++;
			if (!w->refuse_said_ns ||
			    now - w->refuse_said_ns >= HOUR_NS) {
				watch_info("%s: trigger refused: %llu snapshots began in the last hour (max-per-hour); %llu refused since this was last said; the next refusals are said in an hour",
					   what, (unsigned long long)max,
					   (unsigned long long)w->refused);
				w->refuse_said_ns = now;
				w->refused = 0;
			}
			return 0;
		}
	}
	w->starts[w->nstarts % max] = now;
	w->nstarts++;
	return 1;
}

/*
 * What the log and replies call configured disk @d: its name, or its
 * section (wwn=, serial=, by-id=) while it is not present.
 */
static const char *disk_label(const struct watch_disk *d)
{
	return d->name[0] ? d->name : d->spec;
}

static int disk_index(const struct watch *w, const char *name)
{
	unsigned int i;

	for (i = 0; i < w->c->nr_disks; i++)
		if (!strcmp(w->c->disks[i].name, name))
			return (int)i;
	return -1;
}

/**
 * struct rate_once - max-per-hour, asked once for a trigger, whatever the
 *	number of its disks (one quota unit per trigger).
 * @w: the watcher.
 * @t: the trigger.
 * @checked: asked.
 * @passed: the answer.
 */
struct rate_once {
	struct watch *w;
	const struct watch_trig *t;
	int checked, passed;
};

static int rate_once(void *arg)
{
	struct rate_once *r = arg;

	if (!r->checked) {
		r->checked = 1;
		r->passed = rate_ok(r->w, iot_now(CLOCK_MONOTONIC),
				    r->t->disk[0] ? r->t->disk : "all disks");
	}
	return r->passed;
}

/*
 * Count the module's event @t of disk @d (watch_events_lost() compares).
 * Its own count when the event has one: an event both received and made
 * up for after a loss is not counted twice, and a count the module
 * started again (triggers set by someone else) is followed.  An event of
 * an epoch (genl version 7) below the disk's was sent before the set
 * that started the disk's count (the watcher's own, when the disk came
 * back while events waited) and received after: not of that count.
 */
static void take_kcount(struct watch_disk *d, const struct watch_trig *t)
{
	if (!t->kevents) {
		d->kevents++;
		return;
	}
	if (t->kepoch && t->kepoch < d->kepoch)
		return;
	d->kevents = t->kevents;
	if (t->kepoch)
		d->kepoch = t->kepoch;
}

/**
 * watch_on_trigger() - a trigger, from any source: the kernel's event,
 *	SIGUSR1, or "iotracectl snapshot".
 * @w: the watcher.
 * @t: the trigger; an empty @t->disk is every watched disk.
 * @reply: what happened to it, one line per disk ("DISK: started", ...).
 * @replylen: its size.
 *
 * Return: 0, or -1 when @t->disk is not watched.
 */
int watch_on_trigger(struct watch *w, const struct watch_trig *t,
		     char *reply, size_t replylen)
{
	struct rate_once rate = { .w = w, .t = t };
	int refused = 0, release = 0, i, k;
	char err[IOT_ERR_LEN];
	size_t used = 0;

	reply[0] = 0;
	k = t->disk[0] ? disk_index(w, t->disk) : -1;
	if (t->disk[0] && k < 0) {
		size_t n = (size_t)snprintf(reply, replylen,
				"error: %s is not watched (watching:", t->disk);

		for (i = 0; i < (int)w->c->nr_disks && n < replylen; i++)
			n += (size_t)snprintf(reply + n, replylen - n, " %s",
					      disk_label(&w->c->disks[i]));
		if (n < replylen)
			snprintf(reply + n, replylen - n, ")");
		return -1;
	}
	pthread_mutex_lock(&w->mu);
	/* the module's events of a disk are counted: watch_events_lost() */
	if (k >= 0 && !(t->reason & (IOTRACE_FILE_TRIG_MANUAL |
				     IOTRACE_FILE_TRIG_LOST)))
		take_kcount(&w->c->disks[k], t);
	for (i = 0; i < (int)w->c->nr_disks; i++) {
		enum watch_ep_what what;

		if (k >= 0 && i != k)
			continue;
		/* not present since the start: nothing to save */
		if (!w->c->disks[i].name[0]) {
			if (used < replylen)
				used += (size_t)snprintf(reply + used,
							 replylen - used,
							 "%s%s: not present",
							 used ? "; " : "",
							 w->c->disks[i].spec);
			continue;
		}
		what = watch_ep_trigger(&w->d[i], t, w->c->episode_ns,
					rate_once, &rate);
		if (what == WATCH_EP_STARTED)
			w->pending++;
		refused |= what == WATCH_EP_REFUSED;
		if (used < replylen)
			used += (size_t)snprintf(reply + used, replylen - used,
						 "%s%s: %s", used ? "; " : "",
						 w->c->disks[i].name,
						 watch_ep_said(what));
	}
	/* a hold no episode has: no snapshot will copy it */
	release = refused && k >= 0 && t->hold_hi &&
		  !watch_ep_holds(&w->d[k], t);
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	if (t->kevents)
		watch_info("trigger (kernel, event %llu of %s): %s",
			   (unsigned long long)t->kevents, t->disk, reply);
	else
		watch_info("trigger (%s): %s",
			   t->reason & IOTRACE_FILE_TRIG_MANUAL ? "manual" :
			   t->reason & IOTRACE_FILE_TRIG_LOST ?
			   "kernel, events lost" : "kernel", reply);
	/* no snapshot will copy the hold the kernel set: the ring gets it back */
	if (release) {
		if (watch_nl_release_hold(t->disk, t, err, sizeof(err)))
			watch_info("%s: cannot release the hold %llu: %s (it expires by itself)",
				   t->disk, (unsigned long long)t->hold_hi,
				   err);
		else
			watch_info("%s: hold %llu released (no snapshot)",
				   t->disk, (unsigned long long)t->hold_hi);
	}
	return 0;
}

/* ---- saving -------------------------------------------------------------- */

/**
 * struct job - the snapshot being saved.
 * @w: the watcher.
 * @nr: disks.
 * @idx: their index in the configuration.
 * @fidx: their index in the file (the rings that could be mapped).
 * @end_ns: the end of --post.
 * @save_ns: when the copy began.
 * @number: the snapshot's ordinal.
 * @nr_all: disks of the job as it was given (@all).
 * @all: their index in the configuration, all of them (@idx keeps only
 *	those whose ring could be mapped).
 */
struct job {
	struct watch *w;
	unsigned int nr, nr_all;
	unsigned int all[WATCH_MAX_DISKS];
	unsigned int idx[WATCH_MAX_DISKS];
	unsigned int fidx[WATCH_MAX_DISKS];
	uint64_t end_ns, save_ns, number;
};

static void th_to_file(const struct watch_th *th, struct iotrace_file_trigger *t)
{
	unsigned int i;

	for (i = 0; i < IOTRACE_NR_MOPS; i++)
		t->lat_ns[i] = th->lat_ns[i];
	t->th_flags = th->flags;
	t->requeues = th->requeues;
	t->stuck_ns = th->stuck_ns;
	for (i = 0; i < th->nr_errnos && i < IOTRACE_FILE_TH_ERRNOS; i++)
		t->errnos[i] = th->errnos[i];
}

/* The disk's conditions: its own, else the configuration's default. */
static const struct watch_th *disk_th(const struct watch_conf *c,
				      const struct watch_disk *d)
{
	if (d->th.set > 0)
		return &d->th;
	if (d->th.set < 0 || !c->th.set)
		return NULL;
	return &c->th;
}

/*
 * record's: the requests still in flight on @disk as the snapshot ends (a
 * stuck request has no record yet: the snapshot names it in its in-flight
 * chunk) could not be read; the snapshot is saved without them.
 */
static void inflight_err(void *arg, const char *disk, const char *why)
{
	const struct job *j = arg;

	watch_info("snapshot %llu: %s: no requests in flight saved: %s",
		   (unsigned long long)j->number, disk, why);
}

/* record's hook: the trigger chunks, before the trailer */
static int write_triggers(struct iot_writer *wr, void *arg)
{
	struct job *j = arg;
	struct watch *w = j->w;
	uint64_t now_mono = iot_now(CLOCK_MONOTONIC);
	uint64_t now_real = iot_now(CLOCK_REALTIME);
	struct iotrace_file_trigger *t = calloc(j->nr, sizeof(*t));
	unsigned int k;
	int ret = 0;

	if (!t)
		return -1;
	pthread_mutex_lock(&w->mu);
	for (k = 0; k < j->nr; k++) {
		struct watch_ep *d = &w->d[j->idx[k]];
		const struct watch_disk *cd = &w->c->disks[j->idx[k]];
		const struct watch_th *th = disk_th(w->c, cd);
		const struct watch_trig *tr = &d->cur.trig;

		t[k].reason = tr->reason;
		if (tr->have_seq) {
			t[k].flags |= IOTRACE_FILE_TRIGF_SEQ;
			t[k].cpu = tr->cpu;
			t[k].seq = tr->seq;
		}
		if (d->cur.queued)
			t[k].flags |= IOTRACE_FILE_TRIGF_QUEUED;
		if (atomic_load(&w->stop) && now_mono < j->end_ns)
			t[k].flags |= IOTRACE_FILE_TRIGF_POST_CUT;
		t[k].extra = d->cur.extra;
		t[k].mono_ns = tr->mono_ns;
		t[k].real_ns = now_real - (now_mono - tr->mono_ns);
		t[k].save_mono_ns = j->save_ns;
		t[k].post_ns = w->c->post_ns;
		t[k].episode_ns = w->c->episode_ns;
		t[k].number = j->number;
		if (th)
			th_to_file(th, &t[k]);
		memcpy(t[k].model, cd->model, sizeof(t[k].model));
		memcpy(t[k].serial, cd->serial, sizeof(t[k].serial));
		memcpy(t[k].wwn, cd->wwn, sizeof(t[k].wwn));
		d->state = EP_CLOSED;	/* later triggers: the next one */
	}
	pthread_mutex_unlock(&w->mu);
	for (k = 0; k < j->nr && !ret; k++)
		ret = iot_writer_trigger(wr, j->fidx[k], &t[k]);
	free(t);
	return ret;
}

/**
 * struct snapfile - a snapshot file of the directory.
 * @name: its name.
 * @mtime: modification time.
 * @size: bytes.
 */
struct snapfile {
	char name[256];
	struct timespec mtime;
	uint64_t size;
};

static int snap_cmp(const void *a, const void *b)
{
	const struct snapfile *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int is_snap(const char *n)
{
	size_t l = strlen(n);

	return !strncmp(n, SNAP_PREFIX, strlen(SNAP_PREFIX)) &&
	       l > strlen(SNAP_SUFFIX) &&
	       !strcmp(n + l - strlen(SNAP_SUFFIX), SNAP_SUFFIX);
}

/*
 * Remove the oldest snapshot files of the directory until at most
 * max-files and max-bytes remain; the newest stays, whatever its size.
 */
static void retention(struct watch *w)
{
	struct snapfile *v = NULL;
	size_t n = 0, cap = 0, i;
	uint64_t bytes = 0;
	struct dirent *de;
	DIR *dir;

	pthread_mutex_lock(&w->rmu);
	dir = opendir(w->c->dir);
	if (!dir) {
		pthread_mutex_unlock(&w->rmu);
		return;
	}
	while ((de = readdir(dir))) {
		char p[2048];
		struct stat st;

		if (!is_snap(de->d_name) || strlen(de->d_name) >= 256)
			continue;
		snprintf(p, sizeof(p), "%s/%s", w->c->dir, de->d_name);
		if (stat(p, &st) || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			struct snapfile *nv;

			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		snprintf(v[n].name, sizeof(v[n].name), "%s", de->d_name);
		v[n].mtime = st.st_mtim;
		v[n].size = (uint64_t)st.st_size;
		bytes += v[n].size;
		n++;
	}
	closedir(dir);
	if (n)
		qsort(v, n, sizeof(*v), snap_cmp);
	for (i = 0; i + 1 < n && (n - i > w->c->max_files ||
				  bytes > w->c->max_bytes); i++) {
		char p[2048];

		snprintf(p, sizeof(p), "%s/%s", w->c->dir, v[i].name);
		if (unlink(p) && errno != ENOENT) {
			watch_info("cannot remove %s: %s", p, strerror(errno));
			continue;
		}
		bytes -= v[i].size;
		watch_info("removed %s (oldest; %zu files, %llu bytes left)",
			   v[i].name, n - i - 1, (unsigned long long)bytes);
	}
	free(v);
	pthread_mutex_unlock(&w->rmu);
}

/* UTC of CLOCK_MONOTONIC @mono as 20261125T084501.123Z */
static void name_time(char *out, size_t len, uint64_t mono)
{
	uint64_t real = iot_now(CLOCK_REALTIME) -
			(iot_now(CLOCK_MONOTONIC) - mono);
	time_t sec = (time_t)(real / NS_PER_S);
	struct tm tm;
	char b[32];

	gmtime_r(&sec, &tm);
	strftime(b, sizeof(b), "%Y%m%dT%H%M%S", &tm);
	snprintf(out, len, "%s.%03lluZ", b,
		 (unsigned long long)(real % NS_PER_S) / 1000000);
}

/* Save the snapshot of @j (the disks' episodes are EP_SAVING). */
static void save(struct job *j)
{
	struct watch *w = j->w;
	struct iot_src src[WATCH_MAX_DISKS];
	struct iot_ring rings[WATCH_MAX_DISKS];
	struct iot_disk disks[WATCH_MAX_DISKS];
	struct iot_counts counts[WATCH_MAX_DISKS];
	struct iot_rec_stop st = { .stop = &w->stop, .poll_ms = 2 };
	char err[IOT_ERR_LEN], tmp[2048], path[2048], when[40];
	char names[SNAP_NAMES_MAX + 1] = "", reason[128];
	char first[IOTRACE_NAME_LEN + 1] = "";
	int names_cut = 0;
	uint64_t first_ns = UINT64_MAX, now;
	unsigned int k, nr = 0;
	FILE *fp = NULL;
	int fd, ret;

	memset(src, 0, sizeof(src));
	for (k = 0; k < j->nr; k++) {
		char name[IOTRACE_NAME_LEN + 1];
		struct watch_disk *cd = &w->c->disks[j->idx[k]], now;
		uint64_t tm;

		/* a disk that came back may have a new name (watch_added()) */
		pthread_mutex_lock(&w->mu);
		now = *cd;
		tm = w->d[j->idx[k]].cur.trig.mono_ns;
		pthread_mutex_unlock(&w->mu);
		snprintf(name, sizeof(name), "%s", now.name);

		/*
		 * Still the disk configured (another one may have taken the
		 * name of a disk removed), and its identity now, for the
		 * trigger chunk.
		 */
		if (watch_recheck(&now, err, sizeof(err))) {
			watch_info("%s: no snapshot: %s", name, err);
			continue;
		}
		pthread_mutex_lock(&w->mu);
		if (!strcmp(cd->name, now.name) &&
		    (strcmp(cd->model, now.model) ||
		     strcmp(cd->serial, now.serial) ||
		     strcmp(cd->wwn, now.wwn))) {
			watch_info("%s (%s) is another disk now: model \"%s\", serial \"%s\", wwn \"%s\" (was \"%s\", \"%s\", \"%s\")",
				   name, cd->spec, now.model, now.serial,
				   now.wwn, cd->model, cd->serial, cd->wwn);
			memcpy(cd->model, now.model, sizeof(cd->model));
			memcpy(cd->serial, now.serial, sizeof(cd->serial));
			memcpy(cd->wwn, now.wwn, sizeof(cd->wwn));
		}
		pthread_mutex_unlock(&w->mu);

		if (iot_map_live(name, &src[nr], err, sizeof(err)) ||
		    iot_ring_init(&rings[nr], src[nr].buf, src[nr].len, err,
				  sizeof(err))) {
			watch_info("%s: no snapshot: %s", name, err);
			if (src[nr].mapped == 1)
				iot_src_close(&src[nr]);
			memset(&src[nr], 0, sizeof(src[nr]));
			continue;
		}
		iot_ring_disk(&rings[nr], &disks[nr]);
		if (!disks[nr].name[0])
			snprintf(disks[nr].name, sizeof(disks[nr].name), "%s",
				 name);
		j->idx[nr] = j->idx[k];
		j->fidx[nr] = nr;
		if (tm < first_ns)
			first_ns = tm;
		if (!nr)
			snprintf(first, sizeof(first), "%s", name);
		if (strlen(names) + strlen(name) + 2 <= sizeof(names))
			snprintf(names + strlen(names),
				 sizeof(names) - strlen(names), "%s%s",
				 nr ? "+" : "", name);
		else
			names_cut = 1;
		nr++;
	}
	j->nr = nr;
	if (!nr)
		return;
	if (names_cut)
		snprintf(names, sizeof(names), "%s+%u-more", first, nr - 1);
	now = iot_now(CLOCK_MONOTONIC);
	j->save_ns = now;
	j->end_ns = first_ns + w->c->post_ns;
	if (j->end_ns <= now)
		j->end_ns = now;	/* a drain of what is there */
	st.end_mono_ns = j->end_ns;
	st.before_finish = write_triggers;
	st.arg = j;
	st.inflight = 1;
	st.infl_err = inflight_err;
	name_time(when, sizeof(when), first_ns);
	snprintf(path, sizeof(path), "%s/" SNAP_PREFIX "%s-%s-%06llu" SNAP_SUFFIX,
		 w->c->dir, when, names, (unsigned long long)j->number);
	/*
	 * A new file (O_EXCL: nothing planted in the directory, a symbolic
	 * link, is followed) under a name no one can guess:
	 * .iotrace-NUMBER.PID.XXXXXX.tmp, which clean_tmp() knows.
	 */
	snprintf(tmp, sizeof(tmp),
		 "%s/" TMP_PREFIX "%06llu.%d.XXXXXX" TMP_SUFFIX, w->c->dir,
		 (unsigned long long)j->number, (int)getpid());
	fd = mkostemps(tmp, strlen(TMP_SUFFIX), O_CLOEXEC);
	if (fd >= 0 && fchmod(fd, 0640)) {
		int e = errno;

		close(fd);
		unlink(tmp);
		fd = -1;
		errno = e;
	}
	fp = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (!fp) {
		watch_info("cannot create %s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	iot_comm_reset();	/* every file has the names of its records */
	ret = iot_record_rings(rings, disks, nr, fp, &st, counts, err,
			       sizeof(err));
	if (!ret && (fflush(fp) || fsync(fileno(fp))))
		ret = -3;
	if (fclose(fp) && !ret)
		ret = -3;
	if (!ret && rename(tmp, path))
		ret = -3;
	if (ret) {
		watch_info("snapshot %llu not saved: %s: %s",
			   (unsigned long long)j->number, path,
			   ret == -3 ? strerror(errno) : err);
		unlink(tmp);
		goto out;
	}
	pthread_mutex_lock(&w->mu);
	w->saved++;
	iot_trig_reason_names(w->d[j->idx[0]].cur.trig.reason, reason,
			      sizeof(reason));
	pthread_mutex_unlock(&w->mu);
	{
		uint64_t recs = 0;

		for (k = 0; k < nr; k++)
			recs += counts[k].written;
		watch_info("snapshot %llu: %s (%s, %llu records)",
			   (unsigned long long)j->number, path, reason,
			   (unsigned long long)recs);
	}
	retention(w);
out:
	for (k = 0; k < nr; k++)
		if (src[k].mapped == 1)
			iot_src_close(&src[k]);
}

/*
 * The holds the kernel set at the triggers of @j's episodes: the snapshot
 * has their chunks now (or could not be saved): they go back to the ring.
 */
static void release_holds(struct job *j)
{
	struct watch *w = j->w;
	char name[IOTRACE_NAME_LEN + 1], err[IOT_ERR_LEN];
	struct watch_trig hold;
	unsigned int k;

	for (k = 0; k < j->nr_all; k++) {
		pthread_mutex_lock(&w->mu);
		hold = w->d[j->all[k]].cur.trig;
		snprintf(name, sizeof(name), "%s", w->c->disks[j->all[k]].name);
		pthread_mutex_unlock(&w->mu);
		if (!hold.hold_hi)
			continue;
		if (watch_nl_release_hold(name, &hold, err, sizeof(err)))
			watch_info("%s: cannot release the hold %llu: %s (it expires by itself)",
				   name, (unsigned long long)hold.hold_hi, err);
		else
			watch_info("%s: hold %llu released", name,
				   (unsigned long long)hold.hold_hi);
	}
}

/* A job's saver thread: save, then the disks' queued episodes are next. */
static void *saver(void *arg)
{
	struct job *j = arg;
	struct watch *w = j->w;
	unsigned int k;

	save(j);
	release_holds(j);
	pthread_mutex_lock(&w->mu);
	for (k = 0; k < j->nr_all; k++) {
		struct watch_ep *d = &w->d[j->all[k]];

		d->state = EP_IDLE;
		if (!d->have_next)
			continue;
		d->cur = d->next;
		d->have_next = 0;
		d->state = EP_PENDING;
		d->in_job = 1;
		w->pending++;
	}
	w->running--;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	iot_comm_reset();	/* the thread's own table of names */
	free(j);
	return NULL;
}

/*
 * The dispatcher: the disks whose snapshot is pending make a job, saved by
 * a thread of its own (saver()); a disk being saved is not pending, so it
 * is never in two jobs.  On stop it waits for the savers, which cut their
 * --post short.
 */
static void *dispatcher(void *arg)
{
	struct watch *w = arg;
	pthread_attr_t at;
	unsigned int i;

	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_mutex_lock(&w->mu);
	for (;;) {
		struct job *j;
		pthread_t th;

		while (!w->pending && !atomic_load(&w->stop))
			pthread_cond_wait(&w->cv, &w->mu);
		if (atomic_load(&w->stop))
			break;
		j = calloc(1, sizeof(*j));
		if (!j) {
			watch_info("out of memory: pending snapshots wait");
			pthread_mutex_unlock(&w->mu);
			sleep(1);
			pthread_mutex_lock(&w->mu);
			continue;
		}
		j->w = w;
		j->number = ++w->number;
		for (i = 0; i < w->c->nr_disks; i++)
			if (w->d[i].in_job) {
				w->d[i].in_job = 0;
				w->d[i].state = EP_SAVING;
				j->idx[j->nr++] = i;
				j->all[j->nr_all++] = i;
			}
		w->pending = 0;
		w->running++;
		if (pthread_create(&th, &at, saver, j)) {
			/* no thread: saved here, the others wait */
			pthread_mutex_unlock(&w->mu);
			saver(j);
			pthread_mutex_lock(&w->mu);
		}
	}
	while (w->running)
		pthread_cond_wait(&w->cv, &w->mu);
	for (i = 0; i < w->c->nr_disks; i++)
		if (w->d[i].in_job || w->d[i].have_next)
			watch_info("%s: stopping: a queued snapshot is not taken",
				   disk_label(&w->c->disks[i]));
	pthread_mutex_unlock(&w->mu);
	pthread_attr_destroy(&at);
	return NULL;
}

/* ---- setup and the main loop --------------------------------------------- */

/* The configuration, then the options over it. */
static int load_conf(struct iot_opts *o, struct watch_conf *c, int argc,
		     char **argv)
{
	static const struct { const char *key; size_t off; } flags[] = {
		{ "dir", offsetof(struct iot_opts, w_dir) },
		{ "post", offsetof(struct iot_opts, w_post) },
		{ "episode", offsetof(struct iot_opts, w_episode) },
		{ "max-per-hour", offsetof(struct iot_opts, w_max_per_hour) },
		{ "max-files", offsetof(struct iot_opts, w_max_files) },
		{ "max-bytes", offsetof(struct iot_opts, w_max_bytes) },
	};
	const char *run = getenv("IOTRACE_RUN_DIR");
	char where[64];
	size_t i;
	int k;

	watch_conf_defaults(c);
	if (watch_conf_load(c, o->w_config ? o->w_config : WATCH_CONF_DEFAULT,
			    !!o->w_config))
		return -1;
	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		const char *v = *(const char **)((char *)o + flags[i].off);

		char abs[1024];

		snprintf(where, sizeof(where), "--%s", flags[i].key);
		/* --dir may be relative to the working directory */
		if (v && i == 0 && v[0] != '/' && getcwd(abs, sizeof(abs) / 2)) {
			size_t l = strlen(abs);

			snprintf(abs + l, sizeof(abs) - l, "/%s", v);
			v = abs;
		}
		if (v && watch_conf_set(c, NULL, flags[i].key, v, where))
			return -1;
	}
	if (run && *run)
		snprintf(c->run_dir, sizeof(c->run_dir), "%s", run);
	/* disks on the command line replace the file's */
	if (argc) {
		struct watch_disk *keep = calloc(c->nr_disks ? c->nr_disks : 1,
						 sizeof(*keep));
		unsigned int nk = c->nr_disks, m;

		if (!keep)
			return -1;
		memcpy(keep, c->disks, nk * sizeof(*keep));
		if (argc > WATCH_MAX_DISKS) {
			iot_err("watch: at most %d disks", WATCH_MAX_DISKS);
			free(keep);
			return -1;
		}
		c->nr_disks = 0;
		for (k = 0; k < argc; k++) {
			struct watch_disk *d = &c->disks[c->nr_disks++];

			memset(d, 0, sizeof(*d));
			/* a disk of the file keeps its settings */
			for (m = 0; m < nk; m++)
				if (!strcmp(keep[m].spec, argv[k]))
					*d = keep[m];
			snprintf(d->spec, sizeof(d->spec), "%s", argv[k]);
			if (!d->where[0])
				snprintf(d->where, sizeof(d->where),
					 "command line");
		}
		free(keep);
	}
	return 0;
}

/* The module's row of disk @name in @rows (@n of them), or NULL. */
static const struct iot_nl_disk *row_of(const struct iot_nl_disk *rows,
					size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(rows[i].name, name))
			return &rows[i];
	return NULL;
}

/*
 * The epoch of @disk's triggers (IOTRACE_A_TRIG_EPOCH of a LIST, genl
 * version 7), 0 when the module gives none.
 */
static uint64_t trig_epoch(const char *disk)
{
	struct iot_nl_disk *rows = NULL;
	const struct iot_nl_disk *row;
	uint64_t e = 0;
	size_t n = 0;

	if (!iot_nl_list(&rows, &n)) {
		row = row_of(rows, n, disk);
		if (row && row->have[IOTRACE_A_TRIG_EPOCH])
			e = row->v[IOTRACE_A_TRIG_EPOCH];
	}
	free(rows);
	return e;
}

/*
 * The module's buf_size of @disk (IOTRACE_CMD_LIST): 0 and *@size set, or
 * -1 when it cannot tell (no family: the resize is tried, and says why).
 */
static int cur_buf_size(const struct iot_nl_disk *rows, size_t n,
			const char *disk, uint64_t *size)
{
	const struct iot_nl_disk *row = row_of(rows, n, disk);

	if (!row || !row->have[IOTRACE_A_BUF_SIZE])
		return -1;
	*size = row->v[IOTRACE_A_BUF_SIZE];
	return 0;
}

/*
 * Make the resolved disk @d ready: resize (only to another size: a resize
 * starts an empty ring, and a restarted service must not lose the
 * history), give the conditions (checked against the ring they will act
 * on), then enable: every request the disk records from then on was
 * judged by the conditions.  @rows: the module's disks (for the current
 * ring size), @nrows of them.  A refusal is said and the next step taken,
 * but one for want of privilege (watch_refused()), which ends it: -1 and
 * the message in @refused (@refusedlen bytes), for the caller to say.
 */
static int prepare_disk(struct iot_opts *o, const struct watch_conf *c,
			struct watch_disk *d, const struct iot_nl_disk *rows,
			size_t nrows, char *refused, size_t refusedlen)
{
	const struct watch_th *th = disk_th(c, d);
	uint64_t size = d->ring_size ? d->ring_size : c->ring_size, now;
	char err[IOT_ERR_LEN];
	int r;

	if (size == 1)
		size = 0;	/* ring-size = 0: metrics only */
	if ((d->ring_size || c->ring_size) &&
	    (cur_buf_size(rows, nrows, d->name, &now) || now != size)) {
		r = iot_nl_resize(d->name, size, err, sizeof(err));
		if (r > 0 && watch_refused(r, d->name, "resize", err, refused,
					   refusedlen))
			return -1;
		if (r > 0)
			watch_info("%s: ring-size %llu not applied: %s",
				   d->name, (unsigned long long)size, err);
		else if (r)
			watch_info("%s: ring-size %llu not applied (see above)",
				   d->name, (unsigned long long)size);
		else
			watch_info("%s: ring resized to %llu bytes", d->name,
				   (unsigned long long)size);
	}
	if (th || d->th.set < 0) {
		static const struct watch_th off;

		r = watch_nl_set_triggers(d->name, th ? th : &off, err,
					  sizeof(err));
		if (watch_refused(-r, d->name, "trigger conditions", err,
				  refused, refusedlen))
			return -1;
		/* "off" on a module without triggers: nothing to do */
		if (r && (th || r != -EOPNOTSUPP))
			watch_info("%s: trigger conditions '%s' not given to the kernel: %s",
				   d->name, th ? th->words : "off", err);
		if (!r) {
			/* the module's count starts again, in a new epoch */
			d->kevents = 0;
			d->kepoch = trig_epoch(d->name);
		}
	}
	r = iot_nl_enable(o, d->name, err, sizeof(err));
	if (r > 0 && watch_refused(r, d->name, "enable", err, refused,
				   refusedlen))
		return -1;
	if (r > 0)
		watch_info("%s: could not enable tracing: %s; watching anyway",
			   d->name, err);
	else if (r)
		watch_info("%s: could not enable tracing (see above); watching anyway",
			   d->name);
	return 0;
}

/*
 * Resolve the disks and refuse one watched twice, before anything is
 * changed.  A disk given by wwn=, serial= or by-id= that is not there
 * (failed, not yet found by its bus, on a path that is down) is said and
 * left without a name: the watcher watches the others and makes it
 * ready when it appears (watch_added()), as one given by name that is
 * not attached.  Return: 0; 1 when a serial= or wwn= is two disks';
 * 2 when two of them are one disk (the configuration's errors).
 */
static int resolve_disks(struct watch_conf *c)
{
	char text[IOT_TEXT_ROOM(IOTRACE_NAME_LEN)];
	char err[IOT_ERR_LEN];
	unsigned int i, k;
	int r;

	for (i = 0; i < c->nr_disks; i++) {
		struct watch_disk *d = &c->disks[i];

		r = watch_resolve(d, err, sizeof(err));
		if (r == WATCH_RESOLVE_TWO) {
			iot_err("watch: %s (%s): %s", d->spec, d->where, err);
			return 1;
		}
		if (r) {
			d->name[0] = 0;
			watch_info("%s (%s): %s: not present; watched for, made ready when it appears",
				   d->spec, d->where, err);
			continue;
		}
		for (k = 0; k < i; k++)
			if (c->disks[k].name[0] &&
			    !strcmp(c->disks[k].name, d->name)) {
				iot_err("watch: %s (%s) is %s, already watched as %s (%s)",
					d->spec, d->where,
					iot_text_str(text, sizeof(text),
						     d->name),
					c->disks[k].spec, c->disks[k].where);
				return 2;
			}
	}
	return 0;
}

/*
 * Make each disk (resolved) ready.  A request refused for want of
 * privilege stops the watcher here, before it says "ready": without
 * CAP_NET_ADMIN or CAP_SYS_ADMIN it would watch nothing, and a service
 * manager would show it running.  Return: 0, or WATCH_EXIT_PRIVILEGE
 * for that refusal (a restart would not help).
 */
static int prepare_disks(struct iot_opts *o, struct watch_conf *c)
{
	struct iot_nl_disk *rows = NULL;
	char refused[2 * IOT_ERR_LEN];
	size_t nrows = 0;
	unsigned int i;

	if (iot_nl_list(&rows, &nrows)) {
		free(rows);
		rows = NULL;
		nrows = 0;
	}
	for (i = 0; i < c->nr_disks; i++) {
		if (!c->disks[i].name[0])
			continue;	/* not present: at its "added" */
		if (prepare_disk(o, c, &c->disks[i], rows, nrows, refused,
				 sizeof(refused))) {
			iot_err("watch: %s; not starting", refused);
			free(rows);
			return WATCH_EXIT_PRIVILEGE;
		}
	}
	free(rows);
	return 0;
}

/*
 * The configured disk other than @i that is watched as @name now, or -1:
 * a disk absent at the start (no name) that turns out to be it is not
 * watched twice.
 */
static int watched_as(const struct watch_conf *c, unsigned int i,
		      const char *name)
{
	unsigned int k;

	for (k = 0; k < c->nr_disks; k++)
		if (k != i && !strcmp(c->disks[k].name, name))
			return (int)k;
	return -1;
}

/*
 * May the disk @i, absent until now, be @nd (resolved)?  Not when another
 * section watches that disk already: said once.
 */
static int absent_may_be(struct watch_conf *c, unsigned int i,
			 const struct watch_disk *nd)
{
	struct watch_disk *d = &c->disks[i];
	int k = watched_as(c, i, nd->name);

	if (k < 0)
		return 1;
	if (!d->twice_said)
		watch_info("%s (%s) is %s, already watched as %s (%s): not watched",
			   d->spec, d->where, nd->name, c->disks[k].spec,
			   c->disks[k].where);
	d->twice_said = 1;
	return 0;
}

/*
 * Make the configured disk @i, resolved now as @nd, ready: it came back
 * (the module attached it again), or was absent until now.
 */
static void watch_ready(struct watch *w, unsigned int i,
			const struct watch_disk *nd)
{
	struct watch_conf *c = w->c;
	struct iot_nl_disk *rows = NULL;
	char refused[2 * IOT_ERR_LEN];
	const char *again = " again";
	size_t nrows = 0;

	pthread_mutex_lock(&w->mu);
	if (!c->disks[i].name[0]) {
		watch_info("%s (%s) is present: %s", nd->spec, nd->where,
			   nd->name);
		again = "";
	} else if (strcmp(c->disks[i].name, nd->name)) {
		watch_info("%s (%s) is %s now, was %s", nd->spec, nd->where,
			   nd->name, c->disks[i].name);
	}
	c->disks[i] = *nd;
	pthread_mutex_unlock(&w->mu);
	if (iot_nl_list(&rows, &nrows)) {
		free(rows);
		rows = NULL;
		nrows = 0;
	}
	watch_info(*again ? "%s came back: enabling it again" :
		   "%s: enabling it", nd->name);
	if (prepare_disk(w->o, c, &c->disks[i], rows, nrows, refused,
			 sizeof(refused))) {
		watch_info("%s; %s came back but is not made ready", refused,
			   nd->name);
		free(rows);
		return;
	}
	free(rows);
	watch_info("watching %s%s (%s; model \"%s\", serial \"%s\", wwn \"%s\")",
		   nd->name, again, nd->spec, nd->model, nd->serial, nd->wwn);
}

/**
 * watch_added() - the module attached disk @name (its "added" event): a
 *	watched disk that came back is made ready again.
 * @w: the watcher.
 * @name: the disk.
 *
 * The disk is watched when it is one of the configured names, or what a
 * wwn=, serial= or by-id= disk resolves to now (one absent until now
 * that another section watches already is not).  A by-id= link that udev
 * makes after the event is found by watch_absent_check().  Context: the
 * main thread.
 */
void watch_added(struct watch *w, const char *name)
{
	struct watch_conf *c = w->c;
	struct watch_disk nd;
	char err[IOT_ERR_LEN];
	unsigned int i;

	for (i = 0; i < c->nr_disks; i++) {
		nd = c->disks[i];
		if (watch_resolve(&nd, err, sizeof(err)) ||
		    strcmp(nd.name, name))
			continue;
		if (!c->disks[i].name[0] && !absent_may_be(c, i, &nd))
			continue;
		break;
	}
	if (i < c->nr_disks)
		watch_ready(w, i, &nd);
}

/**
 * watch_absent_check() - look again for the disks given by wwn=, serial=
 *	or by-id= that are not present: each that resolves now to a disk
 *	the module has attached is made ready.
 * @w: the watcher.
 *
 * The module's "added" event comes before udev makes the disk's
 * /dev/disk/by-id links (and a disk attached before the watcher listened
 * sent its event to no one): the main loop calls this every
 * WATCH_ABSENT_MS while a disk is absent.  The module's LIST is asked
 * only when one resolves (it walks every in-flight table); without it
 * (no family) a disk that resolves is taken as attached.  Context: the
 * main thread.
 */
void watch_absent_check(struct watch *w)
{
	struct watch_conf *c = w->c;
	struct iot_nl_disk *rows = NULL;
	struct watch_disk nd;
	char err[IOT_ERR_LEN];
	size_t nrows = 0;
	unsigned int i;
	int listed = -1;

	for (i = 0; i < c->nr_disks; i++) {
		if (c->disks[i].name[0])
			continue;
		nd = c->disks[i];
		if (watch_resolve(&nd, err, sizeof(err)))
			continue;
		if (listed < 0)
			listed = !iot_nl_list(&rows, &nrows);
		if ((listed && !row_of(rows, nrows, nd.name)) ||
		    !absent_may_be(c, i, &nd))
			continue;
		watch_ready(w, i, &nd);
	}
	free(rows);
}

/**
 * watch_removed() - the module detached disk @name (its "removed" event).
 * @w: the watcher.
 * @name: the disk.
 *
 * A disk given by wwn=, serial= or by-id= that was @name is absent from
 * now on: looked for again (watch_absent_check()), for the disk put in
 * its place may come back under another name, and its by-id link after
 * the module's "added" event.  One given by name stays that name.
 * Context: the main thread.
 */
void watch_removed(struct watch *w, const char *name)
{
	struct watch_conf *c = w->c;
	unsigned int i;

	for (i = 0; i < c->nr_disks; i++) {
		struct watch_disk *d = &c->disks[i];

		if (!strchr(d->spec, '=') || strcmp(d->name, name))
			continue;
		pthread_mutex_lock(&w->mu);
		d->name[0] = 0;
		d->twice_said = 0;
		pthread_mutex_unlock(&w->mu);
		watch_info("%s (%s) was %s: watched for, made ready when it appears",
			   d->spec, d->where, name);
	}
}

/**
 * watch_events_lost() - the events socket overflowed (ENOBUFS): events
 *	the module sent were dropped; do what they would have done.
 * @w: the watcher.
 *
 * From the module's state (LIST): a watched disk that is attached but not
 * enabled, or without the conditions the watcher gives it, or under
 * another name now (wwn=, serial=, by-id=), came back unseen and is made
 * ready again (watch_added()); a watched disk whose trigger-events count
 * is above the events received for it had kernel triggers unseen, and is
 * triggered once, with IOTRACE_FILE_TRIG_LOST (reason and record
 * unknown).  The caller has read what the socket still
 * held, so only events sent after that are both made up for here and
 * received (the trigger then joins their episode); they carry the
 * module's count (genl version 6), which the watcher then takes, so
 * that none is counted twice, and its epoch (version 7): a count of
 * another epoch than the disk's (triggers set by someone else since)
 * had none of its events received.  Context: the main thread.
 */
void watch_events_lost(struct watch *w)
{
	struct watch_conf *c = w->c;
	struct iot_nl_disk *rows = NULL;
	char reply[256];
	size_t nrows = 0;
	unsigned int i;

	watch_info("events from the module were lost (the socket's receive buffer overflowed): checking the watched disks");
	if (iot_nl_list(&rows, &nrows)) {
		watch_info("cannot list the module's disks: a disk that came back or a kernel trigger may have been missed");
		free(rows);
		return;
	}
	for (i = 0; i < c->nr_disks; i++) {
		struct watch_disk *d = &c->disks[i], nd = *d;
		const struct watch_th *th = disk_th(c, d);
		const struct iot_nl_disk *row;
		struct watch_trig t = { .reason = IOTRACE_FILE_TRIG_LOST };
		char err[IOT_ERR_LEN];
		uint64_t sent, epoch, got;

		/* not present: watch_absent_check() looks for it */
		if (!d->name[0])
			continue;

		/* by its name now: a wwn=, serial= or by-id= disk may move */
		if (watch_resolve(&nd, err, sizeof(err)))
			continue;	/* not there */
		row = row_of(rows, nrows, nd.name);
		if (!row)
			continue;	/* not attached (yet) */
		if (strcmp(nd.name, d->name) ||
		    (row->have[IOTRACE_A_ENABLED] && !row->v[IOTRACE_A_ENABLED]) ||
		    (th && !row->have[IOTRACE_A_TRIG_RATE_NS])) {
			watch_added(w, nd.name);
			continue;
		}
		sent = row->v[IOTRACE_A_TRIG_EVENTS];
		/* of another epoch (a set by someone else): none received */
		epoch = row->have[IOTRACE_A_TRIG_EPOCH] ?
			row->v[IOTRACE_A_TRIG_EPOCH] : 0;
		got = epoch && epoch != d->kepoch ? 0 : d->kevents;
		if (!th || sent <= got)
			continue;
		watch_info("%s: %llu kernel trigger events sent, %llu received",
			   d->name, (unsigned long long)sent,
			   (unsigned long long)got);
		d->kevents = sent;
		d->kepoch = epoch;
		snprintf(t.disk, sizeof(t.disk), "%s", d->name);
		t.mono_ns = iot_now(CLOCK_MONOTONIC);
		watch_on_trigger(w, &t, reply, sizeof(reply));
	}
	free(rows);
}

/*
 * Is the watcher of process @pid (from a temporary file's name) running?
 * Not when there is no such process, or it is this one (the pid of a
 * watcher that ended, now ours), or its name is not iotracectl's (a
 * pid of a watcher before a reboot, reused); yes when it cannot be told.
 */
static int watcher_alive(long pid)
{
	char p[64], comm[32] = "";
	FILE *fp;

	if (pid <= 0 || pid > INT32_MAX || pid == (long)getpid())
		return 0;
	if (kill((pid_t)pid, 0) && errno == ESRCH)
		return 0;
	snprintf(p, sizeof(p), "/proc/%ld/comm", pid);
	fp = fopen(p, "re");
	if (!fp)
		return 1;
	if (!fgets(comm, sizeof(comm), fp))
		comm[0] = 0;
	fclose(fp);
	return !comm[0] || !strncmp(comm, "iotracectl", 10);
}

/*
 * Stale temporary files of a watcher that did not finish go:
 * ".iotrace-NUMBER.PID.XXXXXX.tmp", PID the watcher that writes it
 * (save()); that of a watcher still running (another run dir, the same
 * snapshot directory) stays.
 */
static void clean_tmp(const char *dir)
{
	struct dirent *de;
	DIR *dp = opendir(dir);

	if (!dp)
		return;
	while ((de = readdir(dp))) {
		size_t l = strlen(de->d_name);
		const char *dot;
		char p[2048], *end = NULL;
		long pid = 0;

		if (strncmp(de->d_name, TMP_PREFIX, strlen(TMP_PREFIX)) ||
		    l < strlen(TMP_SUFFIX) ||
		    strcmp(de->d_name + l - strlen(TMP_SUFFIX), TMP_SUFFIX))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		/* the PID, between the number and ".XXXXXX.tmp" */
		dot = strchr(de->d_name + strlen(TMP_PREFIX), '.');
		if (dot && isdigit((unsigned char)dot[1]))
			pid = strtol(dot + 1, &end, 10);
		if (end && *end == '.' &&
		    strlen(end) == strlen(".XXXXXX" TMP_SUFFIX) &&
		    watcher_alive(pid)) {
			watch_info("%s: kept, a running watcher's (pid %ld)",
				   p, pid);
			continue;
		}
		if (!unlink(p))
			watch_info("removed %s, left by a watcher that did not finish",
				   p);
	}
	closedir(dp);
}

static int sock_path(const struct watch_conf *c, struct sockaddr_un *a)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (strlen(c->run_dir) + sizeof(WATCH_SOCK_NAME) + 1 >
	    sizeof(a->sun_path)) {
		iot_err("watch: run-dir %s: too long for a socket path",
			c->run_dir);
		return -1;
	}
	snprintf(a->sun_path, sizeof(a->sun_path), "%s/%s", c->run_dir,
		 WATCH_SOCK_NAME);
	return 0;
}

/*
 * One watcher per run dir: RUN_DIR/watch.lock, locked (flock) until the
 * watcher ends, however it ends; taken before the watcher touches a disk
 * or a file, so that a second one (an admin's "iotracectl watch" beside
 * the service) changes nothing: not the disks' rings and triggers, not
 * the snapshot being written.  Return: the lock's descriptor, or -1 after
 * saying why.
 */
static int take_lock(const struct watch_conf *c)
{
	char p[1100];
	int fd;

	if (mkdir(c->run_dir, 0755) && errno != EEXIST) {
		iot_err("watch: cannot create %s: %s", c->run_dir,
			strerror(errno));
		return -1;
	}
	snprintf(p, sizeof(p), "%s/%s", c->run_dir, WATCH_LOCK_NAME);
	fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		iot_err("watch: cannot open %s: %s", p, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno == EWOULDBLOCK)
			iot_err("watch: another watcher runs (it holds %s); not starting",
				p);
		else
			iot_err("watch: cannot lock %s: %s", p, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* The control socket, RUN_DIR/watch.sock (refused when a watcher is on). */
static int open_sock(const struct watch_conf *c)
{
	struct sockaddr_un a;
	int fd;

	if (sock_path(c, &a))
		return -1;
	if (mkdir(c->run_dir, 0755) && errno != EEXIST) {
		iot_err("watch: cannot create %s: %s", c->run_dir,
			strerror(errno));
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (!connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		iot_err("watch: another watcher listens on %s", a.sun_path);
		close(fd);
		return -1;
	}
	close(fd);
	unlink(a.sun_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    chmod(a.sun_path, 0600) || listen(fd, 16)) {
		iot_err("watch: cannot listen on %s: %s", a.sun_path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/*
 * One client of the control socket: a "snapshot [DISK]" line, a reply.
 * The main loop serves it, so the whole line must come within
 * CLIENT_DEADLINE_MS of its accept (a deadline for all of it, not for
 * each byte: a client trickling bytes would hold the signals, the
 * triggers and the other clients); a client late with it is told so
 * and closed, its part of a line not acted on.
 */
static void serve_client(struct watch *w, int lfd)
{
	char line[256], reply[1024];
	struct watch_trig t;
	uint64_t end, now;
	size_t n = 0;
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC), late = 0;

	if (fd < 0)
		return;
	end = iot_now(CLOCK_MONOTONIC) + CLIENT_DEADLINE_MS * 1000000ull;
	while (n < sizeof(line) - 1) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;
		int pr;

		now = iot_now(CLOCK_MONOTONIC);
		pr = now < end ? poll(&p, 1, (int)((end - now + 999999) /
						    1000000)) : 0;
		if (pr < 0 && errno == EINTR)
			continue;
		if (!pr)
			late = 1;
		if (pr <= 0)
			break;
		r = read(fd, line + n, sizeof(line) - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
		if (memchr(line, '\n', n))
			break;
	}
	line[n] = 0;
	line[strcspn(line, "\n")] = 0;
	/* closed without a word: open_sock()'s look for a watcher */
	if (!n && !late) {
		close(fd);
		return;
	}
	memset(&t, 0, sizeof(t));
	t.reason = IOTRACE_FILE_TRIG_MANUAL;
	t.mono_ns = iot_now(CLOCK_MONOTONIC);
	if (late) {
		snprintf(reply, sizeof(reply),
			 "error: no request line within %d ms",
			 CLIENT_DEADLINE_MS);
	} else if (!strcmp(line, "snapshot")) {
		watch_on_trigger(w, &t, reply, sizeof(reply));
	} else if (!strncmp(line, "snapshot ", 9) && line[9] &&
		   strlen(line + 9) < sizeof(t.disk)) {
		snprintf(t.disk, sizeof(t.disk), "%s", line + 9);
		watch_on_trigger(w, &t, reply, sizeof(reply));
	} else {
		snprintf(reply, sizeof(reply), "error: not a request: '%.64s'",
			 line);
	}
	n = strlen(reply);
	if (n == sizeof(reply) - 1)
		n--;	/* room for the newline */
	reply[n++] = '\n';
	if (write(fd, reply, n) < 0)
		watch_info("control socket: %s", strerror(errno));
	close(fd);
}

/* Stop the watcher: the dispatcher and the savers see it at once. */
static void watch_stop(struct watch *w)
{
	pthread_mutex_lock(&w->mu);
	atomic_store(&w->stop, 1);
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

int cmd_watch(struct iot_opts *o, int argc, char **argv)
{
	struct watch_conf *c = calloc(1, sizeof(*c));
	struct watch *w = calloc(1, sizeof(*w));
	struct watch_nl *nl = NULL;
	struct sockaddr_un a;
	pthread_t th;
	sigset_t sigs;
	int sfd = -1, lfd = -1, lockfd = -1, rc = 1, started = 0, gone = 0, r;
	int absent = 0;
	uint64_t absent_ns;
	unsigned int i;

	/*
	 * First of all: a SIGUSR1 during the start (which can wait, for
	 * the configuration, the module) would end the watcher (its
	 * default action); blocked, it waits for the signalfd and is a
	 * trigger once the watcher is ready, and SIGTERM or SIGINT stop it
	 * then.  The threads inherit the mask.
	 */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGUSR1);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (!c || !w) {
		iot_err("out of memory");
		goto out;
	}
	if (load_conf(o, c, argc, argv))
		goto out_usage;
	if (!c->nr_disks) {
		iot_err("watch: no disk to watch (give DISK... or [disk ...] sections in the configuration)");
		goto out_usage;
	}
	/* every check before anything is changed */
	r = resolve_disks(c);
	if (r == 2)
		goto out_usage;
	if (r)
		goto out;
	/*
	 * No module: no family to enable a disk or send trigger events,
	 * no ring to copy.  A watcher would say "ready" and save nothing.
	 */
	if (!watch_nl_family() && access(iot_debugfs(), F_OK)) {
		iot_err("watch: the iotrace module is not loaded (no generic netlink family \"%s\", no %s): 'modprobe iotrace', then start the watcher again",
			IOTRACE_GENL_NAME, iot_debugfs());
		goto out;
	}
	w->c = c;
	w->starts = calloc(c->max_per_hour, sizeof(*w->starts));
	if (!w->starts) {
		iot_err("out of memory");
		goto out;
	}
	/* nothing is touched before: another watcher may run */
	lockfd = take_lock(c);
	if (lockfd < 0)
		goto out;
	if (mkdir(c->dir, 0750) && errno != EEXIST) {
		iot_err("watch: cannot create %s: %s", c->dir, strerror(errno));
		goto out;
	}
	if (access(c->dir, W_OK)) {
		iot_err("watch: cannot write in %s: %s", c->dir,
			strerror(errno));
		goto out;
	}
	/*
	 * The events group joined before the disks get their conditions:
	 * every trigger event the module counts from then on reaches the
	 * socket (watch_events_lost() compares the two counts).
	 */
	nl = watch_nl_open();
	r = prepare_disks(o, c);
	if (r) {
		rc = r;
		goto out;
	}
	clean_tmp(c->dir);
	lfd = open_sock(c);
	if (lfd < 0)
		goto out;
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		iot_err("watch: signalfd: %s", strerror(errno));
		goto out;
	}
	w->o = o;
	pthread_mutex_init(&w->mu, NULL);
	pthread_mutex_init(&w->rmu, NULL);
	pthread_cond_init(&w->cv, NULL);
	if (pthread_create(&th, NULL, dispatcher, w)) {
		iot_err("watch: cannot start the dispatcher thread");
		goto out;
	}
	started = 1;
	absent_ns = iot_now(CLOCK_MONOTONIC);
	for (i = 0; i < c->nr_disks; i++)
		if (c->disks[i].name[0])
			watch_info("watching %s (%s; model \"%s\", serial \"%s\", wwn \"%s\")",
				   c->disks[i].name, c->disks[i].spec,
				   c->disks[i].model, c->disks[i].serial,
				   c->disks[i].wwn);
	watch_info("ready: snapshots in %s (post %.3f s, episode %.3f s, at most %llu an hour, %llu files, %llu bytes); triggers: SIGUSR1, iotracectl snapshot (%s/%s)%s",
		   c->dir, c->post_ns / 1e9, c->episode_ns / 1e9,
		   (unsigned long long)c->max_per_hour,
		   (unsigned long long)c->max_files,
		   (unsigned long long)c->max_bytes, c->run_dir,
		   WATCH_SOCK_NAME, nl ? ", kernel trigger events" : "");
	while (!atomic_load(&w->stop)) {
		struct pollfd p[3] = {
			{ .fd = sfd, .events = POLLIN },
			{ .fd = lfd, .events = POLLIN },
			{ .fd = nl ? watch_nl_fd(nl) : -1, .events = POLLIN },
		};
		struct signalfd_siginfo si;
		uint64_t now = iot_now(CLOCK_MONOTONIC);

		/* a disk not present: looked for again, every second */
		for (absent = 0, i = 0; i < c->nr_disks; i++)
			absent |= !c->disks[i].name[0];
		if (absent && now - absent_ns >= WATCH_ABSENT_MS * 1000000ull) {
			watch_absent_check(w);
			absent_ns = now;
		}
		if (poll(p, 3, absent ? WATCH_ABSENT_MS : -1) < 0) {
			if (errno == EINTR)
				continue;
			watch_info("poll: %s", strerror(errno));
			break;
		}
		while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGUSR1) {
				struct watch_trig t = {
					.reason = IOTRACE_FILE_TRIG_MANUAL,
					.mono_ns = iot_now(CLOCK_MONOTONIC),
				};
				char reply[1024];

				watch_on_trigger(w, &t, reply, sizeof(reply));
			} else {
				watch_info("%s: stopping",
					   strsignal((int)si.ssi_signo));
				watch_stop(w);
			}
		}
		if (p[1].revents & POLLIN)
			serve_client(w, lfd);
		/* an error alone (ENOBUFS with nothing queued) is read too */
		if (nl && (p[2].revents & (POLLIN | POLLERR)))
			watch_nl_recv(nl, w);
		/*
		 * Its events group went with the family: deaf from now on,
		 * and the module loaded next knows none of the disks'
		 * conditions.  Exit 1: the service manager starts the
		 * watcher again, on the module its unit loads.
		 */
		if (nl && watch_nl_gone(nl)) {
			watch_info("the iotrace module was unloaded: stopping (exit 1, for a start on the module loaded next)");
			gone = 1;
			watch_stop(w);
		}
	}
	rc = gone;
out:
	if (started) {
		watch_stop(w);
		pthread_join(th, NULL);
		watch_info("stopped: %llu snapshots saved, %llu triggers refused by max-per-hour",
			   (unsigned long long)w->saved,
			   (unsigned long long)w->refused_total);
	}
	watch_nl_close(nl);
	if (lfd >= 0) {
		close(lfd);
		if (!sock_path(c, &a))
			unlink(a.sun_path);
	}
	if (sfd >= 0)
		close(sfd);
	if (lockfd >= 0)
		close(lockfd);
	if (w)
		free(w->starts);
	free(w);
	free(c);
	return rc;
out_usage:
	free(w);
	free(c);
	return 2;
}

/*
 * The watcher's reply to "snapshot", @n bytes and its newline: printed as
 * text (iot_text_str()), for it names disks as the kernel does and what
 * the request named.  Return: 0, or 1 when it is an error or a refusal.
 */
static int snapshot_reply(char *reply, size_t n)
{
	char text[IOT_TEXT_ROOM(1024)];
	int error = !strncmp(reply, "error: ", 7);

	if (reply[n - 1] == '\n')
		reply[n - 1] = 0;
	iot_text_str(text, sizeof(text), error ? reply + 7 : reply);
	if (error) {
		iot_err("snapshot: %s", text);
		return 1;
	}
	printf("%s\n", text);
	return strstr(reply, "refused") ? 1 : 0;
}

int cmd_snapshot(struct iot_opts *o, int argc, char **argv)
{
	struct watch_conf *c = calloc(1, sizeof(*c));
	const char *run = getenv("IOTRACE_RUN_DIR");
	char req[128], reply[1024];
	struct sockaddr_un a;
	size_t n = 0;
	int fd = -1, rc = 1;

	if (!c) {
		iot_err("out of memory");
		return 1;
	}
	if (argc > 1 || (argc && strlen(argv[0]) > IOTRACE_NAME_LEN - 1)) {
		iot_err("snapshot takes at most one DISK (none: every watched disk)");
		rc = 2;
		goto out;
	}
	watch_conf_defaults(c);
	if (watch_conf_load(c, o->w_config ? o->w_config : WATCH_CONF_DEFAULT,
			    !!o->w_config)) {
		rc = 2;
		goto out;
	}
	if (run && *run)
		snprintf(c->run_dir, sizeof(c->run_dir), "%s", run);
	if (sock_path(c, &a))
		goto out;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		iot_err("snapshot: no watcher listens on %s: %s (is 'iotracectl watch' running? systemctl status iotrace)",
			a.sun_path, strerror(errno));
		goto out;
	}
	snprintf(req, sizeof(req), "snapshot%s%s\n", argc ? " " : "",
		 argc ? argv[0] : "");
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		iot_err("snapshot: %s: %s", a.sun_path, strerror(errno));
		goto out;
	}
	for (;;) {
		ssize_t r = read(fd, reply + n, sizeof(reply) - 1 - n);

		if (r <= 0)
			break;
		n += (size_t)r;
		if (n == sizeof(reply) - 1)
			break;
	}
	reply[n] = 0;
	if (!n) {
		iot_err("snapshot: the watcher did not answer");
		goto out;
	}
	rc = snapshot_reply(reply, n);
out:
	if (fd >= 0)
		close(fd);
	free(c);
	return rc;
}
