// SPDX-License-Identifier: GPL-2.0
/*
 * info: what a trace file's header and trailer say: host, kernel release,
 * wall-clock start and end, the disks and the chunks; of a persistent
 * region (read as the trace file previous -o writes), the previous boot.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cmd.h"
#include "out.h"
#include "trigger.h"
#include "stack.h"

/* A header string (not always NUL-terminated) into @out. */
static void hdr_str(char *out, size_t len, const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	if (n >= len)
		n = len - 1;
	memcpy(out, s, n);
	out[n] = 0;
}

/* CLOCK_REALTIME ns as "YYYY-MM-DDTHH:MM:SS.uuuuuuZ". */
static void utc_str(char *out, size_t len, uint64_t real_ns)
{
	time_t sec = (time_t)(real_ns / 1000000000ull);
	struct tm tm;
	char buf[32];

	if (!real_ns) {	/* a ring copy's: no wall-clock time */
		snprintf(out, len, "unknown");
		return;
	}
	if (!gmtime_r(&sec, &tm)) {
		snprintf(out, len, "?");
		return;
	}
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, len, "%s.%06lluZ", buf,
		 (unsigned long long)(real_ns % 1000000000ull) / 1000);
}

/* CLOCK_REALTIME of @mono_ns by the file's anchor (its boot's clocks). */
static uint64_t real_of(const struct iotrace_file_hdr *h, uint64_t mono_ns)
{
	if (mono_ns <= h->anchor_mono_ns)
		return h->anchor_real_ns - (h->anchor_mono_ns - mono_ns);
	return h->anchor_real_ns + (mono_ns - h->anchor_mono_ns);
}

/* @ns as seconds, "S.uuuuuu", into @out */
static const char *sec_us(char *out, size_t len, uint64_t ns)
{
	snprintf(out, len, "%llu.%06llu",
		 (unsigned long long)(ns / 1000000000ull),
		 (unsigned long long)(ns % 1000000000ull) / 1000);
	return out;
}

/*
 * The previous boot a file's records come from (@b, its boot chunk): a
 * persistent region read as the trace file previous -o writes (@src
 * ->preg), or such a file; as text or as a "previous_boot" object of
 * @jw's, with the wall-clock span of its records.
 */
static void info_previous(const struct iot_src *src,
			  const struct iotrace_file_boot *b, struct iot_jw *jw)
{
	const struct iotrace_file_hdr *h = &src->fi->hdr;
	char id[40], rel[65], text[IOT_TEXT_ROOM(64)], first[48], last[48];
	char a[32], z[32];
	int panicked = !!(b->flags & IOTRACE_FILE_BOOT_PANICKED);

	iot_uuid_str(b->boot_id, id);
	hdr_str(rel, sizeof(rel), h->release, sizeof(h->release));
	utc_str(first, sizeof(first), real_of(h, b->first_ns));
	utc_str(last, sizeof(last), real_of(h, b->last_ns));
	if (jw) {
		jw_key(jw, "previous_boot");
		jw_obj_start(jw);
		jw_kv_str(jw, "boot_id", id);
		jw_kv_str(jw, "release", rel);
		jw_key(jw, "panicked");
		jw_bool(jw, panicked);
		if (b->last_ns) {
			jw_kv_str(jw, "first_utc", first);
			jw_kv_u64(jw, "first_mono_ns", b->first_ns);
			jw_kv_str(jw, "last_utc", last);
			jw_kv_u64(jw, "last_mono_ns", b->last_ns);
		}
		if (b->flags & IOTRACE_FILE_BOOT_REFUSED)
			jw_kv_u64(jw, "refused", b->refused);
		if (b->flags & IOTRACE_FILE_BOOT_EVICTED)
			jw_kv_u64(jw, "evicted", b->evicted);
		jw_obj_end(jw);
		return;
	}
	printf("previous: boot %s, kernel %s%s (%s)\n", id,
	       iot_text_str(text, sizeof(text), rel),
	       panicked ? ", panicked" : "",
	       src->preg ? "its persistent region" :
	       "saved from its persistent region");
	if (b->last_ns)
		printf("records:  %s to %s (%.3f s; that boot's CLOCK_MONOTONIC %s to %s s)\n",
		       first, last, (b->last_ns - b->first_ns) / 1e9,
		       sec_us(a, sizeof(a), b->first_ns),
		       sec_us(z, sizeof(z), b->last_ns));
	else
		printf("records:  none\n");
	/* what its region had no room for (previous's line) */
	if (b->flags & IOTRACE_FILE_BOOT_REFUSED) {
		printf("region:   ");
		iot_print_room(b->refused,
			       !!(b->flags & IOTRACE_FILE_BOOT_EVICTED),
			       b->evicted);
	}
}

