#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# The peer client of figure 7, nrfdfu (infsoft-locaware/nrfdfu on blzlib and sd-bus, built outside this
# repository: Benchmarks/README.md, "Building the peer"), making the upload of dfu-acquire-write-200k.sh
# through the real bluetoothd, for `make bench-bluez PEER_NRFDFU=PATH` (Tests/BlueZVM/bench.sh): the same
# simulated Secure bootloader and image, packed by `dfu pkg generate` into the zip nrfdfu takes, the
# device made known to bluetoothd first, as a user would (nrfdfu does not scan): bluetoothctl's `scan on` for 3 s
# on the central, measured apart ("LABEL-discovery"), since dfu's measured process includes its own scan.
# Passes when the application has the image's CRC-32. BLUEZVM_PEER_NRFDFU is nrfdfu's path (the guest
# sees the host's root read-only); without it the scenario is skipped. BLUEZVM_UPLOAD_BYTES overrides the size,
# BLUEZVM_PERIPHERAL_ARGS adds dfu-sim peripheral options (bench.sh gives --no-acquire-write, as to dfu's runs).
set -u
# shellcheck source=../guest/lib.sh
. "$BLUEZVM_LIB"
# shellcheck source=../guest/peripheral.sh
. "$(dirname "$BLUEZVM_LIB")/peripheral.sh"
nrfdfu=${BLUEZVM_PEER_NRFDFU:-}
[ -n "$nrfdfu" ] && [ -x "$nrfdfu" ] || bluezvm_skip "no nrfdfu given (BLUEZVM_PEER_NRFDFU)"
dfusim_scenario_begin

size=${BLUEZVM_UPLOAD_BYTES:-204800}
label=${BLUEZVM_SCENARIO:-peer-nrfdfu-200k}
bluezvm_check "dfu-sim image writes a $size-byte image" \
    "$BLUEZVM_BIN/dfu-sim" image --size "$size" --bin app.bin --dat app.dat
expected_crc=$(gzip -c app.bin | tail -c 8 | od -An -tu4 -N4 | tr -d ' ')
bluezvm_check "dfu pkg generate packs it as nrfutil would" \
    "$BLUEZVM_BIN/dfu" pkg generate app.zip --hw-version 52 --sd-req 0xB7 --application app.bin --application-version 1

read -r -a peripheral_extra <<< "${BLUEZVM_PERIPHERAL_ARGS:-}"
dfusim_peripheral_start --adapter "$target" --device secure,sd_id=0xB7 "${peripheral_extra[@]}"
dfusim_peripheral_mark
# bluetoothctl scans on its default controller, the first one bluetoothd registered, which need not be the central:
# it selects the central first, reading its commands from stdin, kept open until its timeout ends it.
# shellcheck disable=SC2016  # expanded by that sh
bluezvm_check "bluetoothctl scans on $central for 3 s" bluezvm_measure "$label-discovery" \
    sh -c '{ printf "select %s\nscan on\n" "$1"; sleep 5; } | bluetoothctl --timeout 3 > /dev/null' sh "$BLUEZVM_ADDRESS_1"
bluezvm_check "the scan made the device known to bluetoothd on $central" \
    gdbus introspect --system --dest org.bluez --object-path "/org/bluez/$central/dev_${target_address//:/_}"
bluezvm_check "nrfdfu uploads the $size-byte image" \
    bluezvm_measure "$label" "$nrfdfu" ble -i "$central" -a "$target_address" app.zip
wall=$(awk -v label="$label" '$1 == label { sub("wall_s=", "", $2); print $2 }' measurements | tail -1)
bluezvm_record "$label bytes=$size throughput_kBps=$(awk -v b="$size" -v w="$wall" 'BEGIN { if (w > 0) printf "%.1f", b / w / 1000; else print "?" }')"
bluezvm_check "the target boots its new application" dfusim_peripheral_expect 60 "ready application on $target"
dfusim_peripheral_stop
dfusim_record_device_rate "$label" "$size"
rm -f app.bin app.zip
dfusim_report_check "the application has the image's CRC-32 ($expected_crc) and size" \
    ".application.crc32 == $expected_crc and .application.size == $size"
dfusim_report_check "no protocol violation" ".violations == []"
