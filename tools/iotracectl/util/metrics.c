// SPDX-License-Identifier: GPL-2.0
/*
 * The in-kernel metrics: GET_METRICS replies parsed without libnl, the
 * histogram's bucket bounds and quantiles, and the Prometheus text (0.0.4)
 * and OpenMetrics 1.0 exposition of a set of disks.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include "macros.h"
#include "metrics.h"

static const char *const mop_names[IOTRACE_NR_MOPS] = {
	[IOTRACE_MOP_READ] = "read", [IOTRACE_MOP_WRITE] = "write",
	[IOTRACE_MOP_FLUSH] = "flush", [IOTRACE_MOP_DISCARD] = "discard",
	[IOTRACE_MOP_PASSTHRU] = "passthrough",
};

const char *iot_mop_name(unsigned int mop)
{
	return mop < IOTRACE_NR_MOPS ? mop_names[mop] : "unknown";
}

static uint64_t attr_u64(const struct nlattr *a)
{
	const unsigned char *p = (const unsigned char *)a + NLA_HDRLEN;
	uint64_t v = 0;
	uint32_t v32;
	uint8_t v8;

	switch (a->nla_len - NLA_HDRLEN) {
	case 8:
		memcpy(&v, p, 8);
		break;
	case 4:
		memcpy(&v32, p, 4);
		v = v32;
		break;
	case 1:
		memcpy(&v8, p, 1);
		v = v8;
		break;
	}
	return v;
}

/**
 * iot_metrics_parse() - fill @m from the attributes of a GET_METRICS reply
 * (and, optionally, of the same disk's LIST reply: TOTAL_OVERWRITTEN and
 * TOTAL_DROPPED).
 * @m: result; zeroed first except the sysfs strings.
 * @attrs: the attributes (the generic netlink payload after its header).
 * @len: their bytes.
 * @err: reason of a failure.
 * @errlen: its size.
 *
 * Attributes this version does not know are skipped (the family only ever
 * adds at the end); a struct longer than ours is read up to our size.
 *
 * Return: 0, or -1 with @err set (truncated attribute, short struct,
 * unknown operation, no disk name).
 */
int iot_metrics_parse(struct iot_metrics *m, const void *attrs, size_t len,
		      char *err, size_t errlen)
{
	const unsigned char *p = attrs;
	size_t off = 0;

	memset(m->disk, 0, sizeof(m->disk));
	m->reset_ns = 0;
	m->now_ns = 0;
	memset(m->op, 0, sizeof(m->op));
	m->timeouts = 0;
	m->requeues = 0;
	m->inflight = 0;
	m->oldest_ns = 0;
	m->have_oldest = 0;
	m->nr_err = 0;
	m->overwritten = 0;
	m->dropped = 0;
	m->have_ring = 0;
	while (off + NLA_HDRLEN <= len) {
		struct nlattr a;
		const unsigned char *d = p + off + NLA_HDRLEN;
		size_t dl;

		memcpy(&a, p + off, sizeof(a));
		if (a.nla_len < NLA_HDRLEN || a.nla_len > len - off) {
			snprintf(err, errlen, "metrics reply: attribute at byte %zu: bad length %u",
				 off, a.nla_len);
			return -1;
		}
		dl = a.nla_len - NLA_HDRLEN;
		switch (a.nla_type & NLA_TYPE_MASK) {
		case IOTRACE_A_DISK_NAME:
			if (!dl || dl > IOTRACE_NAME_LEN || memchr(d, 0, dl) !=
			    d + dl - 1) {
				snprintf(err, errlen, "metrics reply: bad disk name");
				return -1;
			}
			memcpy(m->disk, d, dl);
			break;
		case IOTRACE_A_M_RESET_NS:
			m->reset_ns = attr_u64((const void *)(p + off));
			break;
		case IOTRACE_A_M_NOW_NS:
			m->now_ns = attr_u64((const void *)(p + off));
			break;
		case IOTRACE_A_M_TIMEOUTS:
			m->timeouts = attr_u64((const void *)(p + off));
			break;
		case IOTRACE_A_M_REQUEUES:
			m->requeues = attr_u64((const void *)(p + off));
			break;
		case IOTRACE_A_M_INFLIGHT:
			m->inflight = attr_u64((const void *)(p + off));
			break;
		case IOTRACE_A_M_INFLIGHT_OLDEST_NS:
			m->oldest_ns = attr_u64((const void *)(p + off));
			m->have_oldest = 1;
			break;
		case IOTRACE_A_TOTAL_OVERWRITTEN:
			m->overwritten = attr_u64((const void *)(p + off));
			m->have_ring = 1;
			break;
		case IOTRACE_A_TOTAL_DROPPED:
			m->dropped = attr_u64((const void *)(p + off));
			m->have_ring = 1;
			break;
		case IOTRACE_A_M_OP: {
			struct iotrace_metrics_op op;

			if (dl < sizeof(op)) {
				snprintf(err, errlen,
					 "metrics reply: operation of %zu bytes, want %zu (an older module?)",
					 dl, sizeof(op));
				return -1;
			}
			memcpy(&op, d, sizeof(op));
			if (op.mop >= IOTRACE_NR_MOPS)
				break;	/* a newer module's operation */
			m->op[op.mop] = op;
			break;
		}
		case IOTRACE_A_M_ERROR: {
			struct iotrace_metrics_error e;

			if (dl < sizeof(e)) {
				snprintf(err, errlen,
					 "metrics reply: error entry of %zu bytes, want %zu",
					 dl, sizeof(e));
				return -1;
			}
			memcpy(&e, d, sizeof(e));
			if (e.mop >= IOTRACE_NR_MOPS)
				e.mop = IOTRACE_MOP_PASSTHRU;
			if (m->nr_err < IOT_M_MAX_ERRORS)
				m->err[m->nr_err++] = e;
			break;
		}
		default:
			break;
		}
		off += NLA_ALIGN(a.nla_len);
	}
	if (!m->disk[0]) {
		snprintf(err, errlen, "metrics reply without a disk name");
		return -1;
	}
	for (off = 0; off < IOTRACE_NR_MOPS; off++)
		m->op[off].mop = (uint8_t)off;
	return 0;
}

