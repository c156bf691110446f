#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# A large upload (204 800 bytes, 200 KiB) through AcquireWrite on both sides: dfu writes its packets
# to its AcquireWrite socket, bluetoothd delivers them to the peripheral's. The image and its
# unsigned init packet come from `dfu-sim image` (no fixture package is this size). Passes when the
# image has the expected CRC-32, every packet was 244 bytes at most and the largest exactly 244 (the
# packet size dfu chose from ATT MTU 247), and the packets came through the AcquireWrite socket.
# BLUEZVM_UPLOAD_BYTES overrides the size (a multiple of 4), BLUEZVM_UPLOAD_ARGS adds dfu options,
# BLUEZVM_PERIPHERAL_ARGS dfu-sim peripheral options (`make bench-bluez` gives --no-acquire-write: bench.sh).
set -u
# shellcheck source=../guest/lib.sh
. "$BLUEZVM_LIB"
# shellcheck source=../guest/peripheral.sh
. "$(dirname "$BLUEZVM_LIB")/peripheral.sh"
dfusim_scenario_begin

size=${BLUEZVM_UPLOAD_BYTES:-204800}
label=${BLUEZVM_SCENARIO:-dfu-acquire-write-200k}
read -r -a extra <<< "${BLUEZVM_UPLOAD_ARGS:-}"
read -r -a peripheral_extra <<< "${BLUEZVM_PERIPHERAL_ARGS:-}"
bluezvm_check "dfu-sim image writes a $size-byte image" \
    "$BLUEZVM_BIN/dfu-sim" image --size "$size" --bin app.bin --dat app.dat
expected_crc=$(gzip -c app.bin | tail -c 8 | od -An -tu4 -N4 | tr -d ' ')

dfusim_peripheral_start --adapter "$target" --device secure,sd_id=0xB7 "${peripheral_extra[@]}"
dfusim_peripheral_mark
bluezvm_check "dfu upload of the $size-byte image succeeds" \
    dfusim_upload "$label" app.bin --type application --init app.dat --device "$target_address" \
    --adapter "$central" "${extra[@]}"
bluezvm_check "the target boots its new application" dfusim_peripheral_expect 60 "ready application on $target"
dfusim_peripheral_stop
dfusim_record_device_rate "$label" "$size"
rm -f app.bin
dfusim_report_check "the application has the image's CRC-32 ($expected_crc) and size" \
    ".application.crc32 == $expected_crc and .application.size == $size"
dfusim_report_check "ATT MTU 247: the packets were 244 bytes, never longer" ".mtu == 247 and .longestWrite == 244"
# On the peripheral's side too, unless its bluetoothd is older than 5.60, whose GATT server loses the writes that
# arrive while it acquires (dfu-sim peripheral then offers no AcquireWrite; README.md, "BlueZ versions").
server_acquires=false
bluezvm_bluetoothd_at_least 5.60 && [[ " ${peripheral_extra[*]} " != *" --no-acquire-write "* ]] && server_acquires=true
if $server_acquires; then
    dfusim_report_check "the data came through the AcquireWrite socket" ".acquiredWrites >= ($size / 244)"
else
    dfusim_report_check "the data came through WriteValue (bluetoothd before 5.60, or --no-acquire-write)" \
        ".acquiredWrites == 0 and .writes >= ($size / 244)"
fi
dfusim_report_check "no protocol violation" ".violations == []"
# Packets sent more than once (lost ones dfu detected by PRN or checksum and sent again): all
# packet writes minus the init packet and the image's packets (4096-byte objects of 244-byte packets).
# shellcheck disable=SC2017  # whole objects: the integer division is meant
packets=$((size / 4096 * ((4096 + 243) / 244) + (size % 4096 + 243) / 244 + 1))
# (Only where the packets came through the socket: through WriteValue they are not told apart from control point writes.)
resent=unknown
$server_acquires && resent=$(($(dfusim_report .acquiredWrites) - packets))
bluezvm_record "$label longest_write=$(dfusim_report .longestWrite) acquired_writes=$(dfusim_report .acquiredWrites) writes=$(dfusim_report .writes) mtu=$(dfusim_report .mtu) resent_packets=$resent"
