# Fuzzing (include from the Makefile: `include Fuzz/fuzz.mk`).
#   make fuzz                      every target, FUZZ_SECONDS (default 20) each
#   make fuzz FUZZ_SECONDS=600     ten minutes each
#   make fuzz FUZZ_TARGETS="manifest intel-hex"
#   make fuzz-build                only build the binaries (.build-fuzz/bin/)
# Fails on any crash, trap, hang (FUZZ_TIMEOUT seconds on one input), leak or memory blow-up,
# and prints the reproducer's path. See Fuzz/README.md.

FUZZ_SECONDS ?= 20
FUZZ_TIMEOUT ?= 10
FUZZ_TARGETS ?=

.PHONY: fuzz fuzz-build fuzz-clean

fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_TIMEOUT=$(FUZZ_TIMEOUT) Fuzz/run.sh $(FUZZ_TARGETS)

fuzz-build: deps
	Fuzz/build.sh $(FUZZ_TARGETS)

fuzz-clean:
	rm -rf .build-fuzz
