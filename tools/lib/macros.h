/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's small helpers that the tools use under the same names, so
 * that their code reads (and checkpatch.pl checks it) as kernel code does.
 */
#ifndef IOT_MACROS_H
#define IOT_MACROS_H

/* the number of elements of an array (not of a pointer) */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* printf-like arguments: @a the format's position, @b the first argument's */
#define __printf(a, b)	__attribute__((format(printf, a, b)))

/* ends a case that goes on into the next one on purpose */
#define fallthrough	__attribute__((__fallthrough__))

#endif
