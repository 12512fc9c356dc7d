// SPDX-License-Identifier: GPL-2.0
/*
 * plot -f svg: one self-contained SVG (no scripts, fonts or images from
 * elsewhere) with seven panels: a latency-over-time heat map, an LBA-over-
 * time seek plot (a density strip per disk and operation class), the time
 * series of stats --interval (IOPS, throughput, p99 latency and requests in
 * flight, one line per disk and operation) and the latency histogram.
 * Every panel names its axes; tick labels carry human units (K/M, µs/ms/s,
 * KiB/MiB/GiB); legends sit between a panel's title and its plot area,
 * never on the data.  Every text element has an id, a legend's swatch
 * "sw-N" that of its label "lg-N" (tools/tests check the layout with
 * librsvg's geometry of each).
 *
 * A trace file is read twice (iot_sweep_run()): first for the scales
 * (the span, the latencies', the sectors'), then each panel takes its
 * cells from every request, so that memory does not grow with the file.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "series.h"

#define W		960	/* image width */
#define PL		100	/* plot area left */
#define PW		800	/* plot area width */
#define PH		220	/* plot area height */
#define TB		100	/* time bins of the heat map */
#define LB		40	/* latency bins of the heat map */
#define SEEK_W		400	/* seek strip cells across (2 px) */
#define SEEK_H		40	/* and down (2 px) */
#define SEEK_SH		80	/* seek strip height */
#define SEEK_GAP	26	/* between strips: the next one's header */
#define LEG_ROW		18	/* legend row height */
#define CHAR_W		7.2	/* a character's width at 12 px (estimate) */
#define NCLASS		3	/* seek plot classes: read, write, other */
#define TINY		0.000000001	/* rounding slack of tick arithmetic */

/**
 * struct svg - the image being written.
 * @fp: where.
 * @id: the last text id given.
 */
struct svg {
	FILE *fp;
	int id;
};

/* A <text> element's start tag with the next id of @kind. */
static void text_open(struct svg *g, const char *kind, double x, double y,
		      const char *cls)
{
	fprintf(g->fp, "<text id=\"%s-%d\" x=\"%.1f\" y=\"%.1f\"%s%s%s>",
		kind, ++g->id, x, y, cls ? " class=\"" : "", cls ? cls : "",
		cls ? "\"" : "");
}

/* A one-line text element. */
static void text_at(struct svg *g, const char *kind, double x, double y,
		    const char *cls, const char *s)
{
	text_open(g, kind, x, y, cls);
	fprintf(g->fp, "%s</text>\n", s);
}

/* An axis title rotated along the left edge of a plot area @h high. */
static void text_yaxis(struct svg *g, int h, const char *s)
{
	fprintf(g->fp,
		"<text id=\"axis-%d\" transform=\"translate(18,%d) rotate(-90)\" class=\"c\">%s</text>\n",
		++g->id, h / 2, s);
}

/* A tick step of 1, 2 or 5 times a power of ten for about @n ticks. */
static double nice_step(double span, int n)
{
	double s = pow(10, floor(log10(span / n))), m = span / n / s;

	return m <= 1 ? s : m <= 2 ? 2 * s : m <= 5 ? 5 * s : 10 * s;
}

/*
 * The smallest step of 1, 2, 2.5 or 5 times a power of ten that divides
 * 0 to @top into at most @n intervals.
 */
static double value_step(double top, int n)
{
	static const double m[] = { 1, 2, 2.5, 5 };
	double s = pow(10, floor(log10(top / n)));
	int i;

	for (;; s *= 10)
		for (i = 0; i < 4; i++)
			if (ceil(top / (m[i] * s) - TINY) <= n)
				return m[i] * s;
}

/**
 * struct unit - a unit of an axis.
 * @f: its size in the base unit (ns, bytes, 1).
 * @from: the base values from which it is used.
 * @name: its suffix, with a space before one that is a word.
 */
struct unit {
	double f, from;
	const char *name;
};

enum { U_COUNT, U_BYTES, U_RATE, U_DUR, U_TIME };

static const struct unit units[][7] = {
	[U_COUNT] = { { 1, 0, "" }, { 1e3, 1e3, "K" }, { 1e6, 1e6, "M" },
		      { 1e9, 1e9, "G" }, { 1e12, 1e12, "T" } },
	[U_BYTES] = { { 1, 0, " B" }, { 1024., 1024., " KiB" },
		      { 1048576., 1048576., " MiB" },
		      { 1073741824., 1073741824., " GiB" },
		      { 1099511627776., 1099511627776., " TiB" },
		      { 1125899906842624., 1125899906842624., " PiB" } },
	[U_RATE] = { { 1, 0, " B/s" }, { 1024., 1024., " KiB/s" },
		     { 1048576., 1048576., " MiB/s" },
		     { 1073741824., 1073741824., " GiB/s" },
		     { 1099511627776., 1099511627776., " TiB/s" } },
	[U_DUR] = { { 1, 0, " ns" }, { 1e3, 1e3, " \xc2\xb5s" },
		    { 1e6, 1e6, " ms" }, { 1e9, 1e9, " s" } },
	/* a time axis: seconds up to 10 minutes, then minutes, hours */
	[U_TIME] = { { 1, 0, " ns" }, { 1e3, 1e3, " \xc2\xb5s" },
		     { 1e6, 1e6, " ms" }, { 1e9, 1e9, " s" },
		     { 60e9, 600e9, " min" }, { 3600e9, 7200e9, " h" } },
};

