// SPDX-License-Identifier: GPL-2.0
/*
 * iotracectl - read and record iotrace's per-disk I/O flight recorder.
 * main(): the table of subcommands, each with the options it takes.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include "cmd.h"
#include "macros.h"
#include "stats.h"
#include "watch.h"
#include "trigger.h"

/*
 * The options.  Every command has its own table (struct iot_cmd.opts,
 * a set of these bits): getopt_long() sees only the options of the
 * command, and one it does not take is refused, naming both.
 */
enum {
	OPT_OUTPUT = 'o', OPT_WRITE = 'w', OPT_HELP = 'h', OPT_FORMAT = 'f',
	OPT_OP = 256, OPT_STATUS, OPT_LAT, OPT_SECTOR, OPT_FROM, OPT_TO,
	OPT_DISK, OPT_INTERVAL, OPT_COUNT, OPT_DURATION, OPT_SIZE, OPT_POLL,
	OPT_REALTIME, OPT_SHOW, OPT_QUIET, OPT_JSONL, OPT_KERNEL, OPT_LISTEN,
	OPT_INCLUDE, OPT_EXCLUDE, OPT_TEXTFILE, OPT_ONCE, OPT_PID, OPT_COMM,
	OPT_CGROUP, OPT_TOP, OPT_STRICT, OPT_SYNC_INTERVAL, OPT_SYNC_BYTES,
	/* watch, snapshot, show --around-trigger (issue 21) */
	OPT_CONFIG = 400, OPT_WDIR, OPT_POST, OPT_EPISODE, OPT_MAXHOUR,
	OPT_MAXFILES, OPT_MAXBYTES, OPT_AROUND, OPT_STACK,
	/* previous (issue 53) */
	OPT_RELEASE, OPT_RINGS,
};

/* option bits of a command */
#define O_FMT		(1u << 0)	/* -o FMT: an output format */
#define O_OUTFILE	(1u << 1)	/* -o FILE: the output file */
#define O_WRITE		(1u << 2)	/* -w FILE: record's trace file */
#define O_FORMAT	(1u << 3)	/* -f FMT: export/plot format */
#define O_OP		(1u << 4)
#define O_STATUS	(1u << 5)
#define O_LAT		(1u << 6)
#define O_SECTOR	(1u << 7)
#define O_FROMTO	(1u << 8)
#define O_DISK		(1u << 9)
#define O_INTERVAL	(1u << 10)
#define O_COUNT		(1u << 11)
#define O_DURATION	(1u << 12)
#define O_SIZE		(1u << 13)
#define O_POLL		(1u << 14)
#define O_REALTIME	(1u << 15)
#define O_JSONL		(1u << 16)	/* --jsonl: JSON Lines */
#define O_FOLLOW	(1u << 17)	/* -f, --follow (show) */
#define O_SHOW		(1u << 18)	/* nvme-layout --show */
#define O_QUIET		(1u << 19)	/* nvme-layout, identify --quiet */
#define O_KERNEL	(1u << 20)	/* stats --kernel */
#define O_LISTEN	(1u << 21)	/* exporter --listen */
#define O_INCLUDE	(1u << 22)	/* exporter --disk-include */
#define O_EXCLUDE	(1u << 23)	/* exporter --disk-exclude */
#define O_TEXTFILE	(1u << 24)	/* exporter --textfile */
#define O_ONCE		(1u << 25)	/* exporter --once */
#define O_PID		(1u << 26)	/* --pid LIST */
#define O_COMM		(1u << 27)	/* --comm NAME */
#define O_CGROUP	(1u << 28)	/* --cgroup PATH|ID */
#define O_TOP		(1u << 29)	/* stats --top N */
#define O_STRICT	(1u << 30)	/* --strict: whole trace files only */
#define O_DURABLE		(1u << 31)	/* record --sync-interval, --sync-bytes */
#define O_FILTERS	(O_OP | O_STATUS | O_LAT | O_SECTOR | O_FROMTO | O_DISK | \
			 O_PID | O_COMM | O_CGROUP)
/* watch and snapshot (issue 21); the bits are 64 wide */
#define O_CONFIG	(1ull << 40)	/* --config FILE */
#define O_WATCH		(1ull << 41)	/* watch --dir, --post, --episode */
#define O_LIMITS	(1ull << 42)	/* watch --max-per-hour, -files, -bytes */
#define O_AROUND	(1ull << 43)	/* show --around-trigger[=N] */
#define O_STACK		(1ull << 44)	/* show --stack (issue 49) */
#define O_RELEASE	(1ull << 45)	/* previous --release (issue 53) */
#define O_RINGS		(1ull << 46)	/* previous --rings DIR */
#define O_TEXTINT	(1ull << 47)	/* exporter --interval (--textfile's) */

/**
 * struct iot_optdef - one option: its getopt_long() entry and its help.
 * @opt: the getopt_long() entry (name, argument, value).
 * @bit: its O_* bit.
 * @arg: argument name in the help ("" without one).
 * @help: one line of help.
 */
struct iot_optdef {
	struct option opt;
	unsigned long long bit;
	const char *arg;
	const char *help;
};

