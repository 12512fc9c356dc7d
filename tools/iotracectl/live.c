// SPDX-License-Identifier: GPL-2.0
/*
 * Commands on live disks: list and inflight (enable, disable and clear,
 * and their debugfs fallbacks, are util/netlink.c's).
 *
 * list reads debugfs when it can; without it (debugfs not mounted,
 * $IOTRACE_DEBUGFS elsewhere) it asks netlink.  inflight asks the device
 * /dev/iotrace/<disk> (iot_dev_inflight(): the requests as records, their
 * commands too), else reads debugfs (no commands).  Under kernel lockdown
 * debugfs still gives both (read-only files); only the ring is refused
 * there, and input.c maps it from the device instead.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cmd.h"
#include "macros.h"
#include "out.h"

static const char *const list_keys[] = {
	"enabled", "recorded", "present", "overwritten", "dropped",
	"inflight", "completed", "buf_size", "nr_parts", "part_records",
	"mem_ring", "mem_slots", "mem_metrics",
};

#define NR_KEYS ARRAY_SIZE(list_keys)
/* room for every trigger word with 8 errno names */
#define IOT_TRIG_WORDS	384

/*
 * A column's text as the number JSON and CSV give (a decimal, as debugfs
 * and netlink write them): 1, or 0 for anything else ("-", a word),
 * which is null in JSON and an empty CSV field.  Every column of list and
 * inflight but op is a number or null, whatever the text holds.
 */
static int col_num(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (!*s)
		return 0;
	for (; *s; s++) {
		unsigned int d = (unsigned int)(*s - '0');

		if (*s < '0' || *s > '9' || x > UINT64_MAX / 10 ||
		    (x == UINT64_MAX / 10 && d > UINT64_MAX % 10))
			return 0;
		x = x * 10 + d;
	}
	*v = x;
	return 1;
}

/* Parse "key: value" lines of a disk's stats file into @val (NULL = -). */
static int read_stats(const char *disk, char val[NR_KEYS][32])
{
	char path[512], line[256];
	FILE *fp;
	size_t i;

	for (i = 0; i < NR_KEYS; i++)
		memcpy(val[i], "-", 2);
	snprintf(path, sizeof(path), "%s/%s/stats", iot_debugfs(), disk);
	fp = fopen(path, "re");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		char *colon = strchr(line, ':'), *v;

		if (!colon)
			continue;
		*colon = 0;
		v = colon + 1;
		v += strspn(v, " \t");
		v[strcspn(v, " \t\n")] = 0;
		/* ABI 2.0 names what netlink still calls parts (uapi) */
		if (!strcmp(line, "nr_cpus"))
			memcpy(line, "nr_parts", sizeof("nr_parts"));
		else if (!strcmp(line, "chunk_records"))
			memcpy(line, "part_records", sizeof("part_records"));
		for (i = 0; i < NR_KEYS; i++)
			if (!strcmp(line, list_keys[i]))
				snprintf(val[i], sizeof(val[i]), "%s", v);
	}
	fclose(fp);
	return 0;
}

/* Column values of list_keys[] from a netlink state reply. */
static void nl_stats(const struct iot_nl_disk *r, char val[NR_KEYS][32])
{
	static const int attr[NR_KEYS] = {
		IOTRACE_A_ENABLED, IOTRACE_A_RECORDED, IOTRACE_A_PRESENT,
		IOTRACE_A_OVERWRITTEN, IOTRACE_A_DROPPED, IOTRACE_A_INFLIGHT,
		-1, IOTRACE_A_BUF_SIZE, IOTRACE_A_NR_PARTS,
		IOTRACE_A_PART_RECORDS, IOTRACE_A_MEM_RING, IOTRACE_A_MEM_SLOTS,
		IOTRACE_A_MEM_METRICS,
	};
	size_t i;

	for (i = 0; i < NR_KEYS; i++) {
		memcpy(val[i], "-", 2);
		if (attr[i] >= 0 && r->have[attr[i]])
			snprintf(val[i], sizeof(val[i]), "%llu",
				 (unsigned long long)r->v[attr[i]]);
	}
	/* as debugfs stats: completions of the current ring */
	if (r->have[IOTRACE_A_RECORDED] && r->have[IOTRACE_A_DROPPED])
		snprintf(val[6], sizeof(val[6]), "%llu",
			 (unsigned long long)(r->v[IOTRACE_A_RECORDED] +
					      r->v[IOTRACE_A_DROPPED] +
					      r->v[IOTRACE_A_FILTERED]));
}

