// SPDX-License-Identifier: GPL-2.0
/*
 * Commands on live disks through debugfs: list, inflight, enable, disable,
 * clear.  The netlink control comes later; these use the debugfs files.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd.h"

static const char *const list_keys[] = {
	"enabled", "recorded", "present", "overwritten", "dropped",
	"inflight", "completed", "buf_size", "nr_parts", "part_records",
};

#define NR_KEYS (sizeof(list_keys) / sizeof(list_keys[0]))

/* Parse "key: value" lines of a disk's stats file into @val (NULL = -). */
static int read_stats(const char *disk, char val[NR_KEYS][32])
{
	char path[512], line[256];
	FILE *fp;
	size_t i;

	for (i = 0; i < NR_KEYS; i++)
		strcpy(val[i], "-");
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
		for (i = 0; i < NR_KEYS; i++)
			if (!strcmp(line, list_keys[i]))
				snprintf(val[i], sizeof(val[i]), "%s", v);
	}
	fclose(fp);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int cmd_list(struct iot_opts *o, int argc, char **argv)
{
	char val[NR_KEYS][32], *names[1024];
	const char *dir = iot_debugfs();
	struct dirent *de;
	size_t n = 0, i, k;
	DIR *d;

	(void)argv;
	if (argc) {
		iot_err("list takes no arguments");
		return 2;
	}
	d = opendir(dir);
	if (!d) {
		iot_err("cannot open %s: %s: is the iotrace module loaded and debugfs mounted (mount -t debugfs none /sys/kernel/debug)?",
			dir, strerror(errno));
		return 1;
	}
	while ((de = readdir(d)) && n < 1024) {
		char path[512];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/ring", dir, de->d_name);
		if (access(path, F_OK))
			continue;
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	if (o->fmt == FMT_NORMAL) {
		printf("%-16s", "DISK");
		for (k = 0; k < NR_KEYS; k++)
			printf(" %12s", list_keys[k]);
		printf("\n");
	} else if (o->fmt == FMT_CSV) {
		printf("disk");
		for (k = 0; k < NR_KEYS; k++)
			printf(",%s", list_keys[k]);
		printf("\n");
	} else if (!o->jsonl) {
		printf("[");
	}
	for (i = 0; i < n; i++) {
		read_stats(names[i], val);
		if (o->fmt == FMT_NORMAL) {
			printf("%-16s", names[i]);
			for (k = 0; k < NR_KEYS; k++)
				printf(" %12s", val[k]);
			printf("\n");
		} else if (o->fmt == FMT_CSV) {
			iot_csv_str(stdout, names[i]);
			for (k = 0; k < NR_KEYS; k++)
				printf(",%s", strcmp(val[k], "-") ? val[k] : "");
			printf("\n");
		} else {
			printf("%s{\"disk\":", i && !o->jsonl ? "," : "");
			iot_json_str(stdout, names[i]);
			for (k = 0; k < NR_KEYS; k++) {
				printf(",\"%s\":", list_keys[k]);
				if (!strcmp(val[k], "-"))
					printf("null");
				else if (strspn(val[k], "0123456789") ==
					 strlen(val[k]))
					printf("%s", val[k]);
				else
					iot_json_str(stdout, val[k]);
			}
			printf(o->jsonl ? "}\n" : "}");
		}
		free(names[i]);
	}
	if (o->fmt == FMT_JSON && !o->jsonl)
		printf("]\n");
	return 0;
}

/**
 * struct infl - one in-flight command from debugfs <disk>/inflight.
 * @issue_ns: issue time.
 * @age_us: age when the kernel printed it.
 * @f: the other columns, as text.
 */
struct infl {
	unsigned long long issue_ns;
	double age_us;
	char f[6][40];
};

static const char *const infl_cols[] = {
	"ISSUE_NS", "AGE_US", "OP", "SECTOR", "BYTES", "HWQ", "TAG", "CPU",
};

static int cmp_infl(const void *a, const void *b)
{
	const struct infl *x = a, *y = b;

	return x->issue_ns < y->issue_ns ? -1 : x->issue_ns > y->issue_ns;
}

int cmd_inflight(struct iot_opts *o, int argc, char **argv)
{
	char path[512], line[1024];
	int col[8], ncols = 0, i, j;
	struct infl *v = NULL;
	size_t n = 0, cap = 0, k;
	FILE *fp;

	if (argc != 1) {
		iot_err("inflight needs one DISK argument");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/%s/inflight", iot_debugfs(), argv[0]);
	fp = fopen(path, "re");
	if (!fp) {
		iot_err("cannot open %s: %s%s", path, strerror(errno),
			errno == ENOENT ?
			" (no traced disk of that name: 'iotracectl list' shows them)" :
			"");
		return 1;
	}
	for (i = 0; i < 8; i++)
		col[i] = -1;
	if (!fgets(line, sizeof(line), fp)) {
		iot_err("%s: empty, expected a header line", path);
		fclose(fp);
		return 1;
	}
	{
		char *save = NULL, *tok;

		for (tok = strtok_r(line, " \t\n", &save); tok;
		     tok = strtok_r(NULL, " \t\n", &save), ncols++)
			for (i = 0; i < 8; i++)
				if (!strcmp(tok, infl_cols[i]))
					col[i] = ncols;
	}
	for (i = 0; i < 8; i++)
		if (col[i] < 0) {
			iot_err("%s: no %s column in the header: the module and iotracectl do not match",
				path, infl_cols[i]);
			fclose(fp);
			return 1;
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
				return 1;
			}
			v = nv;
		}
		v[n].issue_ns = strtoull(f[col[0]], NULL, 10);
		v[n].age_us = strtod(f[col[1]], NULL);
		for (j = 0; j < 6; j++)
			snprintf(v[n].f[j], sizeof(v[n].f[j]), "%s",
				 f[col[j + 2]]);
		/* op names as show and stats print them */
		for (j = 0; v[n].f[0][j]; j++)
			v[n].f[0][j] = tolower((unsigned char)v[n].f[0][j]);
		n++;
	}
	fclose(fp);
	qsort(v, n, sizeof(*v), cmp_infl);
	if (o->fmt == FMT_NORMAL)
		printf("%-20s %12s %-10s %12s %8s %4s %5s %4s\n", "ISSUE_NS",
		       "AGE_US", "OP", "SECTOR", "BYTES", "HWQ", "TAG", "CPU");
	else if (o->fmt == FMT_CSV)
		printf("issue_ns,age_us,op,sector,bytes,hwq,tag,cpu\n");
	else if (!o->jsonl)
		printf("[");
	for (k = 0; k < n; k++) {
		if (o->fmt == FMT_NORMAL) {
			printf("%-20llu %12.1f %-10s %12s %8s %4s %5s %4s\n",
			       v[k].issue_ns, v[k].age_us, v[k].f[0],
			       v[k].f[1], v[k].f[2], v[k].f[3], v[k].f[4],
			       v[k].f[5]);
		} else if (o->fmt == FMT_CSV) {
			printf("%llu,%.1f", v[k].issue_ns, v[k].age_us);
			for (j = 0; j < 6; j++) {
				putchar(',');
				iot_csv_str(stdout, v[k].f[j]);
			}
			putchar('\n');
		} else {
			printf("%s{\"issue_ns\":%llu,\"age_us\":%.1f,\"op\":",
			       k && !o->jsonl ? "," : "", v[k].issue_ns,
			       v[k].age_us);
			iot_json_str(stdout, v[k].f[0]);
			for (j = 1; j < 6; j++) {
				printf(",\"%s\":", j == 1 ? "sector" :
				       j == 2 ? "bytes" : j == 3 ? "hwq" :
				       j == 4 ? "tag" : "cpu");
				if (v[k].f[j][0] && strspn(v[k].f[j], "0123456789") ==
				    strlen(v[k].f[j]))
					printf("%s", v[k].f[j]);
				else
					iot_json_str(stdout, v[k].f[j]);
			}
			printf(o->jsonl ? "}\n" : "}");
		}
	}
	if (o->fmt == FMT_JSON && !o->jsonl)
		printf("]\n");
	free(v);
	return 0;
}

