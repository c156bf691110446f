#!/usr/bin/env bash
# Installs the Debian packages the BlueZ VM harness needs, or says how to.
#   Tests/BlueZVM/install.sh
# As root, missing packages are installed with apt-get --no-install-recommends; otherwise the
# exact command is printed and the script exits 1. Nothing here is booted on the host: the
# kernel package only provides the guest kernel and its modules.
set -euo pipefail

packages=(
    qemu-system-x86     # the VM
    linux-image-amd64   # guest kernel with bluetooth.ko and hci_vhci.ko as modules
    bluez               # bluetoothd 5.66, bluetoothctl, btmgmt, btmon
    bluez-test-tools    # btvirt: virtual LE controllers over /dev/vhci
    busybox-static      # the initramfs's only program
    cpio                # packs the initramfs
    kmod                # modprobe, for module dependencies on the host and in the guest
    dbus                # the guest's system bus (dbus-daemon, dbus-send, dbus-monitor)
    systemd             # busctl, used by scenarios to read bluetoothd's object tree
    cmake               # the four below build Zephyr's smp_svr without reassembly from a Zephyr
    ninja-build         #   workspace (zephyr-variants.sh); the workspace itself is not a package:
    device-tree-compiler #  without it that scenario skips and says so
    gperf
)

exec "$(dirname "$0")/../../scripts/install-deps.sh" --for "the BlueZ VM harness" "${packages[@]}"
