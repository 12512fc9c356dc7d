/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iotracectl watch: the snapshot service (issue 21).  conf.c reads the
 * configuration, watch.c runs episodes and saves snapshots, watch_nl.c
 * talks to the module (trigger events, thresholds), util/trigfile.c
 * writes and reads the trigger chunk of a snapshot file.
 */
#ifndef IOT_WATCH_H
#define IOT_WATCH_H

#include <stdint.h>
#include "cmd.h"

#define WATCH_CONF_DEFAULT	"/etc/iotrace/iotrace.conf"
#define WATCH_RUN_DEFAULT	"/run/iotrace"
#define WATCH_SOCK_NAME		"watch.sock"
#define WATCH_LOCK_NAME		"watch.lock"
/*
 * The watcher's exit status when refused for want of privilege at start
 * (watch_refused()): "insufficient privilege", as LSB's and systemd's 4;
 * iotrace.service's RestartPreventExitStatus= keeps it from restarting.
 */
#define WATCH_EXIT_PRIVILEGE	4
#define WATCH_MAX_DISKS		64
/* ring-size: 0, or the module's range (IOTRACE_MIN/MAX_BUF_SIZE) */
#define WATCH_RING_MIN		(64ull << 10)
#define WATCH_RING_MAX		(1ull << 30)
#define WATCH_MAX_TOKENS	16	/* trigger = words */

/**
 * struct watch_th - the trigger conditions of a disk (the arguments of
 *	"iotracectl trigger DISK ...", parsed).
 * @lat_ns: latency threshold per enum iotrace_mop (0: none).
 * @flags: IOTRACE_FILE_TH_*.
 * @requeues: the N-th requeue (0: none).
 * @stuck_ns: in flight longer than this (0: none).
 * @rate_ns: least time between two events, if @have_rate.
 * @have_rate: rate= given.
 * @errnos: error=LIST (0-terminated).
 * @nr_errnos: entries of @errnos.
 * @set: 1: conditions given; -1: "off" (a disk's: none, not the
 *	default); 0: no "trigger =" line.
 * @hold_chunks: hold=N (IOTRACE_TRIG_HOLD_MAX: max, 0: off), if
 *	@have_hold; without it the watcher asks for max.
 * @have_hold: hold= given.
 * @hold_ns: hold-expire=T (0: the kernel's default, 30 s).
 * @words: the words as written (for messages and the kernel request).
 */
struct watch_th {
	uint64_t lat_ns[IOTRACE_NR_MOPS];
	uint32_t flags, requeues;
	uint64_t stuck_ns, rate_ns;
	int have_rate;
	uint32_t errnos[IOTRACE_FILE_TH_ERRNOS];
	unsigned int nr_errnos;
	int set;
	uint32_t hold_chunks;
	int have_hold;
	uint64_t hold_ns;
	char words[256];
};

/**
 * struct watch_disk - one disk to watch.
 * @spec: as configured: a name, wwn=..., serial=... or by-id=...
 * @name: the block device name it resolved to ("" until resolved).
 * @ring_size: bytes for a resize after load (0: leave the ring alone).
 * @th: trigger conditions.
 * @where: "FILE:LINE" of its section, or "command line" (cut to fit).
 * @line: the LINE of @where; 0 on the command line.
 * @model: sysfs identity, filled when resolved.
 * @serial: the same.
 * @wwn: the same.
 * @kevents: the module's trigger events received for the disk since the
 *	watcher gave it its conditions (the module's count, LIST's
 *	IOTRACE_A_TRIG_EVENTS, starts again then); from genl version 6 the
 *	module's count in the latest event received; the main thread's.
 * @kepoch: the epoch of @kevents (genl version 7: the module's number of
 *	the set that started its count); 0 when the module gives none.
 * @twice_said: absent at the start, it was found to be a disk another
 *	section watches, and that was said.
 */
struct watch_disk {
	char spec[160];
	char name[IOTRACE_NAME_LEN + 1];
	uint64_t ring_size;
	struct watch_th th;
	char where[300];
	unsigned int line;
	char model[IOTRACE_FILE_ID_LEN], serial[IOTRACE_FILE_ID_LEN];
	char wwn[IOTRACE_FILE_ID_LEN];
	uint64_t kevents;
	uint64_t kepoch;
	int twice_said;
};

/**
 * struct watch_conf - the configuration (file, then command line).
 * @dir: snapshot directory.
 * @run_dir: where the control socket is.
 * @post_ns: records taken after a trigger.
 * @episode_ns: triggers of a disk this close to an episode's first are
 *	that episode.
 * @max_per_hour: snapshots started in any hour, at most.
 * @max_files: snapshot files kept in @dir.
 * @max_bytes: bytes of snapshot files kept in @dir.
 * @ring_size: default for the disks.
 * @th: default trigger conditions for the disks.
 * @nr_disks: entries of @disks.
 * @disks: the disks.
 */
struct watch_conf {
	char dir[1024];
	char run_dir[1024];
	uint64_t post_ns, episode_ns;
	uint64_t max_per_hour, max_files, max_bytes;
	uint64_t ring_size;
	struct watch_th th;
	unsigned int nr_disks;
	struct watch_disk disks[WATCH_MAX_DISKS];
};

/* conf.c */
void watch_conf_defaults(struct watch_conf *c);
int watch_conf_load(struct watch_conf *c, const char *path, int must_exist);
int watch_conf_set(struct watch_conf *c, struct watch_disk *d,
		   const char *key, const char *val, const char *where);
