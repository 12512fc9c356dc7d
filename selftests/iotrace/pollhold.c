// SPDX-License-Identifier: GPL-2.0
/*
 * pollhold: hold polled reads in flight.
 *
 *	pollhold DEVICE SECONDS OFFSET...
 *
 * Submits one 4 KiB O_DIRECT read per OFFSET (bytes) on an io_uring set up
 * with IORING_SETUP_IOPOLL and does not poll for SECONDS: a request on a
 * poll queue completes only when somebody polls it, so the disk's
 * requests stay in flight meanwhile whatever the device does.  Prints
 * "held N" once they are submitted, then reaps them and prints "read
 * OFFSET RESULT" for each (RESULT: bytes read, or -errno).  Exit 0 when
 * every read returned 4096, 1 otherwise, 4 when io_uring is unavailable
 * (not built, or kernel.io_uring_disabled).
 * No liburing: the raw system calls (linux/io_uring.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define HOLD_MAX	16
#define HOLD_LEN	4096

struct ring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static int ring_setup(struct ring *r, unsigned int entries)
{
	struct io_uring_params p;
	size_t sq_len, cq_len;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_IOPOLL;
	r->fd = syscall(__NR_io_uring_setup, entries, &p);
	if (r->fd < 0)
		return -errno;
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  r->fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		       IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		return -errno;
	r->sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)(sq + p.sq_off.array);
	r->cq_head = (unsigned int *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return 0;
}

static int ring_enter(struct ring *r, unsigned int submit, unsigned int wait,
		      unsigned int flags)
{
	return syscall(__NR_io_uring_enter, r->fd, submit, wait, flags, NULL, 0);
}

int main(int argc, char **argv)
{
	long long offs[HOLD_MAX];
	unsigned int i, n, tail, got = 0;
	struct ring r = { .fd = -1 };
	int fd, ret, bad = 0;
	char *buf;

	if (argc < 4 || argc - 3 > HOLD_MAX) {
		fprintf(stderr, "usage: pollhold DEVICE SECONDS OFFSET... (at most %d)\n",
			HOLD_MAX);
		return 2;
	}
	n = argc - 3;
	fd = open(argv[1], O_RDONLY | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "pollhold: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (posix_memalign((void **)&buf, HOLD_LEN, (size_t)n * HOLD_LEN))
		return 1;
	ret = ring_setup(&r, HOLD_MAX);
	if (ret) {
		fprintf(stderr, "pollhold: io_uring: %s\n", strerror(-ret));
		return 4;	/* no io_uring, or disabled */
	}
	tail = *r.sq_tail;
	for (i = 0; i < n; i++) {
		unsigned int idx = (tail + i) & *r.sq_mask;
		struct io_uring_sqe *sqe = &r.sqes[idx];

		offs[i] = atoll(argv[3 + i]);
		memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = IORING_OP_READ;
		sqe->fd = fd;
		sqe->addr = (uintptr_t)(buf + (size_t)i * HOLD_LEN);
		sqe->len = HOLD_LEN;
		sqe->off = offs[i];
		sqe->user_data = i;
		r.sq_array[idx] = idx;
	}
	__atomic_store_n(r.sq_tail, tail + n, __ATOMIC_RELEASE);
	ret = ring_enter(&r, n, 0, 0);
	if (ret != (int)n) {
		fprintf(stderr, "pollhold: submitted %d of %u: %s\n", ret, n,
			ret < 0 ? strerror(errno) : "short");
		return 1;
	}
	printf("held %u\n", n);
	fflush(stdout);
	sleep(atoi(argv[2]));
	while (got < n) {
		unsigned int head, ctail;

		ret = ring_enter(&r, 0, 1, IORING_ENTER_GETEVENTS);
		if (ret < 0 && errno != EINTR) {
			fprintf(stderr, "pollhold: reap: %s\n", strerror(errno));
			return 1;
		}
		head = *r.cq_head;
		ctail = __atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE);
		for (; head != ctail; head++) {
			struct io_uring_cqe *c = &r.cqes[head & *r.cq_mask];

			printf("read %lld %d\n", offs[c->user_data], c->res);
			if (c->res != HOLD_LEN)
				bad = 1;
			got++;
		}
		__atomic_store_n(r.cq_head, head, __ATOMIC_RELEASE);
	}
	return bad;
}
