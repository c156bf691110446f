#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# A large upload (512 000 bytes) through AcquireWrite on both sides: dfu writes packets to its
# AcquireWrite socket, bluetoothd delivers them to the peripheral's. Passes when the image has the
# package's CRC-32 and the packets came through the peripheral's AcquireWrite socket.
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
bluezvm_check "dfu upload secure-app-512000.zip succeeds" \
    dfusim_upload dfu-large-acquire-write "$packages/secure-app-512000.zip" --device "$target_address" --adapter "$central"
bluezvm_check "the target boots its new application" dfusim_peripheral_expect 60 "ready application on $target"
dfusim_peripheral_stop
dfusim_report_check "the application has the package's CRC-32" \
    ".application.crc32 == $(dfusim_expected_crc secure-app-512000.zip application) and .application.size == 512000"
dfusim_report_check "the data came through the AcquireWrite socket" ".acquiredWrites >= 2000"
dfusim_report_check "no packet was longer than 244 bytes" ".longestWrite <= 244"
dfusim_report_check "no protocol violation" ".violations == []"
