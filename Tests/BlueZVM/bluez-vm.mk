# The real-BlueZ VM harness (Tests/BlueZVM/README.md), for the top-level Makefile to include:
#   include Tests/BlueZVM/bluez-vm.mk
#
#   make test-bluez                       install what it needs (as root), boot the VM once,
#                                         run the scenarios, exit 0 only if all passed
#   make test-bluez BLUEZVM_SCENARIOS="Tests/BlueZVM/scenarios/smoke.sh ..."
#   make test-bluez BLUEZVM_FLAGS="--accel tcg --timeout 900"
# Logs: .build/bluez-vm/out/ (console, bluetoothd debug log, btmon trace, each scenario's output).

BLUEZVM_DIR           := Tests/BlueZVM
# The scenarios `make test-bluez` (and so `make test`) runs: the harness's smoke test, the
# simulated DFU target as a GATT peripheral checked with bluetoothctl, and `dfu upload` against the
# real bluetoothd: Secure app, SD+BL+APP, Legacy, buttonless to a bootloader on another controller
# (by --bootloader-address, and by the alternative name alone), resume after a dropped link,
# buttonless with bonds at the same address (pairing, the GATT cache), 200 KiB through AcquireWrite, and an
# upload through WriteValue (--no-acquire, several packets in flight); then MCUboot images over SMP to the
# simulated nRF Connect SDK target: test, reset, the swap and confirm step by step, a resume after a lost
# link, 200 KiB with the whole default flow through AcquireWrite and WriteValue, an SMP target that
# needs a paired, authenticated link (passkey entry), SMP commands naming an absent address while a
# target is at address + 1 (refused, the target untouched), and an nRF5340's two images updated at one
# reset (the network core marked first), MCUboot's firmware loader mode (the nRF Connect SDK's loader at the same
# address, the Bare Metal option's on another controller); and Zephyr's own smp_svr (native_sim) on a
# controller of its own through the HCI user channel (skipped without ../shared).
BLUEZVM_DEFAULT_SCENARIOS := smoke peripheral-bluetoothctl dfu-secure-app dfu-secure-sd-bl-app dfu-legacy-app \
                             dfu-buttonless-bootloader-address dfu-disconnect-resume dfu-buttonless-alt-name \
                             dfu-buttonless-bonded dfu-acquire-write-200k dfu-write-value \
                             smp-test-swap-confirm smp-disconnect-resume smp-acquire-write-200k smp-auth-paired \
                             smp-named-device-only smp-nrf5340-network-core-first smp-firmware-loader \
                             zephyr-smp-svr zephyr-smp-svr-no-reassembly
# `make test-bluez-dfu` adds the scenarios of BLUEZVM_DFU_SCENARIOS (none today).
BLUEZVM_DFU_SCENARIOS :=
# The scenarios to run, in order.
BLUEZVM_SCENARIOS     ?= $(foreach name,$(BLUEZVM_DEFAULT_SCENARIOS),$(BLUEZVM_DIR)/scenarios/$(name).sh)
# More options for run.sh (see Tests/BlueZVM/run.sh --help).
BLUEZVM_FLAGS         ?= --timeout 1800
# bluetoothd's configuration in the guest (no EATT: see the file), an absolute path the guest sees.
BLUEZVM_BLUETOOTHD_CONF ?= $(CURDIR)/$(BLUEZVM_DIR)/guest/main.conf
# The bluetoothd the guest runs, by version (bluez-release.sh): 5.66, Debian 12's and the host's own (the default);
# 5.55, Debian 11's, fetched from Debian's archive; 5.82, Debian 13's, and 5.87, unstable's, fetched with their
# suite's C library and the rest of what they load, and run through that suite's dynamic loader. Each version's logs
# go to .build/bluez-vm/out-VERSION, the default's to .build/bluez-vm/out.
BLUEZ                 ?= 5.66
# The versions `make test-bluez-matrix` runs the suite against, one boot each (`make test` runs 5.66 and 5.55 only).
BLUEZVM_MATRIX        ?= 5.55 5.66 5.82 5.87
BLUEZVM_OUT            = .build/bluez-vm/$(if $(filter 5.66,$(BLUEZ)),out,out-$(BLUEZ))
BLUEZVM_BLUETOOTHD     = $$($(BLUEZVM_DIR)/bluez-release.sh $(BLUEZ))
# Where the scenarios find the project's binaries, and the targets that build them.
BLUEZVM_BIN           ?= .build/release
BLUEZVM_PREREQUISITES ?= build bluez-vm-binaries bluez-vm-smp
# The builds of Zephyr's smp_svr the zephyr-* scenarios run (zephyr-variants.sh): the default one linked from
# ../shared, the variant without reassembly built from the Zephyr workspace ZEPHYR_WORKSPACE (default: this build
# machine's /work/zephyr-build) and reused while its stamp holds. What is absent makes those scenarios SKIP.
BLUEZVM_ZEPHYR_DIR    := $(CURDIR)/.build/bluez-vm/zephyr

