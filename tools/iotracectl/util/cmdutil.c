// SPDX-License-Identifier: GPL-2.0
/*
 * The commands' output helpers: JSON and CSV strings, output streams that
 * keep the reason of a failed write, and the messages on standard error.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cmd.h"

/* the bytes a JSON string holds as they are: printable ASCII but '"' and '\\' */
static const unsigned char json_plain[256] = {
	[0x20 ... 0x21] = 1,
	[0x23 ... 0x5b] = 1,
	[0x5d ... 0x7e] = 1,
};

/*
 * What a persistent region had no room for (previous, info's region:
 * line): allocations refused, and with @have_evicted (layout 1.4 on)
 * the rings of removed disks it evicted; one line to stdout.
 */
void iot_print_room(uint32_t refused, int have_evicted, uint32_t evicted)
{
	printf("%u allocations refused for want of room", refused);
	if (have_evicted)
		printf(", %u rings of removed disks evicted for room", evicted);
	printf("\n");
}

/**
 * iot_json_str() - print @s as a JSON string, always valid UTF-8.
 * @fp: stream.
 * @s: bytes (a name from a file or the kernel: any but NUL).
 *
 * Printable ASCII and valid UTF-8 sequences are written as they are, but
 * '"' and '\\' (\" and \\), the control characters (U+0000 to U+001F,
 * U+007F and U+0080 to U+009F: \uXXXX of their code point) and every byte
 * that is not part of a valid UTF-8 sequence (\ufffd, the replacement
 * character, one per byte).
 */
void iot_json_str(FILE *fp, const char *s)
{
	const char *run = s;
	char esc[2] = { '\\' }, buf[128];
	size_t n = 0, len;
	uint32_t cp = 0;

	/* a short string with nothing to escape (keys, names): one write */
	while (n < sizeof(buf) - 2 && json_plain[(unsigned char)s[n]]) {
		buf[n + 1] = s[n];
		n++;
	}
	if (!s[n]) {
		buf[0] = '"';
		buf[n + 1] = '"';
		fwrite_unlocked(buf, 1, n + 2, fp);
		return;
	}
	/* else the characters that need no escape a run at a time */
	fputc_unlocked('"', fp);
	while (*s) {
		unsigned char c = *s;

		if (json_plain[c]) {
			s++;
			continue;
		}
		len = c >= 0x80 ? iot_utf8_seq((const unsigned char *)s, &cp) :
		      0;
		if (len && cp >= 0xa0) {
			s += len;
			continue;
		}
		fwrite_unlocked(run, 1, (size_t)(s - run), fp);
		if (c == '"' || c == '\\') {
			esc[1] = (char)c;
			fwrite_unlocked(esc, 1, 2, fp);
		} else if (c < 0x80 || len) {
			fprintf(fp, "\\u%04x", c < 0x80 ? c : (unsigned int)cp);
		} else {
			fputs("\\ufffd", fp);
		}
		s += len ? len : 1;
		run = s;
	}
	fwrite_unlocked(run, 1, (size_t)(s - run), fp);
	fputc_unlocked('"', fp);
}

/*
 * Print @s as a CSV field: quoted (its quotes doubled) when it holds a
 * comma, a quote or a line end (newline, carriage return); its bytes as
 * they are.
 */