static const struct iot_optdef optdefs[] = {
	{ { "output", required_argument, NULL, 'o' }, O_FMT, "FMT",
	  "output format:" },
	{ { "output", required_argument, NULL, 'o' }, O_OUTFILE, "FILE",
	  "the output file (standard output if none or -)" },
	{ { "write", required_argument, NULL, 'w' }, O_WRITE, "FILE",
	  "the trace file to write (same as -o)" },
	{ { "format", required_argument, NULL, 'f' }, O_FORMAT, "FMT",
	  "the format:" },
	{ { "follow", no_argument, NULL, 'f' }, O_FOLLOW, "",
	  "a live DISK's requests as they complete, until SIGINT" },
	{ { "op", required_argument, NULL, OPT_OP }, O_OP, "LIST",
	  "only these operations (read,write,flush,discard,...,other)" },
	{ { "status", required_argument, NULL, OPT_STATUS }, O_STATUS, "S",
	  "ok, error, or an errno name (EIO, ETIMEDOUT, ...) or number" },
	{ { "lat-min", required_argument, NULL, OPT_LAT }, O_LAT, "US",
	  "only requests of at least US microseconds (0 to 1e12)" },
	{ { "sector", required_argument, NULL, OPT_SECTOR }, O_SECTOR, "A-B",
	  "only requests starting in sectors [A, B)" },
	{ { "from", required_argument, NULL, OPT_FROM }, O_FROMTO, "T",
	  "only requests completed at or after T seconds (TIME_S)" },
	{ { "to", required_argument, NULL, OPT_TO }, O_FROMTO, "T",
	  "only requests completed before T seconds" },
	{ { "disk", required_argument, NULL, OPT_DISK }, O_DISK, "NAME",
	  "only this disk of a multi-disk trace file" },
	{ { "pid", required_argument, NULL, OPT_PID }, O_PID, "LIST",
	  "only requests submitted by these processes (0: the kernel's own, or unknown)" },
	{ { "comm", required_argument, NULL, OPT_COMM }, O_COMM, "NAME",
	  "only requests of processes of this command name (as the kernel noted it)" },
	{ { "cgroup", required_argument, NULL, OPT_CGROUP }, O_CGROUP, "PATH|ID",
	  "only requests charged to this cgroup v2 (a directory, or its id)" },
	{ { "top", required_argument, NULL, OPT_TOP }, O_TOP, "N",
	  "processes in the per-process table (0 to 1000, default 10)" },
	{ { "strict", no_argument, NULL, OPT_STRICT }, O_STRICT, "",
	  "refuse a trace FILE that is cut short or damaged (default: read what it holds, exit 3)"
	},
	{ { "realtime", no_argument, NULL, OPT_REALTIME }, O_REALTIME, "",
	  "a trace FILE's times as UTC (normal output)" },
	{ { "jsonl", no_argument, NULL, OPT_JSONL }, O_JSONL, "",
	  "with -o json: one JSON object per line, not one document" },
	{ { "interval", required_argument, NULL, OPT_INTERVAL }, O_INTERVAL,
	  "S", "report every S seconds (a live DISK), or per S of a FILE (s, ms, us, ns, m, h)" },
	{ { "count", required_argument, NULL, OPT_COUNT }, O_COUNT, "N",
	  "stop after N reports, events or records (show -f)" },
	{ { "duration", required_argument, NULL, OPT_DURATION }, O_DURATION,
	  "S", "stop after S seconds" },
	{ { "size", required_argument, NULL, OPT_SIZE }, O_SIZE, "BYTES",
	  "stop once the file reaches BYTES (K, M, G suffixes)" },
	{ { "sync-interval", required_argument, NULL, OPT_SYNC_INTERVAL },
	  O_DURABLE, "S",
	  "fdatasync what was written within S seconds (default 1; s, ms, us, ns, m, h; 0: at the end only)"
	},
	{ { "sync-bytes", required_argument, NULL, OPT_SYNC_BYTES }, O_DURABLE,
	  "BYTES",
	  "and once BYTES were written since the last (default 64M, K, M, G; 0: no such bound)"
	},
	{ { "poll-ms", required_argument, NULL, OPT_POLL }, O_POLL, "MS",
	  "poll the rings every MS milliseconds (1 to 10000, default 2)" },
	{ { "show", no_argument, NULL, OPT_SHOW }, O_SHOW, "",
	  "print what nvme_core's BTF says, give the module nothing" },
	{ { "quiet", no_argument, NULL, OPT_QUIET }, O_QUIET, "",
	  "print nothing (the udev rule; the exit status tells)" },
	{ { "kernel", no_argument, NULL, OPT_KERNEL }, O_KERNEL, "",
	  "the in-kernel metrics of DISK... (exact since their reset), not the ring" },
	{ { "listen", required_argument, NULL, OPT_LISTEN }, O_LISTEN,
	  "ADDR:PORT", "serve HTTP there (default 127.0.0.1:9661; [::1]:9661, *:9661)" },
	{ { "disk-include", required_argument, NULL, OPT_INCLUDE }, O_INCLUDE,
	  "REGEX", "only disks whose name matches (POSIX ERE, unanchored)" },
	{ { "disk-exclude", required_argument, NULL, OPT_EXCLUDE }, O_EXCLUDE,
	  "REGEX", "leave out disks whose name matches" },
	{ { "textfile", required_argument, NULL, OPT_TEXTFILE }, O_TEXTFILE,
	  "DIR", "write DIR/iotrace.prom (atomic rename) every --interval (default 15s), no HTTP" },
	{ { "interval", required_argument, NULL, OPT_INTERVAL }, O_TEXTINT, "S",
	  "with --textfile: rewrite the file every S (default 15s, at least 1ms; s, ms, us, ns, m, h)"
	},
	{ { "once", no_argument, NULL, OPT_ONCE }, O_ONCE, "",
	  "with --textfile: write the file once and exit" },
	{ { "config", required_argument, NULL, OPT_CONFIG }, O_CONFIG, "FILE",
	  "the configuration (default /etc/iotrace/iotrace.conf, if there)" },
	{ { "dir", required_argument, NULL, OPT_WDIR }, O_WATCH, "DIR",
	  "write the snapshots there (default /var/lib/iotrace)" },
	{ { "post", required_argument, NULL, OPT_POST }, O_WATCH, "S",
	  "records completed up to S after the trigger too (default 5s; 0 to 1h)" },
	{ { "episode", required_argument, NULL, OPT_EPISODE }, O_WATCH, "S",
	  "a disk's triggers within S of an episode's first are one snapshot (default 1s)" },
	{ { "max-per-hour", required_argument, NULL, OPT_MAXHOUR }, O_LIMITS,
	  "N", "snapshots started in any hour, at most (default 12)" },
	{ { "max-files", required_argument, NULL, OPT_MAXFILES }, O_LIMITS,
	  "N", "snapshot files kept, the oldest removed first (default 100)" },
	{ { "max-bytes", required_argument, NULL, OPT_MAXBYTES }, O_LIMITS,
	  "SIZE", "bytes of snapshot files kept (K, M, G, T; default 1G)" },
	{ { "around-trigger", optional_argument, NULL, OPT_AROUND }, O_AROUND,
	  "[=N]", "a snapshot FILE's N records each side of its trigger (default 20; =N joined)" },
	{ { "stack", no_argument, NULL, OPT_STACK }, O_STACK, "",
	  "the logical device (dm, md, partition) and sector of each request" },
	{ { "release", no_argument, NULL, OPT_RELEASE }, O_RELEASE, "",
	  "then free the module's copy of the previous boot's trace" },
	{ { "rings", required_argument, NULL, OPT_RINGS }, O_RINGS, "DIR",
	  "write each ring as DIR/DISK.ring (a ring copy)" },
};