/**
 * iot_metrics_load() - iot_metrics_parse() of a file holding a reply's
 * attributes (the host tests' canned replies, IOTRACE_METRICS_DIR).
 * @m: result.
 * @path: the file.
 * @err: reason of a failure.
 * @errlen: its size.
 *
 * Return: 0; -ENODEV for an empty file (a disk that went away), another
 * negative errno or -EINVAL with @err set.
 */
int iot_metrics_load(struct iot_metrics *m, const char *path, char *err,
		     size_t errlen)
{
	unsigned char *buf;
	FILE *fp = fopen(path, "rb");
	size_t n;
	int ret;

	if (!fp) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	buf = malloc(1 << 20);
	if (!buf) {
		fclose(fp);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	n = fread(buf, 1, 1 << 20, fp);
	fclose(fp);
	if (!n) {
		free(buf);
		snprintf(err, errlen, "%s: no such disk", path);
		return -ENODEV;
	}
	ret = iot_metrics_parse(m, buf, n, err, errlen) ? -EINVAL : 0;
	free(buf);
	return ret;
}

/* Lower bound of bucket @b, ns (see IOTRACE_HIST_BUCKETS). */
uint64_t iot_hist_lo_ns(unsigned int b)
{
	unsigned int o, sub;

	if (!b)
		return 0;
	if (b >= IOTRACE_HIST_BUCKETS - 1)
		return 1ull << IOTRACE_HIST_MAX_SHIFT;
	o = IOTRACE_HIST_MIN_SHIFT + (b - 1) / (1u << IOTRACE_HIST_SUB_SHIFT);
	sub = (b - 1) % (1u << IOTRACE_HIST_SUB_SHIFT);
	return (1ull << o) + (uint64_t)sub * (1ull << (o - IOTRACE_HIST_SUB_SHIFT));
}

/* Upper bound (excluded) of bucket @b, ns; UINT64_MAX for the last. */
uint64_t iot_hist_hi_ns(unsigned int b)
{
	if (b >= IOTRACE_HIST_BUCKETS - 1)
		return UINT64_MAX;
	return iot_hist_lo_ns(b + 1);
}

/**
 * iot_hist_quantile_ns() - the @q quantile of histogram @h, ns, the way
 * Prometheus' histogram_quantile() estimates it: linear interpolation
 * inside the bucket holding the rank, the lower bound of the last (open)
 * bucket when it holds the rank.
 * @h: IOTRACE_HIST_BUCKETS counts.
 * @q: 0 to 1.
 *
 * Return: the estimate, or -1 when the histogram is empty.
 */
double iot_hist_quantile_ns(const __u64 *h, double q)
{
	uint64_t total = 0, cum = 0;
	double rank;
	unsigned int b;

	for (b = 0; b < IOTRACE_HIST_BUCKETS; b++)
		total += h[b];
	if (!total)
		return -1;
	rank = q * (double)total;
	for (b = 0; b < IOTRACE_HIST_BUCKETS; b++) {
		double lo, hi;

		if (!h[b] || (double)(cum + h[b]) < rank) {
			cum += h[b];
			continue;
		}
		lo = (double)iot_hist_lo_ns(b);
		if (b == IOTRACE_HIST_BUCKETS - 1)
			return lo;
		hi = (double)iot_hist_hi_ns(b);
		return lo + (hi - lo) * ((rank - (double)cum) / (double)h[b]);
	}
	return (double)iot_hist_lo_ns(IOTRACE_HIST_BUCKETS - 1);
}

/*
 * The largest latency @h can hold: the upper bound of its highest non-empty
 * bucket (its lower bound for the last, open one); -1 when empty.
 */
double iot_hist_max_ns(const __u64 *h)
{
	int b;

	for (b = IOTRACE_HIST_BUCKETS - 1; b >= 0; b--)
		if (h[b])
			return b == IOTRACE_HIST_BUCKETS - 1 ?
				(double)iot_hist_lo_ns(b) :
				(double)iot_hist_hi_ns(b);
	return -1;
}

/*
 * The status label of an error kind: the device status when there is one
 * ("nvme:sct0x2:sc0x81", "scsi:0x02", "ata:0x51:0x04"), else the errno
 * ("errno:EIO"); "other" for the kernel's overflow entry.  Bounded: the
 * kernel keeps a small table of kinds.
 */
void iot_metrics_status(const struct iotrace_metrics_error *e, char *out,
			size_t len)
{
	char en[32];

	switch (e->status_kind) {
	case IOTRACE_MSTATUS_NVME:
		snprintf(out, len, "nvme:sct0x%x:sc0x%02x",
			 (e->status >> 8) & 7, e->status & 0xff);
		return;
	case IOTRACE_MSTATUS_SCSI:
		snprintf(out, len, "scsi:0x%02x", e->status & 0xff);
		return;
	case IOTRACE_MSTATUS_ATA:
		snprintf(out, len, "ata:0x%02x:0x%02x", e->status >> 8,
			 e->status & 0xff);
		return;
	case IOTRACE_MSTATUS_OVERFLOW:
		snprintf(out, len, "other");
		return;
	}
	if (!e->errno_val) {
		snprintf(out, len, "unknown");
		return;
	}
	iot_errno_name((int)e->errno_val, en, sizeof(en));
	snprintf(out, len, "errno:%s", en[0] == '-' ? en + 1 : en);
}

/* One sysfs attribute, trimmed, printable ASCII only; "" when absent. */
static void sysfs_str(const char *path, char *out, size_t len)
{
	FILE *fp = fopen(path, "r");
	size_t n, i;

	out[0] = 0;
	if (!fp)
		return;
	n = fread(out, 1, len - 1, fp);
	fclose(fp);
	out[n] = 0;
	while (n && isspace((unsigned char)out[n - 1]))
		out[--n] = 0;
	for (i = 0; i < n && isspace((unsigned char)out[i]); i++)
		;
	memmove(out, out + i, n - i + 1);
	for (i = 0; out[i]; i++)
		if ((unsigned char)out[i] < 0x20 || (unsigned char)out[i] > 0x7e)
			out[i] = '?';
}

/**
 * iot_sysfs_identity() - who disk @name is, from
 *	@sysfs/block/<name>/device/{model,serial,wwid} or
 *	.../block/<name>/wwid.  Printable ASCII, trimmed; "" for what is
 *	not there.
 * @sysfs: the sysfs mount ("/sys"; the host tests give a fake one).
 * @name: the disk.
 * @model: @len bytes.
 * @serial: @len bytes.
 * @wwn: @len bytes.
 * @len: room in each.
 */
void iot_sysfs_identity(const char *sysfs, const char *name, char *model,
			char *serial, char *wwn, size_t len)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/block/%s/device/model", sysfs, name);
	sysfs_str(p, model, len);
	snprintf(p, sizeof(p), "%s/block/%s/device/serial", sysfs, name);
	sysfs_str(p, serial, len);
	snprintf(p, sizeof(p), "%s/block/%s/wwid", sysfs, name);
	sysfs_str(p, wwn, len);
	if (!wwn[0]) {
		snprintf(p, sizeof(p), "%s/block/%s/device/wwid", sysfs, name);
		sysfs_str(p, wwn, len);
	}
}