/**
 * struct axis - a linear axis from 0.
 * @u: its unit.
 * @step: between ticks, in @u.
 * @top: its end, in the base unit.
 * @dec: decimals of a tick label.
 */
struct axis {
	const struct unit *u;
	double step, top;
	int dec;
};

/*
 * An axis for values 0 to @max of @kind; @value: a value axis of at most
 * @n intervals, its end on a tick above @max, else a time axis of about
 * @n ticks that ends at @max.  A count whose ticks are not whole in the
 * unit of @max takes the smaller unit (200, 400, not 0.2K, 0.4K).
 */
static void axis_make(struct axis *a, int kind, double max, int n, int value)
{
	const struct unit *u = units[kind];
	double m;
	int i;

	if (!(max > 0))
		max = kind == U_DUR || kind == U_TIME ? 1000 : 1;
	a->u = u;
	for (i = 1; i < 7 && u[i].f; i++)
		if (max >= u[i].from)
			a->u = &u[i];
	m = max / a->u->f;
	if (!value) {
		a->step = nice_step(m, n);
		a->top = max;
	} else {
		a->step = value_step(m * 1.04, n);
		a->top = ceil(m * 1.04 / a->step - TINY) * a->step * a->u->f;
	}
	if (kind == U_COUNT && a->step < 1 && a->u > u) {
		a->step *= a->u->f / a->u[-1].f;
		a->u--;
	}
	a->dec = a->step >= 1 ? 0 : (int)ceil(-log10(a->step) - TINY);
	/* 2.5 times a power of ten below 1: one more */
	if (a->step < 1 && fabs(a->step * pow(10, a->dec) -
				round(a->step * pow(10, a->dec))) > 1000 * TINY)
		a->dec++;
}

/* tick @v (in the axis' unit) as a label */
static void axis_label(const struct axis *a, double v, char *out, size_t len)
{
	if (v == 0)
		snprintf(out, len, "0");
	else
		snprintf(out, len, "%.*f%s", a->dec, v, a->u->name);
}

/* A value with the unit of @kind that suits it, 3 significant digits. */
static void human(int kind, double v, char *out, size_t len)
{
	const struct unit *u = units[kind], *b = u;
	int i;

	for (i = 1; i < 7 && u[i].f; i++)
		if (v >= u[i].from)
			b = &u[i];
	if (v == 0)
		snprintf(out, len, "0");
	else if (v / b->f >= 100 || b == u)
		snprintf(out, len, "%.0f%s", v / b->f, b->name);
	else
		snprintf(out, len, "%.3g%s", v / b->f, b->name);
}

/*
 * A disk's name in the image: as the text outputs print it (no control
 * character, which XML does not allow, no byte that is not UTF-8), and
 * '<', '&' and '>' as '_'.
 */
static void svg_name_str(const char *name, char *out, size_t len)
{
	char t[IOT_TEXT_ROOM(IOTRACE_NAME_LEN)], *p;

	iot_text_str(t, sizeof(t), name);
	for (p = t; *p; p++)
		if (*p == '<' || *p == '&' || *p == '>')
			*p = '_';
	snprintf(out, len, "%s", t);
}

/* an estimate of the width of @s at 12 px: UTF-8 continuation bytes none */
static double text_w(const char *s)
{
	double w = 0;

	for (; *s; s++)
		if ((*s & 0xc0) != 0x80)
			w += CHAR_W;
	return w;
}

/*
 * A panel's title at the top of its room, then its legend's rows (the
 * caller's), then its plot area: the group that starts here is
 * translated to the plot area's top left corner (minus PL).  Returns the
 * plot area's top.
 */
static int panel_open(struct svg *g, int y0, int legend_rows, const char *title)
{
	int top = y0 + 26 + legend_rows * LEG_ROW + (legend_rows ? 6 : 0);

	fprintf(g->fp, "<g transform=\"translate(0,%d)\">\n", top);
	text_at(g, "title", PL, y0 + 16 - top, "t", title);
	return top;
}

/* a plot area's frame, its top at @y */
static void frame(struct svg *g, int y, int h)
{
	fprintf(g->fp,
		"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#000\"/>\n",
		PL, y, PW, h);
}

/* the room a panel of plot area @h takes below its top: axis, gap */
#define PANEL_BELOW(h)	((h) + 70)

/*
 * The time axis under a plot area @h high: 0 at its left edge (the first
 * request's start), @span_ns at its right edge (the last completion).
 */
static void time_axis(struct svg *g, int h, double span_ns)
{
	struct axis a;
	char lab[32];
	double t;
	int i;

	axis_make(&a, U_TIME, span_ns, 8, 0);
	for (i = 0; (t = i * a.step) * a.u->f <= a.top * (1 + TINY); i++) {
		double x = PL + t * a.u->f / a.top * PW;

		fprintf(g->fp,
			"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\"/>",
			x, h, x, h + 5);
		axis_label(&a, t, lab, sizeof(lab));
		text_at(g, "tick", x, h + 18, "c", lab);
	}
	text_at(g, "axis", PL + PW / 2, h + 36, "c",
		"time since the first request's start (the right edge: the last completion)");
}

/* y ticks of a value axis on a plot area @h high */
static void value_ticks(struct svg *g, const struct axis *a, int y0, int h)
{
	char lab[32];
	double v;
	int i;

	for (i = 0; (v = i * a->step) * a->u->f <= a->top * (1 + TINY); i++) {
		double y = y0 + h - v * a->u->f / a->top * h;

		fprintf(g->fp,
			"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#000\"/>",
			PL - 5, y, PL, y);
		axis_label(a, v, lab, sizeof(lab));
		text_at(g, "tick", PL - 7, y + 4, "r", lab);
	}
}

