#!/usr/bin/env bash
# Stages the builds of Zephyr's smp_svr (native_sim_64) that the zephyr-* scenarios run, in one folder that
# `make test-bluez` hands to the guest as ZEPHYR_SMP_SVR_DIR (README.md, "Where the servers come from"):
#   smp_svr-native_sim_64.exe                the default build: a symbolic link to ../shared/reference/zephyr-smp-svr's
#   smp_svr-no-reassembly-native_sim_64.exe  the variant with Zephyr's default SMP transport (no reassembly, 384-byte
#                                            buffers: zephyr-smp-svr-no-reassembly.conf), built here from a Zephyr
#                                            workspace
# Neither is part of the project. What is absent is written beside the name as NAME.skip (the reason, one line),
# and a build that failed as NAME.failed: zephyr_require (guest/zephyr.sh) skips or fails the scenario with it.
# This script itself fails only on a usage error, so the other scenarios still run.
#
# The workspace (ZEPHYR_WORKSPACE or --workspace; the default, /work/zephyr-build, is this build machine's): the
# sources ../shared/reference/zephyr-smp-svr/README.md names, laid out as a west workspace: zephyr/ (ZEPHYR_BASE),
# modules/* (each one a Zephyr module: zcbor, tinycrypt, mcuboot, littlefs), native-shim/, bt-native.conf, and
# .venv/ with west and Zephyr's scripts/requirements-base.txt (or west on PATH). Nothing is written into it: the build
# folder is .build/bluez-vm/zephyr-build/no-reassembly, and Zephyr's CMake cache (else ~/.cache/zephyr) is beside it.
# A build is reused while its stamp holds: the SHA-256 of this script, the overlay, bt-native.conf, and the path, size
# and modification time of every file of zephyr/, modules/ and native-shim/. From scratch it takes about 40 s on
# two cores.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
workspace=${ZEPHYR_WORKSPACE:-/work/zephyr-build}
shared=${ZEPHYR_SHARED_DIR:-$(dirname "$repo")/shared/reference/zephyr-smp-svr}
out=$repo/.build/bluez-vm/zephyr
build_root=$repo/.build/bluez-vm/zephyr-build
overlay=$here/zephyr-smp-svr-no-reassembly.conf
default_exe=smp_svr-native_sim_64.exe
variant_exe=smp_svr-no-reassembly-native_sim_64.exe

usage() {
    cat << 'EOF'
usage: Tests/BlueZVM/zephyr-variants.sh [--workspace DIR] [--shared DIR] [--out DIR]

  --workspace DIR   the Zephyr workspace (default: $ZEPHYR_WORKSPACE, else /work/zephyr-build)
  --shared DIR      ../shared/reference/zephyr-smp-svr (default: $ZEPHYR_SHARED_DIR, else beside the repository)
  --out DIR         the folder the scenarios read (default: .build/bluez-vm/zephyr)
EOF
}
while [ $# -gt 0 ]; do
    case $1 in
        -h | --help) usage; exit 0 ;;
        --workspace) workspace=${2:?--workspace needs a folder}; shift ;;
        --shared) shared=${2:?--shared needs a folder}; shift ;;
        --out) out=${2:?--out needs a folder}; shift ;;
        *) echo "zephyr-variants: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

