// SPDX-License-Identifier: GPL-2.0
/*
 * The configuration of "iotracectl watch": /etc/iotrace/iotrace.conf
 * (Documentation/iotracectl.rst, CONFIGURATION).
 *
 *   # comment
 *   dir = /var/lib/iotrace           keys before any section: the service
 *   post = 5s    # a comment after a space or tab
 *   [disk nvme0n1]                   a disk by name,
 *   [disk wwn=eui.0025388b71b2c3d4]  by sysfs wwid, serial or
 *   [disk serial=S3Z1NB0K123456X]    /dev/disk/by-id name
 *   [disk by-id=nvme-Samsung_SSD_970_EVO_S3Z1NB0K123456X]
 *   ring-size = 64M
 *   trigger = read-lat=10ms write-lat=50ms error timeout
 *
 * An unknown key, a key in the wrong place, a key given twice in one place
 * or a bad value is refused with FILE:LINE.  The disks' identities are
 * resolved when the watcher starts.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "macros.h"
#include "trigger.h"
#include "watch.h"

#define ERR(...) snprintf(err, errlen, __VA_ARGS__)

#define NS_PER_S	1000000000ull
#define LAT_MAX_NS	(3600ull * NS_PER_S)
#define STUCK_MIN_NS	(100ull * 1000000ull)
#define STUCK_MAX_NS	(86400ull * NS_PER_S)
#define POST_MAX_NS	(3600ull * NS_PER_S)
#define WATCH_MAX_KEYS	16	/* keys of one place: more than there are */

void watch_conf_defaults(struct watch_conf *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->dir, sizeof(c->dir), "/var/lib/iotrace");
	snprintf(c->run_dir, sizeof(c->run_dir), "%s", WATCH_RUN_DEFAULT);
	c->post_ns = 5 * NS_PER_S;
	c->episode_ns = NS_PER_S;
	c->max_per_hour = 12;
	c->max_files = 100;
	c->max_bytes = 1ull << 30;
}

/*
 * A duration: a number with s, ms, us, ns, m or h, fractions allowed; a
 * bare number is @bare nanoseconds apiece.  0, or -1 when @s is not one
 * (or is 2^63 ns or more).
 */
static int parse_dur_ns(const char *s, double bare, uint64_t *ns)
{
	static const struct { const char *u; double f; } units[] = {
		{ "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 }, { "ns", 1 },
		{ "m", 60e9 }, { "h", 3600e9 },
	};
	const char *num = iot_decimal_end(s);
	char *end;
	double v, f = bare;
	size_t i;

	/* decimal only: strtod() would take 0x10 (16) and 1e3 too */
	if (!num)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end != num || !isfinite(v) || v < 0)
		return -1;
	for (i = 0; *end && i < ARRAY_SIZE(units); i++)
		if (!strcmp(end, units[i].u))
			break;
	if (*end && i == ARRAY_SIZE(units))
		return -1;
	if (*end)
		f = units[i].f;
	v = v * f + 0.5;
	if (v >= 9.2e18)
		return -1;
	*ns = (uint64_t)v;
	return 0;
}

/**
 * watch_parse_ns() - a duration of the service (post, episode): a number
 *	with s (the default), ms, us, ns, m or h; fractions allowed.
 * @s: the text.
 * @ns: the duration.
 *
 * Return: 0, or -1 when @s is not one (or is above 2^63 ns).
 */
int watch_parse_ns(const char *s, uint64_t *ns)
{
	return parse_dur_ns(s, 1e9, ns);
}

/* A threshold: a bare number is ns, as "iotracectl trigger" takes it. */
static int parse_th_ns(const char *s, uint64_t *ns)
{
	return parse_dur_ns(s, 1, ns);
}

/* A byte count with K, M, G or T (powers of 1024). */
static int parse_bytes(const char *s, uint64_t *v)
{
	unsigned long long x;
	char *end;
	int sh = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (toupper((unsigned char)*end)) {
	case 'K':
		sh = 10;
		break;
	case 'M':
		sh = 20;
		break;
	case 'G':
		sh = 30;
		break;
	case 'T':
		sh = 40;
		break;
	case 0:
		break;
	default:
		return -1;
	}
	if (sh && end[1])
		return -1;
	if (sh && x > (UINT64_MAX >> sh))
		return -1;
	*v = (uint64_t)x << sh;
	return 0;
}

static int parse_count(const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
	unsigned long long x;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end || x < lo || x > hi)
		return -1;
	*v = x;
	return 0;
}

