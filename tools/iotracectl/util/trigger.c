// SPDX-License-Identifier: GPL-2.0
/*
 * iotracectl trigger: the command line of a disk's in-kernel triggers
 * (IOTRACE_CMD_SET_TRIGGER, Documentation/netlink.rst "Triggers") and the
 * names of a trigger event's reasons.  The request itself is sent by
 * netlink.c.  The ranges are the kernel's, checked here first for a
 * clearer message.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "iot.h"
#include "macros.h"
#include "trigger.h"

#define NS_PER_S	1000000000ULL
#define LAT_MAX_NS	(3600ULL * NS_PER_S)
#define STUCK_MIN_NS	(100ULL * 1000000ULL)
#define STUCK_MAX_NS	(86400ULL * NS_PER_S)
#define RATE_MAX_NS	(3600ULL * NS_PER_S)
#define HOLD_MIN_NS	NS_PER_S
#define HOLD_MAX_NS	(3600ULL * NS_PER_S)

/**
 * iot_parse_hold() - the value of hold=: a number of chunks, "max" (the
 *	most the ring allows, IOTRACE_TRIG_HOLD_MAX) or "off" (0).
 * @s: the text.
 * @chunks: set.
 *
 * Return: 0, or -1 when @s is none of these.
 */
int iot_parse_hold(const char *s, uint32_t *chunks)
{
	unsigned long n;
	char *end;

	if (!strcmp(s, "max")) {
		*chunks = IOTRACE_TRIG_HOLD_MAX;
		return 0;
	}
	if (!strcmp(s, "off")) {
		*chunks = 0;
		return 0;
	}
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || !n || n >= 0xffffffffUL)
		return -1;
	*chunks = (uint32_t)n;
	return 0;
}

/**
 * iot_parse_duration() - a duration: a number with ns, us, ms or s (a
 *	bare number is ns); fractions allowed ("1.5ms").
 * @s: the text.
 * @ns: set to the duration in ns.
 *
 * Return: 0, or -1 when @s is not a duration or exceeds 2^63 ns.
 */
int iot_parse_duration(const char *s, uint64_t *ns)
{
	static const struct { const char *sfx; double mul; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
		{ "", 1 },
	};
	const char *num = iot_decimal_end(s);
	char *end;
	double v;
	size_t i;

	/* decimal only: strtod() would take 0x10 (16) and 1e3 too */
	if (!num)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end != num || !isfinite(v) || v < 0)
		return -1;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(end, units[i].sfx))
			continue;
		v = v * units[i].mul + 0.5;
		if (v >= 9.2e18)
			return -1;
		*ns = (uint64_t)v;
		return 0;
	}
	return -1;
}

static const struct { const char *name; uint32_t val; } errno_names[] = {
	{ "EIO", EIO }, { "ENOSPC", ENOSPC }, { "ENODATA", ENODATA },
	{ "ETIMEDOUT", ETIMEDOUT }, { "ENOLINK", ENOLINK },
	{ "EREMOTEIO", EREMOTEIO }, { "EBADE", EBADE }, { "EILSEQ", EILSEQ },
	{ "ENOMEM", ENOMEM }, { "EAGAIN", EAGAIN }, { "EOPNOTSUPP", EOPNOTSUPP },
	{ "EBUSY", EBUSY }, { "ENXIO", ENXIO }, { "ENODEV", ENODEV },
	{ "EINVAL", EINVAL }, { "EPROTO", EPROTO }, { "EPERM", EPERM },
	{ "EOVERFLOW", EOVERFLOW }, { "ENOTCONN", ENOTCONN },
};

/* An errno by name (EIO) or number (5). */
static int parse_errno(const char *s, uint32_t *v)
{
	unsigned long n;
	char *end;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(errno_names); i++)
		if (!strcasecmp(s, errno_names[i].name)) {
			*v = errno_names[i].val;
			return 0;
		}
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end || !n || n > 4095)
		return -1;
	*v = (uint32_t)n;
	return 0;
}

static const char *const lat_keys[IOTRACE_NR_MOPS] = {
	[IOTRACE_MOP_READ] = "read-lat", [IOTRACE_MOP_WRITE] = "write-lat",
	[IOTRACE_MOP_FLUSH] = "flush-lat",
	[IOTRACE_MOP_DISCARD] = "discard-lat",
	[IOTRACE_MOP_OTHER] = "other-lat",
};

/* KEY=VALUE: 1 with the value in @v if @a starts with KEY=, else 0. */
static int value_of(const char *a, const char *key, const char **v)
{
	size_t n = strlen(key);

	if (strncmp(a, key, n) || a[n] != '=')
		return 0;
	*v = a + n + 1;
	return 1;
}

/**
 * iot_trig_parse() - the arguments after DISK of "iotracectl trigger".
 * @argc: their count.
 * @argv: them.
 * @t: filled.
 * @err: why not (a message for the user).
 * @errlen: its size.
 *
 * Return: 0, or -1 with @err set.
 */