.PHONY: test-bluez test-bluez-dfu bench-bluez bench-bluez-zephyr bluez-vm-deps bluez-vm-binaries bluez-vm-smp \
        bluez-vm-zephyr

bluez-vm-deps:
	@$(BLUEZVM_DIR)/install.sh

# dfu-sim (the peripheral side of the scenarios), next to dfu in the release folder.
bluez-vm-binaries: deps
	$(SWIFT) build -c release --product dfu-sim

# What the SMP scenarios need from PyPI, made on the host (the guest has no network, and Python is
# slow under software emulation): smpmgr in .build/smpmgr-venv (zephyr-smp-svr's comparison client)
# and the MCUboot test images, signed by imgtool, in .build/bluez-vm/smp-images.
bluez-vm-smp: bluez-vm-binaries
	@$(BLUEZVM_DIR)/smpmgr-venv.sh > /dev/null
	$(BLUEZVM_DIR)/smp-images.sh --bin-dir $(BLUEZVM_BIN)

# About 30-60 s on two cores from a fresh clone, well under a second once built (README.md, "Where the servers come from").
bluez-vm-zephyr:
	$(BLUEZVM_DIR)/zephyr-variants.sh --out $(BLUEZVM_ZEPHYR_DIR)

# One boot, no second chance. Debian 12's own kernel (6.1) oopsed in hci_chan_del, from bluetoothd
# closing an L2CAP socket after a failed connection setup, and killed bluetoothd (README.md, "Known
# problems"); the guest now runs 6.12 from bookworm-backports (install.sh, run.sh). A kernel oops or
# BUG in the guest's dmesg fails the run, naming it, even when every scenario passed: the result of a
# run on a broken kernel is not a result.
BLUEZVM_RUN = bluetoothd=$(BLUEZVM_BLUETOOTHD) && $(BLUEZVM_DIR)/run.sh --bin-dir $(BLUEZVM_BIN) --out $(BLUEZVM_OUT) \
	    --bluetoothd "$$bluetoothd" --bluetoothd-args "-f $(BLUEZVM_BLUETOOTHD_CONF)" \
	    --env ZEPHYR_SMP_SVR_DIR=$(BLUEZVM_ZEPHYR_DIR) $(BLUEZVM_FLAGS) $(BLUEZVM_SCENARIOS)
BLUEZVM_DMESG_CHECK = ! grep -E 'Oops|BUG:|hci_chan_del' $(BLUEZVM_OUT)/dmesg.log \
	    || { echo "bluez-vm: the guest kernel oopsed (the lines above, from $(BLUEZVM_OUT)/dmesg.log): this run proves nothing" >&2; false; }
test-bluez: bluez-vm-deps bluez-vm-zephyr $(BLUEZVM_PREREQUISITES)
	@$(MAKE) --no-print-directory test-bluez-boot

# One boot of BLUEZ's bluetoothd with BLUEZVM_SCENARIOS, its prerequisites taken as made.
.PHONY: test-bluez-boot
test-bluez-boot:
	$(BLUEZVM_RUN); status=$$?; $(BLUEZVM_DMESG_CHECK) && exit $$status

# What `make test` runs against Debian 11's bluetoothd 5.55 beside the whole suite on 5.66, in a second boot (about
# two minutes): the nRF5 uploads that show what differs there (no MTU property: the packets must still be 244 bytes;
# no Device1.Bonded). The other scenarios fail on 5.55 for reasons of the peripheral side, which is bluetoothd too
# in this harness (README.md, "BlueZ versions").
BLUEZVM_5_55_SCENARIOS := smoke dfu-secure-app dfu-legacy-app dfu-buttonless-bonded dfu-acquire-write-200k
BLUEZVM_5_55_BOOT = $(MAKE) --no-print-directory test-bluez-boot BLUEZ=5.55 \
	    BLUEZVM_SCENARIOS="$(foreach name,$(BLUEZVM_5_55_SCENARIOS),$(BLUEZVM_DIR)/scenarios/$(name).sh)"