/**
 * iot_sysfs_ctrl_identity() - who NVMe controller @name is (the ring of
 *	its admin commands; no block device): @sysfs/class/nvme/<name>/
 *	{model,serial}, as iot_sysfs_identity() reads a disk's.
 * @sysfs: the sysfs mount.
 * @name: the controller.
 * @model: @len bytes.
 * @serial: @len bytes.
 * @len: room in each.
 */
void iot_sysfs_ctrl_identity(const char *sysfs, const char *name,
			     char *model, char *serial, size_t len)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/class/nvme/%s/model", sysfs, name);
	sysfs_str(p, model, len);
	snprintf(p, sizeof(p), "%s/class/nvme/%s/serial", sysfs, name);
	sysfs_str(p, serial, len);
}

/**
 * iot_metrics_sysfs_info() - model, serial and wwn of @m->disk
 *	(iot_sysfs_identity()).
 * @m: the disk.
 * @sysfs: the sysfs mount.
 */
void iot_metrics_sysfs_info(struct iot_metrics *m, const char *sysfs)
{
	iot_sysfs_identity(sysfs, m->disk, m->model, m->serial, m->wwn,
			   sizeof(m->model));
}

/* ---- exposition -------------------------------------------------------- */

/*
 * The histograms are nearly all of the exposition (5 ops x 2 x 110 bucket
 * lines per disk): their lines are built with memcpy from a per-histogram
 * prefix and bucket bounds formatted once, not by stdio per character.
 */