void iot_csv_str(FILE *fp, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

static int iot_write_failed;

/**
 * struct iot_ostream - an output stream of the commands (standard output,
 *	an OUT file): its descriptor and the errno of its first failed write.
 * @fp: the stream.
 * @fd: its file descriptor.
 * @err: the errno of its first failed write, 0 while none failed.
 * @next: the next such stream.
 *
 * stdio keeps only an error flag: a write that fails inside fwrite() or
 * printf() drops the stream's buffer, so when it was the last, the final
 * fflush() has nothing to write and fails with nothing to say, and errno
 * has long changed.  The stream's own write function keeps the reason.
 */
struct iot_ostream {
	FILE *fp;
	int fd, err;
	struct iot_ostream *next;
};

static struct iot_ostream *iot_ostreams;

/* stdio's write of an output stream: all of @buf, or 0 on an error */
static ssize_t ostream_write(void *cookie, const char *buf, size_t len)
{
	struct iot_ostream *os = cookie;
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = write(os->fd, buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EIO;
			if (!os->err)
				os->err = errno;
			return 0;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static int ostream_close(void *cookie)
{
	struct iot_ostream *os = cookie, **p;
	int ret = close(os->fd);

	for (p = &iot_ostreams; *p; p = &(*p)->next)
		if (*p == os) {
			*p = os->next;
			break;
		}
	free(os);
	return ret;
}

static struct iot_ostream *ostream_of(FILE *fp)
{
	struct iot_ostream *os;

	for (os = iot_ostreams; os; os = os->next)
		if (os->fp == fp)
			return os;
	return NULL;
}

/**
 * iot_out_fdopen() - an output stream on @fd that keeps the errno of its
 * first failed write (iot_out_close() says it).
 * @fd: the descriptor, closed with the stream.
 *
 * Line-buffered on a terminal, as stdout is.
 *
 * Return: the stream, or NULL (errno set; @fd left open).
 */
FILE *iot_out_fdopen(int fd)
{
	static const cookie_io_functions_t io = {
		.write = ostream_write,
		.close = ostream_close,
	};
	struct iot_ostream *os = calloc(1, sizeof(*os));

	if (!os)
		return NULL;
	os->fd = fd;
	os->fp = fopencookie(os, "w", io);
	if (!os->fp) {
		free(os);
		return NULL;
	}
	if (isatty(fd))
		setvbuf(os->fp, NULL, _IOLBF, BUFSIZ);
	os->next = iot_ostreams;
	iot_ostreams = os;
	return os->fp;
}

/**
 * iot_out_open() - create (or empty) @path for writing, unless it is a
 * file a source of this run is read from (iot_src_input()).
 * @path: the file, created if it is not there: mode 0600 (less by the
 *	umask), for it holds what the kernel lets only root read (the
 *	ring's files are 0400): who submitted what, commands, cgroups.  A
 *	file that exists keeps its mode.
 *
 * It is opened without O_TRUNC and compared with the inputs before it is
 * emptied: truncating a trace file that is mapped and still to be read
 * would cut the input under the reader (SIGBUS) and lose it.
 *
 * Return: the descriptor, or -1 after saying why (errno set).
 */
int iot_out_open(const char *path)
{
	int fd, e;
	const char *in;
	struct stat st;

	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		e = errno;
		iot_err("cannot create %s: %s", path, strerror(e));
		errno = e;
		return -1;
	}
	if (fstat(fd, &st)) {
		e = errno;
		iot_err("cannot create %s: %s", path, strerror(e));
		goto fail;
	}
	in = iot_src_input(&st);
	if (in) {
		e = EEXIST;
		iot_err("the output file %s is the input %s: it is not written (that would destroy the input); give another output file",
			path, in);
		goto fail;
	}
	/* as O_TRUNC would have: a device or a FIFO is left as it is */
	if (S_ISREG(st.st_mode) && st.st_size && ftruncate(fd, 0)) {
		e = errno;
		iot_err("cannot empty %s: %s", path, strerror(e));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	errno = e;
	return -1;
}

/**
 * iot_out_fopen() - create (or empty) @path for writing, as an output
 * stream of iot_out_fdopen(), unless it is an input (iot_out_open()).
 * @path: the file.
 *
 * Return: the stream, or NULL after saying why (errno set).
 */
FILE *iot_out_fopen(const char *path)
{
	int fd = iot_out_open(path);
	FILE *fp;
	int e;

	if (fd < 0)
		return NULL;
	fp = iot_out_fdopen(fd);
	if (!fp) {
		e = errno;
		iot_err("cannot create %s: %s", path, strerror(e));
		close(fd);
		errno = e;
	}
	return fp;
}

/**
 * iot_out_stdout() - standard output as an output stream of
 * iot_out_fdopen() (main, before any output); left as it is if that
 * cannot be made.
 */
void iot_out_stdout(void)
{
	FILE *fp = iot_out_fdopen(STDOUT_FILENO);

	if (fp)
		stdout = fp;
}

/**
 * iot_out_fileno() - the file descriptor of an output stream.
 * @fp: the stream.
 *
 * Return: the descriptor (fileno() for another stream).
 */
int iot_out_fileno(FILE *fp)
{
	struct iot_ostream *os = ostream_of(fp);

	return os ? os->fd : fileno(fp);
}

/**
 * iot_out_no_sigpipe() - a reader of the output that goes away is a
 * failed write like another (EPIPE: said once, exit 1), not a death by
 * SIGPIPE.
 *
 * For the commands that run until they are stopped (record, show -f,
 * stats --interval on a live disk, events; watch and the exporter ignore
 * SIGPIPE themselves): they must not end unheard, mid-recording.  The
 * commands that read and print keep SIGPIPE, as filters do (cat, grep):
 * "iotracectl show FILE | head" ends quietly.
 */
void iot_out_no_sigpipe(void)
{
	signal(SIGPIPE, SIG_IGN);
}

/*
 * Why writes to @fp failed: the errno of its first failed write when it
 * kept one, else @err (that of the call that failed now), else EIO.
 */
static int out_errno(FILE *fp, int err)
{
	struct iot_ostream *os = ostream_of(fp);

	if (os && os->err)
		return os->err;
	return err ? err : EIO;
}

/**
 * iot_write_error() - report a failed write, once per run.
 * @what: what was being written ("standard output", a file name).
 * @err: the errno (0: unknown, said as EIO).
 *
 * Every command words it the same way: "iotracectl: writing WHAT: ERROR".
 *
 * Return: 1, the exit status of a failed write.
 */
int iot_write_error(const char *what, int err)
{
	if (!iot_write_failed)
		iot_err("writing %s: %s", what, strerror(err ? err : EIO));
	iot_write_failed = 1;
	return 1;
}

/**
 * iot_out_flush() - flush a stream mid-run (live output), reporting a
 * failed write at once, with the errno of the first that failed.
 * @fp: the stream.
 * @what: what it is, for the message.
 *
 * Return: 0, or 1 after reporting the failed write: stop writing.
 */
int iot_out_flush(FILE *fp, const char *what)
{
	errno = 0;
	if (fflush(fp) || ferror(fp))
		return iot_write_error(what, out_errno(fp, errno));
	return 0;
}

/**
 * iot_out_durable() - make the file @path written through @fp durable: its
 * data on the disk, and its name in its directory.
 * @fp: the stream, open.
 * @path: its path.
 *
 * For what has no other copy (the previous boot's trace, before the
 * module's copy is released).
 *
 * Return: 0, or 1 after reporting what failed.
 */
int iot_out_durable(FILE *fp, const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd, err = 0;

	if (iot_out_flush(fp, path))
		return 1;
	if (fsync(iot_out_fileno(fp)))
		return iot_write_error(path, errno);
	dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) :
		      strdup(".");
	if (!dir)
		return iot_write_error(path, ENOMEM);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd))
		err = errno;
	if (fd >= 0)
		close(fd);
	if (err)
		iot_err("%s: %s", dir, strerror(err));
	free(dir);
	return !!err;
}

