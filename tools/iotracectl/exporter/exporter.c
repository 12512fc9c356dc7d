// SPDX-License-Identifier: GPL-2.0
/*
 * iotracectl exporter: the in-kernel metrics of every disk for Prometheus,
 * over HTTP (libmicrohttpd; GET or HEAD /metrics) or as a file for
 * node_exporter's textfile collector (--textfile DIR).
 *
 * Every scrape reads the kernel afresh (LIST, then GET_METRICS per disk:
 * both unprivileged); nothing is cached.  A disk that goes away between
 * the two (ENODEV) is left out of that scrape; a module loaded with
 * metrics=N keeps none (ENODATA): its disks are left out, said once (and
 * again after a scrape that had metrics).  The scrape says itself whether
 * the LIST was answered (iotrace_up) and how many GET_METRICS failed
 * otherwise (iotrace_scrape_errors), so that an exporter that cannot see
 * the kernel is not taken for a host without disks.  Why is logged at
 * most once a minute (a few lines for disks), the first time at once:
 * any client can scrape in a loop (scrape_log()).
 *
 * The HTTP server runs in libmicrohttpd's own threads: a small pool of
 * poll(2) loops (MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL with
 * MHD_OPTION_THREAD_POOL_SIZE).  Not epoll: libmicrohttpd 0.9.75 (Debian
 * 12) registers connections edge-triggered and takes a short read for "no
 * more to read", so a client that sends part of a request and then shuts
 * down its side (FIN in the same edge) held its connection until the
 * timeout.  Poll is level-triggered and sees the end of input at once.
 *
 * A connection costs no thread, so a thousand idle or slow clients cost a
 * thousand sockets, not a thousand stacks; reads and writes never block (a
 * slow reader's response waits in its buffer), and a scrape keeps a pool
 * thread only while it builds the exposition, so one slow client cannot
 * stall the others.  Requests are bounded: headers must fit
 * MHD_OPTION_CONNECTION_MEMORY_LIMIT (larger ones are refused), and at
 * most EXP_CONN_PER_IP connections are open from one client address
 * (MHD_OPTION_PER_IP_CONNECTION_LIMIT: one more is closed as soon as it
 * is accepted).  Time is bounded too: idle connections are closed after
 * MHD_OPTION_CONNECTION_TIMEOUT, but every byte starts that again, so
 * the exporter keeps its own clock of each connection (the
 * MHD_OPTION_NOTIFY_CONNECTION and MHD_OPTION_NOTIFY_COMPLETED
 * callbacks), started at the accept and again when a response is done:
 * the main thread shuts down, once a second, every connection whose
 * request was not answered within EXP_REQ_DEADLINE_S of it, so that a
 * client trickling its request holds a connection that long at most.
 * At EXP_CONN_LIMIT connections, the accept policy shuts down the oldest
 * one (by that clock) to make room for the new one: clients holding
 * connections from many addresses cannot keep a scraper out, and its
 * connection, the newest, is the last to go.  libmicrohttpd's own limit,
 * checked before the accept policy, is a little higher
 * (EXP_MHD_CONN_LIMIT), for the connections shut down that their threads
 * have not closed yet; it is split among the pool's threads, and a
 * thread at its share leaves the listening socket to the others, so a
 * new connection is accepted while the total is under it.  The accept
 * policy counts the connections set up (STARTED): while the pool's
 * threads accept a backlog at once, up to EXP_THREADS - 1 others may be
 * half-way, so that the oldest is shut down a few connections late, in
 * that room too.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "metrics.h"
#include "out.h"

#define EXP_DEFAULT_LISTEN	"127.0.0.1:9661"
#define EXP_THREADS		4
#define EXP_CONN_LIMIT		4000
#define EXP_CONN_PER_IP		16	/* a scraper needs one or two */
#define EXP_LIMIT_LOG_S		60	/* a rate-limited log line's period */
#define EXP_MHD_LOG_BURST	5	/* other messages, per EXP_LIMIT_LOG_S */
#define EXP_DISK_LOG_BURST	5	/* disk read errors, per EXP_LIMIT_LOG_S */
#define EXP_CONN_TIMEOUT_S	10	/* idle: no byte read or written */
#define EXP_REQ_DEADLINE_S	15	/* a request answered, from its start */
/* libmicrohttpd's own limit: room for connections shut down, not closed */
#define EXP_MHD_CONN_LIMIT	(EXP_CONN_LIMIT + 16 * EXP_THREADS)
#define EXP_MEM_LIMIT		(32 * 1024)	/* request line + headers */
#define EXP_TEXTFILE_NAME	"iotrace.prom"
#define EXP_DEFAULT_INTERVAL	15.0

