// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the trace-file reader (iot_file_parse) on arbitrary
 * bytes, through the same entry as "iotracectl show FILE" (iot_src_open_buf
 * validates, iot_src_read hands records to the decoders, and
 * iot_src_read_merged merges the (disk, part) streams as show does).  Inputs that do
 * not start with the file magic get it prepended, so that the fuzzer's
 * effort goes into the header, disk table and chunks.  A file cut short
 * or damaged is salvaged (its message built into buffers of several
 * sizes), or refused as --strict does, by a bit of the input's size.
 */
#include "fuzz_common.h"
#include "cmd.h"
#include "out.h"
#include "trigger.h"
#include "stack.h"

static void fuzz_boot(struct iot_src *s)
{
	struct iotrace_file_boot b;
	int k = iot_file_boot(s->buf, s->len, s->fi, &b);

	if (k < -1 || k > 1 || (k <= 0 && (b.flags || b.last_ns)))
		abort();
}

static void fuzz_idents(struct iot_src *s)
{
	unsigned int n = s->fi->nr_disks ? s->fi->nr_disks : 1, i;
	struct iotrace_file_ident *id = calloc(n, sizeof(*id));
	unsigned char *have = calloc(n, 1);
	int k;

	if (!id || !have)
		abort();
	k = iot_file_idents(s->buf, s->len, s->fi, id, have);
	if (k > (int)s->fi->nr_disks)
		abort();
	for (i = 0; i < s->fi->nr_disks; i++)
		if (strnlen(id[i].model, IOTRACE_FILE_ID_LEN) ==
		    IOTRACE_FILE_ID_LEN ||
		    strnlen(id[i].serial, IOTRACE_FILE_ID_LEN) ==
		    IOTRACE_FILE_ID_LEN ||
		    strnlen(id[i].wwn, IOTRACE_FILE_ID_LEN) ==
		    IOTRACE_FILE_ID_LEN || (!have[i] && id[i].sectors))
			abort();
	free(id);
	free(have);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The trigger chunks of an accepted file, as info reads them (its JSON
 * into memory): each payload cut or zero-filled to the struct, its
 * strings ended, its disk index checked against the table.
 */
static void fuzz_triggers(const struct iot_src *s)
{
	char err[IOT_ERR_LEN];
	struct iot_jw jw;
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	if (!fp)
		abort();
	jw_init(&jw, fp);
	jw_obj_start(&jw);
	/* bytes in memory: read whatever they hold (out of memory aside) */
	if (iot_info_triggers(s, &jw, err, sizeof(err)) &&
	    strcmp(err, "out of memory"))
		abort();
	jw_obj_end(&jw);
	fclose(fp);
	if (!text || strnlen(text, len + 1) != len)
		abort();
	free(text);
}

/*
 * show --stack: the stack chunks of an accepted file, each table's
 * devices' every segment mapped from its lower device's first and last
 * sector (a chain may go through every level), the names ended.
 */
static void fuzz_stacks(struct iot_src *s)
{
	struct iot_stack_hop h[IOT_STACK_DEPTH];
	char err[IOT_ERR_LEN];
	struct iot_stack st;
	unsigned int i, k;
	int n, j;

	if (iot_src_stack(s, &st, err, sizeof(err)))
		return;
	for (i = 0; i < st.n; i++) {
		const struct iot_stack_tab *t = &st.t[i];

		for (k = 0; k < 2 * t->nr_segs && k < 128; k++) {
			const struct iotrace_file_stack_seg *g = &t->segs[k / 2];

			n = iot_stack_map(t, NULL, g->lower_major,
					  g->lower_minor, k & 1 ?
					  g->lower_start + g->len - 1 :
					  g->lower_start, 4096, h,
					  IOT_STACK_DEPTH);
			if (n < 1 || n > IOT_STACK_DEPTH)
				abort();
			for (j = 0; j < n; j++)
				if (h[j].dev >= t->nr_devs ||
				    strlen(iot_stack_name(t, h[j].dev)) >=
				    IOTRACE_STACK_NAME_LEN)
					abort();
		}
	}
	iot_stack_free(&st);
}

/* a table of "inflight FILE": its disk in the file's table, its records */
static int fuzz_inflight_table(void *arg, const struct iot_inflight *t)
{
	const struct iot_src *s = arg;
	char cmd[256];
	size_t k;

	if (t->disk >= s->nr_disks)
		abort();
	for (k = 0; k < t->nr; k++) {
		iot_decode_cmd(&t->recs[k], cmd, sizeof(cmd));
		if (strnlen(cmd, sizeof(cmd)) == sizeof(cmd))
			abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[IOT_ERR_LEN];
	struct iot_src s;
	uint8_t *buf;
	size_t len = size;

	if (size >= IOTRACE_FILE_MAGIC_LEN &&
	    !memcmp(data, IOTRACE_FILE_MAGIC, IOTRACE_FILE_MAGIC_LEN)) {
		buf = fuzz_copy(data, size);
	} else {
		len = size + IOTRACE_FILE_MAGIC_LEN;
		buf = malloc(len);
		if (!buf)
			abort();
		memcpy(buf, IOTRACE_FILE_MAGIC, IOTRACE_FILE_MAGIC_LEN);
		memcpy(buf + IOTRACE_FILE_MAGIC_LEN, data, size);
	}
	iot_strict = (size >> 1) & 1;
	if (!iot_src_open_buf(&s, "fuzz", buf, len, err, sizeof(err))) {
		static const size_t sizes[] = { 1, 17, 100, IOT_ERR_LEN };
		char *msg = malloc(sizes[size % 4]);

		if (!s.is_file || !msg)
			abort();
		/* the warning: NUL-terminated in any room, said iff salvaged */
		if (iot_file_salvage_str(s.fi, msg, sizes[size % 4]) !=
		    s.fi->salvaged ||
		    strnlen(msg, sizes[size % 4]) == sizes[size % 4] ||
		    (iot_strict && s.fi->salvaged))
			abort();
		free(msg);
		iot_src_read(&s, fuzz_record, NULL, err, sizeof(err));
		/* info's and show --around-trigger's trigger chunks */
		fuzz_triggers(&s);
		/* show --stack's tables */
		fuzz_stacks(&s);
		/* inflight FILE: a previous boot's requests in flight */
		{
			unsigned int dmg;

			iot_file_inflight(s.buf, s.len, s.fi,
					  fuzz_inflight_table, &s, &dmg);
		}
		/* info's identities: each NUL-terminated, a disk of the file */
		fuzz_idents(&s);
		/* info's previous boot: one chunk, zeros without */
		fuzz_boot(&s);
		/* show and export -f csv: the (disk, part) streams merged */
		iot_src_read_merged(&s, size & 1, fuzz_record, NULL, err,
				    sizeof(err));
	}
	if (strnlen(err, sizeof(err)) == sizeof(err))
		abort();
	iot_src_close(&s);
	free(buf);
	iot_comm_reset();	/* command names: one input's alone */
	return FUZZ_DONE;
}