#define NR_OPTDEFS	ARRAY_SIZE(optdefs)

/**
 * struct iot_cmd - one subcommand.
 * @name: its name.
 * @fn: entry point, gets the arguments after the options.
 * @opts: the options it takes (O_* bits); --help is always there.
 * @fmts: output formats of -o (bit per enum iot_fmt), with O_FMT.
 * @xfmts: formats of -f, with O_FORMAT.
 * @usage: argument synopsis.
 * @help: one line of help.
 */
struct iot_cmd {
	const char *name;
	int (*fn)(struct iot_opts *o, int argc, char **argv);
	unsigned long long opts;
	unsigned int fmts;
	const char *xfmts;
	const char *usage;
	const char *help;
};

#define F(x) (1u << (x))

static const struct iot_cmd cmds[] = {
	{ "list", cmd_list, O_FMT | O_JSONL, F(FMT_NORMAL) | F(FMT_JSON) | F(FMT_CSV),
	  NULL, "", "traced disks and their state" },
	{ "show", cmd_show, O_FMT | O_JSONL | O_FILTERS | O_REALTIME |
	  O_FOLLOW | O_COUNT | O_STRICT | O_AROUND | O_STACK,
	  F(FMT_NORMAL) | F(FMT_JSON) | F(FMT_CSV) | F(FMT_HEX) |
	  F(FMT_BINARY) | F(FMT_TRACE), NULL,
	  "DISK|FILE|- [filters] [--realtime] [--stack] | -f DISK [--count N] | FILE --around-trigger[=N]",
	  "one line per request, decoded" },
	{ "stats", cmd_stats, O_FMT | O_JSONL | O_FILTERS | O_INTERVAL | O_COUNT |
	  O_KERNEL | O_TOP | O_STRICT | O_STACK, F(FMT_NORMAL) | F(FMT_JSON) | F(FMT_CSV), NULL,
	  "DISK|FILE|- [filters] [--stack] [--interval S [--count N]] | --kernel DISK...",
	  "per-operation counts, throughput, latency percentiles, histograms" },
	{ "info", cmd_info, O_FMT | O_STRICT, F(FMT_NORMAL) | F(FMT_JSON), NULL,
	  "FILE|-", "a trace file's header: host, kernel, start/end, disks" },
	{ "inflight", cmd_inflight, O_FMT | O_JSONL,
	  F(FMT_NORMAL) | F(FMT_JSON) | F(FMT_CSV), NULL,
	  "DISK|FILE|-",
	  "commands outstanding now, oldest first (FILE: at a previous boot's end)" },
	{ "previous", cmd_previous, O_OUTFILE | O_RELEASE | O_RINGS, 0, NULL,
	  "[FILE] [-o TRACEFILE] [--rings DIR] [--release]",
	  "the boot that died: its rings and the requests in flight (persist=), or from a crash dump"
	},
	{ "record", cmd_record, O_OUTFILE | O_WRITE | O_DURATION | O_SIZE |
	  O_POLL | O_DURABLE, 0, NULL,
	  "DISK... -o FILE [--duration S] [--size BYTES] [--poll-ms MS] [--sync-interval S] [--sync-bytes BYTES]",
	  "stream live rings to a trace file" },
	{ "enable", cmd_nl_enable, 0, 0, NULL, "DISK...", "start tracing" },
	{ "disable", cmd_nl_disable, 0, 0, NULL, "DISK...", "stop tracing" },
	{ "clear", cmd_nl_clear, 0, 0, NULL, "DISK...", "empty the ring" },
	{ "resize", cmd_nl_resize, 0, 0, NULL, "DISK SIZE",
	  "replace the ring by one of SIZE bytes, live (K, M, G)" },
	{ "filter", cmd_nl_filter, 0, 0, NULL,
	  "DISK [ops=L] [sectors=A-B] [min-bytes=N]|off",
	  "record only matching requests (kernel side)" },
	{ "trigger", cmd_nl_trigger, 0, 0, NULL, IOT_TRIG_USAGE,
	  "flag and announce slow, failed or stuck requests (kernel side)" },
	{ "state", cmd_nl_state, O_FMT, F(FMT_NORMAL) | F(FMT_JSON), NULL,
	  "[DISK...]", "kernel state and counters, totals over resizes (netlink)" },
	{ "events", cmd_nl_events, O_FMT | O_COUNT | O_DURATION,
	  F(FMT_NORMAL) | F(FMT_JSON), NULL, "[--count N] [--duration S]",
	  "print disk added/removed, ring overflow and trigger events" },
	{ "reset-metrics", cmd_nl_reset_metrics, 0, 0, NULL, "DISK...",
	  "zero the in-kernel metrics (not the ring)" },
	{ "exporter", cmd_exporter, O_LISTEN | O_INCLUDE | O_EXCLUDE |
	  O_TEXTFILE | O_ONCE | O_TEXTINT, 0, NULL,
	  "[--listen ADDR:PORT] [--disk-include RE] [--disk-exclude RE] | --textfile DIR [--interval S] [--once]",
	  "the in-kernel metrics for Prometheus: HTTP /metrics or a textfile" },
	{ "nvme-layout", cmd_nl_nvme_layout, O_SHOW | O_QUIET, 0, NULL,
	  "[--show] [--quiet]",
	  "give the module NVMe status offsets from nvme_core's BTF" },
	{ "identify", cmd_nl_identify, O_QUIET, 0, NULL, "[--quiet] [DISK...]",
	  "give the module each disk's model, serial and wwn, kept for the next boot" },
	{ "export", cmd_export, O_FORMAT | O_OUTFILE | O_FILTERS | O_STRICT, 0,
	  "blktrace, fio, fio3, perfetto, pftrace, csv",
	  "DISK|FILE|- -f blktrace|fio|fio3|perfetto|pftrace|csv [-o OUT] [filters]",
	  "write the records for blkparse/btt, fio --read_iolog, Perfetto, CSV" },
	{ "diff", cmd_diff, O_FMT | O_FILTERS | O_STRICT, F(FMT_NORMAL) | F(FMT_JSON),
	  NULL, "A B [filters]",
	  "two DISKs or FILEs side by side per op and size: counts, IOPS, percentiles, histograms, KS test"
	},
	{ "plot", cmd_plot, O_FORMAT | O_OUTFILE | O_FILTERS | O_STRICT, 0, "svg",
	  "DISK|FILE|- [-f svg] [-o OUT.svg] [filters]",
	  "latency heat map, seek plot and latency histogram as SVG" },
	{ "watch", cmd_watch, O_CONFIG | O_WATCH | O_LIMITS, 0, NULL,
	  "[--config FILE] [--dir DIR] [--post S] [--episode S] [--max-per-hour N] [--max-files N] [--max-bytes SIZE] [DISK...]",
	  "the snapshot service: on each trigger, the ring before it and --post after it to a file"
	},
	{ "snapshot", cmd_snapshot, O_CONFIG, 0, NULL, "[--config FILE] [DISK]",
	  "ask the running watcher for a snapshot (of every watched disk without DISK)" },
};

