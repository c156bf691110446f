# shellcheck shell=bash
# Helpers for scenarios that run the simulated DFU target as a GATT peripheral
# (`dfu-sim peripheral`, see Sources/DFUSimPeripheral). Source after lib.sh:
#   . "$(dirname "$BLUEZVM_LIB")/peripheral.sh"

dfusim_peripheral_command=("$BLUEZVM_BIN/dfu-sim" peripheral)

# dfusim_peripheral_start ARGS...: starts the peripheral as session "peripheral" (its output in
# peripheral.log) with ARGS and a report in report.json, and waits until its first role is
# registered and advertising. It re-registers its advertisement every 1.5 s while nobody is
# connected: btvirt reports an advertiser only once per scan or advertising enable, and that one
# report can race the kernel's start of discovery (README, obstacle 9).
dfusim_peripheral_start() {
    bluezvm_session_start peripheral "${dfusim_peripheral_command[@]}" "$@" --readvertise-ms 1500 \
        --report "$BLUEZVM_OUT/report.json"
    bluezvm_check "the peripheral is registered and advertising" \
        bluezvm_session_expect peripheral 60 '^dfu-sim peripheral: ready '
}

# dfusim_peripheral_expect SECONDS REGEX: waits for a line of the peripheral's output since the
# last dfusim_peripheral_mark.
dfusim_peripheral_expect() {
    bluezvm_session_expect peripheral "$1" "$2"
}

# dfusim_peripheral_mark: later expectations only look at output from now on.
dfusim_peripheral_mark() {
    bluezvm_session_send peripheral
}

# dfusim_peripheral_stop: SIGTERM, then waits for it to unregister and write its final report.
dfusim_peripheral_stop() {
    local pid=${bluezvm_session_pid[peripheral]:-}
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2> /dev/null
    bluezvm_wait_until 15 "the peripheral to exit" eval "! kill -0 $pid 2> /dev/null"
    bluezvm_session_stop peripheral
}

# dfusim_report FILTER: a value from the peripheral's report (jq filter, raw output).
dfusim_report() {
    jq -r "$1" "$BLUEZVM_OUT/report.json"
}

# dfusim_record_device_rate LABEL BYTES: records device_kBps, BYTES over the time the bootloader took writes (from its
# first write to its last, the final Execute, summed over its boots: the report's firstWriteSeconds and
# lastWriteSeconds), the rate as the device saw it, measured alike for every client (bench.sh). Call it once the
# application has booted, when the report holds the bootloader's last write.
dfusim_record_device_rate() {
    local seconds
    seconds=$(jq -r '[.boots[] | select(.role == "bootloader" and .firstWriteSeconds != null)
        | .lastWriteSeconds - .firstWriteSeconds] | add // 0' "$BLUEZVM_OUT/report.json")
    bluezvm_record "$1 device_kBps=$(awk -v b="$2" -v s="$seconds" 'BEGIN { if (s > 0) printf "%.1f", b / s / 1000; else print "?" }')"
}

# dfusim_report_check WHAT FILTER: checks that the jq FILTER is true of the report.
dfusim_report_check() {
    bluezvm_check "$1" jq -e "$2" "$BLUEZVM_OUT/report.json"
}

