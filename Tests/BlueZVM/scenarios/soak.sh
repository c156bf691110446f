#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# The soak (issue 27, point 8; `make soak-bluez`, not in `make test`): SOAK_UPLOADS uploads (default
# 100) through the one bluetoothd of this boot, each to a fresh `dfu-sim peripheral` on the second
# adapter, in a rotation of ten:
#    1 secure        Secure DFU, secure-app-4096.zip, AcquireWrite (dfu's default)
#    2 secure-nacq   the same with --no-acquire (WriteValue)
#    3 legacy        Legacy DFU, legacy-app.zip, --packet-size 20
#    4 smp           MCUboot image (app-1.3.0-16k.bin), dfu's default flow: test, reset, confirm
#    5 secure-drop   as 1, the peripheral drops the link after 2000 of the 4096 bytes
#    6-9             as 1-4
#   10 smp-drop      as 4, the peripheral drops the link after 8000 bytes of SMP writes
# A dropped link is resumed the way dfu-disconnect-resume and smp-disconnect-resume check it: the
# one `dfu upload` reconnects and goes on from the target's offset. Such an upload counts as one
# success only when that run exits 0, the peripheral logged the drop and the target holds the whole
# image. Each upload is checked as its own scenario checks it (the CRC-32 of the installed
# application, or slot 0 running the new image, confirmed).
#
# Figures per upload, in soak.tsv and soak.json (in this scenario's folder):
#   dfu_maxrss_kib   dfu's peak resident set: ru_maxrss from wait4, by /usr/bin/time -f %M (exact)
#   dfu_fds_max      the most file descriptors dfu held at any sample of /proc/PID/fd, taken every
#                    0.2 s while it ran (a sample, so an fd held for less than 0.2 s can be missed)
#   btd_fds, btd_rss_kib, btd_hwm_kib, btd_data_kib
#                    bluetoothd's open descriptors (/proc/PID/fd), VmRSS, VmHWM and VmData (its heap's
#                    and anonymous mappings' size, touched or not) after the upload,
#                    once the peripheral has exited (its GATT application and advertisement gone)
# The verdict: no failure; and between the mean of the first ten and of the last ten uploads (the
# same mix of kinds when SOAK_UPLOADS is a multiple of ten; with fewer than 20 uploads, the first
# and last halves): no growth of either process's descriptors, dfu's peak RSS up by at most
# SOAK_DFU_RSS_TOLERANCE_KIB (default 2560) and bluetoothd's VmRSS by at most
# SOAK_BTD_RSS_TOLERANCE_KIB (default 256). See README.md, "Soak", for why these tolerances.
set -u
# shellcheck source=../guest/lib.sh
. "$BLUEZVM_LIB"
# shellcheck source=../guest/peripheral.sh
. "$(dirname "$BLUEZVM_LIB")/peripheral.sh"
# shellcheck source=../guest/smp.sh
. "$(dirname "$BLUEZVM_LIB")/smp.sh"
dfusim_scenario_begin
smp_require_commands

uploads=${SOAK_UPLOADS:-100}
[[ $uploads =~ ^[0-9]+$ ]] && ((uploads >= 2)) || bluezvm_fail "SOAK_UPLOADS must be a whole number of at least 2"
dfu_rss_tolerance=${SOAK_DFU_RSS_TOLERANCE_KIB:-2560}
btd_rss_tolerance=${SOAK_BTD_RSS_TOLERANCE_KIB:-256}
root=$BLUEZVM_OUT
tsv=$root/soak.tsv
kinds=(secure secure-nacq legacy smp secure-drop secure secure-nacq legacy smp smp-drop)

smp_image app-1.3.0-16k.bin
smp_image_file=$root/app-1.3.0-16k.bin
smp_hash=$(smp_image_hash "$smp_image_file")
[ -n "$smp_hash" ] || bluezvm_fail "dfu inspect gives no SHA256 TLV for $smp_image_file"
secure_crc=$(dfusim_expected_crc secure-app-4096.zip application)
legacy_crc=$(dfusim_expected_crc legacy-app.zip application)

bluetoothd_pid=$(pidof bluetoothd) || bluezvm_fail "no bluetoothd"
[[ $bluetoothd_pid =~ ^[0-9]+$ ]] || bluezvm_fail "more than one bluetoothd: $bluetoothd_pid"

