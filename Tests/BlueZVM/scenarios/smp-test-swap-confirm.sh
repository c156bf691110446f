#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# An nRF Connect SDK target (`dfu-sim peripheral --device smp`: Zephyr's SMP server above MCUboot,
# one image) through the real bluetoothd, step by step, the image list read after every step:
#   1. `dfu images`: slot 0 runs the built-in 1.0.0, active and confirmed; slot 1 is empty.
#   2. `dfu upload --no-reset` (test mode): slot 1 holds the new image (its SHA256 TLV), pending.
#   3. `dfu reset`: MCUboot swaps; slot 0 runs the new image, not confirmed; slot 1 holds 1.0.0,
#      the image a revert would bring back.
#   4. `dfu confirm` (the running image): slot 0 is confirmed.
# Passes when every list shows that, and the peripheral's report (slots, SMP statistics) agrees.
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
bluezvm_log "$image: $(stat -c %s "$image") bytes, SHA256 TLV $hash"
device=(--device "$target_address" --adapter "$central")

dfusim_peripheral_start --adapter "$target" --device smp
smp_images images-before "${device[@]}" || bluezvm_fail "dfu images failed"
smp_slots_check "slot 0 runs 1.0.0, active and confirmed; slot 1 is empty" images-before \
    'length == 1 and (.[0] | .slot == 0 and .version == "1.0.0+0" and .active and .confirmed)'
old_hash=$(smp_slots images-before | jq -r '.[0].hash')

bluezvm_check "dfu uploads $image in test mode without a reset" \
    smp_dfu upload upload "$image" "${device[@]}" --no-reset --json -vv
smp_upload_rate upload "$(stat -c %s "$image")"
smp_images images-tested "${device[@]}" || bluezvm_fail "dfu images failed"
smp_slots_check "slot 1 holds the image (its SHA256 TLV), pending, not confirmed" images-tested \
    "any(.[]; .slot == 1 and .hash == \"$hash\" and .version == \"1.4.0+0\" and .pending and (.confirmed | not))"
smp_slots_check "slot 0 still runs 1.0.0" images-tested "any(.[]; .slot == 0 and .hash == \"$old_hash\" and .active)"

dfusim_peripheral_mark
bluezvm_check "dfu reset is answered" smp_dfu reset reset "${device[@]}"
smp_images images-swapped "${device[@]}" || bluezvm_fail "dfu images failed"
smp_slots_check "after the reset slot 0 runs the new image, not yet confirmed" images-swapped \
    "any(.[]; .slot == 0 and .hash == \"$hash\" and .active and (.confirmed | not))"
smp_slots_check "slot 1 holds 1.0.0, the image a revert brings back" images-swapped \
    "any(.[]; .slot == 1 and .hash == \"$old_hash\")"

bluezvm_check "dfu confirms the running image" smp_dfu confirm confirm "${device[@]}"
smp_images images-confirmed "${device[@]}" || bluezvm_fail "dfu images failed"
smp_slots_check "slot 0 runs the new image, confirmed" images-confirmed \
    "any(.[]; .slot == 0 and .hash == \"$hash\" and .active and .confirmed)"

dfusim_peripheral_stop
cat report.json
dfusim_report_check "the report's slot 0 holds the new image, active and confirmed" \
    "any(.slots[]; .image == 0 and .slot == 0 and .hash == \"$hash\" and .version == \"1.4.0\" and .active and .confirmed)"
dfusim_report_check "the report counts one reset and the SMP requests" ".stats.smp_resets >= 1 and .stats.smp_requests > 0"
bluezvm_record "smp-test-swap-confirm smp_requests=$(dfusim_report .stats.smp_requests) smp_max_in_flight=$(dfusim_report .stats.smp_max_in_flight) smp_retransmissions=$(dfusim_report .stats.smp_retransmissions)"