/**
 * struct exp - the exporter's settings.
 * @inc: --disk-include, if @have_inc.
 * @exc: --disk-exclude, if @have_exc.
 * @have_inc: @inc is set.
 * @have_exc: @exc is set.
 * @sysfs: sysfs mount for the disks' model and serial
 *	($IOTRACE_SYSFS, default /sys).
 */
struct exp {
	regex_t inc, exc;
	int have_inc, have_exc;
	const char *sysfs;
};

/*
 * "the module keeps no metrics" was logged since the module last gave
 * some (a scrape may run in any thread): said once, not at every scrape,
 * and again once the module, having given metrics to a scrape since, is
 * loaded with metrics=N again.
 */
static int exp_said_nodata;

/**
 * struct exp_ratelog - a kind of log line, said at most @burst times in
 * EXP_LIMIT_LOG_S seconds.
 * @burst: lines said in a period, at most.
 * @period_ns: when the current period began (CLOCK_MONOTONIC), 0: never.
 * @said: lines said in it.
 * @more: lines not said since the last one said.
 */
struct exp_ratelog {
	unsigned int burst;
	uint64_t period_ns;
	unsigned int said;
	unsigned long more;
};

static pthread_mutex_t exp_log_mu = PTHREAD_MUTEX_INITIALIZER;

/*
 * Under exp_log_mu: 1 when a line of @rl is said now, with *@more the
 * number of its lines not said before it; 0 when it is not (counted).
 * A period begins with the first line said after the previous one ended.
 */
static int ratelog_ok(struct exp_ratelog *rl, unsigned long *more)
{
	uint64_t now = iot_now(CLOCK_MONOTONIC);

	if (!rl->period_ns ||
	    now - rl->period_ns >= EXP_LIMIT_LOG_S * 1000000000ull) {
		rl->period_ns = now;
		rl->said = 0;
	}
	if (rl->said >= rl->burst) {
		rl->more++;
		return 0;
	}
	rl->said++;
	*more = rl->more;
	rl->more = 0;
	return 1;
}

static struct exp_ratelog src_rl = { .burst = 1 };
static struct exp_ratelog disk_rl = { .burst = EXP_DISK_LOG_BURST };

/*
 * A scrape's error @err, of the kind @rl: said unless the kind has said
 * its lines of the period (then counted), the next line said ending with
 * the count and @more_what.  Every scrape reads the kernel afresh and any
 * client that reaches the port can scrape in a loop, so that a source
 * that cannot be reached (src_rl: the module not loaded, the LIST
 * failing) would be said at every scrape: it is said at most once every
 * EXP_LIMIT_LOG_S seconds, the first time at once (the reason for
 * iotrace_up 0; --once says it too).  A disk whose metrics cannot be
 * read (disk_rl) would be said at every scrape too, and disks may fail
 * for different reasons: up to EXP_DISK_LOG_BURST lines a period, so
 * that the first scrape names a few failing disks, not only the first
 * (iotrace_scrape_errors counts them all).
 */
static void scrape_log(struct exp_ratelog *rl, const char *err,
		       const char *more_what)
{
	unsigned long more;

	pthread_mutex_lock(&exp_log_mu);
	if (ratelog_ok(rl, &more)) {
		fprintf(stderr, "iotracectl: exporter: %s", err);
		if (more)
			fprintf(stderr, " (%lu %s)", more, more_what);
		fputc('\n', stderr);
	}
	pthread_mutex_unlock(&exp_log_mu);
}