/* the in-flight sections of a file, per disk (iot_file_inflight()) */
struct info_infl {
	unsigned int nr_disks;
	uint64_t *nr, *torn;
	unsigned char *have;
};

static int info_infl_table(void *arg, const struct iot_inflight *t)
{
	struct info_infl *v = arg;

	if (t->disk < v->nr_disks) {
		v->have[t->disk] = 1;
		v->nr[t->disk] += t->nr;
		v->torn[t->disk] += t->torn;
	}
	return 0;
}

/* A section of @src could not be read: why, in @err; -1. */
static int info_read_failed(const struct iot_src *src, char *err,
			    size_t errlen)
{
	if (src->fi->rd_err)
		iot_src_read_error(src, err, errlen);
	else
		snprintf(err, errlen, "out of memory");
	return -1;
}

/* The file's boot chunk into @b: 1, 0 (none), -1 (@err says why). */
static int info_boot_read(const struct iot_src *src,
			  struct iotrace_file_boot *b, char *err, size_t errlen)
{
	int r = iot_file_boot(src->buf, src->len, src->fi, b);

	if (r < 0)
		info_read_failed(src, err, errlen);
	return r;
}

/*
 * The requests in flight at the end of @src (a previous boot's), per
 * disk: 0; -1 with @err set.  Free with info_infl_free().
 */
static int info_infl_read(const struct iot_src *src, struct info_infl *v,
			  char *err, size_t errlen)
{
	unsigned int damaged, n = src->fi->nr_disks ? src->fi->nr_disks : 1;

	v->nr_disks = src->fi->nr_disks;
	v->nr = calloc(n, sizeof(*v->nr));
	v->torn = calloc(n, sizeof(*v->torn));
	v->have = calloc(n, 1);
	if (!v->nr || !v->torn || !v->have) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (iot_file_inflight(src->buf, src->len, src->fi, info_infl_table, v,
			      &damaged) < 0)
		return info_read_failed(src, err, errlen);
	return 0;
}

static void info_infl_free(struct info_infl *v)
{
	free(v->nr);
	free(v->torn);
	free(v->have);
}

/* who the disks of a file are (its identity chunks), per disk */
struct info_ids {
	struct iotrace_file_ident *id;
	unsigned char *have;
};

/* 0, or -1 with @err set; free with info_ids_free() either way */
static int info_ids_read(const struct iot_src *src, struct info_ids *v,
			 char *err, size_t errlen)
{
	unsigned int n = src->fi->nr_disks ? src->fi->nr_disks : 1;

	v->id = calloc(n, sizeof(*v->id));
	v->have = calloc(n, 1);
	if (!v->id || !v->have) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (iot_file_idents(src->buf, src->len, src->fi, v->id, v->have) < 0)
		return info_read_failed(src, err, errlen);
	return 0;
}

static void info_ids_free(struct info_ids *v)
{
	free(v->id);
	free(v->have);
}

/* disk @i's identity, as text or members of @jw's disk object */
static void info_ident(const struct info_ids *v, unsigned int i,
		       struct iot_jw *jw)
{
	char m[IOT_TEXT_ROOM(IOTRACE_FILE_ID_LEN)];
	char s[IOT_TEXT_ROOM(IOTRACE_FILE_ID_LEN)];
	char w[IOT_TEXT_ROOM(IOTRACE_FILE_ID_LEN)];
	const struct iotrace_file_ident *id = &v->id[i];

