#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# Buttonless without bonds, the bootloader given by address: the application (8EC90003) on one
# adapter; on the jump the target reboots into its Secure bootloader on ANOTHER adapter, whose
# address dfu is given with --bootloader-address (the alternative name is set too). Passes when
# the application has the package's CRC-32.
set -u
# shellcheck source=../guest/lib.sh
. "$BLUEZVM_LIB"
# shellcheck source=../guest/peripheral.sh
. "$(dirname "$BLUEZVM_LIB")/peripheral.sh"
dfusim_scenario_begin

bootloader=$BLUEZVM_ADAPTER_3
bootloader_address=$BLUEZVM_ADDRESS_3

dfusim_peripheral_start --adapter "$target" --bootloader-adapter "$bootloader" --device buttonless,sd_id=0xB7
dfusim_peripheral_mark
bluezvm_check "dfu upload secure-app-4096.zip --bootloader-address $bootloader_address succeeds" \
    dfusim_upload dfu-buttonless-bootloader-address "$packages/secure-app-4096.zip" --device "$target_address" \
    --adapter "$central" --alt-name DfuVM --bootloader-address "$bootloader_address" --scan-timeout 30
bluezvm_check "the target boots its new application on $target" \
    dfusim_peripheral_expect 30 "ready application on $target"
dfusim_peripheral_stop
cat report.json
dfusim_report_check "the bootloader ran on $bootloader" \
    "any(.boots[]; .role == \"bootloader\" and .adapter == \"$bootloader\")"
dfusim_report_check "the application has the package's CRC-32" \
    ".application.crc32 == $(dfusim_expected_crc secure-app-4096.zip application)"
dfusim_report_check_link
