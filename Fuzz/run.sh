#!/usr/bin/env bash
# Builds, seeds and runs the fuzz targets one after another, each for FUZZ_SECONDS.
# Fails (exit 1) when any target crashes, traps, hangs (over FUZZ_TIMEOUT seconds on one
# input), leaks, or runs out of memory, and prints the path of the reproducer.
#
#   Fuzz/run.sh                      every target in Fuzz/Targets
#   Fuzz/run.sh manifest intel-hex   some targets
#   FUZZ_SECONDS=600 Fuzz/run.sh     ten minutes each
#
# Corpora grow in $FUZZ_BUILD/corpus/<target> (kept between runs); seeds are rewritten into
# $FUZZ_BUILD/seeds; logs go to $FUZZ_BUILD/logs/<target>.log; crashing inputs to
# $FUZZ_BUILD/artifacts/<target>/.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
out=${FUZZ_BUILD:-$root/.build-fuzz}
export FUZZ_BUILD=$out
seconds=${FUZZ_SECONDS:-20}
timeout=${FUZZ_TIMEOUT:-10}
rss=${FUZZ_RSS_MB:-2048}

targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
    mapfile -t targets < <(cd Fuzz/Targets && ls -- *.swift | sed 's/\.swift$//')
fi

Fuzz/build.sh "${targets[@]}" || { echo "fuzz: build failed" >&2; exit 2; }
rm -rf "$out/seeds"
python3 Fuzz/seeds.py "$out/seeds" || { echo "fuzz: could not write the seeds" >&2; exit 2; }

failed=()
for t in "${targets[@]}"; do
    corpus=$out/corpus/$t
    artifacts=$out/artifacts/$t
    log=$out/logs/$t.log
    mkdir -p "$corpus" "$artifacts" "$out/logs" "$out/seeds/$t"
    echo "fuzz: $t for ${seconds}s (log $log)"
    # New inputs go to the first folder (the kept corpus); the seeds are read only.
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0} \
        "$out/bin/$t" "$corpus" "$out/seeds/$t" \
        -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb="$rss" -malloc_limit_mb="$rss" \
        -detect_leaks=1 -print_final_stats=1 \
        -artifact_prefix="$artifacts/" >"$log" 2>&1
    status=$?
    runs=$(awk '/^stat::number_of_executed_units:/ {print $2}' "$log")
    rss_peak=$(awk '/^stat::peak_rss_mb:/ {print $2}' "$log")
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9]+[a-zA-Z]*' "$log" | tail -1)
    size=$(find "$corpus" -type f | wc -l)
    echo "fuzz: $t: exit $status, ${runs:-?} executions, $cov, peak RSS ${rss_peak:-?} MB, kept corpus $size files"
    if [[ $status -ne 0 ]]; then
        failed+=("$t")
        grep -E 'ERROR:|SUMMARY:|Fatal error|deadly signal|timeout|out-of-memory|leak' "$log" | head -5 | sed 's/^/    /'
        grep -oE "Test unit written to \S+" "$log" | sed 's/^/    reproducer: /'
        echo "    replay: $out/bin/$t <reproducer>"
    fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
    echo "fuzz: FAILED: ${failed[*]} — add each reproducer to Tests/Fixtures/fuzz-regressions/<target>/" >&2
    exit 1
fi
echo "fuzz: ${#targets[@]} targets ran ${seconds}s each with no crash, hang or leak"
