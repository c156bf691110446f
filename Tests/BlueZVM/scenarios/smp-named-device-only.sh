#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# An SMP command acts only on the device it names, never on a neighbour at address + 1 (an SMP device
# never moves; only an nRF5 DFU bootloader is looked for there: docs/cli.md, "Which device dfu acts
# on"). The simulated nRF Connect SDK target (`dfu-sim peripheral --device smp`) is at A + 1, through
# the real bluetoothd; nothing is at A:
#   1. `dfu images -d A+1` reads the target, so bluetoothd knows it and it is advertising.
#   2. `dfu images`, `dfu reset`, `dfu confirm` and `dfu upload` naming A each exit 2 (no device) and
#      name A in their one line, while the central hears the target (bluetoothd announces its RSSI):
#      each scan of 5 s had the neighbour in view and left it alone.
#   3. The target saw no connection meanwhile; its SMP request count and its image list are unchanged.
set -u
# shellcheck source=../guest/lib.sh
. "$BLUEZVM_LIB"
# shellcheck source=../guest/peripheral.sh
. "$(dirname "$BLUEZVM_LIB")/peripheral.sh"
# shellcheck source=../guest/smp.sh
. "$(dirname "$BLUEZVM_LIB")/smp.sh"
dfusim_scenario_begin
smp_require_commands

# address_before ADDRESS: the address one below ADDRESS (all 48 bits, so a borrow is carried).
address_before() {
    local value=$((16#${1//:/} - 1))
    printf '%012X' "$value" | sed 's/../&:/g; s/:$//'
}
absent=$(address_before "$target_address")
bluezvm_log "the target is at $target_address; dfu is told $absent, where nothing is"

image=app-1.4.0-48k.bin
smp_image "$image"

dfusim_peripheral_start --adapter "$target" --device smp

# --- 1. the neighbour is there, and bluetoothd knows it --------------------------------------------
smp_images images-neighbour --device "$target_address" --adapter "$central" \
    || bluezvm_fail "dfu images of the target at $target_address failed"
neighbour_slots=$(smp_slots images-neighbour | jq -c 'sort_by(.image, .slot)')
bluezvm_log "the target's image list: $neighbour_slots"

# The peripheral writes its report when the link drops: wait for that, then count its requests.
bluezvm_check "the target saw the link end" dfusim_peripheral_expect 30 'central disconnected'
requests_before=$(dfusim_report .stats.smp_requests)
dfusim_peripheral_mark

# --- 2. every SMP command naming the absent address refuses -----------------------------------------
# refused LABEL COMMAND ARGS...: `dfu COMMAND -d ABSENT ARGS...` exits 2 and names the absent address, and
# the central heard the target meanwhile: bluetoothd announced the target's RSSI (a device heard in a
# discovery; its RSSI was cleared when the last one stopped), seen by a dbus-monitor attached before dfu
# starts (its first line, NameAcquired, says it is). The peripheral re-advertises every 1.5 s, so 5 s of
# scanning hear it; without that check a refusal could mean only that nothing was heard.
target_path=$(bluezvm_device_path "$central" "$target_address")
refused() {
    local label=$1 status monitor
    shift
    dbus-monitor --system "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',path='$target_path'" \
        > "$label.signals" 2> /dev/null &
    monitor=$!
    bluezvm_wait_until 10 "dbus-monitor to attach" test -s "$label.signals" || { kill "$monitor"; return 1; }
    bluezvm_log "dfu $* --device $absent"
    "$BLUEZVM_BIN/dfu" "$@" --device "$absent" --adapter "$central" --scan-timeout 5 > "$label.out" 2> "$label.err"
    status=$?
    kill "$monitor" 2> /dev/null
    wait "$monitor" 2> /dev/null
    sed "s/^/  $label| /" "$label.err"
    [ "$status" -eq 2 ] || { bluezvm_log "dfu $1 exited with $status, not 2"; return 1; }
    grep -q "$absent" "$label.err" || { bluezvm_log "its line does not name $absent"; return 1; }
    grep -q 'string "RSSI"' "$label.signals" \
        || { bluezvm_log "the central did not hear the target at $target_address meanwhile: the refusal proves nothing"; return 1; }
}
bluezvm_check "dfu images naming $absent exits 2" refused images images
bluezvm_check "dfu reset naming $absent exits 2" refused reset reset
bluezvm_check "dfu confirm naming $absent exits 2" refused confirm confirm
bluezvm_check "dfu upload naming $absent exits 2" refused upload upload "$image"

# --- 3. the neighbour was not touched ---------------------------------------------------------------
connections=$(tail -c "+$((bluezvm_session_mark[peripheral] + 1))" "$BLUEZVM_OUT/peripheral.log" | grep -c 'central connected')
bluezvm_check "the target saw no connection while dfu was told $absent" test "$connections" -eq 0
dfusim_peripheral_stop
dfusim_report_check "the target answered no SMP request meanwhile" ".stats.smp_requests == $requests_before"
dfusim_report_check "the target's images are as they were" \
    "[.slots[] | {image, slot, hash}] | sort_by(.image, .slot) == ($neighbour_slots | map({image, slot, hash}))"
bluezvm_record "smp-named-device-only absent=$absent neighbour=$target_address connections=$connections"
