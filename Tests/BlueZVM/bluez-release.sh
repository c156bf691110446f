#!/usr/bin/env bash
# Puts the bluetoothd of one Debian release where the VM guest can run it, and prints its path.
#   Tests/BlueZVM/bluez-release.sh VERSION [--out DIR]
# VERSION is a bluetoothd version Debian ships and this harness knows:
#   5.66  Debian 12 (bookworm): the host's own /usr/libexec/bluetooth/bluetoothd (install.sh installs it)
#   5.55  Debian 11 (bullseye): Debian's bluez package for bullseye, fetched from deb.debian.org, its SHA-256
#         checked against the release's signed-for Packages index, unpacked under DIR/5.55 (default
#         .build/bluez-vm/bluez); the guest runs it on the host's libraries (it needs glibc 2.17 or later)
#   5.82  Debian 13 (trixie) and
#   5.87  Debian unstable (sid): fetched and checked the same way, together with the libraries bluetoothd loads
#         (glibc 2.41 and 2.43, GLib, libdbus, libudev, ... of that same suite: they need a newer C library than
#         Debian 12's 2.36); the path printed is DIR/VERSION/bluetoothd, a script that runs the suite's bluetoothd
#         through the suite's own dynamic loader on those libraries only (README.md, "BlueZ versions")
# What was fetched is reused while its bluetoothd reports VERSION. When sid moves on to another bluetoothd, 5.87
# fails here, naming the version sid has.
# Exit status: 0 with the path on standard output; 1 when the fetch or the check fails; 2 for a usage error.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
out="$repo/.build/bluez-vm/bluez"
version=""
while [ $# -gt 0 ]; do
    case $1 in
        --out) out=${2:?--out needs a folder}; shift ;;
        -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
    5.82) suite=trixie ;;
    5.87) suite=sid ;;
    "") echo "bluez-release: which version? (5.55, 5.66, 5.82 or 5.87)" >&2; exit 2 ;;
    *) echo "bluez-release: no Debian release of bluetoothd $version is known here (5.55, 5.66, 5.82, 5.87)" >&2; exit 2 ;;
esac

# The libraries bluetoothd needs where the host's are too old: its own NEEDED (libc, GLib, libdbus, libasound,
# libudev, libdw) and theirs, as `ld.so --list` resolved them for 5.82 and 5.87. The check after unpacking fails
# when anything would still come from the host.
libraries=()
case $suite in
    trixie | sid)
        libraries=(libc6 libatomic1 libglib2.0-0t64 libpcre2-8-0 libdbus-1-3 libsystemd0 libcap2 libudev1
                   libasound2t64 libdw1t64 libelf1t64 zlib1g liblzma5 libbz2-1.0 libzstd1)
        ;;
esac

