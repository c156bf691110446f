#!/usr/bin/env bash
# `make bench-bluez` (figure 3 of Benchmarks/README.md): a 200 KB upload through the real bluetoothd in the VM,
# with AcquireWrite and with WriteValue (`dfu upload --no-acquire`), each also with `--prn 0` (no packet receipt
# notifications, as nrfdfu runs), and by nrfdfu when given
# (--peer-nrfdfu), several runs of each in one boot, alternating. Prints a table (median with min–max) and, with --json, writes the figures
# as JSON. See Benchmarks/README.md, figure 3.
set -euo pipefail

usage() {
    cat << 'EOF'
usage: Tests/BlueZVM/bench.sh [--runs N] [--size BYTES] [--json FILE] [--peer-nrfdfu PATH] [RUN.SH OPTIONS...]

  --runs N              timed uploads per client (default 3), after one warm-up start of dfu and dfu-sim
  --size BYTES          the image size, a multiple of 4 (default 204800)
  --json FILE           also write the figures as JSON to FILE
  --peer-nrfdfu PATH    also nrfdfu (Benchmarks/README.md, figure 7, "Building the peer"), the same upload
  other options go to Tests/BlueZVM/run.sh (e.g. --bin-dir DIR, --timeout SECONDS, --out DIR)

Each upload is one scenario (Tests/BlueZVM/scenarios/dfu-acquire-write-200k.sh, without the -vv
trace; peer-nrfdfu-200k.sh for nrfdfu): the CPU time is the user+sys time of the client process in
the guest; beside it what bluetoothd, the system bus's dbus-daemon and the whole guest used during
the upload, and the client's CPU with that of the scan it needs first (dfu scans inside its process; nrfdfu's
device is made known by bluetoothctl's `scan on` for 3 s on the central before, measured apart); throughput the image bytes over the
client's whole run (the scan before nrfdfu's not included), over dfu's transfer alone (its own trace), and at the device: the image
bytes over the time the simulated bootloader took writes, from its first write to the final Execute, the one rate
measured alike for every client (the peripheral's report: dfusim_record_device_rate in guest/peripheral.sh).
EOF
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
runs=3
size=204800
json=""
peer=""
out="$repo/.build/bluez-vm/bench"
run_options=()
while [ $# -gt 0 ]; do
    case $1 in
        -h | --help) usage; exit 0 ;;
        --runs) runs=${2:-}; shift ;;
        --size) size=${2:-}; shift ;;
        --json) json=${2:?--json needs a file}; shift ;;
        --peer-nrfdfu) peer=${2:?--peer-nrfdfu needs the path of nrfdfu}; shift ;;
        --out) out=${2:?--out needs a folder}; shift ;;
        *) run_options+=("$1") ;;
    esac
    shift
done
[[ $runs =~ ^[1-9][0-9]?$ ]] || { echo "bench-bluez: --runs takes 1 to 99" >&2; exit 2; }
if ! [[ $size =~ ^[1-9][0-9]*$ ]] || ((size % 4 != 0)); then
    echo "bench-bluez: --size takes a multiple of 4" >&2
    exit 2
fi

bin_dir="$repo/.build/release"
for ((index = 0; index < ${#run_options[@]}; index++)); do
    [ "${run_options[index]}" = --bin-dir ] && bin_dir=${run_options[index + 1]:-$bin_dir}
done
# The WriteValue rows need `dfu upload --no-acquire`. The `--prn 0` rows make the exchange nrfdfu's (it turns packet
# receipt notifications off, dfu.c `dfu_upgrade`; dfu's default is 12).
modes=(acquire-write acquire-write-prn0)
# dfu_options MODE: the `dfu upload` options of a dfu mode.
dfu_options() {
    case $1 in
        acquire-write) echo "" ;;
        acquire-write-prn0) echo "--prn 0" ;;
        write-value) echo "--no-acquire" ;;
        write-value-prn0) echo "--no-acquire --prn 0" ;;
    esac
}
if "$bin_dir/dfu" upload --help 2>&1 | grep -q -- '--no-acquire'; then
    modes+=(write-value write-value-prn0)
