#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# An SMP target whose characteristic needs an encrypted, paired link (`dfu-sim peripheral --device
# smp-auth`, as Zephyr's CONFIG_MCUMGR_TRANSPORT_BT_PERM_RW_AUTHEN, the NCS 3.x default): the
# first subscription is refused, dfu pairs through bluetoothd (its own agent answers the central's
# side, the peripheral's --accept-pairing agent the target's) and goes on over the encrypted link.
# Passes when the upload lands in slot 1 and the central's device is paired and bonded afterwards.
set -u
# shellcheck source=../guest/lib.sh
. "$BLUEZVM_LIB"
# shellcheck source=../guest/peripheral.sh
. "$(dirname "$BLUEZVM_LIB")/peripheral.sh"
# shellcheck source=../guest/smp.sh
. "$(dirname "$BLUEZVM_LIB")/smp.sh"
dfusim_scenario_begin
smp_require_commands

image=app-1.3.0-16k.bin
smp_image "$image"
hash=$(smp_image_hash "$image")
device_path=$(bluezvm_device_path "$central" "$target_address")

dfusim_peripheral_start --adapter "$target" --device smp-auth --accept-pairing
bluezvm_check "dfu pairs and uploads $image" \
    smp_dfu upload upload "$image" --device "$target_address" --adapter "$central" --no-reset --json -v
smp_upload_rate upload "$(stat -c %s "$image")"
dbus-send --system --print-reply --dest=org.bluez "$device_path" org.freedesktop.DBus.Properties.GetAll \
    string:org.bluez.Device1 > device-after.txt 2>&1
bluezvm_check "the central's device is paired and bonded" \
    eval "grep -A1 -E '\"(Paired|Bonded)\"' device-after.txt | grep -c 'boolean true' | grep -qx 2"
bluezvm_check "the peripheral's agent accepted the pairing" grep -q "pairing accepted" peripheral.log
smp_images images --device "$target_address" --adapter "$central" || bluezvm_fail "dfu images failed (on the bonded link)"
smp_slots_check "slot 1 holds the image (its SHA256 TLV), pending" images \
    "any(.[]; .slot == 1 and .hash == \"$hash\" and .pending)"
dfusim_peripheral_stop
cat report.json
dfusim_report_check "the report's slot 1 holds the image" "any(.slots[]; .slot == 1 and .hash == \"$hash\")"
