#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# Secure DFU, application only: the real `dfu upload` on one adapter, through bluetoothd, to
# `dfu-sim peripheral --device secure` on another. Passes when the image the simulated bootloader
# installed has the package's CRC-32 and no packet was longer than 244 bytes.
set -u
# shellcheck source=../guest/lib.sh
. "$BLUEZVM_LIB"
# shellcheck source=../guest/peripheral.sh
. "$(dirname "$BLUEZVM_LIB")/peripheral.sh"
trap 'dfusim_peripheral_stop; bluezvm_session_stop_all' EXIT

central=$BLUEZVM_ADAPTER_1
target=$BLUEZVM_ADAPTER_2
target_address=$BLUEZVM_ADDRESS_2
packages=$BLUEZVM_REPO/Tests/Fixtures/packages
dfusim_require_upload
bluezvm_check "$central powers on" bluezvm_set_powered "$central" true

dfusim_peripheral_start --adapter "$target" --device secure,sd_id=0xB7
dfusim_peripheral_mark
bluezvm_check "dfu upload secure-app-4096.zip succeeds" \
    dfusim_upload dfu-secure-app "$packages/secure-app-4096.zip" --device "$target_address" --adapter "$central"
bluezvm_check "the target boots its new application" dfusim_peripheral_expect 30 "ready application on $target"
dfusim_peripheral_stop
cat report.json
dfusim_report_check "the application has the package's CRC-32" \
    ".application.crc32 == $(dfusim_expected_crc secure-app-4096.zip application) and .application.size == 4096"
dfusim_report_check "no packet was longer than 244 bytes (writes above 510 are lost in this VM)" ".longestWrite <= 244"
dfusim_report_check "the simulated bootloader saw no protocol violation" ".violations == []"
bluezvm_record "dfu-secure-app longest_write=$(dfusim_report .longestWrite) acquired_writes=$(dfusim_report .acquiredWrites) mtu=$(dfusim_report .mtu)"