static int disk_wanted(const struct exp *x, const char *name)
{
	if (x->have_inc && regexec(&x->inc, name, 0, NULL, 0))
		return 0;
	if (x->have_exc && !regexec(&x->exc, name, 0, NULL, 0))
		return 0;
	return 1;
}

/**
 * exp_collect() - one scrape: the exposition of every wanted disk.
 * @x: settings.
 * @fmt: text or OpenMetrics.
 * @buf: set to a malloc()ed buffer, free() it.
 * @len: set to its length.
 *
 * Problems with one disk are logged (rate-limited: scrape_log()) and
 * leave it out, counted in iotrace_scrape_errors unless the disk is gone
 * or the module keeps no metrics; a module that is not loaded (or a LIST
 * that fails) gives an exposition without disks and iotrace_up 0, and is
 * logged the same way.
 *
 * Return: 0, or -1 when out of memory.
 */
static int exp_collect(const struct exp *x, enum iot_prom_fmt fmt,
		       char **buf, size_t *len)
{
	char err[IOT_ERR_LEN];
	struct iot_nl_disk *rows = NULL;
	struct iot_metrics *m = NULL;
	struct iot_msrc *s;
	size_t nrows = 0, i, n = 0;
	unsigned int errors = 0;
	FILE *fp;
	int ret = 0, up = 0;

	s = iot_msrc_open(err, sizeof(err));
	if (s && !iot_msrc_list(s, &rows, &nrows, err, sizeof(err)))
		up = 1;
	else
		scrape_log(&src_rl, err, "more since this was last said");
	if (nrows) {
		m = calloc(nrows, sizeof(*m));
		if (!m) {
			ret = -1;
			goto out;
		}
	}
	for (i = 0; i < nrows; i++) {
		struct iot_metrics *d = &m[n];
		int r;

		if (!disk_wanted(x, rows[i].name))
			continue;
		r = iot_msrc_get(s, rows[i].name, d, err, sizeof(err));
		if (r == -ENODEV)
			continue;	/* gone since the LIST */
		if (r == -ENODATA) {
			/* metrics=N is the module's: no disk has any */
			if (!__atomic_exchange_n(&exp_said_nodata, 1,
						 __ATOMIC_RELAXED))
				iot_err("exporter: %s; its disks are left out",
					err);
			break;
		}
		if (r) {
			scrape_log(&disk_rl, err,
				   "more disk errors left out before this one");
			errors++;
			if (r == -EOPNOTSUPP)
				break;
			continue;
		}
		__atomic_store_n(&exp_said_nodata, 0, __ATOMIC_RELAXED);
		if (rows[i].have[IOTRACE_A_TOTAL_OVERWRITTEN]) {
			d->overwritten = rows[i].v[IOTRACE_A_TOTAL_OVERWRITTEN];
			d->dropped = rows[i].v[IOTRACE_A_TOTAL_DROPPED];
			d->have_ring = 1;
		}
		iot_metrics_sysfs_info(d, x->sysfs);
		n++;
	}
	*buf = NULL;
	*len = 0;
	fp = open_memstream(buf, len);
	if (!fp) {
		ret = -1;
		goto out;
	}
	if (iot_prom_write(fp, m, n, up, errors, fmt))
		ret = -1;
	if (fclose(fp))
		ret = -1;
	if (ret) {
		free(*buf);
		*buf = NULL;
	}
out:
	free(m);
	free(rows);
	iot_msrc_close(s);
	return ret;
}

/* ---- HTTP ---------------------------------------------------------------- */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int code,
			     const char *text, const char *allow)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(text), (void *)text,
					    MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain; charset=utf-8");
	if (allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

#define EXP_BLANKS	" \t"

/* @s to @e without the blanks either side: its start, its length in @n */
static const char *trim(const char *s, const char *e, size_t *n)
{
	s += strspn(s, EXP_BLANKS);
	if (s > e)
		s = e;
	while (e > s && strchr(EXP_BLANKS, e[-1]))
		e--;
	*n = (size_t)(e - s);
	return s;
}

/* @s (@n bytes) is @word, in any case */
static int word_is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && !strncasecmp(s, word, n);
}

/*
 * A qvalue ("0" to "1", at most three decimals: RFC 9110 section 12.4.2)
 * in thousandths, or -1 when @s (@n bytes) is not one.
 */
