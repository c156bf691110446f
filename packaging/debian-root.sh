# Shared by packaging/build-deb-arm64.sh and packaging/test-deb.sh (sourced, not run): the Debian
# mirror, qemu-user for arm64 binaries, and proc mounted in a debootstrapped root.

# The mirror apt already uses for SUITE (deb822 .sources stanzas first, then one-line lists), else the
# first Debian mirror it uses for any suite (a Debian 12 machine has none for trixie), else
# deb.debian.org. DEB_TEST_MIRROR overrides it.
debian_mirror() { # SUITE
    local suite=$1 mirror=${DEB_TEST_MIRROR:-}
    if [ -z "$mirror" ]; then
        mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk -v suite="$suite" '
            /^[[:space:]]*$/ { if (uri != "" && found) { print uri; exit } uri = ""; found = 0; next }
            /^URIs:/ { uri = $2 }
            /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) found = 1 }
            END { if (uri != "" && found) print uri }' | head -n 1)
    fi
    if [ -z "$mirror" ]; then
        mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
            | awk -v suite="$suite" '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i !~ /^\[/) { if ($(i + 1) == suite) print $i; break } }' \
            | head -n 1)
    fi
    if [ -z "$mirror" ]; then
        # Any suite's mirror, as long as it is a Debian one (not security or backports' own host).
        mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ && $2 ~ /\/debian\/?$/ { print $2; exit }')
    fi
    echo "${mirror:-http://deb.debian.org/debian}"
}

# arm64 binaries run through qemu-user-static, registered with binfmt_misc with the F flag (the
# interpreter is opened at registration, so a chroot needs no copy of it).
enable_qemu_aarch64() {
    if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
        mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null || {
            echo "cannot mount binfmt_misc (needs root on a machine, not an unprivileged container)" >&2
            return 1
        }
    fi
    if ! grep -qs '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64; then
        update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || update-binfmts --import qemu-aarch64 >/dev/null 2>&1 || true
    fi
    grep -qs '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64 || {
        echo "qemu-aarch64 is not registered with binfmt_misc (qemu-user-static, binfmt-support)" >&2
        return 1
    }
}
