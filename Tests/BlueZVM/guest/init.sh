#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# The BlueZ VM's first process after the initramfs: it runs as PID 1 on the host's root
# filesystem (read-only over 9p), brings up the kernel's Bluetooth stack, btvirt's virtual LE
# controllers, a system D-Bus, btmon and the real bluetoothd, runs the suite's scenarios one after
# another against that one bluetoothd, writes the results to the writable "out" share and powers
# the VM off. PID 1 never exits on its own: whatever happens, it ends in a power-off.
#
# From the kernel command line (environment): BLUEZVM_REPO, the repository's path.
# From out/job.env (written by run.sh): the scenarios and settings, see run.sh.

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LANG=C.UTF-8 HOME=/root TERM=dumb
out=/run/bluez-vm/out

power_off() {
    sync
    /bin/busybox poweroff -f
    echo o > /proc/sysrq-trigger
    while :; do sleep 60; done
}

# Everything the host's read-only root cannot hold gets a tmpfs; the repository is mounted from
# its own share at its own path, so it is visible even where a tmpfs now covers the host's path.
mount_filesystems() {
    mount -t tmpfs -o mode=755 tmpfs /run || return 1
    mount -t tmpfs -o mode=1777 tmpfs /tmp
    mount -t tmpfs -o mode=1777 tmpfs /var/tmp
    mount -t tmpfs -o mode=700 tmpfs /var/lib/bluetooth
    # devtmpfs has no /dev/fd (udev makes it elsewhere); bash's <(...) needs it.
    ln -sfn /proc/self/fd /dev/fd
    ln -sfn /proc/self/fd/0 /dev/stdin
    ln -sfn /proc/self/fd/1 /dev/stdout
    ln -sfn /proc/self/fd/2 /dev/stderr
    mkdir -p /dev/pts /dev/shm
    mount -t devpts devpts /dev/pts
    mount -t tmpfs tmpfs /dev/shm
    mkdir -p "$out" /run/dbus /run/lock
    mount -t 9p -o trans=virtio,version=9p2000.L,rw,msize=512000 out "$out" || return 1
    mkdir -p "$BLUEZVM_REPO" 2> /dev/null
    mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose repo "$BLUEZVM_REPO" || return 1
}

if ! mount_filesystems; then
    echo "bluez-vm: cannot mount the guest's filesystems"
    power_off
fi
# shellcheck source=/dev/null
. "$out/job.env"
export BLUEZVM_LIB="$BLUEZVM_REPO/Tests/BlueZVM/guest/lib.sh"
# shellcheck source=lib.sh
. "$BLUEZVM_LIB"

# Prints "NAME ADDRESS" for each controller the kernel's management interface lists. An index
# is listed only once its initialisation has finished and succeeded.
usable_controllers() {
    btmgmt info 2> /dev/null | awk '
        /^hci[0-9]+:/ { name = substr($1, 1, length($1) - 1) }
        /^[ \t]+addr / && name != "" { print name, $2; name = "" }' | sort -V
}

# has_usable_controllers N: succeeds when at least N controllers are usable.
has_usable_controllers() {
    (($(usable_controllers | wc -l) >= $1))
}

