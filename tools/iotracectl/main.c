// SPDX-License-Identifier: GPL-2.0
/*
 * iotracectl - read and record iotrace's per-disk I/O flight recorder.
 * main(): options and the table of subcommands.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"

/**
 * struct iot_cmd - one subcommand.
 * @name: its name.
 * @fn: entry point, gets the arguments after the options.
 * @fmts: output formats it accepts (bit per enum iot_fmt).
 * @usage: argument synopsis.
 * @help: one line of help.
 */
struct iot_cmd {
	const char *name;
	int (*fn)(struct iot_opts *o, int argc, char **argv);
	unsigned int fmts;
	const char *usage;
	const char *help;
};

#define F(x) (1u << (x))

static const struct iot_cmd cmds[] = {
	{ "list", cmd_list, F(FMT_NORMAL) | F(FMT_JSON) | F(FMT_CSV), "",
	  "traced disks and their state" },
	{ "show", cmd_show, F(FMT_NORMAL) | F(FMT_JSON) | F(FMT_CSV) |
	  F(FMT_HEX) | F(FMT_BINARY), "DISK|FILE [filters]",
	  "one line per request, decoded" },
	{ "stats", cmd_stats, F(FMT_NORMAL) | F(FMT_JSON),
	  "DISK|FILE [filters] [--interval S [--count N]]",
	  "per-operation counts, throughput, latency percentiles, histograms" },
	{ "inflight", cmd_inflight, F(FMT_NORMAL) | F(FMT_JSON) | F(FMT_CSV),
	  "DISK", "commands outstanding now, oldest first" },
	{ "record", cmd_record, 0,
	  "DISK... -o FILE [--duration S] [--size BYTES]",
	  "stream live rings to a trace file" },
	{ "enable", cmd_nl_enable, 0, "DISK...", "start tracing" },
	{ "disable", cmd_nl_disable, 0, "DISK...", "stop tracing" },
	{ "clear", cmd_nl_clear, 0, "DISK...", "empty the ring" },
	{ "resize", cmd_nl_resize, 0, "DISK SIZE",
	  "replace the ring by one of SIZE bytes, live (K, M, G)" },
	{ "filter", cmd_nl_filter, 0,
	  "DISK [ops=L] [sectors=A-B] [min-bytes=N]|off",
	  "record only matching requests (kernel side)" },
	{ "state", cmd_nl_state, F(FMT_NORMAL) | F(FMT_JSON), "[DISK...]",
	  "kernel state and counters, totals over resizes (netlink)" },
	{ "events", cmd_nl_events, F(FMT_NORMAL) | F(FMT_JSON),
	  "[--count N] [--duration S]",
	  "print disk added/removed and ring overflow events" },
	{ "nvme-layout", cmd_nl_nvme_layout, 0, "[--show] [--quiet]",
	  "give the module NVMe status offsets from nvme_core's BTF" },
	{ "export", cmd_export, 0,
	  "DISK|FILE -f blktrace|fio|fio3|perfetto|csv [-o OUT] [filters]",
	  "write the records for blkparse/btt, fio --read_iolog, Perfetto, CSV" },
	{ "plot", cmd_plot, 0, "DISK|FILE [-f svg] [-o OUT.svg] [filters]",
	  "latency heat map, seek plot and latency histogram as SVG" },
};

static const char *const fmt_names[] = {
	[FMT_NORMAL] = "normal", [FMT_JSON] = "json", [FMT_CSV] = "csv",
	[FMT_HEX] = "hex", [FMT_BINARY] = "binary",
};

static void usage(FILE *fp)
{
	size_t i;

	fprintf(fp, "usage: iotracectl COMMAND [options] ARGS\n\ncommands:\n");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(fp, "  %-11s %-44s %s\n", cmds[i].name, cmds[i].usage,
			cmds[i].help);
	fprintf(fp, "\noptions:\n"
		"  -o, --output FMT     normal, json, csv, hex, binary (where the command has it)\n"
		"  -o, -w FILE          record: the trace file to write\n"
		"      --op LIST        only these operations (read,write,flush,discard,...)\n"
		"      --status S       ok, error, or an errno name (EIO, ETIMEDOUT, ...)\n"
		"      --lat-min US     only requests slower than US microseconds\n"
		"      --sector A-B     only requests starting in sectors [A, B)\n"
		"      --from T --to T  only requests completed in [T, T) seconds (TIME_S column)\n"
		"      --disk NAME      only this disk of a multi-disk trace file\n"
		"      --realtime       show: trace-file times as UTC (from the file's clock anchor)\n"
		"      --show           nvme-layout: print what nvme_core's BTF says, give nothing\n"
		"      --quiet          nvme-layout: print nothing (udev; the exit status tells)\n"
		"      --interval S     stats: report every S seconds (live disks)\n"
		"      --count N        stats: stop after N reports\n"
		"      --duration S     record: stop after S seconds\n"
		"      --size BYTES     record: stop once the file reaches BYTES (K, M, G suffixes)\n"
		"  -f, --format FMT     export: blktrace, fio, fio3, perfetto, csv; plot: svg\n"
		"  -o FILE              export, plot: output (stdout if none; blktrace: DIR/NAME prefix)\n"
		"\niotracectl --version prints the tool's version and the ABI versions it reads.\n"
		"A DISK is a name under $IOTRACE_DEBUGFS (default /sys/kernel/debug/iotrace).\n"
		"A FILE is a trace file from 'record' or a ring copy (cat .../DISK/ring > FILE).\n");
}

