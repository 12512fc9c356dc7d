// SPDX-License-Identifier: GPL-2.0
/*
 * iotracectl watch and the module: the events of the multicast group
 * IOTRACE_GENL_MCGRP, and the disks' trigger conditions.
 *
 * The seam for the kernel's triggers is trig_from_event(): it turns one
 * event message into a struct watch_trig, and watch_nl_recv() hands that
 * to watch_on_trigger(), the one function every trigger source calls
 * (SIGUSR1 and "iotracectl snapshot" too): the kernel's trigger event
 * (genl version 4: IOTRACE_CMD_EVT_TRIGGER and its IOTRACE_A_TRIG_*
 * attributes) is decoded; every other event but disk added and removed is
 * ignored, as is any command this code does not know.  The conditions of
 * a disk go to the module the same way (watch_nl_set_triggers():
 * IOTRACE_CMD_SET_TRIGGER); a module of genl version 3 refuses them, and
 * that is said as "not supported by this module".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/family.h>
#include "watch.h"

/* the events socket's receive buffer asked for (net.core.rmem_max caps) */
#define WATCH_NL_RCVBUF		(1 << 20)
/* reads of what an overflowed socket still holds, at most */
#define WATCH_NL_DRAIN		4096

/**
 * struct watch_nl - the watcher's membership of the events group.
 * @sk: libnl socket.
 * @cb: its callbacks.
 * @w: the watcher, during watch_nl_recv().
 */
struct watch_nl {
	struct nl_sock *sk;
	struct nl_cb *cb;
	struct watch *w;
	int gone;
};

/*
 * A notification of the generic netlink controller: the iotrace family
 * was unregistered (the module unloaded), and the events group joined
 * with it is gone; a family registered again has a group of its own.
 */
static int family_gone(struct nl_msg *msg)
{
	struct genlmsghdr *g = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[CTRL_ATTR_MAX + 1];

	if (g->cmd != CTRL_CMD_DELFAMILY ||
	    genlmsg_parse(nlmsg_hdr(msg), 0, tb, CTRL_ATTR_MAX, NULL) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_NAME])
		return 0;
	return !strcmp(nla_get_string(tb[CTRL_ATTR_FAMILY_NAME]),
		       IOTRACE_GENL_NAME);
}

/* genl version 4: the trigger event of the kernel */
static int trig_from_event(int cmd, struct nlattr **tb, struct watch_trig *t)
{
	if (cmd != IOTRACE_CMD_EVT_TRIGGER || !tb[IOTRACE_A_DISK_NAME])
		return 0;
	memset(t, 0, sizeof(*t));
	snprintf(t->disk, sizeof(t->disk), "%s",
		 nla_get_string(tb[IOTRACE_A_DISK_NAME]));
	t->reason = tb[IOTRACE_A_TRIG_REASON] ?
		nla_get_u32(tb[IOTRACE_A_TRIG_REASON]) &
		IOTRACE_FILE_TRIG_KERNEL : 0;
	if (tb[IOTRACE_A_TRIG_SEQ] && tb[IOTRACE_A_TRIG_CPU]) {
		t->seq = nla_get_u64(tb[IOTRACE_A_TRIG_SEQ]);
		t->cpu = nla_get_u32(tb[IOTRACE_A_TRIG_CPU]);
		t->have_seq = 1;
	}
	t->mono_ns = tb[IOTRACE_A_TRIG_TIME_NS] ?
		nla_get_u64(tb[IOTRACE_A_TRIG_TIME_NS]) :
		iot_now(CLOCK_MONOTONIC);
	/* genl version 6: the module's count, for watch_events_lost() */
	if (tb[IOTRACE_A_TRIG_EVENTS])
		t->kevents = nla_get_u64(tb[IOTRACE_A_TRIG_EVENTS]);
	/* genl version 7: which set of the triggers that count is of */
	if (tb[IOTRACE_A_TRIG_EPOCH])
		t->kepoch = nla_get_u64(tb[IOTRACE_A_TRIG_EPOCH]);
	/* genl version 5: the history the kernel keeps for us */
	if (tb[IOTRACE_A_HOLD_LO] && tb[IOTRACE_A_HOLD_HI]) {
		t->hold_lo = nla_get_u64(tb[IOTRACE_A_HOLD_LO]);
		t->hold_hi = nla_get_u64(tb[IOTRACE_A_HOLD_HI]);
		if (tb[IOTRACE_A_HOLD_NS])
			t->hold_ns = nla_get_u64(tb[IOTRACE_A_HOLD_NS]);
	}
	return 1;
}

