#!/usr/bin/env bash
# Runs scenarios against Debian's real bluetoothd with btvirt virtual LE controllers, inside a
# throw-away QEMU VM that boots the installed Debian kernel on the host's root filesystem
# (shared read-only over 9p). One boot per run; the scenarios run one after another against the
# same bluetoothd. See README.md beside this file.
set -euo pipefail

usage() {
    cat << 'EOF'
usage: Tests/BlueZVM/run.sh [options] [SCENARIO...]

  SCENARIO              an executable file the guest runs (default: scenarios/smoke.sh);
                        its name in the results is the file name without extension
  --command NAME=LINE   a shell command line run by the guest as scenario NAME
  --env NAME=VALUE      an environment variable every scenario gets (repeatable), e.g.
                        ZEPHYR_SMP_SVR_DIR=/abs/folder (a path the guest sees: the host's own)
  --out DIR             logs and results, emptied first (default: .build/bluez-vm/out)
  --accel auto|kvm|tcg  auto (default): KVM if a short probe boot works, otherwise TCG
  --timeout SECONDS     hard limit on the whole VM run (default: 600)
  --scenario-timeout SECONDS
                        limit for each scenario (default: 300)
  --controllers N       usable controllers handed to the scenarios (default: 3)
  --spare N             extra controllers created against the start-up race (default: 1)
  --bin-dir DIR         the project's binaries as scenarios see them, in BLUEZVM_BIN
                        (default: .build/release)
  --bluetoothd PATH     the bluetoothd the guest runs, a path it sees (the host's own), e.g. one
                        bluez-release.sh put in place (default: /usr/libexec/bluetooth/bluetoothd)
  --bluetoothd-args ARGS
                        extra bluetoothd options, e.g. -E (default: none)
  --memory MIB          guest memory (default: 1024)
  --cpus N              guest CPUs (default: 2)
  -h, --help            this text

The guest kernel: BLUEZVM_KERNEL=VERSION (a name under /lib/modules) when set; otherwise the one
the linux-image-amd64 package depends on (6.12 from bookworm-backports, as install.sh installs it),
or, without that package, the newest installed kernel with hci_vhci. A 6.1 kernel oopses in
hci_chan_del (README.md, "Known problems"): the harness warns when it boots one.

Exit status: 0 when the guest reported PASS for every scenario (or SKIP: a scenario that exits
with status 77 because something outside the project it needs is absent; the summary counts it
apart), 1 when anything failed or timed out, 2 for a usage error or a missing dependency
(Tests/BlueZVM/install.sh installs them).
EOF
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
build_dir="$repo/.build/bluez-vm"

out="$build_dir/out"
accel=auto
timeout_s=600
scenario_timeout_s=300
controllers=3
spare=1
bin_dir="$repo/.build/release"
bluetoothd=/usr/libexec/bluetooth/bluetoothd
bluetoothd_args=""
memory=1024
cpus=2
scenario_names=()
scenario_commands=()
env_settings=()

say() { echo "bluez-vm: $*"; }
usage_error() {
    echo "bluez-vm: $*" >&2
    echo "see: $0 --help" >&2
    exit 2
}
is_count() { [[ $1 =~ ^[0-9]+$ ]] && (($1 > 0)); }

add_scenario_file() {
    local path
    path=$(realpath -e -- "$1" 2> /dev/null) || usage_error "no scenario file '$1'"
    [ -x "$path" ] || usage_error "scenario '$path' is not executable"
    local name
    name=$(basename -- "$path")
    scenario_names+=("${name%.*}")
    scenario_commands+=("$(printf '%q' "$path")")
}

while [ $# -gt 0 ]; do
    case $1 in
        -h | --help) usage; exit 0 ;;
        --out) out=${2:?--out needs a folder}; shift ;;
        --accel) accel=${2:-}; shift ;;
        --timeout) timeout_s=${2:-}; shift ;;
        --scenario-timeout) scenario_timeout_s=${2:-}; shift ;;
        --controllers) controllers=${2:-}; shift ;;
        --spare) spare=${2:-}; shift ;;
        --bin-dir) bin_dir=${2:?--bin-dir needs a folder}; shift ;;
        --bluetoothd) bluetoothd=${2-}; shift ;;
        --bluetoothd-args) bluetoothd_args=${2-}; shift ;;
        --memory) memory=${2:-}; shift ;;
        --cpus) cpus=${2:-}; shift ;;
        --command)
            [[ ${2:-} == *=* ]] || usage_error "--command needs NAME=COMMAND_LINE"
            scenario_names+=("${2%%=*}")
            scenario_commands+=("${2#*=}")
            shift
            ;;
        --env)
            [[ ${2:-} =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || usage_error "--env needs NAME=VALUE"
            env_settings+=("${2%%=*}=${2#*=}")
            shift
            ;;
        -*) usage_error "unknown option '$1'" ;;
        *) add_scenario_file "$1" ;;
    esac
    shift
