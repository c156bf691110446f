#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# Legacy DFU, application only, with 20-byte packets (--packet-size 20), to
# `dfu-sim peripheral --device legacy`. Passes when the image has the package's CRC-32 and every
# packet was 20 bytes at most.
set -u
# shellcheck source=../guest/lib.sh
. "$BLUEZVM_LIB"
# shellcheck source=../guest/peripheral.sh
. "$(dirname "$BLUEZVM_LIB")/peripheral.sh"
dfusim_scenario_begin


dfusim_peripheral_start --adapter "$target" --device legacy
dfusim_peripheral_mark
bluezvm_check "dfu upload legacy-app.zip --packet-size 20 succeeds" \
    dfusim_upload dfu-legacy-app "$packages/legacy-app.zip" --device "$target_address" --adapter "$central" --packet-size 20
bluezvm_check "the target boots its new application" dfusim_peripheral_expect 30 "ready application on $target"
dfusim_peripheral_stop
cat report.json
dfusim_report_check "the application has the package's CRC-32" \
    ".application.crc32 == $(dfusim_expected_crc legacy-app.zip application)"
dfusim_report_check "the packet size used was 20 bytes" ".longestWrite == 20"
dfusim_report_check "no protocol violation" ".violations == []"