	if (!v->have[i])
		return;
	if (jw) {
		jw_key(jw, "identity");
		jw_obj_start(jw);
		jw_kv_u64(jw, "sectors", id->sectors);
		jw_kv_str(jw, "model", id->model);
		jw_kv_str(jw, "serial", id->serial);
		jw_kv_str(jw, "wwn", id->wwn);
		jw_obj_end(jw);
		return;
	}
	printf("    %llu sectors", (unsigned long long)id->sectors);
	if (!id->model[0] && !id->serial[0] && !id->wwn[0])
		printf(" (model, serial and wwn not known)\n");
	else
		printf(", model \"%s\", serial \"%s\", wwn \"%s\"\n",
		       iot_text_str(m, sizeof(m), id->model),
		       iot_text_str(s, sizeof(s), id->serial),
		       iot_text_str(w, sizeof(w), id->wwn));
}

/*
 * The records of disk @i in the file and what was lost of its requests:
 * the trailer's counts (none without a trailer) and the sequence gaps
 * between its chunks.
 */
static void info_counts_text(const struct iot_file_info *fi, unsigned int i)
{
	const struct iot_counts *c = &fi->counts[i];

	printf("    records %llu", (unsigned long long)c->present);
	if (fi->has_trailer) {
		printf(", lost %llu (overwritten %llu, torn %llu)",
		       (unsigned long long)c->lost,
		       (unsigned long long)c->overwritten,
		       (unsigned long long)c->torn);
		printf(", dropped by kernel %llu, filtered %llu, completed %llu, written %llu",
		       (unsigned long long)c->dropped,
		       (unsigned long long)c->filtered,
		       (unsigned long long)c->completed,
		       (unsigned long long)c->written);
	} else {
		printf(", loss unknown (no trailer)");
	}
	if (c->gaps)
		printf("; %llu sequence gap%s: %llu records missing",
		       (unsigned long long)c->gaps, c->gaps == 1 ? "" : "s",
		       (unsigned long long)c->gap_records);
	putchar('\n');
}

/* info_counts_text() as members of disk @i's JSON object */
static void info_counts_json(struct iot_jw *jw, const struct iot_file_info *fi,
			     unsigned int i)
{
	const struct iot_counts *c = &fi->counts[i];

	jw_kv_u64(jw, "records", c->present);
	jw_key(jw, "loss");
	if (!fi->has_trailer) {
		jw_null(jw);
	} else {
		jw_obj_start(jw);
		jw_kv_u64(jw, "completed", c->completed);
		jw_kv_u64(jw, "recorded", c->recorded);
		jw_kv_u64(jw, "written", c->written);
		jw_kv_u64(jw, "lost", c->lost);
		jw_kv_u64(jw, "overwritten", c->overwritten);
		jw_kv_u64(jw, "torn", c->torn);
		jw_kv_u64(jw, "dropped", c->dropped);
		jw_kv_u64(jw, "filtered", c->filtered);
		jw_obj_end(jw);
	}
	jw_kv_u64(jw, "gaps", c->gaps);
	jw_kv_u64(jw, "gap_records", c->gap_records);
}

/*
 * info -o json: one object, written by the output layer's JSON writer;
 * 0, or -1 with @err set when the trigger chunks could not be read (the
 * object is left open then).
 */
static const char *const stack_kinds[] = { "?", "disk", "partition", "dm",
					  "md" };
static const char *const seg_types[] = { "?", "partition", "linear", "crypt",
					 "raid1" };

/* the kernel's name of a segment's lower device ("" if not in @t) */
static const char *lower_name(const struct iot_stack_tab *t,
			      const struct iotrace_file_stack_seg *s)
{
	unsigned int i;

	for (i = 0; i < t->nr_devs; i++)
		if (t->devs[i].dev_major == s->lower_major &&
		    t->devs[i].dev_minor == s->lower_minor)
			return t->devs[i].kname;
	return "";
}

/*
 * The stack chunks of a trace file (show --stack's tables): per table,
 * its time and every dm and md device with its segments, as text or
 * into @jw's object (a "stack" array); nothing without one.
 */
