#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# Secure DFU, SoftDevice+bootloader then application (two parts, two connections): the target
# reboots into its bootloader between the parts (same adapter, same address). Passes when both
# images have the package's CRC-32 (the SoftDevice check passes: 0xB7 installed, 0x101 after).
set -u
# shellcheck source=../guest/lib.sh
. "$BLUEZVM_LIB"
# shellcheck source=../guest/peripheral.sh
. "$(dirname "$BLUEZVM_LIB")/peripheral.sh"
dfusim_scenario_begin


# The package's SoftDevice+bootloader part accepts SoftDevice 0xB7 or 0x101 and installs 0x101,
# which its application part requires.
dfusim_peripheral_start --adapter "$target" --device secure,sd_id=0xB7,sd_id_after=0x101
dfusim_peripheral_mark
bluezvm_check "dfu upload secure-sd-bl-app.zip succeeds" \
    dfusim_upload dfu-secure-sd-bl-app "$packages/secure-sd-bl-app.zip" --device "$target_address" --adapter "$central"
bluezvm_check "the target boots its new application" dfusim_peripheral_expect 30 "ready application on $target"
dfusim_peripheral_stop
cat report.json
dfusim_report_check "SoftDevice+bootloader have the package's CRC-32" \
    ".softdeviceBootloader.crc32 == $(dfusim_expected_crc secure-sd-bl-app.zip softdevice_bootloader)"
dfusim_report_check "the application has the package's CRC-32" \
    ".application.crc32 == $(dfusim_expected_crc secure-sd-bl-app.zip application)"
dfusim_report_check "the target rebooted between the parts and after the last" "(.boots | length) >= 3"
dfusim_report_check_link
