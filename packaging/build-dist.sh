#!/usr/bin/env bash
# make dist: the Debian package's files as a tarball, for hosts that do not use dpkg.
#   packaging/build-dist.sh [DEB_DIR] [OUT_DIR]     (defaults .build/deb and .build/dist)
# Writes dfu-VERSION-linux-ARCH.tar.xz (dfu-VERSION/bin, share/man, share/bash-completion,
# share/doc/dfu with README, copyright, changelog and DEPENDS, the Debian packages the binaries
# need) and dfu-VERSION-linux-ARCH-debug.tar.xz (the .debug files under lib/debug/.build-id).
# Unpack it under a prefix, e.g. tar -xJf … --strip-components=1 -C /usr/local.
set -euo pipefail
cd "$(dirname "$0")/.."
deb_dir=${1:-.build/deb}
out_dir=${2:-.build/dist}
if [ ! -s "$deb_dir/dfu.debs" ]; then
    echo "build-dist: $deb_dir/dfu.debs: no packages (make deb first)" >&2
    exit 66
fi
deb="$deb_dir/$(sed -n 1p "$deb_dir/dfu.debs")"
dbgsym="$deb_dir/$(sed -n 2p "$deb_dir/dfu.debs")"
version=$(dpkg-deb -f "$deb" Version)
arch=$(dpkg-deb -f "$deb" Architecture)
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
name="dfu-$version"
work=$(mktemp -d "${TMPDIR:-/tmp}/dfu-dist.XXXXXX")
trap 'rm -rf "$work"' EXIT

dpkg-deb -x "$deb" "$work/deb"
dpkg-deb -x "$dbgsym" "$work/dbgsym"
mv "$work/deb/usr" "$work/$name"
dpkg-deb -f "$deb" Depends > "$work/$name/share/doc/dfu/DEPENDS"
gunzip "$work/$name/share/doc/dfu/README.md.gz" "$work/$name/share/doc/dfu/cli.md.gz" "$work/$name/share/doc/dfu/changelog.gz"
mkdir -p "$work/$name-debug"
mv "$work/dbgsym/usr/lib" "$work/$name-debug/lib"

mkdir -p "$out_dir"
tarball() { # DIR OUT
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
        -C "$work" -cf - "$1" | xz > "$2"
}
tarball "$name" "$out_dir/$name-linux-$arch.tar.xz"
tarball "$name-debug" "$out_dir/$name-linux-$arch-debug.tar.xz"
echo "build-dist: $out_dir/$name-linux-$arch.tar.xz ($(du -k "$out_dir/$name-linux-$arch.tar.xz" | cut -f1) KiB)"
echo "build-dist: $out_dir/$name-linux-$arch-debug.tar.xz"
echo "build-dist: needs the Debian packages $(cat "$work/$name/share/doc/dfu/DEPENDS") (or their equivalents)"