#define NR_CMDS	ARRAY_SIZE(cmds)

static const char *const fmt_names[] = {
	[FMT_NORMAL] = "normal", [FMT_JSON] = "json", [FMT_CSV] = "csv",
	[FMT_HEX] = "hex", [FMT_BINARY] = "binary", [FMT_TRACE] = "trace",
};

#define NR_FMTS	ARRAY_SIZE(fmt_names)

static void print_usage(FILE *fp)
{
	size_t i;

	fprintf(fp, "usage: iotracectl COMMAND [options] ARGS\n\ncommands:\n");
	for (i = 0; i < NR_CMDS; i++)
		fprintf(fp, "  %-13s %-44s %s\n", cmds[i].name, cmds[i].usage,
			cmds[i].help);
	fprintf(fp, "\n'iotracectl COMMAND --help' lists the options of COMMAND.\n"
		"iotracectl --version prints the tool's version and the ABI versions it reads.\n"
		"A DISK is a name under $IOTRACE_DEBUGFS (default /sys/kernel/debug/iotrace).\n"
		"A FILE is a trace file from 'record' or a ring copy (cat .../DISK/ring > FILE);\n"
		"- reads one from standard input.\n");
}

/* iotracectl COMMAND --help: its synopsis and its options */
static void cmd_usage(const struct iot_cmd *cmd, FILE *fp)
{
	size_t i, k;

	fprintf(fp, "usage: iotracectl %s %s\n%s\n", cmd->name, cmd->usage,
		cmd->help);
	fprintf(fp, "\noptions:\n");
	for (i = 0; i < NR_OPTDEFS; i++) {
		const struct iot_optdef *d = &optdefs[i];
		char lhs[48];

		if (!(cmd->opts & d->bit))
			continue;
		if (d->opt.val < 256)
			snprintf(lhs, sizeof(lhs), "-%c, --%s %s", d->opt.val,
				 d->opt.name, d->arg);
		else
			snprintf(lhs, sizeof(lhs), "    --%s %s", d->opt.name,
				 d->arg);
		fprintf(fp, "  %-24s %s", lhs, d->help);
		if (d->bit == O_FMT)
			for (k = 0; k < NR_FMTS; k++)
				if (cmd->fmts & F(k))
					fprintf(fp, " %s", fmt_names[k]);
		if (d->bit == O_FORMAT)
			fprintf(fp, " %s", cmd->xfmts);
		fputc('\n', fp);
	}
	fprintf(fp, "  %-24s %s\n", "-h, --help", "this help");
}

/* the command that takes long option @name (or short @c), for a hint */
static const char *who_takes(const char *name, int c)
{
	size_t i, k;

	for (i = 0; i < NR_OPTDEFS; i++) {
		if (name ? strcmp(optdefs[i].opt.name, name) :
		    optdefs[i].opt.val != c)
			continue;
		for (k = 0; k < NR_CMDS; k++)
			if (cmds[k].opts & optdefs[i].bit)
				return cmds[k].name;
	}
	return NULL;
}