/*
 * y ticks of a log latency axis from 10^@llo to 10^@lhi ns on a plot area
 * PH high: the decades, and 2 and 5 times them over fewer than three.
 */
static void log_ticks(struct svg *g, double llo, double lhi)
{
	static const double m[] = { 1, 2, 5 };
	char lab[32];
	int a, i;

	for (a = (int)llo; a <= (int)lhi; a++)
		for (i = 0; i < (lhi - llo < 3 ? 3 : 1); i++) {
			double v = m[i] * pow(10, a), l = log10(v);
			double y = PH - (l - llo) / (lhi - llo) * PH;

			if (l > lhi + TINY)
				break;
			fprintf(g->fp,
				"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#000\"/>",
				PL - 5, y, PL, y);
			human(U_DUR, v, lab, sizeof(lab));
			text_at(g, "tick", PL - 7, y + 4, "r", lab);
		}
}

/*
 * The cell of @n (0 to @n - 1) a position @v in cells falls in: clamped
 * as a double (a conversion to int of one out of its range is undefined),
 * NaN to the first.
 */
static int cell_of(double v, int n)
{
	if (!(v >= 0))
		return 0;
	return v >= n ? n - 1 : (int)v;
}

static void heat_color(double f, char *out, size_t len)
{
	/* white (few) to dark blue (many), in steps a reader can tell apart */
	int r = (int)(255 - f * 235), g = (int)(255 - f * 190),
	    b = (int)(255 - f * 80);

	snprintf(out, len, "#%02x%02x%02x", r, g, b);
}

/**
 * struct plot - what the panels are drawn from.
 * @src: the source.
 * @disk: the disk kept (--disk), -1: all.
 * @sw: its reads.
 * @n: requests drawn (those the filters keep).
 * @t0: the first start of one.
 * @t1: the last completion (or start) of one.
 * @lat_lo: the shortest latency above 0 (UINT64_MAX: none).
 * @lat_hi: the longest.
 * @smax: per disk, the sector after its highest request (seek_end()).
 * @nclass: per disk and seek class, the requests with a media address.
 * @llo: the heat map's lowest decade (log10 ns).
 * @lhi: its highest.
 * @cnt: heat map cells.
 * @seek: seek plot cells, SEEK_W x SEEK_H per disk kept and class (a
 *	count each), in the order of @ss's disks.
 * @h: latency histogram (the bins of stats).
 * @ss: the time series.
 */
struct plot {
	struct iot_src *src;
	int disk;
	struct iot_sweep sw;
	uint64_t n, t0, t1, lat_lo, lat_hi;
	uint64_t smax[IOT_MAX_DISKS];
	uint64_t nclass[IOT_MAX_DISKS][NCLASS];
	double llo, lhi;
	uint64_t cnt[TB][LB];
	unsigned int *seek;
	uint64_t h[IOT_LAT_BINS];
	struct iot_series_set ss;
};

static uint64_t seek_end(const struct iotrace_record *r);

/* the time a request is drawn at: its completion, else its start */
static uint64_t rec_time(const struct iotrace_record *r)
{
	uint64_t s = xrec_start(r);

	/* a start after its completion: the start */
	return r->rflags & IOTRACE_RF_COMPLETE && r->complete_ns > s ?
	       r->complete_ns : s;
}

static int op_class(const struct iotrace_record *r)
{
	return r->op == IOTRACE_OP_READ || r->op == IOTRACE_OP_DRV_IN ? 0 :
	       r->op == IOTRACE_OP_WRITE ? 1 : 2;
}

/* pass 1: the span and the scales of the requests drawn */
static int plot_pre(void *arg, unsigned int disk,
		    const struct iotrace_record *r)
{
	struct plot *p = arg;
	uint64_t s = xrec_start(r), e = rec_time(r), l;

	if (!iot_filter(p->sw.o, r))
		return 0;
	p->n++;
	if (s < p->t0)
		p->t0 = s;
	if (e > p->t1)
		p->t1 = e;
	if (disk < IOT_MAX_DISKS && r->sector != UINT64_MAX) {
		if (seek_end(r) > p->smax[disk])
			p->smax[disk] = seek_end(r);
		p->nclass[disk][op_class(r)]++;
	}
	if (!iot_rec_has_lat(r))
		return 0;
	l = r->complete_ns - r->issue_ns;
	/* the log scales start at the shortest latency above 0 */
	if (l && l < p->lat_lo)
		p->lat_lo = l;
	if (l > p->lat_hi)
		p->lat_hi = l;
	return 0;
}

/* a time as a position 0 to @n of the span */
static double time_pos(const struct plot *p, uint64_t t, int n)
{
	double span_ns = (double)(p->t1 - p->t0);

	return span_ns > 0 ? (double)(t - p->t0) / span_ns * n : 0;
}

static void heat_add(struct plot *p, const struct iotrace_record *r)
{
	double l;
	int a, b;

	if (!iot_rec_has_lat(r))
		return;
	l = log10((double)(r->complete_ns - r->issue_ns > 0 ?
			   r->complete_ns - r->issue_ns : 1));
	a = cell_of(time_pos(p, rec_time(r), TB), TB);
	b = cell_of((l - p->llo) / (p->lhi - p->llo) * LB, LB);
	p->cnt[a][b]++;
}