else
    echo "bench-bluez: this dfu has no 'upload --no-acquire': WriteValue is not measured" >&2
fi

if [ -n "$peer" ]; then
    [ -x "$peer" ] || { echo "bench-bluez: $peer is not an executable file" >&2; exit 2; }
    modes+=(nrfdfu)
fi

# Every client's upload goes to a dfu-sim peripheral that offers bluetoothd no AcquireWrite: bluetoothd's GATT server
# keeps only a pointer to a Write Command that comes while it acquires, and sends what that buffer holds by then (BlueZ
# src/gatt-database.c, `pending_write_new` and `acquire_write_reply`; Tests/BlueZVM/README.md, "BlueZ versions"):
# nrfdfu's init packet arrived corrupted and the upload failed; dfu sent that object again. Through WriteValue the
# server copies each write into its call, so all three clients meet the same, sound server side.
peripheral_args="--no-acquire-write"
scenario="$here/scenarios/dfu-acquire-write-200k.sh"
# shellcheck disable=SC2016  # expanded by the guest
commands=(--command 'bench-warm-up="$BLUEZVM_BIN/dfu" --help > /dev/null && "$BLUEZVM_BIN/dfu-sim" --help > /dev/null')
for ((run = 1; run <= runs; run++)); do
    for mode in "${modes[@]}"; do
        if [ "$mode" = nrfdfu ]; then
            commands+=(--command "bench-$mode-$run=BLUEZVM_UPLOAD_BYTES=$size BLUEZVM_PERIPHERAL_ARGS=$peripheral_args BLUEZVM_PEER_NRFDFU=$(printf '%q' "$peer") $(printf '%q' "$here/scenarios/peer-nrfdfu-200k.sh")")
            continue
        fi
        arguments=$(dfu_options "$mode")
        commands+=(--command "bench-$mode-$run=BLUEZVM_UPLOAD_TRACE=0 BLUEZVM_UPLOAD_BYTES=$size BLUEZVM_PERIPHERAL_ARGS=$peripheral_args BLUEZVM_UPLOAD_ARGS='$arguments' $(printf '%q' "$scenario")")
    done