/* The option getopt_long() refused at argv[optind - 1], as typed. */
static void bad_option(const struct iot_cmd *cmd, char **argv, int c)
{
	const char *arg = argv[optind - 1], *who;
	char name[64];

	if (optopt && optopt < 256 && !(arg[0] == '-' && arg[1] == '-'))
		snprintf(name, sizeof(name), "-%c", optopt);
	else
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, "="),
			 arg);
	if (c == ':') {
		iot_err("%s %s: needs an argument (see 'iotracectl %s --help')",
			cmd->name, name, cmd->name);
		return;
	}
	who = name[1] == '-' ? who_takes(name + 2, 0) :
	      who_takes(NULL, (unsigned char)name[1]);
	if (who)
		iot_err("%s does not take %s (%s does; see 'iotracectl %s --help')",
			cmd->name, name, who, cmd->name);
	else
		iot_err("%s: unknown option %s (see 'iotracectl %s --help')",
			cmd->name, name, cmd->name);
}

/* Largest values of the numeric options (each fits its uint64_t in ns). */
#define LAT_MAX_US	1e12	/* --lat-min: 11.6 days */
#define TIME_MAX_S	1e10	/* --from, --to: CLOCK_MONOTONIC seconds */
#define SPAN_MAX_S	1e8	/* --interval, --duration: 3.2 years */

/*
 * --from/--to +T: T after the trace's start, seconds or a duration with
 * a unit (+2.5, +2.5s, +300ms, +20us, +100ns), in ns at @v.
 */
static int parse_offset(const char *opt, const char *s, uint64_t *v)
{
	char buf[64];
	uint64_t ns;
	size_t n = strlen(s + 1);

	if (n && n < sizeof(buf) - 1 &&
	    (isdigit((unsigned char)s[n]) || s[n] == '.'))
		snprintf(buf, sizeof(buf), "%ss", s + 1);	/* seconds */
	else
		snprintf(buf, sizeof(buf), "%s", s + 1);
	if (n >= sizeof(buf) - 1 || iot_parse_duration(buf, &ns) ||
	    ns > (uint64_t)(TIME_MAX_S * 1e9)) {
		iot_err("--%s %s: not a time after the trace's start (+SECONDS, or +N with ns, us, ms or s, up to +%.15g s)",
			opt, s, TIME_MAX_S);
		return -1;
	}
	*v = ns;
	return 0;
}

/*
 * --from/--to as a wall-clock time in UTC, YYYY-MM-DDTHH:MM:SS[.F][Z]
 * (or a space for the T), into CLOCK_REALTIME ns in @v: 0, or -1 (said).
 */
static int parse_wall(const char *opt, const char *s, uint64_t *v)
{
	int y, mo, d, h, mi, sec, n = 0;
	uint64_t frac = 0, scale = 1000000000ull;
	struct tm tm = { 0 };
	time_t t;

	if (sscanf(s, "%4d-%2d-%2d%*1[T ]%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi,
		   &sec, &n) != 6 || n != 19)
		goto bad;
	if (s[n] == '.') {
		for (n++; isdigit((unsigned char)s[n]); n++)
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(s[n] - '0') * scale;
			}
	}
	if (s[n] == 'Z')
		n++;
	if (s[n] || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
	    mi > 59 || sec > 60 || y < 1970)
		goto bad;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	t = timegm(&tm);
	if (t < 0)
		goto bad;
	*v = (uint64_t)t * 1000000000ull + frac;
	return 0;
bad:
	iot_err("--%s %s: not a wall-clock time (UTC: YYYY-MM-DDTHH:MM:SS[.F][Z])",
		opt, s);
	return -1;
}

/**
 * parse_range() - a number of @unit in [@lo, @hi] (@lo excluded if
 * @lo_open), or an error that names the option, the value and the range.
 * @opt: option name, for the message.
 * @s: the argument.
 * @lo: smallest value.
 * @lo_open: @lo itself is refused (a positive number).
 * @hi: largest value.
 * @unit: "seconds", "microseconds", for the message.
 * @v: the value.
 *
 * Return: 0, or -1 after printing the error.
 */
static int parse_range(const char *opt, const char *s, double lo, int lo_open,
		       double hi, const char *unit, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (end == s || *end || isnan(*v)) {
		iot_err("--%s %s: not a number of %s", opt, s, unit);
		return -1;
	}
	if (errno || !isfinite(*v) || *v > hi || *v < lo ||
	    (lo_open && *v <= lo)) {
		iot_err("--%s %s: out of range (%s%.15g to %.15g %s)", opt, s,
			lo_open ? "more than " : "", lo, hi, unit);
		return -1;
	}
	return 0;
}

/*
 * A duration in seconds, more than 0 and at most @hi: a number with an
 * optional unit, s (the default), ms, us, ns, m or h ("1s", "250ms").
 */
static int parse_dur(const char *opt, const char *s, double hi, double *v)
{
	static const struct { const char *u; double f; } units[] = {
		{ "", 1 }, { "s", 1 }, { "ms", 0.001 }, { "us", 0.000001 },
		{ "ns", 0.000000001 }, { "m", 60 }, { "h", 3600 },
	};
	char num[64], *end;
	size_t i, n = strlen(s);

	for (i = 0; i < ARRAY_SIZE(units); i++) {
		size_t ul = strlen(units[i].u);

		if (n <= ul || n - ul >= sizeof(num) ||
		    strcmp(s + n - ul, units[i].u))
			continue;
		memcpy(num, s, n - ul);
		num[n - ul] = 0;
		errno = 0;
		*v = strtod(num, &end);
		if (end == num || *end || isnan(*v) || strchr(num, ' '))
			continue;
		*v *= units[i].f;
		if (errno || !isfinite(*v) || *v <= 0 || *v > hi) {
			iot_err("--%s %s: out of range (more than 0 to %.15g seconds)",
				opt, s, hi);
			return -1;
		}
		return 0;
	}
	iot_err("--%s %s: not a duration (seconds, or a number with s, ms, us, ns, m or h)",
		opt, s);
	return -1;
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
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcasecmp(s, names[i].n)) {
			o->status_errno = names[i].e;
			return 0;
		}
	if (parse_u64(s, &v, 0) || !v || v > 4095)
		return -1;
	o->status_errno = (int)v;
	return 0;
}

