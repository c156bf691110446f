#!/usr/bin/env bash
# Writes packaging/dfu.order, the list of functions `dfu` runs on its common paths, which `make static`
# hands to lld (--symbol-ordering-file) so that they lie together at the front of the code: a start and an
# upload then touch a few hundred kilobytes of contiguous code instead of pages scattered over 11 MB (each
# page fault maps the 64 KB around it), which is fewer page faults and a smaller resident set
# (docs/packaging.md "Code order").
#
# Run by hand after a change that moves much code (nothing breaks when the list is stale: a function not
# in it is placed after those that are, as without a list):
#   make static && packaging/symbol-order.sh
# The functions are found by running `dfu` under valgrind's callgrind (every function executed, not a
# sample) through dfu-sim: --version and --help, a Secure upload with AcquireWrite and one with WriteValue,
# a Legacy upload and an SMP upload. The list keeps the order in which those functions lie in the binary
# profiled: its source files' order for the project's functions (each in a section of its own, which lld
# moves), or an earlier list's, so that running the script again on a binary linked with its list gives the
# same list. Measured 2026-12-06 (docs/packaging.md "Code order"): that order left 0.6 MB less resident than
# the order in which callgrind first met the functions, which scatters each source file's functions.
set -euo pipefail
cd "$(dirname "$0")/.."
dfu=${DFU:-.build/static/release/dfu}
sim=${DFU_SIM:-.build/static/release/dfu-sim}
out=${OUT:-packaging/dfu.order}
command -v valgrind > /dev/null || { echo "symbol-order: needs valgrind (apt install valgrind)" >&2; exit 1; }
[ -x "$dfu" ] && [ -x "$sim" ] || { echo "symbol-order: build $dfu and $sim first (make static)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Each run's profile goes to "$work/<run number>.<pid>", so that a later run's functions come after an earlier one's.
callgrind=(valgrind --tool=callgrind --demangle=no --compress-strings=no --dump-instr=no)
step=0
profile() {
    step=$((step + 1))
    "${callgrind[@]}" --callgrind-out-file="$work/$step.%p" "$@" > /dev/null 2>&1
}
address=C0:FF:EE:00:00:10
# dfu upload PACKAGE [ARG...] under callgrind, against one simulated device of KIND (dfu-sim itself is not profiled).
upload() {
    local kind=$1 package=$2
    shift 2
    step=$((step + 1))
    "$sim" run --device "$kind,address=$address" -- "${callgrind[@]}" --callgrind-out-file="$work/$step.%p" \
        "$dfu" upload "$package" -d "$address" "$@" > /dev/null 2>&1
}

profile "$dfu" --version
profile "$dfu" --help
upload secure,sd_id=0xB7 Tests/Fixtures/packages/secure-app-512000.zip
upload secure,sd_id=0xB7 Tests/Fixtures/packages/secure-app-4096.zip --no-acquire
upload legacy Tests/Fixtures/packages/legacy-app.zip
upload smp-nrf5340 Tests/Fixtures/mcuboot/dfu_application.zip

# The functions defined in dfu itself (not the C libraries') that callgrind met, in address order.
nm --defined-only --numeric-sort "$dfu" | awk '$2 ~ /^[tTwW]$/ && !seen[$3]++ {print $3}' > "$work/defined"
for file in $(ls "$work" | grep -E '^[0-9]+\.[0-9]+$' | sort -n); do
    grep -E '^c?fn=' "$work/$file" | sed -E 's/^c?fn=(\([0-9]+\) )?//'
done | sort -u > "$work/met"
awk 'NR == FNR { met[$0] = 1; next } met[$0]' "$work/met" "$work/defined" > "$out"
echo "symbol-order: $(wc -l < "$out") functions in $out (of $(wc -l < "$work/defined") defined in $dfu)"