done
# One upload of 200 KB takes 1.5 to 3 minutes under TCG; the limits leave room for a loaded host.
started=$(date +%s)
set +e
"$here/run.sh" --out "$out" --timeout $((300 + runs * ${#modes[@]} * 420)) --scenario-timeout 600 \
    "${run_options[@]}" "${commands[@]}"
status=$?
set -e
elapsed=$(($(date +%s) - started))

# "bench-MODE-N: bench-MODE-N wall_s=… user_s=… sys_s=… status=…" and
# "bench-MODE-N: bench-MODE-N bytes=… throughput_kBps=… transfer_kBps=…" and
# "bench-MODE-N: bench-MODE-N device_kBps=…" (the rate the peripheral saw: dfusim_record_device_rate)
measurements="$out/measurements"
[ -s "$measurements" ] || { echo "bench-bluez: no measurements in $out (status $status)" >&2; exit 1; }
table=$(awk -v runs="$runs" -v size="$size" -v order="${modes[*]}" '
    function field(line, key,    n, parts, i, kv) {
        n = split(line, parts, " ")
        for (i = 1; i <= n; i++) { split(parts[i], kv, "="); if (kv[1] == key) return kv[2] }
        return ""
    }
    $1 ~ /^bench-((acquire-write|write-value)(-prn0)?|nrfdfu)-[0-9]+:$/ {
        name = substr($1, 1, length($1) - 1)
        mode = name; sub(/-[0-9]+$/, "", mode); sub(/^bench-/, "", mode)
        run = name; sub(/^.*-/, "", run)
        # The scan a client that does not scan needs first (peer-nrfdfu-200k.sh), measured before its upload.
        if ($2 == name "-discovery") {
            if (field($0, "status") == "0") scan[mode, run] = field($0, "user_s") + field($0, "sys_s")
            next
        }
        if ($2 != name) next
        if (field($0, "wall_s") != "" && field($0, "status") == "0") {
            wall[mode, ++count[mode]] = field($0, "wall_s")
            cpu[mode, count[mode]] = field($0, "user_s") + field($0, "sys_s")
            with_scan[mode, count[mode]] = cpu[mode, count[mode]] + scan[mode, run]
            user[mode, count[mode]] = field($0, "user_s"); sys[mode, count[mode]] = field($0, "sys_s")
            daemon[mode, count[mode]] = field($0, "bluetoothd_s") + 0; bus[mode, count[mode]] = field($0, "dbus_s") + 0
            guest[mode, count[mode]] = field($0, "guest_s") + 0
        }
        if (field($0, "throughput_kBps") != "") {
            whole[mode, ++rates[mode]] = field($0, "throughput_kBps")
            transfer[mode, rates[mode]] = field($0, "transfer_kBps") != "" ? field($0, "transfer_kBps") : 0
        }
        if (field($0, "device_kBps") != "" && field($0, "device_kBps") != "?") device[mode, ++devices[mode]] = field($0, "device_kBps")
    }
    function spread(array, mode, n,    values, i, j, t, median) {
        for (i = 1; i <= n; i++) values[i] = array[mode, i] + 0
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (values[j] < values[i]) { t = values[i]; values[i] = values[j]; values[j] = t }
        median = n % 2 ? values[(n + 1) / 2] : (values[n / 2] + values[n / 2 + 1]) / 2
        return sprintf("%.2f %.2f %.2f", median, values[1], values[n])
    }
    END {
        count_modes = split(order, ordered, " ")
        for (m = 1; m <= count_modes; m++) {
            mode = ordered[m]
            if (!count[mode]) continue
            n = count[mode]
            print mode, n, spread(wall, mode, n), spread(cpu, mode, n), spread(user, mode, n), spread(sys, mode, n), \
                spread(whole, mode, rates[mode]), spread(transfer, mode, rates[mode]), spread(daemon, mode, n), \
                spread(bus, mode, n), spread(guest, mode, n), devices[mode] ? spread(device, mode, devices[mode]) : "0 0 0", \
                spread(with_scan, mode, n)
        }
    }' "$measurements")

format() { # median min max [digits]
    if [ "$2" = "$3" ]; then printf "%.${4:-2}f" "$1"; else printf "%.${4:-2}f (%.${4:-2}f–%.${4:-2}f)" "$1" "$2" "$3"; fi
}
cores=$(nproc)
cpu_model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
bluez_version=$(/usr/libexec/bluetooth/bluetoothd --version 2> /dev/null || echo "?")
accelerator=$(awk '$1 == "accelerator" { print $2 }' "$out/timings" 2> /dev/null)
echo
echo "Machine: $cores cores, $cpu_model; kernel $(uname -r); VM: ${accelerator:-?}, 2 vCPUs"
echo "Versions: $("$bin_dir/dfu" --version 2> /dev/null | head -1); bluetoothd $bluez_version (Debian, in the VM), btvirt controllers"
echo "Date: $(date -u +%Y-%m-%dT%H:%M:%SZ); benchmark took $elapsed s"
echo
echo "Figure 3: $size-byte upload through the real bluetoothd in the VM (median (min–max) of $runs runs; the client process in the guest,"
echo "and what bluetoothd, the system bus's dbus-daemon and the whole guest used during it)"
echo "| client, writes | runs | client wall s | client CPU s (user+sys) | with the scan it needs first, s | user s | sys s | CPU s/MB | whole run kB/s | transfer kB/s | at the device kB/s | bluetoothd CPU s | dbus-daemon CPU s | guest CPU s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
while read -r mode n wall wall_min wall_max cpu cpu_min cpu_max user user_min user_max sys sys_min sys_max \
    whole whole_min whole_max transfer transfer_min transfer_max daemon daemon_min daemon_max bus bus_min bus_max \
    guest guest_min guest_max device device_min device_max with_scan with_scan_min with_scan_max; do
    case $mode in
        nrfdfu) label="nrfdfu, WriteValue" ;;
        write-value*) options=$(dfu_options "$mode"); label="dfu $options, WriteValue" ;;
        *) options=$(dfu_options "$mode"); label="dfu${options:+ $options}, AcquireWrite" ;;
    esac
    per_mb=$(awk -v c="$cpu" -v s="$size" 'BEGIN { printf "%.2f", c / (s / 1e6) }')
    transfer_cell=$([ "$mode" = nrfdfu ] && echo "–" || format "$transfer" "$transfer_min" "$transfer_max" 1)
    echo "| $label | $n | $(format "$wall" "$wall_min" "$wall_max" 1) | $(format "$cpu" "$cpu_min" "$cpu_max") |" \
        "$(format "$with_scan" "$with_scan_min" "$with_scan_max") | $(format "$user" "$user_min" "$user_max") | $(format "$sys" "$sys_min" "$sys_max") | $per_mb |" \
        "$(format "$whole" "$whole_min" "$whole_max" 1) | $transfer_cell | $(format "$device" "$device_min" "$device_max" 1) |" \
        "$(format "$daemon" "$daemon_min" "$daemon_max") | $(format "$bus" "$bus_min" "$bus_max") | $(format "$guest" "$guest_min" "$guest_max") |"
done <<< "$table"
failed=$(grep -c '^FAIL ' "$out/results" 2> /dev/null || true)
[ "${failed:-0}" = 0 ] || echo "($failed of the VM's scenarios failed; see $out/results)"

if [ -n "$json" ]; then
    {
        printf '{"figure":3,"imageBytes":%d,"runs":%d,"benchSeconds":%d,"machine":{"cores":%d,"cpuModel":"%s","kernel":"%s","accelerator":"%s","bluetoothd":"%s"},"rows":[' \
            "$size" "$runs" "$elapsed" "$cores" "$cpu_model" "$(uname -r)" "${accelerator:-?}" "$bluez_version"
        separator=""
        while read -r mode n wall wall_min wall_max cpu cpu_min cpu_max user user_min user_max sys sys_min sys_max \
            whole whole_min whole_max transfer transfer_min transfer_max daemon daemon_min daemon_max bus bus_min bus_max \
            guest guest_min guest_max device device_min device_max with_scan with_scan_min with_scan_max; do
            printf '%s{"writes":"%s","runs":%d,"wallSeconds":{"median":%s,"min":%s,"max":%s},"cpuSeconds":{"median":%s,"min":%s,"max":%s},"cpuWithScanSeconds":{"median":%s,"min":%s,"max":%s},"userSeconds":{"median":%s,"min":%s,"max":%s},"sysSeconds":{"median":%s,"min":%s,"max":%s},"wholeRunKilobytesPerSecond":{"median":%s,"min":%s,"max":%s},"transferKilobytesPerSecond":{"median":%s,"min":%s,"max":%s},"deviceKilobytesPerSecond":{"median":%s,"min":%s,"max":%s},"bluetoothdSeconds":{"median":%s,"min":%s,"max":%s},"dbusDaemonSeconds":{"median":%s,"min":%s,"max":%s},"guestSeconds":{"median":%s,"min":%s,"max":%s}}' \
                "$separator" "$mode" "$n" "$wall" "$wall_min" "$wall_max" "$cpu" "$cpu_min" "$cpu_max" "$with_scan" "$with_scan_min" "$with_scan_max" "$user" "$user_min" \
                "$user_max" "$sys" "$sys_min" "$sys_max" "$whole" "$whole_min" "$whole_max" "$transfer" "$transfer_min" "$transfer_max" "$device" "$device_min" "$device_max" \
                "$daemon" "$daemon_min" "$daemon_max" "$bus" "$bus_min" "$bus_max" "$guest" "$guest_min" "$guest_max"
            separator=","
        done <<< "$table"
        printf ']}\n'
    } > "$json"
    jq . "$json" > /dev/null || { echo "bench-bluez: wrote invalid JSON to $json" >&2; exit 1; }
    echo "bench-bluez: JSON in $json"
fi
exit "$status"
