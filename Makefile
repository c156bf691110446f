# dfu — build, test, demo and install.
#   make            build a release binary (.build/release/dfu)
#   make test       install what the tests need (as root), run every test, the real-BlueZ VM suite included
#   make test-unit  only the Swift tests (no VM)
#   make test-clients  clients written elsewhere: bleak against dfu-sim, dfu against bluezoo (Tests/Clients/README.md)
#   make test-bluez only the real-BlueZ VM suite (Tests/BlueZVM/README.md); BLUEZ=5.55 against Debian 11's bluetoothd;
#                   make test-bluez-versions what make test runs: 5.66's suite and 5.55's nRF5 uploads, two boots at once
#   make test-bluez-matrix  the suite against every bluetoothd it names (5.55, 5.66, 5.82, 5.87)
#   make test-under-load  the Swift tests and the client suites UNDER_LOAD_RUNS (3) times each beside
#                   UNDER_LOAD_LOOPS (2) busy CPU loops; every run must pass (scripts/under-load.sh; not in make test)
#   make test-sanitize  the Swift tests under AddressSanitizer (.build-asan) and ThreadSanitizer (.build-tsan);
#                   make test-asan / make test-tsan for one (Sanitizers/README.md; not part of make test)
#   make demo       inspect a bundled sample package, then upload it to a simulated device through dfu-sim;
#                   then the same for an MCUboot image and a simulated nRF Connect SDK device (SMP)
#   make fuzz       libFuzzer over every parser, FUZZ_SECONDS per target (Fuzz/README.md)
#   make soak       SOAK_RUNS (500) uploads with seeded random faults through dfu-sim, SOAK_SEED=N to replay (Soak/README.md)
#   make bench      the benchmark figures (Benchmarks/README.md); BENCH_JSON=out.json writes them as JSON
#   make bench-bluez figure 3 through the real bluetoothd in the VM (Tests/BlueZVM/README.md)
#   make soak-bluez SOAK_UPLOADS (100) uploads through the real bluetoothd in one VM boot, no growth of
#                   dfu's or bluetoothd's descriptors or memory allowed (Tests/BlueZVM/README.md, "Soak")
#   make install    PREFIX=/usr/local DESTDIR= (staging root)
#   make deb        .build/deb/dfu_VERSION_ARCH.deb (+ -dbgsym): Swift runtime linked statically, no toolchain
#                   needed to install it (docs/packaging.md); make dist: the same files as a tarball (.build/dist)
#   make test-deb   install that package with apt-get in a fresh minimal Debian 12 root and use it there (root)
#   make deb-arm64  .build/deb-arm64/dfu_VERSION_arm64.deb for Debian 13 arm64, cross-compiled with Debian 13's
#                   Swift 6.0.3 in an amd64 Debian 13 root (root; docs/packaging.md); make test-deb-arm64: install
#                   it in a fresh arm64 Debian 13 root under qemu-user and use it there (neither is in make test)
#   make clean

SWIFT   ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
PREFIX  ?= /usr/local
DESTDIR ?=
BIN      = .build/release/dfu
# Leak checking is off under test-asan: LeakSanitizer reports leaks in Foundation, XCTest and test
# fixtures, and misreads Swift enum payloads (Sanitizers/README.md); ASAN_OPTIONS=detect_leaks=1 shows them.
# TSan suppresses only the false positives of Swift's Mutex on Linux (Sanitizers/tsan.supp).
# A crash (a Swift trap is SIGILL) is reported by ASan itself, with a symbolised stack: Swift's own backtracer
# reads the crashed process's memory in a way ASan takes for an overflow, and its report was lost that way.
ASAN_OPTIONS ?= detect_leaks=0:handle_sigill=1:handle_abort=1
TSAN_OPTIONS ?= halt_on_error=0:suppressions=$(CURDIR)/Sanitizers/tsan.supp

.PHONY: all build deps lint test test-unit test-clients test-sanitize test-asan test-tsan demo install uninstall clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build -c release --product dfu
	$(SWIFT) build -c release --product dfu-sim

test: test-unit test-clients test-bluez-versions

lint:
	@scripts/lint.sh

test-unit: deps lint
	$(SWIFT) build --build-tests
	@Tests/Fixtures/mcuboot/imgtool-venv.sh >/dev/null || echo "test-unit: imgtool (PyPI) could not be installed; its live tests are skipped" >&2
	$(SWIFT) test --skip-build

# bleak (PyPI) against dfu-sim and dfu against bluezoo (PyPI), with pytest in a venv under .build.
test-clients: deps
	SWIFT=$(SWIFT) Tests/Clients/run.sh

