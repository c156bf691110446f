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
dfusim_scenario_begin


dfusim_peripheral_start --adapter "$target" --device secure,sd_id=0xB7
dfusim_peripheral_mark
bluezvm_check "dfu upload secure-app-4096.zip succeeds" \
    dfusim_upload dfu-secure-app "$packages/secure-app-4096.zip" --device "$target_address" --adapter "$central"
bluezvm_check "the target boots its new application" dfusim_peripheral_expect 30 "ready application on $target"
dfusim_peripheral_stop
cat report.json
dfusim_report_check "the application has the package's CRC-32" \
    ".application.crc32 == $(dfusim_expected_crc secure-app-4096.zip application) and .application.size == 4096"
dfusim_report_check_link
bluezvm_record "dfu-secure-app longest_write=$(dfusim_report .longestWrite) acquired_writes=$(dfusim_report .acquiredWrites) mtu=$(dfusim_report .mtu)"
