# shellcheck shell=bash
# Helpers for scenarios that run the simulated DFU target as a GATT peripheral
# (`dfu-sim peripheral`, see Sources/BlueZPeripheral). Source after lib.sh:
#   . "$(dirname "$BLUEZVM_LIB")/peripheral.sh"

dfusim_peripheral_command=("$BLUEZVM_BIN/dfu-sim" peripheral)

# dfusim_peripheral_start ARGS...: starts the peripheral as session "peripheral" (its output in
# peripheral.log) with ARGS and a report in report.json, and waits until its first role is
# registered and advertising.
dfusim_peripheral_start() {
    bluezvm_session_start peripheral "${dfusim_peripheral_command[@]}" "$@" --report "$BLUEZVM_OUT/report.json"
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