# The unit suite and the client suites with busy CPU loops beside them, several runs each, none retried
# (scripts/under-load.sh): timing assumptions that hold only on a quiet machine fail here.
UNDER_LOAD_RUNS  ?= 3
UNDER_LOAD_LOOPS ?= 2
.PHONY: test-under-load
test-under-load: deps lint
	$(SWIFT) build --build-tests
	@Tests/Fixtures/mcuboot/imgtool-venv.sh >/dev/null || echo "test-under-load: imgtool (PyPI) could not be installed; its live tests are skipped" >&2
	scripts/under-load.sh --loops $(UNDER_LOAD_LOOPS) --runs $(UNDER_LOAD_RUNS) --label "unit suite" -- $(SWIFT) test --skip-build
	scripts/under-load.sh --loops $(UNDER_LOAD_LOOPS) --runs $(UNDER_LOAD_RUNS) --label "client suites" -- env SWIFT=$(SWIFT) Tests/Clients/run.sh

# The Swift tests under the sanitizers, each in its own build directory (the dfu and dfu-sim the
# tests start are built with the same sanitizer). Suppressions and options: Sanitizers/README.md.
test-sanitize: test-asan test-tsan

test-asan: deps
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build-asan
	ASAN_OPTIONS=$(ASAN_OPTIONS) SWIFT_BACKTRACE=enable=no DFU_TEST_TIME_SCALE=4 \
	    $(SWIFT) test --skip-build --sanitize=address --scratch-path .build-asan

test-tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	TSAN_OPTIONS=$(TSAN_OPTIONS) DFU_TEST_TIME_SCALE=4 \
	    $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan

# The main job on the built-in default: a SoftDevice+bootloader+application package uploaded to a
# simulated nRF52 application with buttonless DFU, served by dfu-sim as a stand-in for bluetoothd
# on a private D-Bus. dfu finds the bootloader at address + 1, sends both parts, and dfu-sim's
# report shows the images that ended up in the simulated flash.
DEMO_PACKAGE ?= firmware-samples/secure-sd-bl-app.zip
# An MCUboot image signed by imgtool (Tests/Fixtures/mcuboot/README.md), sent over SMP to dfu-sim's smp kind.
DEMO_MCUBOOT ?= Tests/Fixtures/mcuboot/images/ecdsa-p256.bin
demo: build
	$(BIN) inspect $(DEMO_PACKAGE)
	.build/release/dfu-sim run --device buttonless,sd_id=0xB7,sd_id_after=0x101 --report .build/demo-report.json \
	    -- $(BIN) upload $(DEMO_PACKAGE) --device C0:FF:EE:00:00:10
	@echo "dfu-sim's report of the simulated flash (.build/demo-report.json):"
	@cat .build/demo-report.json; echo
	$(BIN) inspect $(DEMO_MCUBOOT)
	.build/release/dfu-sim run --device smp --report .build/demo-smp-report.json \
	    -- sh -c '"$$0" upload "$$1" --device C0:FF:EE:00:00:10 && "$$0" images --device C0:FF:EE:00:00:10' \
	    $(BIN) $(DEMO_MCUBOOT)
	@echo "dfu-sim's report of the simulated MCUboot slots (.build/demo-smp-report.json):"
	@cat .build/demo-smp-report.json; echo

# The binaries of make static (the Debian package's): no Swift toolchain needed to run them.
install: static
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 755 $(STATIC_SCRATCH)/release/dfu $(DESTDIR)$(PREFIX)/bin/dfu
	install -m 755 $(STATIC_SCRATCH)/release/dfu-sim $(DESTDIR)$(PREFIX)/bin/dfu-sim
	@# The man pages' header names the version the installed dfu prints.
	version=$$($(STATIC_SCRATCH)/release/dfu --version | sed -n 's/^dfu //p'); for page in dfu dfu-sim; do \
	    sed "1s/\"dfu [^\"]*\"/\"dfu $$version\"/" docs/$$page.1 > $(DESTDIR)$(PREFIX)/share/man/man1/$$page.1 \
	        && chmod 644 $(DESTDIR)$(PREFIX)/share/man/man1/$$page.1 || exit 1; done
	install -m 644 docs/dfu.bash-completion $(DESTDIR)$(PREFIX)/share/bash-completion/completions/dfu

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/dfu $(DESTDIR)$(PREFIX)/bin/dfu-sim $(DESTDIR)$(PREFIX)/share/man/man1/dfu.1 $(DESTDIR)$(PREFIX)/share/man/man1/dfu-sim.1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions/dfu

# Packaging (docs/packaging.md). The release binaries with the Swift runtime, Dispatch and Foundation
# linked statically, in their own build directory; the C libraries stay dynamic and become Depends.
.PHONY: static deb dist test-deb deb-deps test-deb-deps
STATIC_SCRATCH ?= .build/static
DEB_DIR        ?= .build/deb
DIST_DIR       ?= .build/dist

