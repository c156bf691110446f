#!/usr/bin/env bash
# make deb-arm64: the package of `make deb` for arm64 (Debian 13 trixie, and Raspberry Pi OS based on
# it), the Swift runtime linked in statically as for amd64.
#   packaging/build-deb-arm64.sh [OUT_DIR]        (default .build/deb-arm64)
# Cross-compiled, at native speed, with Debian 13's Swift 6.0.3 (swiftlang) in an amd64 Debian 13
# root (.build/arm64/build-root, made once with debootstrap; Debian 13's swiftlang needs glibc 2.41):
#   - the root has arm64 as a foreign architecture and the arm64 -dev packages installed beside the
#     amd64 ones (multiarch: headers, .pc files and libraries under /usr/lib/aarch64-linux-gnu), so
#     pkg-config's flags and dpkg-shlibdeps work there as for a native build;
#   - the arm64 Swift runtime, stdlib modules and static archives (lib/swift_static) are those of
#     swiftlang:arm64 of the same version, unpacked to /opt/swift-arm64 (swiftlang:arm64 cannot be
#     installed beside swiftlang:amd64);
#   - swift build --triple aarch64-unknown-linux-gnu -static-stdlib with that resource directory,
#     linked by the toolchain's lld with a GNU build ID (build-deb.sh needs one);
#   - packaging/build-deb.sh --arch arm64 and lintian, both in the root (dfu --version runs through
#     qemu-user, the rest reads the ELF files with the aarch64 binutils).
# The source tree is bind-mounted at /src in the root; binaries go to .build/arm64/static. Needs root
# (debootstrap, chroot, mount) and qemu-user-static registered with binfmt_misc.
set -euo pipefail
cd "$(dirname "$0")/.."
. packaging/debian-root.sh

out_dir=${1:-.build/deb-arm64}
suite=trixie
cache=.build/arm64
root=$cache/build-root
scratch=$cache/static
triple=aarch64-unknown-linux-gnu
say() { echo "build-deb-arm64: $*" >&2; }
fail() { say "FAIL: $*"; exit 1; }

if [ "$(id -u)" -ne 0 ]; then
    say "needs root (debootstrap, chroot and mount); run it as root or with sudo"
    exit 77
fi
enable_qemu_aarch64 || fail "arm64 binaries cannot run here"

# What the root holds. A change to this list (or DEB_ARM64_REBUILD_ROOT=1) makes a new root.
# libc6-dev (amd64): SwiftPM compiles and links Package.swift for the build machine.
packages=(swiftlang libc6-dev pkg-config dpkg-dev lintian binutils-aarch64-linux-gnu
    libc6-dev:arm64 libgcc-14-dev:arm64 libstdc++-14-dev:arm64
    libdbus-1-dev:arm64 libzip-dev:arm64 libssl-dev:arm64 zlib1g-dev:arm64 libcbor-dev:arm64 libjson-c-dev:arm64)
stamp="root for make deb-arm64: ${packages[*]}"
mirror=$(debian_mirror "$suite")
mkdir -p "$cache"

in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
unmount_all() {
    for mountpoint in "$root/src" "$root/proc"; do
        if mountpoint -q "$mountpoint"; then umount -l "$mountpoint"; fi
    done
}
trap unmount_all EXIT
trap 'exit 130' INT TERM

