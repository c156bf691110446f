#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# An nRF5340 (`dfu-sim peripheral --device smp-nrf5340`: image 0 the application core, image 1 the
# network core) updated through the real bluetoothd by `dfu upload` of the nRF Connect SDK's
# two-image zip with the default options. The simulated target models Nordic's known issue
# NCSDK-34106 (docs/conformance-mcuboot.md, Z23a): when the application core's image is marked before
# the network core's, MCUboot skips the network core update at the reset. So both cores run the new
# images only if dfu marked them in Nordic's order, the network core first.
#   1. `dfu images`: both cores run their built-in images (1.0.0), confirmed.
#   2. `dfu upload dfu_application.zip` (test, reset, confirm): exit 0, result "updated", both images
#      sent as parts 1 and 2, each image reported confirmed.
#   3. `dfu images` and the target's report: image 0's and image 1's slot 0 run the zip's images.
set -u
# shellcheck source=../guest/lib.sh
. "$BLUEZVM_LIB"
# shellcheck source=../guest/peripheral.sh
. "$(dirname "$BLUEZVM_LIB")/peripheral.sh"
# shellcheck source=../guest/smp.sh
. "$(dirname "$BLUEZVM_LIB")/smp.sh"
dfusim_scenario_begin
smp_require_commands

zip=$BLUEZVM_REPO/Tests/Fixtures/mcuboot/dfu_application.zip
"$BLUEZVM_BIN/dfu" inspect "$zip" --json > inspect.json || bluezvm_fail "dfu inspect $zip failed"
app_hash=$(jq -r '.images[] | select(.image_index == 0) | .hash_sha256' inspect.json)
net_hash=$(jq -r '.images[] | select(.image_index == 1) | .hash_sha256' inspect.json)
[ -n "$app_hash" ] && [ -n "$net_hash" ] || bluezvm_fail "the zip does not hold images 0 and 1"
bluezvm_log "application core image $app_hash, network core image $net_hash"
device=(--device "$target_address" --adapter "$central")

dfusim_peripheral_start --adapter "$target" --device smp-nrf5340

# --- 1. before -------------------------------------------------------------------------------------
smp_images images-before "${device[@]}" || bluezvm_fail "dfu images failed"
smp_slots_check "both cores run their built-in images, confirmed, not the zip's" images-before \
    "[.[] | select(.slot == 0 and .active and .confirmed and .hash != \"$app_hash\" and .hash != \"$net_hash\") | .image] | sort == [0, 1]"

# --- 2. the update with the default options ---------------------------------------------------------
bluezvm_check "dfu upload of the two-image zip with the default options" \
    smp_dfu upload upload "$zip" "${device[@]}" --json -v
bluezvm_check "the result is updated, both images confirmed" jq -se \
    'any(.[]; .event == "done" and .result == "updated"
        and ([.images[] | select(.state == "confirmed") | .image] | sort) == [0, 1])' upload.out
bluezvm_check "both cores' images were sent" jq -se \
    'any(.[]; .event == "done" and .parts_sent == ["application", "image_1"])' upload.out

# --- 3. after --------------------------------------------------------------------------------------
smp_images images-after "${device[@]}" || bluezvm_fail "dfu images failed"
smp_slots_check "the application core runs the zip's image 0, confirmed" images-after \
    "any(.[]; .image == 0 and .slot == 0 and .hash == \"$app_hash\" and .active and .confirmed)"
smp_slots_check "the network core runs the zip's image 1 (it was marked first, so MCUboot did not skip it)" images-after \
    "any(.[]; .image == 1 and .slot == 0 and .hash == \"$net_hash\" and .active and .confirmed)"

dfusim_peripheral_stop
dfusim_report_check "the report agrees: both cores run the new images" \
    "any(.slots[]; .image == 0 and .slot == 0 and .hash == \"$app_hash\") and any(.slots[]; .image == 1 and .slot == 0 and .hash == \"$net_hash\")"
dfusim_report_check "one reset" ".stats.smp_resets == 1"
bluezvm_record "smp-nrf5340-network-core-first smp_requests=$(dfusim_report .stats.smp_requests) smp_resets=$(dfusim_report .stats.smp_resets)"