int iot_trig_parse(int argc, char **argv, struct iot_trig_req *t,
		   char *err, size_t errlen)
{
	const char *v = NULL;
	int i, m, any = 0;

	memset(t, 0, sizeof(*t));
	if (argc == 1 && !strcmp(argv[0], "off")) {
		t->off = 1;
		return 0;
	}
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		for (m = 0; m < IOTRACE_NR_MOPS; m++) {
			if (!value_of(a, lat_keys[m], &v))
				continue;
			if (iot_parse_duration(v, &t->lat_ns[m]) ||
			    t->lat_ns[m] > LAT_MAX_NS) {
				snprintf(err, errlen,
					 "%s: a latency up to 1 hour (ns, us, ms, s; 0: off)",
					 a);
				return -1;
			}
			any |= t->lat_ns[m] != 0;
			break;
		}
		if (m < IOTRACE_NR_MOPS)
			continue;
		if (!strcmp(a, "error")) {
			t->error = 1;
		} else if (value_of(a, "error", &v)) {
			char buf[256], *tok, *save = NULL;

			snprintf(buf, sizeof(buf), "%s", v);
			t->error = 1;
			for (tok = strtok_r(buf, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				if (t->nr_errnos == IOTRACE_TRIG_MAX_ERRNOS) {
					snprintf(err, errlen,
						 "%s: at most %d errnos", a,
						 IOTRACE_TRIG_MAX_ERRNOS);
					return -1;
				}
				if (parse_errno(tok, &t->errnos[t->nr_errnos++])) {
					snprintf(err, errlen,
						 "%s: '%s' is no errno (EIO, ENOSPC, ... or 1..4095)",
						 a, tok);
					return -1;
				}
			}
			if (!t->nr_errnos) {
				snprintf(err, errlen, "%s: an empty errno list", a);
				return -1;
			}
		} else if (!strcmp(a, "devstatus")) {
			t->devstatus = 1;
		} else if (!strcmp(a, "timeout")) {
			t->timeout = 1;
		} else if (value_of(a, "requeues", &v)) {
			char *end;
			unsigned long n;

			errno = 0;
			n = strtoul(v, &end, 10);
			if (errno || end == v || *end || *v == '-' || !n ||
			    n > 255) {
				snprintf(err, errlen, "%s: a requeue count 1..255",
					 a);
				return -1;
			}
			t->requeues = (uint32_t)n;
		} else if (value_of(a, "stuck", &v)) {
			if (iot_parse_duration(v, &t->stuck_ns) ||
			    t->stuck_ns < STUCK_MIN_NS ||
			    t->stuck_ns > STUCK_MAX_NS) {
				snprintf(err, errlen,
					 "%s: a time in flight from 100ms to 1 day (e.g. stuck=5s)",
					 a);
				return -1;
			}
		} else if (value_of(a, "rate", &v)) {
			if (iot_parse_duration(v, &t->rate_ns) ||
			    t->rate_ns > RATE_MAX_NS) {
				snprintf(err, errlen,
					 "%s: the least time between two events, up to 1 hour (e.g. rate=1s; 0: no limit)",
					 a);
				return -1;
			}
			t->have_rate = 1;
		} else if (value_of(a, "hold", &v)) {
			if (iot_parse_hold(v, &t->hold_chunks)) {
				snprintf(err, errlen,
					 "%s: chunks to hold at a hit: a number, max (half the ring) or off",
					 a);
				return -1;
			}
			t->have_hold = 1;
		} else if (value_of(a, "hold-expire", &v)) {
			if (iot_parse_duration(v, &t->hold_ns) ||
			    t->hold_ns < HOLD_MIN_NS || t->hold_ns > HOLD_MAX_NS) {
				snprintf(err, errlen,
					 "%s: a hold nobody released ends after this, 1s to 1 hour (e.g. hold-expire=30s)",
					 a);
				return -1;
			}
		} else {
			snprintf(err, errlen,
				 "unknown argument '%s' (read-lat=, write-lat=, flush-lat=, discard-lat=, other-lat=, error[=LIST], devstatus, timeout, requeues=, stuck=, rate=, hold=, hold-expire= or off)",
				 a);
			return -1;
		}
	}
	any |= t->error || t->devstatus || t->timeout || t->requeues ||
	       t->stuck_ns;
	if (!any) {
		snprintf(err, errlen,
			 "no trigger condition given (use 'trigger DISK off' to remove them)");
		return -1;
	}
	return 0;
}

/**
 * iot_trig_reason_str() - IOTRACE_TRIG_* bits as names.
 * @reason: the bits.
 * @buf: where to write them, comma separated (an unknown bit as 0x...).
 * @len: its size.
 *
 * Return: @buf.
 */
const char *iot_trig_reason_str(uint32_t reason, char *buf, size_t len)
{
	const char *name;
	size_t i, n = 0;

	buf[0] = 0;
	for (i = 0; i < 32; i++) {
		if (!(reason & (1u << i)))
			continue;
		name = iot_trig_reason_name(i);
		if (name)
			n += snprintf(buf + n, n < len ? len - n : 0, "%s%s",
				      n ? "," : "", name);
		else
			n += snprintf(buf + n, n < len ? len - n : 0, "%s0x%x",
				      n ? "," : "", 1u << i);
	}
	if (!n)
		snprintf(buf, len, "none");
	return buf;
}
