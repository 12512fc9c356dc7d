# SPDX-License-Identifier: GPL-2.0
KDIR ?= /lib/modules/$(shell uname -r)/build

# The kernels of the matrix (selftests/kernels) that are installed or
# fetched (those KERNELS names, when set): make modules-all builds for each.
KVERS ?= $(shell bash -c '. $(CURDIR)/selftests/vm/kernels.sh && \
	for k in $$(kern_list all); do kern_wanted "$$k" $(KERNELS) && echo "$$k"; done')
# make check filters: TESTS="smoke ring_overwrite" KERNELS="6.12.117+deb12-amd64"
TESTS ?=
KERNELS ?=
# make vm-shell KVER=... DEVICES="nvme ahci" (default: newest kernel, no disks)
KVER ?=
DEVICES ?=

all: module tools

# need-kdir DIR RELEASE - stop with what to install when DIR has no
# kernel build tree (make would only say "No such file or directory").
define need-kdir
	@[ -f "$(1)/Makefile" ] || { \
		echo "iotrace: no kernel headers$(if $(2), for $(2)) at $(1)" >&2; \
		echo "  install them: linux-headers-$(or $(2),<release>) (Debian, Ubuntu)" \
		     "or kernel-devel-$(or $(2),<release>) (Fedora, RHEL),"  >&2; \
		echo "  or name a kernel build tree: make KDIR=/lib/modules/<release>/build" >&2; \
		exit 1; }
endef

module:
	$(call need-kdir,$(KDIR),$(if $(filter file,$(origin KDIR)),$(shell uname -r)))
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

# Every guest test on every kernel of the matrix (hours; not run by CI):
# run before resolving an issue that changes module/.
check-all:
	CHECK_ALL=1 TESTS="$(TESTS)" KERNELS="$(KERNELS)" $(CURDIR)/selftests/vm/check

# The core, stress, control, fault, trigger/hold and metrics tests on
# KASAN/lockdep and KCSAN builds of Debian's 6.12, built from
# linux-source-6.12 and cached in build/kernels/ (an hour or more the
# first time; not run by CI): see Documentation/testing.rst.
check-debug:
	TESTS="$(TESTS)" $(CURDIR)/selftests/vm/check-debug

# checkpatch.pl --strict on every C file (make check runs it too): the
# module clean, userspace without the kernel-only checks.
checkpatch:
	$(CURDIR)/selftests/style/checkpatch

# Has Debian published a kernel newer than the matrix's newest?
kernels-check:
	$(CURDIR)/selftests/vm/kernels-check

# Fetch the kernels of the matrix Debian 12 cannot install (make deps does).
kernels:
	$(CURDIR)/selftests/vm/fetch-kernel

# The long fault-matrix runs (selftests/soak/: 10 million records through a
# wrapping ring, 50 rounds of each loop): see Documentation/testing.rst.
# KERNELS and TESTS as for check.
soak:
	SOAK=1 TESTS="$(TESTS)" KERNELS="$(KERNELS)" $(CURDIR)/selftests/vm/check

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

# --- install, uninstall, DKMS source, Debian packages (Documentation/install.rst)
# make install [KVER=<release> | KDIR=<headers>] [DESTDIR=] [PREFIX=/usr/local]
#   [INSTALL_MOD_PATH=] [INSTALL_MOD_DIR=extra]
# The module is built for KVER (default: the running kernel, or the release
# of the headers in KDIR when KDIR is given) in build/install/<release>/.
VERSION := $(shell cat $(CURDIR)/VERSION)
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
INCLUDEDIR ?= $(PREFIX)/include
LIBDIR ?= $(PREFIX)/lib
# libiotrace.pc (the Debian packages: LIBDIR=/usr/lib/<multiarch>)
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
# udev reads /etc/udev/rules.d and /usr/lib/udev/rules.d, not $(PREFIX)
UDEVRULESDIR ?= /etc/udev/rules.d
# the systemd units (the exporter's, the snapshot service's)
SYSTEMDUNITDIR ?= /etc/systemd/system
# the snapshot service's configuration: $(SYSCONFDIR)/iotrace/iotrace.conf
SYSCONFDIR ?= /etc
INSTALL_MOD_PATH ?=
INSTALL_MOD_DIR ?= extra
DESTDIR ?=
ifeq ($(origin KDIR),file)
INST_KVER = $(or $(KVER),$(shell uname -r))
INST_KDIR = /lib/modules/$(INST_KVER)/build
else
INST_KDIR = $(KDIR)
INST_KVER = $(or $(KVER),$(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null))
endif
INST_BUILD = $(CURDIR)/build/install/$(INST_KVER)
INST_MODDIR = $(DESTDIR)$(INSTALL_MOD_PATH)/lib/modules/$(INST_KVER)/$(INSTALL_MOD_DIR)
# What the module's source tree is made of (DKMS ships the same files).
MOD_SOURCES := Kbuild VERSION module uapi
MAN8 := build/man/iotracectl.8
# libiotrace(3): the library's overview; the header's kernel-doc comments
# describe each function
MAN3 := build/man/libiotrace.3

