#!/usr/bin/env bash
# Puts the bluetoothd of one Debian release where the VM guest can run it, and prints its path.
#   Tests/BlueZVM/bluez-release.sh VERSION [--out DIR]
# VERSION is a bluetoothd version Debian ships and this harness knows:
#   5.66  Debian 12 (bookworm): the host's own /usr/libexec/bluetooth/bluetoothd (install.sh installs it)
#   5.55  Debian 11 (bullseye): Debian's bluez package for bullseye, fetched from deb.debian.org, its SHA-256
#         checked against the release's signed-for Packages index, unpacked under DIR/5.55 (default
#         .build/bluez-vm/bluez); the guest runs it on the host's libraries (it needs glibc 2.17 or later)
# Debian 13's 5.82 and unstable's 5.87 need a newer C library than Debian 12's (2.38, 2.42) and are not offered
# (README.md, "BlueZ versions"). What was fetched is reused while its bluetoothd reports VERSION.
# Exit status: 0 with the path on standard output; 1 when the fetch or the check fails; 2 for a usage error.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
out="$repo/.build/bluez-vm/bluez"
version=""
while [ $# -gt 0 ]; do
    case $1 in
        --out) out=${2:?--out needs a folder}; shift ;;
        -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "bluez-release: unknown option $1" >&2; exit 2 ;;
        *) [ -z "$version" ] || { echo "bluez-release: one VERSION only" >&2; exit 2; }; version=$1 ;;
    esac
    shift
done

case $version in
    5.66)
        bluetoothd=/usr/libexec/bluetooth/bluetoothd
        [ -x "$bluetoothd" ] || { echo "bluez-release: $bluetoothd is missing (Tests/BlueZVM/install.sh installs bluez)" >&2; exit 1; }
        reported=$("$bluetoothd" --version)
        [ "$reported" = 5.66 ] || { echo "bluez-release: the host's bluetoothd is $reported, not 5.66" >&2; exit 1; }
        echo "$bluetoothd"
        exit 0
        ;;
    5.55) suite=bullseye ;;
    "") echo "bluez-release: which version? (5.55 or 5.66)" >&2; exit 2 ;;
    *) echo "bluez-release: no Debian release of bluetoothd $version is known here (5.55, 5.66)" >&2; exit 2 ;;
esac

folder="$out/$version"
bluetoothd="$folder/usr/libexec/bluetooth/bluetoothd"
if [ -x "$bluetoothd" ] && [ "$("$bluetoothd" --version 2> /dev/null)" = "$version" ]; then
    echo "$bluetoothd"
    exit 0
fi

mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The release's InRelease is signed by Debian's archive key; its SHA-256 of the Packages index vouches for the
# index, whose entry vouches for the package.
curl -fsS --max-time 120 -o "$work/InRelease" "$mirror/dists/$suite/InRelease"
gpgv --keyring /usr/share/keyrings/debian-archive-keyring.gpg "$work/InRelease" 2> "$work/gpgv.log" \
    || { cat "$work/gpgv.log" >&2; echo "bluez-release: $suite's InRelease does not verify" >&2; exit 1; }
index_sum=$(awk '/^SHA256:/ { in_sha = 1; next } /^[^ ]/ { in_sha = 0 }
    in_sha && $3 == "main/binary-amd64/Packages.xz" { print $1 }' "$work/InRelease")
[ -n "$index_sum" ] || { echo "bluez-release: $suite's InRelease lists no main/binary-amd64/Packages.xz" >&2; exit 1; }
curl -fsS --max-time 300 -o "$work/Packages.xz" "$mirror/dists/$suite/main/binary-amd64/Packages.xz"
echo "$index_sum  $work/Packages.xz" | sha256sum -c --quiet - \
    || { echo "bluez-release: $suite's Packages.xz does not match its InRelease" >&2; exit 1; }
read -r filename package_sum < <(xz -dc "$work/Packages.xz" | awk '
    /^Package: / { package = $2 } /^Filename: / { file = $2 } /^SHA256: / { sum = $2 }
    /^$/ { if (package == "bluez") { print file, sum; exit } package = ""; file = ""; sum = "" }')
[ -n "${filename:-}" ] || { echo "bluez-release: $suite has no bluez package" >&2; exit 1; }
curl -fsS --max-time 300 -o "$work/bluez.deb" "$mirror/$filename"
echo "$package_sum  $work/bluez.deb" | sha256sum -c --quiet - \
    || { echo "bluez-release: $filename does not match $suite's Packages index" >&2; exit 1; }
rm -rf "$folder"
mkdir -p "$folder"
dpkg-deb -x "$work/bluez.deb" "$folder"
reported=$("$bluetoothd" --version 2> /dev/null || true)
[ "$reported" = "$version" ] \
    || { echo "bluez-release: $filename's bluetoothd reports '${reported:-nothing}', not $version" >&2; exit 1; }
echo "bluez-release: $filename unpacked in $folder" >&2
echo "$bluetoothd"
