#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# An SMP target whose characteristic needs an encrypted link with authenticated keys (`dfu-sim
# peripheral --device smp-auth`, as Zephyr's CONFIG_MCUMGR_TRANSPORT_BT_PERM_RW_AUTHEN, the NCS 3.x
# default; bluetoothd enforces the characteristic's encrypt-authenticated flags). The device types a
# fixed passkey (io=KeyboardOnly,passkey=N: the peripheral's default agent enters it) and dfu is
# given the same (--passkey N: its own agent, KeyboardOnly, enters it): passkey entry, so the keys
# are authenticated. Passes when the upload lands in slot 1 over the encrypted link and the
# central's device is paired and bonded afterwards.
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

passkey=284650
dfusim_peripheral_start --adapter "$target" --device "smp-auth,io=KeyboardOnly,passkey=$passkey"
bluezvm_check "dfu pairs with the passkey and uploads $image" \
    smp_dfu upload upload "$image" --device "$target_address" --adapter "$central" --passkey "$passkey" \
    --no-reset --json -vv
smp_upload_rate upload "$(stat -c %s "$image")"
dbus-send --system --print-reply --dest=org.bluez "$device_path" org.freedesktop.DBus.Properties.GetAll \
    string:org.bluez.Device1 > device-after.txt 2>&1
bluezvm_check "the central's device is paired and bonded" \
    eval "grep -A1 -E '\"(Paired|Bonded)\"' device-after.txt | grep -c 'boolean true' | grep -qx 2"
bluezvm_check "the peripheral's agent entered the passkey" grep -q "passkey entered: $passkey" peripheral.log
smp_images images --device "$target_address" --adapter "$central" \
    || bluezvm_fail "dfu images failed (on the bonded link, without a passkey)"
smp_slots_check "slot 1 holds the image (its SHA256 TLV), pending" images \
    "any(.[]; .slot == 1 and .hash == \"$hash\" and .pending)"
dfusim_peripheral_stop
cat report.json
dfusim_report_check "the report's slot 1 holds the image" "any(.slots[]; .slot == 1 and .hash == \"$hash\")"