static int qvalue(const char *s, size_t n)
{
	int q, scale = 100;
	size_t i;

	if (!n || (s[0] != '0' && s[0] != '1'))
		return -1;
	q = (s[0] - '0') * 1000;
	if (n == 1)
		return q;
	if (s[1] != '.' || n > 5)
		return -1;
	for (i = 2; i < n; i++, scale /= 10) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		q += (s[i] - '0') * scale;
	}
	return q > 1000 ? -1 : q;
}

/*
 * The q of one media range of an Accept header, @s to @e (its
 * parameters split on ';', "q" in any case, 1 when not given), or -1
 * when its q is not a qvalue; its type/subtype in @type, @tl.
 */
static int range_q(const char *s, const char *e, const char **type,
		   size_t *tl)
{
	const char *semi = memchr(s, ';', (size_t)(e - s));
	int q = 1000;

	*type = trim(s, semi ? semi : e, tl);
	while (semi) {
		const char *par = semi + 1, *pe, *eq, *name, *val;
		size_t nl, vl;

		semi = memchr(par, ';', (size_t)(e - par));
		pe = semi ? semi : e;
		eq = memchr(par, '=', (size_t)(pe - par));
		if (!eq)
			continue;
		name = trim(par, eq, &nl);
		if (nl == 1 && (*name == 'q' || *name == 'Q')) {
			val = trim(eq + 1, pe, &vl);
			q = qvalue(val, vl);
		}
	}
	return q;
}

/*
 * The scraper prefers OpenMetrics (Prometheus asks for it first), going
 * by the q of the Accept header's media ranges (types and parameter
 * names in any case; q=0 is "not acceptable"; a range whose q is not a
 * qvalue is ignored): the best q of application/openmetrics-text is
 * above 0 and at least that of the text format 0.0.4, which is the q of
 * its most specific range: text/plain (whatever its version), else the
 * range of all text subtypes, else that of all types.  Everything else
 * gets the text format, also when nothing in the header is acceptable.
 */
static int wants_openmetrics(const char *accept)
{
	int om = 0, text[3] = { -1, -1, -1 }, tq, q, k;
	static const char *const texts[3] = {
		"text/plain", "text/*", "*/*"
	};
	const char *p = accept, *type;
	size_t l, tl;

	while (p && *p) {
		l = strcspn(p, ",");
		q = range_q(p, p + l, &type, &tl);
		if (word_is(type, tl, "application/openmetrics-text") &&
		    q > om)
			om = q;
		for (k = 0; k < 3; k++)
			if (word_is(type, tl, texts[k]) && q > text[k])
				text[k] = q;
		p += l;
		if (*p)
			p++;
	}
	tq = text[0] >= 0 ? text[0] : text[1] >= 0 ? text[1] : text[2];
	return om > 0 && om >= tq;
}

/* *con_cls of a GET or HEAD whose headers were seen (on_request()) */
static char exp_headers_seen;

/*
 * libmicrohttpd calls on_request() first with the headers, then with the
 * body (if any) and once more when the request is complete.  A response
 * queued at the first call ends the connection after it (the request's
 * body and any request after it are not read), so a GET or HEAD is
 * answered at the last call: the connection stays open for the next
 * request (keep-alive, pipelining).  Other methods, which may carry a
 * body, get their 405 at once and the connection is closed.
 */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	const struct exp *x = cls;
	const char *accept;
	enum iot_prom_fmt fmt;
	struct MHD_Response *r;
	enum MHD_Result ret;
	size_t len;
	char *buf;

	(void)version;
	(void)upload;
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED,
			     "only GET and HEAD\n", "GET, HEAD");
	if (!*con_cls) {
		*con_cls = &exp_headers_seen;
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0;	/* a body of a GET: ignored */
		return MHD_YES;
	}
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND,
			     "not found: the metrics are at /metrics\n", NULL);
	accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					     MHD_HTTP_HEADER_ACCEPT);
	fmt = wants_openmetrics(accept) ? IOT_PROM_OPENMETRICS : IOT_PROM_TEXT;
	if (exp_collect(x, fmt, &buf, &len))
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
			     "out of memory\n", NULL);
	r = MHD_create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(buf);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				fmt == IOT_PROM_OPENMETRICS ? IOT_PROM_CT_OM :
				IOT_PROM_CT_TEXT);
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