/* A disk the module traces came or went (its name, the kernel's, as text). */
static void say_disk_event(const char *name, int added)
{
	char text[IOT_TEXT_ROOM(IOTRACE_NAME_LEN)];

	fprintf(stderr, "iotracectl watch: disk %s %s\n",
		iot_text_str(text, sizeof(text), name),
		added ? "added" : "removed");
}

static int on_event(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *g = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[IOTRACE_A_MAX + 1];
	struct watch_nl *n = arg;
	struct watch_trig t;
	char reply[256];

	if (nlmsg_hdr(msg)->nlmsg_type == GENL_ID_CTRL) {
		if (family_gone(msg))
			n->gone = 1;
		return NL_SKIP;
	}
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, IOTRACE_A_MAX, NULL) < 0)
		return NL_SKIP;
	if (trig_from_event(g->cmd, tb, &t)) {
		watch_on_trigger(n->w, &t, reply, sizeof(reply));
		return NL_OK;
	}
	if ((g->cmd == IOTRACE_CMD_EVT_DISK_ADDED ||
	     g->cmd == IOTRACE_CMD_EVT_DISK_REMOVED) && tb[IOTRACE_A_DISK_NAME])
		say_disk_event(nla_get_string(tb[IOTRACE_A_DISK_NAME]),
			       g->cmd == IOTRACE_CMD_EVT_DISK_ADDED);
	/* a watched disk that came back: enabled and armed again */
	if (g->cmd == IOTRACE_CMD_EVT_DISK_ADDED && tb[IOTRACE_A_DISK_NAME])
		watch_added(n->w, nla_get_string(tb[IOTRACE_A_DISK_NAME]));
	/* one given by its identity: looked for again (watch_removed()) */
	if (g->cmd == IOTRACE_CMD_EVT_DISK_REMOVED && tb[IOTRACE_A_DISK_NAME])
		watch_removed(n->w, nla_get_string(tb[IOTRACE_A_DISK_NAME]));
	return NL_SKIP;	/* overflow, and commands of a newer module */
}

static int no_seq_check(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

/**
 * watch_nl_open() - join the events group of the iotrace family, and the
 *	controller's notifications (watch_nl_gone()).
 *
 * Return: the membership, or NULL when the family is not registered (no
 * module, or the host tests) or the group cannot be joined: the watcher
 * then has manual triggers only (said on standard error).
 */
struct watch_nl *watch_nl_open(void)
{
	struct watch_nl *n = calloc(1, sizeof(*n));
	int grp;

	if (!n)
		return NULL;
	n->sk = nl_socket_alloc();
	if (!n->sk || genl_connect(n->sk) < 0)
		goto fail;
	grp = genl_ctrl_resolve_grp(n->sk, IOTRACE_GENL_NAME,
				    IOTRACE_GENL_MCGRP);
	if (grp < 0) {
		fprintf(stderr,
			"iotracectl watch: no iotrace netlink family (module not loaded?): manual snapshots only\n");
		goto fail;
	}
	nl_socket_disable_seq_check(n->sk);
	if (nl_socket_add_membership(n->sk, grp) < 0 ||
	    nl_socket_set_nonblocking(n->sk) < 0)
		goto fail;
	/* the family's unregistration (the module unloaded) */
	grp = genl_ctrl_resolve_grp(n->sk, "nlctrl", "notify");
	if (grp < 0 || nl_socket_add_membership(n->sk, grp) < 0)
		fprintf(stderr,
			"iotracectl watch: no generic netlink notifications: an unloaded module goes unnoticed\n");
	/* room for a burst (libnl's default is 32 KiB; the kernel caps it) */
	nl_socket_set_buffer_size(n->sk, WATCH_NL_RCVBUF, 0);
	n->cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!n->cb)
		goto fail;
	nl_cb_set(n->cb, NL_CB_VALID, NL_CB_CUSTOM, on_event, n);
	nl_cb_set(n->cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, no_seq_check, NULL);
	return n;
fail:
	if (n->sk)
		nl_socket_free(n->sk);
	free(n);
	return NULL;
}

/**
 * watch_nl_family() - is the iotrace generic netlink family registered?
 *
 * Return: 1 when it is, 0 when not (or no netlink socket can be had).
 */
