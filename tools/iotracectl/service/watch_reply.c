// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's answer to one request of the watcher (watch_nl.c's
 * nl_request()): an ack, or an error, made into the request's result and
 * its message; which refusals stop the watcher; and what to do about a
 * refusal, for every netlink command (iot_nl_hint()).  Apart from libnl,
 * so that the unit tests feed it the answers a module gives.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "watch.h"

void watch_nl_reply_init(struct watch_nl_reply *r)
{
	r->done = 0;
	r->error = 0;
}

/*
 * An error message (NLMSG_ERROR): @error is struct nlmsgerr's, a negative
 * errno (0 is an ack with NLM_F_ACK).
 */
void watch_nl_reply_error(struct watch_nl_reply *r, int error)
{
	r->error = error > 0 ? -error : error;
	r->done = 1;
}

void watch_nl_reply_ack(struct watch_nl_reply *r)
{
	r->error = 0;
	r->done = 1;
}

/* Return: 0, the kernel's negative errno, or -EIO when it did not answer. */
int watch_nl_reply_result(const struct watch_nl_reply *r)
{
	return r->done ? r->error : -EIO;
}

/**
 * watch_nl_say() - what a request's result means, in @err.
 * @ret: 0 or a negative errno (nl_request()'s).
 * @cmd: the request (IOTRACE_CMD_*).
 * @err: the message (untouched for 0).
 * @errlen: its size.
 *
 * A module without the command (genl version 3 for the trigger
 * conditions) answers -EOPNOTSUPP: said as "not supported by this
 * module" for the trigger conditions (no family at all is said by the
 * caller, WATCH_NO_FAMILY).
 */
void watch_nl_say(int ret, unsigned int cmd, char *err, size_t errlen)
{
	if (!ret)
		return;
	if (ret == -EOPNOTSUPP && cmd == IOTRACE_CMD_SET_TRIGGER)
		snprintf(err, errlen,
			 "not supported by this module (no IOTRACE_CMD_SET_TRIGGER)");
	else
		snprintf(err, errlen, "%s", strerror(-ret));
}

/**
 * watch_refused() - a request of the watcher refused for want of
 *	privilege: at start the watcher stops there (watch.c).
 * @err: the kernel's answer, a positive errno (0: done).
 * @disk: the disk.
 * @what: the request ("resize", "trigger conditions", "enable").
 * @why: the refusal as said (strerror() and the kernel's message).
 * @msg: what the watcher says, when refused so.
 * @msglen: its size.
 *
 * Generic netlink refuses the state changes without CAP_NET_ADMIN
 * (GENL_ADMIN_PERM) and the module without CAP_SYS_ADMIN, both with EPERM;
 * a security module refuses with EACCES (or EPERM).  A watcher refused so
 * would watch nothing: no ring resized, no trigger conditions, no disk
 * enabled.  The other refusals (a disk not attached yet, ENODEV; a module
 * without triggers, EOPNOTSUPP; a size out of range, EINVAL) are said and
 * the watcher goes on: a disk that comes back is made ready again.
 *
 * Return: 1 with @msg set when @err is such a refusal, else 0.
 */
int watch_refused(int err, const char *disk, const char *what,
		  const char *why, char *msg, size_t msglen)
{
	if (err != EPERM && err != EACCES)
		return 0;
	snprintf(msg, msglen,
		 "%s: %s refused (%s): the watcher needs CAP_SYS_ADMIN and CAP_NET_ADMIN (generic netlink asks for CAP_NET_ADMIN, the module for CAP_SYS_ADMIN; iotrace.service keeps both in its CapabilityBoundingSet=)",
		 disk, what, why);
	return 1;
}
