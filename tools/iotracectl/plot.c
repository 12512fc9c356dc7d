// SPDX-License-Identifier: GPL-2.0
/*
 * plot -f svg: one self-contained SVG (no scripts, fonts or images from
 * elsewhere) with seven panels: a latency-over-time heat map, an LBA-over-
 * time seek plot, the time series of stats --interval (IOPS, MB/s, p99
 * latency and requests in flight, one line per disk and operation) and
 * the latency histogram.  Every panel names its axes
 * and units, and the colours are explained in the panel titles.
 *
 * A trace file is read twice (iot_sweep_run()): first for the scales
 * (the span, the latencies', the sectors'), then each panel takes its
 * cells from every request, so that memory does not grow with the file.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "series.h"

#define W		960	/* image width */
#define PL		90	/* plot area left */
#define PW		820	/* plot area width */
#define PH		220	/* plot area height */
#define TB		100	/* time bins of the heat map */
#define LB		40	/* latency bins of the heat map */
#define SEEK_W		410	/* seek plot cells across */
#define SEEK_H		110	/* and down */

/* A duration in ns as a short label (ns, us, ms, s). */
static void dur_label(double ns, char *out, size_t len)
{
	if (ns < 1e3)
		snprintf(out, len, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(out, len, "%.3gus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(out, len, "%.3gms", ns / 1e6);
	else
		snprintf(out, len, "%.3gs", ns / 1e9);
}

/* A tick step of 1, 2 or 5 times a power of ten for about 8 ticks. */
static double nice_step(double span)
{
	double s = pow(10, floor(log10(span / 8))), m = span / 8 / s;

	return m <= 1 ? s : m <= 2 ? 2 * s : m <= 5 ? 5 * s : 10 * s;
}

/*
 * A disk's name in the image: as the text outputs print it (no control
 * character, which XML does not allow, no byte that is not UTF-8), and
 * '<', '&' and '>' as '_'.
 */
static void svg_name(FILE *fp, const char *name)
{
	char t[IOT_TEXT_ROOM(IOTRACE_NAME_LEN)], *p;

	iot_text_str(t, sizeof(t), name);
	for (p = t; *p; p++)
		fputc(*p == '<' || *p == '&' || *p == '>' ? '_' : *p, fp);
}

static void panel_frame(FILE *fp, int y0, const char *title)
{
	fprintf(fp, "<g transform=\"translate(0,%d)\">\n", y0);
	fprintf(fp, "<text x=\"%d\" y=\"-12\" class=\"t\">%s</text>\n", PL,
		title);
	fprintf(fp, "<rect x=\"%d\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#000\"/>\n",
		PL, PW, PH);
}

/* Time axis (seconds from the first request) under a panel. */
static void time_axis(FILE *fp, double span_s)
{
	double st = nice_step(span_s > 0 ? span_s : 1), t;

	for (t = 0; t <= span_s * 1.0000001; t += st) {
		double x = PL + (span_s > 0 ? t / span_s : 0) * PW;

		fprintf(fp, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\"/>",
			x, PH, x, PH + 5);
		fprintf(fp, "<text x=\"%.1f\" y=\"%d\" class=\"c\">%g</text>\n",
			x, PH + 18, t);
	}
	fprintf(fp, "<text x=\"%d\" y=\"%d\" class=\"c\">time since the first request (s)</text>\n",
		PL + PW / 2, PH + 36);
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
 * @lat_lo: the shortest latency (UINT64_MAX: none).
 * @lat_hi: the longest.
 * @smax: the sector after the highest request (seek_end()).
 * @llo: the heat map's lowest decade (log10 ns).
 * @lhi: its highest.
 * @cnt: heat map cells.
 * @seen: seek plot cells, a bit per operation class.
 * @h: latency histogram (the bins of stats).
 * @ss: the time series.
 */
struct plot {
	struct iot_src *src;
	int disk;
	struct iot_sweep sw;
	uint64_t n, t0, t1, lat_lo, lat_hi, smax;
	double llo, lhi;
	uint64_t cnt[TB][LB];
	uint8_t *seen;
	uint64_t h[IOT_LAT_BINS];
	struct iot_series_set ss;
};

static uint64_t seek_end(const struct iotrace_record *r);

/* pass 1: the span and the scales of the requests drawn */
static int plot_pre(void *arg, unsigned int disk,
		    const struct iotrace_record *r)
{
	struct plot *p = arg;
	uint64_t s = xrec_start(r), e = s, l;

	(void)disk;
	if (!iot_filter(p->sw.o, r))
		return 0;
	p->n++;
	/* to the last completion or start (a start after its completion too) */
	if (r->rflags & IOTRACE_RF_COMPLETE && r->complete_ns > e)
		e = r->complete_ns;
	if (s < p->t0)
		p->t0 = s;
	if (e > p->t1)
		p->t1 = e;
	if (seek_end(r) > p->smax)
		p->smax = seek_end(r);
	if (!iot_rec_has_lat(r))
		return 0;
	l = r->complete_ns - r->issue_ns;
	if (l < p->lat_lo)
		p->lat_lo = l;
	if (l > p->lat_hi)
		p->lat_hi = l;
	return 0;
}

static void heat_add(struct plot *p, const struct iotrace_record *r)
{
	double span_ns = (double)(p->t1 - p->t0), l;
	int a, b;

	if (!iot_rec_has_lat(r))
		return;
	l = log10((double)(r->complete_ns - r->issue_ns > 0 ?
			   r->complete_ns - r->issue_ns : 1));
	a = span_ns > 0 ? cell_of((r->issue_ns - p->t0) / span_ns * TB, TB) : 0;
	b = cell_of((l - p->llo) / (p->lhi - p->llo) * LB, LB);
	p->cnt[a][b]++;
}

static void heat_map(FILE *fp, const struct plot *p, int y0)
{
	double llo = p->llo, lhi = p->lhi;
	char title[256], col[16], lab[32];
	uint64_t mx = 0;
	int a, b;

	for (a = 0; a < TB; a++)
		for (b = 0; b < LB; b++)
			if (p->cnt[a][b] > mx)
				mx = p->cnt[a][b];
	snprintf(title, sizeof(title),
		 "Device latency over time: darker cells hold more requests (darkest: %llu)",
		 (unsigned long long)mx);
	panel_frame(fp, y0, title);
	for (a = 0; a < TB; a++)
		for (b = 0; b < LB; b++) {
			if (!p->cnt[a][b])
				continue;
			heat_color(0.15 + 0.85 * log1p((double)p->cnt[a][b]) /
				   log1p((double)mx), col, sizeof(col));
			fprintf(fp, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"><title>%llu requests</title></rect>\n",
				PL + (double)a * PW / TB,
				PH - (double)(b + 1) * PH / LB,
				(double)PW / TB + 0.3, (double)PH / LB + 0.3,
				col, (unsigned long long)p->cnt[a][b]);
		}
	for (a = (int)llo; a <= (int)lhi; a++) {
		double y = PH - (a - llo) / (lhi - llo) * PH;

		dur_label(pow(10, a), lab, sizeof(lab));
		fprintf(fp, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#bbb\" stroke-dasharray=\"3,3\"/>",
			PL, y, PL + PW, y);
		fprintf(fp, "<text x=\"%d\" y=\"%.1f\" class=\"r\">%s</text>\n",
			PL - 6, y + 4, lab);
	}
	fprintf(fp, "<text transform=\"translate(20,%d) rotate(-90)\" class=\"c\">latency (log scale)</text>\n",
		PH / 2);
	time_axis(fp, (double)(p->t1 - p->t0) / 1e9);
	fprintf(fp, "</g>\n");
}

static const char *const op_colors[3] = { "#1f5fbf", "#d03020", "#707070" };

static int op_class(const struct iotrace_record *r)
{
	return r->op == IOTRACE_OP_READ || r->op == IOTRACE_OP_DRV_IN ? 0 :
	       r->op == IOTRACE_OP_WRITE ? 1 : 2;
}

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

static void seek_add(struct plot *p, const struct iotrace_record *r)
{
	double span_ns = (double)(p->t1 - p->t0);
	int a, b, c = op_class(r);

	if (r->sector == UINT64_MAX)
		return;
	a = span_ns > 0 ? cell_of((xrec_start(r) - p->t0) / span_ns * SEEK_W,
				  SEEK_W) : 0;
	b = cell_of((double)r->sector / p->smax * SEEK_H, SEEK_H);
	/* draw each (cell, op class) once */
	p->seen[b * SEEK_W + a] |= 1 << c;
}

static void seek_plot(FILE *fp, const struct plot *p, int y0)
{
	const uint8_t *seen = p->seen;
	uint64_t smax = p->smax;
	char lab[64];
	double st, s;
	int k;

	panel_frame(fp, y0, "Start sector (LBA) over time: <tspan fill=\"#1f5fbf\">&#9632; reads</tspan> <tspan fill=\"#d03020\">&#9632; writes</tspan> <tspan fill=\"#707070\">&#9632; other (flush, discard, ...)</tspan>");
	for (k = 0; k < 3; k++) {
		int a, b;

		fprintf(fp, "<g fill=\"%s\" fill-opacity=\"0.8\">\n", op_colors[k]);
		for (b = 0; b < SEEK_H; b++)
			for (a = 0; a < SEEK_W; a++)
				if (seen[b * SEEK_W + a] & (1 << k))
					fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"2\" height=\"2\"/>\n",
						PL + (a + 0.5) * PW / SEEK_W - 1,
						PH - (b + 0.5) * PH / SEEK_H - 1);
		fprintf(fp, "</g>\n");
	}
	st = nice_step((double)smax);
	for (s = 0; s <= (double)smax; s += st) {
		double y = PH - s / smax * PH;

		snprintf(lab, sizeof(lab), "%.4g", s);
		fprintf(fp, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#000\"/>",
			PL - 5, y, PL, y);
		fprintf(fp, "<text x=\"%d\" y=\"%.1f\" class=\"r\">%s</text>\n",
			PL - 6, y + 4, lab);
	}
	fprintf(fp, "<text transform=\"translate(20,%d) rotate(-90)\" class=\"c\">sector (512 B)</text>\n",
		PH / 2);
	time_axis(fp, (double)(p->t1 - p->t0) / 1e9);
	fprintf(fp, "</g>\n");
}

#define SB		100	/* intervals of the time-series panels */

enum { TS_IOPS, TS_MBPS, TS_P99, TS_INFLIGHT };

/* line colours by operation slot: reads and writes as in the seek plot */
static const char *ts_color(int k)
{
	static const char *const c[] = {
		"#1f5fbf", "#d03020", "#2a9d2a", "#e08a00", "#8a3fbf",
		"#00a0a0", "#c0308a", "#707070",
	};

	return k == IOT_NR_OPS - 1 ? "#404040" : c[k % 8];
}

/* the value of one series panel for one operation in one interval */
static double ts_value(const struct iot_series_op *o, uint64_t width,
		       int what, int *valid)
{
	*valid = 1;
	switch (what) {
	case TS_IOPS:
		return o->n / (width / 1e9);
	case TS_MBPS:
		return o->bytes / (width / 1e9) / 1e6;
	case TS_P99:
		*valid = o->lat_n > 0;
		return o->p99 / 1e3;
	default:
		return (double)o->inflight_ns / width;
	}
}

/*
 * One time-series panel: a line per disk and operation (colour by
 * operation, dashes by disk), over the intervals of @s.
 */
static void series_panel(FILE *fp, const struct iot_src *src,
			 const struct iot_series *s, unsigned int nd,
			 int what, int y0)
{
	static const char *const titles[] = {
		[TS_IOPS] = "IOPS over time (requests completed per second)",
		[TS_MBPS] = "Throughput over time (MB/s completed)",
		[TS_P99] = "p99 latency over time (issue to completion)",
		[TS_INFLIGHT] = "Requests in flight over time (average queue depth)",
	};
	static const char *const ylabels[] = {
		[TS_IOPS] = "IOPS", [TS_MBPS] = "MB/s",
		[TS_P99] = "p99 latency (us)", [TS_INFLIGHT] = "in flight",
	};
	static const char *const dashes[] = { "", "6,3", "2,2", "8,2,2,2" };
	double vmax = 0, st, v;
	unsigned int d;
	size_t b;
	int k, ok, any = 0;

	for (d = 0; d < nd; d++)
		for (b = 0; b < s[d].nb; b++)
			for (k = 0; k < IOT_NR_OPS; k++) {
				v = ts_value(&s[d].b[b * IOT_NR_OPS + k],
					     s[d].width, what, &ok);
				if (ok && v > vmax)
					vmax = v;
			}
	panel_frame(fp, y0, titles[what]);
	/* legend: the lines drawn */
	fprintf(fp, "<text x=\"%d\" y=\"14\">", PL + 6);
	for (d = 0; d < nd; d++)
		for (k = 0; k < IOT_NR_OPS; k++) {
			uint64_t n = 0;

			for (b = 0; b < s[d].nb; b++)
				n += s[d].b[b * IOT_NR_OPS + k].n;
			if (!n)
				continue;
			fprintf(fp, "<tspan fill=\"%s\">%s", ts_color(k),
				d < 4 && *dashes[d] ? "- - " : "&#8212; ");
			svg_name(fp, src->disks[s[d].disk].name);
			fprintf(fp, " %s </tspan>", k == IOT_NR_OPS - 1 ?
				"other" : iot_op_name(k));
			any = 1;
		}
	fprintf(fp, "%s</text>\n", any ? "" : "no completed request");
	if (vmax <= 0)
		vmax = 1;
	for (d = 0; d < nd; d++)
		for (k = 0; k < IOT_NR_OPS; k++) {
			uint64_t n = 0;
			int open = 0;

			for (b = 0; b < s[d].nb; b++)
				n += s[d].b[b * IOT_NR_OPS + k].n;
			if (!n)
				continue;
			for (b = 0; b < s[d].nb; b++) {
				double px = PL + (b + 0.5) * PW / s[d].nb;

				v = ts_value(&s[d].b[b * IOT_NR_OPS + k],
					     s[d].width, what, &ok);
				if (!ok) {
					if (open)
						fprintf(fp, "\"/>\n");
					open = 0;
					continue;
				}
				if (!open)
					fprintf(fp, "<polyline fill=\"none\" stroke=\"%s\" stroke-dasharray=\"%s\" points=\"",
						ts_color(k), *dashes[d % 4] ? dashes[d % 4] : "none");
				fprintf(fp, "%s%.1f,%.1f", open ? " " : "", px,
					PH - v / vmax * PH);
				open = 1;
			}
			if (open)
				fprintf(fp, "\"/>\n");
		}
	st = nice_step(vmax);
	for (v = 0; v <= vmax * 1.0000001; v += st) {
		double y = PH - v / vmax * PH;

		fprintf(fp, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#000\"/>",
			PL - 5, y, PL, y);
		fprintf(fp, "<text x=\"%d\" y=\"%.1f\" class=\"r\">%.4g</text>\n",
			PL - 6, y + 4, v);
	}
	fprintf(fp, "<text transform=\"translate(20,%d) rotate(-90)\" class=\"c\">%s</text>\n",
		PH / 2, ylabels[what]);
	time_axis(fp, s[0].nb * (double)s[0].width / 1e9);
	fprintf(fp, "</g>\n");
}

static void hist_panel(FILE *fp, const uint64_t *h, int y0)
{
	uint64_t mx = 0, n = 0, blo, bhi;
	int lo = IOT_LAT_BINS, hi = -1, k;
	char title[256], lab[32];
	double bw;

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
	panel_frame(fp, y0, title);
	if (hi < 0) {
		fprintf(fp, "<text x=\"%d\" y=\"%d\" class=\"c\">no completed request</text>\n</g>\n",
			PL + PW / 2, PH / 2);
		return;
	}
	bw = (double)PW / (hi - lo + 1);
	for (k = lo; k <= hi; k++) {
		double bh = mx ? (double)h[k] / mx * (PH - 20) : 0;
		double bx = PL + (k - lo) * bw;

		iot_lat_bin_range((unsigned int)k, &blo, &bhi);
		dur_label((double)blo, lab, sizeof(lab));
		fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#1f5fbf\"><title>%s",
			bx + 2, PH - bh, bw - 4, bh, lab);
		dur_label((double)bhi, lab, sizeof(lab));
		fprintf(fp, " to %s: %llu requests</title></rect>", lab,
			(unsigned long long)h[k]);
		dur_label((double)blo, lab, sizeof(lab));
		fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" class=\"c\">%llu</text>",
			bx + bw / 2, PH - bh - 4, (unsigned long long)h[k]);
		fprintf(fp, "<text x=\"%.1f\" y=\"%d\" class=\"c\">%s</text>\n",
			bx + bw / 2, PH + 18, lab);
	}
	fprintf(fp, "<text x=\"%d\" y=\"%d\" class=\"c\">latency, issue to completion (bar: from this value to twice it; the bins of stats)</text>\n",
		PL + PW / 2, PH + 36);
	fprintf(fp, "<text transform=\"translate(20,%d) rotate(-90)\" class=\"c\">requests</text>\n",
		PH / 2);
	fprintf(fp, "</g>\n");
}