static void info_stack(struct iot_src *src, struct iot_jw *jw)
{
	char t1[IOT_TEXT_ROOM(IOTRACE_STACK_NAME_LEN)], t2[IOT_TEXT_ROOM(32)];
	struct iot_stack st = { 0 };
	char err[IOT_ERR_LEN], b[64];
	unsigned int i, k, g;
	const char *lname;

	if (iot_src_stack(src, &st, err, sizeof(err)) || !st.n)
		return;
	if (jw) {
		jw_key(jw, "stack");
		jw_arr_start(jw);
	}
	for (i = 0; i < st.n; i++) {
		const struct iot_stack_tab *t = &st.t[i];

		if (jw) {
			jw_obj_start(jw);
			jw_kv_u64(jw, "mono_ns", t->mono_ns);
			jw_kv_u64(jw, "dm_tables_read",
				  !(t->source & IOTRACE_STACK_SRC_DM_FAILED));
			jw_key(jw, "devices");
			jw_arr_start(jw);
		} else {
			printf("stack:    read at CLOCK_MONOTONIC %llu.%06llu s%s\n",
			       (unsigned long long)(t->mono_ns / 1000000000ull),
			       (unsigned long long)(t->mono_ns % 1000000000ull) / 1000,
			       t->source & IOTRACE_STACK_SRC_DM_FAILED ?
			       " (device-mapper tables not read)" : "");
		}
		for (k = 0; k < t->nr_devs; k++) {
			const struct iotrace_file_stack_dev *d = &t->devs[k];
			const char *kind = d->kind < 5 ? stack_kinds[d->kind] :
				"?";

			if (d->kind != IOTRACE_STACK_DM &&
			    d->kind != IOTRACE_STACK_MD)
				continue;
			iot_text_str(t1, sizeof(t1), iot_stack_name(t, k));
			iot_text_str(t2, sizeof(t2), d->kname);
			if (jw) {
				jw_obj_start(jw);
				jw_kv_str(jw, "name", iot_stack_name(t, k));
				jw_kv_str(jw, "kname", d->kname);
				snprintf(b, sizeof(b), "%u:%u", d->dev_major,
					 d->dev_minor);
				jw_kv_str(jw, "dev", b);
				jw_kv_str(jw, "kind", kind);
				jw_kv_u64(jw, "sectors", d->sectors);
				jw_key(jw, "segments");
				jw_arr_start(jw);
			} else {
				printf("  %-16s %s, dev %u:%u, %s, %llu sectors\n",
				       t1, t2, d->dev_major, d->dev_minor,
				       d->kind == IOTRACE_STACK_MD &&
				       d->level == 1 ? "md raid1" : kind,
				       (unsigned long long)d->sectors);
			}
			for (g = 0; g < t->nr_segs; g++) {
				const struct iotrace_file_stack_seg *s =
					&t->segs[g];
				const char *ty = s->type < 5 ?
					seg_types[s->type] : "?";

				if (s->upper != k)
					continue;
				snprintf(b, sizeof(b), "%u:%u", s->lower_major,
					 s->lower_minor);
				lname = lower_name(t, s);
				if (jw) {
					jw_obj_start(jw);
					jw_kv_str(jw, "type", ty);
					jw_kv_u64(jw, "start", s->start);
					jw_kv_u64(jw, "len", s->len);
					jw_kv_str(jw, "lower", b);
					jw_kv_str(jw, "lower_name", lname);
					jw_kv_u64(jw, "lower_start",
						  s->lower_start);
					jw_obj_end(jw);
					continue;
				}
				printf("    %-9s sectors %llu+%llu on %s (%s) from %llu\n",
				       ty, (unsigned long long)s->start,
				       (unsigned long long)s->len,
				       iot_text_str(t2, sizeof(t2), lname), b,
				       (unsigned long long)s->lower_start);
			}
			if (jw) {
				jw_arr_end(jw);
				jw_obj_end(jw);
			}
		}
		if (jw) {
			jw_arr_end(jw);
			jw_obj_end(jw);
		}
	}
	if (jw)
		jw_arr_end(jw);
	iot_stack_free(&st);
}