/*
 * @v as a label value at @p: valid UTF-8, as both formats want (a scraper
 * refuses the exposition otherwise), with backslash, double quote and
 * newline escaped.  A name is bytes (a disk's is the kernel's): its valid
 * UTF-8 sequences are kept, and each byte that is not part of one is
 * U+FFFD, as the JSON writer does (iot_utf8_seq()).  At most 3 bytes a
 * byte of @v.
 */
static size_t esc_label(char *p, const char *v)
{
	const unsigned char *s = (const unsigned char *)v;
	char *o = p;
	uint32_t cp;
	size_t n;

	while (*s) {
		n = *s >= 0x80 ? iot_utf8_seq(s, &cp) : 1;
		if (!n) {
			memcpy(o, "\xef\xbf\xbd", 3);	/* U+FFFD */
			o += 3;
			s++;
			continue;
		}
		if (*s == '\\' || *s == '"' || *s == '\n')
			*o++ = '\\';
		*o++ = *s == '\n' ? 'n' : (char)*s;
		while (--n)
			*o++ = (char)*++s;
		s++;
	}
	return o - p;
}

/* ,name="value" (no comma when @first) at @p; room: 3 * strlen(v) + 40 */
static size_t fmt_label(char *p, const char *name, const char *v, int first)
{
	size_t n = 0, l = strlen(name);

	if (!first)
		p[n++] = ',';
	memcpy(p + n, name, l);
	n += l;
	p[n++] = '=';
	p[n++] = '"';
	n += esc_label(p + n, v);
	p[n++] = '"';
	return n;
}

/*
 * A label value (esc_label()).  Every value is a string of struct
 * iot_metrics or a name: shorter than IOT_M_INFO_LEN.
 */
static void put_label(FILE *fp, const char *name, const char *v, int first)
{
	char buf[3 * IOT_M_INFO_LEN + 64];

	fwrite(buf, 1, fmt_label(buf, name, v, first), fp);
}