/* A duration in the largest unit that keeps it exact (5s, 500us, 0). */
static char *put_dur(char *p, char *end, uint64_t ns)
{
	static const struct { const char *u; uint64_t ns; } units[] = {
		{ "s", 1000000000ull }, { "ms", 1000000ull }, { "us", 1000ull },
	};
	size_t i;

	for (i = 0; ns && i < ARRAY_SIZE(units); i++)
		if (!(ns % units[i].ns))
			return iot_put_s(iot_put_u(p, end, ns / units[i].ns),
					 end, units[i].u);
	return iot_put_s(iot_put_u(p, end, ns), end, ns ? "ns" : "");
}

/*
 * The armed triggers of a netlink state reply @r, as the words
 * "iotracectl trigger DISK" takes ("read-lat=500us error=EIO timeout
 * rate=1s"); "" for none.
 */
static void trig_words(const struct iot_nl_disk *r, char *out, size_t len)
{
	static const char *const lat[IOTRACE_NR_MOPS] = {
		"read-lat=", "write-lat=", "flush-lat=", "discard-lat=",
		"other-lat=",
	};
	char *p = out, *end = out + len, e[32];
	unsigned int i;

	*out = 0;
	for (i = 0; i < IOTRACE_NR_MOPS; i++) {
		if (!r->have[IOTRACE_A_TRIG_LAT_READ + i] ||
		    !r->v[IOTRACE_A_TRIG_LAT_READ + i])
			continue;
		p = iot_put_s(iot_put_s(p, end, p == out ? "" : " "), end,
			      lat[i]);
		p = put_dur(p, end, r->v[IOTRACE_A_TRIG_LAT_READ + i]);
	}
	if (r->have[IOTRACE_A_TRIG_ERROR] && r->v[IOTRACE_A_TRIG_ERROR]) {
		p = iot_put_s(p, end, p == out ? "error" : " error");
		for (i = 0; i < r->nr_errnos; i++) {
			iot_errno_name((int)r->errnos[i], e, sizeof(e));
			p = iot_put_s(iot_put_s(p, end, i ? "," : "="), end,
				      e[0] == '-' ? e + 1 : e);
		}
	}
	if (r->have[IOTRACE_A_TRIG_DEVSTATUS] && r->v[IOTRACE_A_TRIG_DEVSTATUS])
		p = iot_put_s(p, end, p == out ? "devstatus" : " devstatus");
	if (r->have[IOTRACE_A_TRIG_TIMEOUT] && r->v[IOTRACE_A_TRIG_TIMEOUT])
		p = iot_put_s(p, end, p == out ? "timeout" : " timeout");
	if (r->have[IOTRACE_A_TRIG_REQUEUES] && r->v[IOTRACE_A_TRIG_REQUEUES])
		p = iot_put_u(iot_put_s(p, end, p == out ? "requeues=" :
					" requeues="), end,
			      r->v[IOTRACE_A_TRIG_REQUEUES]);
	if (r->have[IOTRACE_A_TRIG_STUCK_NS] && r->v[IOTRACE_A_TRIG_STUCK_NS])
		p = put_dur(iot_put_s(p, end, p == out ? "stuck=" : " stuck="),
			    end, r->v[IOTRACE_A_TRIG_STUCK_NS]);
	if (p != out && r->have[IOTRACE_A_TRIG_RATE_NS])
		put_dur(iot_put_s(p, end, " rate="), end,
			r->v[IOTRACE_A_TRIG_RATE_NS]);
}

/*
 * The triggers of each of @n disks @names from netlink into @trig (""
 * for none); left "" when the family is not there.
 */
