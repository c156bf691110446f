#!/usr/bin/env bash
# Installs the Debian packages that building and testing dfu need, or says how to.
#   scripts/install-deps.sh                          build + test dependencies
#   scripts/install-deps.sh --for WHAT PACKAGE...    these packages instead (e.g. the VM harness's)
# As root, missing packages are installed with apt-get; otherwise the exact command is printed
# and the script exits 1.
set -euo pipefail

# Build: pkg-config and the -dev packages. Tests: dbus-daemon (a private bus in every run), and
# bluez, systemd, libglib2.0-bin for bluetoothctl, busctl and gdbus, which tests drive against our objects.
packages=(pkg-config libdbus-1-dev libzip-dev libssl-dev zlib1g-dev libcbor-dev libjson-c-dev dbus dbus-daemon bluez systemd libglib2.0-bin)
purpose="dfu"
if [ "${1:-}" = "--for" ]; then
    purpose=$2
    shift 2
    packages=("$@")
fi

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "$purpose needs these Debian packages: ${missing[*]}" >&2
    echo "install them with:  sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
fi

echo "$purpose: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