static void plot_each(void *arg, const struct xrec *e)
{
	struct plot *p = arg;
	const struct iotrace_record *r = &e->r;

	heat_add(p, r);
	seek_add(p, r);
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
	if (!p->smax)
		p->smax = 1;
	p->seen = calloc(SEEK_W * SEEK_H, 1);
	/* the time series: SB intervals over the span, every disk */
	w = (p->t1 - p->t0) / SB + ((p->t1 - p->t0) % SB != 0);
	if (!w)
		w = 1;
	if (!p->seen || iot_series_init(&p->ss, p->src, p->disk, p->t0, p->t0,
					p->t1, w, p->sw.maxlat, NULL, NULL)) {
		iot_err("out of memory");
		return 1;
	}
	return 0;
}

/**
 * plot_svg() - the seven panels as one SVG document.
 * @p: what they are drawn from.
 * @fp: output.
 */
static void plot_svg(const struct plot *p, FILE *fp)
{
	int h = 7 * (PH + 90) + 60, what;
	unsigned int d;

	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		W, h, W, h);
	fprintf(fp, "<style>text{font-family:sans-serif;font-size:12px}.t{font-size:14px;font-weight:bold}.c{text-anchor:middle}.r{text-anchor:end}</style>\n");
	fprintf(fp, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
	fprintf(fp, "<text x=\"%d\" y=\"22\" class=\"t\">iotrace: ", PL);
	for (d = 0; d < p->src->nr_disks; d++)
		if (p->disk < 0 || (int)d == p->disk) {
			svg_name(fp, p->src->disks[d].name);
			fputc(' ', fp);
		}
	fprintf(fp, "(%llu requests over %.3f s)</text>\n",
		(unsigned long long)p->n, (p->t1 - p->t0) / 1e9);
	heat_map(fp, p, 70);
	seek_plot(fp, p, 70 + PH + 90);
	for (what = TS_IOPS; p->ss.nd && what <= TS_INFLIGHT; what++)
		series_panel(fp, p->src, p->ss.s, p->ss.nd, what,
			     70 + (2 + what) * (PH + 90));
	hist_panel(fp, p->h, 70 + 6 * (PH + 90));
	fprintf(fp, "</svg>\n");
}

int cmd_plot(struct iot_opts *o, int argc, char **argv)
{
	char err[IOT_ERR_LEN];
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
	if (iot_src_open(&src, argv[0], err, sizeof(err))) {
		iot_err("%s", err);
		return 1;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		iot_err("out of memory");
		goto out;
	}
	/* --from/--to +T: main()'s options, made times of this source */
	iot_src_times(o, &src);
	p->src = &src;
	p->disk = -1;
	p->t0 = UINT64_MAX;
	p->lat_lo = UINT64_MAX;
	if (o->disk) {
		p->disk = iot_src_disk(&src, o->disk);
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
	plot_svg(p, fp);
	if (fp != stdout && iot_out_close(fp, o->out))
		rc = 1;
out:
	if (p) {
		iot_series_free(&p->ss);
		free(p->seen);
	}
	free(p);
	iot_src_close(&src);
	return rc;
}