static struct exp_ratelog limit_rl = { .burst = 1 };
static struct exp_ratelog mhd_rl = { .burst = EXP_MHD_LOG_BURST };
static struct exp_ratelog evict_rl = { .burst = 1 };
static struct exp_ratelog late_rl = { .burst = 1 };

/*
 * libmicrohttpd says "Server reached connection limit" for every
 * connection it closes at once because a limit is reached (mostly
 * EXP_CONN_PER_IP: one client address holding that many; its
 * EXP_MHD_CONN_LIMIT only while connections shut down to make room are
 * not closed yet), so that a client reconnecting in a loop would fill
 * the log: said at most once every EXP_LIMIT_LOG_S seconds, with how
 * many connections were closed in between.
 */
static void limit_log(void)
{
	unsigned long more;

	pthread_mutex_lock(&exp_log_mu);
	if (ratelog_ok(&limit_rl, &more)) {
		fprintf(stderr,
			"iotracectl: exporter: connection limit reached (%d from one client address, or %d in all): new connections are closed at once",
			EXP_CONN_PER_IP, EXP_MHD_CONN_LIMIT);
		if (more)
			fprintf(stderr, " (%lu more since this was last said)",
				more);
		fputc('\n', stderr);
	}
	pthread_mutex_unlock(&exp_log_mu);
}

/*
 * @n connections closed by the exporter for one reason (@rl): @what said
 * at most once a period, with how many were closed that were not said.
 */
static void conn_log(struct exp_ratelog *rl, unsigned long n,
		     const char *what)
{
	unsigned long more;

	pthread_mutex_lock(&exp_log_mu);
	if (ratelog_ok(rl, &more)) {
		fprintf(stderr, "iotracectl: exporter: %s", what);
		if (more)
			fprintf(stderr, " (%lu more since this was last said)",
				more);
		fputc('\n', stderr);
	}
	rl->more += n - 1;
	pthread_mutex_unlock(&exp_log_mu);
}

/*
 * libmicrohttpd's other messages are mostly about one connection ("closed
 * by remote side with incomplete request"), which any client can cause
 * as often as it connects: at most EXP_MHD_LOG_BURST of them every
 * EXP_LIMIT_LOG_S seconds, the next one said with the number left out.
 */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	unsigned long more;
	char msg[512];
	size_t l;

	(void)cls;
	if (strstr(fmt, "reached connection limit")) {
		limit_log();
		return;
	}
	vsnprintf(msg, sizeof(msg), fmt, ap);
	l = strlen(msg);
	while (l && msg[l - 1] == '\n')
		msg[--l] = 0;
	pthread_mutex_lock(&exp_log_mu);
	if (ratelog_ok(&mhd_rl, &more)) {
		fprintf(stderr, "iotracectl: exporter: %s", msg);
		if (more)
			fprintf(stderr, " (%lu more messages left out before this one)",
				more);
		fputc('\n', stderr);
	}
	pthread_mutex_unlock(&exp_log_mu);
}

/**
 * struct exp_conn - a connection of the HTTP server, for its deadline and
 * for eviction.
 * @fd: its socket.
 * @since_ns: when it was accepted or its last response was done
 *	(CLOCK_MONOTONIC).
 * @shut: shut down by the exporter (late or evicted): not in the list.
 * @prev: in the list, the connection of the next older @since_ns.
 * @next: the next newer one.
 */
struct exp_conn {
	int fd;
	uint64_t since_ns;
	int shut;
	struct exp_conn *prev, *next;
};

/*
 * The connections libmicrohttpd has (between its STARTED and CLOSED
 * notifications), but for those the exporter shut down: a list, oldest
 * @since_ns first (a connection moves to its end when its clock starts
 * again), of conn_live entries.  libmicrohttpd closes a connection's
 * socket only after the CLOSED notification, which takes conn_mu: a
 * shutdown(2) under conn_mu is of the connection's socket, never of a
 * descriptor that was reused since.
 */