static void list_triggers(char **names, char (*trig)[IOT_TRIG_WORDS],
			  size_t n)
{
	struct iot_nl_disk *rows;
	size_t nr, i, j;

	if (iot_nl_list(&rows, &nr))
		return;
	for (i = 0; i < n; i++)
		for (j = 0; j < nr; j++)
			if (!strcmp(names[i], rows[j].name))
				trig_words(&rows[j], trig[i], IOT_TRIG_WORDS);
	free(rows);
}

/* Disk names from debugfs (columns: read_stats()): 0, or -1. */
static int list_debugfs(char **names, size_t *n)
{
	const char *dir = iot_debugfs();
	struct dirent *de;
	DIR *d;

	*n = 0;
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d)) && *n < 1024) {
		char path[512];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/ring", dir, de->d_name);
		if (access(path, F_OK))
			continue;
		names[*n] = strdup(de->d_name);
		if (names[*n])
			(*n)++;
	}
	closedir(d);
	return 0;
}

/* Disk names and columns from netlink: 0, or -1 (said). */
static int list_netlink(char **names, char (*vals)[NR_KEYS][32], size_t *n)
{
	struct iot_nl_disk *rows;
	size_t nr, i;
	int ret;

	*n = 0;
	ret = iot_nl_list(&rows, &nr);
	if (ret > 0)
		iot_err("cannot list disks: %s is not there and the iotrace generic netlink family is not registered: is the iotrace module loaded?",
			iot_debugfs());
	if (ret)
		return -1;
	for (i = 0; i < nr && *n < 1024; i++) {
		names[*n] = strdup(rows[i].name);
		if (!names[*n])
			continue;
		nl_stats(&rows[i], vals[*n]);
		(*n)++;
	}
	free(rows);
	return 0;
}

#define LIST_NAME_LEN	32	/* the kernel's DISK_NAME_LEN */

/**
 * struct list_rows - the rows of list, for their order.
 * @names: the disks' names.
 * @head: for each, the NVMe multipath head it is a path of, if that head
 *	is listed too ("" if not).
 */
struct list_rows {
	char **names;
	char (*head)[LIST_NAME_LEN];
};

/* By name, a head's paths right after it. */
static int cmp_row(const void *a, const void *b, void *arg)
{
	const size_t *x = a, *y = b;
	const struct list_rows *r = arg;
	const char *hx = *r->head[*x] ? r->head[*x] : r->names[*x];
	const char *hy = *r->head[*y] ? r->head[*y] : r->names[*y];
	int c = strcmp(hx, hy);

	if (c)
		return c;
	if (!*r->head[*x] != !*r->head[*y])
		return *r->head[*x] ? 1 : -1;
	return strcmp(r->names[*x], r->names[*y]);
}

/* For each of the @n disks @names, its head in @head if it is listed. */
static void list_heads(char **names, size_t n, char (*head)[LIST_NAME_LEN])
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		head[i][0] = '\0';
		if (!iot_path_head(names[i], head[i], sizeof(head[i])))
			continue;
		for (j = 0; j < n && strcmp(names[j], head[i]); j++)
			;
		if (j == n)
			head[i][0] = '\0';
	}
}

