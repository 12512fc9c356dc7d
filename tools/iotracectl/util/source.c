// SPDX-License-Identifier: GPL-2.0
/*
 * A command's DISK|FILE argument opened as a record source (the library's
 * iot_src_open()), with what the commands say about it on standard error:
 * why it could not be opened, a trace file read as far as it goes, a
 * --disk it does not hold; and its --from/--to made times of it.
 */
#include <string.h>
#include <time.h>
#include "cmd.h"

/* trace files opened that were not whole, each said once (exit status 3) */
unsigned int iot_salvaged;

/*
 * Say @what of source @s on standard error, once per source (a command
 * may open one twice, as diff FILE FILE does).
 */
static void say_once(const struct iot_src *s, const char *what)
{
	static char said[4][sizeof(s->label)];
	unsigned int i;

	for (i = 0; i < 4 && said[i][0]; i++)
		if (!strcmp(said[i], s->label))
			return;
	iot_err("%s: %s", s->label, what);
	if (i < 4)
		memcpy(said[i], s->label, sizeof(s->label));
}

/**
 * cmd_src_open() - open a command's DISK|FILE argument (iot_src_open()).
 * @s: source to fill.
 * @arg: a path to a trace file or ring snapshot, "-" for one on standard
 *	input, or a disk name.
 *
 * A trace file that is not whole is said on standard error, once per file
 * (a command may open one twice, as diff FILE FILE does), and counted in
 * iot_salvaged (exit status 3).  A persistent region's rings left out
 * (they do not validate) are said the same way; the trace of the others
 * is whole: not counted.
 *
 * Return: 0, or -1 after saying what failed and what to do.
 */
int cmd_src_open(struct iot_src *s, const char *arg)
{
	char err[IOT_ERR_LEN], e[IOT_ERR_LEN];

	if (iot_src_open(s, arg, err, sizeof(err))) {
		iot_err("%s", err);
		return -1;
	}
	if (s->preg_left[0])
		say_once(s, s->preg_left);
	if (!s->is_file || !iot_file_salvage_str(s->fi, e, sizeof(e)))
		return 0;
	say_once(s, e);
	iot_salvaged++;
	return 0;
}

/**
 * cmd_src_disk() - the index of disk @name in @s, for --disk.
 * @s: the source.
 * @name: disk name.
 *
 * Return: the index, or -1 after saying which disks @s holds.
 */
int cmd_src_disk(const struct iot_src *s, const char *name)
{
	char list[1024], text[IOT_TEXT_ROOM(IOTRACE_NAME_LEN)];
	int i = iot_src_disk_index(s, name);

	if (i >= 0)
		return i;
	iot_src_disk_list(s, list, sizeof(list));
	iot_err("%s holds no disk named %s (it holds: %s)", s->label,
		iot_text_str(text, sizeof(text), name), list);
	return -1;
}

/* a --from/--to time of kind @rel as CLOCK_MONOTONIC ns (0 before it) */
static uint64_t src_time(uint64_t t, int rel, uint64_t t0, int64_t off)
{
	if (rel == IOT_TIME_REL)
		return t + t0;
	if (rel != IOT_TIME_WALL)
		return t;
	if (off > 0 && t < (uint64_t)off)
		return 0;
	return t - (uint64_t)off;
}

/**
 * cmd_src_times() - --from/--to given as +T (after the trace's start)
 *	made times of @src; nothing to do for times given as such.
 * @o: the options, changed.
 * @src: the source they filter, open.
 */
void cmd_src_times(struct iot_opts *o, struct iot_src *src)
{
	uint64_t t0 = 0;
	int64_t off = 0;	/* CLOCK_REALTIME - CLOCK_MONOTONIC */

	if (!o->from_rel && !o->to_rel)
		return;
	if (o->from_rel == IOT_TIME_REL || o->to_rel == IOT_TIME_REL)
		t0 = iot_src_start(src);
	if (o->from_rel == IOT_TIME_WALL || o->to_rel == IOT_TIME_WALL) {
		if (src->is_file) {
			off = (int64_t)(src->fi->hdr.anchor_real_ns -
					src->fi->hdr.anchor_mono_ns);
		} else {
			struct timespec r, m;

			clock_gettime(CLOCK_REALTIME, &r);
			clock_gettime(CLOCK_MONOTONIC, &m);
			off = (int64_t)(r.tv_sec - m.tv_sec) * 1000000000ll +
			      (r.tv_nsec - m.tv_nsec);
		}
	}
	o->from_ns = src_time(o->from_ns, o->from_rel, t0, off);
	o->to_ns = src_time(o->to_ns, o->to_rel, t0, off);
	o->from_rel = 0;
	o->to_rel = 0;
}