static pthread_mutex_t conn_mu = PTHREAD_MUTEX_INITIALIZER;
static struct exp_conn *conn_head, *conn_tail;
static unsigned int conn_live;

/* Under conn_mu: @k out of the list. */
static void conn_unlink(struct exp_conn *k)
{
	if (k->prev)
		k->prev->next = k->next;
	else
		conn_head = k->next;
	if (k->next)
		k->next->prev = k->prev;
	else
		conn_tail = k->prev;
	k->prev = NULL;
	k->next = NULL;
	conn_live--;
}

/* Under conn_mu: @k at the end of the list, its clock started now. */
static void conn_append(struct exp_conn *k)
{
	k->since_ns = iot_now(CLOCK_MONOTONIC);
	k->prev = conn_tail;
	k->next = NULL;
	if (conn_tail)
		conn_tail->next = k;
	else
		conn_head = k;
	conn_tail = k;
	conn_live++;
}

/*
 * Under conn_mu: @k shut down (its reads and writes fail, so that its
 * thread closes it) and out of the list.
 */
static void conn_shut(struct exp_conn *k)
{
	shutdown(k->fd, SHUT_RDWR);
	conn_unlink(k);
	k->shut = 1;
}

static void on_connection(void *cls, struct MHD_Connection *c,
			  void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	const union MHD_ConnectionInfo *ci;
	struct exp_conn *k = *socket_context;

	(void)cls;
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		ci = MHD_get_connection_info(c,
					     MHD_CONNECTION_INFO_CONNECTION_FD);
		k = ci ? calloc(1, sizeof(*k)) : NULL;
		if (!k)
			return;	/* not tracked: its idle timeout only */
		k->fd = ci->connect_fd;
		pthread_mutex_lock(&conn_mu);
		conn_append(k);
		pthread_mutex_unlock(&conn_mu);
		*socket_context = k;
	} else if (k) {
		pthread_mutex_lock(&conn_mu);
		if (!k->shut)
			conn_unlink(k);
		pthread_mutex_unlock(&conn_mu);
		free(k);
		*socket_context = NULL;
	}
}

/* A request done (its response sent, or failed): the clock starts again. */
static void on_completed(void *cls, struct MHD_Connection *c,
			 void **con_cls, enum MHD_RequestTerminationCode toe)
{
	const union MHD_ConnectionInfo *ci;
	struct exp_conn *k;

	(void)cls;
	(void)con_cls;
	(void)toe;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	k = ci ? ci->socket_context : NULL;
	if (!k)
		return;
	pthread_mutex_lock(&conn_mu);
	if (!k->shut) {
		conn_unlink(k);
		conn_append(k);
	}
	pthread_mutex_unlock(&conn_mu);
}

/*
 * The accept policy: at EXP_CONN_LIMIT connections, the oldest one (by
 * its clock) is shut down to make room, so that a new client, a scraper,
 * is always served.  libmicrohttpd checks its own limit,
 * EXP_MHD_CONN_LIMIT, and the one per client address before.
 */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr,
				 socklen_t addrlen)
{
	int evicted = 0;

	(void)cls;
	(void)addr;
	(void)addrlen;
	pthread_mutex_lock(&conn_mu);
	if (conn_live >= EXP_CONN_LIMIT && conn_head) {
		conn_shut(conn_head);
		evicted = 1;
	}
	pthread_mutex_unlock(&conn_mu);
	if (evicted) {
		char what[160];

		snprintf(what, sizeof(what),
			 "%d connections open: the oldest one closed to make room for a new one",
			 EXP_CONN_LIMIT);
		conn_log(&evict_rl, 1, what);
	}
	return MHD_YES;
}

/*
 * Once a second: the connections whose request was not answered within
 * EXP_REQ_DEADLINE_S of their clock's start are shut down, however
 * busily they send (libmicrohttpd's idle timeout is reset by every byte).
 */