# dfusim_expected_crc PACKAGE TYPE: the CRC-32 (decimal) of the part TYPE of a fixture package,
# from Tests/Fixtures/packages/expected.json.
dfusim_expected_crc() {
    jq -r --arg file "$1" --arg type "$2" \
        '.[] | select(.file == $file) | .parts[] | select(.type == $type) | .bin_crc32' \
        "$BLUEZVM_REPO/Tests/Fixtures/packages/expected.json" | { read -r hex && echo $((16#$hex)); }
}

# dfusim_require_upload: fails the scenario unless `dfu upload` exists (it needs the cli and
# BlueZTransport work).
dfusim_require_upload() {
    bluezvm_check "dfu has an upload command" eval '"$BLUEZVM_BIN/dfu" upload --help > /dev/null 2>&1'
}

# dfusim_scenario_begin: the common start of a dfu scenario. Sets central (the first adapter,
# where dfu runs), target and target_address (the second adapter, where dfu-sim peripheral runs)
# and packages (the fixture packages); stops the peripheral and every bluetoothctl session when the
# scenario exits; fails the scenario unless `dfu upload` exists; powers the central on.
# shellcheck disable=SC2034  # the variables are the scenario's, read after this returns
dfusim_scenario_begin() {
    trap 'dfusim_peripheral_stop; bluezvm_session_stop_all' EXIT
    central=$BLUEZVM_ADAPTER_1
    target=$BLUEZVM_ADAPTER_2
    target_address=$BLUEZVM_ADDRESS_2
    packages=$BLUEZVM_REPO/Tests/Fixtures/packages
    dfusim_require_upload
    bluezvm_check "$central powers on" bluezvm_set_powered "$central" true
}

# dfusim_report_check_link: the checks that end a Secure upload scenario: no packet was longer
# than 244 bytes (writes above 510 bytes are lost in this VM, so this must hold), and the simulated
# bootloader saw no protocol violation.
dfusim_report_check_link() {
    dfusim_report_check "no packet was longer than 244 bytes" ".longestWrite <= 244"
    dfusim_report_check "no protocol violation" ".violations == []"
}

# dfusim_upload LABEL PACKAGE ARGS...: runs `dfu upload PACKAGE ARGS... --json` (PACKAGE a fixture zip,
# or a raw .bin whose file size counts as the firmware bytes; events in
# LABEL.jsonl, the -vv trace and errors in LABEL.err), records its wall and CPU time and, when it
# succeeded, the throughput over the package's firmware bytes (throughput_kBps: the whole run, scan
# and connect included; transfer_kBps: dfu's own average over the last part's transfer), and
# returns its status. BLUEZVM_UPLOAD_TRACE=0 leaves out the -vv trace (for benchmarks). BLUEZVM_DFU_PREFIX, words
# put before dfu's path, runs it under another program, e.g. 'valgrind --tool=callgrind --callgrind-out-file=cg.out'
# (relative paths land in the scenario's folder).
dfusim_upload() {
    local label=$1 package=$2 status wall bytes transfer
    shift 2
    bluezvm_log "dfu upload $(basename "$package") $*"
    local trace=(-vv)
    [ "${BLUEZVM_UPLOAD_TRACE:-1}" = 0 ] && trace=()
    # shellcheck disable=SC2086  # the prefix is words, split on purpose
    bluezvm_measure "$label" ${BLUEZVM_DFU_PREFIX:-} "$BLUEZVM_BIN/dfu" upload "$package" "$@" --json "${trace[@]}" > "$label.jsonl" 2> "$label.err"
    status=$?
    if [[ $package == *.zip ]]; then
        bytes=$(jq -r --arg file "$(basename "$package")" \
            '[.[] | select(.file == $file) | .parts[].bin_size] | add' \
            "$BLUEZVM_REPO/Tests/Fixtures/packages/expected.json")
    else
        bytes=$(stat -c %s "$package")
    fi
    wall=$(awk -v label="$label" '$1 == label { sub("wall_s=", "", $2); print $2 }' measurements | tail -1)
    if ((status == 0)); then
        transfer=$(jq -rs '[.[] | select(.event == "progress" and (.average // 0) > 0) | .average] | last // 0' "$label.jsonl")
        bluezvm_record "$label bytes=$bytes throughput_kBps=$(awk -v b="$bytes" -v w="$wall" 'BEGIN { if (w > 0) printf "%.1f", b / w / 1000; else print "?" }') transfer_kBps=$(awk -v t="$transfer" 'BEGIN { printf "%.1f", t / 1000 }')"
    else
        bluezvm_log "dfu upload exited with $status:"
        tail -n 20 "$label.err" >&2
        tail -n 5 "$label.jsonl" >&2
    fi
    return $status
}