/* --pid 123,456: thread group ids (0: the kernel's own I/O, or unknown) */
static int parse_pids(struct iot_opts *o, const char *s)
{
	char *d = strdup(s), *tok, *save = NULL;
	uint64_t v;
	int ret = 0;

	if (!d) {
		iot_err("out of memory");
		return -1;
	}
	for (tok = strtok_r(d, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (parse_u64(tok, &v, 0) || v > UINT32_MAX) {
			iot_err("--pid %s: '%s' is not a process id (0 to 4294967295; 0: the kernel's own I/O or unknown)",
				s, tok);
			ret = -1;
			break;
		}
		if (o->nr_pids == IOT_MAX_PIDS) {
			iot_err("--pid: at most %d process ids", IOT_MAX_PIDS);
			ret = -1;
			break;
		}
		o->pids[o->nr_pids++] = (uint32_t)v;
	}
	if (!ret && !o->nr_pids) {
		iot_err("--pid '%s': give one or more process ids, comma-separated",
			s);
		ret = -1;
	}
	free(d);
	return ret;
}

/*
 * --cgroup: a cgroup v2 directory (its inode number is the cgroup id the
 * kernel records), a name under /sys/fs/cgroup, or the id itself.
 */
static int parse_cgroup(const char *s, uint64_t *id)
{
	char path[4096];
	struct statfs sf;
	struct stat st;

	if (*s >= '0' && *s <= '9' && !parse_u64(s, id, 0) && *id)
		return 0;
	snprintf(path, sizeof(path), "%s%s", *s == '/' || *s == '.' ? "" :
		 "/sys/fs/cgroup/", s);
	if (stat(path, &st)) {
		iot_err("--cgroup %s: %s: %s (give a cgroup v2 directory, a path under /sys/fs/cgroup, or a cgroup id)",
			s, path, strerror(errno));
		return -1;
	}
	if (statfs(path, &sf) || sf.f_type != CGROUP2_SUPER_MAGIC ||
	    !S_ISDIR(st.st_mode)) {
		iot_err("--cgroup %s: %s is not a cgroup v2 directory (give one, or a cgroup id)",
			s, path);
		return -1;
	}
	*id = st.st_ino;
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

		if (!strcasecmp(tok, "other")) {
			/* what stats counts in its "other" row */
			o->op_mask |= 1u << (IOT_NR_OPS - 1);
			continue;
		}
		if (op < 0) {
			ret = -1;
			break;
		}
		o->op_mask |= 1u << iot_stats_slot(op);
	}
	free(d);
	return ret;
}

/* -o FMT: a format the command has */
static int parse_fmt(const struct iot_cmd *cmd, struct iot_opts *o,
		     const char *fmt)
{
	char list[64] = "";
	size_t i;

	for (i = 0; i < NR_FMTS; i++)
		if (!strcmp(fmt, fmt_names[i]))
			break;
	if (i < NR_FMTS && (cmd->fmts & F(i))) {
		o->fmt = (enum iot_fmt)i;
		return 0;
	}
	for (i = 0; i < NR_FMTS; i++)
		if (cmd->fmts & F(i)) {
			strcat(list, " ");
			strcat(list, fmt_names[i]);
		}
	iot_err("%s -o %s: not a format of this command (it has:%s)",
		cmd->name, fmt, list);
	return -1;
}

/*
 * A filter that takes one value, given twice, is refused (--op and --pid
 * take lists, and add up): the last one does not silently win.
 */
static int once(uint64_t *seen, int opt, const char *name, const char *arg)
{
	uint64_t bit = 1ull << (opt - OPT_OP);

	if (*seen & bit) {
		iot_err("--%s given twice: it takes one %s (--op and --pid take lists)",
			name, arg);
		return -1;
	}
	*seen |= bit;
	return 0;
}