int watch_nl_family(void)
{
	struct nl_sock *sk = nl_socket_alloc();
	int ret = 0;

	if (sk && genl_connect(sk) >= 0)
		ret = genl_ctrl_resolve(sk, IOTRACE_GENL_NAME) >= 0;
	if (sk)
		nl_socket_free(sk);
	return ret;
}

/**
 * watch_nl_gone() - was the iotrace family unregistered (the module
 *	unloaded) since watch_nl_open()?  Its events group went with it.
 * @n: the membership.
 *
 * Return: 1 or 0.
 */
int watch_nl_gone(const struct watch_nl *n)
{
	return n->gone;
}

int watch_nl_fd(const struct watch_nl *n)
{
	return nl_socket_get_fd(n->sk);
}

/*
 * The events waiting on the socket, each to watch_on_trigger() if one.
 * An overflow (ENOBUFS, which libnl calls -NLE_NOMEM): what the socket
 * still holds is read, then watch_events_lost() makes up for the rest.
 */
void watch_nl_recv(struct watch_nl *n, struct watch *w)
{
	int ret, i;

	n->w = w;
	ret = nl_recvmsgs(n->sk, n->cb);
	if (ret == -NLE_NOMEM) {
		for (i = 0; i < WATCH_NL_DRAIN; i++) {
			ret = nl_recvmsgs(n->sk, n->cb);
			if (ret < 0 && ret != -NLE_INTR && ret != -NLE_NOMEM)
				break;
		}
		watch_events_lost(w);
		return;
	}
	if (ret < 0 && ret != -NLE_AGAIN && ret != -NLE_INTR)
		fprintf(stderr,
			"iotracectl watch: receiving events: %s (events may have been lost)\n",
			nl_geterror(ret));
}

void watch_nl_close(struct watch_nl *n)
{
	if (!n)
		return;
	nl_cb_put(n->cb);
	nl_socket_free(n->sk);
	free(n);
}

static int on_err(struct sockaddr_nl *sa, struct nlmsgerr *e, void *arg)
{
	(void)sa;
	watch_nl_reply_error(arg, e->error);
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	(void)msg;
	watch_nl_reply_ack(arg);
	return NL_STOP;
}

/*
 * The hold at a hit: hold= as given, else the most the ring allows; only
 * to a module that knows it (genl version 5), else none.
 */
static int put_hold(struct nl_msg *m, const struct watch_th *th,
		    unsigned int version)
{
	uint32_t chunks = th->have_hold ? th->hold_chunks :
			  IOTRACE_TRIG_HOLD_MAX;

	if (version < 5 || !chunks)
		return 0;
	if (nla_put_u32(m, IOTRACE_A_TRIG_HOLD_CHUNKS, chunks))
		return -1;
	if (th->hold_ns && nla_put_u64(m, IOTRACE_A_TRIG_HOLD_NS, th->hold_ns))
		return -1;
	return 0;
}

static int put_th(struct nl_msg *m, const struct watch_th *th,
		  unsigned int version)
{
	unsigned int i;

	if (th->set <= 0)
		return 0;	/* no attribute: no triggers ("off") */
	if (put_hold(m, th, version))
		return -1;
	for (i = 0; i < IOTRACE_NR_MOPS; i++)
		if (th->lat_ns[i] &&
		    nla_put_u64(m, IOTRACE_A_TRIG_LAT_READ + i, th->lat_ns[i]))
			return -1;
	if (th->flags & IOTRACE_FILE_TH_ERROR) {
		if (nla_put_u8(m, IOTRACE_A_TRIG_ERROR, 1))
			return -1;
		for (i = 0; i < th->nr_errnos; i++)
			if (nla_put_u32(m, IOTRACE_A_TRIG_ERRNO, th->errnos[i]))
				return -1;
	}
	if ((th->flags & IOTRACE_FILE_TH_DEVSTATUS) &&
	    nla_put_u8(m, IOTRACE_A_TRIG_DEVSTATUS, 1))
		return -1;
	if ((th->flags & IOTRACE_FILE_TH_TIMEOUT) &&
	    nla_put_u8(m, IOTRACE_A_TRIG_TIMEOUT, 1))
		return -1;
	if (th->requeues && nla_put_u32(m, IOTRACE_A_TRIG_REQUEUES, th->requeues))
		return -1;
	if (th->stuck_ns && nla_put_u64(m, IOTRACE_A_TRIG_STUCK_NS, th->stuck_ns))
		return -1;
	if (th->have_rate && nla_put_u64(m, IOTRACE_A_TRIG_RATE_NS, th->rate_ns))
		return -1;
	return 0;
}