int cmd_list(struct iot_opts *o, int argc, char **argv)
{
	char (*vals)[NR_KEYS][32], *names[1024], (*trig)[IOT_TRIG_WORDS];
	char (*head)[LIST_NAME_LEN];
	struct list_rows rows;
	size_t n = 0, i, k, j, order[1024];
	struct iot_out doc;
	int from_dfs = 1;

	(void)argv;
	if (argc) {
		iot_err("list takes no arguments");
		return 2;
	}
	vals = calloc(1024, sizeof(*vals));
	trig = calloc(1024, sizeof(*trig));
	head = calloc(1024, sizeof(*head));
	if (!vals || !trig || !head) {
		iot_err("out of memory");
		free(vals);
		free(trig);
		free(head);
		return 1;
	}
	/* debugfs, else netlink (debugfs not mounted) */
	if (list_debugfs(names, &n)) {
		from_dfs = 0;
		if (list_netlink(names, vals, &n)) {
			free(vals);
			free(trig);
			free(head);
			return 1;
		}
	}
	/* the armed triggers: netlink only (none when it is not there) */
	list_triggers(names, trig, n);
	for (i = 0; i < n; i++) {
		order[i] = i;
		if (from_dfs)
			read_stats(names[i], vals[i]);
	}
	list_heads(names, n, head);
	rows.names = names;
	rows.head = head;
	qsort_r(order, n, sizeof(order[0]), cmp_row, &rows);
	if (o->fmt == FMT_NORMAL) {
		printf("%-16s", "DISK");
		for (k = 0; k < NR_KEYS; k++)
			printf(" %12s", list_keys[k]);
		printf(" triggers\n");
	} else if (o->fmt == FMT_CSV) {
		printf("disk");
		for (k = 0; k < NR_KEYS; k++)
			printf(",%s", list_keys[k]);
		printf(",triggers,head\n");
	} else {
		iot_out_begin(&doc, stdout, FMT_JSON, o->jsonl);
	}
	for (j = 0; j < n; j++) {
		char (*val)[32] = vals[order[j]];
		const char *name = names[order[j]];
		const char *tw = trig[order[j]];
		char ph[LIST_NAME_LEN];
		uint64_t v;

		if (!iot_path_head(name, ph, sizeof(ph)))
			ph[0] = '\0';
		if (o->fmt == FMT_NORMAL) {
			char text[IOT_TEXT_ROOM(256)];	/* a d_name */

			/* a path beneath its head */
			if (*head[order[j]])
				printf("  %-14s",
				       iot_text_str(text, sizeof(text), name));
			else
				printf("%-16s",
				       iot_text_str(text, sizeof(text), name));
			for (k = 0; k < NR_KEYS; k++)
				printf(" %12s", val[k]);
			printf(" %s\n", *tw ? tw : "-");
		} else if (o->fmt == FMT_CSV) {
			iot_csv_str(stdout, name);
			for (k = 0; k < NR_KEYS; k++) {
				putchar(',');
				if (col_num(val[k], &v))
					printf("%llu", (unsigned long long)v);
			}
			putchar(',');
			iot_csv_str(stdout, tw);
			putchar(',');
			iot_csv_str(stdout, ph);
			putchar('\n');
		} else {
			/* the counters are numbers, or null */
			jw_obj_start(&doc.jw);
			jw_kv_str(&doc.jw, "disk", name);
			for (k = 0; k < NR_KEYS; k++) {
				jw_key(&doc.jw, list_keys[k]);
				if (col_num(val[k], &v))
					jw_u64(&doc.jw, v);
				else
					jw_null(&doc.jw);
			}
			jw_key(&doc.jw, "triggers");
			if (*tw)
				jw_str(&doc.jw, tw);
			else
				jw_null(&doc.jw);
			/* the NVMe multipath head of a path */
			jw_key(&doc.jw, "head");
			if (*ph)
				jw_str(&doc.jw, ph);
			else
				jw_null(&doc.jw);
			jw_obj_end(&doc.jw);
			iot_out_item_end(&doc);
		}
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(vals);
	free(trig);
	free(head);
	if (o->fmt == FMT_JSON)
		iot_out_end(&doc);
	return 0;
}

/**
 * struct infl - one in-flight command, from the device or debugfs
 *	<disk>/inflight.
 * @issue_ns: issue time.
 * @age_us: age when the kernel listed it.
 * @f: the other columns, as text (infl_keys[]); f[6] the submitter's pid,
 *	"-" when unknown (a module older than the column too).
 * @cmd: the decoded command (and a multipath head's path), as "inflight
 *	FILE" gives it; "-" when the source has none (debugfs, a module
 *	before IOTRACE_IOC_INFLIGHT_RECORDS).
 */
struct infl {
	unsigned long long issue_ns;
	double age_us;
	char f[7][40];
	char cmd[256];
};

#define INFL_F		7	/* struct infl's f[] */
#define INFL_COLS	(INFL_F + 2)	/* infl_cols[]: issue_ns, age_us, f[] */
#define INFL_NEED	8	/* the columns every module's debugfs file has */

/* debugfs inflight's columns: the first INFL_NEED, then PID (optional) */
static const char *const infl_cols[] = {
	"ISSUE_NS", "AGE_US", "OP", "SECTOR", "BYTES", "HWQ", "TAG", "CPU",
	"PID",
};

/* the JSON keys of struct infl's f[] */
static const char *const infl_keys[] = {
	"op", "sector", "bytes", "hwq", "tag", "cpu", "pid",
};

_Static_assert(ARRAY_SIZE(infl_cols) == INFL_COLS &&
	       ARRAY_SIZE(infl_keys) == INFL_F,
	       "a name for each column of struct infl");

static int cmp_infl(const void *a, const void *b)
{
	const struct infl *x = a, *y = b;

	return x->issue_ns < y->issue_ns ? -1 : x->issue_ns > y->issue_ns;
}

/*
 * The in-flight table from debugfs <disk>/inflight: 0; 1 when the file
 * cannot be opened (errno set, nothing said); -1 on an error (said).
 */
static int infl_debugfs(const char *disk, struct infl **out, size_t *outn)
{
	char path[512], line[1024];
	int col[INFL_COLS], ncols = 0, i, j;
	struct infl *v = NULL;
	size_t n = 0, cap = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s/inflight", iot_debugfs(), disk);
	fp = fopen(path, "re");
	if (!fp)
		return 1;
	for (i = 0; i < INFL_COLS; i++)
		col[i] = -1;
	if (!fgets(line, sizeof(line), fp)) {
		iot_err("%s: empty, expected a header line", path);
		fclose(fp);
		return -1;
	}
	{
		char *save = NULL, *tok;

		for (tok = strtok_r(line, " \t\n", &save); tok;
		     tok = strtok_r(NULL, " \t\n", &save), ncols++)
			for (i = 0; i < INFL_COLS; i++)
				if (!strcmp(tok, infl_cols[i]))
					col[i] = ncols;
	}
	for (i = 0; i < INFL_NEED; i++)
		if (col[i] < 0) {
			iot_err("%s: no %s column in the header: the module and iotracectl do not match",
				path, infl_cols[i]);
			fclose(fp);
			return -1;
		}
	while (fgets(line, sizeof(line), fp)) {
		char *save = NULL, *tok, *f[64];
		int nf = 0;

		for (tok = strtok_r(line, " \t\n", &save); tok && nf < 64;
		     tok = strtok_r(NULL, " \t\n", &save))
			f[nf++] = tok;
		if (!nf)
			continue;
		if (nf < ncols) {
			iot_err("%s: short line (%d of %d columns) skipped",
				path, nf, ncols);
			continue;
		}
		if (n == cap) {
			struct infl *nv;

			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				iot_err("out of memory");
				free(v);
				fclose(fp);
				return -1;
			}
			v = nv;
		}
		v[n].issue_ns = strtoull(f[col[0]], NULL, 10);
		v[n].age_us = strtod(f[col[1]], NULL);
		for (j = 0; j < INFL_F; j++)
			snprintf(v[n].f[j], sizeof(v[n].f[j]), "%s",
				 col[j + 2] < 0 ? "-" : f[col[j + 2]]);
		snprintf(v[n].cmd, sizeof(v[n].cmd), "-");
		/* op names as show and stats print them */
		for (j = 0; v[n].f[0][j]; j++)
			v[n].f[0][j] = tolower((unsigned char)v[n].f[0][j]);
		n++;
	}
	fclose(fp);
	*out = v;
	*outn = n;
	return 0;
}