/* write(2) all of @s to standard error, in a signal handler */
static void sig_say(const char *s)
{
	size_t n = strlen(s);
	ssize_t w;

	while (n) {
		w = write(STDERR_FILENO, s, n);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/*
 * A file read through its mapping (a ring or region copy, a crash dump)
 * that something cuts short while it is read faults past its new end (or
 * on a page that cannot be read): said, naming the file, instead of dying
 * of SIGBUS without a word; exit 1 (what stdio still buffers is lost).
 */
static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	const char *label = iot_src_mapped(si->si_addr);

	(void)sig;
	(void)uc;
	sig_say("iotracectl: ");
	if (label) {
		sig_say(label);
		sig_say(": ");
	}
	sig_say("the file was cut short (or could not be read) while it was read (SIGBUS): ");
	sig_say("read it again once nothing writes to it, or read a copy\n");
	_exit(1);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_sigaction = on_sigbus,
				.sa_flags = SA_SIGINFO };
	struct iot_opts o = {
		.sec_hi = UINT64_MAX, .to_ns = UINT64_MAX, .poll_ms = 2, .top = 10,
		.sync_interval = 1, .sync_bytes = 64ull << 20,
	};
	struct option lopts[NR_OPTDEFS + 2];
	char sopts[16] = ":h";
	const struct iot_cmd *cmd = NULL;
	unsigned int seen = 0;
	uint64_t seen_once = 0;
	size_t i, n = 0;
	double d;
	uint64_t ns = 0;
	uint64_t v;
	int c;

	/* standard output keeps the errno of a failed write (cmdutil.c) */
	iot_out_stdout();
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		print_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : iot_out_close(stdout, "standard output");
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		/* the rings it reads: the module's (2.x) and the older 1.x */
		printf("iotracectl %s (ring ABI %u.%u and %u.%u, trace file %u.%u, netlink %u)\n",
		       IOTRACE_VERSION, IOT_ABI_MAJOR2, IOT_ABI_MINOR2,
		       IOTRACE_ABI_MAJOR, IOTRACE_ABI_MINOR,
		       IOTRACE_FILE_MAJOR, IOTRACE_FILE_MINOR,
		       IOTRACE_GENL_VERSION);
		return iot_out_close(stdout, "standard output");
	}
	/* iotracectl help COMMAND = iotracectl COMMAND --help */
	c = !strcmp(argv[1], "help") ? 2 : 1;
	for (i = 0; i < NR_CMDS; i++)
		if (!strcmp(argv[c], cmds[i].name))
			cmd = &cmds[i];
	if (!cmd) {
		iot_err("unknown command '%s' (run 'iotracectl --help' for the list)",
			argv[c]);
		return 2;
	}
	if (c == 2) {
		cmd_usage(cmd, stdout);
		return iot_out_close(stdout, "standard output");
	}
	/* this command's option table */
	for (i = 0; i < NR_OPTDEFS; i++) {
		const struct iot_optdef *od = &optdefs[i];

		if (!(cmd->opts & od->bit))
			continue;
		lopts[n++] = od->opt;
		if (od->opt.val < 256 && !strchr(sopts, od->opt.val)) {
			size_t l = strlen(sopts);

			sopts[l] = (char)od->opt.val;
			sopts[l + 1] = od->opt.has_arg ? ':' : 0;
			sopts[l + 2] = 0;
		}
	}
	lopts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	lopts[n] = (struct option){ NULL, 0, NULL, 0 };
	argc--;
	argv++;
	opterr = 0;
	/* options may come after positional arguments */
	while ((c = getopt_long(argc, argv, sopts, lopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (cmd->opts & O_FMT) {
				if (parse_fmt(cmd, &o, optarg))
					return 2;
				break;
			}
			/* -o FILE */
			fallthrough;
		case 'w':
			if (o.out) {
				iot_err("%s: give the output file once (-o FILE%s)",
					cmd->name,
					cmd->opts & O_WRITE ? " or -w FILE" : "");
				return 2;
			}
			o.out = optarg;
			break;
		case 'f':
			if (cmd->opts & O_FOLLOW)
				o.follow = 1;	/* show -f: follow */
			else
				o.xfmt = optarg;
			break;
		case 'h':
			cmd_usage(cmd, stdout);
			return iot_out_close(stdout, "standard output");
		case OPT_OP:
			if (parse_ops(&o, optarg)) {
				iot_err("--op %s: unknown operation (use read, write, flush, discard, secerase, wzeroes, zopen, zclose, zfinish, zappend, zreset, zresetall, drv_in, drv_out or other)",
					optarg);
				return 2;
			}
			break;
		case OPT_STATUS:
			if (once(&seen_once, OPT_STATUS, "status", "S"))
				return 2;
			if (parse_status(&o, optarg)) {
				iot_err("--status %s: use ok, error, an errno name like EIO, or a number (1 to 4095)",
					optarg);
				return 2;
			}
			break;
		case OPT_LAT:
			if (parse_range("lat-min", optarg, 0, 0, LAT_MAX_US,
					"microseconds", &d))
				return 2;
			o.lat_min_ns = (uint64_t)llround(d * 1000.0);
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
		case OPT_TO: {
			/*
			 * +T: after the trace's start; a date: wall-clock
			 * (cmd_src_times() makes both times of the source)
			 */
			int rel = optarg[0] == '+' ? IOT_TIME_REL :
				  strchr(optarg, ':') ? IOT_TIME_WALL : 0;
			const char *on = c == OPT_FROM ? "from" : "to";

			if (rel == IOT_TIME_REL ? parse_offset(on, optarg, &ns) :
			    rel == IOT_TIME_WALL ? parse_wall(on, optarg, &ns) :
			    parse_range(on, optarg, 0, 0, TIME_MAX_S, "seconds",
					&d))
				return 2;
			if (!rel)
				ns = (uint64_t)llround(d * 1e9);
			if (c == OPT_FROM) {
				o.from_ns = ns;
				o.from_rel = rel;
			} else {
				o.to_ns = ns;
				o.to_rel = rel;
			}
			break;
		}
		case OPT_DISK:
			if (once(&seen_once, OPT_DISK, "disk", "NAME"))
				return 2;
			o.disk = optarg;
			break;
		case OPT_INTERVAL:
			if (parse_dur("interval", optarg, SPAN_MAX_S,
				      &o.interval))
				return 2;
			break;
		case OPT_COUNT:
			if (parse_u64(optarg, &v, 0) || !v || v > 1000000000) {
				iot_err("--count %s: a whole number from 1 to 1000000000",
					optarg);
				return 2;
			}
			o.count = (long)v;
			seen |= O_COUNT;
			break;
		case OPT_DURATION:
			if (parse_range("duration", optarg, 0, 1, SPAN_MAX_S,
					"seconds", &o.duration))
				return 2;
			break;
		case OPT_SIZE:
			if (parse_u64(optarg, &o.size, 1) || !o.size ||
			    o.size > (1ull << 50)) {
				iot_err("--size %s: a byte count from 1 to 1048576G (K, M, G suffixes)",
					optarg);
				return 2;
			}
			break;
		case OPT_STACK:
			o.stack = 1;
			break;
		case OPT_RELEASE:
			o.release = 1;
			break;
		case OPT_RINGS:
			o.rings = optarg;
			break;
		case OPT_REALTIME:
			o.realtime = 1;
			break;
		case OPT_STRICT:
			iot_strict = 1;
			break;
		case OPT_SYNC_INTERVAL:
			if (!strcmp(optarg, "0"))
				o.sync_interval = 0;
			else if (parse_dur("sync-interval", optarg, SPAN_MAX_S,
					   &o.sync_interval))
				return 2;
			break;
		case OPT_SYNC_BYTES:
			if (parse_u64(optarg, &o.sync_bytes, 1) ||
			    o.sync_bytes > (1ull << 50)) {
				iot_err("--sync-bytes %s: a byte count from 0 to 1048576G (K, M, G suffixes)",
					optarg);
				return 2;
			}
			break;
		case OPT_SHOW:
			o.show = 1;
			break;
		case OPT_QUIET:
			o.quiet = 1;
			break;
		case OPT_JSONL:
			o.jsonl = 1;
			break;
		case OPT_KERNEL:
			o.kernel = 1;
			break;
		case OPT_LISTEN:
			o.listen = optarg;
			break;
		case OPT_INCLUDE:
			o.include = optarg;
			break;
		case OPT_EXCLUDE:
			o.exclude = optarg;
			break;
		case OPT_TEXTFILE:
			o.textfile = optarg;
			break;
		case OPT_ONCE:
			o.once = 1;
			break;

		case OPT_PID:
			if (parse_pids(&o, optarg))
				return 2;
			break;
		case OPT_COMM:
			if (once(&seen_once, OPT_COMM, "comm", "NAME"))
				return 2;
			if (!*optarg || strlen(optarg) >= IOT_COMM_LEN) {
				iot_err("--comm '%s': a command name of 1 to %d characters, as ps -o comm shows it",
					optarg, IOT_COMM_LEN - 1);
				return 2;
			}
			o.comm = optarg;
			break;
		case OPT_CGROUP:
			if (parse_cgroup(optarg, &o.cgroup))
				return 2;
			o.have_cgroup = 1;
			break;
		case OPT_TOP:
			if (parse_u64(optarg, &v, 0) || v > 1000) {
				iot_err("--top %s: a number of processes from 0 to 1000",
					optarg);
				return 2;
			}
			o.top = (unsigned int)v;
			seen |= O_TOP;
			break;
		case OPT_CONFIG:
			o.w_config = optarg;
			break;
		case OPT_WDIR:
			o.w_dir = optarg;
			break;
		case OPT_POST:
			o.w_post = optarg;
			break;
		case OPT_EPISODE:
			o.w_episode = optarg;
			break;
		case OPT_MAXHOUR:
			o.w_max_per_hour = optarg;
			break;
		case OPT_MAXFILES:
			o.w_max_files = optarg;
			break;
		case OPT_MAXBYTES:
			o.w_max_bytes = optarg;
			break;
		case OPT_AROUND:
			if (!optarg) {
				o.around = 20;
				break;
			}
			if (parse_u64(optarg, &v, 0) || !v || v > 1000000) {
				iot_err("--around-trigger=%s: a number of records from 1 to 1000000",
					optarg);
				return 2;
			}
			o.around = (unsigned int)v;
			break;
		case OPT_POLL:
			if (parse_u64(optarg, &v, 0) || !v || v > 10000) {
				iot_err("--poll-ms %s: out of range (1 to 10000 milliseconds)",
					optarg);
				return 2;
			}
			o.poll_ms = (unsigned int)v;
			break;
		default:	/* '?' or ':' */
			bad_option(cmd, argv, c);
			return 2;
		}
	}
	/* a time and a time after the start: compared once made times */
	if (o.from_rel == o.to_rel && o.from_ns >= o.to_ns) {
		iot_err("--from must be before --to");
		return 2;
	}
	/* options that only mean something together */
	if ((seen & O_COUNT) && (cmd->opts & O_INTERVAL) && !o.interval) {
		iot_err("%s --count N: counts the reports of --interval S, give both",
			cmd->name);
		return 2;
	}
	if (o.stack && o.fmt != FMT_NORMAL && cmd->fn == cmd_show) {
		iot_err("show --stack: only the normal output has the LOGICAL and L_SECTOR columns (not -o %s)",
			fmt_names[o.fmt]);
		return 2;
	}
	if (o.realtime && o.fmt != FMT_NORMAL) {
		iot_err("%s --realtime: only the normal output has wall-clock times (-o %s has nanosecond fields)",
			cmd->name, fmt_names[o.fmt]);
		return 2;
	}
	if (o.jsonl && o.fmt != FMT_JSON) {
		iot_err("%s --jsonl: writes JSON a line per item, with -o json",
			cmd->name);
		return 2;
	}
	if ((seen & O_TOP) && (o.interval || o.kernel)) {
		iot_err("stats --top N: the processes of the whole run, not with %s",
			o.kernel ? "--kernel (the in-kernel metrics have no processes)" :
			"--interval");
		return 2;
	}
	if (o.stack && (o.interval || o.kernel)) {
		iot_err("stats --stack: the logical devices' tables of the whole run, not with %s",
			o.kernel ? "--kernel (the in-kernel metrics are the disks')" :
			"--interval");
		return 2;
	}
	if (o.around && (o.follow || argc - optind != 1)) {
		iot_err("show --around-trigger: give one snapshot FILE (not with -f)");
		return 2;
	}
	/* no record filter given: iot_filter() passes every record at once */
	o.no_filter = !o.op_mask && !o.status && !o.have_lat && !o.sec_lo &&
		      o.sec_hi == UINT64_MAX && !o.from_ns && !o.from_rel &&
		      o.to_ns == UINT64_MAX && !o.nr_pids && !o.comm &&
		      !o.have_cgroup;
	if (o.kernel)	/* stats --kernel: the in-kernel metrics */
		c = cmd_stats_kernel(&o, argc - optind, argv + optind);
	else if (o.around)	/* show --around-trigger: a window, then show */
		c = iot_around_trigger(&o, argv[optind], o.around);
	else
		c = cmd->fn(&o, argc - optind, argv + optind);
	/* one place for every command: a failed write of stdout fails */
	if (iot_out_close(stdout, "standard output") && !c)
		c = 1;
	/* done, but from a trace file that was not whole (said on stderr) */
	if (!c && iot_salvaged)
		c = IOT_EXIT_SALVAGED;
	return c;
}
