#!/usr/bin/env bash
# Builds the Debian packages of dfu from release binaries linked with the Swift runtime statically.
#   packaging/build-deb.sh --bin-dir DIR --out DIR [--arch ARCH]
# DIR holds dfu and dfu-sim (`swift build -c release -Xswiftc -static-stdlib`, see `make deb`).
# --arch is the binaries' Debian architecture, dpkg's own by default. For another one (make deb-arm64,
# run inside the amd64 Debian 13 build root of packaging/build-deb-arm64.sh) the binutils are the cross
# ones (ARCH's GNU type-objcopy, -strip), dpkg-shlibdeps looks in ARCH's multiarch library directory
# (the root has ARCH's libraries installed), and `dfu --version` runs through qemu-user (binfmt_misc).
# Writes, in --out:
#   dfu_VERSION_ARCH.deb          dfu and dfu-sim (stripped), man pages, bash completion, README,
#                                 copyright, changelog; Depends computed by dpkg-shlibdeps
#   dfu-dbgsym_VERSION_ARCH.deb   their debug symbols under /usr/lib/debug/.build-id
#   dfu.debs                      the two file names, one a line
# The version is what the packaged `dfu --version` prints (DFUCommand.version): control file, file
# names, changelog entry and the man pages' header all take it from there.
# Layout, compression and the debug-symbol package follow what debhelper does for a native package
# (dh_strip, dh_compress, dh_md5sums, dh_gencontrol); docs/packaging.md.
set -euo pipefail
cd "$(dirname "$0")/.."

bin_dir=""
out_dir=""
arch=""
while [ $# -gt 0 ]; do
    case "$1" in
        --bin-dir) bin_dir=${2:?--bin-dir needs a directory}; shift 2 ;;
        --out) out_dir=${2:?--out needs a directory}; shift 2 ;;
        --arch) arch=${2:?--arch needs a Debian architecture}; shift 2 ;;
        *) echo "build-deb: unknown argument $1" >&2; exit 64 ;;
    esac
done
if [ -z "$bin_dir" ] || [ -z "$out_dir" ]; then
    echo "usage: packaging/build-deb.sh --bin-dir DIR --out DIR [--arch ARCH]" >&2
    exit 64
fi
for program in dfu dfu-sim; do
    if [ ! -x "$bin_dir/$program" ]; then
        echo "build-deb: $bin_dir/$program: no such executable (build it first: make deb)" >&2
        exit 66
    fi
done

# One version: the string the binary prints ("dfu 0.1.0").
version=$("$bin_dir/dfu" --version | sed -n 's/^dfu \([0-9A-Za-z.+~-]*\)$/\1/p')
if [ -z "$version" ]; then
    echo "build-deb: $bin_dir/dfu --version did not print 'dfu VERSION'" >&2
    exit 65
fi
# Another architecture than the build machine's: its cross binutils, and dpkg-shlibdeps told the host
# architecture (it then searches /usr/lib/GNU-TYPE and uses GNU-TYPE-objdump).
build_arch=$(dpkg --print-architecture)
arch=${arch:-$build_arch}
tool_prefix=""
if [ "$arch" != "$build_arch" ]; then
    gnu_type=$(dpkg-architecture -a"$arch" -qDEB_HOST_GNU_TYPE 2>/dev/null)
    tool_prefix="$gnu_type-"
    export DEB_HOST_ARCH="$arch"
    for tool in objcopy strip objdump; do
        command -v "$tool_prefix$tool" >/dev/null || {
            echo "build-deb: $tool_prefix$tool missing (binutils for $arch: binutils-$gnu_type)" >&2
            exit 69
        }
    done
fi
# The Swift toolchain's licence (usr/share/swift/LICENSE.txt next to the swift that built the binaries).
swift=${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}
swift_license=${SWIFT_LICENSE:-$(dirname "$(readlink -f "$swift")")/../share/swift/LICENSE.txt}
if [ ! -r "$swift_license" ]; then
    echo "build-deb: $swift_license: the Swift toolchain's licence is missing (set SWIFT_LICENSE)" >&2
    exit 66
fi
maintainer=${DEB_MAINTAINER:-"dfu developers <dfu@localhost>"}
# Reproducible: every date in the package is the last commit's (or SOURCE_DATE_EPOCH if set).
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
export SOURCE_DATE_EPOCH

