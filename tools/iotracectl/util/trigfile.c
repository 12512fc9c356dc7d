// SPDX-License-Identifier: GPL-2.0
/*
 * The trigger chunk of a snapshot file (IOTRACE_CHUNK_TRIGGER, file minor
 * 2): written by "iotracectl watch" before the trailer, printed by "info",
 * and the centre of "show --around-trigger" (show.c).  The records reader
 * (file.c) skips the chunk as any chunk it does not know.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "macros.h"
#include "out.h"
#include "trigger.h"

/**
 * iot_writer_trigger() - write one trigger chunk for disk @disk.
 * @w: the writer (between iot_writer_start() and iot_writer_finish()).
 * @disk: index in the file's disk table.
 * @t: the payload.
 *
 * Return: 0 or -1 on a write error.
 */
int iot_writer_trigger(struct iot_writer *w, unsigned int disk,
		       const struct iotrace_file_trigger *t)
{
	struct iotrace_file_chunk ch;

	memset(&ch, 0, sizeof(ch));
	ch.magic = IOTRACE_CHUNK_TRIGGER;
	ch.payload_size = sizeof(*t);
	ch.disk = (uint16_t)disk;
	return iot_writer_other(w, &ch, t);
}

/* The reason bits in bit order: the kernel's, then the file's own. */
_Static_assert(IOTRACE_TRIG_LATENCY == 1u << 0 &&
	       IOTRACE_TRIG_ERROR == 1u << 1 &&
	       IOTRACE_TRIG_DEVSTATUS == 1u << 2 &&
	       IOTRACE_TRIG_TIMEOUT == 1u << 3 &&
	       IOTRACE_TRIG_REQUEUES == 1u << 4 &&
	       IOTRACE_TRIG_STUCK == 1u << 5 &&
	       IOTRACE_FILE_TRIG_MANUAL == 1u << 16 &&
	       IOTRACE_FILE_TRIG_LOST == 1u << 17,
	       "trigger reason bits moved: update iot_trig_reason_name()");

/**
 * iot_trig_reason_name() - the name of one trigger reason bit.
 * @bit: its number: IOTRACE_TRIG_* (a kernel event's, a trace file's) or
 *	IOTRACE_FILE_TRIG_* (a trace file's only).
 *
 * Return: the name, or NULL for a bit this iotracectl does not know.
 */
const char *iot_trig_reason_name(unsigned int bit)
{
	static const char *const names[] = {
		[0] = "latency", [1] = "error", [2] = "devstatus",
		[3] = "timeout", [4] = "requeues", [5] = "stuck",
		[16] = "manual", [17] = "events-lost",
	};

	return bit < ARRAY_SIZE(names) ? names[bit] : NULL;
}

/* The reason bits as "latency+error" (an unknown bit as bitN). */
void iot_trig_reason_names(uint32_t reason, char *out, size_t len)
{
	char *p = out, *end = out + len;
	const char *name;
	unsigned int i;

	*out = 0;
	for (i = 0; i < 32; i++) {
		if (!(reason & (1u << i)))
			continue;
		if (p != out)
			p = iot_put_s(p, end, "+");
		name = iot_trig_reason_name(i);
		if (name)
			p = iot_put_s(p, end, name);
		else
			p = iot_put_u(iot_put_s(p, end, "bit"), end, i);
	}
	if (!*out)
		iot_put_s(out, end, "none");
}

static const char *const lat_names[IOTRACE_NR_MOPS] = {
	"read-lat", "write-lat", "flush-lat", "discard-lat", "other-lat",
};

/* The thresholds of @t as the words of a "trigger =" line. */
static void th_words(const struct iotrace_file_trigger *t, char *out,
		     size_t len)
{
	char *p = out, *end = out + len, e[32];
	unsigned int i;

	*out = 0;
	for (i = 0; i < IOTRACE_NR_MOPS; i++) {
		if (!t->lat_ns[i])
			continue;
		p = iot_put_s(p, end, p == out ? "" : " ");
		p = iot_put_s(p, end, lat_names[i]);
		p = iot_put_s(p, end, "=");
		p = iot_put_u(p, end, t->lat_ns[i]);
		p = iot_put_s(p, end, "ns");
	}
	if (t->th_flags & IOTRACE_FILE_TH_ERROR) {
		p = iot_put_s(p, end, p == out ? "error" : " error");
		for (i = 0; i < IOTRACE_FILE_TH_ERRNOS && t->errnos[i]; i++) {
			iot_errno_name((int)t->errnos[i], e, sizeof(e));
			p = iot_put_s(p, end, i ? "," : "=");
			p = iot_put_s(p, end, e[0] == '-' ? e + 1 : e);
		}
	}
	if (t->th_flags & IOTRACE_FILE_TH_DEVSTATUS)
		p = iot_put_s(p, end, p == out ? "devstatus" : " devstatus");
	if (t->th_flags & IOTRACE_FILE_TH_TIMEOUT)
		p = iot_put_s(p, end, p == out ? "timeout" : " timeout");
	if (t->requeues) {
		p = iot_put_s(p, end, p == out ? "requeues=" : " requeues=");
		p = iot_put_u(p, end, t->requeues);
	}
	if (t->stuck_ns) {
		p = iot_put_s(p, end, p == out ? "stuck=" : " stuck=");
		p = iot_put_s(iot_put_u(p, end, t->stuck_ns), end, "ns");
	}
}

static void utc(char *out, size_t len, uint64_t real_ns)
{
	time_t sec = (time_t)(real_ns / 1000000000ull);
	struct tm tm;
	char b[32];

	if (!gmtime_r(&sec, &tm)) {
		snprintf(out, len, "?");
		return;
	}
	strftime(b, sizeof(b), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, len, "%s.%06lluZ", b,
		 (unsigned long long)(real_ns % 1000000000ull) / 1000);
}

