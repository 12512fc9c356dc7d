#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# persist_core: the core of persist.sh, for make check (the full-suite
# kernels; make check-all: every kernel).
# Phase 1: rings of null_blk, the NVMe disk and a scsi_debug disk in the
# region (reserve_mem= on 6.11 and newer, memmap= before); fio with
# write_iolog on the first two; one read stuck in scsi_debug; a panic.
# Phase 2: the previous boot's trace holds every I/O fio logged exactly
# once with its op, sector and length, the counts equal the stat deltas,
# the stuck read is in the in-flight table with its READ(10) CDB, each
# disk's capacity, model, serial and wwn are sysfs's of before, and the
# trace file written from it holds the same records and the stuck read
# and names the boot that died (its boot_id) and its records' span; locked
# down, iotracectl previous --release frees the copy through the device
# while a reader is held in its copy to user space.
# persist.sh (make check-all) adds QEMU's dump, a reset without sync and
# refused regions.
# VM-REBOOTS: 1
# VM-MEM: 512
# VM-DEVICES: nvme
# VM-CMDLINE: memmap=64M$0x10000000 reserve_mem=64M:4096:iotrace nokaslr
# VM-TIMEOUT: 900
# VM-BATCH: no
PERSIST_CORE=1
. "$IOTRACE_SRC/selftests/iotrace/persist.sh"
