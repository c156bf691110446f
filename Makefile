# dfu — build, test, demo and install.
#   make            build a release binary (.build/release/dfu)
#   make test       install what the tests need (as root), run every test, the real-BlueZ VM suite included
#   make test-unit  only the Swift tests (no VM)
#   make test-bluez only the real-BlueZ VM suite (Tests/BlueZVM/README.md)
#   make demo       the main job on a bundled sample package
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

test: test-unit test-bluez

lint:
	@scripts/lint.sh

test-unit: deps lint
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

demo: build
	$(BIN) inspect firmware-samples/secure-sd-bl-app.zip

install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/dfu

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/dfu

clean:
	rm -rf .build

include Tests/BlueZVM/bluez-vm.mk
