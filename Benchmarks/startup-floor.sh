#!/usr/bin/env bash
# The start-up floor beside figure 7 (Benchmarks/README.md): what a program that only prints one line costs to start,
# in C and in Swift, linked with the shared libraries dfu loads (and with those nrfdfu loads, when given), measured
# beside `dfu --version` and `nrfdfu ble --help` by dfu-bench-rusage, the runs of all of them in turn.
#
#   Benchmarks/startup-floor.sh --swiftc SWIFTC --rusage DFU_BENCH_RUSAGE --dfu DFU [--peer-nrfdfu NRFDFU] [--runs N]
#                               [-- SWIFTC_FLAGS...]
#
# SWIFTC_FLAGS link the Swift program; `make bench` passes those `make static` links dfu with, so the floor is the
# binary users get less dfu's own code. The library lists are the dynamic loader's own (LD_TRACE_LOADED_OBJECTS):
# every library the program loads, given to the linker by path, so the floor program loads the same set. C is built
# with cc (CC), as nrfdfu's CMake build is. Prints a table of medians (min-max): CPU (user + system) in ms and peak
# RSS in MB, and the ratios. Exits 1 with one line when a part is missing or fails.
set -euo pipefail

swiftc="" rusage="" dfu="" peer="" runs=21
while [ $# -gt 0 ]; do
    case "$1" in
        --swiftc) swiftc=$2; shift 2 ;;
        --rusage) rusage=$2; shift 2 ;;
        --dfu) dfu=$2; shift 2 ;;
        --peer-nrfdfu) peer=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --) shift; break ;;
        *) echo "startup-floor: unknown argument: $1" >&2; exit 2 ;;
    esac
done
cc=${CC:-cc}
for tool in "$swiftc" "$rusage" "$dfu" ${peer:+"$peer"}; do
    [ -x "$tool" ] || { echo "startup-floor: needs $tool (not an executable file)" >&2; exit 1; }