/*
 * The in-flight table from the device /dev/iotrace/<disk>, each request
 * with its command: 0; else, with @err set and nothing said, 1 when the
 * device is not there (no such disk, no devices: debugfs is the source)
 * and 2 when it failed (refused, an error of the module, no memory).
 */
static int infl_dev(const char *disk, struct infl **out, size_t *outn,
		    char *err, size_t errlen)
{
	struct iot_inflight t;
	struct infl *v;
	char pid[16], path[64];
	size_t k;
	int ret;

	ret = iot_dev_inflight(iot_devdir(), disk, &t, err, errlen);
	if (ret > 0) {
		int eno = errno;

		snprintf(err, errlen, "%s/%s: %s", iot_devdir(), disk,
			 strerror(eno));
		errno = eno;
		return iot_dev_absent(eno) ? 1 : 2;
	}
	if (ret)
		return 2;
	v = calloc(t.nr ? t.nr : 1, sizeof(*v));
	if (!v) {
		snprintf(err, errlen, "out of memory");
		free(t.recs);
		return 2;
	}
	for (k = 0; k < t.nr; k++) {
		const struct iotrace_record *r = &t.recs[k];

		v[k].issue_ns = r->issue_ns;
		v[k].age_us = t.at_ns > r->issue_ns ?
			(double)((t.at_ns - r->issue_ns) / 1000) : 0;
		snprintf(v[k].f[0], sizeof(v[k].f[0]), "%s",
			 iot_op_name(r->op));
		snprintf(v[k].f[1], sizeof(v[k].f[1]), "%llu",
			 (unsigned long long)r->sector);
		snprintf(v[k].f[2], sizeof(v[k].f[2]), "%u", r->bytes);
		snprintf(v[k].f[3], sizeof(v[k].f[3]), "%u", r->hwq);
		snprintf(v[k].f[4], sizeof(v[k].f[4]), "%u", r->tag);
		snprintf(v[k].f[5], sizeof(v[k].f[5]), "%u", r->issue_cpu);
		snprintf(v[k].f[6], sizeof(v[k].f[6]), "%s",
			 iot_rec_pid(r, pid, sizeof(pid)));
		iot_decode_cmd(r, v[k].cmd, sizeof(v[k].cmd) - sizeof(path));
		/* a multipath head's request: the path it was sent down */
		if (iot_rec_path(disk, r, path, sizeof(path) - 8))
			sprintf(v[k].cmd + strlen(v[k].cmd), " [path %s]", path);
	}
	free(t.recs);
	*out = v;
	*outn = t.nr;
	return 0;
}