say() { echo "zephyr-variants: $*"; }
mkdir -p "$out" "$build_root"
out=$(realpath "$out")
rm -f "$out"/*.skip "$out"/*.failed

# skip NAME REASON / failed NAME REASON: the scenario that runs NAME will skip, or fail, with REASON.
skip() { printf '%s\n' "$2" > "$out/$1.skip"; say "$1: SKIP: $2"; }
failed() { printf '%s\n' "$2" > "$out/$1.failed"; say "$1: FAILED: $2"; }

# --- the default build, from ../shared (read-only, provisioned there) -----------------------------
if [ -e "$shared/$default_exe" ]; then
    ln -sfn "$(realpath "$shared/$default_exe")" "$out/$default_exe"
    say "$default_exe -> $(readlink "$out/$default_exe")"
else
    rm -f "$out/$default_exe"
    skip "$default_exe" "Zephyr's smp_svr is absent: no $shared/$default_exe (../shared beside the repository, or ZEPHYR_SHARED_DIR)"
fi

# --- the variant without reassembly, built from the workspace --------------------------------------
variant() {
    local missing=() path tool west python version stamp build=$build_root/no-reassembly log started modules
    if ! [ -d "$workspace" ]; then
        rm -f "$out/$variant_exe"
        skip "$variant_exe" "the Zephyr workspace to build it from is absent: no folder $workspace (ZEPHYR_WORKSPACE; Tests/BlueZVM/README.md, \"Where the servers come from\")"
        return
    fi
    for path in zephyr/VERSION zephyr/samples/subsys/mgmt/mcumgr/smp_svr bt-native.conf native-shim/zephyr/module.yml modules; do
        [ -e "$workspace/$path" ] || missing+=("$workspace/$path")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        rm -f "$out/$variant_exe"
        skip "$variant_exe" "the Zephyr workspace to build it from is absent: no ${missing[*]} (ZEPHYR_WORKSPACE; Tests/BlueZVM/README.md, \"Where the servers come from\")"
        return
    fi
    west=$workspace/.venv/bin/west
    [ -x "$west" ] || west=$(command -v west || true)
    [ -n "$west" ] || missing+=("west ($workspace/.venv/bin/west or on PATH)")
    for tool in cmake ninja dtc gperf gcc; do
        command -v "$tool" > /dev/null || missing+=("$tool")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        rm -f "$out/$variant_exe"
        skip "$variant_exe" "the tools to build it are absent: no ${missing[*]}"
        return
    fi

    stamp=$(
        cd "$workspace"
        {
            sha256sum "$here/zephyr-variants.sh" "$overlay" bt-native.conf | cut -d' ' -f1
            find zephyr modules native-shim -type f -printf '%p %s %T@\n' | LC_ALL=C sort
        } | sha256sum | cut -d' ' -f1
    )
    if [ -x "$out/$variant_exe" ] && [ "$(cat "$build/stamp" 2> /dev/null)" = "$stamp" ]; then
        say "$variant_exe: reused (stamp ${stamp:0:16}… unchanged: overlay, workspace, this script)"
        return
    fi

    # The version in the boot banner: the tree's commit when it is a git repository, else its VERSION file's (whose
    # lines in this workspace end in CR LF: a CR in BUILD_VERSION breaks build.ninja).
    version=${ZEPHYR_BUILD_VERSION:-$(git -C "$workspace/zephyr" rev-parse --short=12 HEAD 2> /dev/null \
        || tr -d '\r' < "$workspace/zephyr/VERSION" \
        | awk '/^VERSION_MAJOR/ {a = $3} /^VERSION_MINOR/ {b = $3} /^PATCHLEVEL/ {c = $3} END {printf "v%s.%s.%s", a, b, c}')}
    modules=$(find "$workspace/modules" -mindepth 1 -maxdepth 1 -type d | LC_ALL=C sort | paste -sd';')
    python=$(dirname "$west")
    log=$build_root/no-reassembly.log
    rm -f "$out/$variant_exe" "$build/stamp"
    say "$variant_exe: building from $workspace into $build (log: $log)"
    started=$(date +%s)
    # Paths absolute: west is run from the workspace (its .west/config), and a relative module or overlay would
    # be looked for in the sample's folder.
    if ! (cd "$workspace" && PATH="$python:$PATH" ZEPHYR_BASE="$workspace/zephyr" ZEPHYR_MODULES="$modules" \
        "$west" build -p always -b native_sim_64 "$workspace/zephyr/samples/subsys/mgmt/mcumgr/smp_svr" -d "$build" -- \
        -DOVERLAY_CONFIG="$workspace/bt-native.conf;$overlay" -DZEPHYR_EXTRA_MODULES="$workspace/native-shim" \
        -DZEPHYR_TOOLCHAIN_VARIANT=host -DBUILD_VERSION="$version" -DUSER_CACHE_DIR="$build_root/cache") > "$log" 2>&1; then
        tail -n 20 "$log" | sed 's/^/  | /'
        failed "$variant_exe" "its build from $workspace failed: see $log"
        return
    fi
    # The build must be the variant: Zephyr's defaults for the SMP transport, not the sample's overlay.
    if ! grep -qx '# CONFIG_MCUMGR_TRANSPORT_BT_REASSEMBLY is not set' "$build/zephyr/.config" \
        || ! grep -qx 'CONFIG_MCUMGR_TRANSPORT_NETBUF_SIZE=384' "$build/zephyr/.config"; then
        failed "$variant_exe" "$build/zephyr/.config is not the variant (reassembly off, NETBUF_SIZE 384)"
        return
    fi
    cp "$build/zephyr/zephyr.exe" "$out/$variant_exe.new"
    mv "$out/$variant_exe.new" "$out/$variant_exe"
    echo "$stamp" > "$build/stamp"
    say "$variant_exe: built in $(($(date +%s) - started)) s (version $version)"
}
variant
