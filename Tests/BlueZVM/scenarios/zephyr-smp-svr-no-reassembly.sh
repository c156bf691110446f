#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# dfu with its default options against Zephyr's own smp_svr built with Zephyr's default SMP transport: no
# packet reassembly and 384-byte buffers (smp_svr-no-reassembly-native_sim_64.exe, built by zephyr-variants.sh
# with Tests/BlueZVM/zephyr-smp-svr-no-reassembly.conf into ZEPHYR_SMP_SVR_DIR, .build/bluez-vm/zephyr). Through
# bluetoothd 5.66 the ATT MTU is 247, so a 384-byte frame would take two writes, which this server answers
# MGMT_ERR_ECORRUPT (smp_process_request_packet in subsys/mgmt/mcumgr/smp/src/smp.c). Skipped (not passed)
# while that binary is absent (zephyr-variants.sh says why: no Zephyr workspace, or a tool missing).
#   1. The image list of the fresh flash is empty; dfu uploads image B in test mode without a reset: it asks first whether the server reassembles, and
#      -v says it does not and that every frame fits one write (244 bytes).
#   2. The image list shows B in slot 1 with its SHA256 TLV as the hash, pending (test).
set -u
export ZEPHYR_SMP_SVR_EXE=smp_svr-no-reassembly-native_sim_64.exe
# shellcheck source=../guest/lib.sh
. "$BLUEZVM_LIB"
# shellcheck source=../guest/zephyr.sh
. "$(dirname "$BLUEZVM_LIB")/zephyr.sh"
# shellcheck source=../guest/smp.sh
. "$(dirname "$BLUEZVM_LIB")/smp.sh"

zephyr_require
smp_require_commands
central=$BLUEZVM_ADAPTER_1
server=$BLUEZVM_ADAPTER_2
address=$BLUEZVM_ADDRESS_2
device=(--device "$address" --adapter "$central" --scan-timeout 30)
trap 'zephyr_stop; bluezvm_session_stop_all' EXIT

smp_image app-1.2.0-128k.bin
mv app-1.2.0-128k.bin b.bin
b_hash=$(smp_image_hash b.bin)
b_bytes=$(stat -c %s b.bin)
[ -n "$b_hash" ] || bluezvm_fail "image B has no SHA256 TLV"

bluezvm_check "$central powers on" bluezvm_set_powered "$central" true
zephyr_start "$server" -flash_erase

# nudged COMMAND...: as in zephyr-smp-svr.sh, the nudge that makes the server advertise anew once the
# central discovers (guest/zephyr.sh).
nudged() {
    local status
    zephyr_nudge_on_discovery
    "$@"
    status=$?
    zephyr_nudge_stop
    return $status
}

# --- 1. the image list before, and the upload with the default options ---------------------------
nudged smp_images images-before "${device[@]}" || bluezvm_fail "dfu images failed"
smp_slots_check "the fresh flash has no image" images-before 'length == 0'
bluezvm_check "the central drops any link btvirt kept (power off and on)" \
    eval 'bluezvm_set_powered "$central" false && bluezvm_set_powered "$central" true'
bluezvm_check "dfu uploads image B (test, no reset) with its default options" \
    nudged smp_dfu dfu-upload upload b.bin "${device[@]}" --no-reset --json -v
# With --json, -v's lines are "log" events on standard output.
bluezvm_check "dfu -v says the server does not reassemble and every frame fits one write" \
    grep -q "one write each: the device does not reassemble" dfu-upload.out
smp_upload_rate dfu-upload "$b_bytes"
bluezvm_record "no_reassembly framing=\"$(grep -o 'SMP frames of[^(:]*' dfu-upload.out | head -n 1)\" bytes=$b_bytes"

# --- 2. the image list --------------------------------------------------------------------------------
bluezvm_check "the central drops any link btvirt kept (power off and on)" \
    eval 'bluezvm_set_powered "$central" false && bluezvm_set_powered "$central" true'
nudged smp_images images-after "${device[@]}" || bluezvm_fail "dfu images failed"
smp_slots_check "slot 1 holds image B (its SHA256 TLV) in test: pending" images-after \
    "any(.[]; .slot == 1 and .hash == \"$b_hash\" and .pending == true)"