static int heat_map(struct svg *g, const struct plot *p, int y0)
{
	double llo = p->llo, lhi = p->lhi;
	char title[256], col[16], lab[32];
	uint64_t mx = 0;
	FILE *fp = g->fp;
	int a, b;

	for (a = 0; a < TB; a++)
		for (b = 0; b < LB; b++)
			if (p->cnt[a][b] > mx)
				mx = p->cnt[a][b];
	snprintf(title, sizeof(title),
		 "Device latency over time (at completion): darker cells hold more requests (darkest: %llu)",
		 (unsigned long long)mx);
	panel_open(g, y0, 0, title);
	frame(g, 0, PH);
	for (a = 0; a < TB; a++)
		for (b = 0; b < LB; b++) {
			if (!p->cnt[a][b])
				continue;
			heat_color(0.15 + 0.85 * log1p((double)p->cnt[a][b]) /
				   log1p((double)mx), col, sizeof(col));
			fprintf(fp,
				"<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"><title>%llu requests</title></rect>\n",
				PL + (double)a * PW / TB,
				PH - (double)(b + 1) * PH / LB,
				(double)PW / TB + 0.3, (double)PH / LB + 0.3,
				col, (unsigned long long)p->cnt[a][b]);
		}
	for (a = (int)llo; a <= (int)lhi; a++) {
		double y = PH - (a - llo) / (lhi - llo) * PH;

		human(U_DUR, pow(10, a), lab, sizeof(lab));
		fprintf(fp,
			"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#bbb\" stroke-dasharray=\"3,3\"/>",
			PL, y, PL + PW, y);
		text_at(g, "tick", PL - 7, y + 4, "r", lab);
	}
	text_yaxis(g, PH, "latency (log scale)");
	time_axis(g, PH, (double)(p->t1 - p->t0));
	fprintf(fp, "</g>\n");
	return y0 + 26 + PANEL_BELOW(PH);
}

static const char *const class_colors[NCLASS] = {
	"#1f5fbf", "#d03020", "#606060"
};

static const char *const class_names[NCLASS] = {
	"reads", "writes", "other operations (flush, discard, ...)"
};

/*
 * The sector after a request, UINT64_MAX for one that would be beyond
 * it; 0 for a request without a media address (passthrough, admin:
 * sector UINT64_MAX), which the seek plot leaves out, as btt's seeks do.
 */
static uint64_t seek_end(const struct iotrace_record *r)
{
	if (r->sector == UINT64_MAX)
		return 0;
	return r->sector + r->bytes / 512 < r->sector ? UINT64_MAX :
	       r->sector + r->bytes / 512;
}

/* a disk's cells of one class */
static unsigned int *seek_cells(const struct plot *p, unsigned int slot, int c)
{
	return p->seek + ((size_t)slot * NCLASS + c) * SEEK_W * SEEK_H;
}

/*
 * A disk's sector axis, in bytes: its top the end of the highest
 * request (a disk's size is often a power of two, which a top on a tick
 * of 1, 2 or 5 would leave a third of the strip empty above).
 */
static void seek_axis(const struct plot *p, unsigned int disk,
		      struct axis *a)
{
	axis_make(a, U_BYTES, (double)p->smax[disk] * 512, 4, 0);
}

static void seek_add(struct plot *p, const struct xrec *e)
{
	const struct iotrace_record *r = &e->r;
	struct axis ax;
	unsigned int *c;
	int a, b;

	if (r->sector == UINT64_MAX || e->disk >= IOT_MAX_DISKS ||
	    p->ss.slot[e->disk] < 0)
		return;
	seek_axis(p, e->disk, &ax);
	a = cell_of(time_pos(p, rec_time(r), SEEK_W), SEEK_W);
	b = cell_of((double)r->sector * 512 / ax.top * SEEK_H, SEEK_H);
	c = seek_cells(p, (unsigned int)p->ss.slot[e->disk], op_class(r));
	if (c[b * SEEK_W + a] < UINT_MAX)
		c[b * SEEK_W + a]++;
}

/* the density levels of the seek plot's cells: fill-opacity */
#define SEEK_LEVELS	6

/* a seek cell's density level: 0 (none) to SEEK_LEVELS */
static int seek_level(unsigned int v, unsigned int mx)
{
	return v ? 1 + (int)((SEEK_LEVELS - 1) * log1p(v) / log1p(mx)) : 0;
}

/*
 * A strip's cells @v (of a disk and class), its top at @y: a rectangle
 * per run of cells of one level in a row, more opaque for more requests.
 */
static void seek_strip(FILE *fp, const unsigned int *v, unsigned int mx, int y,
		       const char *color, int grow)
{
	int a, b, e, lv;
	double x0, y0, x1, y1;

	fprintf(fp, "<g fill=\"%s\">\n", color);
	for (b = 0; b < SEEK_H; b++)
		for (a = 0; a < SEEK_W; a = e) {
			lv = seek_level(v[b * SEEK_W + a], mx);
			for (e = a + 1; e < SEEK_W; e++)
				if (seek_level(v[b * SEEK_W + e], mx) != lv)
					break;
			if (!lv)
				continue;
			x0 = PL + (double)a * PW / SEEK_W;
			x1 = PL + (double)e * PW / SEEK_W;
			y1 = y + SEEK_SH - (double)b * SEEK_SH / SEEK_H;
			y0 = y1 - (double)SEEK_SH / SEEK_H;
			/* few points: each a little larger, in the strip */
			if (grow) {
				x0 = x0 - 1 < PL ? PL : x0 - 1;
				x1 = x1 + 1 > PL + PW ? PL + PW : x1 + 1;
				y0 = y0 - 1 < y ? y : y0 - 1;
				y1 = y1 + 1 > y + SEEK_SH ? y + SEEK_SH : y1 + 1;
			}
			fprintf(fp,
				"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill-opacity=\"%.2f\"/>\n",
				x0, y0, x1 - x0, y1 - y0,
				0.3 + 0.7 * lv / SEEK_LEVELS);
		}
	fprintf(fp, "</g>\n");
}

