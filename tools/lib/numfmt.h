/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decimal numbers without printf, for the per-record output paths (the
 * CSV line, the decoders' strings): two digits at a time from a table,
 * 64-bit divisions only to cut a large value into 8-digit pieces.
 *
 * iot_fmt_u32() and iot_fmt_u64() may write past the end of the number they
 * return (a short number is stored as an 8-byte word), never more than 20
 * bytes from @p: the caller's buffer has IOT_FMT_ROOM bytes from there.
 */
#ifndef IOT_NUMFMT_H
#define IOT_NUMFMT_H

#include <stdint.h>
#include <string.h>

/* the bytes from @p that iot_fmt_u64() may write (20 digits at most) */
#define IOT_FMT_ROOM	20

/* "00" .. "99" (util.c) */
extern const char iot_d2[200];

/*
 * @v (< 10^8) as 8 decimal digits in a 64-bit word, the first digit in
 * its lowest byte (the order of memory on a little-endian machine):
 * split in lanes of the word, not digit by digit.  The four high digits
 * go in the low 32-bit lane, the four low digits in the high lane; one
 * multiplication divides both lanes by 100 (x * 10486 >> 20 is x / 100
 * for x < 43,699), leaving four 16-bit lanes of two digits; one more
 * divides those by 10 (x * 103 >> 10 is x / 10 for x < 179), leaving
 * eight bytes of one digit.  No lane's product reaches the next lane.
 */
static inline uint64_t iot_digits8(uint32_t v)
{
	uint64_t x = v / 10000 | (uint64_t)(v % 10000) << 32;
	uint64_t y = (x * 10486 >> 20) & 0x0000007f0000007full;

	x = y | (x - 100 * y) << 16;
	y = (x * 103 >> 10) & 0x000f000f000f000full;
	x = y | (x - 10 * y) << 8;
	return x | 0x3030303030303030ull;
}

/* @v (< 10^8) in exactly 8 decimal digits at @p */
static inline char *iot_fmt_8(char *p, uint32_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t d = iot_digits8(v);

	memcpy(p, &d, 8);
#else
	uint32_t a = v / 10000, b = v % 10000;

	memcpy(p, iot_d2 + a / 100 * 2, 2);
	memcpy(p + 2, iot_d2 + a % 100 * 2, 2);
	memcpy(p + 4, iot_d2 + b / 100 * 2, 2);
	memcpy(p + 6, iot_d2 + b % 100 * 2, 2);
#endif
	return p + 8;
}

/*
 * @v in decimal at @p; the end.  Up to 8 digits: all 8 made (three
 * multiplications), the significant ones copied as one 8-byte word (the
 * caller's buffer has room past the number: what is beyond its end is
 * overwritten by what follows or not written out).  Always inline: a CSV
 * line makes about 9 of them, and out of line each paid a call on top of
 * its 40-odd instructions (47 instructions a line in all, by callgrind).
 */
static __always_inline char *
iot_fmt_u32(char *p, uint32_t v)
{
	unsigned int len;

	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	if (v < 100) {
		memcpy(p, iot_d2 + v * 2, 2);
		return p + 2;
	}
	if (v >= 100000000) {
		uint32_t hi = v / 100000000;	/* 1 .. 42 */

		if (hi < 10) {
			*p++ = (char)('0' + hi);
		} else {
			memcpy(p, iot_d2 + hi * 2, 2);
			p += 2;
		}
		return iot_fmt_8(p, v % 100000000);
	}
	if (v < 10000)
		len = v < 1000 ? 3 : 4;
	else
		len = v < 1000000 ? (v < 100000 ? 5 : 6) :
		      (v < 10000000 ? 7 : 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	{
		/* the leading zeros shifted out in a register */
		uint64_t d = iot_digits8(v) >> (8 * (8 - len));

		memcpy(p, &d, 8);
	}
#else
	{
		char t[16];

		memset(t + 8, 0, 8);
		iot_fmt_8(t, v);
		memcpy(p, t + 8 - len, 8);
	}
#endif
	return p + len;
}

/*
 * @v in decimal at @p; the end.  No printf, and 64-bit divisions only to
 * cut a large value into 8-digit pieces.
 */
static __always_inline char *
iot_fmt_u64(char *p, uint64_t v)
{
	uint64_t rest;

	if (v <= UINT32_MAX)
		return iot_fmt_u32(p, (uint32_t)v);
	if (v < 10000000000000000ull) {
		p = iot_fmt_u32(p, (uint32_t)(v / 100000000));
		return iot_fmt_8(p, (uint32_t)(v % 100000000));
	}
	rest = v % 10000000000000000ull;
	p = iot_fmt_u32(p, (uint32_t)(v / 10000000000000000ull));
	p = iot_fmt_8(p, (uint32_t)(rest / 100000000));
	return iot_fmt_8(p, (uint32_t)(rest % 100000000));
}

#endif /* IOT_NUMFMT_H */
