# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by run-test, run-batch and batch-guest: what their kernel-log
# scans call an error.  Besides the splats, the kernel's complaints about
# iotrace's use of an API (7.2 and later: "work func f [iotrace] enqueued
# on deprecated workqueue").
# shellcheck disable=SC2034
KLOG_PAT='BUG:|WARNING:|Oops|general protection fault|soft lockup|hung task|blocked for more than|refcount_t|\[iotrace\] enqueued on deprecated'