$(MAN8): Documentation/iotracectl.rst
$(MAN3): Documentation/libiotrace.rst
$(MAN8) $(MAN3):
	@command -v rst2man > /dev/null || \
		{ echo "rst2man is missing (Debian: python3-docutils)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	rst2man $< $@

man: $(MAN8) $(MAN3)

# A private copy of the sources per kernel: kbuild writes its objects
# beside them, and other kernels' objects must not get in the way.
install-module-build:
	@[ -n "$(INST_KVER)" ] || { echo "install: cannot tell the kernel release (set KVER)" >&2; exit 1; }
	$(call need-kdir,$(INST_KDIR),$(INST_KVER))
	@mkdir -p $(INST_BUILD)
	tar -C $(CURDIR) -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='.*.cmd' --exclude='*.order' \
		--exclude='Module.symvers' $(MOD_SOURCES) | tar -C $(INST_BUILD) -xf -
	$(MAKE) -C $(INST_KDIR) M=$(INST_BUILD) modules

install-module: install-module-build
	install -D -m 644 $(INST_BUILD)/module/iotrace.ko $(INST_MODDIR)/iotrace.ko
	$(if $(DESTDIR),,depmod -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(INST_KVER))

# The tool, its man page and the uapi header.
install-tools: $(MAN8)
	$(MAKE) -C tools install-bin DESTDIR=$(DESTDIR) SBINDIR=$(SBINDIR)
	install -D -m 644 $(MAN8) $(DESTDIR)$(MANDIR)/man8/iotracectl.8
	install -D -m 644 uapi/linux/iotrace.h $(DESTDIR)$(INCLUDEDIR)/linux/iotrace.h
	@# the NVMe status layout, from nvme_core's BTF, whenever it or iotrace loads
	mkdir -p $(DESTDIR)$(UDEVRULESDIR)
	sed 's|@SBINDIR@|$(SBINDIR)|' tools/udev/60-iotrace.rules.in > \
		$(DESTDIR)$(UDEVRULESDIR)/60-iotrace.rules
	chmod 644 $(DESTDIR)$(UDEVRULESDIR)/60-iotrace.rules
	@# iotracectl exporter as a service (not enabled: systemctl enable --now)
	mkdir -p $(DESTDIR)$(SYSTEMDUNITDIR)
	sed 's|@SBINDIR@|$(SBINDIR)|' tools/systemd/iotrace-exporter.service.in > \
		$(DESTDIR)$(SYSTEMDUNITDIR)/iotrace-exporter.service
	chmod 644 $(DESTDIR)$(SYSTEMDUNITDIR)/iotrace-exporter.service
	@# the snapshot service, iotracectl watch (not enabled: systemctl
	@# enable --now iotrace), and its configuration, kept when there
	sed -e 's|@SBINDIR@|$(SBINDIR)|' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		tools/systemd/iotrace.service.in > $(DESTDIR)$(SYSTEMDUNITDIR)/iotrace.service
	chmod 644 $(DESTDIR)$(SYSTEMDUNITDIR)/iotrace.service
	[ -e $(DESTDIR)$(SYSCONFDIR)/iotrace/iotrace.conf ] || \
		install -D -m 644 tools/systemd/iotrace.conf $(DESTDIR)$(SYSCONFDIR)/iotrace/iotrace.conf

# libiotrace: the shared and static library, its header
# ($(INCLUDEDIR)/iotrace/), its pkg-config file (the libiotrace1 and
# libiotrace-dev packages); ldconfig unless DESTDIR is set, so that the
# dynamic loader finds libiotrace.so.1 in $(LIBDIR)
install-lib: $(MAN3)
	$(MAKE) -C tools install-lib DESTDIR=$(DESTDIR) PREFIX=$(PREFIX) \
		LIBDIR=$(LIBDIR) INCLUDEDIR=$(INCLUDEDIR) PKGCONFIGDIR=$(PKGCONFIGDIR)
	install -D -m 644 $(MAN3) $(DESTDIR)$(MANDIR)/man3/libiotrace.3
	$(if $(DESTDIR),,ldconfig)

uninstall-lib:
	$(MAKE) -C tools uninstall-lib DESTDIR=$(DESTDIR) PREFIX=$(PREFIX) \
		LIBDIR=$(LIBDIR) INCLUDEDIR=$(INCLUDEDIR) PKGCONFIGDIR=$(PKGCONFIGDIR)
	rm -f $(DESTDIR)$(MANDIR)/man3/libiotrace.3
	$(if $(DESTDIR),,ldconfig)

install: install-module install-tools install-lib

uninstall:
	rm -f $(INST_MODDIR)/iotrace.ko
	-rmdir $(INST_MODDIR) 2> /dev/null
	$(if $(DESTDIR),,[ ! -d /lib/modules/$(INST_KVER) ] || depmod -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(INST_KVER))
	$(MAKE) -C tools uninstall DESTDIR=$(DESTDIR) SBINDIR=$(SBINDIR) \
		PREFIX=$(PREFIX) LIBDIR=$(LIBDIR) INCLUDEDIR=$(INCLUDEDIR) \
		PKGCONFIGDIR=$(PKGCONFIGDIR)
	$(if $(DESTDIR),,ldconfig)
	rm -f $(DESTDIR)$(MANDIR)/man8/iotracectl.8 $(DESTDIR)$(MANDIR)/man3/libiotrace.3 \
		$(DESTDIR)$(INCLUDEDIR)/linux/iotrace.h
	rm -f $(DESTDIR)$(UDEVRULESDIR)/60-iotrace.rules
	rm -f $(DESTDIR)$(SYSTEMDUNITDIR)/iotrace-exporter.service
	rm -f $(DESTDIR)$(SYSTEMDUNITDIR)/iotrace.service
	@# the configuration only as installed: an edited one stays
	if cmp -s tools/systemd/iotrace.conf $(DESTDIR)$(SYSCONFDIR)/iotrace/iotrace.conf; then \
		rm -f $(DESTDIR)$(SYSCONFDIR)/iotrace/iotrace.conf; \
		rmdir $(DESTDIR)$(SYSCONFDIR)/iotrace 2> /dev/null || true; fi

# The module's sources as DKMS wants them: $(DESTDIR)/usr/src/iotrace-<VERSION>/
# with dkms.conf (version filled in).  Then, as root:
#   dkms add iotrace/<VERSION> && dkms install iotrace/<VERSION>
DKMS_SRC = $(DESTDIR)/usr/src/iotrace-$(VERSION)
install-dkms-src:
	@mkdir -p $(DKMS_SRC)
	tar -C $(CURDIR) -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='.*.cmd' --exclude='*.order' \
		--exclude='Module.symvers' $(MOD_SOURCES) | tar -C $(DKMS_SRC) -xf -
	sed 's/#MODULE_VERSION#/$(VERSION)/' dkms.conf > $(DKMS_SRC)/dkms.conf

# make deb: the .debs of Documentation/install.rst in build/deb/, built from
# a copy of the files git knows (the tree itself stays clean).
deb:
	rm -rf build/deb
	mkdir -p build/deb/iotrace-$(VERSION)
	git -C $(CURDIR) ls-files -z -c -o --exclude-standard | \
		tar -C $(CURDIR) --null --ignore-failed-read -T - -cf - | tar -C build/deb/iotrace-$(VERSION) -xf -
	cd build/deb/iotrace-$(VERSION) && dpkg-buildpackage -us -uc -b
	@ls -l build/deb/*.deb


clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	-[ ! -f tools/Makefile ] || $(MAKE) -C tools clean
	-[ ! -f tools/fuzz/Makefile ] || $(MAKE) -C tools/fuzz clean
	rm -rf build

.PHONY: all module tools modules-all deps check check-all check-debug checkpatch
.PHONY: kernels-check kernels
.PHONY: soak demo bench fuzz vm-shell clean
.PHONY: man install install-module-build install-module install-tools install-lib
.PHONY: uninstall uninstall-lib
.PHONY: install-dkms-src deb
