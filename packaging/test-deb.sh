#!/usr/bin/env bash
# make test-deb: installs the package in a minimal Debian 12 root and uses it there.
#   packaging/test-deb.sh [--suite SUITE] [--arch ARCH] [DEB_DIR]
#       (default bookworm, this machine's architecture, .build/deb as written by packaging/build-deb.sh)
# make test-deb-arm64 runs it with --suite trixie --arch arm64 .build/deb-arm64: the root is then an
# arm64 Debian 13 one, every program in it (apt, dpkg, dbus-daemon, dfu, dfu-sim) run by qemu-user
# through binfmt_misc, and the binaries must be AArch64 ELF files.
# Steps: debootstrap --variant=minbase bookworm from the Debian mirror this machine's apt uses (the
# downloaded packages are cached in .build/deb-test, so reruns need the network only for apt-get),
# apt-get install ./dfu_*.deb in it (apt resolves Depends and Recommends), then inside the root,
# where no Swift toolchain exists: dfu --version, dfu inspect of a sample package, man dfu, and an
# upload through dfu-sim whose report must show the package's images byte for byte (CRC-32 and
# size). The root is removed afterwards. Needs root (debootstrap, chroot, mount).
# DEB_TEST_MIRROR overrides the mirror; DEB_TEST_KEEP=1 keeps the root for a look inside.
set -euo pipefail
cd "$(dirname "$0")/.."
. packaging/debian-root.sh

suite=bookworm
arch=$(dpkg --print-architecture)
while [ $# -gt 0 ]; do
    case "$1" in
        --suite) suite=${2:?--suite needs a Debian suite}; shift 2 ;;
        --arch) arch=${2:?--arch needs a Debian architecture}; shift 2 ;;
        -*) echo "test-deb: unknown option $1" >&2; exit 64 ;;
        *) break ;;
    esac
done
deb_dir=${1:-.build/deb}
cache=.build/deb-test
tarball=$cache/debootstrap-$suite-minbase-$arch.tgz
sample=firmware-samples/secure-sd-bl-app.zip
say() { echo "test-deb: $*" >&2; }
fail() { say "FAIL: $*"; exit 1; }

if [ "$(id -u)" -ne 0 ]; then
    say "needs root (debootstrap, chroot and mount); run it as root or with sudo"
    exit 77
fi
if [ ! -s "$deb_dir/dfu.debs" ]; then
    say "$deb_dir/dfu.debs: no package list (build the package first: make deb)"
    exit 66
fi
deb="$deb_dir/$(head -n 1 "$deb_dir/dfu.debs")"
[ -f "$deb" ] || { say "$deb: no such package (make deb)"; exit 66; }
version=$(dpkg-deb -f "$deb" Version)

mirror=$(debian_mirror "$suite")
if [ "$arch" != "$(dpkg --print-architecture)" ]; then
    [ "$arch" = arm64 ] || { say "only arm64 runs here besides $(dpkg --print-architecture) (qemu-aarch64)"; exit 64; }
    enable_qemu_aarch64 || fail "arm64 programs cannot run here"
fi
[ "$(dpkg-deb -f "$deb" Architecture)" = "$arch" ] || fail "$deb is for $(dpkg-deb -f "$deb" Architecture), not $arch"
say "mirror $mirror, package $deb ($version)"

mkdir -p "$cache"
if [ ! -s "$tarball" ]; then
    say "downloading the minbase packages once into $tarball"
    rm -rf "$cache/download"
    debootstrap --variant=minbase --arch="$arch" --make-tarball="$tarball.partial" "$suite" "$cache/download" "$mirror" >"$cache/debootstrap.log" 2>&1 \
        || { tail -n 20 "$cache/debootstrap.log" >&2; fail "debootstrap --make-tarball (log: $cache/debootstrap.log)"; }
    mv "$tarball.partial" "$tarball"
    rm -rf "$cache/download"
fi

