# Chaos soak (include from the Makefile: `include Soak/soak.mk`). Not part of `make test`.
#   make soak                          SOAK_RUNS (default 500) chaos uploads + SOAK_SERVE_RUNS (100)
#                                      against one long-lived dfu-sim serve; ~15 minutes on 2 cores
#   make soak SOAK_SEED=1234           replay a soak (the seed is printed at start and with every failure)
#   make soak SOAK_SEED=1234 SOAK_ONLY=17   replay one chaos run
# Fails on a hang, a signal, an undocumented exit code, more than one error line, an image that is not
# byte-exact after exit 0, a simulator invariant violation, or fd/RSS/child growth of dfu-sim serve.
# See Soak/README.md.

SOAK_RUNS ?= 500
SOAK_SERVE_RUNS ?= 100
SOAK_SEED ?=
SOAK_ONLY ?=

.PHONY: soak

soak: build
	SOAK_RUNS=$(SOAK_RUNS) SOAK_SERVE_RUNS=$(SOAK_SERVE_RUNS) SOAK_SEED=$(SOAK_SEED) SOAK_ONLY=$(SOAK_ONLY) \
	    python3 Soak/soak.py --dfu $(BIN) --dfu-sim .build/release/dfu-sim
