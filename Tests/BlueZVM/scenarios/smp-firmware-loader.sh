#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# MCUboot's firmware loader mode through the real bluetoothd: `dfu-sim peripheral --device smp-loader` (an nRF54L
# application above MCUboot in firmware loader mode; docs/conformance-mcuboot.md F1-F9) on the target adapter.
#   1. The nRF Connect SDK's loader: `dfu upload` resets the application (named Zephyr, no image group) with boot_mode
#      1; the peripheral re-registers as the loader ("FW loader") at the same address; dfu uploads into slot 0 and
#      resets; the application comes back and runs the image.
#   2. The Bare Metal option's loader (smp-loader-bm): it comes back at another address; btvirt cannot change an
#      adapter's address, so it registers on a third adapter and dfu is told where (--bootloader-address).
# What is real: bluetoothd (its device objects, discovery, GATT client, the name changing at one address); what the
# peripheral plays: the application, MCUboot and the loader (the simulated target). Passes when each report's slot 0
# holds the image and the boots were application, firmware loader, application.
set -u
# shellcheck source=../guest/lib.sh
. "$BLUEZVM_LIB"
# shellcheck source=../guest/peripheral.sh
. "$(dirname "$BLUEZVM_LIB")/peripheral.sh"
# shellcheck source=../guest/smp.sh
. "$(dirname "$BLUEZVM_LIB")/smp.sh"
dfusim_scenario_begin
smp_require_commands

image=app-1.4.0-48k.bin
smp_image "$image"
hash=$(smp_image_hash "$image")
[ -n "$hash" ] || bluezvm_fail "dfu inspect gives no SHA256 TLV for $image"
device=(--device "$target_address" --adapter "$central" --scan-timeout 30)
boots='[.boots[].role] == ["application", "firmware loader", "application"]'

dfusim_peripheral_start --adapter "$target" --device smp-loader
bluezvm_check "dfu uploads $image through the nRF Connect SDK's firmware loader" \
    smp_dfu upload-ncs upload "$image" "${device[@]}" --json -vv
smp_upload_rate upload-ncs "$(stat -c %s "$image")"
bluezvm_check "dfu reset the application with boot_mode 1" grep -q "reset with boot mode 1" upload-ncs.out
bluezvm_check "dfu says the image runs" grep -q '"state":"confirmed"' upload-ncs.out
dfusim_peripheral_stop
cp report.json report-ncs.json
dfusim_report_check "the application, then the loader as FW loader on $target, then the application" \
    "$boots and any(.boots[]; .role == \"firmware loader\" and .adapter == \"$target\" and .advertisedName == \"FW loader\")"
dfusim_report_check "slot 0 holds the image and runs it" \
    "any(.slots[]; .slot == 0 and .hash == \"$hash\" and .active)"

loader=$BLUEZVM_ADAPTER_3
loader_address=$BLUEZVM_ADDRESS_3
dfusim_peripheral_start --adapter "$target" --bootloader-adapter "$loader" --device smp-loader-bm
bluezvm_check "dfu uploads $image through the Bare Metal firmware loader at $loader_address" \
    smp_dfu upload-bm upload "$image" "${device[@]}" --bootloader-address "$loader_address" --json -vv
bluezvm_check "dfu says the image runs" grep -q '"state":"confirmed"' upload-bm.out
dfusim_peripheral_stop
cat report.json
dfusim_report_check "the loader ran on $loader as nRF_BM_MCUmgr, the application on $target" \
    "$boots and any(.boots[]; .role == \"firmware loader\" and .adapter == \"$loader\" and .advertisedName == \"nRF_BM_MCUmgr\")
     and .boots[-1].adapter == \"$target\""
dfusim_report_check "slot 0 holds the image and runs it" \
    "any(.slots[]; .slot == 0 and .hash == \"$hash\" and .active)"
bluezvm_record "smp-firmware-loader smp_requests=$(dfusim_report .stats.smp_requests)"
