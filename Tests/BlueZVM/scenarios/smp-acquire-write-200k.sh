#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# Two 200 KiB MCUboot images (204 800-byte bodies) to an SMP target (`dfu-sim peripheral --device
# smp`) through the real bluetoothd, each with dfu's whole default flow (upload, test, reset, the
# swap, confirm once the new image runs): the first through AcquireWrite sockets, the second with
# --no-acquire (every write a WriteValue call). Records both throughputs. Passes when after each
# update slot 0 runs that image, confirmed (the report's slots and `dfu images` agree), and no
# write was longer than the ATT MTU allows (writes above 510 bytes are lost in this VM).
set -u
# shellcheck source=../guest/lib.sh
. "$BLUEZVM_LIB"
# shellcheck source=../guest/peripheral.sh
. "$(dirname "$BLUEZVM_LIB")/peripheral.sh"
# shellcheck source=../guest/smp.sh
. "$(dirname "$BLUEZVM_LIB")/smp.sh"
dfusim_scenario_begin
smp_require_commands
device=(--device "$target_address" --adapter "$central")

dfusim_peripheral_start --adapter "$target" --device smp
# update LABEL IMAGE VERSION DFU_OPTION...: the default flow, then the image list.
update() {
    local label=$1 image=$2 version=$3 hash bytes
    shift 3
    smp_image "$image"
    hash=$(smp_image_hash "$image")
    bytes=$(stat -c %s "$image")
    bluezvm_check "dfu updates the target to $image ($*)" \
        smp_dfu "$label" upload "$image" "${device[@]}" --json -vv "$@"
    smp_upload_rate "$label" "$bytes"
    smp_images "$label-images" "${device[@]}" || bluezvm_fail "dfu images failed"
    smp_slots_check "slot 0 runs $version (its SHA256 TLV), confirmed" "$label-images" \
        "any(.[]; .slot == 0 and .hash == \"$hash\" and .version == \"$version+0\" and .active and .confirmed)"
    rm -f "$image"
}
update smp-acquire-write app-2.0.0-200k.bin 2.0.0
update smp-write-value app-2.1.0-200k.bin 2.1.0 --no-acquire
dfusim_peripheral_stop
dfusim_report_check "the report's slot 0 runs 2.1.0, confirmed" \
    'any(.slots[]; .image == 0 and .slot == 0 and .version == "2.1.0" and .active and .confirmed)'
dfusim_report_check "two resets, one per update" ".stats.smp_resets == 2"
dfusim_report_check "no write longer than 244 bytes (ATT MTU 247)" "(.longestWrite // 0) <= 244"
bluezvm_record "smp-acquire-write-200k smp_requests=$(dfusim_report .stats.smp_requests) smp_max_in_flight=$(dfusim_report .stats.smp_max_in_flight) smp_retransmissions=$(dfusim_report .stats.smp_retransmissions) longest_write=$(dfusim_report '.longestWrite // "?"') mtu=$(dfusim_report '.mtu // "?"')"