/*
 * What a request carries besides the disk's name (@arg: its argument,
 * @version: the family's): 0, or -1 when the message has no room.
 */
typedef int (*put_fn)(struct nl_msg *m, const void *arg, unsigned int version);

/*
 * One command @cmd for @disk, acknowledged: the socket, the message, the
 * wait for the ack.  Return 0; -EOPNOTSUPP when there is no family or the
 * module does not know @cmd; another negative errno (the module's own, or
 * ours) otherwise; said in @err (watch_nl_say()).
 */
static int nl_request(uint8_t cmd, const char *disk, put_fn put,
		      const void *arg, char *err, size_t errlen)
{
	struct nl_sock *sk = nl_socket_alloc();
	struct watch_nl_reply reply;
	struct nl_msg *m = NULL;
	struct nl_cb *cb = NULL;
	int fam, ret = -EOPNOTSUPP;

	if (!sk || genl_connect(sk) < 0)
		goto out;
	fam = genl_ctrl_resolve(sk, IOTRACE_GENL_NAME);
	if (fam < 0) {
		/* not a module without the command: no module at all */
		snprintf(err, errlen, "%s", WATCH_NO_FAMILY);
		nl_socket_free(sk);
		return ret;
	}
	m = nlmsg_alloc();
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!m || !cb) {
		ret = -ENOMEM;
		goto out;
	}
	if (!genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, fam, 0, NLM_F_ACK,
			 cmd, IOTRACE_GENL_VERSION) ||
	    nla_put_string(m, IOTRACE_A_DISK_NAME, disk) ||
	    put(m, arg, iot_genl_version(sk))) {
		ret = -EMSGSIZE;
		goto out;
	}
	watch_nl_reply_init(&reply);
	nl_cb_err(cb, NL_CB_CUSTOM, on_err, &reply);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &reply);
	if (nl_send_auto(sk, m) < 0) {
		ret = -EIO;
		goto out;
	}
	while (!reply.done)
		if (nl_recvmsgs(sk, cb) < 0)
			break;
	/* a module of genl version 3 answers -EOPNOTSUPP */
	ret = watch_nl_reply_result(&reply);
out:
	watch_nl_say(ret, cmd, err, errlen);
	if (m)
		nlmsg_free(m);
	if (cb)
		nl_cb_put(cb);
	if (sk)
		nl_socket_free(sk);
	return ret;
}

static int put_th_arg(struct nl_msg *m, const void *arg, unsigned int version)
{
	return put_th(m, arg, version);
}

/**
 * watch_nl_set_triggers() - give the module a disk's trigger conditions
 *	(IOTRACE_CMD_SET_TRIGGER; none given: the disk's triggers are off).
 * @disk: the disk.
 * @th: the conditions.
 * @err: why not.
 * @errlen: its size.
 *
 * Return: 0; -EOPNOTSUPP when the module has no triggers (no family, or
 * one older than genl version 4); another negative errno otherwise.
 */
int watch_nl_set_triggers(const char *disk, const struct watch_th *th,
			  char *err, size_t errlen)
{
	return nl_request(IOTRACE_CMD_SET_TRIGGER, disk, put_th_arg, th, err,
			  errlen);
}

/* the hold: its hold_hi, and its hold_ns to a module that takes it (11) */
static int put_hold_id(struct nl_msg *m, const void *arg, unsigned int version)
{
	const struct watch_trig *t = arg;

	if (nla_put_u64(m, IOTRACE_A_HOLD_HI, t->hold_hi))
		return -1;
	if (version >= 11 && t->hold_ns &&
	    nla_put_u64(m, IOTRACE_A_HOLD_NS, t->hold_ns))
		return -1;
	return 0;
}

/**
 * watch_nl_release_hold() - end the hold the kernel set at a trigger of
 *	@disk (IOTRACE_CMD_RELEASE_HOLD), once its snapshot is saved.
 * @disk: the disk.
 * @hold: the hold (its hold_hi and hold_ns, iotrace_ring_hdr's): a later
 *	one stays.
 * @err: why not.
 * @errlen: its size.
 *
 * Return: 0 (also when the hold had ended), or a negative errno.
 */
int watch_nl_release_hold(const char *disk, const struct watch_trig *hold,
			  char *err, size_t errlen)
{
	return nl_request(IOTRACE_CMD_RELEASE_HOLD, disk, put_hold_id, hold,
			  err, errlen);
}