static void conn_sweep(void)
{
	uint64_t now = iot_now(CLOCK_MONOTONIC);
	unsigned long n = 0;

	pthread_mutex_lock(&conn_mu);
	while (conn_head && now - conn_head->since_ns >=
	       EXP_REQ_DEADLINE_S * 1000000000ull) {
		conn_shut(conn_head);
		n++;
	}
	pthread_mutex_unlock(&conn_mu);
	if (n) {
		char what[160];

		snprintf(what, sizeof(what),
			 "a request not answered within %d s: its connection closed",
			 EXP_REQ_DEADLINE_S);
		conn_log(&late_rl, n, what);
	}
}

/*
 * --listen ADDR:PORT: an IPv4 address, or an IPv6 one in brackets
 * ("[::1]:9661"); "*" or an empty ADDR is every IPv4 address.
 */
static int parse_listen(const char *s, struct sockaddr_storage *ss)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	const char *colon = strrchr(s, ':');
	char host[128], *end;
	unsigned long port;
	size_t hl;

	memset(ss, 0, sizeof(*ss));
	if (!colon)
		return -1;
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || end == colon + 1 || *end || !port || port > 65535)
		return -1;
	hl = (size_t)(colon - s);
	if (hl >= sizeof(host))
		return -1;
	memcpy(host, s, hl);
	host[hl] = 0;
	if (host[0] == '[') {
		if (hl < 3 || host[hl - 1] != ']')
			return -1;
		host[hl - 1] = 0;
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		return inet_pton(AF_INET6, host + 1, &a6->sin6_addr) == 1 ?
			0 : -1;
	}
	a4->sin_family = AF_INET;
	a4->sin_port = htons((uint16_t)port);
	if (!host[0] || !strcmp(host, "*")) {
		a4->sin_addr.s_addr = htonl(INADDR_ANY);
		return 0;
	}
	return inet_pton(AF_INET, host, &a4->sin_addr) == 1 ? 0 : -1;
}

/* Room for EXP_CONN_LIMIT sockets: the soft limit up to the hard one. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int serve(struct exp *x, const char *listen, sigset_t *sigs)
{
	struct timespec one_s = { .tv_sec = 1 };
	struct sockaddr_storage ss;
	struct MHD_Daemon *d;
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
		MHD_USE_ERROR_LOG;
	int sig;

	if (parse_listen(listen, &ss)) {
		iot_err("exporter --listen %s: use ADDR:PORT (127.0.0.1:9661, [::1]:9661, *:9661)",
			listen);
		return 2;
	}
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	raise_nofile();
	/* the logger first: MHD warns about options before it otherwise */
	d = MHD_start_daemon(flags, 0, on_accept, NULL, on_request, x,
			     MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
			     MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)EXP_THREADS,
			     MHD_OPTION_CONNECTION_LIMIT,
			     (unsigned int)EXP_MHD_CONN_LIMIT,
			     MHD_OPTION_NOTIFY_CONNECTION, on_connection, NULL,
			     MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
			     MHD_OPTION_PER_IP_CONNECTION_LIMIT,
			     (unsigned int)EXP_CONN_PER_IP,
			     MHD_OPTION_CONNECTION_TIMEOUT,
			     (unsigned int)EXP_CONN_TIMEOUT_S,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT,
			     (size_t)EXP_MEM_LIMIT,
			     MHD_OPTION_END);
	if (!d) {
		iot_err("exporter: cannot listen on %s: %s", listen,
			strerror(errno));
		return 1;
	}
	fprintf(stderr, "iotracectl: exporter: serving http://%s/metrics\n",
		listen);
	for (;;) {
		sig = sigtimedwait(sigs, NULL, &one_s);
		if (sig == SIGINT || sig == SIGTERM)
			break;
		conn_sweep();
	}
	MHD_stop_daemon(d);
	return 0;
}

/* ---- --textfile ---------------------------------------------------------- */

/*
 * DIR/iotrace.prom, atomically: a temporary file, fsync, rename.  The
 * temporary file is a new one (mkostemp(): O_EXCL, under a name no one
 * can guess, so that nothing planted in DIR, a symbolic link, is
 * followed), named .iotrace.prom.XXXXXX: not *.prom, the collector never
 * reads a half-written file.
 */