#define MAX_TRIGS	IOT_MAX_DISKS

/**
 * iot_info_triggers() - "info": the triggers and identities of a snapshot
 *	file; nothing for a file without trigger chunks.
 * @s: the opened trace file.
 * @jw: the JSON writer of info's object, inside it: its "triggers"
 *	member; NULL: lines of the normal output.
 * @err: why the chunks could not be read.
 * @errlen: its size.
 *
 * Return: 0, or -1 with @err set, nothing printed, when the file could
 * not be read (cut since it was opened) or memory ran out.
 */
int iot_info_triggers(const struct iot_src *s, struct iot_jw *jw, char *err,
		      size_t errlen)
{
	struct iotrace_file_trigger *t = calloc(MAX_TRIGS, sizeof(*t));
	unsigned int disks[MAX_TRIGS];
	char reason[128], th[512], when[48];
	char text[3][IOT_TEXT_ROOM(IOTRACE_FILE_ID_LEN)];
	int n, i;

	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	n = iot_file_triggers(s->buf, s->len, s->fi, t, disks, MAX_TRIGS);
	if (n < 0) {
		iot_src_read_error(s, err, errlen);
		free(t);
		return -1;
	}
	if (jw && n) {
		jw_key(jw, "triggers");
		jw_arr_start(jw);
	}
	for (i = 0; i < n; i++) {
		const char *name = disks[i] < s->fi->nr_disks ?
				   s->fi->disks[disks[i]].name : "?";

		iot_trig_reason_names(t[i].reason, reason, sizeof(reason));
		th_words(&t[i], th, sizeof(th));
		utc(when, sizeof(when), t[i].real_ns);
		if (jw) {
			jw_obj_start(jw);
			jw_kv_str(jw, "disk", name);
			jw_kv_str(jw, "reason", reason);
			jw_kv_u64(jw, "reason_bits", t[i].reason);
			jw_kv_str(jw, "utc", when);
			jw_kv_u64(jw, "mono_ns", t[i].mono_ns);
			jw_kv_u64(jw, "real_ns", t[i].real_ns);
			if (t[i].flags & IOTRACE_FILE_TRIGF_SEQ) {
				jw_kv_u64(jw, "cpu", t[i].cpu);
				jw_kv_u64(jw, "seq", t[i].seq);
			} else {
				jw_key(jw, "cpu");
				jw_null(jw);
				jw_key(jw, "seq");
				jw_null(jw);
			}
			jw_kv_u64(jw, "extra", t[i].extra);
			jw_kv_u64(jw, "number", t[i].number);
			jw_kv_u64(jw, "post_ns", t[i].post_ns);
			jw_kv_u64(jw, "episode_ns", t[i].episode_ns);
			jw_kv_u64(jw, "save_mono_ns", t[i].save_mono_ns);
			jw_key(jw, "post_cut");
			jw_bool(jw, t[i].flags & IOTRACE_FILE_TRIGF_POST_CUT);
			jw_key(jw, "queued");
			jw_bool(jw, t[i].flags & IOTRACE_FILE_TRIGF_QUEUED);
			jw_kv_str(jw, "thresholds", th);
			jw_kv_str(jw, "model", t[i].model);
			jw_kv_str(jw, "serial", t[i].serial);
			jw_kv_str(jw, "wwn", t[i].wwn);
			jw_obj_end(jw);
			continue;
		}
		printf("trigger:  %s: %s at %s (CLOCK_MONOTONIC %llu.%06llu s), snapshot %llu\n",
		       iot_text_str(text[0], sizeof(text[0]), name), reason,
		       when,
		       (unsigned long long)(t[i].mono_ns / 1000000000ull),
		       (unsigned long long)(t[i].mono_ns % 1000000000ull) / 1000,
		       (unsigned long long)t[i].number);
		if (t[i].flags & IOTRACE_FILE_TRIGF_SEQ)
			printf("  record:     cpu %u, sequence %llu\n", t[i].cpu,
			       (unsigned long long)t[i].seq);
		else
			printf("  record:     none named\n");
		printf("  episode:    %u more trigger%s joined (window %.3f s), post %.3f s%s%s\n",
		       t[i].extra, t[i].extra == 1 ? "" : "s",
		       t[i].episode_ns / 1e9, t[i].post_ns / 1e9,
		       t[i].flags & IOTRACE_FILE_TRIGF_POST_CUT ?
		       " (cut short: the watcher stopped)" : "",
		       t[i].flags & IOTRACE_FILE_TRIGF_QUEUED ?
		       " (waited for the previous snapshot)" : "");
		printf("  thresholds: %s\n", th[0] ? th : "none");
		printf("  identity:   model \"%s\", serial \"%s\", wwn \"%s\"\n",
		       iot_text_str(text[0], sizeof(text[0]), t[i].model),
		       iot_text_str(text[1], sizeof(text[1]), t[i].serial),
		       iot_text_str(text[2], sizeof(text[2]), t[i].wwn));
	}
	if (jw && n)
		jw_arr_end(jw);
	free(t);
	return 0;
}

_Static_assert(sizeof(struct iotrace_file_trigger) == 576,
	       "the trigger chunk's payload, as abi.rst lays it out");
_Static_assert(offsetof(struct iotrace_file_trigger, model) == 160 &&
	       offsetof(struct iotrace_file_trigger, wwn) == 416,
	       "the trigger chunk's identity, as abi.rst lays it out");
