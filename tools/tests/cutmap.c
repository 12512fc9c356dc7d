// SPDX-License-Identifier: GPL-2.0
/*
 * cutmap.so, LD_PRELOADed by run-host-tests.sh: every mmap() of a regular
 * file longer than $CUT_SIZE bytes truncates the file to that size once
 * it is mapped, as a file cut short while it is read (the reader then
 * faults past its new end: SIGBUS).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static mmap_fn real;
	const char *cut = getenv("CUT_SIZE");
	struct stat st;
	char p[64];
	void *m;

	if (!real)
		real = (mmap_fn)dlsym(RTLD_NEXT, "mmap");
	m = real(addr, len, prot, flags, fd, off);
	if (m == MAP_FAILED || !cut || fd < 0 || fstat(fd, &st) ||
	    !S_ISREG(st.st_mode) || st.st_size <= atol(cut))
		return m;
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	if (truncate(p, atol(cut)))
		perror("cutmap: truncate");
	return m;
}