static int write_textfile(const struct exp *x, const char *dir)
{
	char tmp[4096], path[4096];
	size_t len, off = 0;
	int fd, err = 0;
	char *buf;

	if (exp_collect(x, IOT_PROM_TEXT, &buf, &len)) {
		iot_err("exporter: out of memory");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, EXP_TEXTFILE_NAME);
	snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, EXP_TEXTFILE_NAME);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		iot_err("exporter: cannot create %s: %s", tmp, strerror(errno));
		free(buf);
		return -1;
	}
	if (fchmod(fd, 0644))
		err = errno;
	while (!err && off < len) {
		ssize_t w = write(fd, buf + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			err = w ? errno : ENOSPC;
		else
			off += (size_t)w;
	}
	if (!err && fsync(fd))
		err = errno;
	if (close(fd) && !err)
		err = errno;
	free(buf);
	if (!err && rename(tmp, path))
		err = errno;
	if (err) {
		iot_err("exporter: cannot write %s: %s", path, strerror(err));
		unlink(tmp);
		return -1;
	}
	return 0;
}

static int textfile_loop(struct exp *x, const char *dir, double interval,
			 int once, sigset_t *sigs)
{
	struct timespec ts;

	for (;;) {
		int r = write_textfile(x, dir);

		if (once)
			return r ? 1 : 0;
		ts.tv_sec = (time_t)interval;
		ts.tv_nsec = (long)((interval - (double)ts.tv_sec) * 1e9);
		r = sigtimedwait(sigs, NULL, &ts);
		if (r == SIGINT || r == SIGTERM)
			return 0;
	}
}

int cmd_exporter(struct iot_opts *o, int argc, char **argv)
{
	struct exp x = { .sysfs = getenv("IOTRACE_SYSFS") };
	sigset_t sigs;
	int ret;

	(void)argv;
	if (argc) {
		iot_err("exporter takes no arguments (see 'iotracectl exporter --help')");
		return 2;
	}
	if (!x.sysfs || !*x.sysfs)
		x.sysfs = "/sys";
	if (o->once && !o->textfile) {
		iot_err("exporter --once: writes the --textfile once, give --textfile DIR");
		return 2;
	}
	if (o->textfile && o->listen) {
		iot_err("exporter: --textfile DIR writes a file, --listen serves HTTP: give one");
		return 2;
	}
	if (o->interval && !o->textfile) {
		iot_err("exporter --interval: the period of --textfile (HTTP is read per scrape)");
		return 2;
	}
	if (o->interval && o->interval < IOT_LIVE_INTERVAL_MIN) {
		iot_err("exporter --interval %g: at least %g seconds (each period reads every disk's metrics from the kernel)",
			o->interval, IOT_LIVE_INTERVAL_MIN);
		return 2;
	}
	if (o->include) {
		ret = regcomp(&x.inc, o->include, REG_EXTENDED | REG_NOSUB);
		if (ret) {
			iot_err("exporter --disk-include %s: not a regular expression",
				o->include);
			return 2;
		}
		x.have_inc = 1;
	}
	if (o->exclude) {
		ret = regcomp(&x.exc, o->exclude, REG_EXTENDED | REG_NOSUB);
		if (ret) {
			iot_err("exporter --disk-exclude %s: not a regular expression",
				o->exclude);
			if (x.have_inc)
				regfree(&x.inc);
			return 2;
		}
		x.have_exc = 1;
	}
	/* SIGINT and SIGTERM are waited for, in every thread blocked */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (o->textfile) {
		struct stat st;

		if (stat(o->textfile, &st) || !S_ISDIR(st.st_mode)) {
			iot_err("exporter --textfile %s: not a directory",
				o->textfile);
			ret = 2;
		} else {
			ret = textfile_loop(&x, o->textfile, o->interval ?
					    o->interval : EXP_DEFAULT_INTERVAL,
					    o->once, &sigs);
		}
	} else {
		ret = serve(&x, o->listen ? o->listen : EXP_DEFAULT_LISTEN,
			    &sigs);
	}
	if (x.have_inc)
		regfree(&x.inc);
	if (x.have_exc)
		regfree(&x.exc);
	return ret;
}