# Brings up everything up to a bluetoothd that exports the controllers the scenarios get.
start_bluetooth() {
    local wanted=$BLUEZVM_CONTROLLERS created=$((BLUEZVM_CONTROLLERS + BLUEZVM_SPARE_CONTROLLERS))

    bluezvm_log "loading bluetooth and hci_vhci"
    if ! modprobe bluetooth || ! modprobe hci_vhci; then
        bluezvm_log "modprobe failed"
        return 1
    fi

    # All controllers in one btvirt process, so they can see and connect to each other. btvirt is
    # started before anything else runs, and with spares: under software emulation on a busy
    # host, the kernel's HCI_Reset to the first controller (only ever hci0 here) times out while
    # btvirt is still creating the others, and that controller never becomes usable. The
    # scenarios get the first usable ones. If even the spares are not enough, btvirt starts over
    # once with fresh controllers.
    local attempt btvirt_pid
    for attempt in 1 2; do
        btvirt -L "-l$created" >> "$out/btvirt.log" 2>&1 &
        btvirt_pid=$!
        bluezvm_log "btvirt started with $created LE controllers (attempt $attempt)"
        if bluezvm_wait_until 20 "$wanted usable controllers" has_usable_controllers "$wanted"; then
            break
        fi
        bluezvm_log "usable controllers: $(usable_controllers | tr '\n' ' ')"
        kill "$btvirt_pid" 2> /dev/null
        wait "$btvirt_pid" 2> /dev/null
        bluezvm_wait_until 10 "btvirt's controllers to go" eval '[ -z "$(ls /sys/class/bluetooth)" ]'
        ((attempt < 2)) || return 1
    done
    echo "controllers_usable_uptime_s $(bluezvm_seconds_since 0)" >> "$out/timings"
    mapfile -t controllers < <(usable_controllers | head -n "$wanted")
    bluezvm_log "usable controllers: $(usable_controllers | tr '\n' ' ')"

    # Larger socket receive buffers (4 MiB instead of 208 KiB). The kernel queues incoming ATT
    # PDUs on bluetoothd's L2CAP socket with no flow control back to the link (basic mode), and
    # drops what does not fit. Under TCG on a loaded host the peripheral's bluetoothd fell behind
    # a stream of write commands: 200 KiB uploads resent 12-29 packets, and one failed an object
    # three times (the peripheral's bluetoothd received exactly what the app got, so packets were
    # lost before bluetoothd read them). A real nRF5 target has link-layer flow control instead.
    echo 4194304 > /proc/sys/net/core/rmem_max
    echo 4194304 > /proc/sys/net/core/rmem_default
    dbus-daemon --system --fork --nopidfile || { bluezvm_log "dbus-daemon failed"; return 1; }
    bluezvm_log "system bus up"
    btmon -w "$out/btmon.snoop" > "$out/btmon.log" 2>&1 &
    btmon_pid=$!
    # shellcheck disable=SC2086  # BLUEZVM_BLUETOOTHD_ARGS is a list of options
    "$BLUEZVM_BLUETOOTHD" -n -d $BLUEZVM_BLUETOOTHD_ARGS > "$out/bluetoothd.log" 2>&1 &
    bluetoothd_pid=$!
    bluezvm_log "bluetoothd $("$BLUEZVM_BLUETOOTHD" --version) started ($BLUEZVM_BLUETOOTHD)"
    echo "bluetoothd_version $("$BLUEZVM_BLUETOOTHD" --version)" >> "$out/timings"

    local names=() entry
    for entry in "${controllers[@]}"; do
        names+=("${entry%% *}")
    done
    bluezvm_wait_dbus 60 "bluetoothd to export ${names[*]}" \
        "type='signal',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesAdded'" \
        bluezvm_has_adapters "${names[@]}" || return 1
    bluezvm_log "READY: bluetoothd exports ${names[*]}"
    echo "bluetoothd_ready_uptime_s $(bluezvm_seconds_since 0)" >> "$out/timings"

    export BLUEZVM_ADAPTER_COUNT=${#controllers[@]}
    export BLUEZVM_ADAPTERS="${names[*]}"
    local addresses=() index=0
    for entry in "${controllers[@]}"; do
        index=$((index + 1))
        export "BLUEZVM_ADAPTER_$index=${entry%% *}" "BLUEZVM_ADDRESS_$index=${entry#* }"
        addresses+=("${entry#* }")
    done
    export BLUEZVM_ADDRESSES="${addresses[*]}"
}

# Gives the next scenario a known start: no known devices, every adapter powered off.
reset_bluetooth() {
    local path
    while read -r path; do
        [ -n "$path" ] || continue
        dbus-send --system --print-reply --reply-timeout=10000 --dest=org.bluez "${path%/dev_*}" \
            org.bluez.Adapter1.RemoveDevice "objpath:$path" > /dev/null
    done < <(bluezvm_device_paths)
    while read -r path; do
        [ -n "$path" ] || continue
        bluezvm_set_powered "${path##*/}" false
    done < <(bluezvm_adapter_paths)
}

# skip_reason LOG: the reason a skipped scenario gave (its last "SKIP: " line, see bluezvm_skip).
skip_reason() {
    local reason
    reason=$(grep -oE 'SKIP: .*' "$1" 2> /dev/null | tail -n 1)
    echo "${reason#SKIP: }"
}

# post_mortem FOLDER BLUETOOTHD_LINE BTMON_LINE: what a failed scenario leaves for the next reader, who may have
# only the console (a CI log): the lines bluetoothd and btmon wrote while it ran (bluetoothd-during.log,
# btmon-during.log in FOLDER), and on the console the peripheral's log, dfu's trace (its log events), bluetoothd's
# lines that name an error, and btmon's connection events with their status or reason, each cut to its last lines.
post_mortem() {
    local folder=$1 file
    tail -n "+$(($2 + 1))" "$out/bluetoothd.log" > "$folder/bluetoothd-during.log" 2> /dev/null
    tail -n "+$(($3 + 1))" "$out/btmon.log" > "$folder/btmon-during.log" 2> /dev/null
    {
        echo "---- post-mortem of ${folder##*/} (files in its folder) ----"
        if [ -s "$folder/peripheral.log" ]; then
            echo "-- peripheral.log, last 30 lines:"
            tail -n 30 "$folder/peripheral.log"
        fi
        for file in "$folder"/*.jsonl; do
            [ -s "$file" ] || continue
            echo "-- ${file##*/}, dfu's log events, last 30:"
            jq -r 'select(.event == "log") | .message' "$file" 2> /dev/null | tail -n 30
        done
        echo "-- bluetoothd while it ran, lines whose message names an error or a disconnection, last 40:"
        # Debug lines read "bluetoothd[PID]: FILE:FUNCTION() MESSAGE": the message is what is matched.
        awk '{ i = index($0, "() "); text = tolower(i ? substr($0, i + 3) : $0) }
            text ~ /error|fail|unable|refused|timeout|timed out|disconnect|not connected|not found/' \
            "$folder/bluetoothd-during.log" | tail -n 40
        echo "-- btmon while it ran, connection events and their status or reason, last 40:"
        awk '/^> HCI Event: (Disconnect Complete|Encryption Change)|^ +LE (Enhanced )?Connection Complete \(0x|^ +LE Long Term Key Request \(0x|^< HCI Command: .*\(0x08\|0x00(0d|19|1a|1b)\)|^@ MGMT Event: (Device Disconnected|Connect Failed)/ {
                print; left = 6; next
            }
            left > 0 { left--; if ($0 ~ /Status:|Reason:|Encryption:|Address:/) print }' \
            "$folder/btmon-during.log" | tail -n 40
        echo "---- end of post-mortem ----"
    } > "$folder/post-mortem.txt" 2>&1
    cat "$folder/post-mortem.txt"
}