if [ "${DEB_ARM64_REBUILD_ROOT:-0}" = 1 ] || [ "$(cat "$root/.dfu-root" 2>/dev/null)" != "$stamp" ]; then
    started=$(date +%s)
    unmount_all
    if [ -d "$root" ]; then
        grep -q " $PWD/$root/" /proc/self/mounts && fail "something is still mounted under $root"
        rm -rf --one-file-system "$root"
    fi
    say "making the build root: debootstrap --variant=minbase --arch=amd64 $suite from $mirror"
    debootstrap --variant=minbase --arch=amd64 "$suite" "$root" "$mirror" >"$cache/debootstrap.log" 2>&1 \
        || { tail -n 20 "$cache/debootstrap.log" >&2; fail "debootstrap (log: $cache/debootstrap.log)"; }
    mount -t proc proc "$root/proc"
    printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
    chmod 755 "$root/usr/sbin/policy-rc.d"
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    in_root dpkg --add-architecture arm64
    say "apt-get install ${packages[*]}"
    { in_root apt-get update -q && in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${packages[@]}"; } \
        >"$cache/apt.log" 2>&1 || { tail -n 30 "$cache/apt.log" >&2; fail "apt-get in the build root (log: $cache/apt.log)"; }
    # The arm64 toolchain package of exactly the installed version, for its target files only.
    version=$(in_root dpkg-query -W -f '${Version}' swiftlang)
    in_root sh -c "cd /tmp && apt-get download -q swiftlang:arm64=$version" >>"$cache/apt.log" 2>&1 \
        || { tail -n 10 "$cache/apt.log" >&2; fail "apt-get download swiftlang:arm64=$version"; }
    deb=$(ls "$root"/tmp/swiftlang_*_arm64.deb)
    mkdir -p "$root/opt/swift-arm64"
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$root/opt/swift-arm64" \
        ./usr/libexec/swift/lib/swift ./usr/libexec/swift/lib/swift_static ./usr/libexec/swift/lib/clang
    rm -f "$deb"
    in_root apt-get clean
    echo "$stamp" > "$root/.dfu-root"
    say "build root ready ($(( $(date +%s) - started )) s): swiftlang $version for amd64, its arm64 target files in /opt/swift-arm64"
fi

mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
mkdir -p "$root/src"
mountpoint -q "$root/src" || mount --bind "$PWD" "$root/src"
cp /etc/resolv.conf "$root/etc/resolv.conf"

# -resource-dir is the arm64 package's lib/swift_static: its stdlib modules, static archives,
# swiftrt.o and static-stdlib-args.lnk (what -static-stdlib takes from lib/swift_static natively).
# libstdc++ linked in as for amd64 (Makefile, STATIC_FLAGS): a linker script found first turns the
# -lstdc++ of static-stdlib-args.lnk into the arm64 libstdc++.a.
in_root sh -c 'cd /src && exec "$@"' sh packaging/static-libstdc++.sh /usr/libexec/swift/bin/clang "$scratch/libstdc++" --target="$triple" \
    || fail "no arm64 libstdc++.a in the build root"
started=$(date +%s)
for product in dfu dfu-sim; do
    say "swift build -c release --triple $triple -static-stdlib --product $product"
    in_root env PKG_CONFIG_PATH=/usr/lib/aarch64-linux-gnu/pkgconfig sh -c 'cd /src && exec "$@"' sh \
        swift build -c release --triple "$triple" --scratch-path "$scratch" --product "$product" --disable-local-rpath \
        -Xswiftc -static-stdlib \
        -Xswiftc -resource-dir -Xswiftc /opt/swift-arm64/usr/libexec/swift/lib/swift_static \
        -Xswiftc -use-ld=lld -Xlinker --build-id=sha1 \
        -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic -Xlinker -L"/src/$scratch/libstdc++" \
        || fail "swift build of $product for arm64"
done
say "built dfu and dfu-sim for arm64 in $(( $(date +%s) - started )) s"
bin_dir=$scratch/$triple/release
for program in dfu dfu-sim; do
    file -b "$bin_dir/$program" 2>/dev/null | grep -q 'ARM aarch64' || readelf -h "$bin_dir/$program" | grep -q 'AArch64' \
        || fail "$bin_dir/$program is not an AArch64 ELF file"
done

# The licence of the runtime linked in: Debian's swiftlang ships it only as a DEP-5 summary, so the
# Runtime Library Exception's text comes from the Swift toolchain's LICENSE.txt on this machine
# (the same Apache-2.0 with that exception in every Swift release).
swift=${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}
license=${SWIFT_LICENSE:-$(dirname "$(readlink -f "$swift")")/../share/swift/LICENSE.txt}
[ -r "$license" ] || fail "$license: the Swift licence text is missing (set SWIFT_LICENSE)"
install -m 644 "$license" "$root/tmp/swift-LICENSE.txt"

epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
in_root env SOURCE_DATE_EPOCH="$epoch" SWIFT_LICENSE=/tmp/swift-LICENSE.txt ${DEB_MAINTAINER:+DEB_MAINTAINER="$DEB_MAINTAINER"} \
    sh -c 'cd /src && exec "$@"' sh packaging/build-deb.sh --bin-dir "$bin_dir" --out "$out_dir" --arch arm64 \
    || fail "packaging/build-deb.sh --arch arm64"
suppress=${DEB_LINTIAN_SUPPRESS:-maintainer-address-is-on-localhost,bogus-mail-host-in-debian-changelog}
in_root sh -c 'cd /src && exec "$@"' sh lintian --fail-on error,warning --suppress-tags "$suppress" \
    $(sed "s|^|$out_dir/|" "$out_dir/dfu.debs") || fail "lintian"