static int parse_double(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno || end == s || *end || isnan(*v) || *v < 0 ? -1 : 0;
}

static int parse_u64(const char *s, uint64_t *v, int suffixes)
{
	char *end;

	if (*s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	if (suffixes && *end) {
		int sh = *end == 'K' || *end == 'k' ? 10 :
			*end == 'M' || *end == 'm' ? 20 :
			*end == 'G' || *end == 'g' ? 30 : -1;

		if (sh < 0 || end[1] || *v > (UINT64_MAX >> sh))
			return -1;
		*v <<= sh;
		end++;
	}
	return *end ? -1 : 0;
}

static int parse_status(struct iot_opts *o, const char *s)
{
	static const struct { const char *n; int e; } names[] = {
		{ "EIO", EIO }, { "ENOSPC", ENOSPC }, { "ETIMEDOUT", ETIMEDOUT },
		{ "ENOLINK", ENOLINK }, { "EOPNOTSUPP", EOPNOTSUPP },
		{ "ENOMEM", ENOMEM }, { "EAGAIN", EAGAIN }, { "EBADE", EBADE },
		{ "ENODATA", ENODATA }, { "EILSEQ", EILSEQ },
		{ "EREMOTEIO", EREMOTEIO }, { "ENXIO", ENXIO },
		{ "ENODEV", ENODEV }, { "EBUSY", EBUSY }, { "EINVAL", EINVAL },
		{ "EPROTO", EPROTO }, { "ETIME", ETIME },
	};
	uint64_t v;
	size_t i;

	if (*s == '-')
		s++;
	if (!strcmp(s, "ok")) {
		o->status = 1;
		return 0;
	}
	if (!strcmp(s, "error")) {
		o->status = 2;
		return 0;
	}
	o->status = 3;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(s, names[i].n)) {
			o->status_errno = names[i].e;
			return 0;
		}
	if (parse_u64(s, &v, 0) || !v || v > 4095)
		return -1;
	o->status_errno = (int)v;
	return 0;
}

