// SPDX-License-Identifier: GPL-2.0
/* Small helpers of the library: numbers, clocks, files, text. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "iot.h"
#include "numfmt.h"

const char iot_d2[200] = {
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
};

/**
 * iot_decimal_end() - the end of the decimal number @s begins with:
 *	digits, a point, digits, one digit at least ("5", "1.5", ".5");
 *	what strtod() reads besides (hex, an exponent, inf, a sign, spaces)
 *	is not one.
 * @s: the text.
 *
 * Return: the character after the number, or NULL when there is none.
 */
const char *iot_decimal_end(const char *s)
{
	const char *p = s;
	size_t digits = 0;

	while (*p >= '0' && *p <= '9')
		p++, digits++;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			digits++;
	return digits ? p : NULL;
}

uint64_t iot_now(int clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Read a whole file into a malloc'ed, 8-byte aligned buffer. */
int iot_read_all(const char *path, uint8_t **buf, size_t *len, char *err,
		 size_t errlen)
{
	size_t cap = 1 << 16, n = 0;
	uint8_t *b = NULL, *nb;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path,
			 strerror(errno));
		return -1;
	}
	for (;;) {
		if (!b || n == cap) {
			if (b)
				cap *= 2;
			nb = realloc(b, cap);
			if (!nb) {
				snprintf(err, errlen, "out of memory reading %s",
					 path);
				goto fail;
			}
			b = nb;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			snprintf(err, errlen, "cannot read %s: %s", path,
				 strerror(errno));
			goto fail;
		}
		if (!r)
			break;
		n += r;
	}
	close(fd);
	*buf = b;
	*len = n;
	return 0;
fail:
	free(b);
	close(fd);
	return -1;
}

/**
 * iot_utf8_seq() - the UTF-8 sequence of two to four bytes at @s.
 * @s: a byte of 0x80 or more, NUL-terminated after it.
 * @cp: set to its code point.
 *
 * Return: its length when it is valid UTF-8 (RFC 3629: the shortest form,
 * no surrogate, at most U+10FFFF), else 0 (@s is a byte no sequence
 * begins with, or the bytes after it do not finish one).
 */
size_t iot_utf8_seq(const unsigned char *s, uint32_t *cp)
{
	size_t n, i;
	uint32_t c;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/**
 * iot_text_str() - @s as the text outputs print a name (a command name,
 *	a disk name, a host: bytes from a file or a process).
 * @buf: where (IOT_TEXT_ROOM(strlen(@s)) bytes hold all of it).
 * @size: its size; the text is cut before an escape that does not fit.
 * @s: the name.
 *
 * Printable ASCII as it is but '\\', which is "\\\\"; every other byte (a
 * control character, any byte of 0x80 or more) "\\xNN", its value in
 * hex.  No byte a terminal acts on, no line of its own, one column a
 * byte whatever the locale, and the bytes can be told back.
 *
 * Return: @buf.
 */
char *iot_text_str(char *buf, size_t size, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	char *p = buf, *end;

	if (!size)
		return buf;
	end = buf + size - 1;
	for (; *s; s++) {
		unsigned char c = *s;

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			if (end - p < 1)
				break;
			*p++ = (char)c;
		} else if (c == '\\') {
			if (end - p < 2)
				break;
			*p++ = '\\';
			*p++ = '\\';
		} else {
			if (end - p < 4)
				break;
			*p++ = '\\';
			*p++ = 'x';
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
		}
	}
	*p = 0;
	return buf;
}