/*
 * The seek plot: a strip per disk and class of operation with requests
 * that have a media address, each its own sector axis; cells darker for
 * more requests.  Nothing hides another's points.
 */
static int seek_plot(struct svg *g, const struct plot *p, int y0)
{
	char title[256], lab[160], name[IOT_TEXT_ROOM(IOTRACE_NAME_LEN)];
	const struct iot_series_set *ss = &p->ss;
	unsigned int mx = 0;
	FILE *fp = g->fp;
	unsigned int d;
	int c, y = 0, ns = 0, h, k, top, used = 0;

	for (d = 0; d < ss->nd; d++)
		for (c = 0; c < NCLASS; c++) {
			const unsigned int *v = seek_cells(p, d, c);

			if (!p->nclass[ss->s[d].disk][c])
				continue;
			ns++;
			for (k = 0; k < SEEK_W * SEEK_H; k++) {
				mx = v[k] > mx ? v[k] : mx;
				used += !!v[k];
			}
		}
	snprintf(title, sizeof(title),
		 "Start sector (LBA) over time (at completion), a strip per disk and operation: darker cells hold more requests (darkest: %u)",
		 mx);
	if (text_w(title) > W - PL - 4)
		snprintf(title, sizeof(title),
			 "Start sector (LBA) over time (at completion): darker cells hold more requests (darkest: %u)",
			 mx);
	h = ns ? ns * SEEK_SH + (ns - 1) * SEEK_GAP : PH;
	/* the first strip's header in a legend row */
	top = panel_open(g, y0, 1, title);
	if (!ns) {
		frame(g, 0, h);
		text_at(g, "note", PL + PW / 2, h / 2, "c",
			"no request with a media address (sector)");
	}
	for (d = 0; d < ss->nd; d++)
		for (c = 0; c < NCLASS; c++) {
			unsigned int disk = ss->s[d].disk;
			const unsigned int *v = seek_cells(p, d, c);
			struct axis ax;

			if (!p->nclass[disk][c])
				continue;
			svg_name_str(p->src->disks[disk].name, name,
				     sizeof(name));
			snprintf(lab, sizeof(lab), "%s %s (%llu)", name,
				 class_names[c],
				 (unsigned long long)p->nclass[disk][c]);
			text_open(g, "hdr", PL, y - 7, "s");
			fprintf(fp, "<tspan fill=\"%s\">%s</tspan></text>\n",
				class_colors[c], lab);
			frame(g, y, SEEK_SH);
			seek_strip(fp, v, mx, y, class_colors[c],
				   used <= 2000);
			seek_axis(p, disk, &ax);
			value_ticks(g, &ax, y, SEEK_SH);
			y += SEEK_SH + SEEK_GAP;
		}
	text_yaxis(g, h, "start offset on the disk (sector x 512 B)");
	time_axis(g, h, (double)(p->t1 - p->t0));
	fprintf(fp, "</g>\n");
	return top + PANEL_BELOW(h);
}

#define SB		100	/* intervals of the time-series panels */

enum { TS_IOPS, TS_MBPS, TS_P99, TS_INFLIGHT };

/* line colours by operation slot: reads and writes as in the seek plot */
static const char *ts_color(int k)
{
	static const char *const c[IOT_NR_OPS] = {
		"#1f5fbf", "#d03020", "#2a9d2a", "#e08a00", "#8a3fbf",
		"#00a0a0", "#c0308a", "#8c564b", "#7f7f00", "#17becf",
		"#b8860b", "#4b0082", "#000080", "#800000", "#ff69b4",
		"#404040",
	};

	return c[k % IOT_NR_OPS];
}

/* dashes by disk */
static const char *const ts_dashes[] = { "none", "7,3", "2,2", "8,2,2,2" };

/* the value of one series panel for one operation in one interval */
static double ts_value(const struct iot_series_op *o, uint64_t width,
		       int what, int *valid)
{
	*valid = 1;
	switch (what) {
	case TS_IOPS:
		return o->n / (width / 1e9);
	case TS_MBPS:
		return o->bytes / (width / 1e9);
	case TS_P99:
		*valid = o->lat_n > 0;
		return (double)o->p99;
	default:
		return (double)o->inflight_ns / width;
	}
}

/* requests of operation slot @k of a disk's series */
static uint64_t ts_count(const struct iot_series *s, int k)
{
	uint64_t n = 0;
	size_t b;

	for (b = 0; b < s->nb; b++)
		n += iot_series_ops(s, b)[k].n;
	return n;
}

/* a legend entry's label */
static void ts_label(const struct iot_src *src, const struct iot_series *s,
		     int k, char *out, size_t len)
{
	char name[IOT_TEXT_ROOM(IOTRACE_NAME_LEN)];

	svg_name_str(src->disks[s->disk].name, name, sizeof(name));
	snprintf(out, len, "%s %s", name,
		 k == IOT_NR_OPS - 1 ? "other" : iot_op_name(k));
}