/* inflight FILE: the state of the walk over the file's in-flight tables */
struct infl_file {
	struct iot_opts *o;
	struct iot_src *src;
	struct iot_out doc;
	uint64_t shown, torn;
};

/* One table of a file (iot_file_inflight()): a line per request. */
static int infl_file_table(void *arg, const struct iot_inflight *t)
{
	struct infl_file *f = arg;
	const char *disk = f->src->disks[t->disk].name;
	char cmd[256], path[64];
	size_t k;

	f->torn += t->torn;
	for (k = 0; k < t->nr; k++) {
		const struct iotrace_record *r = &t->recs[k];
		double age = t->at_ns > r->issue_ns ?
			     (double)((t->at_ns - r->issue_ns) / 1000) : 0;
		int media = r->sector != UINT64_MAX;
		int sub = iot_rec_has_pid(r);
		char pid[16];

		iot_decode_cmd(r, cmd, sizeof(cmd) - sizeof(path));
		/* a multipath head's request: the path it was sent down */
		if (iot_rec_path(disk, r, path, sizeof(path) - 8))
			sprintf(cmd + strlen(cmd), " [path %s]", path);
		f->shown++;
		if (f->o->fmt == FMT_NORMAL) {
			printf("%-12.32s %-20llu %12.1f %-10s ", disk,
			       (unsigned long long)r->issue_ns, age,
			       iot_op_name(r->op));
			if (media)
				printf("%12llu", (unsigned long long)r->sector);
			else
				printf("%12s", "-");
			printf(" %8u %4u %5u %4u %7s %s\n", r->bytes, r->hwq,
			       r->tag, r->issue_cpu,
			       iot_rec_pid(r, pid, sizeof(pid)), cmd);
		} else if (f->o->fmt == FMT_CSV) {
			iot_csv_str(stdout, disk);
			printf(",%llu,%.1f,", (unsigned long long)r->issue_ns,
			       age);
			iot_csv_str(stdout, iot_op_name(r->op));
			putchar(',');
			if (media)
				printf("%llu", (unsigned long long)r->sector);
			printf(",%u,%u,%u,%u,", r->bytes, r->hwq, r->tag,
			       r->issue_cpu);
			if (sub)
				printf("%u", r->pid);
			putchar(',');
			iot_csv_str(stdout, cmd);
			putchar('\n');
		} else {
			struct iot_jw *w = &f->doc.jw;

			jw_obj_start(w);
			jw_kv_str(w, "disk", disk);
			jw_kv_u64(w, "issue_ns", r->issue_ns);
			jw_kv_float(w, "age_us", "%.1f", age);
			jw_kv_str(w, "op", iot_op_name(r->op));
			jw_key(w, "sector");
			if (media)
				jw_u64(w, r->sector);
			else
				jw_null(w);
			jw_kv_u64(w, "bytes", r->bytes);
			jw_kv_u64(w, "hwq", r->hwq);
			jw_kv_u64(w, "tag", r->tag);
			jw_kv_u64(w, "cpu", r->issue_cpu);
			jw_key(w, "pid");
			if (sub)
				jw_u64(w, r->pid);
			else
				jw_null(w);
			jw_kv_str(w, "command", cmd);
			jw_obj_end(w);
			iot_out_item_end(&f->doc);
		}
	}
	return 0;
}