.PHONY: test-bluez-5.55
test-bluez-5.55: bluez-vm-deps $(BLUEZVM_PREREQUISITES)
	+@$(BLUEZVM_5_55_BOOT)

# What `make test` runs: the whole suite on 5.66 and the 5.55 boot at once, each boot's lines as they come (the
# 5.55 boot's marked "[5.55]"); fails when either fails, after both ended. qemu runs a guest's every vCPU on one
# host thread (TCG, run.sh), so on two cores the second boot's two minutes come beside the first's thirteen instead
# of after them. The prerequisites are made first, once.
.PHONY: test-bluez-versions
test-bluez-versions: bluez-vm-deps bluez-vm-zephyr $(BLUEZVM_PREREQUISITES)
	@status_file=$$(mktemp); \
	{ $(BLUEZVM_5_55_BOOT) 2>&1; echo $$? > "$$status_file"; } | sed -u 's/^/[5.55] /' & \
	$(MAKE) --no-print-directory test-bluez-boot; status=$$?; \
	wait; status_5_55=$$(cat "$$status_file"); rm -f "$$status_file"; \
	echo "bluez-vm: make test's boots ended: 5.66 with status $$status, 5.55 with status $${status_5_55:-none}" >&2; \
	[ "$$status" -eq 0 ] && [ "$$status_5_55" = 0 ]

# The suite against each bluetoothd of BLUEZVM_MATRIX, one boot each; fails when any fails (all are run). On 5.55
# the nRF5 uploads only (BLUEZVM_5_55_SCENARIOS): its GATT server, the peripheral side of the other scenarios, dies
# on a stream of SMP notifications (README.md, "BlueZ versions").
.PHONY: test-bluez-matrix
test-bluez-matrix:
	@status=0; for version in $(BLUEZVM_MATRIX); do \
	    echo "bluez-vm: bluetoothd $$version" >&2; \
	    if [ "$$version" = 5.55 ]; then $(MAKE) --no-print-directory test-bluez-5.55 || status=1; \
	    else $(MAKE) --no-print-directory test-bluez BLUEZ=$$version || status=1; fi; \
	done; exit $$status

# Every scenario, the dfu ones included, in one boot.
test-bluez-dfu: bluez-vm-deps bluez-vm-zephyr $(BLUEZVM_PREREQUISITES)
	$(BLUEZVM_DIR)/run.sh --bin-dir $(BLUEZVM_BIN) --bluetoothd-args "-f $(BLUEZVM_BLUETOOTHD_CONF)" \
	    --env ZEPHYR_SMP_SVR_DIR=$(BLUEZVM_ZEPHYR_DIR) $(BLUEZVM_FLAGS) $(foreach name,$(BLUEZVM_DEFAULT_SCENARIOS) $(BLUEZVM_DFU_SCENARIOS),$(BLUEZVM_DIR)/scenarios/$(name).sh)

# The harness's own check: usage errors, and one boot whose failing and hanging scenarios must be
# reported as such (Tests/BlueZVM/selftest.sh).
.PHONY: test-bluez-harness
test-bluez-harness: bluez-vm-deps
	$(BLUEZVM_DIR)/selftest.sh $(BLUEZVM_FLAGS)

