#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# The simulated DFU target as a real GATT peripheral, checked with bluetoothctl as the central:
# - `dfu-sim peripheral --device buttonless` registers the application (8EC90003, indicate) on
#   one adapter; the central finds it, connects, lists its attributes, sets the bootloader's
#   name (op 0x02) and jumps (op 0x01), and sees both indications.
# - The target reboots into its Secure bootloader on ANOTHER adapter (another public address),
#   advertising the name the central set; the central finds it there by that name.
# - On the bootloader: Select (06 01) on the control point gets its notification through an
#   AcquireNotify socket (--acquire-notify), and writes to the packet characteristic arrive
#   through an AcquireWrite socket on both sides (bluetoothctl acquire-write).
# - The report the peripheral writes at exit says all of that.
set -u
# shellcheck source=../guest/lib.sh
. "$BLUEZVM_LIB"
# shellcheck source=../guest/peripheral.sh
. "$(dirname "$BLUEZVM_LIB")/peripheral.sh"
trap 'dfusim_peripheral_stop; bluezvm_session_stop_all' EXIT

central=$BLUEZVM_ADAPTER_1
central_address=$BLUEZVM_ADDRESS_1
application=$BLUEZVM_ADAPTER_2
application_address=$BLUEZVM_ADDRESS_2
bootloader=$BLUEZVM_ADAPTER_3
bootloader_address=$BLUEZVM_ADDRESS_3
bluezvm_log "central $central, application $application ($application_address), bootloader $bootloader ($bootloader_address)"

bluezvm_check "$central powers on" bluezvm_set_powered "$central" true
dfusim_peripheral_start --adapter "$application" --bootloader-adapter "$bootloader" \
    --device buttonless,name=SimApp --acquire-notify

bluezvm_session_start central bluetoothctl
bluezvm_check "central's bluetoothctl is connected" \
    bluezvm_session_expect central 30 'Agent registered|Agent is already registered'
bluezvm_session_send central "select $central_address" "menu scan" "transport le" "back" "scan on"
# 30 s: see the README, obstacle 9.
bluezvm_check "the central discovers the application as SimApp" \
    bluezvm_session_expect central 30 "Device $application_address SimApp"
bluezvm_session_send central "scan off" "connect $application_address"
bluezvm_check "the central connects and resolves the application's services" \
    bluezvm_session_expect central 30 "Device $application_address ServicesResolved: yes"

bluezvm_session_send central "menu gatt" "list-attributes $application_address"
bluezvm_check "the application has the buttonless characteristic 8EC90003" \
    bluezvm_session_expect central 15 '8ec90003-f315-4f60-9fb8-838830daea50'
bluezvm_session_send central "select-attribute 8ec90003-f315-4f60-9fb8-838830daea50" "notify on"
bluezvm_check "indications on 8EC90003 start" bluezvm_session_expect central 15 'Notify started|Notifying: yes'

# 02 04 'DfuX': set the bootloader's advertised name; the answer is the indication 20 02 01.
bluezvm_session_send central "write '0x02 0x04 0x44 0x66 0x75 0x58'"
bluezvm_check "set-name is answered with 20 02 01 (success)" bluezvm_session_expect central 15 ' 20 02 01 '
# 01: enter the bootloader; the answer 20 01 01 comes before the reset.
dfusim_peripheral_mark
bluezvm_session_send central "write 0x01"
bluezvm_check "enter-bootloader is answered with 20 01 01 (success)" bluezvm_session_expect central 15 ' 20 01 01 '
bluezvm_check "the link drops when the target resets" \
    bluezvm_session_expect central 15 "Device $application_address Connected: no"
bluezvm_check "the bootloader is registered on $bootloader as DfuX" \
    dfusim_peripheral_expect 30 "ready bootloader on $bootloader as DfuX"

bluezvm_session_send central "back" "menu scan" "back" "scan on"
bluezvm_check "the central discovers the bootloader at $bootloader_address by the name DfuX" \
    bluezvm_session_expect central 30 "Device $bootloader_address DfuX"
bluezvm_session_send central "scan off" "connect $bootloader_address"
bluezvm_check "the central connects and resolves the bootloader's services" \
    bluezvm_session_expect central 30 "Device $bootloader_address ServicesResolved: yes"

bluezvm_session_send central "menu gatt" "list-attributes $bootloader_address"
bluezvm_check "the bootloader has the Secure DFU packet characteristic 8EC90002" \
    bluezvm_session_expect central 15 '8ec90002-f315-4f60-9fb8-838830daea50'
dfusim_peripheral_mark
bluezvm_session_send central "select-attribute 8ec90001-f315-4f60-9fb8-838830daea50" "notify on"
bluezvm_check "notifications on the control point start" \
    bluezvm_session_expect central 15 'Notify started|Notifying: yes'
bluezvm_check "bluetoothd acquired the control point's notifications (AcquireNotify)" \
    dfusim_peripheral_expect 15 'AcquireNotify on 8EC90001'
# 06 01: Select the command object; the answer is 60 06 01, max size 256, offset 0, CRC 0.
bluezvm_session_send central "write '0x06 0x01'"
bluezvm_check "Select is answered with 60 06 01 00 01 00 00 (max size 256)" \
    bluezvm_session_expect central 15 ' 60 06 01 00 01 00 00 '

dfusim_peripheral_mark
bluezvm_session_send central "select-attribute 8ec90002-f315-4f60-9fb8-838830daea50" "acquire-write"
bluezvm_check "the central acquires the packet characteristic" \
    bluezvm_session_expect central 15 'AcquireWrite success'
bluezvm_session_send central "write '0x11 0x22 0x33 0x44'" "write '0x55 0x66 0x77 0x88'" "release-write"
bluezvm_check "bluetoothd acquired the packet characteristic on the peripheral side (AcquireWrite)" \
    dfusim_peripheral_expect 15 'AcquireWrite on 8EC90002'
bluezvm_session_send central "back" "disconnect $bootloader_address"
bluezvm_check "the central disconnects" bluezvm_session_expect central 15 "Device $bootloader_address Connected: no"

dfusim_peripheral_stop
cat report.json
dfusim_report_check "the report says the target ended in its bootloader on $bootloader" \
    ".role == \"bootloader\" and .adapter == \"$bootloader\" and .advertisedName == \"DfuX\""
dfusim_report_check "the report lists both boots" \
    "[.boots[] | {role, adapter, advertisedName}] == [{\"role\":\"application\",\"adapter\":\"$application\",\"advertisedName\":\"SimApp\"},{\"role\":\"bootloader\",\"adapter\":\"$bootloader\",\"advertisedName\":\"DfuX\"}]"
dfusim_report_check "both packets came through the AcquireWrite socket" '.acquiredWrites == 2'
dfusim_report_check "the control point answered through the AcquireNotify socket" '.acquiredNotifications >= 1'
dfusim_report_check "bluetoothd reported an ATT MTU" '.mtu >= 23'
bluezvm_record "peripheral-bluetoothctl mtu=$(dfusim_report .mtu) writes=$(dfusim_report .writes) notifications=$(dfusim_report .notifications)"