/*
 * inflight FILE|-|previous: the requests in flight at the end of a trace
 * (the in-flight tables of a previous boot's region, which "previous -o"
 * writes into its trace file), with the disk, submitter and command.
 * Return: the exit status.
 */
static int infl_file(struct iot_opts *o, const char *arg)
{
	struct infl_file f = { .o = o };
	unsigned int damaged = 0;
	struct iot_src src;
	int r;

	if (cmd_src_open(&src, arg))
		return 1;
	if (!src.is_file) {
		iot_err("inflight %s: a ring copy holds no requests in flight (a trace file that 'previous -o' wrote, a persistent region or a crash dump does; 'inflight DISK' reads a traced disk's)",
			src.label);
		iot_src_close(&src);
		return 1;
	}
	f.src = &src;
	if (o->fmt == FMT_NORMAL)
		printf("%-12s %-20s %12s %-10s %12s %8s %4s %5s %4s %7s %s\n",
		       "DISK", "ISSUE_NS", "AGE_US", "OP", "SECTOR", "BYTES",
		       "HWQ", "TAG", "CPU", "PID", "COMMAND");
	else if (o->fmt == FMT_CSV)
		printf("disk,issue_ns,age_us,op,sector,bytes,hwq,tag,cpu,pid,command\n");
	else
		iot_out_begin(&f.doc, stdout, FMT_JSON, o->jsonl);
	r = iot_file_inflight(src.buf, src.len, src.fi, infl_file_table, &f,
			      &damaged);
	if (o->fmt == FMT_JSON)
		iot_out_end(&f.doc);
	if (r < 0) {
		char e[IOT_ERR_LEN];

		if (src.fi->rd_err)
			iot_src_read_error(&src, e, sizeof(e));
		else
			snprintf(e, sizeof(e), "out of memory");
		iot_err("inflight %s: %s", src.label, e);
		iot_src_close(&src);
		return 1;
	}
	if (f.torn)
		iot_err("%s: %llu in-flight slot%s being written when it stopped (torn: counted, not shown)",
			src.label, (unsigned long long)f.torn,
			f.torn == 1 ? " was" : "s were");
	if (damaged) {
		iot_err("%s: %u damaged in-flight section%s skipped", src.label,
			damaged, damaged == 1 ? "" : "s");
		iot_salvaged++;
	}
	iot_src_close(&src);
	return iot_salvaged ? 3 : 0;
}

/*
 * Is inflight's argument a trace (as the readers take it): standard
 * input, a path, a regular file or pipe, or "previous" when no such file
 * exists?  Else it is a disk's name (a block device node in the current
 * directory too).
 */
static int infl_is_file(const char *arg)
{
	struct stat st;

	if (!strcmp(arg, "-") || strchr(arg, '/'))
		return 1;
	if (stat(arg, &st))
		return !strcmp(arg, "previous");
	return S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode);
}

