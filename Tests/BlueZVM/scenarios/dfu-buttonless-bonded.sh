#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# Buttonless WITH bonds at the same address, on one controller. The application (8EC90004) needs a
# bonded link, so dfu pairs (Device1.Pair, Just Works: the peripheral's --accept-pairing agent
# answers bluetoothd's confirmation requests). On the jump the target reboots into its Secure
# bootloader on the SAME adapter, so at the same public address, with other services. The central's
# bluetoothd holds the application's services for that address (Cache = always, the default): dfu
# must not talk to them. Passes when:
# - the application has the package's CRC-32, and the bootloader ran on the application's adapter;
# - the bond is still there afterwards (dfu never removed the device to get rid of the cache);
# - dfu's first connection after the jump already showed the bootloader's services (not the
#   application's), at the same address;
# - bluetoothd's log shows why: the peripheral's bluetoothd sent Service Changed to the bonded
#   central (confirmed), and the central's bluetoothd rediscovered and dropped the application's
#   services ("service disappeared").
set -u
# shellcheck source=../guest/lib.sh
. "$BLUEZVM_LIB"
# shellcheck source=../guest/peripheral.sh
. "$(dirname "$BLUEZVM_LIB")/peripheral.sh"
dfusim_scenario_begin

device=$(bluezvm_device_path "$central" "$target_address")
bluetoothd_log=$BLUEZVM_OUT/../../bluetoothd.log
log_start=$(wc -l < "$bluetoothd_log")

# Every message to and from bluetoothd, with times: what dfu was told, and when.
dbus-monitor --system "sender='org.bluez'" "destination='org.bluez'" > dbus-monitor.log 2>&1 &
dfusim_peripheral_start --adapter "$target" --device buttonless-bonded,sd_id=0xB7 --accept-pairing
dfusim_peripheral_mark
bluezvm_check "dfu upload secure-app-4096.zip succeeds" \
    dfusim_upload dfu-buttonless-bonded "$packages/secure-app-4096.zip" --device "$target_address" \
    --adapter "$central" --scan-timeout 30
bluezvm_check "the target boots its new application on $target" \
    dfusim_peripheral_expect 30 "ready application on $target"
dbus-send --system --print-reply --dest=org.bluez "$device" org.freedesktop.DBus.Properties.GetAll \
    string:org.bluez.Device1 > device-after.txt 2>&1
dfusim_peripheral_stop
tail -n "+$((log_start + 1))" "$bluetoothd_log" > bluetoothd-scenario.log
cat report.json

dfusim_report_check "the bootloader ran on $target, the application's own adapter and address" \
    "any(.boots[]; .role == \"bootloader\" and .adapter == \"$target\")"
dfusim_report_check "the application has the package's CRC-32" \
    ".application.crc32 == $(dfusim_expected_crc secure-app-4096.zip application) and .application.size == 4096"
dfusim_report_check_link
bluezvm_check "the peripheral's agent accepted the pairing" grep -q "pairing accepted" peripheral.log
# Device1.Bonded exists from bluetoothd 5.65 (src/device.c); 5.55 has Paired only.
bluezvm_check "the central's device is still paired (and bonded, where bluetoothd has the property)" \
    eval "[ \"\$(grep -A1 -E '\"(Paired|Bonded)\"' device-after.txt | grep -c 'boolean true')\" = \"\$(grep -c -E '\"(Paired|Bonded)\"' device-after.txt)\" ] && grep -A1 '\"Paired\"' device-after.txt | grep -q 'boolean true'"
# The connections dfu made, in order, from its -vv trace.
jq -r 'select(.event == "log" and (.message | startswith("connected to "))) | .message' \
    dfu-buttonless-bonded.jsonl > connections.txt
cat connections.txt
bluezvm_check "dfu's first connection was to the application, with the buttonless service (bonds)" \
    eval "head -1 connections.txt | grep -q 'connected to $target_address .*Buttonless DFU with bonds'"
bluezvm_check "its next connection, at the same address, showed the bootloader's services and not the app's" \
    eval "sed -n 2p connections.txt | grep 'connected to $target_address ' | grep 'Secure DFU Control Point' | grep -qv Buttonless"
bluezvm_check "the peripheral's bluetoothd indicated Service Changed to the bonded central, which confirmed it" \
    grep -q "service_changed_conf()" bluetoothd-scenario.log
bluezvm_check "the central's bluetoothd rediscovered and dropped the application's cached services" \
    grep -q "service disappeared" bluetoothd-scenario.log
bluezvm_record "dfu-buttonless-bonded connections=$(wc -l < connections.txt)"
