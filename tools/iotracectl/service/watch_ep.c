// SPDX-License-Identifier: GPL-2.0
/*
 * iotracectl watch: a disk's episodes (watch.c's comment, "Episodes"):
 * what a trigger does to the disk's snapshot pending, being saved or
 * queued, and whose the hold the kernel set at a hit is.  Apart from the
 * threads, the sockets and the files, under the caller's lock, so that
 * the unit tests run a disk's triggers through it.
 */
#include <string.h>
#include "watch.h"

/*
 * The hold @t brings is that of episode @e: the kernel keeps one hold per
 * ring at a time, set by a hit when there is none, and each event says
 * the ring's hold when it was sent; a newer one (a higher hold_hi, or the
 * same set later: no chunk was taken between them) means that the
 * episode's own, if any, ended (expired, or released with the snapshot
 * before), and is the one to release once @e is saved.
 */
static void take_hold(struct watch_episode *e, const struct watch_trig *t)
{
	if (t->hold_hi > e->trig.hold_hi ||
	    (t->hold_hi && t->hold_hi == e->trig.hold_hi &&
	     t->hold_ns > e->trig.hold_ns)) {
		e->trig.hold_lo = t->hold_lo;
		e->trig.hold_hi = t->hold_hi;
		e->trig.hold_ns = t->hold_ns;
	}
}

/* Is @h (an episode's trigger) the hold @t brings?  hold_ns 0: unknown. */
static int same_hold(const struct watch_trig *h, const struct watch_trig *t)
{
	return h->hold_hi == t->hold_hi &&
	       (!h->hold_ns || !t->hold_ns || h->hold_ns == t->hold_ns);
}

/**
 * watch_ep_trigger() - trigger @t of a disk, whose episodes are @d.
 * @d: the disk's episodes.
 * @t: the trigger.
 * @episode_ns: --episode.
 * @rate: asked when the trigger would start or queue a snapshot: 1 when
 *	max-per-hour leaves room for it, else 0.
 * @arg: its argument.
 *
 * Context: the caller's lock of the watcher's state.
 * Return: what became of the trigger; WATCH_EP_STARTED: @d->cur is the
 * new episode, pending (@d->in_job), which the caller counts.
 */
enum watch_ep_what watch_ep_trigger(struct watch_ep *d,
				    const struct watch_trig *t,
				    uint64_t episode_ns,
				    int (*rate)(void *arg), void *arg)
{
	if ((d->state == EP_PENDING || d->state == EP_SAVING) &&
	    t->mono_ns < d->cur.trig.mono_ns + episode_ns) {
		d->cur.extra++;
		take_hold(&d->cur, t);
		return WATCH_EP_JOINED;
	}
	if (d->state != EP_IDLE && d->have_next) {
		d->next.extra++;
		take_hold(&d->next, t);
		return WATCH_EP_JOINED_NEXT;
	}
	if (!rate(arg))
		return WATCH_EP_REFUSED;
	if (d->state != EP_IDLE) {
		memset(&d->next, 0, sizeof(d->next));
		d->next.trig = *t;
		d->next.queued = 1;
		d->have_next = 1;
		return WATCH_EP_QUEUED;
	}
	memset(&d->cur, 0, sizeof(d->cur));
	d->cur.trig = *t;
	d->state = EP_PENDING;
	d->in_job = 1;
	return WATCH_EP_STARTED;
}

/**
 * watch_ep_holds() - is the kernel's hold @t brings that of an episode of
 *	@d (released once it is saved)?
 * @d: the disk's episodes.
 * @t: the trigger, with the hold (its hold_hi and hold_ns).
 *
 * A trigger refused for max-per-hour releases the hold it brings, unless
 * it is an episode's: the ring's hold, set at the hit that started the
 * snapshot being saved, comes with every event until it is released.
 *
 * Context: the caller's lock of the watcher's state.
 * Return: 1 or 0.
 */
int watch_ep_holds(const struct watch_ep *d, const struct watch_trig *t)
{
	if (!t->hold_hi)
		return 0;
	return (d->state != EP_IDLE && same_hold(&d->cur.trig, t)) ||
	       (d->have_next && same_hold(&d->next.trig, t));
}

/* What watch_ep_trigger() did, as the log and "iotracectl snapshot" say. */
const char *watch_ep_said(enum watch_ep_what what)
{
	switch (what) {
	case WATCH_EP_STARTED:
		return "started";
	case WATCH_EP_JOINED:
		return "joined";
	case WATCH_EP_QUEUED:
		return "queued";
	case WATCH_EP_JOINED_NEXT:
		return "joined the queued snapshot";
	case WATCH_EP_REFUSED:
		break;
	}
	return "refused (max-per-hour)";
}