/* decimal @v at @p, no NUL; returns its length (at most 20) */
static size_t fmt_u64(char *p, uint64_t v)
{
	char t[20];
	size_t n = 0, i;

	do {
		t[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		p[i] = t[n - 1 - i];
	return n;
}

/* ns as exact decimal seconds: "0.000001024", "137.438953472", "1" */
static size_t fmt_seconds(char *p, uint64_t ns)
{
	uint64_t frac = ns % 1000000000u;
	size_t n = fmt_u64(p, ns / 1000000000u);
	int d;

	if (!frac)
		return n;
	p[n++] = '.';
	for (d = 100000000; d && frac; d /= 10) {
		p[n++] = '0' + frac / d;
		frac %= d;
	}
	return n;
}

static void put_seconds(FILE *fp, uint64_t ns)
{
	char buf[48];

	fwrite(buf, 1, fmt_seconds(buf, ns), fp);
}

/* le="..." values of the buckets, made once */
static struct {
	char s[32];
	size_t len;
} le_bound[IOTRACE_HIST_BUCKETS];
static pthread_once_t le_once = PTHREAD_ONCE_INIT;

static void le_init(void)
{
	unsigned int b;

	for (b = 0; b + 1 < IOTRACE_HIST_BUCKETS; b++)
		le_bound[b].len = fmt_seconds(le_bound[b].s, iot_hist_hi_ns(b));
	memcpy(le_bound[b].s, "+Inf", 4);
	le_bound[b].len = 4;
}

static void put_hist(FILE *fp, const struct iot_metrics *m, unsigned int op,
		     const char *name, const __u64 *h, uint64_t sum_ns)
{
	/* prefix: name, labels; a line: prefix, bound, count */
	char pre[3 * IOTRACE_NAME_LEN + 160], lbl[3 * IOTRACE_NAME_LEN + 80];
	char buf[16384];
	size_t pl, ll, n = 0, nl = strlen(name);
	uint64_t cum = 0;
	unsigned int b;

	pthread_once(&le_once, le_init);
	ll = fmt_label(lbl, "disk", m->disk, 1);
	ll += fmt_label(lbl + ll, "op", iot_mop_name(op), 0);
	memcpy(pre, name, nl);
	memcpy(pre + nl, "_bucket{", 8);
	memcpy(pre + nl + 8, lbl, ll);
	memcpy(pre + nl + 8 + ll, ",le=\"", 5);
	pl = nl + 8 + ll + 5;
	for (b = 0; b < IOTRACE_HIST_BUCKETS; b++) {
		if (n + pl + sizeof(le_bound[b].s) + 24 > sizeof(buf)) {
			fwrite(buf, 1, n, fp);
			n = 0;
		}
		cum += h[b];
		memcpy(buf + n, pre, pl);
		n += pl;
		memcpy(buf + n, le_bound[b].s, le_bound[b].len);
		n += le_bound[b].len;
		memcpy(buf + n, "\"} ", 3);
		n += 3;
		n += fmt_u64(buf + n, cum);
		buf[n++] = '\n';
	}
	fwrite(buf, 1, n, fp);
	fprintf(fp, "%s_sum{%.*s} ", name, (int)ll, lbl);
	put_seconds(fp, sum_ns);
	/* _count is the +Inf bucket: the CPUs' sums are not one snapshot */
	fprintf(fp, "\n%s_count{%.*s} %" PRIu64 "\n", name, (int)ll, lbl, cum);
}

/*
 * "# HELP" and "# TYPE" of a family.  OpenMetrics names a counter family
 * without its _total and an info family without its _info, and gives the
 * unit of _seconds families.
 */
static void put_family(FILE *fp, enum iot_prom_fmt fmt, const char *name,
		       const char *type, const char *help)
{
	char fam[128];
	size_t l = strlen(name);

	snprintf(fam, sizeof(fam), "%s", name);
	if (fmt == IOT_PROM_OPENMETRICS) {
		if (!strcmp(type, "counter") && l > 6 &&
		    !strcmp(name + l - 6, "_total"))
			fam[l - 6] = 0;
		if (!strcmp(type, "info") && l > 5 &&
		    !strcmp(name + l - 5, "_info"))
			fam[l - 5] = 0;
	} else if (!strcmp(type, "info")) {
		type = "gauge";
	}
	fprintf(fp, "# HELP %s %s\n# TYPE %s %s\n", fam, help, fam, type);
	l = strlen(fam);
	if (fmt == IOT_PROM_OPENMETRICS && l > 8 &&
	    !strcmp(fam + l - 8, "_seconds"))
		fprintf(fp, "# UNIT %s seconds\n", fam);
}

/* writes the value of a single-sample family for one disk */
typedef int (*disk_val)(const struct iot_metrics *m, FILE *fp);

static int v_timeouts(const struct iot_metrics *m, FILE *fp)
{
	fprintf(fp, "%" PRIu64, m->timeouts);
	return 1;
}

static int v_requeues(const struct iot_metrics *m, FILE *fp)
{
	fprintf(fp, "%" PRIu64, m->requeues);
	return 1;
}

static int v_inflight(const struct iot_metrics *m, FILE *fp)
{
	fprintf(fp, "%" PRIu64, m->inflight);
	return 1;
}

static int v_oldest(const struct iot_metrics *m, FILE *fp)
{
	put_seconds(fp, m->have_oldest && m->now_ns > m->oldest_ns ?
		    m->now_ns - m->oldest_ns : 0);
	return 1;
}

static int v_overwritten(const struct iot_metrics *m, FILE *fp)
{
	fprintf(fp, "%" PRIu64, m->overwritten);
	return 1;
}

static int v_dropped(const struct iot_metrics *m, FILE *fp)
{
	fprintf(fp, "%" PRIu64, m->dropped);
	return 1;
}

static int v_reset(const struct iot_metrics *m, FILE *fp)
{
	put_seconds(fp, m->reset_ns);
	return 1;
}

static const struct {
	const char *name, *type, *help;
	disk_val val;
} disk_families[] = {
	{ "iotrace_timeouts_total", "counter",
	  "Completions of requests that timed out.", v_timeouts },
	{ "iotrace_requeues_total", "counter", "Requests requeued.",
	  v_requeues },
	{ "iotrace_inflight_requests", "gauge",
	  "Requests issued to the device and not completed.", v_inflight },
	{ "iotrace_inflight_oldest_age_seconds", "gauge",
	  "Time since the issue of the oldest request in flight (0 when none).",
	  v_oldest },
	{ "iotrace_ring_overwritten_total", "counter",
	  "Ring records lost to wrap-around (the metrics are not).",
	  v_overwritten },
	{ "iotrace_ring_dropped_total", "counter",
	  "Completions the ring could not record (the metrics count them).",
	  v_dropped },
	{ "iotrace_metrics_reset_timestamp_seconds", "gauge",
	  "Time of the last reset of the disk's metrics (Unix time).",
	  v_reset },
};

/* one error sample: the kinds of @m summed by op and status label */
struct err_row {
	unsigned int op;
	char status[48];
	uint64_t count;
};

static unsigned int err_rows(const struct iot_metrics *m, struct err_row *r)
{
	unsigned int i, k, n = 0;

	for (i = 0; i < m->nr_err; i++) {
		char s[48];

		iot_metrics_status(&m->err[i], s, sizeof(s));
		for (k = 0; k < n; k++)
			if (r[k].op == m->err[i].mop && !strcmp(r[k].status, s))
				break;
		if (k == n) {
			r[n].op = m->err[i].mop;
			snprintf(r[n].status, sizeof(r[n].status), "%s", s);
			r[n].count = 0;
			n++;
		}
		r[k].count += m->err[i].count;
	}
	return n;
}

/**
 * iot_prom_write() - the exposition of @n disks, one family after the
 * other (every disk's samples of a family together, as the format wants).
 * @fp: stream.
 * @m: the disks.
 * @n: how many.
 * @up: the module answered the LIST of the disks (iotrace_up): 0 tells a
 *	scrape that could not reach the kernel from one of a host without
 *	disks.
 * @errors: GET_METRICS requests of the scrape that failed for another
 *	reason than a disk gone or a module loaded with metrics=N
 *	(iotrace_scrape_errors): the disks they left out are not "no disk".
 * @fmt: Prometheus text 0.0.4 or OpenMetrics 1.0 (which ends in "# EOF").
 *
 * Return: 0, or -1 when the stream failed (a write error).
 */
int iot_prom_write(FILE *fp, const struct iot_metrics *m, size_t n, int up,
		   unsigned int errors, enum iot_prom_fmt fmt)
{
	static const struct {
		const char *name, *help;
		int queue;
	} hists[] = {
		{ "iotrace_request_duration_seconds",
		  "Device latency of completed requests, issue to completion.", 0 },
		{ "iotrace_queue_duration_seconds",
		  "Queue latency of completed requests, queueing to issue.", 1 },
	};
	struct err_row *rows;
	size_t i, k;
	unsigned int op;

	rows = malloc(sizeof(*rows) * IOT_M_MAX_ERRORS);
	if (!rows)
		return -1;
	put_family(fp, fmt, "iotrace_up", "gauge",
		   "1 when the iotrace module answered the list of the disks, 0 when it could not be reached (the scrape has no disk then).");
	fprintf(fp, "iotrace_up %d\n", up ? 1 : 0);
	put_family(fp, fmt, "iotrace_scrape_errors", "gauge",
		   "Requests for a disk's metrics that failed in this scrape (a disk gone since the list or a module loaded with metrics=N is not one).");
	fprintf(fp, "iotrace_scrape_errors %u\n", errors);
	for (k = 0; k < 2; k++) {
		put_family(fp, fmt, hists[k].name, "histogram", hists[k].help);
		for (i = 0; i < n; i++)
			for (op = 0; op < IOTRACE_NR_MOPS; op++) {
				const struct iotrace_metrics_op *o = &m[i].op[op];

				put_hist(fp, &m[i], op, hists[k].name,
					 hists[k].queue ? o->queue_hist : o->dev_hist,
					 hists[k].queue ? o->queue_sum_ns : o->dev_sum_ns);
			}
	}
	for (k = 0; k < 2; k++) {
		const char *name = k ? "iotrace_bytes_total" :
			"iotrace_requests_total";

		put_family(fp, fmt, name, "counter", k ?
			   "Bytes of completed requests." :
			   "Completed requests.");
		for (i = 0; i < n; i++)
			for (op = 0; op < IOTRACE_NR_MOPS; op++) {
				fprintf(fp, "%s{", name);
				put_label(fp, "disk", m[i].disk, 1);
				put_label(fp, "op", iot_mop_name(op), 0);
				fprintf(fp, "} %" PRIu64 "\n", (uint64_t)(k ?
					m[i].op[op].bytes : m[i].op[op].requests));
			}
	}
	put_family(fp, fmt, "iotrace_errors_total", "counter",
		   "Completions with an error, by device status (or errno when the device gave none).");
	for (i = 0; i < n; i++) {
		unsigned int nr = err_rows(&m[i], rows), r;

		for (r = 0; r < nr; r++) {
			fputs("iotrace_errors_total{", fp);
			put_label(fp, "disk", m[i].disk, 1);
			put_label(fp, "op", iot_mop_name(rows[r].op), 0);
			put_label(fp, "status", rows[r].status, 0);
			fprintf(fp, "} %" PRIu64 "\n", rows[r].count);
		}
	}
	free(rows);
	for (k = 0; k < ARRAY_SIZE(disk_families); k++) {
		put_family(fp, fmt, disk_families[k].name, disk_families[k].type,
			   disk_families[k].help);
		for (i = 0; i < n; i++) {
			/* the ring's counters: disks LIST answered for */
			if ((disk_families[k].val == v_overwritten ||
			     disk_families[k].val == v_dropped) &&
			    !m[i].have_ring)
				continue;
			fprintf(fp, "%s{", disk_families[k].name);
			put_label(fp, "disk", m[i].disk, 1);
			fputs("} ", fp);
			disk_families[k].val(&m[i], fp);
			fputc('\n', fp);
		}
	}
	put_family(fp, fmt, "iotrace_disk_info", "info",
		   "The disk's model, serial and world wide name (sysfs), for following a drive across renames.");
	for (i = 0; i < n; i++) {
		fputs("iotrace_disk_info{", fp);
		put_label(fp, "disk", m[i].disk, 1);
		put_label(fp, "model", m[i].model, 0);
		put_label(fp, "serial", m[i].serial, 0);
		put_label(fp, "wwn", m[i].wwn, 0);
		fputs("} 1\n", fp);
	}
	if (fmt == IOT_PROM_OPENMETRICS)
		fputs("# EOF\n", fp);
	return ferror(fp) ? -1 : 0;
}
