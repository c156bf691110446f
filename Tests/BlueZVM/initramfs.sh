#!/usr/bin/env bash
# Builds the BlueZ VM's initramfs: busybox-static, the virtio/9p modules of one installed
# Debian kernel (decompressed, in load order) and initramfs-init as /init.
#   Tests/BlueZVM/initramfs.sh KERNEL_VERSION OUTPUT.cpio.gz
set -euo pipefail

if [ $# -ne 2 ]; then
    echo "usage: $0 KERNEL_VERSION OUTPUT.cpio.gz" >&2
    exit 2
fi
kernel_version=$1
output=$2
here=$(cd "$(dirname "$0")" && pwd)
busybox=/bin/busybox

if ! [ -x "$busybox" ] || ! "$busybox" --list | grep -qx switch_root; then
    echo "initramfs: $busybox (busybox-static) is missing" >&2
    exit 1
fi

staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
mkdir -p "$staging"/{bin,dev,proc,sys,newroot,modules}
cp "$busybox" "$staging/bin/busybox"
cp "$here/initramfs-init" "$staging/init"
chmod 755 "$staging/init"

# The modules that mount a 9p share over virtio-pci, with their dependencies first, each once.
for module in virtio_pci 9pnet_virtio 9p; do
    modprobe --set-version "$kernel_version" --show-depends "$module"
done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' | while read -r path; do
    name=$(basename "$path")
    case "$name" in
        *.ko.xz) name=${name%.xz}; xz -dc "$path" > "$staging/modules/$name" ;;
        *.ko.zst) name=${name%.zst}; zstd -qdc "$path" > "$staging/modules/$name" ;;
        *.ko.gz) name=${name%.gz}; gzip -dc "$path" > "$staging/modules/$name" ;;
        *) cp "$path" "$staging/modules/$name" ;;
    esac
    echo "$name" >> "$staging/modules/order"
done
[ -s "$staging/modules/order" ] || { echo "initramfs: no virtio/9p modules for $kernel_version" >&2; exit 1; }

mkdir -p "$(dirname "$output")"
(cd "$staging" && find . | cpio -o -H newc --quiet | gzip -1) > "$output.partial"
mv "$output.partial" "$output"
echo "initramfs: $output, $(stat -c %s "$output") bytes, modules: $(tr '\n' ' ' < "$staging/modules/order")"
