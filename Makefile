# SPDX-License-Identifier: GPL-2.0
KDIR ?= /lib/modules/$(shell uname -r)/build

# Kernels with headers installed: make modules-all builds for each of them.
KVERS ?= $(patsubst /lib/modules/%/build,%,$(wildcard /lib/modules/*/build))
# make check filters: TESTS="smoke ring_overwrite" KERNELS="6.12.117+deb12-amd64"
TESTS ?=
KERNELS ?=
# make vm-shell KVER=... DEVICES="nvme ahci" (default: newest kernel, no disks)
KVER ?=
DEVICES ?=

all: module tools

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

tools:
	$(MAKE) -C tools

# One build tree per kernel: build/<kver>/module/iotrace.ko.
modules-all:
	@set -e; for k in $(KVERS); do \
		echo "== modules for $$k"; \
		$(CURDIR)/selftests/vm/build-module $$k; \
	done

deps:
	$(CURDIR)/.ci/install-deps

# selftests/vm/check runs .ci/install-deps itself (and times it).
check:
	TESTS="$(TESTS)" KERNELS="$(KERNELS)" $(CURDIR)/selftests/vm/check

demo: deps
	$(CURDIR)/selftests/vm/demo

# The cost of tracing vs blktrace, bpftrace and ftrace (not part of check):
# see Documentation/benchmark.rst.  KERNELS as for check.
bench: deps modules-all
	KERNELS="$(KERNELS)" $(if $(BENCH_PARALLEL),BENCH_PARALLEL=$(BENCH_PARALLEL)) $(CURDIR)/selftests/bench/run

# Long libFuzzer run of iotracectl's parsers (FUZZ_RUNS per harness, default
# 10 million): see Documentation/fuzzing.rst.  make check runs a short one.
fuzz:
	$(MAKE) -C tools/fuzz fuzz $(if $(FUZZ_RUNS),FUZZ_RUNS=$(FUZZ_RUNS))

vm-shell:
	$(CURDIR)/selftests/vm/run-test --shell $(if $(KVER),--kernel $(KVER)) \
		$(if $(DEVICES),--devices "$(DEVICES)")

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	-[ ! -f tools/Makefile ] || $(MAKE) -C tools clean
	-[ ! -f tools/fuzz/Makefile ] || $(MAKE) -C tools/fuzz clean
	rm -rf build

.PHONY: all module tools modules-all deps check demo bench fuzz vm-shell clean
