#!/usr/bin/env bash
# smp-images.sh — the MCUboot images of the SMP scenarios, made on the host before the VM boots
# (imgtool is a Python program: under software emulation in the guest one signature took 10-20 s).
#   Tests/BlueZVM/smp-images.sh [--bin-dir DIR] [--out DIR] [NAME...]
# Makes the images NAME (default: all) of smp-images.txt in DIR (default .build/bluez-vm/smp-images),
# keeping those already there. Each is `dfu-sim image`'s seeded pattern of the listed size as the
# body, signed by MCUboot's imgtool (PyPI, Tests/Fixtures/mcuboot/imgtool-venv.sh) with the fixtures'
# ECDSA P-256 test key, a 0x200-byte header and the listed version.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
bin_dir=$repo/.build/release
out=$repo/.build/bluez-vm/smp-images
while [ $# -gt 0 ]; do
    case $1 in
        --bin-dir) bin_dir=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        *) break ;;
    esac
done
imgtool=$("$repo/Tests/Fixtures/mcuboot/imgtool-venv.sh")
mkdir -p "$out"
while read -r name bytes version; do
    if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qxF "$name"; then continue; fi
    [ -s "$out/$name" ] && continue
    "$bin_dir/dfu-sim" image --size "$bytes" --bin "$out/$name.body" --dat "$out/$name.dat" > /dev/null
    PYTHONDONTWRITEBYTECODE=1 "$imgtool" sign --key "$repo/Tests/Fixtures/mcuboot/keys/ecdsa-p256.pem" \
        --header-size 0x200 --pad-header --align 4 --version "$version" --slot-size 0x60000 \
        "$out/$name.body" "$out/$name.tmp" > /dev/null
    mv "$out/$name.tmp" "$out/$name"
    rm -f "$out/$name.body" "$out/$name.dat"
    echo "smp-images: $out/$name ($bytes-byte body, version $version)"
done < <(grep -v '^#' "$here/smp-images.txt")