/* An errno by name (EIO) or number (5). */
static int parse_errno(const char *s, uint32_t *v)
{
	char name[32];
	uint64_t n;
	int e;

	if (!parse_count(s, 1, 4095, &n)) {
		*v = (uint32_t)n;
		return 0;
	}
	for (e = 1; e < 4096; e++) {
		iot_errno_name(e, name, sizeof(name));	/* "-EIO" */
		if (!strcasecmp(name[0] == '-' ? name + 1 : name, s)) {
			*v = (uint32_t)e;
			return 0;
		}
	}
	return -1;
}

static const char *const lat_keys[IOTRACE_NR_MOPS] = {
	[IOTRACE_MOP_READ] = "read-lat", [IOTRACE_MOP_WRITE] = "write-lat",
	[IOTRACE_MOP_FLUSH] = "flush-lat", [IOTRACE_MOP_DISCARD] = "discard-lat",
	[IOTRACE_MOP_OTHER] = "other-lat",
};

/**
 * watch_th_parse() - the trigger conditions of a "trigger =" line: the
 *	words "iotracectl trigger DISK" takes (read-lat=T, write-lat=T,
 *	flush-lat=T, discard-lat=T, other-lat=T, error[=LIST], devstatus,
 *	timeout, requeues=N, stuck=T, rate=T, and hold=N|max|off,
 *	hold-expire=T for the hold at a hit; "off": none).
 * @th: filled.
 * @words: the line's value.
 * @err: what is wrong.
 * @errlen: its size.
 *
 * Return: 0, or -1 with @err set.
 */
int watch_th_parse(struct watch_th *th, const char *words, char *err,
		   size_t errlen)
{
	char buf[256], *tok, *save = NULL;
	int off = 0, n = 0, nw = 0;

	memset(th, 0, sizeof(*th));
	if (strlen(words) >= sizeof(buf))
		return ERR("too long (at most %zu characters)", sizeof(buf) - 1),
			-1;
	snprintf(th->words, sizeof(th->words), "%s", words);
	snprintf(buf, sizeof(buf), "%s", words);
	for (tok = strtok_r(buf, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save), n++, nw++) {
		char *eq = strchr(tok, '=');
		const char *v = eq ? eq + 1 : NULL;
		size_t kl = eq ? (size_t)(eq - tok) : strlen(tok);
		int m, done = 0;

		for (m = 0; m < IOTRACE_NR_MOPS; m++) {
			if (strlen(lat_keys[m]) != kl ||
			    strncmp(tok, lat_keys[m], kl))
				continue;
			if (!v || parse_th_ns(v, &th->lat_ns[m]) ||
			    th->lat_ns[m] > LAT_MAX_NS) {
				snprintf(err, errlen,
					 "%s: a latency up to 1 hour (a number with ns, us, ms or s; a bare number is ns)",
					 tok);
				return -1;
			}
			done = 1;
		}
		if (done)
			continue;
		if (!strcmp(tok, "off")) {
			off = 1;
		} else if (!strcmp(tok, "error")) {
			th->flags |= IOTRACE_FILE_TH_ERROR;
		} else if (kl == 5 && !strncmp(tok, "error", 5) && v) {
			char list[200], *e, *s2 = NULL;

			snprintf(list, sizeof(list), "%s", v);
			th->flags |= IOTRACE_FILE_TH_ERROR;
			for (e = strtok_r(list, ",", &s2); e;
			     e = strtok_r(NULL, ",", &s2)) {
				if (th->nr_errnos == IOTRACE_FILE_TH_ERRNOS)
					return ERR("%s: at most %d errnos", tok,
						   IOTRACE_FILE_TH_ERRNOS), -1;
				if (parse_errno(e, &th->errnos[th->nr_errnos++])) {
					snprintf(err, errlen,
						 "%s: '%s' is not an errno (EIO, ETIMEDOUT, ... or 1 to 4095)",
						 tok, e);
					return -1;
				}
			}
			if (!th->nr_errnos)
				return ERR("%s: give errnos (error=EIO,ETIMEDOUT) or none (error)",
					   tok), -1;
		} else if (!strcmp(tok, "devstatus")) {
			th->flags |= IOTRACE_FILE_TH_DEVSTATUS;
		} else if (!strcmp(tok, "timeout")) {
			th->flags |= IOTRACE_FILE_TH_TIMEOUT;
		} else if (kl == 8 && !strncmp(tok, "requeues", 8) && v) {
			uint64_t x;

			if (parse_count(v, 1, 255, &x))
				return ERR("%s: the N-th requeue, 1 to 255", tok),
					-1;
			th->requeues = (uint32_t)x;
		} else if (kl == 5 && !strncmp(tok, "stuck", 5) && v) {
			if (parse_th_ns(v, &th->stuck_ns) ||
			    th->stuck_ns < STUCK_MIN_NS ||
			    th->stuck_ns > STUCK_MAX_NS) {
				snprintf(err, errlen,
					 "%s: a time in flight from 100ms to 1 day (e.g. stuck=5s)",
					 tok);
				return -1;
			}
		} else if (kl == 4 && !strncmp(tok, "rate", 4) && v) {
			if (parse_th_ns(v, &th->rate_ns) ||
			    th->rate_ns > LAT_MAX_NS) {
				snprintf(err, errlen,
					 "%s: the least time between two events, up to 1 hour (e.g. rate=1s)",
					 tok);
				return -1;
			}
			th->have_rate = 1;
		} else if (kl == 4 && !strncmp(tok, "hold", 4) && v) {
			if (iot_parse_hold(v, &th->hold_chunks)) {
				snprintf(err, errlen,
					 "%s: chunks to hold at a hit: a number, max (half the ring) or off",
					 tok);
				return -1;
			}
			th->have_hold = 1;
			n--;	/* not a condition */
		} else if (kl == 11 && !strncmp(tok, "hold-expire", 11) && v) {
			if (parse_th_ns(v, &th->hold_ns) ||
			    th->hold_ns < 1000000000ULL ||
			    th->hold_ns > LAT_MAX_NS) {
				snprintf(err, errlen,
					 "%s: a hold nobody released ends after this, 1s to 1 hour (e.g. hold-expire=30s)",
					 tok);
				return -1;
			}
			n--;	/* not a condition */
		} else {
			snprintf(err, errlen,
				 "unknown condition '%s' (read-lat=, write-lat=, flush-lat=, discard-lat=, other-lat=, error[=LIST], devstatus, timeout, requeues=, stuck=, rate=, hold=, hold-expire= or off)",
				 tok);
			return -1;
		}
	}
	/* "off hold=max" too: the hold of no trigger */
	if (off && nw > 1)
		return ERR("'off' stands alone"), -1;
	if (!n)
		return ERR("give conditions (read-lat=10ms error ...) or off"),
			-1;
	th->set = !off;
	return 0;
}