int watch_th_parse(struct watch_th *th, const char *words, char *err,
		   size_t errlen);
int watch_parse_ns(const char *s, uint64_t *ns);
/* watch_resolve(): a serial= or wwn= that two disks have */
#define WATCH_RESOLVE_TWO	(-2)
int watch_resolve(struct watch_disk *d, char *err, size_t errlen);
int watch_recheck(struct watch_disk *d, char *err, size_t errlen);
void watch_identity(const char *name, char *model, char *serial, char *wwn);

/**
 * struct watch_trig - one trigger, whatever sent it: the argument of
 *	watch_on_trigger(), the one function every source calls.
 * @disk: the disk's name; "" for every watched disk (SIGUSR1).
 * @reason: IOTRACE_FILE_TRIG_* (the kernel's bits, or MANUAL).
 * @cpu: the CPU of @seq, if @have_seq.
 * @seq: the triggering record's sequence number, if @have_seq.
 * @have_seq: the event named a record.
 * @mono_ns: CLOCK_MONOTONIC ns when it fired.
 * @hold_lo: the ring's hold when the event was sent (ABI 2.1), if
 *	@hold_hi is not 0: the kernel keeps the chunks of take numbers
 *	@hold_lo .. @hold_hi until the watcher releases them.
 * @hold_hi: see @hold_lo; 0: no hold.
 * @hold_ns: when the kernel set that hold (its hold_ns): with @hold_hi,
 *	which hold it is (two in a row may have the same @hold_hi); 0: not
 *	given.
 * @kevents: the module's count of the disk's trigger events, this one
 *	included (genl version 6); 0: not given.
 * @kepoch: the epoch of that count (genl version 7); 0: not given.
 */
struct watch_trig {
	char disk[IOTRACE_NAME_LEN + 1];
	uint32_t reason, cpu;
	uint64_t seq;
	int have_seq;
	uint64_t mono_ns;
	uint64_t hold_lo, hold_hi, hold_ns;
	uint64_t kevents, kepoch;
};

enum watch_ep_state { EP_IDLE, EP_PENDING, EP_SAVING, EP_CLOSED };

/**
 * struct watch_episode - one disk's episode.
 * @trig: its first trigger (and the hold to release once it is saved).
 * @extra: triggers that joined it.
 * @queued: it waited for the previous snapshot.
 */
struct watch_episode {
	struct watch_trig trig;
	uint32_t extra;
	int queued;
};

/**
 * struct watch_ep - a watched disk's episodes.
 * @state: of its current episode @cur.
 * @cur: the episode pending or being saved.
 * @next: the one queued behind it, if @have_next.
 * @have_next: @next is set.
 * @in_job: @cur is in the job queue.
 */
struct watch_ep {
	enum watch_ep_state state;
	struct watch_episode cur, next;
	int have_next, in_job;
};

/* what a trigger did to a disk's episodes */
enum watch_ep_what {
	WATCH_EP_STARTED,
	WATCH_EP_JOINED,
	WATCH_EP_QUEUED,
	WATCH_EP_JOINED_NEXT,
	WATCH_EP_REFUSED,
};

/* watch_ep.c */
enum watch_ep_what watch_ep_trigger(struct watch_ep *d,
				    const struct watch_trig *t,
				    uint64_t episode_ns,
				    int (*rate)(void *arg), void *arg);
int watch_ep_holds(const struct watch_ep *d, const struct watch_trig *t);
const char *watch_ep_said(enum watch_ep_what what);

struct watch;
/* watch.c: what every trigger source calls; @reply gets what happened */
int watch_on_trigger(struct watch *w, const struct watch_trig *t,
		     char *reply, size_t replylen);
void watch_added(struct watch *w, const char *name);
/* how often the disks absent at the start are looked for again */
#define WATCH_ABSENT_MS	1000
void watch_absent_check(struct watch *w);
void watch_removed(struct watch *w, const char *name);
void watch_events_lost(struct watch *w);

/* watch_nl.c */
struct watch_nl;
struct watch_nl *watch_nl_open(void);
int watch_nl_family(void);
/* a request's refusal when the module's netlink family is not there */
#define WATCH_NO_FAMILY	"no iotrace netlink family (is the iotrace module loaded?)"
int watch_nl_fd(const struct watch_nl *n);
int watch_nl_gone(const struct watch_nl *n);
void watch_nl_recv(struct watch_nl *n, struct watch *w);
void watch_nl_close(struct watch_nl *n);
int watch_nl_set_triggers(const char *disk, const struct watch_th *th,
			  char *err, size_t errlen);
int watch_nl_release_hold(const char *disk, const struct watch_trig *hold,
			  char *err, size_t errlen);

/**
 * struct watch_nl_reply - the kernel's answer to a request (watch_reply.c).
 * @done: it came (an ack or an error).
 * @error: 0, or the negative errno of an error.
 */
struct watch_nl_reply {
	int done;
	int error;
};

/* watch_reply.c */
void watch_nl_reply_init(struct watch_nl_reply *r);
void watch_nl_reply_error(struct watch_nl_reply *r, int error);
void watch_nl_reply_ack(struct watch_nl_reply *r);
int watch_nl_reply_result(const struct watch_nl_reply *r);
void watch_nl_say(int ret, unsigned int cmd, char *err, size_t errlen);
int watch_refused(int err, const char *disk, const char *what,
		  const char *why, char *msg, size_t msglen);

#endif /* IOT_WATCH_H */
