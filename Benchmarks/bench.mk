# `make bench` (Benchmarks/README.md), for the top-level Makefile to include:
#   include Benchmarks/bench.mk
#
#   make bench                          build release, run every figure, print the tables
#   make bench BENCH_JSON=out.json      also write the results as JSON
#   make bench BENCH_FLAGS="--quick"    a reduced matrix (200 KB, one timed run), for a smoke check
#   make bench PEER_NRFDFU=/path/to/nrfdfu   figure 7 measures nrfdfu beside dfu (built outside the repository);
#                                       figure 7's dfu is make static's, the binary make install and the package have;
#                                       then the start-up floor (Benchmarks/startup-floor.sh): a one-line program in C
#                                       and in Swift, linked with dfu's libraries and as make static links dfu
# Benchmarks never run in `make test`: nothing there depends on the machine's speed.

BENCH_JSON  ?=
BENCH_FLAGS ?=
PEER_NRFDFU ?=
BENCH_BIN    = .build/release/dfu-bench
# make static's flags as swiftc takes them (the same words without SwiftPM's -Xswiftc and its own option).
FLOOR_SWIFTC_FLAGS = $(filter-out -Xswiftc --disable-local-rpath,$(STATIC_FLAGS))

.PHONY: bench

bench: deps static
	$(SWIFT) build -c release --product dfu-bench
	$(SWIFT) build -c release --product dfu
	$(SWIFT) build -c release --product dfu-bench-rusage
	@if grep -q '"dfu-sim"' Package.swift; then $(SWIFT) build -c release --product dfu-sim; fi
	@# Figure 6 runs smpmgr from the client suites' venv (made here when missing; without it the figure is skipped).
	$(BENCH_BIN) --swift "$(SWIFT)" --smpmgr "$$(Tests/Clients/venv.sh || echo /nonexistent)/bin/smpmgr" $(if $(BENCH_JSON),--json "$(BENCH_JSON)") --shipped-dfu $(STATIC_SCRATCH)/release/dfu $(if $(PEER_NRFDFU),--peer-nrfdfu "$(PEER_NRFDFU)") $(BENCH_FLAGS)
	Benchmarks/startup-floor.sh --swiftc "$$(dirname "$$(readlink -f "$(SWIFT)")")/swiftc" --rusage .build/release/dfu-bench-rusage --dfu $(STATIC_SCRATCH)/release/dfu $(if $(PEER_NRFDFU),--peer-nrfdfu "$(PEER_NRFDFU)") -- $(FLOOR_SWIFTC_FLAGS)