done

case $accel in auto | kvm | tcg) ;; *) usage_error "--accel must be auto, kvm or tcg" ;; esac
for number in "$timeout_s" "$scenario_timeout_s" "$controllers" "$memory" "$cpus"; do
    is_count "$number" || usage_error "'$number' is not a positive whole number"
done
[[ $spare =~ ^[0-9]+$ ]] || usage_error "--spare must be a whole number"
((controllers >= 2)) || usage_error "--controllers must be at least 2"
[ ${#scenario_names[@]} -gt 0 ] || add_scenario_file "$here/scenarios/smoke.sh"
for name in "${scenario_names[@]}"; do
    [[ $name =~ ^[A-Za-z0-9._-]+$ ]] || usage_error "scenario name '$name' must be letters, digits, . _ -"
done
[ "$(printf '%s\n' "${scenario_names[@]}" | sort | uniq -d)" = "" ] || usage_error "scenario names must differ"
# The repository's path travels on the kernel command line, which splits at blanks.
[[ $repo =~ ^[^[:space:]]+$ ]] || usage_error "the repository's path must not contain blanks: $repo"
[ -d "$bin_dir" ] && bin_dir=$(realpath "$bin_dir")

# --- what the host needs --------------------------------------------------------------------
missing=()
for tool in qemu-system-x86_64 btvirt btmgmt btmon bluetoothctl busctl dbus-daemon dbus-send \
    dbus-monitor cpio modprobe; do
    command -v "$tool" > /dev/null || missing+=("$tool")
done
[ -x /usr/libexec/bluetooth/bluetoothd ] || missing+=(bluetoothd)
case $bluetoothd in
    /*) [ -x "$bluetoothd" ] || usage_error "--bluetoothd $bluetoothd is not an executable file" ;;
    *) usage_error "--bluetoothd needs an absolute path (the guest sees the host's root as it is)" ;;
esac
[ -x /bin/busybox ] || missing+=(busybox-static)
if [ ${#missing[@]} -gt 0 ]; then
    echo "bluez-vm: missing ${missing[*]}; run Tests/BlueZVM/install.sh (as root)" >&2
    exit 2
fi

# The guest kernel, chosen the same way on every run: BLUEZVM_KERNEL, else the kernel the
# linux-image-amd64 metapackage depends on (what install.sh installed), else the newest installed
# Debian kernel whose modules include the virtual HCI driver.
usable_kernel() {
    [ -r "/boot/vmlinuz-$1" ] && [ -n "$(find "/lib/modules/$1" -name 'hci_vhci.ko*' -print -quit 2> /dev/null)" ]
}
kernel_version=""
if [ -n "${BLUEZVM_KERNEL:-}" ]; then
    usable_kernel "$BLUEZVM_KERNEL" \
        || { echo "bluez-vm: BLUEZVM_KERNEL=$BLUEZVM_KERNEL has no readable /boot/vmlinuz-$BLUEZVM_KERNEL with hci_vhci" >&2; exit 2; }
    kernel_version=$BLUEZVM_KERNEL
    kernel_choice="BLUEZVM_KERNEL"
else
    packaged=$(dpkg-query -W -f='${Depends}' linux-image-amd64 2> /dev/null \
        | grep -oE 'linux-image-[^ ,]+' | head -n 1 | sed 's/^linux-image-//') || true
    if [ -n "$packaged" ] && usable_kernel "$packaged"; then
        kernel_version=$packaged
        kernel_choice="linux-image-amd64's"
    else
        while read -r version; do
            if usable_kernel "$version"; then kernel_version=$version; fi
        done < <(find /lib/modules -mindepth 1 -maxdepth 1 -printf '%f\n' 2> /dev/null | sort -V)
        kernel_choice="the newest with hci_vhci"
    fi
fi
if [ -z "$kernel_version" ]; then
    echo "bluez-vm: no readable /boot/vmlinuz-* with hci_vhci; install linux-image-amd64 (Tests/BlueZVM/install.sh)" >&2
    exit 2
fi
case $kernel_version in
    6.1.*) echo "bluez-vm: warning: kernel $kernel_version oopses in hci_chan_del (README.md, \"Known problems\"); Tests/BlueZVM/install.sh installs 6.12" >&2 ;;
esac
kernel="/boot/vmlinuz-$kernel_version"

# --- initramfs, rebuilt when its sources or the kernel's modules change ----------------------
# Under a lock: `make test` boots twice at once (bluez-vm.mk, test-bluez-versions), and on a fresh clone both
# boots would otherwise write the same file.
initramfs="$build_dir/initramfs-$kernel_version.cpio.gz"
mkdir -p "$build_dir"
exec {initramfs_lock}> "$build_dir/initramfs.lock"
flock "$initramfs_lock"
if ! [ -s "$initramfs" ] || [ "$here/initramfs.sh" -nt "$initramfs" ] \
    || [ "$here/initramfs-init" -nt "$initramfs" ] || [ "/lib/modules/$kernel_version" -nt "$initramfs" ]; then
    "$here/initramfs.sh" "$kernel_version" "$initramfs"
fi
exec {initramfs_lock}>&-

# --- the job the guest reads -----------------------------------------------------------------
# The folder is emptied first, so it must be new, empty or an earlier run's output.
if [ -d "$out" ] && [ -n "$(ls -A "$out")" ] && ! [ -e "$out/job.env" ]; then
    usage_error "refusing to empty '$out': it is not an earlier run's output"
fi
mkdir -p "$out"
out=$(realpath "$out")
find "$out" -mindepth 1 -delete
{
    printf 'export BLUEZVM_REPO=%q\n' "$repo"
    printf 'export BLUEZVM_BIN=%q\n' "$bin_dir"
    printf 'BLUEZVM_CONTROLLERS=%q\n' "$controllers"
    printf 'BLUEZVM_SPARE_CONTROLLERS=%q\n' "$spare"
    printf 'BLUEZVM_SCENARIO_TIMEOUT=%q\n' "$scenario_timeout_s"
    printf 'export BLUEZVM_BLUETOOTHD=%q\n' "$bluetoothd"
    printf 'BLUEZVM_BLUETOOTHD_ARGS=%q\n' "$bluetoothd_args"
    for setting in ${env_settings[@]+"${env_settings[@]}"}; do
        printf 'export %s=%q\n' "${setting%%=*}" "${setting#*=}"
    done
    declare -p scenario_names scenario_commands
} > "$out/job.env"

# --- accelerator -----------------------------------------------------------------------------
qemu=(qemu-system-x86_64 -machine pc -m "$memory" -smp "$cpus" -nodefaults -no-user-config
    -display none -serial stdio -monitor none -no-reboot -kernel "$kernel" -initrd "$initramfs")
kvm_args=(-accel kvm -cpu host)
# One host thread runs every vCPU (thread=single). Under multi-threaded TCG, Debian's 6.12 guest
# panicked at start-up in 1 of 5 boots with "Oops: int3 in sched_clock_cpu": the kernel patches its
# own code live (jump labels, through a temporary int3), and the likely cause (not confirmed) is one
# vCPU's host thread running the breakpoint after another's had finished the patch. With one thread
# no vCPU runs while another patches (README.md, "Known problems").
# shellcheck disable=SC2054  # the commas belong to qemu's option syntax
tcg_args=(-accel tcg,thread=single -cpu max)

# Succeeds when a KVM guest boots to the initramfs within 15 s. Fails at once when /dev/kvm is
# unusable or the CPU has no hardware virtualisation: a /dev/kvm without vmx/svm (a PVM-style
# nested host) was seen to hang in the kernel's decompressor rather than fail.
kvm_probe_note=""
probe_kvm() {
    if ! [ -r /dev/kvm ] || ! [ -w /dev/kvm ]; then
        kvm_probe_note="no read-write /dev/kvm"
        return 1
    fi
    if ! grep -qwE 'vmx|svm' /proc/cpuinfo; then
        kvm_probe_note="the CPU shows no vmx/svm flag"
        return 1
    fi
    local token="bluez-vm-kvm-probe-$$"
    if timeout --kill-after=2 15 "${qemu[@]}" "${kvm_args[@]}" \
        -append "console=ttyS0 panic=-1 quiet BLUEZVM_PROBE=$token" < /dev/null 2>&1 \
        | grep -q -m1 "$token"; then
        return 0
    fi
    kvm_probe_note="a probe boot did not reach the initramfs within 15 s"
    return 1
}

probe_started=$(date +%s%N)
if [ "$accel" = auto ]; then
    if probe_kvm; then accel=kvm; else accel=tcg; fi
fi
probe_ms=$((($(date +%s%N) - probe_started) / 1000000))
if [ "$accel" = kvm ]; then accel_args=("${kvm_args[@]}"); else accel_args=("${tcg_args[@]}"); fi
say "kernel $kernel_version ($kernel_choice), accelerator $accel${kvm_probe_note:+ (KVM: $kvm_probe_note)}, choice took ${probe_ms} ms"
say "scenarios: ${scenario_names[*]}; logs in $out"

# --- the run ---------------------------------------------------------------------------------
# The console is copied to console.log; the moment the guest reports bluetoothd ready is noted
# from the host's clock.
started=$(date +%s%N)
set +e
timeout --kill-after=10 "$timeout_s" "${qemu[@]}" "${accel_args[@]}" \
    -virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
    -virtfs "local,path=$repo,mount_tag=repo,security_model=none,readonly=on,multidevs=remap" \
    -virtfs "local,path=$out,mount_tag=out,security_model=none,multidevs=remap" \
    -append "console=ttyS0 panic=-1 quiet loglevel=4 BLUEZVM_INIT=$here/guest/init.sh BLUEZVM_REPO=$repo" \
    < /dev/null 2>&1 | tee "$out/console.log" | while IFS= read -r line; do
        if [[ $line == *"READY: bluetoothd exports"* ]] && ! [ -e "$out/host-ready-ms" ]; then
            echo $((($(date +%s%N) - started) / 1000000)) > "$out/host-ready-ms"
        fi
        printf '%s\n' "$line"
    done
qemu_status=${PIPESTATUS[0]}
set -e
wall_ms=$((($(date +%s%N) - started) / 1000000))

# --- verdict ---------------------------------------------------------------------------------
seconds() { printf '%d.%d' $(($1 / 1000)) $((($1 % 1000) / 100)); }
{
    echo "accelerator $accel"
    echo "accelerator_choice_s $(seconds "$probe_ms")"
    [ -e "$out/host-ready-ms" ] && echo "bluetoothd_ready_since_qemu_start_s $(seconds "$(cat "$out/host-ready-ms")")"
    echo "qemu_wall_s $(seconds "$wall_ms")"
} >> "$out/timings"
rm -f "$out/host-ready-ms"

echo
say "---- results ----"
[ -s "$out/results" ] && sed 's/^/bluez-vm: /' "$out/results"
sed 's/^/bluez-vm: timing /' "$out/timings"
[ -s "$out/measurements" ] && sed 's/^/bluez-vm: measured /' "$out/measurements"
if [ "$qemu_status" = 124 ] || [ "$qemu_status" = 137 ]; then
    say "FAIL: the VM hit the ${timeout_s} s limit"
    exit 1
fi
verdict=$(cat "$out/result" 2> /dev/null || echo "no result (the guest crashed or never started)")
passed=$(grep -c '^PASS ' "$out/results" 2> /dev/null || true)
skipped=$(grep -c '^SKIP ' "$out/results" 2> /dev/null || true)
# A skipped scenario (something outside the project it needs is absent) fails nothing, but it is
# never counted as passed: the summary names it.
if [ "$verdict" = PASS ] && [ $((passed + skipped)) = "${#scenario_names[@]}" ]; then
    if ((skipped > 0)); then
        say "PASS: ${passed} of ${#scenario_names[@]} scenarios passed, ${skipped} skipped ($(awk '$1 == "SKIP" { print $2 }' "$out/results" | paste -sd ' '))"
    else
        say "PASS: ${passed} of ${#scenario_names[@]} scenarios"
    fi
    exit 0
fi
say "FAIL: guest result '$verdict', ${passed:-0} of ${#scenario_names[@]} scenarios passed, qemu exit status $qemu_status; see $out"
exit 1
