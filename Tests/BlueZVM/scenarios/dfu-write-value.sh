#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# An upload through WriteValue (`dfu upload --no-acquire`): dfu sends every packet as an org.bluez
# WriteValue call with type "command", several in flight at once, and bluetoothd turns each into an
# ATT Write Command. Passes when the application arrives whole (the image's CRC-32 and size), no
# packet was longer than the ATT MTU allows, and the peripheral saw no protocol violation.
# BLUEZVM_UPLOAD_BYTES overrides the size (a multiple of 4).
set -u
# shellcheck source=../guest/lib.sh
. "$BLUEZVM_LIB"
# shellcheck source=../guest/peripheral.sh
. "$(dirname "$BLUEZVM_LIB")/peripheral.sh"
dfusim_scenario_begin

size=${BLUEZVM_UPLOAD_BYTES:-49152}
label=dfu-write-value
bluezvm_check "dfu-sim image writes a $size-byte image" \
    "$BLUEZVM_BIN/dfu-sim" image --size "$size" --bin app.bin --dat app.dat
expected_crc=$(gzip -c app.bin | tail -c 8 | od -An -tu4 -N4 | tr -d ' ')

dfusim_peripheral_start --adapter "$target" --device secure,sd_id=0xB7
dfusim_peripheral_mark
bluezvm_check "dfu upload --no-acquire of the $size-byte image succeeds" \
    dfusim_upload "$label" app.bin --type application --init app.dat --device "$target_address" \
    --adapter "$central" --no-acquire
bluezvm_check "the target boots its new application" dfusim_peripheral_expect 60 "ready application on $target"
dfusim_peripheral_stop
rm -f app.bin
dfusim_report_check "the application has the image's CRC-32 ($expected_crc) and size" \
    ".application.crc32 == $expected_crc and .application.size == $size"
dfusim_report_check "ATT MTU 247: no packet longer than 244 bytes" ".mtu == 247 and .longestWrite <= 244"
dfusim_report_check "no protocol violation" ".violations == []"
bluezvm_record "$label longest_write=$(dfusim_report .longestWrite) writes=$(dfusim_report .writes) mtu=$(dfusim_report .mtu)"