# run_scenario INDEX: runs scenario INDEX of the job with its own output folder and deadline,
# streams its output to the console and records PASS, SKIP or FAIL in out/results.
run_scenario() {
    # shellcheck disable=SC2154  # scenario_names and scenario_commands come from job.env
    local name=${scenario_names[$1]} command=${scenario_commands[$1]}
    local folder="$out/scenarios/$name" started pid console_pid status verdict bluetoothd_line btmon_line
    mkdir -p "$folder"
    reset_bluetooth || bluezvm_log "warning: resetting bluetoothd's state failed"
    bluetoothd_line=$(wc -l < "$out/bluetoothd.log")
    btmon_line=$(wc -l < "$out/btmon.log")
    bluezvm_log "scenario $name: $command"
    started=$(bluezvm_now_cs)
    (
        cd "$folder" || exit 1
        export BLUEZVM_OUT="$folder" BLUEZVM_SCENARIO="$name"
        exec timeout --kill-after=5 "$BLUEZVM_SCENARIO_TIMEOUT" bash -c "$command"
    ) > "$folder/output.log" 2>&1 < /dev/null &
    pid=$!
    tail -n +1 -f --pid="$pid" "$folder/output.log" | sed -u "s/^/[$name] /" &
    console_pid=$!
    wait "$pid"
    status=$?
    # timeout leads its own process group: end whatever the scenario left running.
    kill -TERM -- "-$pid" 2> /dev/null
    wait "$console_pid"
    case $status in
        0) verdict=PASS ;;
        "$BLUEZVM_SKIP_STATUS") verdict="SKIP ($(skip_reason "$folder/output.log"))" ;;
        124 | 137) verdict="FAIL (timed out after ${BLUEZVM_SCENARIO_TIMEOUT}s)" ;;
        *) verdict="FAIL (exit status $status)" ;;
    esac
    bluezvm_log "scenario $name: $verdict in $(bluezvm_seconds_since "$started")s"
    [[ $verdict == FAIL* ]] && post_mortem "$folder" "$bluetoothd_line" "$btmon_line"
    # One line per scenario: PASS|SKIP|FAIL NAME SECONDS [why]
    if [ -s "$folder/measurements" ]; then
        sed "s/^/$name: /" "$folder/measurements" >> "$out/measurements"
    fi
    local line
    line="${verdict%% *} $name $(bluezvm_seconds_since "$started")s"
    [ "$verdict" = PASS ] || line+=" ${verdict#* }"
    echo "$line" >> "$out/results"
}

# Stops btmon and bluetoothd cleanly, so the trace and the log are complete.
stop_bluetooth() {
    local pid
    for pid in ${btmon_pid:-} ${bluetoothd_pid:-}; do
        kill -INT "$pid" 2> /dev/null
        bluezvm_wait_until 10 "process $pid to exit" eval "! kill -0 $pid" || kill -KILL "$pid" 2> /dev/null
    done
}

run_suite() {
    bluezvm_log "guest up, kernel $(uname -r), repository $BLUEZVM_REPO"
    if ! start_bluetooth; then
        echo "FAIL setup $(bluezvm_seconds_since 0)s" >> "$out/results"
        btmgmt info > "$out/btmgmt-info.log" 2>&1
        return 1
    fi
    local index suite_started
    suite_started=$(bluezvm_now_cs)
    for index in "${!scenario_names[@]}"; do
        run_scenario "$index"
    done
    echo "scenarios_s $(bluezvm_seconds_since "$suite_started")" >> "$out/timings"
    stop_bluetooth
}

: > "$out/results"
: > "$out/timings"
run_suite > >(tee -a "$out/guest.log") 2>&1
dmesg > "$out/dmesg.log" 2>&1
# A skipped scenario fails nothing, and passes nothing either: run.sh counts it apart.
if [ -s "$out/results" ] && ! grep -qvE '^(PASS|SKIP) ' "$out/results"; then
    echo PASS > "$out/result"
else
    echo FAIL > "$out/result"
fi
echo "bluez-vm: guest result $(cat "$out/result")"
power_off
