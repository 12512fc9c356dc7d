# SPDX-License-Identifier: GPL-2.0
#
# Shared rules for iotrace selftest directories (kselftest style). A test
# directory's Makefile lists its tests and includes this file last:
#
#   TEST_PROGS := smoke.sh            # scripts, run as they are
#   TEST_GEN_PROGS := ring_mmap       # C programs built here from NAME.c
#   TEST_GEN_FILES := helper          # built too, but not run as tests
#   include ../lib/selftest.mk
#
# C tests use the kselftest harness: #include "kselftest_harness.h" (the
# headers are extracted from linux-source-6.12 into build/kselftest/ by
# .ci/install-deps) and <linux/iotrace.h> from uapi/.

IOTRACE_TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../..)
KSFT_INC ?= $(IOTRACE_TOP)/build/kselftest

# The kselftest headers are not ours and not -Wextra clean: -isystem.
CFLAGS += -Wall -Wextra -Werror -O2 -g -D_GNU_SOURCE \
	  -isystem $(KSFT_INC) -I$(IOTRACE_TOP)/uapi -I$(IOTRACE_TOP)/selftests/lib
LDLIBS += -lpthread

all: $(TEST_GEN_PROGS) $(TEST_GEN_FILES)

%: %.c $(wildcard $(KSFT_INC)/kselftest_harness.h $(IOTRACE_TOP)/uapi/linux/*.h)
	$(CC) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) $< $(LDLIBS) -o $@

print-tests:
	@echo $(TEST_PROGS) $(TEST_GEN_PROGS)

clean:
	rm -f $(TEST_GEN_PROGS) $(TEST_GEN_FILES)

.PHONY: all print-tests clean
