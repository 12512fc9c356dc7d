#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# queue_time_core: queue_time.sh's first round alone, for make check on
# the full-suite kernels: a memory-backed null_blk with a volatile write
# cache under mq-deadline, ext4 with its journal, fio's batched direct I/O,
# buffered dd, sync, fsync and fdatasync, blktrace on the same disk; each
# record's allocation time (issue_ns - queue_ns) is blktrace's G, and each
# empty PREFLUSH write has its allocation time.  It fails on 6.9 and newer
# when the queue time is taken from rq->start_time_ns (the plug's cached
# clock).  queue_time.sh (make check-all) adds kyber, bfq, virtio-blk and
# SATA.
# VM-TIMEOUT: 900
# VM-SMP: 2
QUEUE_TIME_CORE=1
. "$IOTRACE_SRC/selftests/iotrace/queue_time.sh"
