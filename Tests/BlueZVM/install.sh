#!/usr/bin/env bash
# Installs the Debian packages the BlueZ VM harness needs, or says how to.
#   Tests/BlueZVM/install.sh
# As root, missing packages are installed with apt-get --no-install-recommends; otherwise the
# exact command is printed and the script exits 1. Nothing here is booted on the host: the
# kernel package only provides the guest kernel and its modules.
# The guest kernel must be 6.12 or later: Debian 12's own 6.1 oopses in hci_chan_del when a bonded
# link is torn down (README.md, "Known problems"). On Debian 12 it comes from bookworm-backports,
# which this adds as /etc/apt/sources.list.d/bookworm-backports.list unless a source names it already;
# bluetoothd and the rest stay Debian 12's (only the kernel is taken from backports).
set -euo pipefail

packages=(
    qemu-system-x86     # the VM
    bluez               # bluetoothd 5.66, bluetoothctl, btmgmt, btmon
    bluez-test-tools    # btvirt: virtual LE controllers over /dev/vhci
    busybox-static      # the initramfs's only program
    cpio                # packs the initramfs
    kmod                # modprobe, for module dependencies on the host and in the guest
    xz-utils            # the 6.12 kernel's modules are .ko.xz; the initramfs holds them decompressed
    dbus                # the guest's system bus (dbus-daemon, dbus-send, dbus-monitor)
    systemd             # busctl, used by scenarios to read bluetoothd's object tree
    curl                # bluez-release.sh: other releases' bluez packages from Debian's archive
    gpgv                # bluez-release.sh: checks the release's InRelease signature
    debian-archive-keyring  # the keys it checks against
)

"$(dirname "$0")/../../scripts/install-deps.sh" --for "the BlueZ VM harness" "${packages[@]}"

# The guest kernel: linux-image-amd64 (with bluetooth.ko and hci_vhci.ko as modules), 6.12 or later.
minimum=6.12
installed=$(dpkg-query -W -f='${Status} ${Version}' linux-image-amd64 2>/dev/null \
    | awk '$1 == "install" && $3 == "installed" { print $4 }' || true)
if [ -n "$installed" ] && dpkg --compare-versions "$installed" ge "$minimum"; then
    exit 0
fi
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
source_file=/etc/apt/sources.list.d/bookworm-backports.list
source_line="deb http://deb.debian.org/debian bookworm-backports main"
install=(apt-get install -y --no-install-recommends linux-image-amd64)
[ "$codename" = bookworm ] && install=(apt-get install -y --no-install-recommends -t bookworm-backports linux-image-amd64)

if [ "$(id -u)" -ne 0 ]; then
    echo "the BlueZ VM harness needs linux-image-amd64 $minimum or later (installed: ${installed:-none})" >&2
    [ "$codename" = bookworm ] && echo "add bookworm-backports:  echo '$source_line' | sudo tee $source_file" >&2
    echo "then:  sudo apt-get update && sudo ${install[*]}" >&2
    exit 1
fi

echo "the BlueZ VM harness: installing linux-image-amd64 $minimum or later (installed: ${installed:-none})" >&2
if [ "$codename" = bookworm ] \
    && ! grep -rqsE '^[^#]*bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    echo "$source_line" > "$source_file"
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
"${install[@]}" -qq >/dev/null
installed=$(dpkg-query -W -f='${Version}' linux-image-amd64)
dpkg --compare-versions "$installed" ge "$minimum" \
    || { echo "the BlueZ VM harness: linux-image-amd64 is $installed after the install, not $minimum or later" >&2; exit 1; }