static int write_ctl(int argc, char **argv, const char *file,
		     const char *val, const char *what)
{
	int i, rc = 0;

	if (!argc) {
		iot_err("%s needs one or more DISK arguments", what);
		return 2;
	}
	for (i = 0; i < argc; i++) {
		char path[512];
		int fd;

		snprintf(path, sizeof(path), "%s/%s/%s", iot_debugfs(),
			 argv[i], file);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, val, strlen(val)) < 0) {
			iot_err("%s %s: %s: %s%s", what, argv[i], path,
				strerror(errno), errno == ENOENT ?
				" ('iotracectl list' shows the traced disks)" :
				errno == EACCES || errno == EPERM ?
				" (run as root)" : "");
			rc = 1;
		}
		if (fd >= 0)
			close(fd);
	}
	return rc;
}

int cmd_enable(struct iot_opts *o, int argc, char **argv)
{
	(void)o;
	return write_ctl(argc, argv, "enable", "1\n", "enable");
}

int cmd_disable(struct iot_opts *o, int argc, char **argv)
{
	(void)o;
	return write_ctl(argc, argv, "enable", "0\n", "disable");
}

int cmd_clear(struct iot_opts *o, int argc, char **argv)
{
	(void)o;
	return write_ctl(argc, argv, "clear", "1\n", "clear");
}