static int info_json(const char *file, const struct iot_src *src,
		     const char *start, const char *end, const char *salvage,
		     char *err, size_t errlen)
{
	const struct iot_file_info *fi = src->fi;
	const struct iotrace_file_hdr *h = &fi->hdr;
	char host[IOTRACE_FILE_STR_LEN + 1], rel[IOTRACE_FILE_STR_LEN + 1];
	char buf[32];
	struct info_infl infl = { 0 };
	struct info_ids ids = { 0 };
	struct iotrace_file_boot boot;
	struct iot_jw jw;
	unsigned int i;
	int have_boot;
	int ret = -1;

	if (info_infl_read(src, &infl, err, errlen) ||
	    info_ids_read(src, &ids, err, errlen))
		goto out;
	have_boot = info_boot_read(src, &boot, err, errlen);
	if (have_boot < 0)
		goto out;
	hdr_str(host, sizeof(host), h->host, sizeof(h->host));
	hdr_str(rel, sizeof(rel), h->release, sizeof(h->release));
	jw_init(&jw, stdout);
	jw_obj_start(&jw);
	jw_kv_str(&jw, "file", file);
	if (have_boot)
		info_previous(src, &boot, &jw);
	snprintf(buf, sizeof(buf), "%u.%u", h->major, h->minor);
	jw_kv_str(&jw, "version", buf);
	jw_kv_str(&jw, "host", host);
	jw_kv_str(&jw, "release", rel);
	jw_kv_str(&jw, "start_utc", start);
	jw_kv_u64(&jw, "start_real_ns", h->anchor_real_ns);
	jw_kv_u64(&jw, "start_mono_ns", h->anchor_mono_ns);
	if (fi->has_trailer) {
		jw_kv_str(&jw, "end_utc", end);
		jw_kv_u64(&jw, "end_real_ns", fi->trailer.end_real_ns);
		jw_kv_u64(&jw, "end_mono_ns", fi->trailer.end_mono_ns);
	} else {
		jw_key(&jw, "end_utc");
		jw_null(&jw);
	}
	jw_kv_u64(&jw, "chunks", fi->chunks);
	jw_kv_u64(&jw, "gaps", fi->gaps);
	jw_kv_u64(&jw, "gap_records", fi->gap_records);
	jw_key(&jw, "salvaged");
	if (fi->salvaged)
		jw_str(&jw, salvage);
	else
		jw_null(&jw);
	jw_key(&jw, "disks");
	jw_arr_start(&jw);
	for (i = 0; i < fi->nr_disks; i++) {
		const struct iot_disk *d = &fi->disks[i];

		jw_obj_start(&jw);
		jw_kv_str(&jw, "name", d->name);
		snprintf(buf, sizeof(buf), "%u:%u", d->dev_major, d->dev_minor);
		jw_kv_str(&jw, "dev", buf);
		jw_kv_u64(&jw, "logical_block_size", d->lbs);
		jw_kv_u64(&jw, "nr_parts", d->nr_parts);
		jw_kv_u64(&jw, "part_records", d->part_records);
		info_ident(&ids, i, &jw);
		info_counts_json(&jw, fi, i);
		if (infl.have[i]) {
			jw_kv_u64(&jw, "in_flight", infl.nr[i]);
			jw_kv_u64(&jw, "in_flight_torn", infl.torn[i]);
		}
		jw_obj_end(&jw);
	}
	jw_arr_end(&jw);
	/* a snapshot's triggers */
	if (iot_info_triggers(src, &jw, err, errlen))
		goto out;
	info_stack((struct iot_src *)src, &jw);
	jw_obj_end(&jw);
	fputc('\n', stdout);
	ret = 0;
out:
	info_infl_free(&infl);
	info_ids_free(&ids);
	return ret;
}