root=$(mktemp -d "$PWD/$cache/root.XXXXXX")
cleanup() {
    local status=$?
    for mountpoint in "$root/proc"; do
        if mountpoint -q "$mountpoint"; then umount -l "$mountpoint"; fi
    done
    if [ "${DEB_TEST_KEEP:-0}" = 1 ]; then
        say "root kept in $root (proc unmounted; remove it with rm -rf --one-file-system)"
    elif ! grep -q " $root/" /proc/self/mounts; then
        rm -rf --one-file-system "$root"
    else
        say "something is still mounted under $root; not removing it"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

started=$(date +%s)
say "debootstrap --variant=minbase $suite into $root"
debootstrap --variant=minbase --arch="$arch" --unpack-tarball="$PWD/$tarball" "$suite" "$root" "$mirror" >"$cache/debootstrap.log" 2>&1 \
    || { tail -n 20 "$cache/debootstrap.log" >&2; fail "debootstrap (log: $cache/debootstrap.log)"; }
mount -t proc proc "$root/proc" || fail "cannot mount proc in the root (needs root with mount rights, not an unprivileged container)"
# Services stay stopped in the root (bluez's and dbus's maintainer scripts would start them).
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
cp /etc/resolv.conf "$root/etc/resolv.conf"

in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

cp "$deb" "$root/tmp/"
cp "$sample" "$root/tmp/sample.zip"
say "apt-get install ./$(basename "$deb") man-db"
in_root apt-get update -qq >"$cache/apt.log" 2>&1 || { tail -n 20 "$cache/apt.log" >&2; fail "apt-get update in the root"; }
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "/tmp/$(basename "$deb")" man-db >>"$cache/apt.log" 2>&1 \
    || { tail -n 30 "$cache/apt.log" >&2; fail "apt-get install of the package in the root (log: $cache/apt.log)"; }
grep -E '^(Get|Setting up|Selecting)' "$cache/apt.log" | grep -o 'Setting up [^ ]*' | sed 's/Setting up //' | tr '\n' ' ' | sed 's/^/test-deb: installed: /; s/$/\n/' >&2

# No Swift toolchain in the root: neither a swift on PATH nor a Swift runtime library anywhere.
in_root sh -c 'command -v swift swiftc' && fail "a Swift toolchain is visible in the root"
if find "$root/usr" "$root/opt" -name 'libswiftCore.so*' -o -name 'libFoundation.so*' 2>/dev/null | grep -q .; then
    fail "a Swift runtime library is installed in the root"
fi
in_root ldd /usr/bin/dfu /usr/bin/dfu-sim >"$cache/ldd.txt" 2>&1 || { cat "$cache/ldd.txt" >&2; fail "ldd of the installed binaries"; }
grep -q 'not found' "$cache/ldd.txt" && { cat "$cache/ldd.txt" >&2; fail "a library the binaries need is missing from the root"; }
say "ok: no Swift toolchain or runtime in the root; every needed library resolved by the package's Depends"
case "$arch" in amd64) machine="X86-64" ;; arm64) machine="AArch64" ;; *) machine="" ;; esac
for program in dfu dfu-sim; do
    elf=$(readelf -h "$root/usr/bin/$program" | sed -n 's/^ *Machine: *//p')
    case "$elf" in *"$machine"*) ;; *) fail "/usr/bin/$program is for '$elf', not $arch" ;; esac
done
say "ok: dfu and dfu-sim are $arch ELF files ($elf)"

printed=$(in_root dfu --version)
[ "$printed" = "dfu $version" ] || fail "dfu --version printed '$printed', the package is $version"
say "ok: dfu --version prints '$printed', the package's version"

in_root dfu inspect /tmp/sample.zip >"$cache/inspect.txt" 2>&1 || { cat "$cache/inspect.txt" >&2; fail "dfu inspect of $sample"; }
for expected in "Secure DFU package, 2 parts" "hash check         ok"; do
    grep -q "$expected" "$cache/inspect.txt" || { cat "$cache/inspect.txt" >&2; fail "dfu inspect did not print '$expected'"; }
done
say "ok: dfu inspect $sample"

in_root env MANWIDTH=80 man dfu >"$cache/man.txt" 2>"$cache/man.err" || { cat "$cache/man.err" >&2; fail "man dfu"; }
[ ! -s "$cache/man.err" ] || { cat "$cache/man.err" >&2; fail "man dfu wrote warnings"; }
grep -Eq "update +Nordic +nRF5 +and +nRF +Connect +SDK" "$cache/man.txt" || fail "man dfu did not render the NAME section"
grep -q "dfu $version" "$cache/man.txt" || fail "man dfu's footer does not name version $version"
in_root env MANWIDTH=80 man dfu-sim >/dev/null 2>"$cache/man.err" && [ ! -s "$cache/man.err" ] || fail "man dfu-sim"
say "ok: man dfu and man dfu-sim render ($(wc -l <"$cache/man.txt") lines)"

# The demo's upload: an application with buttonless DFU, switched into its bootloader, gets the
# SoftDevice+bootloader part, then the application; dfu-sim's report shows the simulated flash.
in_root dfu-sim run --device buttonless,sd_id=0xB7,sd_id_after=0x101 --report /tmp/report.json \
    -- dfu upload /tmp/sample.zip --device C0:FF:EE:00:00:10 >"$cache/upload.txt" 2>&1 \
    || { cat "$cache/upload.txt" >&2; fail "dfu-sim run -- dfu upload in the root"; }
python3 - "$sample" "$root/tmp/report.json" <<'PY' || fail "the simulated flash does not hold the package's images"
import json, sys, zipfile, zlib
package, report = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(package) as z:
    manifest = json.loads(z.read("manifest.json"))["manifest"]
    sd_bl = manifest["softdevice_bootloader"]
    combined = z.read(sd_bl["bin_file"])
    sd_size = sd_bl["info_read_only_metadata"]["sd_size"]
    expected = {
        "softdevice": combined[:sd_size],
        "bootloader": combined[sd_size:],
        "application": z.read(manifest["application"]["bin_file"]),
    }
images = json.load(open(report))["devices"][0]["images"]
for name, data in expected.items():
    want = {"size": len(data), "crc32": "%08x" % zlib.crc32(data)}
    got = images.get(name, {})
    got = {"size": got.get("size"), "crc32": got.get("crc32")}
    print(f"test-deb: {name}: package {want}, simulated flash {got}", file=sys.stderr)
    if got != want:
        sys.exit(1)
PY
say "ok: dfu-sim run -- dfu upload put the package's images on the simulated device byte for byte"
say "passed: $(( $(date +%s) - started )) s from unpacking the cached debootstrap tarball to the last check"
