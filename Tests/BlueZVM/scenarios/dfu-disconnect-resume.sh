#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# A link lost in the middle of a data object: the peripheral drops the central once after 2000
# bytes of the 4096-byte object (--disconnect-after-bytes). dfu reconnects through bluetoothd and
# resumes where the bootloader says it stopped. Passes when the link really dropped mid-object
# and the application still has the package's CRC-32.
set -u
# shellcheck source=../guest/lib.sh
. "$BLUEZVM_LIB"
# shellcheck source=../guest/peripheral.sh
. "$(dirname "$BLUEZVM_LIB")/peripheral.sh"
dfusim_scenario_begin


dfusim_peripheral_start --adapter "$target" --device secure,sd_id=0xB7 --disconnect-after-bytes 2000
dfusim_peripheral_mark
bluezvm_check "dfu upload secure-app-4096.zip succeeds across the lost link" \
    dfusim_upload dfu-disconnect-resume "$packages/secure-app-4096.zip" --device "$target_address" --adapter "$central"
bluezvm_check "the peripheral dropped the link mid-object" \
    grep -q 'disconnecting the central after [0-9]* packet bytes' peripheral.log
bluezvm_check "the target boots its new application" dfusim_peripheral_expect 30 "ready application on $target"
dfusim_peripheral_stop
cat report.json
dfusim_report_check "the link dropped before the image was complete" ".disconnections >= 2"
dfusim_report_check "the application has the package's CRC-32" \
    ".application.crc32 == $(dfusim_expected_crc secure-app-4096.zip application) and .application.size == 4096"
dfusim_report_check_link