/*
 * The legend of the series panels: an entry (a line as drawn, its label)
 * per disk and operation with requests, in columns between a panel's
 * title and its plot area.  Returns its rows; @draw: write it, its first
 * row's top @y (relative to the plot area).
 */
static int ts_legend(struct svg *g, const struct iot_src *src,
		     const struct iot_series *s, unsigned int nd, int draw,
		     int y)
{
	double colw = 0;
	char lab[128];
	unsigned int d;
	int k, n = 0, cols, i = 0;

	for (d = 0; d < nd; d++)
		for (k = 0; k < IOT_NR_OPS; k++)
			if (ts_count(&s[d], k)) {
				ts_label(src, &s[d], k, lab, sizeof(lab));
				if (text_w(lab) > colw)
					colw = text_w(lab);
				n++;
			}
	if (!n)
		return 0;
	colw += 28 + 18;	/* the swatch, a gap, and between columns */
	cols = (int)((W - PL - 4) / colw);
	if (cols < 1)
		cols = 1;
	if (!draw)
		return (n + cols - 1) / cols;
	for (d = 0; d < nd; d++)
		for (k = 0; k < IOT_NR_OPS; k++) {
			double x = PL + (i % cols) * colw;
			double ly = y + (i / cols) * LEG_ROW;

			if (!ts_count(&s[d], k))
				continue;
			ts_label(src, &s[d], k, lab, sizeof(lab));
			fprintf(g->fp,
				"<line id=\"sw-%d\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"%s\"/>",
				g->id + 1, x, ly + 9, x + 24, ly + 9,
				ts_color(k), ts_dashes[d % 4]);
			text_at(g, "lg", x + 28, ly + 13, NULL, lab);
			i++;
		}
	return (n + cols - 1) / cols;
}

/*
 * One time-series panel: a line per disk and operation (colour by
 * operation, dashes by disk), over the intervals of @s.
 */
static int series_panel(struct svg *g, const struct plot *p, int what, int y0)
{
	static const char *const titles[] = {
		[TS_IOPS] = "IOPS over time (requests completed per second)",
		[TS_MBPS] = "Throughput over time (bytes of the requests completed, per second)",
		[TS_P99] = "p99 latency over time (issue to completion, of the requests completed)",
		[TS_INFLIGHT] = "Requests in flight over time (average queue depth)",
	};
	static const char *const ylabels[] = {
		[TS_IOPS] = "IOPS", [TS_MBPS] = "throughput",
		[TS_P99] = "p99 latency (log scale)", [TS_INFLIGHT] = "requests in flight",
	};
	static const int kinds[] = {
		[TS_IOPS] = U_COUNT, [TS_MBPS] = U_RATE,
		[TS_P99] = U_DUR, [TS_INFLIGHT] = U_COUNT,
	};
	const struct iot_series *s = p->ss.s;
	unsigned int d, nd = p->ss.nd;
	double vmax = 0, vmin = HUGE_VAL, v, span = (double)(p->t1 - p->t0);
	double llo = 0, lhi = 1;
	FILE *fp = g->fp;
	struct axis ax;
	size_t b;
	int k, ok, rows, top;

	for (d = 0; d < nd; d++)
		for (b = 0; b < s[d].nb; b++)
			for (k = 0; k < IOT_NR_OPS; k++) {
				v = ts_value(&iot_series_ops(&s[d], b)[k],
					     s[d].width, what, &ok);
				if (ok && v > vmax)
					vmax = v;
				if (ok && v > 0 && v < vmin)
					vmin = v;
			}
	rows = ts_legend(g, p->src, s, nd, 0, 0);
	top = panel_open(g, y0, rows, titles[what]);
	ts_legend(g, p->src, s, nd, 1, y0 + 24 - top);
	frame(g, 0, PH);
	if (!rows)
		text_at(g, "note", PL + PW / 2, PH / 2, "c",
			"no completed request");
	axis_make(&ax, kinds[what], vmax, 6, 1);
	/* latencies: whole decades around them (disks of 100 us and 5 ms) */
	if (what == TS_P99) {
		llo = floor(log10(vmin >= 1 && vmin < HUGE_VAL ? vmin : 1));
		lhi = ceil(log10(vmax > 1 ? vmax : 1) + TINY);
		if (lhi <= llo)
			lhi = llo + 1;
	}
	for (d = 0; d < nd; d++)
		for (k = 0; k < IOT_NR_OPS; k++) {
			int open = 0, prev = 0, next;

			if (!ts_count(&s[d], k))
				continue;
			for (b = 0; b < s[d].nb; b++, prev = ok) {
				/* the interval's middle, within the span */
				double t = (b + 0.5) * s[d].width, px, py;

				if (t > span)
					t = span;
				px = PL + (span > 0 ? t / span : 0.5) * PW;
				v = ts_value(&iot_series_ops(&s[d], b)[k],
					     s[d].width, what, &ok);
				if (!ok) {
					if (open)
						fprintf(fp, "\"/>\n");
					open = 0;
					continue;
				}
				py = PH - v / ax.top * PH;
				if (what == TS_P99)
					py = PH - (log10(v >= 1 ? v : 1) - llo) /
					     (lhi - llo) * PH;
				/* a p99 of 0 on the bottom edge */
				if (py > PH)
					py = PH;
				next = 0;
				if (b + 1 < s[d].nb)
					ts_value(&iot_series_ops(&s[d], b + 1)[k],
						 s[d].width, what, &next);
				/* a value alone between gaps: a dot */
				if (!prev && !next) {
					fprintf(fp,
						"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n",
						px, py, ts_color(k));
					continue;
				}
				if (!open)
					fprintf(fp,
						"<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"%s\" points=\"",
						ts_color(k), ts_dashes[d % 4]);
				fprintf(fp, "%s%.1f,%.1f", open ? " " : "", px, py);
				open = 1;
			}
			if (open)
				fprintf(fp, "\"/>\n");
		}
	if (what == TS_P99)
		log_ticks(g, llo, lhi);
	else
		value_ticks(g, &ax, 0, PH);
	text_yaxis(g, PH, ylabels[what]);
	time_axis(g, PH, span);
	fprintf(fp, "</g>\n");
	return top + PANEL_BELOW(PH);
}

