#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# An SMP upload across a lost link: the peripheral (`dfu-sim peripheral --device smp`) drops the
# central once after 20 000 bytes of SMP writes (--disconnect-after-bytes). dfu reconnects through
# bluetoothd and sends the first chunk again with the image's hash: Zephyr's img_mgmt answers a
# known upload with the offset it reached (img_mgmt_upload_inspect), and dfu goes on from there.
# Passes when the link really dropped, the slot holds the whole image (its SHA256 TLV) in test, and
# dfu sent well under the image twice.
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
bytes=$(stat -c %s "$image")

dfusim_peripheral_start --adapter "$target" --device smp --disconnect-after-bytes 20000
dfusim_peripheral_mark
bluezvm_check "dfu uploads $image across the lost link" \
    smp_dfu upload upload "$image" --device "$target_address" --adapter "$central" --no-reset --json -vv
smp_upload_rate upload "$bytes"
bluezvm_check "the peripheral dropped the link mid-upload" \
    grep -q 'disconnecting the central after [0-9]* ' peripheral.log
smp_images images --device "$target_address" --adapter "$central" || bluezvm_fail "dfu images failed"
smp_slots_check "slot 1 holds the whole image (its SHA256 TLV), pending" images \
    "any(.[]; .slot == 1 and .hash == \"$hash\" and .pending)"
dfusim_peripheral_stop
cat report.json
dfusim_report_check "the report's slot 1 holds the image" \
    "any(.slots[]; .image == 0 and .slot == 1 and .hash == \"$hash\" and .size == $bytes and .pending)"
# Chunks of the image written again: those in flight when the link dropped, no more.
dfusim_report_check "dfu resumed: fewer than 12 000 bytes' worth of chunks were sent again" \
    ".stats.smp_retransmissions <= 12"
bluezvm_record "smp-disconnect-resume smp_requests=$(dfusim_report .stats.smp_requests) smp_retransmissions=$(dfusim_report .stats.smp_retransmissions) smp_max_in_flight=$(dfusim_report .stats.smp_max_in_flight)"