folder="$out/$version"
if [ ${#libraries[@]} -eq 0 ]; then
    bluetoothd="$folder/usr/libexec/bluetooth/bluetoothd"
else
    # A script beside the unpacked packages (written below): the suite's ld.so runs the suite's bluetoothd.
    bluetoothd="$folder/bluetoothd"
fi
if [ -x "$bluetoothd" ] && [ "$("$bluetoothd" --version 2> /dev/null)" = "$version" ]; then
    echo "$bluetoothd"
    exit 0
fi

mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The release's InRelease is signed by Debian's archive key; its SHA-256 of the Packages index vouches for the
# index, whose entries vouch for the packages.
curl -fsS --max-time 120 -o "$work/InRelease" "$mirror/dists/$suite/InRelease"
gpgv --keyring /usr/share/keyrings/debian-archive-keyring.gpg "$work/InRelease" 2> "$work/gpgv.log" \
    || { cat "$work/gpgv.log" >&2; echo "bluez-release: $suite's InRelease does not verify" >&2; exit 1; }
index_sum=$(awk '/^SHA256:/ { in_sha = 1; next } /^[^ ]/ { in_sha = 0 }
    in_sha && $3 == "main/binary-amd64/Packages.xz" { print $1 }' "$work/InRelease")
[ -n "$index_sum" ] || { echo "bluez-release: $suite's InRelease lists no main/binary-amd64/Packages.xz" >&2; exit 1; }
curl -fsS --max-time 300 -o "$work/Packages.xz" "$mirror/dists/$suite/main/binary-amd64/Packages.xz"
echo "$index_sum  $work/Packages.xz" | sha256sum -c --quiet - \
    || { echo "bluez-release: $suite's Packages.xz does not match its InRelease" >&2; exit 1; }
# One line per wanted package, in the order asked: name, version, file, SHA-256.
xz -dc "$work/Packages.xz" | awk -v wanted="bluez ${libraries[*]}" '
    BEGIN { n = split(wanted, names, " "); for (i = 1; i <= n; i++) want[names[i]] = 1 }
    /^Package: / { package = $2 } /^Version: / { ver = $2 } /^Filename: / { file = $2 } /^SHA256: / { sum = $2 }
    /^$/ { if (package in want && !(package in found)) found[package] = ver " " file " " sum
           package = ""; ver = ""; file = ""; sum = "" }
    END { for (i = 1; i <= n; i++) if (names[i] in found) print names[i], found[names[i]] }' > "$work/wanted"
for package in bluez "${libraries[@]}"; do
    grep -q "^$package " "$work/wanted" || { echo "bluez-release: $suite has no $package package" >&2; exit 1; }
done
read -r _ bluez_version _ < <(grep '^bluez ' "$work/wanted")
case $bluez_version in
    "$version" | "$version"-* | *:"$version"-*) ;;
    *) echo "bluez-release: $suite's bluez is $bluez_version now, not $version" >&2; exit 1 ;;
esac
rm -rf "$folder"
mkdir -p "$folder"
while read -r package package_version filename package_sum; do
    curl -fsS --max-time 300 -o "$work/$package.deb" "$mirror/$filename"
    echo "$package_sum  $work/$package.deb" | sha256sum -c --quiet - \
        || { echo "bluez-release: $filename does not match $suite's Packages index" >&2; exit 1; }
    dpkg-deb -x "$work/$package.deb" "$folder"
    echo "$package $package_version" >> "$folder/packages"
done < "$work/wanted"

if [ ${#libraries[@]} -gt 0 ]; then
    libdir=$folder/usr/lib/x86_64-linux-gnu
    [ -x "$libdir/ld-linux-x86-64.so.2" ] || { echo "bluez-release: $suite's libc6 has no $libdir/ld-linux-x86-64.so.2" >&2; exit 1; }
    # Everything bluetoothd loads must resolve inside the folder: nothing from the host's ld.so.cache or /lib.
    resolved=$("$libdir/ld-linux-x86-64.so.2" --inhibit-cache --library-path "$libdir" \
        --list "$folder/usr/libexec/bluetooth/bluetoothd") \
        || { echo "$resolved" >&2; echo "bluez-release: $suite's loader cannot load its bluetoothd" >&2; exit 1; }
    outside=$(echo "$resolved" | grep -v -e '^[[:space:]]*linux-vdso\.so' -e "=> $folder/" || true)
    [ -z "$outside" ] || { echo "$outside" >&2
        echo "bluez-release: these libraries of $suite's bluetoothd do not come from $folder (add their packages)" >&2; exit 1; }
    # The loader under the name bluetoothd, so that the process is called bluetoothd (its comm, for pidof and ps);
    # the kernel names a process after the path it executed, symbolic link or not.
    mkdir -p "$folder/loader"
    ln -s ../usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$folder/loader/bluetoothd"
    cat > "$bluetoothd" << 'SCRIPT'
#!/usr/bin/env bash
# Written by Tests/BlueZVM/bluez-release.sh: runs the bluetoothd unpacked beside this script through the dynamic
# loader and the libraries unpacked with it (see the file packages), not the host's (/etc/ld.so.cache ignored).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec -a bluetoothd "$here/loader/bluetoothd" --inhibit-cache --library-path "$here/usr/lib/x86_64-linux-gnu" \
    --argv0 "$here/usr/libexec/bluetooth/bluetoothd" "$here/usr/libexec/bluetooth/bluetoothd" "$@"
SCRIPT
    chmod 755 "$bluetoothd"
fi
reported=$("$bluetoothd" --version 2> /dev/null || true)
[ "$reported" = "$version" ] \
    || { echo "bluez-release: $suite's bluetoothd ($bluetoothd) reports '${reported:-nothing}', not $version" >&2; exit 1; }
echo "bluez-release: $suite's $(tr '\n' ' ' < "$folder/packages")unpacked in $folder" >&2
echo "$bluetoothd"
