#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# poweroff_hang: a QEMU that stays alive after its guest ended the test and
# powered off (here -no-shutdown keeps it) is killed by the harness a few
# seconds later, and the test's verdict is its exit code, with a note: not
# a wait for VM-TIMEOUT, not a crash.
# VM-CHECK: all
# VM-SELFTEST-NO-SHUTDOWN: yes
# VM-EXPECT-NOTE: ^QEMU killed [0-9]+s after its guest powered off
# VM-TIMEOUT: 300
echo "ok 1 the test ends; its guest powers off"
exit 0
