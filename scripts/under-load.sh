#!/usr/bin/env bash
# Runs a command several times with busy CPU loops beside it, the load a flashing rig's host or a CI
# machine shares (issue 27, point 7: a test that passes only on a quiet machine has a bug, in the product
# or in its assumption about time). Every run must pass; no run is retried.
#
#   scripts/under-load.sh [--loops N] [--runs N] [--label NAME] -- COMMAND [ARG]...
#
# --loops N   busy loops (default 2: one per core of the 2-core development machine)
# --runs N    runs of COMMAND (default 3)
# Prints one line per run (status, wall time, load average at its end) and a summary; exits 1 if any run
# failed. The loops are this script's children and end with it, by PID, however it ends.
set -euo pipefail
loops=2 runs=3 label=""
while [ $# -gt 0 ]; do
    case $1 in
        --loops) loops=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --label) label=$2; shift 2 ;;
        --) shift; break ;;
        *) echo "under-load: unknown option $1 (usage: scripts/under-load.sh [--loops N] [--runs N] [--label NAME] -- COMMAND...)" >&2; exit 64 ;;
    esac
done
[ $# -gt 0 ] || { echo "under-load: no command given" >&2; exit 64; }
label=${label:-$1}

busy=()
stop_loops() {
    local pid
    for pid in "${busy[@]}"; do kill "$pid" 2> /dev/null || true; done
    for pid in "${busy[@]}"; do wait "$pid" 2> /dev/null || true; done
    busy=()
}
trap stop_loops EXIT
trap 'exit 130' INT TERM
for ((i = 0; i < loops; i++)); do
    # A shell loop that never sleeps: one core's worth of load, no output, no system calls.
    bash -c 'while :; do :; done' &
    busy+=("$!")
done

failed=0
for ((run = 1; run <= runs; run++)); do
    start=$(date +%s.%N)
    status=0
    "$@" || status=$?
    wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
    echo "under-load: $label run $run/$runs: exit $status in ${wall} s, $loops busy loops, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    ((status == 0)) || failed=$((failed + 1))
done
echo "under-load: $label: $((runs - failed)) of $runs runs passed beside $loops busy loops"
((failed == 0))