static int hist_panel(struct svg *g, const uint64_t *h, int y0)
{
	uint64_t mx = 0, n = 0, blo, bhi;
	int lo = IOT_LAT_BINS, hi = -1, k, every, vert = 0;
	char title[256], lab[32], full[32];
	FILE *fp = g->fp;
	double bw, room;

	for (k = 0; k < IOT_LAT_BINS; k++) {
		if (!h[k])
			continue;
		n += h[k];
		lo = k < lo ? k : lo;
		hi = k > hi ? k : hi;
	}
	for (k = 0; k < IOT_LAT_BINS; k++)
		mx = h[k] > mx ? h[k] : mx;
	snprintf(title, sizeof(title),
		 "Latency histogram: requests per power-of-two latency range (%llu requests)",
		 (unsigned long long)n);
	panel_open(g, y0, 0, title);
	frame(g, 0, PH);
	if (hi < 0) {
		text_at(g, "note", PL + PW / 2, PH / 2, "c",
			"no completed request");
		fprintf(fp, "</g>\n");
		return y0 + 26 + PANEL_BELOW(PH);
	}
	bw = (double)PW / (hi - lo + 1);
	/* the counts over the bars: in full, short (K, M) or upright */
	snprintf(full, sizeof(full), "%llu", (unsigned long long)mx);
	human(U_COUNT, (double)mx, lab, sizeof(lab));
	if (text_w(lab) > bw - 4)
		vert = 1;
	room = vert ? text_w(full) + 10 : 20;
	/* a label at every bar's left edge that has room */
	every = (int)ceil((text_w("500 ms") + 10) / bw);
	for (k = lo; k <= hi; k++) {
		double bh = (double)h[k] / mx * (PH - room);
		double bx = PL + (k - lo) * bw;

		iot_lat_bin_range((unsigned int)k, &blo, &bhi);
		human(U_DUR, (double)blo, lab, sizeof(lab));
		fprintf(fp,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#1f5fbf\"><title>%s",
			bx + 1, PH - bh, bw - 2, bh, lab);
		human(U_DUR, (double)bhi, lab, sizeof(lab));
		fprintf(fp, " to %s: %llu requests</title></rect>", lab,
			(unsigned long long)h[k]);
		snprintf(full, sizeof(full), "%llu", (unsigned long long)h[k]);
		if (text_w(full) > bw - 4)
			human(U_COUNT, (double)h[k], full, sizeof(full));
		if (!h[k])
			;	/* no count over an empty bin */
		else if (vert)
			fprintf(fp,
				"<text id=\"count-%d\" transform=\"translate(%.1f,%.1f) rotate(-90)\" class=\"v\">%llu</text>",
				++g->id, bx + bw / 2 + 4, PH - bh - 4,
				(unsigned long long)h[k]);
		else
			text_at(g, "count", bx + bw / 2, PH - bh - 4, "c", full);
		if ((k - lo) % every == 0) {
			human(U_DUR, (double)blo, lab, sizeof(lab));
			fprintf(fp,
				"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\"/>",
				bx, PH, bx, PH + 5);
			text_at(g, "tick", bx, PH + 18, "c", lab);
		}
	}
	/* the right edge: the last bar's end, when the last left edge
	 * labelled is far enough from it
	 */
	if ((hi + 1 - lo) % every == 0) {
		iot_lat_bin_range((unsigned int)hi, &blo, &bhi);
		human(U_DUR, (double)bhi, lab, sizeof(lab));
		fprintf(fp, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>",
			PL + PW, PH, PL + PW, PH + 5);
		text_at(g, "tick", PL + PW, PH + 18, "c", lab);
	}
	text_at(g, "axis", PL + PW / 2, PH + 36, "c",
		"latency, issue to completion (a bar: from its left edge to twice it; the bins of stats)");
	text_yaxis(g, PH, "requests");
	fprintf(fp, "</g>\n");
	return y0 + 26 + PANEL_BELOW(PH);
}

static void plot_each(void *arg, const struct xrec *e)
{
	struct plot *p = arg;
	const struct iotrace_record *r = &e->r;

	heat_add(p, r);
	seek_add(p, e);
	if (iot_rec_has_lat(r))	/* the bins of stats */
		p->h[iot_lat_bin(r->complete_ns - r->issue_ns)]++;
	iot_series_add(&p->ss, e);
}

