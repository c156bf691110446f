# Shell helpers for the BlueZ VM guest: the suite runner (guest/init.sh) and scenarios source this
# file (its path is in $BLUEZVM_LIB). Bash only. Every wait has a deadline; waits follow an event
# (a D-Bus signal, a line of output) wherever one exists and poll only where none does.
#
# Time is the guest's uptime in centiseconds: /proc/uptime always has two decimals, so integer
# arithmetic is enough and no clock can jump.

# Prints the guest's uptime in centiseconds.
bluezvm_now_cs() {
    local uptime _
    read -r uptime _ < /proc/uptime
    echo $((10#${uptime/./}))
}

# Prints the seconds (two decimals) elapsed since the uptime CENTISECONDS.
bluezvm_seconds_since() {
    local elapsed=$(($(bluezvm_now_cs) - $1))
    printf '%d.%02d' $((elapsed / 100)) $((elapsed % 100))
}

# Prints MESSAGE with the guest's uptime.
bluezvm_log() {
    local now
    now=$(bluezvm_now_cs)
    printf '[%d.%02ds] %s\n' $((now / 100)) $((now % 100)) "$*"
}

# Logs MESSAGE as a failure and exits with status 1.
bluezvm_fail() {
    bluezvm_log "FAIL: $*"
    exit 1
}

# The exit status of a scenario that did not run because something it needs is absent (the
# Automake convention); guest/init.sh records it as SKIP, never as PASS.
BLUEZVM_SKIP_STATUS=77

# Logs why the scenario cannot run ("SKIP: REASON", the reason the results show) and exits with
# BLUEZVM_SKIP_STATUS. Only for something outside the project that is absent, never for a failure.
bluezvm_skip() {
    bluezvm_log "SKIP: $*"
    exit "$BLUEZVM_SKIP_STATUS"
}

# bluezvm_check WHAT COMMAND...: runs COMMAND; logs "ok: WHAT" when it succeeds, fails otherwise.
bluezvm_check() {
    local what=$1
    shift
    if "$@"; then
        bluezvm_log "ok: $what"
    else
        bluezvm_fail "$what"
    fi
}

# bluezvm_wait_until SECONDS WHAT COMMAND...: runs COMMAND every 0.2 s until it succeeds.
# Returns 1 (after logging) when SECONDS pass first. Only for states that send no event.
bluezvm_wait_until() {
    local seconds=$1 what=$2
    shift 2
    local deadline=$(($(bluezvm_now_cs) + seconds * 100))
    until "$@" > /dev/null 2>&1; do
        if (($(bluezvm_now_cs) >= deadline)); then
            bluezvm_log "timed out after ${seconds}s waiting for: $what"
            return 1
        fi
        sleep 0.2
    done
}

# bluezvm_wait_dbus SECONDS WHAT MATCH_RULE COMMAND...: checks COMMAND, then again each time a
# message matching MATCH_RULE crosses the system bus, until COMMAND succeeds. The monitor is
# listening before the first check, so no change is missed; a bus that stays silent still gets a
# re-check every second. Returns 1 (after logging) when SECONDS pass first.
bluezvm_wait_dbus() {
    local seconds=$1 what=$2 rule=$3
    shift 3
    local deadline=$(($(bluezvm_now_cs) + seconds * 100))
    local fifo monitor_pid events line status=1
    fifo=$(mktemp -u /run/bluez-vm/monitor.XXXXXX)
    mkfifo "$fifo"
    dbus-monitor --system "$rule" > "$fifo" 2> /dev/null &
    monitor_pid=$!
    exec {events}< "$fifo"
    rm -f "$fifo"
    # dbus-monitor prints its own NameAcquired/NameLost once it is attached; that first line
    # triggers the check below after the monitor is in place.
    while :; do
        if (($(bluezvm_now_cs) >= deadline)); then
            bluezvm_log "timed out after ${seconds}s waiting for: $what"
            break
        fi
        read -r -t 1 -u "$events" line
        local read_status=$?
        "$@" > /dev/null 2>&1 && { status=0; break; }
        # 0: a message, >128: a quiet second; otherwise the monitor is gone (no bus?): poll.
        if ((read_status != 0 && read_status <= 128)); then
            sleep 0.2
        fi
    done
    kill "$monitor_pid" 2> /dev/null
    wait "$monitor_pid" 2> /dev/null
    exec {events}<&-
    return $status
}

# bluezvm_bluetoothd_at_least VERSION: succeeds when the guest's bluetoothd is VERSION (5.60, say) or newer.
bluezvm_bluetoothd_at_least() {
    local have
    have=$("$BLUEZVM_BLUETOOTHD" --version)
    [ "$(printf '%s\n%s\n' "$1" "$have" | sort -V | head -n 1)" = "$1" ]
}

# Prints the object paths of bluetoothd's org.bluez.Adapter1 objects, one a line.
bluezvm_adapter_paths() {
    dbus-send --system --print-reply --reply-timeout=5000 --dest=org.bluez / \
        org.freedesktop.DBus.ObjectManager.GetManagedObjects 2> /dev/null \
        | awk -F'"' '/object path "/ { path = $2 } /string "org.bluez.Adapter1"/ { print path }'
}

# bluezvm_has_adapters NAME...: succeeds when bluetoothd exports /org/bluez/NAME as an adapter
# for every NAME.
bluezvm_has_adapters() {
    local paths name
    paths=$(bluezvm_adapter_paths)
    for name in "$@"; do
        grep -qx "/org/bluez/$name" <<< "$paths" || return 1
    done
}

# Prints the object paths of bluetoothd's org.bluez.Device1 objects, one a line.
bluezvm_device_paths() {
    dbus-send --system --print-reply --reply-timeout=5000 --dest=org.bluez / \
        org.freedesktop.DBus.ObjectManager.GetManagedObjects 2> /dev/null \
        | awk -F'"' '/object path "/ { path = $2 } /string "org.bluez.Device1"/ { print path }'
}

# Prints the D-Bus object path of the device with ADDRESS as seen from adapter NAME.
bluezvm_device_path() {
    local name=$1 address=$2
    echo "/org/bluez/$name/dev_${address//:/_}"
}

# bluezvm_set_powered NAME true|false: sets Adapter1.Powered; bluetoothd replies once the
# controller has changed state.
bluezvm_set_powered() {
    dbus-send --system --print-reply --reply-timeout=20000 --dest=org.bluez "/org/bluez/$1" \
        org.freedesktop.DBus.Properties.Set string:org.bluez.Adapter1 string:Powered \
        "variant:boolean:$2" > /dev/null
}

# bluezvm_is_powered NAME: succeeds when Adapter1.Powered of NAME is true.
bluezvm_is_powered() {
    dbus-send --system --print-reply --reply-timeout=5000 --dest=org.bluez "/org/bluez/$1" \
        org.freedesktop.DBus.Properties.Get string:org.bluez.Adapter1 string:Powered 2> /dev/null \
        | grep -q 'boolean true'
}

# Session: an interactive tool (bluetoothctl, btmgmt, ...) kept running in the background, fed
# lines through a FIFO, its output (colour codes and carriage returns removed) appended to
# $BLUEZVM_OUT/NAME.log. Expectations read that log as it grows (tail -f, inotify), from the mark
# set by the last send.
declare -A bluezvm_session_input bluezvm_session_pid bluezvm_session_filter bluezvm_session_mark

# bluezvm_session_start NAME COMMAND...: starts COMMAND as session NAME.
bluezvm_session_start() {
    local name=$1
    shift
    local log="$BLUEZVM_OUT/$name.log" input_fifo output_fifo input
    input_fifo=$(mktemp -u /run/bluez-vm/session-in.XXXXXX)
    output_fifo=$(mktemp -u /run/bluez-vm/session-out.XXXXXX)
    mkfifo "$input_fifo" "$output_fifo"
    : > "$log"
    sed -u -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/[\x01\x02\r]//g' < "$output_fifo" >> "$log" &
    bluezvm_session_filter[$name]=$!
    "$@" < "$input_fifo" > "$output_fifo" 2>&1 &
    bluezvm_session_pid[$name]=$!
    exec {input}> "$input_fifo"
    rm -f "$input_fifo" "$output_fifo"
    bluezvm_session_input[$name]=$input
    bluezvm_session_mark[$name]=0
    bluezvm_log "session $name started: $*"
}

# bluezvm_session_send NAME LINE...: sets NAME's mark to the end of its log so far, then writes
# each LINE to its input.
bluezvm_session_send() {
    local name=$1 line
    shift
    bluezvm_session_mark[$name]=$(stat -c %s "$BLUEZVM_OUT/$name.log")
    for line in "$@"; do
        printf '%s\n' "$line" >&"${bluezvm_session_input[$name]}"
    done
}

# bluezvm_session_expect NAME SECONDS REGEX: waits until a line of NAME's output after its mark
# matches the extended REGEX. Returns 1 (after logging) when SECONDS pass first.
bluezvm_session_expect() {
    local name=$1 seconds=$2 regex=$3
    local log="$BLUEZVM_OUT/$name.log" lines tail_pid status=0
    exec {lines}< <(exec timeout "$seconds" tail -c "+$((bluezvm_session_mark[$name] + 1))" -f "$log")
    tail_pid=$!
    grep -m1 -q -E -- "$regex" <&"$lines" || status=1
    kill "$tail_pid" 2> /dev/null
    exec {lines}<&-
    if ((status != 0)); then
        bluezvm_log "timed out after ${seconds}s waiting for '$regex' from session $name"
    fi
    return $status
}

# bluezvm_session_stop NAME: closes NAME's input and gives the tool 5 s to exit before killing it.
bluezvm_session_stop() {
    local name=$1 pid input
    pid=${bluezvm_session_pid[$name]:-}
    [ -n "$pid" ] || return 0
    input=${bluezvm_session_input[$name]}
    exec {input}>&-
    bluezvm_wait_until 5 "session $name to exit" eval "! kill -0 $pid" || kill "$pid" 2> /dev/null
    wait "$pid" 2> /dev/null
    wait "${bluezvm_session_filter[$name]}" 2> /dev/null
    unset "bluezvm_session_pid[$name]"
    bluezvm_log "session $name stopped"
}

# Stops every session still running; scenarios call this from an EXIT trap.
bluezvm_session_stop_all() {
    local name
    for name in "${!bluezvm_session_pid[@]}"; do
        bluezvm_session_stop "$name"
    done
}

# bluezvm_record TEXT...: appends one line to the scenario's measurements; the suite gathers them
# into out/measurements as "SCENARIO: TEXT".
bluezvm_record() {
    echo "$*" >> "$BLUEZVM_OUT/measurements"
}

# bluezvm_cpu_ticks: "BLUETOOTHD DBUS GUEST", the clock ticks of CPU used so far by every bluetoothd, by the
# system bus's dbus-daemon (its command line has --system), and by the whole guest (the first line of
# /proc/stat: every CPU's time but idle and iowait).
bluezvm_cpu_ticks() {
    local pid ticks bluetoothd=0 bus=0
    for pid in $(pgrep -x bluetoothd); do
        ticks=$(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2> /dev/null) && bluetoothd=$((bluetoothd + ${ticks:-0}))
    done
    for pid in $(pgrep -f -- 'dbus-daemon.*--system'); do
        ticks=$(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2> /dev/null) && bus=$((bus + ${ticks:-0}))
    done
    echo "$bluetoothd $bus $(awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat)"
}

# bluezvm_measure LABEL COMMAND...: runs COMMAND and records its wall time and the CPU time of it
# and its children, and what bluetoothd, the system bus and the whole guest used meanwhile (seconds):
# "LABEL wall_s=… user_s=… sys_s=… status=… bluetoothd_s=… dbus_s=… guest_s=…". Returns COMMAND's status.
bluezvm_measure() {
    local label=$1
    shift
    local TIMEFORMAT='%R %U %S' timing status wall user system before after hz
    hz=$(getconf CLK_TCK)
    timing=$(mktemp /run/bluez-vm/timing.XXXXXX)
    before=$(bluezvm_cpu_ticks)
    { time "$@" 2>&4 4>&-; } 4>&2 2> "$timing"
    status=$?
    after=$(bluezvm_cpu_ticks)
    read -r wall user system < "$timing"
    rm -f "$timing"
    bluezvm_record "$label wall_s=$wall user_s=$user sys_s=$system status=$status $(awk -v hz="$hz" -v b="$before" -v a="$after" \
        'BEGIN { split(b, x, " "); split(a, y, " "); printf "bluetoothd_s=%.2f dbus_s=%.2f guest_s=%.2f", (y[1] - x[1]) / hz, (y[2] - x[2]) / hz, (y[3] - x[3]) / hz }')"
    return $status
}
