# shellcheck shell=bash
# Helpers for the SMP scenarios (MCUboot images through SMP, `dfu upload`, `dfu images`, `dfu
# confirm`, `dfu reset`), against `dfu-sim peripheral --device smp…` or Zephyr's own smp_svr.
# Source after lib.sh:
#   . "$(dirname "$BLUEZVM_LIB")/smp.sh"

# smp_require_commands: fails the scenario unless dfu has the SMP commands (upload of MCUboot
# images, images, confirm, reset).
smp_require_commands() {
    local command
    for command in upload images confirm reset; do
        bluezvm_check "dfu has a $command command" eval '"$BLUEZVM_BIN/dfu" $command --help > /dev/null 2>&1'
    done
}

# smp_image NAME: copies the MCUboot image NAME of Tests/BlueZVM/smp-images.txt into the scenario's
# folder. smp-images.sh makes them on the host before the VM boots (make test-bluez does); one that
# is missing is made here by the same script, which takes 10-20 s of Python under software emulation.
smp_image() {
    local name=$1 made=$BLUEZVM_REPO/.build/bluez-vm/smp-images/$1
    if [ -s "$made" ]; then
        cp "$made" "$name"
        return
    fi
    bluezvm_log "making $name in the guest"
    "$BLUEZVM_REPO/Tests/BlueZVM/smp-images.sh" --bin-dir "$BLUEZVM_BIN" --out "$BLUEZVM_OUT" "$name" \
        && [ -s "$name" ] || bluezvm_fail "no image $name (Tests/BlueZVM/smp-images.sh makes it)"
}

# smp_image_hash FILE: the image's SHA256 TLV in lower-case hex (what an image list shows as its
# hash), from `dfu inspect --json`.
smp_image_hash() {
    "$BLUEZVM_BIN/dfu" inspect "$1" --json | jq -r '.images[0].hash_sha256 // empty'
}

# smp_dfu LABEL ARGS...: runs `dfu ARGS...` with its standard output in LABEL.out and its standard
# error in LABEL.err, records its wall and CPU time under LABEL, and returns its status (printing
# the end of its output when it failed).
smp_dfu() {
    local label=$1 status
    shift
    bluezvm_log "dfu $*"
    bluezvm_measure "$label" "$BLUEZVM_BIN/dfu" "$@" > "$label.out" 2> "$label.err"
    status=$?
    if ((status != 0)); then
        bluezvm_log "dfu $1 exited with $status:"
        tail -n 20 "$label.err" >&2
        tail -n 5 "$label.out" >&2
    fi
    return $status
}

# smp_images LABEL ARGS...: `dfu images ARGS... --json` into LABEL.out, shown in the log.
smp_images() {
    local label=$1
    shift
    smp_dfu "$label" images "$@" --json || return 1
    sed "s/^/  $label| /" "$label.out"
}

# smp_slots LABEL: the slots of LABEL.out (dfu images --json) as one JSON array, whatever the
# outer shape: a list of slots, an object with "slots", or one slot object per line.
smp_slots() {
    jq -s '[.[] | if type == "array" then .[] elif has("slots") then .slots[] else . end]' "$1.out"
}

# smp_slots_check WHAT LABEL FILTER: checks that the jq FILTER is true of LABEL's slots.
smp_slots_check() {
    local what=$1 label=$2 filter=$3
    bluezvm_check "$what" eval 'smp_slots "$label" | jq -e "$filter" > /dev/null'
}

# smp_transfer_rate LABEL: bytes per second of LABEL's `dfu upload --json` (LABEL.out) from its first
# progress event to its last: the answers to the first and the last chunk, as smpmgr's rate is taken
# from its log (zephyr-smp-svr.sh). dfu's own average needs 2 s of transfer, which a fast upload may
# not last; 0 with fewer than two events.
smp_transfer_rate() {
    jq -rs '[.[] | select(.event == "progress")]
        | if length >= 2 and .[-1].elapsed > .[0].elapsed
          then (.[-1].bytes - .[0].bytes) / (.[-1].elapsed - .[0].elapsed) else 0 end' "$1.out"
}

# smp_upload_rate LABEL BYTES: records LABEL's transfer figures from its `dfu upload --json` events
# (LABEL.out): the transfer rate (smp_transfer_rate), and BYTES over the whole process's wall time.
smp_upload_rate() {
    local label=$1 bytes=$2 wall rate
    wall=$(awk -v label="$label" '$1 == label { sub("wall_s=", "", $2); print $2 }' measurements | tail -1)
    rate=$(smp_transfer_rate "$label")
    bluezvm_record "$label bytes=$bytes throughput_kBps=$(awk -v b="$bytes" -v w="$wall" 'BEGIN { if (w > 0) printf "%.1f", b / w / 1000; else print "?" }') transfer_kBps=$(awk -v t="$rate" 'BEGIN { printf "%.1f", t / 1000 }')"
}