done
command -v "$cc" > /dev/null || { echo "startup-floor: needs a C compiler ($cc)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/dfu-startup-floor.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The libraries PROGRAM loads, one path a line, without the C library and the loader every program has.
libraries() {
    LD_TRACE_LOADED_OBJECTS=1 "$1" | sed -n 's/^[[:space:]]*[^[:space:]]* => \(\/[^[:space:]]*\) .*/\1/p' |
        grep -v -E '/(libc\.so|ld-linux)[^/]*$' || true
}
# Linker arguments naming each library of the list on stdin, with a run path for any outside the system's folders.
link_arguments() {
    local prefix=$1 path
    while read -r path; do
        printf '%s\n' "$prefix$path"
        case "$path" in
            /lib/*|/lib64/*|/usr/lib/*|/usr/lib64/*) ;;
            *) printf '%s\n' "$prefix-rpath" "$prefix${path%/*}" ;;
        esac
    done
}

printf '#include <stdio.h>\nint main(void) { puts("floor"); return 0; }\n' > "$work/floor.c"
printf '@main struct Floor { static func main() async { print("floor") } }\n' > "$work/floor.swift"

libraries "$dfu" > "$work/dfu.libs"
mapfile -t c_dfu < <(link_arguments "-Wl," < "$work/dfu.libs")
"$cc" -O2 "$work/floor.c" -o "$work/c-dfu-libs" -Wl,--no-as-needed "${c_dfu[@]}" ||
    { echo "startup-floor: $cc could not link a C program with dfu's libraries" >&2; exit 1; }
mapfile -t swift_dfu < <(link_arguments "" < "$work/dfu.libs" | sed 's/^/-Xlinker\n/')
"$swiftc" -O -parse-as-library "$@" "$work/floor.swift" -o "$work/swift-dfu-libs" -module-cache-path "$work/cache" \
    -Xlinker --no-as-needed "${swift_dfu[@]}" ||
    { echo "startup-floor: $swiftc could not link a Swift program with dfu's libraries" >&2; exit 1; }
"$cc" -O2 "$work/floor.c" -o "$work/c-alone"

names=("a C program that prints one line, no library" "the same in C, linked with dfu's libraries"
       "the same in Swift (async main, linked as given), with dfu's libraries" "dfu --version")
# Each program's path, and its arguments (words without spaces) apart, so that a path may hold spaces.
programs=("$work/c-alone" "$work/c-dfu-libs" "$work/swift-dfu-libs" "$dfu")
arguments=("" "" "" "--version")
if [ -n "$peer" ]; then
    libraries "$peer" > "$work/peer.libs"
    mapfile -t c_peer < <(link_arguments "-Wl," < "$work/peer.libs")
    "$cc" -O2 "$work/floor.c" -o "$work/c-peer-libs" -Wl,--no-as-needed "${c_peer[@]}" ||
        { echo "startup-floor: $cc could not link a C program with nrfdfu's libraries" >&2; exit 1; }
    names+=("the same in C, linked with nrfdfu's libraries" "nrfdfu ble --help")
    programs+=("$work/c-peer-libs" "$peer")
    arguments+=("" "ble --help")
fi
# command_of INDEX: sets command to programs[INDEX] and its arguments, split into words.
command_of() {
    local words
    read -r -a words <<< "${arguments[$1]}"
    command=("${programs[$1]}" "${words[@]}")
}
for index in "${!programs[@]}"; do
    command_of "$index"
    "${command[@]}" > /dev/null 2>&1 || { echo "startup-floor: ${command[*]} failed" >&2; exit 1; }
done

# One warm-up round, then the runs, every command in turn within each round.
for round in $(seq 0 "$runs"); do
    for index in "${!programs[@]}"; do
        command_of "$index"
        line=$("$rusage" "${command[@]}" 2>&1 >/dev/null | grep '^dfu-bench-rusage: ' | tail -n 1)
        [ "$round" -eq 0 ] && continue
        user=$(sed -n 's/.* user_us=\([0-9]*\).*/\1/p' <<< "$line")
        sys=$(sed -n 's/.* sys_us=\([0-9]*\).*/\1/p' <<< "$line")
        rss=$(sed -n 's/.* maxrss_kb=\([0-9]*\).*/\1/p' <<< "$line")
        [ -n "$user" ] && [ -n "$sys" ] && [ -n "$rss" ] || { echo "startup-floor: no report from $rusage ${command[*]}" >&2; exit 1; }
        echo "$((user + sys))" >> "$work/cpu.$index"
        echo "$rss" >> "$work/rss.$index"
    done
done

# "median (min-max)" of a file of integers, scaled by DIVISOR, with DIGITS decimals.
spread() {
    sort -n "$1" | awk -v d="$2" -v p="$3" '{ v[NR] = $1 / d } END {
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.*f (%.*f-%.*f)", p, m, p, v[1], p, v[NR] }'
}
median() { spread "$1" 1 6 | cut -d' ' -f1; }

echo
echo "Start-up floor beside figure 7: medians (min-max) of $runs runs after a warm-up, under dfu-bench-rusage"
printf '%-72s %-22s %s\n' "" "CPU, ms" "peak RSS, MB"
for index in "${!programs[@]}"; do
    printf '%-72s %-22s %s\n' "${names[$index]}" "$(spread "$work/cpu.$index" 1000 2)" "$(spread "$work/rss.$index" 1024 2)"
done
ratio() { awk -v a="$(median "$1")" -v b="$(median "$2")" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else printf "-" }'; }
echo "Swift/C, both with dfu's libraries (the language's floor): CPU $(ratio "$work/cpu.2" "$work/cpu.1"), peak RSS $(ratio "$work/rss.2" "$work/rss.1")"
echo "dfu --version / that Swift floor: CPU $(ratio "$work/cpu.3" "$work/cpu.2"), peak RSS $(ratio "$work/rss.3" "$work/rss.2")"
if [ -n "$peer" ]; then
    echo "nrfdfu ble --help / its C floor: CPU $(ratio "$work/cpu.5" "$work/cpu.4"), peak RSS $(ratio "$work/rss.5" "$work/rss.4")"
    echo "Swift floor with dfu's libraries / C floor with nrfdfu's: CPU $(ratio "$work/cpu.2" "$work/cpu.4"), peak RSS $(ratio "$work/rss.2" "$work/rss.4")"
    echo "dfu --version / nrfdfu ble --help: CPU $(ratio "$work/cpu.3" "$work/cpu.5"), peak RSS $(ratio "$work/rss.3" "$work/rss.5")"
fi