# Figure 3 of Benchmarks/README.md: a 200 KB upload through the real bluetoothd, AcquireWrite vs WriteValue
# (`dfu upload --no-acquire`), each also with `--prn 0` (nrfdfu's exchange), and nrfdfu with PEER_NRFDFU=PATH, BENCH_BLUEZ_RUNS runs of each in one boot; the table on stdout,
# the JSON in BENCH_JSON when set (Tests/BlueZVM/bench.sh, Benchmarks/README.md). dfu and dfu-sim are make static's
# (in STATIC_SCRATCH, under the repository: the guest does not see the host's /tmp), the binaries make install and the
# Debian package ship. BENCH_BLUEZ_BIN and BENCH_BLUEZ_PREREQUISITES are its BLUEZVM_BIN and BLUEZVM_PREREQUISITES:
# `BENCH_BLUEZ_BIN=.build/release BENCH_BLUEZ_PREREQUISITES="build bluez-vm-binaries"` measures the development build.
BENCH_BLUEZ_RUNS          ?= 3
BENCH_BLUEZ_BIN           ?= $(STATIC_SCRATCH)/release
BENCH_BLUEZ_PREREQUISITES ?= static
bench-bluez: bluez-vm-deps $(BENCH_BLUEZ_PREREQUISITES)
	$(BLUEZVM_DIR)/bench.sh --runs $(BENCH_BLUEZ_RUNS) $(if $(BENCH_JSON),--json "$(BENCH_JSON)") \
	    $(if $(PEER_NRFDFU),--peer-nrfdfu "$(PEER_NRFDFU)") \
	    --bin-dir $(BENCH_BLUEZ_BIN) --bluetoothd-args "-f $(BLUEZVM_BLUETOOTHD_CONF)"

# dfu against smpmgr (PyPI) on Zephyr's own smp_svr in the VM, in one boot: the zephyr-smp-svr scenario
# with ZEPHYR_SMPMGR=1 (smpmgr uploads the same size first). Its figures are in out/measurements
# ("transfer dfu_kBps=… smpmgr_kBps=…"). Needs ../shared/reference/zephyr-smp-svr (else SKIP).
bench-bluez-zephyr: bluez-vm-deps bluez-vm-zephyr $(BLUEZVM_PREREQUISITES)
	$(BLUEZVM_DIR)/run.sh --bin-dir $(BLUEZVM_BIN) --bluetoothd-args "-f $(BLUEZVM_BLUETOOTHD_CONF)" \
	    --env ZEPHYR_SMP_SVR_DIR=$(BLUEZVM_ZEPHYR_DIR) \
	    --timeout 1800 --scenario-timeout 1200 \
	    --command "zephyr-smp-svr=ZEPHYR_SMPMGR=1 $(CURDIR)/$(BLUEZVM_DIR)/scenarios/zephyr-smp-svr.sh"

# The soak of issue 27 (point 8), not part of `make test`: SOAK_UPLOADS uploads (default 100) in one
# boot through the one bluetoothd, in a rotation of Secure (AcquireWrite and --no-acquire), Legacy and
# SMP uploads, every fifth with the link dropped mid-upload; fails on any failed upload or on growth of
# dfu's or bluetoothd's descriptors or memory between the first ten and the last ten
# (Tests/BlueZVM/scenarios/soak.sh; its figures in out/scenarios/soak/soak.tsv and soak.json).
# The limits scale with the count: 60 s per upload (they took 5-20 s under TCG) plus ten minutes.
SOAK_UPLOADS     ?= 100
SOAK_TIMEOUT     ?= $(shell echo $$(( $(SOAK_UPLOADS) * 60 + 600 )))
# The memory tolerances (KiB of growth of the mean, first ten to last ten), when set; the scenario's
# defaults otherwise (README.md, "Soak").
SOAK_TOLERANCES   = $(if $(SOAK_DFU_RSS_TOLERANCE_KIB),SOAK_DFU_RSS_TOLERANCE_KIB=$(SOAK_DFU_RSS_TOLERANCE_KIB)) \
                    $(if $(SOAK_BTD_RSS_TOLERANCE_KIB),SOAK_BTD_RSS_TOLERANCE_KIB=$(SOAK_BTD_RSS_TOLERANCE_KIB))
.PHONY: soak-bluez
soak-bluez: bluez-vm-deps $(BLUEZVM_PREREQUISITES)
	$(BLUEZVM_DIR)/run.sh --bin-dir $(BLUEZVM_BIN) --bluetoothd-args "-f $(BLUEZVM_BLUETOOTHD_CONF)" \
	    --timeout $$(( $(SOAK_TIMEOUT) + 300 )) --scenario-timeout $(SOAK_TIMEOUT) \
	    --command "soak=SOAK_UPLOADS=$(SOAK_UPLOADS) $(SOAK_TOLERANCES) $(CURDIR)/$(BLUEZVM_DIR)/scenarios/soak.sh"; \
	    status=$$?; $(BLUEZVM_DMESG_CHECK) && exit $$status