deb-deps:
	@scripts/install-deps.sh --for "make deb" dpkg-dev binutils lintian xz-utils

test-deb-deps:
	@scripts/install-deps.sh --for "make test-deb" debootstrap debian-archive-keyring python3 dpkg-dev

# What users get (make install, make deb). The Swift runtime linked in (-static-stdlib), and libstdc++
# too (only the Swift runtime uses it; the toolchain's static-stdlib-args.lnk names -lstdc++, which the
# linker script libstdc++.so in $(STATIC_SCRATCH)/libstdc++, searched first, turns into the static
# archive). Linked by lld with packed relative relocations (DT_RELR, glibc 2.36+: 8 KB of .relr.dyn where
# ld.so would read 1 MB of .rela.dyn at every start) and no symbol exported but what the C libraries
# need, and no RUNPATH: SwiftPM's $ORIGIN had ld.so look for every library in the binary's own folder
# first (26 failed openat at each start of /usr/bin/dfu); the functions dfu's common paths run placed first
# (packaging/dfu.order, written by packaging/symbol-order.sh: fewer pages touched, a smaller resident set),
# each of the project's functions in a section of its own (-function-sections) so that lld can move it.
# Generic types are instantiated through their metadata accessors, which get the conformances their
# requirements need from the code, not through mangled names (-disable-concrete-type-metadata-mangled-name-accessors):
# a mangled name makes the runtime look up each such conformance on first use, a scan of every conformance record
# in the binary (about 34,000 instructions each); a 4 KB upload made 87, and all start-up instantiations together
# cost 5.5 M of its 23.8 M instructions (callgrind; 0.5 M after, for 60 KB more code).
# Measured in docs/packaging.md "How the binaries are linked".
STATIC_LIBSTDCXX = $(abspath $(STATIC_SCRATCH))/libstdc++
STATIC_FLAGS = -Xswiftc -static-stdlib -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld \
    -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors \
    -Xswiftc -Xfrontend -Xswiftc -function-sections \
    -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic -Xlinker -L$(STATIC_LIBSTDCXX) \
    -Xlinker --symbol-ordering-file=$(abspath packaging/dfu.order) -Xlinker --no-warn-symbol-ordering \
    --disable-local-rpath
static: deps
	@packaging/static-libstdc++.sh "$$(dirname "$$(readlink -f "$(SWIFT)")")/clang" $(STATIC_LIBSTDCXX)
	$(SWIFT) build -c release $(STATIC_FLAGS) --scratch-path $(STATIC_SCRATCH) --product dfu
	$(SWIFT) build -c release $(STATIC_FLAGS) --scratch-path $(STATIC_SCRATCH) --product dfu-sim

# lintian's warnings fail the build. The tags suppressed are about the maintainer's address, which
# stays dfu@localhost until the project has a public one (DEB_MAINTAINER="Name <address>" sets it).
DEB_LINTIAN_SUPPRESS ?= maintainer-address-is-on-localhost,bogus-mail-host-in-debian-changelog
deb: deb-deps static
	packaging/build-deb.sh --bin-dir $(STATIC_SCRATCH)/release --out $(DEB_DIR)
	lintian --fail-on error,warning --suppress-tags $(DEB_LINTIAN_SUPPRESS) \
	    $$(sed 's|^|$(DEB_DIR)/|' $(DEB_DIR)/dfu.debs)

dist: deb
	packaging/build-dist.sh $(DEB_DIR) $(DIST_DIR)

test-deb: test-deb-deps deb
	packaging/test-deb.sh $(DEB_DIR)

# The same package for arm64 (Debian 13 trixie, Raspberry Pi OS based on it): cross-compiled at native
# speed with Debian 13's Swift 6.0.3 in an amd64 Debian 13 root under .build/arm64, against the arm64
# libraries and Swift runtime of that release (packaging/build-deb-arm64.sh, docs/packaging.md "arm64").
# test-deb-arm64 installs it in an arm64 Debian 13 root run by qemu-user. Neither is in make test.
.PHONY: deb-arm64 test-deb-arm64 deb-arm64-deps
DEB_ARM64_DIR ?= .build/deb-arm64
deb-arm64-deps:
	@scripts/install-deps.sh --for "make deb-arm64" debootstrap debian-archive-keyring qemu-user-static binfmt-support git

deb-arm64: deb-arm64-deps
	packaging/build-deb-arm64.sh $(DEB_ARM64_DIR)

test-deb-arm64: test-deb-deps deb-arm64
	packaging/test-deb.sh --suite trixie --arch arm64 $(DEB_ARM64_DIR)

clean:
	rm -rf .build .build-asan .build-tsan

include Tests/BlueZVM/bluez-vm.mk
include Benchmarks/bench.mk
include Fuzz/fuzz.mk
include Soak/soak.mk