/**
 * watch_conf_set() - one "key = value" of the configuration or an option.
 * @c: the configuration.
 * @d: the disk of the section, NULL for the service's keys.
 * @key: the key (the long option's name).
 * @val: its value.
 * @where: "FILE:LINE" or "--option", for the message.
 *
 * Return: 0, or -1 after saying what is wrong.
 */
int watch_conf_set(struct watch_conf *c, struct watch_disk *d,
		   const char *key, const char *val, const char *where)
{
	char e[IOT_ERR_LEN];
	uint64_t v;

	if (!strcmp(key, "ring-size")) {
		/*
		 * The module's range, checked here so that a size it would
		 * refuse stops the watcher before it changes anything; its
		 * other bound (two chunks per possible CPU) is the module's.
		 */
		if (parse_bytes(val, &v) ||
		    (v && (v < WATCH_RING_MIN || v > WATCH_RING_MAX))) {
			iot_err("%s: ring-size '%s': 0 (metrics only) or 64K to 1G, a byte count with K, M or G",
				where, val);
			return -1;
		}
		if (d)
			d->ring_size = v ? v : 1;	/* 1: resize to 0 */
		else
			c->ring_size = v ? v : 1;
		return 0;
	}
	if (!strcmp(key, "trigger")) {
		if (watch_th_parse(d ? &d->th : &c->th, val, e, sizeof(e))) {
			iot_err("%s: trigger: %s", where, e);
			return -1;
		}
		if (d && !d->th.set)	/* "off": none, not the default */
			d->th.set = -1;
		return 0;
	}
	if (d) {
		iot_err("%s: '%s' is not a key of a [disk] section (ring-size, trigger; the others go before the first section)",
			where, key);
		return -1;
	}
	if (!strcmp(key, "dir") || !strcmp(key, "run-dir")) {
		char *dst = key[0] == 'd' ? c->dir : c->run_dir;

		if (val[0] != '/' || strlen(val) >= sizeof(c->dir) - 64) {
			iot_err("%s: %s '%s': an absolute directory", where, key,
				val);
			return -1;
		}
		snprintf(dst, sizeof(c->dir), "%s", val);
		return 0;
	}
	if (!strcmp(key, "post") || !strcmp(key, "episode")) {
		if (watch_parse_ns(val, &v) || v > POST_MAX_NS) {
			iot_err("%s: %s '%s': a duration from 0 to 1h (s, ms, us, ns, m, h; a bare number is seconds)",
				where, key, val);
			return -1;
		}
		if (key[0] == 'p')
			c->post_ns = v;
		else
			c->episode_ns = v;
		return 0;
	}
	if (!strcmp(key, "max-per-hour") || !strcmp(key, "max-files")) {
		if (parse_count(val, 1, 1000000, &v)) {
			iot_err("%s: %s '%s': a whole number from 1 to 1000000",
				where, key, val);
			return -1;
		}
		if (key[4] == 'p')
			c->max_per_hour = v;
		else
			c->max_files = v;
		return 0;
	}
	if (!strcmp(key, "max-bytes")) {
		if (parse_bytes(val, &v) || !v) {
			iot_err("%s: max-bytes '%s': a byte count above 0 with K, M, G or T",
				where, val);
			return -1;
		}
		c->max_bytes = v;
		return 0;
	}
	iot_err("%s: unknown key '%s' (dir, run-dir, post, episode, max-per-hour, max-files, max-bytes, ring-size, trigger)",
		where, key);
	return -1;
}

