#!/usr/bin/env bash
# What a test run leaves behind, for .ci/run: `ci-leftovers.sh list` prints this project's temporary
# folders in TMPDIR (dfu-*) and the processes of its test runs still alive (dbus-daemons of dfu-sim
# and of the tests, dfu, dfu-sim, the test runner, the dbus-monitor a test spawns, the VM suite's
# qemu), one per line; `ci-leftovers.sh check BEFORE`
# prints what is listed now and was not in BEFORE, and fails if there is any.
set -euo pipefail
list() {
    list_unsorted | LC_ALL=C sort
}
list_unsorted() {
    find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'dfu-*' -printf 'folder %p\n' 2> /dev/null
    # Exact names (comm, first 15 characters), never a pattern over command lines.
    local name pid
    for name in dbus-daemon dfu dfu-sim dfuPackageTests dbus-monitor qemu-system-x86_64; do
        # pgrep exits 1 when nothing matches: that is the good case.
        for pid in $(pgrep -x "${name:0:15}" || true); do
            echo "process $pid $(tr '\0' ' ' < "/proc/$pid/cmdline" 2> /dev/null | cut -c1-160)"
        done
    done
}
case ${1:-} in
    list) list ;;
    check)
        [ -f "${2:-}" ] || { echo "usage: $0 check BEFORE_FILE" >&2; exit 64; }
        left=$(LC_ALL=C comm -13 "$2" <(list))
        if [ -n "$left" ]; then
            echo "the test run left these behind:"
            echo "$left"
            exit 1
        fi
        echo "nothing left behind"
        ;;
    *) echo "usage: $0 list | check BEFORE_FILE" >&2; exit 64 ;;
esac