/* the scales are known: the cells, the intervals */
static int plot_start(void *arg)
{
	struct plot *p = arg;
	uint64_t w, lo = p->lat_lo, hi = p->lat_hi;

	if (!p->n)
		return 0;
	if (lo == UINT64_MAX) {
		lo = 1000;
		hi = 1000;
	}
	/* whole decades around the data */
	p->llo = floor(log10(lo > 0 ? (double)lo : 1));
	p->lhi = ceil(log10((double)hi + 1));
	if (p->lhi <= p->llo)
		p->lhi = p->llo + 1;
	/* the time series: SB intervals over the span, every disk */
	w = (p->t1 - p->t0) / SB + ((p->t1 - p->t0) % SB != 0);
	if (!w)
		w = 1;
	if (iot_series_init(&p->ss, p->src, p->disk, p->t0, p->t0,
			    p->t1, w, p->sw.maxlat, 0, NULL, NULL))
		goto nomem;
	p->seek = calloc((size_t)p->ss.nd * NCLASS * SEEK_W * SEEK_H,
			 sizeof(*p->seek));
	if (!p->seek)
		goto nomem;
	return 0;
nomem:
	iot_err("out of memory");
	return 1;
}

/**
 * plot_svg() - the seven panels as one SVG document.
 * @p: what they are drawn from.
 * @fp: output.
 *
 * The panels are written to memory first: the image's height is known
 * after them.
 *
 * Return: 0, or -1 out of memory.
 */
static int plot_svg(const struct plot *p, FILE *fp)
{
	char names[512], name[IOT_TEXT_ROOM(IOTRACE_NAME_LEN)], span[32];
	struct svg g = { NULL, 0 };
	unsigned int d, nd = 0;
	size_t len = 0, at = 0;
	char *body = NULL;
	int y, what;

	g.fp = open_memstream(&body, &len);
	if (!g.fp)
		return -1;
	names[0] = 0;
	for (d = 0; d < p->src->nr_disks; d++)
		if (p->disk < 0 || (int)d == p->disk) {
			svg_name_str(p->src->disks[d].name, name, sizeof(name));
			if (at < sizeof(names))
				at += snprintf(names + at, sizeof(names) - at,
					       "%s ", name);
			nd++;
		}
	human(U_TIME, (double)(p->t1 - p->t0), span, sizeof(span));
	/* a long list of disks: their number */
	if (at >= sizeof(names) || text_w(names) > W - PL - 300)
		snprintf(names, sizeof(names), "%u disks ", nd);
	text_open(&g, "title", PL, 22, "t");
	fprintf(g.fp, "iotrace: %s(%llu requests over %s)</text>\n", names,
		(unsigned long long)p->n, span);
	y = heat_map(&g, p, 44);
	y = seek_plot(&g, p, y);
	for (what = TS_IOPS; p->ss.nd && what <= TS_INFLIGHT; what++)
		y = series_panel(&g, p, what, y);
	y = hist_panel(&g, p->h, y);
	if (fclose(g.fp)) {
		free(body);
		return -1;
	}
	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		W, y, W, y);
	fprintf(fp, "<style>text{font-family:sans-serif;font-size:12px}");
	fprintf(fp, ".t{font-size:14px;font-weight:bold}.c{text-anchor:middle}");
	fprintf(fp, ".r{text-anchor:end}.s{font-weight:bold}.v{font-size:11px}</style>\n");
	fprintf(fp, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
	fwrite(body, 1, len, fp);
	fprintf(fp, "</svg>\n");
	free(body);
	return 0;
}

int cmd_plot(struct iot_opts *o, int argc, char **argv)
{
	struct iot_src src;
	struct plot *p;
	FILE *fp;
	int rc = 1;

	if (argc != 1) {
		iot_err("plot needs one DISK or FILE argument (plot -f svg FILE -o OUT.svg)");
		return 2;
	}
	if (o->xfmt && strcmp(o->xfmt, "svg")) {
		iot_err("plot -f %s: unknown format (use svg)", o->xfmt);
		return 2;
	}
	if (cmd_src_open(&src, argv[0]))
		return 1;
	p = calloc(1, sizeof(*p));
	if (!p) {
		iot_err("out of memory");
		goto out;
	}
	/* --from/--to +T: main()'s options, made times of this source */
	cmd_src_times(o, &src);
	p->src = &src;
	p->disk = -1;
	p->t0 = UINT64_MAX;
	p->lat_lo = UINT64_MAX;
	if (o->disk) {
		p->disk = cmd_src_disk(&src, o->disk);
		if (p->disk < 0) {
			rc = 2;
			goto out;
		}
	}
	p->sw.o = o;
	p->sw.src = &src;
	p->sw.disk = p->disk;
	p->sw.pre = plot_pre;
	p->sw.start = plot_start;
	p->sw.each = plot_each;
	p->sw.arg = p;
	rc = iot_sweep_run(&p->sw);
	if (rc)
		goto out;
	/* seven empty panels would say nothing: no image, and why */
	if (!p->n) {
		iot_err("plot: no request of %s to draw (none there, or none that the filters and --disk keep): no image written",
			src.label);
		rc = 1;
		goto out;
	}
	iot_series_end(&p->ss);
	iot_series_late(&p->ss, src.label);
	if (p->ss.nomem) {
		iot_err("out of memory");
		rc = 1;
		goto out;
	}
	fp = x_open_out(o->out);
	if (!fp) {
		rc = 1;
		goto out;
	}
	if (plot_svg(p, fp)) {
		iot_err("out of memory");
		rc = 1;
	}
	if (fp != stdout && iot_out_close(fp, o->out))
		rc = 1;
out:
	if (p) {
		iot_series_free(&p->ss);
		free(p->seek);
	}
	free(p);
	iot_src_close(&src);
	return rc;
}