/*
 * A comment ends the line: '#' at its start or after a space or tab; a
 * '#' inside a word (dir = /srv/a#b) is the word's.
 */
static void strip_comment(char *s)
{
	char *p;

	for (p = s; *p; p++)
		if (*p == '#' && (p == s || p[-1] == ' ' || p[-1] == '\t')) {
			*p = 0;
			return;
		}
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* "[disk SPEC]": name, wwn=, serial= or by-id= */
static int disk_spec_ok(const char *spec)
{
	const char *eq = strchr(spec, '=');

	if (!*spec || strchr(spec, ' ') || strchr(spec, '/'))
		return 0;
	if (!eq)
		return strlen(spec) < IOTRACE_NAME_LEN;
	return eq[1] && ((eq - spec == 3 && !strncmp(spec, "wwn", 3)) ||
			 (eq - spec == 6 && !strncmp(spec, "serial", 6)) ||
			 (eq - spec == 5 && !strncmp(spec, "by-id", 5)));
}

/**
 * watch_conf_load() - read the configuration file into @c.
 * @c: the configuration (defaults set).
 * @path: the file.
 * @must_exist: a missing file is an error (else the defaults stay).
 *
 * Return: 0, or -1 after saying FILE:LINE and what is wrong.
 */
int watch_conf_load(struct watch_conf *c, const char *path, int must_exist)
{
	struct watch_disk *d = NULL;
	char line[1024], where[300];
	/* the keys of the current place: before the sections, a section */
	char seen[WATCH_MAX_KEYS][16];
	unsigned int seen_ln[WATCH_MAX_KEYS], nseen = 0, ln = 0, k;
	FILE *fp = fopen(path, "re");
	int ret = 0;

	if (!fp) {
		if (errno == ENOENT && !must_exist)
			return 0;
		iot_err("watch: cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), fp)) {
		char *s, *eq;

		ln++;
		snprintf(where, sizeof(where), "%s:%u", path, ln);
		if (!strchr(line, '\n') && !feof(fp)) {
			iot_err("%s: line too long (at most %zu characters)",
				where, sizeof(line) - 2);
			ret = -1;
			break;
		}
		strip_comment(line);
		s = trim(line);
		if (!*s || *s == ';')
			continue;
		if (*s == '[') {
			char *end = strchr(s, ']'), *spec;

			if (!end || end[1] || strncmp(s, "[disk", 5) ||
			    !isspace((unsigned char)s[5])) {
				iot_err("%s: '%s': a section is [disk NAME], [disk wwn=WWID], [disk serial=SERIAL] or [disk by-id=NAME]",
					where, s);
				ret = -1;
				break;
			}
			*end = 0;
			spec = trim(s + 5);
			if (!disk_spec_ok(spec)) {
				iot_err("%s: [disk %s]: a disk name, wwn=WWID, serial=SERIAL or by-id=NAME",
					where, spec);
				ret = -1;
				break;
			}
			if (c->nr_disks == WATCH_MAX_DISKS) {
				iot_err("%s: at most %d disks", where,
					WATCH_MAX_DISKS);
				ret = -1;
				break;
			}
			for (k = 0; k < c->nr_disks; k++)
				if (!strcmp(c->disks[k].spec, spec))
					break;
			if (k < c->nr_disks) {
				iot_err("%s: [disk %s] given again (first at line %u)",
					where, spec, c->disks[k].line);
				ret = -1;
				break;
			}
			d = &c->disks[c->nr_disks++];
			memset(d, 0, sizeof(*d));
			nseen = 0;
			snprintf(d->spec, sizeof(d->spec), "%s", spec);
			snprintf(d->where, sizeof(d->where), "%s", where);
			d->line = ln;
			continue;
		}
		eq = strchr(s, '=');
		if (!eq) {
			iot_err("%s: '%s': not 'key = value'", where, s);
			ret = -1;
			break;
		}
		*eq = 0;
		if (!*trim(s) || !*trim(eq + 1)) {
			iot_err("%s: 'key = value' with both", where);
			ret = -1;
			break;
		}
		s = trim(s);
		for (k = 0; k < nseen && strcmp(seen[k], s); k++)
			;
		if (k < nseen) {
			iot_err("%s: '%s' given again (first at line %u)",
				where, s, seen_ln[k]);
			ret = -1;
			break;
		}
		if (watch_conf_set(c, d, s, trim(eq + 1), where)) {
			ret = -1;
			break;
		}
		/* a known key (an unknown one was refused): at most 9 */
		if (nseen < WATCH_MAX_KEYS) {
			snprintf(seen[nseen], sizeof(seen[nseen]), "%s", s);
			seen_ln[nseen++] = ln;
		}
	}
	if (!ret && ferror(fp)) {
		iot_err("watch: reading %s: %s", path, strerror(errno));
		ret = -1;
	}
	fclose(fp);
	return ret;
}

static void sysfs_str(const char *path, char *out, size_t len)
{
	FILE *fp = fopen(path, "re");
	size_t n;

	out[0] = 0;
	if (!fp)
		return;
	if (!fgets(out, (int)len, fp))
		out[0] = 0;
	fclose(fp);
	n = strlen(out);
	while (n && isspace((unsigned char)out[n - 1]))
		out[--n] = 0;
	n = strspn(out, " \t");
	memmove(out, out + n, strlen(out + n) + 1);
}

static const char *sysfs_root(void)
{
	const char *s = getenv("IOTRACE_SYSFS");

	return s && *s ? s : "/sys";
}

/**
 * watch_identity() - the model, serial and wwn of a disk, as the exporter
 *	reads them: sysfs block/<disk>/device/{model,serial}, then wwid of
 *	the disk or its device.  "" for what is not there.
 * @name: the disk.
 * @model: IOTRACE_FILE_ID_LEN bytes.
 * @serial: the same.
 * @wwn: the same.
 */
void watch_identity(const char *name, char *model, char *serial, char *wwn)
{
	char p[1024];
	const char *sys = sysfs_root();

	snprintf(p, sizeof(p), "%s/block/%s/device/model", sys, name);
	sysfs_str(p, model, IOTRACE_FILE_ID_LEN);
	snprintf(p, sizeof(p), "%s/block/%s/device/serial", sys, name);
	sysfs_str(p, serial, IOTRACE_FILE_ID_LEN);
	snprintf(p, sizeof(p), "%s/block/%s/wwid", sys, name);
	sysfs_str(p, wwn, IOTRACE_FILE_ID_LEN);
	if (!wwn[0]) {
		snprintf(p, sizeof(p), "%s/block/%s/device/wwid", sys, name);
		sysfs_str(p, wwn, IOTRACE_FILE_ID_LEN);
	}
}

/*
 * Is @name a path of an NVMe multipath head that is there?  Its serial
 * and wwid are the head's: a disk given by them is the head.
 */
static int mpath_path(const char *name)
{
	char head[NAME_MAX + 1], p[1024];

	if (!iot_path_head(name, head, sizeof(head)))
		return 0;
	snprintf(p, sizeof(p), "%s/block/%s", sysfs_root(), head);
	return access(p, F_OK) == 0;
}

/**
 * watch_resolve() - the block device name of a configured disk: a name
 *	as it is; wwn= and serial= by the sysfs attributes of every disk
 *	(an NVMe multipath head's, not its paths'; two disks with it are
 *	an error); by-id= by the /dev/disk/by-id link.  Fills the identity
 *	too.
 * @d: the disk.
 * @err: why it cannot be found.
 * @errlen: its size.
 *
 * Return: 0; -1 with @err set when no disk is the one configured (now);
 * WATCH_RESOLVE_TWO with @err set when two are (a serial= or wwn=).
 * @d->name is empty unless 0 is returned.
 */
int watch_resolve(struct watch_disk *d, char *err, size_t errlen)
{
	const char *eq = strchr(d->spec, '=');
	char p[1024], model[IOTRACE_FILE_ID_LEN], serial[IOTRACE_FILE_ID_LEN];
	char wwn[IOTRACE_FILE_ID_LEN];
	struct dirent *de;
	DIR *dir;

	d->name[0] = 0;
	if (!eq) {
		snprintf(d->name, sizeof(d->name), "%s", d->spec);
	} else if (!strncmp(d->spec, "by-id=", 6)) {
		char real[PATH_MAX];
		const char *base, *byid = getenv("IOTRACE_BY_ID");

		snprintf(p, sizeof(p), "%s/%s",
			 byid && *byid ? byid : "/dev/disk/by-id", eq + 1);
		if (!realpath(p, real))
			return ERR("%s: %s", p, strerror(errno)), -1;
		base = strrchr(real, '/');
		snprintf(d->name, sizeof(d->name), "%s", base ? base + 1 : real);
	} else {
		int want_wwn = d->spec[0] == 'w';
		char other[sizeof(d->name)] = "";

		snprintf(p, sizeof(p), "%s/block", sysfs_root());
		dir = opendir(p);
		if (!dir)
			return ERR("%s: %s", p, strerror(errno)), -1;
		while ((de = readdir(dir))) {
			if (de->d_name[0] == '.' || mpath_path(de->d_name))
				continue;
			watch_identity(de->d_name, model, serial, wwn);
			if (strcmp(want_wwn ? wwn : serial, eq + 1) ||
			    strlen(de->d_name) >= sizeof(d->name))
				continue;
			if (d->name[0]) {
				snprintf(other, sizeof(other), "%s",
					 de->d_name);
				break;
			}
			snprintf(d->name, sizeof(d->name), "%s", de->d_name);
		}
		closedir(dir);
		if (!d->name[0])
			return ERR("no disk in %s has %s %s", p,
				   want_wwn ? "wwid" : "serial", eq + 1), -1;
		/* an NVMe controller's serial is every namespace's */
		if (other[0]) {
			ERR("%s and %s both have %s %s: give the disk by wwn= or by name",
			    d->name, other, want_wwn ? "wwid" : "serial",
			    eq + 1);
			d->name[0] = 0;
			return WATCH_RESOLVE_TWO;
		}
	}
	watch_identity(d->name, d->model, d->serial, d->wwn);
	return 0;
}

/**
 * watch_recheck() - is the disk named @d->name still the one configured?
 * @d: the disk, resolved (watch_resolve()).
 * @err: why not.
 * @errlen: its size.
 *
 * A disk given by wwn=, serial= or by-id= is looked up again: when it
 * was removed, another disk may have its name now.  One given by name is
 * whatever disk has the name.  Either way the identity (model, serial,
 * wwn) is read again into @d: the disk's at the time of the call.
 *
 * Return: 0, or -1 with @err set (@d untouched).
 */
int watch_recheck(struct watch_disk *d, char *err, size_t errlen)
{
	struct watch_disk nd = *d;
	char e[IOT_ERR_LEN];

	if (!d->name[0])
		return ERR("%s is not present", d->spec), -1;
	if (strchr(d->spec, '=')) {
		if (watch_resolve(&nd, e, sizeof(e)))
			return ERR("%s is not %s any more (%s)", d->spec,
				   d->name, e), -1;
		if (strcmp(nd.name, d->name))
			return ERR("%s is not %s any more (it is %s now)",
				   d->spec, d->name, nd.name), -1;
	} else {
		watch_identity(d->name, nd.model, nd.serial, nd.wwn);
	}
	memcpy(d->model, nd.model, sizeof(d->model));
	memcpy(d->serial, nd.serial, sizeof(d->serial));
	memcpy(d->wwn, nd.wwn, sizeof(d->wwn));
	return 0;
}
