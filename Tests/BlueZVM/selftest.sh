#!/usr/bin/env bash
# Checks the harness itself: run.sh refuses bad usage (exit 2, no boot), and one VM boot with a
# passing, a failing, a hanging, a skipped and a state-checking scenario ends in exit status 1 with exactly
# the expected verdict per scenario, every log collected, and the project's environment visible
# to scenarios. Exits 0 when every check holds.
#   Tests/BlueZVM/selftest.sh [run.sh options, e.g. --accel tcg]
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
out="$repo/.build/bluez-vm/selftest"
passed=0
failed=0

check() {
    local what=$1
    shift
    if "$@"; then
        echo "ok: $what"
        passed=$((passed + 1))
    else
        echo "not ok: $what"
        failed=$((failed + 1))
    fi
}

exits_with() {
    local expected=$1
    shift
    "$here/run.sh" "$@" > /dev/null 2>&1
    [ $? = "$expected" ]
}

check "an unknown accelerator is a usage error" exits_with 2 --accel bogus
check "fewer than 2 controllers is a usage error" exits_with 2 --controllers 1
check "a missing scenario file is a usage error" exits_with 2 "$here/scenarios/no-such-scenario.sh"
check "--command without NAME= is a usage error" exits_with 2 --command 'true'
check "two scenarios with one name are a usage error" exits_with 2 --command 'a=true' --command 'a=true'
check "a folder that is not an earlier run's output is not emptied" exits_with 2 --out "$here"

# Everything a scenario is promised: the repository, the helpers, its own writable folder as the
# working directory, the adapters and their addresses.
environment='test -f "$BLUEZVM_REPO/Package.swift" && test -r "$BLUEZVM_LIB" && test "$PWD" = "$BLUEZVM_OUT" && touch written && test "$BLUEZVM_ADAPTER_COUNT" = 2 && test "$BLUEZVM_ADAPTERS" = "$BLUEZVM_ADAPTER_1 $BLUEZVM_ADAPTER_2" && [[ $BLUEZVM_ADDRESS_1 =~ ^00:AA:01:0[0-9]:00:0[0-9]$ ]]'
# A scenario may leave adapters powered and devices known; the next one starts without them.
reset='. "$BLUEZVM_LIB"; bluezvm_set_powered "$BLUEZVM_ADAPTER_1" true && bluezvm_is_powered "$BLUEZVM_ADAPTER_1"'
after_reset='. "$BLUEZVM_LIB"; ! bluezvm_is_powered "$BLUEZVM_ADAPTER_1" && test -z "$(bluezvm_device_paths)"'

"$here/run.sh" --out "$out" --controllers 2 --scenario-timeout 5 "$@" \
    --command "environment=$environment" \
    --command 'fails=echo failing on purpose; exit 3' \
    --command 'hangs=sleep 60' \
    --command 'skips=. "$BLUEZVM_LIB"; bluezvm_skip "nothing to run against"' \
    --command "powers-on=$reset" \
    --command "starts-clean=$after_reset"
status=$?

verdicts() { awk '{ $3 = ""; print }' "$out/results" 2> /dev/null; }
expected_verdicts='PASS environment 
FAIL fails  (exit status 3)
FAIL hangs  (timed out after 5s)
SKIP skips  (nothing to run against)
PASS powers-on 
PASS starts-clean '
check "a run with failing scenarios exits with status 1" test "$status" = 1
check "each scenario got its own verdict, in order" test "$(verdicts)" = "$expected_verdicts"
check "the overall guest result is FAIL" test "$(cat "$out/result" 2> /dev/null)" = FAIL
check "a scenario can write into its own folder" test -e "$out/scenarios/environment/written"
for log in console.log guest.log bluetoothd.log btmon.snoop dmesg.log scenarios/fails/output.log; do
    check "$log was collected" test -s "$out/$log"
done
check "the failing scenario's output was kept" grep -q 'failing on purpose' "$out/scenarios/fails/output.log"
check "bluetoothd was stopped cleanly, so its log is complete" grep -q 'Exit' "$out/bluetoothd.log"
check "the btmon trace reads back" eval 'btmon -r "$out/btmon.snoop" > /dev/null 2>&1'

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