mkdir -p "$out_dir"
work=$(mktemp -d "${TMPDIR:-/tmp}/dfu-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
root="$work/dfu"
dbg="$work/dfu-dbgsym"
umask 022

# Binaries, as debhelper's dh_strip treats executables for a dbgsym package (make_debug, the
# executables loop, attach_debug): the debug information goes to a compressed .debug file named by
# the GNU build ID (where gdb and debuginfod look), the binary is stripped of its symbols, .comment
# and .note, and gets a debug link to that file.
install -d "$root/usr/bin" "$dbg/usr/lib/debug/.build-id"
build_ids=()
for program in dfu dfu-sim; do
    install -m 755 "$bin_dir/$program" "$root/usr/bin/$program"
    build_id=$(readelf -n "$root/usr/bin/$program" | sed -n 's/^ *Build ID: *\([0-9a-f]*\)$/\1/p')
    if [ ${#build_id} -lt 3 ]; then
        echo "build-deb: $program has no GNU build ID (link with --build-id)" >&2
        exit 65
    fi
    build_ids+=("$build_id")
    debug_file="$dbg/usr/lib/debug/.build-id/${build_id:0:2}/${build_id:2}.debug"
    install -d "$(dirname "$debug_file")"
    "${tool_prefix}objcopy" --only-keep-debug --compress-debug-sections "$root/usr/bin/$program" "$debug_file"
    chmod 644 "$debug_file"
    "${tool_prefix}strip" --remove-section=.comment --remove-section=.note "$root/usr/bin/$program"
    "${tool_prefix}objcopy" --add-gnu-debuglink="$debug_file" "$root/usr/bin/$program"
done
mapfile -t build_ids < <(printf '%s\n' "${build_ids[@]}" | LC_ALL=C sort)

# Documentation. The man page's header carries the same version as the binary.
install -d "$root/usr/share/man/man1" "$root/usr/share/bash-completion/completions" "$root/usr/share/doc/dfu"
sed "1s/\"dfu [^\"]*\"/\"dfu $version\"/" docs/dfu.1 | gzip -9n > "$root/usr/share/man/man1/dfu.1.gz"
sed "1s/\"dfu [^\"]*\"/\"dfu $version\"/" docs/dfu-sim.1 | gzip -9n > "$root/usr/share/man/man1/dfu-sim.1.gz"
install -m 644 docs/dfu.bash-completion "$root/usr/share/bash-completion/completions/dfu"
gzip -9n < README.md > "$root/usr/share/doc/dfu/README.md.gz"
gzip -9n < docs/cli.md > "$root/usr/share/doc/dfu/cli.md.gz"
# The copyright file ends with the runtime exception of the toolchain's licence (Apache-2.0 itself is
# in common-licenses).
{
    cat packaging/copyright
    echo " On Debian systems the Apache License 2.0 is in /usr/share/common-licenses/Apache-2.0."
    echo " The exception, from the toolchain's LICENSE.txt:"
    echo " ."
    sed -n '/Runtime Library Exception/,$p' "$swift_license" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//' | cat -s \
        | sed 's/^$/./; s/^/ /'
} > "$root/usr/share/doc/dfu/copyright"
packaging/changelog.sh "$version" "$maintainer" | gzip -9n > "$root/usr/share/doc/dfu/changelog.gz"
chmod 644 "$root"/usr/share/man/man1/* "$root"/usr/share/doc/dfu/*
install -d "$dbg/usr/share/doc"
ln -s dfu "$dbg/usr/share/doc/dfu-dbgsym"

# Depends from the binaries' dynamic sections: dpkg-shlibdeps maps every needed library to the
# installed package that ships it and that package's shlibs/symbols minimum version.
install -d "$work/src/debian"
printf 'Source: dfu\n\nPackage: dfu\nArchitecture: any\n' > "$work/src/debian/control"
shlibs=$(cd "$work/src" && dpkg-shlibdeps -O -e"$root/usr/bin/dfu" -e"$root/usr/bin/dfu-sim" 2>"$work/shlibdeps.err") || {
    cat "$work/shlibdeps.err" >&2
    echo "build-deb: dpkg-shlibdeps could not compute Depends (dpkg-dev installed?)" >&2
    exit 69
}
depends=$(printf '%s\n' "$shlibs" | sed -n 's/^shlibs:Depends=//p')
if [ -z "$depends" ]; then
    echo "build-deb: dpkg-shlibdeps printed no Depends for dfu and dfu-sim" >&2
    exit 65
fi

write_md5sums() {
    (cd "$1" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | LC_ALL=C sort -z | xargs -0r md5sum) > "$1/DEBIAN/md5sums"
    chmod 644 "$1/DEBIAN/md5sums"
}
set_dates() {
    find "$1" -depth -newermt "@$SOURCE_DATE_EPOCH" -print0 | xargs -0r touch --no-dereference --date="@$SOURCE_DATE_EPOCH"
}

install -d "$root/DEBIAN"
installed_size=$(du -sk --apparent-size --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<CONTROL
Package: dfu
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $installed_size
Depends: $depends
Recommends: bluez (>= 5.46), dbus-daemon
Section: electronics
Priority: optional
Description: Nordic nRF5 firmware updates over Bluetooth LE through BlueZ
 dfu sends DFU packages to Nordic nRF5 devices from Linux, through bluetoothd's
 D-Bus API. It speaks Legacy DFU (nRF5 SDK 4.3-11) and Secure DFU (SDK 12-17),
 enters the bootloader by every buttonless variant, sends multi-part packages,
 resumes interrupted uploads and checks hashes, init packets and signatures
 before the first byte is sent.
 .
 dfu-sim serves simulated nRF5 targets, as a stand-in for bluetoothd on a
 private dbus-daemon or as a GATT peripheral on a real bluetoothd.
CONTROL
write_md5sums "$root"
set_dates "$root"

install -d "$dbg/DEBIAN"
dbg_size=$(du -sk --apparent-size --exclude=DEBIAN "$dbg" | cut -f1)
cat > "$dbg/DEBIAN/control" <<CONTROL
Package: dfu-dbgsym
Source: dfu
Version: $version
Auto-Built-Package: debug-symbols
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $dbg_size
Depends: dfu (= $version)
Section: debug
Priority: optional
Description: debug symbols for dfu
Build-Ids: ${build_ids[*]}
CONTROL
write_md5sums "$dbg"
set_dates "$dbg"

deb="dfu_${version}_${arch}.deb"
dbgsym="dfu-dbgsym_${version}_${arch}.deb"
rm -f "$out_dir"/dfu_*.deb "$out_dir"/dfu-dbgsym_*.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$out_dir/$deb" >/dev/null
dpkg-deb --root-owner-group -Zxz --build "$dbg" "$out_dir/$dbgsym" >/dev/null
printf '%s\n%s\n' "$deb" "$dbgsym" > "$out_dir/dfu.debs"
echo "build-deb: $out_dir/$deb ($(du -k "$out_dir/$deb" | cut -f1) KiB, installed $installed_size KiB)"
echo "build-deb: $out_dir/$dbgsym"
echo "build-deb: Depends: $depends"