int cmd_info(struct iot_opts *o, int argc, char **argv)
{
	char err[IOT_ERR_LEN], host[IOTRACE_FILE_STR_LEN + 1];
	char rel[IOTRACE_FILE_STR_LEN + 1], start[48], end[48];
	char salvage[IOT_ERR_LEN], text[IOT_TEXT_ROOM(IOTRACE_FILE_STR_LEN)];
	char secs[32];
	const struct iotrace_file_hdr *h;
	const struct iot_file_info *fi;
	struct info_infl infl = { 0 };
	struct info_ids ids = { 0 };
	struct iotrace_file_boot boot;
	struct iot_src src;
	unsigned int i;
	int have_boot;
	int ret;

	if (argc != 1) {
		iot_err("info needs one trace FILE argument (or - for standard input)");
		return 2;
	}
	if (cmd_src_open(&src, argv[0]))
		return 1;
	if (!src.is_file) {
		iot_err("info: %s is a %s, not a trace file: only trace files written by 'iotracectl record' have a header with host, kernel and times ('iotracectl stats %s' describes a ring)",
			argv[0], src.live ? "live disk" : "ring copy", argv[0]);
		iot_src_close(&src);
		return 1;
	}
	fi = src.fi;
	h = &fi->hdr;
	hdr_str(host, sizeof(host), h->host, sizeof(h->host));
	hdr_str(rel, sizeof(rel), h->release, sizeof(h->release));
	utc_str(start, sizeof(start), h->anchor_real_ns);
	if (fi->has_trailer)
		utc_str(end, sizeof(end), fi->trailer.end_real_ns);
	iot_file_salvage_str(fi, salvage, sizeof(salvage));
	if (o->fmt == FMT_JSON) {
		ret = info_json(argv[0], &src, start, end, salvage, err,
				sizeof(err));
		goto out;
	}
	have_boot = info_boot_read(&src, &boot, err, sizeof(err));
	if (have_boot < 0) {
		ret = -1;
		goto out;
	}
	printf("file:     %s\n", argv[0]);
	if (have_boot)
		info_previous(&src, &boot, NULL);
	printf("version:  %u.%u\n", h->major, h->minor);
	/* names as text: no byte of theirs a terminal acts on */
	printf("host:     %s\n", *host ? iot_text_str(text, sizeof(text), host) :
	       "unknown");
	printf("kernel:   %s\n", *rel ? iot_text_str(text, sizeof(text), rel) :
	       "unknown");
	/* a previous boot's file: its last clock anchor, not a start */
	printf("%s %s (CLOCK_MONOTONIC %s s)\n",
	       have_boot ? "anchor:  " : "start:   ", start,
	       sec_us(secs, sizeof(secs), h->anchor_mono_ns));
	if (fi->has_trailer && have_boot)
		printf("end:      %s (CLOCK_MONOTONIC %s s)\n", end,
		       sec_us(secs, sizeof(secs), fi->trailer.end_mono_ns));
	else if (fi->has_trailer)
		printf("end:      %s (CLOCK_MONOTONIC %llu.%06llu s, %.3f s recorded)\n",
		       end,
		       (unsigned long long)(fi->trailer.end_mono_ns / 1000000000ull),
		       (unsigned long long)(fi->trailer.end_mono_ns % 1000000000ull) / 1000,
		       fi->trailer.end_mono_ns >= h->anchor_mono_ns ?
		       (fi->trailer.end_mono_ns - h->anchor_mono_ns) / 1e9 : 0.0);
	else
		printf("end:      - (no trailer: the recording did not finish)\n");
	if (fi->gaps)
		printf("chunks:   %llu (%llu sequence gap%s: %llu records missing)\n",
		       (unsigned long long)fi->chunks,
		       (unsigned long long)fi->gaps, fi->gaps == 1 ? "" : "s",
		       (unsigned long long)fi->gap_records);
	else
		printf("chunks:   %llu (0 sequence gaps)\n",
		       (unsigned long long)fi->chunks);
	if (fi->salvaged)
		printf("salvaged: %s\n", salvage);
	ret = info_infl_read(&src, &infl, err, sizeof(err));
	if (!ret)
		ret = info_ids_read(&src, &ids, err, sizeof(err));
	if (ret)
		goto out;
	printf("disks:    %u\n", fi->nr_disks);
	for (i = 0; i < fi->nr_disks; i++) {
		const struct iot_disk *d = &fi->disks[i];

		printf("  %-16s dev %u:%u, %u-byte blocks, ring of %u parts x %u records\n",
		       iot_text_str(text, sizeof(text), d->name),
		       d->dev_major, d->dev_minor, d->lbs, d->nr_parts,
		       d->part_records);
		info_ident(&ids, i, NULL);
		info_counts_text(fi, i);
		if (infl.have[i])
			printf("    in flight at its end %llu, torn slots %llu\n",
			       (unsigned long long)infl.nr[i],
			       (unsigned long long)infl.torn[i]);
	}
	/* a snapshot's triggers */
	ret = iot_info_triggers(&src, NULL, err, sizeof(err));
	if (!ret)
		info_stack(&src, NULL);
out:
	/* the file cut since it was opened: said, what was printed stays */
	if (ret)
		iot_err("%s", err);
	info_infl_free(&infl);
	info_ids_free(&ids);
	iot_src_close(&src);
	return ret ? 1 : 0;
}