/**
 * iot_out_close() - finish an output stream: flush it, check its error
 * flag and close it (stdout is flushed and checked, then closed by main).
 * @fp: the stream.
 * @what: what it is, for the message.
 *
 * A failed write is said with the errno of the first write that failed
 * (an output stream of iot_out_fdopen() keeps it), even when stdio
 * dropped what it could not write and has nothing left to flush.
 *
 * Return: 0, or 1 after reporting the failed write (iot_write_error()).
 */
int iot_out_close(FILE *fp, const char *what)
{
	int err = 0;

	errno = 0;
	if (fflush(fp) || ferror(fp))
		err = out_errno(fp, errno);
	if (fp == stdout) {
		if (!err && fclose(stdout))
			err = errno ? errno : EIO;
	} else if (fclose(fp) && !err) {
		err = errno ? errno : EIO;
	}
	return err || iot_write_failed ? iot_write_error(what, err) : 0;
}

/* Print "iotracectl: <message>" on stderr. */
void iot_err(const char *fmt, ...)
{
	va_list ap;

	fputs("iotracectl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The output stream: @path, or stdout for NULL or "-". */
FILE *x_open_out(const char *path)
{
	if (!path || !strcmp(path, "-"))
		return stdout;
	return iot_out_fopen(path);	/* says why it could not */
}

/* iot_nl_hint()'s for EPERM */
#define NL_HINT_EPERM " (needs CAP_NET_ADMIN, for generic netlink, and CAP_SYS_ADMIN, for the module: root has both unless its capability bounding set drops them, see capsh --print)"

/**
 * iot_nl_hint() - what to do about a netlink request the kernel refused.
 * @err: its positive errno.
 *
 * EPERM: generic netlink asks for CAP_NET_ADMIN (GENL_ADMIN_PERM), the
 * module for CAP_SYS_ADMIN; root lacks them when its capability bounding
 * set drops them (a unit's CapabilityBoundingSet=, setpriv, a container),
 * so "run as root" would not do.  EACCES: a security module's refusal.
 *
 * Return: " (...)" to append to the message, or "".
 */
const char *iot_nl_hint(int err)
{
	switch (err) {
	case EPERM:
		return NL_HINT_EPERM;
	case EACCES:
		return " (refused by a security module, SELinux or AppArmor: see the audit log)";
	case ENODEV:
		return " ('iotracectl list' shows the traced disks)";
	case EINVAL:
		return " (see 'iotracectl --help')";
	default:
		return "";
	}
}