# status_kib PID FIELD: a kB field of /proc/PID/status (VmRSS, VmHWM), without a fork; NA when PID
# is gone.
status_kib() {
    local key value _
    [ -r "/proc/$1/status" ] || { echo NA; return 1; }
    while read -r key value _; do
        [ "$key" = "$2:" ] && { echo "$value"; return 0; }
    done < "/proc/$1/status"
    echo NA
    return 1
}
# fd_count PID: how many descriptors PID holds, without a fork.
fd_count() {
    local fds=(/proc/"$1"/fd/*)
    [ -e "${fds[0]}" ] && echo ${#fds[@]} || echo 0
}

# run_dfu ARGS...: runs `dfu ARGS...` under /usr/bin/time (dfu's peak RSS into dfu.time), its
# standard output in dfu.out and standard error in dfu.err, and samples its descriptors every 0.2 s
# into fds_max. Returns dfu's exit status.
fds_max=0
run_dfu() {
    local time_pid dfu_pid="" n children
    /usr/bin/time -f '%M %e' -o dfu.time "$BLUEZVM_BIN/dfu" "$@" > dfu.out 2> dfu.err &
    time_pid=$!
    fds_max=0
    while kill -0 "$time_pid" 2> /dev/null; do
        if [ -z "$dfu_pid" ]; then
            # The file ends without a newline, so read returns 1 even when it read the list.
            children=""
            read -r children < "/proc/$time_pid/task/$time_pid/children" 2> /dev/null
            dfu_pid=${children%% *}
        fi
        if [ -n "$dfu_pid" ] && [ -d "/proc/$dfu_pid" ]; then
            n=$(fd_count "$dfu_pid")
            ((n > fds_max)) && fds_max=$n
        fi
        sleep 0.2
    done
    wait "$time_pid"
}

# upload N KIND: one upload in its own folder NNN-KIND; prints nothing, appends its row to soak.tsv.
# Returns 0 when the upload and all its checks passed.
failures=0
upload() {
    local n=$1 kind=$2 dir peripheral_args dfu_args check="" status ok=1 why="" started wall rss
    dir=$(printf '%s/%03d-%s' "$root" "$n" "$kind")
    mkdir -p "$dir"
    cd "$dir" || return 1
    BLUEZVM_OUT=$dir
    local device=(--device "$target_address" --adapter "$central")
    case $kind in
        secure | secure-nacq | secure-drop)
            peripheral_args=(--device secure,sd_id=0xB7)
            dfu_args=("$packages/secure-app-4096.zip" "${device[@]}" --json -vv)
            check=".application.crc32 == $secure_crc and .application.size == 4096 and .longestWrite <= 244 and .violations == []"
            ;;
        legacy)
            peripheral_args=(--device legacy)
            dfu_args=("$packages/legacy-app.zip" "${device[@]}" --packet-size 20 --json -vv)
            check=".application.crc32 == $legacy_crc and .longestWrite == 20 and .violations == []"
            ;;
        smp | smp-drop)
            peripheral_args=(--device smp)
            dfu_args=("$smp_image_file" "${device[@]}" --json -vv)
            check="any(.slots[]; .image == 0 and .slot == 0 and .hash == \"$smp_hash\" and .version == \"1.3.0\" and .active and .confirmed) and .stats.smp_resets == 1"
            ;;
    esac
    case $kind in
        secure-nacq) dfu_args+=(--no-acquire) ;;
        secure-drop) peripheral_args+=(--disconnect-after-bytes 2000); check+=" and .disconnections >= 2" ;;
        smp-drop) peripheral_args+=(--disconnect-after-bytes 8000) ;;
    esac
    bluezvm_log "upload $n/$uploads: $kind"
    started=$(bluezvm_now_cs)
    # As dfusim_peripheral_start, but a peripheral that does not come up fails this upload only.
    bluezvm_session_start peripheral "${dfusim_peripheral_command[@]}" --adapter "$target" \
        "${peripheral_args[@]}" --readvertise-ms 1500 --report "$dir/report.json" > /dev/null
    if ! bluezvm_session_expect peripheral 60 '^dfu-sim peripheral: ready '; then
        ok=0 why="the peripheral did not start"
        dfusim_peripheral_stop > stop.log 2>&1
    else
        dfusim_peripheral_mark
        run_dfu upload "${dfu_args[@]}"
        status=$?
        if ((status != 0)); then
            ok=0 why="dfu upload exited with $status"
            tail -n 20 dfu.err
        elif [[ $kind != smp* ]] && ! dfusim_peripheral_expect 30 "ready application on $target"; then
            ok=0 why="the target did not boot its new application"
        elif [[ $kind == *-drop ]] && ! grep -q 'disconnecting the central after [0-9]* ' peripheral.log; then
            ok=0 why="the peripheral did not drop the link"
        fi
        dfusim_peripheral_stop > stop.log 2>&1
        if ((ok)) && ! jq -e "$check" report.json > /dev/null 2>&1; then
            ok=0 why="the report fails: $check"
        fi
    fi
    wall=$(bluezvm_seconds_since "$started")
    rss=NA
    [ -s dfu.time ] && read -r rss _ < <(tail -n 1 dfu.time)
    printf '%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$kind" "${status:-NA}" "$((1 - ok))" "$wall" \
        "$rss" "$fds_max" "$(fd_count "$bluetoothd_pid")" "$(status_kib "$bluetoothd_pid" VmRSS)" \
        "$(status_kib "$bluetoothd_pid" VmHWM)" "$(status_kib "$bluetoothd_pid" VmData)" >> "$tsv"
    cd "$root" || return 1
    BLUEZVM_OUT=$root
    # bluetoothd 5.66 aborted once (free(): invalid pointer) when an advertisement was unregistered
    # while its Add Extended Advertising Parameters was pending (README.md, "Soak"): the upload in
    # which it died fails, and so does the soak, at once.
    if ! [ -d "/proc/$bluetoothd_pid" ]; then
        ok=0 why="${why:+$why; }bluetoothd (pid $bluetoothd_pid) exited during this upload (see bluetoothd.log)"
    fi
    if ((ok)); then
        bluezvm_log "upload $n: ok ($kind, $wall s, dfu peak RSS $rss KiB, dfu fds $fds_max, bluetoothd fds $(fd_count "$bluetoothd_pid") RSS $(status_kib "$bluetoothd_pid" VmRSS) KiB)"
        return 0
    fi
    bluezvm_log "upload $n: FAIL ($kind): $why"
    echo "$n $kind $why" >> "$root/failures"
    return 1
}

printf 'n\tkind\tdfu_status\tfailed\twall_s\tdfu_maxrss_kib\tdfu_fds_max\tbtd_fds\tbtd_rss_kib\tbtd_hwm_kib\tbtd_data_kib\n' > "$tsv"
bluezvm_record "soak start bluetoothd_fds=$(fd_count "$bluetoothd_pid") bluetoothd_rss_kib=$(status_kib "$bluetoothd_pid" VmRSS)"
soak_started=$(bluezvm_now_cs)
for ((n = 1; n <= uploads; n++)); do
    upload "$n" "${kinds[$(((n - 1) % ${#kinds[@]}))]}" || failures=$((failures + 1))
    if ! [ -d "/proc/$bluetoothd_pid" ]; then
        bluezvm_log "bluetoothd is gone: the soak stops after $n of $uploads uploads"
        failures=$((failures + uploads - n))
        uploads=$n
        break
    fi
done
soak_wall=$(bluezvm_seconds_since "$soak_started")

# The comparison: the mean of the first `window` rows and of the last `window` rows.
window=$((uploads >= 20 ? 10 : uploads / 2))
((window >= 1)) || window=1
summary=$(awk -F'\t' -v w="$window" -v n="$uploads" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { row = NR - 1
      for (k in col) v[row, k] = $col[k] }
    END {
        split("dfu_maxrss_kib dfu_fds_max btd_fds btd_rss_kib btd_hwm_kib btd_data_kib wall_s", names, " ")
        for (j = 1; j <= 7; j++) {
            k = names[j]; a = 0; b = 0
            for (r = 1; r <= w; r++) a += v[r, k]
            for (r = n - w + 1; r <= n; r++) b += v[r, k]
            printf "%s %.2f %.2f\n", k, a / w, b / w
        }
    }' "$tsv")
mean() { awk -v k="$1" -v f="$2" '$1 == k { print $f }' <<< "$summary"; }

echo
printf '%-16s %14s %14s %10s\n' figure "first $window" "last $window" change
while read -r key first last; do
    printf '%-16s %14s %14s %+10.2f\n' "$key" "$first" "$last" "$(awk -v a="$first" -v b="$last" 'BEGIN { print b - a }')"
done <<< "$summary"
echo
awk -F'\t' 'NR > 1 { c[$2]++; f[$2] += $4; w[$2] += $5 }
    END { printf "%-12s %7s %8s %10s\n", "kind", "uploads", "failures", "mean_s"
          for (k in c) printf "%-12s %7d %8d %10.1f\n", k, c[k], f[k], w[k] / c[k] }' "$tsv"
echo

jq -R -s --argjson window "$window" --arg wall "$soak_wall" --argjson failures "$failures" '
    split("\n") | map(select(length > 0) | split("\t")) | .[0] as $head
    | { uploads: (length - 1), failures: $failures, wall_s: ($wall | tonumber), window: $window,
        rows: [.[1:][] | [$head, .] | transpose | map({(.[0]): (.[1] | tonumber? // .)}) | add] }' \
    "$tsv" > soak.json

bluezvm_record "soak uploads=$uploads failures=$failures wall_s=$soak_wall window=$window"
while read -r key first last; do
    bluezvm_record "soak $key first=$first last=$last"
done <<< "$summary"

verdict=0
((failures == 0)) || { bluezvm_log "FAIL: $failures of $uploads uploads failed:"; cat failures; verdict=1; }
# grows KEY TOLERANCE: true when the last window's mean exceeds the first's by more than TOLERANCE.
grows() {
    awk -v a="$(mean "$1" 2)" -v b="$(mean "$1" 3)" -v t="$2" 'BEGIN { exit !(b - a > t) }'
}
for key in dfu_fds_max btd_fds; do
    if grows "$key" 0; then bluezvm_log "FAIL: $key grew: $(mean "$key" 2) -> $(mean "$key" 3)"; verdict=1; fi
done
if grows dfu_maxrss_kib "$dfu_rss_tolerance"; then
    bluezvm_log "FAIL: dfu's peak RSS grew by more than $dfu_rss_tolerance KiB"
    verdict=1
fi
if grows btd_rss_kib "$btd_rss_tolerance"; then
    bluezvm_log "FAIL: bluetoothd's RSS grew by more than $btd_rss_tolerance KiB"
    verdict=1
fi
((verdict == 0)) && bluezvm_log "ok: $uploads uploads in $soak_wall s, no failure, no growth beyond the tolerances"
exit "$verdict"
