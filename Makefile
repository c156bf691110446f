# dfu — build, test, demo and install.
#   make            build a release binary (.build/release/dfu)
#   make test       install what the tests need (as root), run every test, the real-BlueZ VM suite included
#   make test-unit  only the Swift tests (no VM)
#   make test-bluez only the real-BlueZ VM suite (Tests/BlueZVM/README.md)
#   make demo       inspect a bundled sample package, then upload it to a simulated device through dfu-sim
#   make fuzz       libFuzzer over every parser, FUZZ_SECONDS per target (Fuzz/README.md)
#   make soak       SOAK_RUNS (500) uploads with seeded random faults through dfu-sim, SOAK_SEED=N to replay (Soak/README.md)
#   make bench      the benchmark figures (Benchmarks/README.md); BENCH_JSON=out.json writes them as JSON
#   make install    PREFIX=/usr/local DESTDIR= (staging root)
#   make clean

SWIFT   ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
PREFIX  ?= /usr/local
DESTDIR ?=
BIN      = .build/release/dfu

.PHONY: all build deps lint test test-unit demo install uninstall clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build -c release --product dfu
	$(SWIFT) build -c release --product dfu-sim

test: test-unit test-bluez

lint:
	@scripts/lint.sh

test-unit: deps lint
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# The main job on the built-in default: a SoftDevice+bootloader+application package uploaded to a
# simulated nRF52 application with buttonless DFU, served by dfu-sim as a stand-in for bluetoothd
# on a private D-Bus. dfu finds the bootloader at address + 1, sends both parts, and dfu-sim's
# report shows the images that ended up in the simulated flash.
DEMO_PACKAGE ?= firmware-samples/secure-sd-bl-app.zip
demo: build
	$(BIN) inspect $(DEMO_PACKAGE)
	.build/release/dfu-sim run --device buttonless,sd_id=0xB7,sd_id_after=0x101 --report .build/demo-report.json \
	    -- $(BIN) upload $(DEMO_PACKAGE) --device C0:FF:EE:00:00:10
	@echo "dfu-sim's report of the simulated flash (.build/demo-report.json):"
	@cat .build/demo-report.json; echo

install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/dfu
	install -m 755 .build/release/dfu-sim $(DESTDIR)$(PREFIX)/bin/dfu-sim
	install -m 644 docs/dfu.1 $(DESTDIR)$(PREFIX)/share/man/man1/dfu.1
	install -m 644 docs/dfu.bash-completion $(DESTDIR)$(PREFIX)/share/bash-completion/completions/dfu

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/dfu $(DESTDIR)$(PREFIX)/bin/dfu-sim $(DESTDIR)$(PREFIX)/share/man/man1/dfu.1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions/dfu

clean:
	rm -rf .build

include Tests/BlueZVM/bluez-vm.mk
include Benchmarks/bench.mk
include Fuzz/fuzz.mk
include Soak/soak.mk
