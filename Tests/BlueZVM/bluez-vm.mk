# The real-BlueZ VM harness (Tests/BlueZVM/README.md), for the top-level Makefile to include:
#   include Tests/BlueZVM/bluez-vm.mk
#
#   make test-bluez                       install what it needs (as root), boot the VM once,
#                                         run the scenarios, exit 0 only if all passed
#   make test-bluez BLUEZVM_SCENARIOS="Tests/BlueZVM/scenarios/smoke.sh ..."
#   make test-bluez BLUEZVM_FLAGS="--accel tcg --timeout 900"
# Logs: .build/bluez-vm/out/ (console, bluetoothd debug log, btmon trace, each scenario's output).

BLUEZVM_DIR           := Tests/BlueZVM
# The scenarios to run, in order (empty: the smoke scenario).
BLUEZVM_SCENARIOS     ?=
# More options for run.sh (see Tests/BlueZVM/run.sh --help).
BLUEZVM_FLAGS         ?=
# Where the scenarios find the project's binaries, and the targets that build them.
BLUEZVM_BIN           ?= .build/release
BLUEZVM_PREREQUISITES ?= build

.PHONY: test-bluez bluez-vm-deps

bluez-vm-deps:
	@$(BLUEZVM_DIR)/install.sh

test-bluez: bluez-vm-deps $(BLUEZVM_PREREQUISITES)
	$(BLUEZVM_DIR)/run.sh --bin-dir $(BLUEZVM_BIN) $(BLUEZVM_FLAGS) $(BLUEZVM_SCENARIOS)

# The harness's own check: usage errors, and one boot whose failing and hanging scenarios must be
# reported as such (Tests/BlueZVM/selftest.sh).
.PHONY: test-bluez-harness
test-bluez-harness: bluez-vm-deps
	$(BLUEZVM_DIR)/selftest.sh $(BLUEZVM_FLAGS)