static int parse_ops(struct iot_opts *o, const char *s)
{
	char *d = strdup(s), *tok, *save = NULL;
	int ret = 0;

	if (!d)
		return -1;
	for (tok = strtok_r(d, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int op = iot_op_parse(tok);

		if (op < 0) {
			ret = -1;
			break;
		}
		o->op_mask |= 1u << iot_stats_slot(op);
	}
	free(d);
	return ret;
}

enum {
	OPT_OP = 256, OPT_STATUS, OPT_LAT, OPT_SECTOR, OPT_FROM, OPT_TO,
	OPT_DISK, OPT_INTERVAL, OPT_COUNT, OPT_DURATION, OPT_SIZE, OPT_POLL,
	OPT_REALTIME, OPT_SHOW, OPT_QUIET,
};

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "write", required_argument, NULL, 'w' },
	{ "help", no_argument, NULL, 'h' },
	{ "format", required_argument, NULL, 'f' },
	{ "op", required_argument, NULL, OPT_OP },
	{ "status", required_argument, NULL, OPT_STATUS },
	{ "lat-min", required_argument, NULL, OPT_LAT },
	{ "sector", required_argument, NULL, OPT_SECTOR },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "disk", required_argument, NULL, OPT_DISK },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "poll-ms", required_argument, NULL, OPT_POLL },
	{ "realtime", no_argument, NULL, OPT_REALTIME },
	{ "show", no_argument, NULL, OPT_SHOW },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	struct iot_opts o = {
		.sec_hi = UINT64_MAX, .to_ns = UINT64_MAX, .poll_ms = 2,
	};
	const struct iot_cmd *cmd = NULL;
	const char *fmt = NULL;
	double d;
	uint64_t v;
	size_t i;
	int c;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("iotracectl %s (ring ABI %u.%u, trace file %u.%u, netlink %u)\n",
		       IOTRACE_VERSION, IOTRACE_ABI_MAJOR, IOTRACE_ABI_MINOR,
		       IOTRACE_FILE_MAJOR, IOTRACE_FILE_MINOR,
		       IOTRACE_GENL_VERSION);
		return 0;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			cmd = &cmds[i];
	if (!cmd) {
		iot_err("unknown command '%s' (run 'iotracectl --help' for the list)",
			argv[1]);
		return 2;
	}
	argc--;
	argv++;
	/* options may come after positional arguments */
	while ((c = getopt_long(argc, argv, "o:w:hf:", long_opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			fmt = optarg;
			break;
		case 'w':
			o.out = optarg;
			break;
		case 'f':
			o.xfmt = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case OPT_OP:
			if (parse_ops(&o, optarg)) {
				iot_err("--op %s: unknown operation (use read, write, flush, discard, secerase, wzeroes, drv_in, drv_out, ...)",
					optarg);
				return 2;
			}
			break;
		case OPT_STATUS:
			if (parse_status(&o, optarg)) {
				iot_err("--status %s: use ok, error, an errno name like EIO, or a number",
					optarg);
				return 2;
			}
			break;
		case OPT_LAT:
			if (parse_double(optarg, &d)) {
				iot_err("--lat-min %s: not a number of microseconds",
					optarg);
				return 2;
			}
			o.lat_min_ns = (uint64_t)(d * 1000.0);
			o.have_lat = 1;
			break;
		case OPT_SECTOR: {
			char *dash = strchr(optarg, '-');

			if (!dash) {
				iot_err("--sector %s: use START-END", optarg);
				return 2;
			}
			*dash = 0;
			if (parse_u64(optarg, &o.sec_lo, 0) ||
			    parse_u64(dash + 1, &o.sec_hi, 0) ||
			    o.sec_hi <= o.sec_lo) {
				iot_err("--sector: use START-END with START < END (sectors of 512 bytes)");
				return 2;
			}
			break;
		}
		case OPT_FROM:
		case OPT_TO:
			if (parse_double(optarg, &d)) {
				iot_err("--%s %s: not a time in seconds",
					c == OPT_FROM ? "from" : "to", optarg);
				return 2;
			}
			if (c == OPT_FROM)
				o.from_ns = (uint64_t)llround(d * 1e9);
			else
				o.to_ns = (uint64_t)llround(d * 1e9);
			break;
		case OPT_DISK:
			o.disk = optarg;
			break;
		case OPT_INTERVAL:
			if (parse_double(optarg, &o.interval) ||
			    o.interval <= 0) {
				iot_err("--interval %s: a positive number of seconds",
					optarg);
				return 2;
			}
			break;
		case OPT_COUNT:
			if (parse_u64(optarg, &v, 0) || !v || v > 1000000000) {
				iot_err("--count %s: a positive number", optarg);
				return 2;
			}
			o.count = (long)v;
			break;
		case OPT_DURATION:
			if (parse_double(optarg, &o.duration) ||
			    o.duration <= 0) {
				iot_err("--duration %s: a positive number of seconds",
					optarg);
				return 2;
			}
			break;
		case OPT_SIZE:
			if (parse_u64(optarg, &o.size, 1) || !o.size) {
				iot_err("--size %s: a positive byte count (K, M, G suffixes)",
					optarg);
				return 2;
			}
			break;
		case OPT_REALTIME:
			o.realtime = 1;
			break;
		case OPT_SHOW:
		case OPT_QUIET:
			if (cmd->fn != cmd_nl_nvme_layout) {
				iot_err("--%s is an option of nvme-layout only",
					c == OPT_SHOW ? "show" : "quiet");
				return 2;
			}
			if (c == OPT_SHOW)
				o.show = 1;
			else
				o.quiet = 1;
			break;
		case OPT_POLL:
			if (parse_u64(optarg, &v, 0) || !v || v > 10000) {
				iot_err("--poll-ms %s: 1 to 10000", optarg);
				return 2;
			}
			o.poll_ms = (unsigned int)v;
			break;
		default:
			iot_err("run 'iotracectl --help' for the options");
			return 2;
		}
	}
	if (o.from_ns >= o.to_ns) {
		iot_err("--from must be before --to");
		return 2;
	}
	if (fmt && cmd->fn == cmd_record) {
		/* record -o FILE: the output is the trace file */
		if (o.out) {
			iot_err("record: give the trace file once (-o FILE or -w FILE)");
			return 2;
		}
		o.out = fmt;
		fmt = NULL;
	}
	if (cmd->fn == cmd_export || cmd->fn == cmd_plot) {
		/* export/plot -o FILE: the output file */
		if (fmt && o.out) {
			iot_err("%s: give the output once (-o FILE)", cmd->name);
			return 2;
		}
		if (fmt)
			o.out = fmt;
		fmt = NULL;
	} else if (o.xfmt) {
		iot_err("%s has no -f option (only export and plot have)",
			cmd->name);
		return 2;
	}
	if (fmt) {
		for (i = 0; i < sizeof(fmt_names) / sizeof(fmt_names[0]); i++)
			if (!strcmp(fmt, fmt_names[i]))
				break;
		if (i == sizeof(fmt_names) / sizeof(fmt_names[0]) ||
		    !(cmd->fmts & F(i))) {
			char list[64] = "";

			for (i = 0; i < sizeof(fmt_names) / sizeof(fmt_names[0]); i++)
				if (cmd->fmts & F(i)) {
					strcat(list, " ");
					strcat(list, fmt_names[i]);
				}
			if (!cmd->fmts)
				iot_err("%s has no -o output format", cmd->name);
			else
				iot_err("%s -o %s: not a format of this command (it has:%s)",
					cmd->name, fmt, list);
			return 2;
		}
		o.fmt = (enum iot_fmt)i;
	}
	return cmd->fn(&o, argc - optind, argv + optind);
}