int cmd_inflight(struct iot_opts *o, int argc, char **argv)
{
	char derr[IOT_ERR_LEN];
	struct infl *v = NULL;
	struct iot_out doc;
	size_t n = 0, k;
	int ret, j;

	if (argc != 1) {
		iot_err("inflight needs one DISK or FILE argument");
		return 2;
	}
	if (infl_is_file(argv[0]))
		return infl_file(o, argv[0]);
	/*
	 * The device (the commands), else debugfs (no commands): silently
	 * when the device is not there, said when it failed.
	 */
	ret = infl_dev(argv[0], &v, &n, derr, sizeof(derr));
	if (ret) {
		int eno = errno, dev_failed = ret == 2;

		ret = infl_debugfs(argv[0], &v, &n);
		if (ret > 0) {
			iot_err("inflight %s: %s; cannot open %s/%s/inflight either (%s)%s",
				argv[0], derr, iot_debugfs(), argv[0],
				strerror(errno),
				errno == ENOENT && eno == ENOENT ?
				": no traced disk of that name ('iotracectl list' shows them)" :
				"");
			return 1;
		}
		if (ret) {
			/* debugfs said what it found; what the device gave too */
			iot_err("inflight %s: and the device: %s", argv[0],
				derr);
			return 1;
		}
		if (dev_failed)
			iot_err("inflight: warning: %s: %s; read from %s/%s/inflight instead, without the commands",
				argv[0], derr, iot_debugfs(), argv[0]);
	}
	qsort(v, n, sizeof(*v), cmp_infl);
	if (o->fmt == FMT_NORMAL)
		printf("%-20s %12s %-10s %12s %8s %4s %5s %4s %7s %s\n",
		       "ISSUE_NS", "AGE_US", "OP", "SECTOR", "BYTES", "HWQ",
		       "TAG", "CPU", "PID", "COMMAND");
	else if (o->fmt == FMT_CSV)
		printf("issue_ns,age_us,op,sector,bytes,hwq,tag,cpu,pid,command\n");
	else
		iot_out_begin(&doc, stdout, FMT_JSON, o->jsonl);
	for (k = 0; k < n; k++) {
		uint64_t num[INFL_F];
		int have[INFL_F];

		/* the columns after op are numbers (JSON: else null) */
		for (j = 1; j < INFL_F; j++)
			have[j] = col_num(v[k].f[j], &num[j]);
		/* no media address (a passthrough command): none, as show */
		if (have[1] && num[1] == UINT64_MAX) {
			have[1] = 0;
			memcpy(v[k].f[1], "-", 2);
		}
		if (o->fmt == FMT_NORMAL) {
			printf("%-20llu %12.1f %-10s %12s %8s %4s %5s %4s %7s %s\n",
			       v[k].issue_ns, v[k].age_us, v[k].f[0],
			       v[k].f[1], v[k].f[2], v[k].f[3], v[k].f[4],
			       v[k].f[5], v[k].f[6], v[k].cmd);
		} else if (o->fmt == FMT_CSV) {
			printf("%llu,%.1f,", v[k].issue_ns, v[k].age_us);
			iot_csv_str(stdout, v[k].f[0]);
			for (j = 1; j < INFL_F; j++) {
				putchar(',');
				if (have[j])
					printf("%llu",
					       (unsigned long long)num[j]);
			}
			putchar(',');
			iot_csv_str(stdout, v[k].cmd);
			putchar('\n');
		} else {
			jw_obj_start(&doc.jw);
			jw_kv_u64(&doc.jw, "issue_ns", v[k].issue_ns);
			jw_kv_float(&doc.jw, "age_us", "%.1f", v[k].age_us);
			jw_kv_str(&doc.jw, "op", v[k].f[0]);
			for (j = 1; j < INFL_F; j++) {
				jw_key(&doc.jw, infl_keys[j]);
				if (have[j])
					jw_u64(&doc.jw, num[j]);
				else
					jw_null(&doc.jw);
			}
			jw_kv_str(&doc.jw, "command", v[k].cmd);
			jw_obj_end(&doc.jw);
			iot_out_item_end(&doc);
		}
	}
	if (o->fmt == FMT_JSON)
		iot_out_end(&doc);
	free(v);
	return 0;
}
