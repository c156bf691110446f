# shellcheck shell=bash
# Helpers for scenarios that run Zephyr's own SMP server sample (samples/subsys/mgmt/mcumgr/smp_svr
# with Bluetooth, built as a Linux program for the native_sim_64 board: ../shared/reference/
# zephyr-smp-svr, see its README) on one btvirt controller through the HCI user channel, taken away
# from bluetoothd, so that clients reach it through the real bluetoothd on another controller.
# It is not part of the project: a scenario calls zephyr_require first, which skips it (exit 77,
# SKIP in the results) when the build is absent. Source after lib.sh:
#   . "$(dirname "$BLUEZVM_LIB")/zephyr.sh"

# Where the server is: ZEPHYR_SMP_SVR_DIR (make test-bluez gives .build/bluez-vm/zephyr, staged by
# zephyr-variants.sh: the default build linked from ../shared, the variant without reassembly built from a
# Zephyr workspace), else that folder when it exists, else ../shared beside the repository (the guest sees the
# host's files at their own paths; a repository under /tmp, which the guest covers, sees no ../shared).
if [ -n "${ZEPHYR_SMP_SVR_DIR:-}" ]; then
    zephyr_dir=$ZEPHYR_SMP_SVR_DIR
elif [ -d "$BLUEZVM_REPO/.build/bluez-vm/zephyr" ]; then
    zephyr_dir=$BLUEZVM_REPO/.build/bluez-vm/zephyr
else
    zephyr_dir=$(dirname "$BLUEZVM_REPO")/shared/reference/zephyr-smp-svr
fi
# ZEPHYR_SMP_SVR_EXE names another build in that folder (exported, so guest/zephyr-run.sh runs the same one),
# e.g. the variant without reassembly (zephyr-smp-svr-no-reassembly.conf).
zephyr_exe=$zephyr_dir/${ZEPHYR_SMP_SVR_EXE:-smp_svr-native_sim_64.exe}
# Its flash, kept in a file so that the slots survive a restart (native_sim has no MCUboot: a
# restart is the nearest thing to a reset). The guest's /tmp is a tmpfs.
zephyr_flash=/tmp/zephyr-smp-svr-flash.bin
# Each zephyr_start is a session (bluezvm_session_*) running guest/zephyr-run.sh, which starts the
# server again on the same flash when it resets (native_sim's reset ends the process):
# zephyr-N.log is its standard output, zephyr-N-uart.log its console (a UART on a pseudo-terminal),
# read from the moment the terminal exists (-attach_uart_cmd), so no line of it is lost.
zephyr_runs=0
# The central (the adapter clients use) and the server's address, for zephyr-run.sh to drop the
# central's link when the server resets: set by the scenario before zephyr_start.
zephyr_central=${BLUEZVM_ADAPTER_1:-}
zephyr_address=${BLUEZVM_ADDRESS_2:-}
zephyr_session=""
zephyr_pid=""
zephyr_adapter=""

# zephyr_require: skips the scenario unless the server's build is there and runs here. zephyr-variants.sh
# leaves NAME.skip (what is absent) or NAME.failed (its build failed) beside a build it could not stage.
zephyr_require() {
    [ -d "$zephyr_dir" ] || bluezvm_skip "Zephyr's smp_svr is absent: no $zephyr_dir (../shared beside the repository, or ZEPHYR_SMP_SVR_DIR)"
    [ -e "$zephyr_exe.failed" ] && bluezvm_fail "$(cat "$zephyr_exe.failed")"
    [ -e "$zephyr_exe.skip" ] && bluezvm_skip "$(cat "$zephyr_exe.skip")"
    [ -e "$zephyr_exe" ] || bluezvm_skip "this build of Zephyr's smp_svr is absent: no $zephyr_exe (its recipe: $zephyr_dir/README.md)"
    [ -x "$zephyr_exe" ] || bluezvm_fail "$zephyr_exe is not executable"
    bluezvm_log "Zephyr's smp_svr: $zephyr_exe ($(sha256sum "$zephyr_exe" | cut -c1-16)…)"
}

# zephyr_take_controller ADAPTER: powers ADAPTER off in bluetoothd (when bluetoothd has it) and
# takes it down, as the HCI user channel needs.
zephyr_take_controller() {
    local adapter=$1
    if bluezvm_has_adapters "$adapter"; then
        bluezvm_set_powered "$adapter" false || return 1
    fi
    hciconfig "$adapter" down
}

# zephyr_start ADAPTER [SERVER OPTION...]: takes ADAPTER away from bluetoothd (powered off, down),
# starts the server on it under `timeout` (it may spin if its HCI link goes away) with the flash in
# $zephyr_flash (add -flash_erase for an empty one), and waits for the events that say it is up:
# its console's "Advertising successfully started" (printed once bt_le_adv_start succeeded, i.e.
# once the controller took LE Set Advertise Enable) and bluetoothd dropping the adapter (the
# kernel's Index Removed when the user channel opened). Fails the scenario otherwise.
zephyr_start() {
    local adapter=$1 started
    shift
    zephyr_runs=$((zephyr_runs + 1))
    zephyr_session=zephyr-$zephyr_runs
    zephyr_adapter=$adapter
    : > "$BLUEZVM_OUT/$zephyr_session-uart.log"
    zephyr_console_mark=0
    zephyr_take_controller "$adapter" || bluezvm_fail "cannot take $adapter away from bluetoothd"
    started=$(bluezvm_now_cs)
    bluezvm_session_start "$zephyr_session" timeout --kill-after=5 "${ZEPHYR_TIMEOUT_S:-600}" \
        "$(dirname "$BLUEZVM_LIB")/zephyr-run.sh" "$adapter" "$BLUEZVM_OUT/$zephyr_session-uart.log" \
        "$BLUEZVM_OUT/$zephyr_session-uart.pid" "$(bluezvm_device_path "$zephyr_central" "$zephyr_address")" \
        -flash="$zephyr_flash" "$@"
    zephyr_pid=${bluezvm_session_pid[$zephyr_session]}
    bluezvm_session_expect "$zephyr_session" 30 'pseudotty: ' || bluezvm_fail "the server printed no pseudo-terminal"
    bluezvm_log "the server's console: $(grep -oE 'pseudotty: [^ ]+' "$BLUEZVM_OUT/$zephyr_session.log" | head -n 1)"
    zephyr_expect 60 'Advertising successfully started' || bluezvm_fail "the server did not start advertising"
    bluezvm_log "the server (timeout's PID $zephyr_pid) advertises on $adapter after $(bluezvm_seconds_since "$started")s"
    bluezvm_wait_dbus 20 "bluetoothd to drop $adapter" \
        "type='signal',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesRemoved'" \
        eval "! bluezvm_has_adapters $adapter" || bluezvm_fail "bluetoothd still has $adapter"
}

# Discovery and btvirt: btvirt reports an advertiser only when scanning or advertising is enabled,
# and the report that answers a client's start of discovery reaches the kernel before its discovery
# is under way, which drops it (README, obstacle 9): smpmgr once found nothing in three windows. The
# simulated peripheral re-registers its advertisement every 1.5 s against that; Zephyr's server
# cannot be told to. So a client that has to discover the server gets a nudge: once the central is
# discovering, the server is stopped and started again on the same flash (a power cycle: its RAM
# state, such as an upload in progress, is lost; the slots stay), and its advertising start comes
# while the central is discovering. (A short connection from the third adapter instead made the
# guest kernel oops in hci_chan_del and killed bluetoothd.)
zephyr_nudger_pid=""

# zephyr_nudge_on_discovery: in the background, waits (300 s at most: smpmgr took minutes to start
# under TCG) until the central discovers, then restarts the server once unless it was heard. zephyr_nudge_stop ends the wait if it has not happened.
zephyr_nudge_on_discovery() {
    local run_pid
    run_pid=$(cat "$BLUEZVM_OUT/$zephyr_session-uart.pid.run" 2> /dev/null)
    [ -n "$run_pid" ] || return 1
    (
        if bluezvm_wait_dbus 300 "the central to discover" \
            "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path='/org/bluez/$zephyr_central'" \
            eval "dbus-send --system --print-reply --dest=org.bluez /org/bluez/$zephyr_central org.freedesktop.DBus.Properties.Get string:org.bluez.Adapter1 string:Discovering | grep -q 'boolean true'"; then
            # Heard at once (its report won the race: the device appears, or its RSSI changes): the
            # client goes on, and a restart would cut its connection. Otherwise nothing more comes
            # until the server advertises anew.
            device=$(bluezvm_device_path "$zephyr_central" "$zephyr_address")
            if zephyr_connected; then
                bluezvm_log "nudge: not needed, the server is connected"
            elif timeout 3 dbus-monitor --system "type='signal',sender='org.bluez',path='$device'" \
                "type='signal',sender='org.bluez',member='InterfacesAdded'" 2> /dev/null \
                | grep -q -m1 -E "string \"RSSI\"|object path \"$device\""; then
                bluezvm_log "nudge: not needed, the central heard the server"
            else
                bluezvm_log "nudge: the central discovers and has not heard the server; it starts again to advertise anew"
                kill -USR1 "$run_pid"
            fi
        fi
    ) >> "$BLUEZVM_OUT/nudge.log" 2>&1 &
    zephyr_nudger_pid=$!
}
zephyr_nudge_stop() {
    [ -n "$zephyr_nudger_pid" ] || return 0
    kill "$zephyr_nudger_pid" 2> /dev/null
    wait "$zephyr_nudger_pid" 2> /dev/null
    zephyr_nudger_pid=""
}

# zephyr_mark: later zephyr_expect calls look only at the console from now on.
zephyr_mark() {
    zephyr_console_mark=$(stat -c %s "$BLUEZVM_OUT/$zephyr_session-uart.log")
}
zephyr_console_mark=0

# zephyr_expect SECONDS REGEX: waits for a line of the server's console since zephyr_mark (or its
# start) that matches REGEX (tail -f, inotify).
zephyr_expect() {
    local seconds=$1 regex=$2 lines tail_pid status=0
    exec {lines}< <(exec timeout "$seconds" tail -c "+$((zephyr_console_mark + 1))" -f "$BLUEZVM_OUT/$zephyr_session-uart.log")
    tail_pid=$!
    grep -m1 -q -E -- "$regex" <&"$lines" || status=1
    kill "$tail_pid" 2> /dev/null
    exec {lines}<&-
    ((status == 0)) || bluezvm_log "timed out after ${seconds}s waiting for '$regex' on the server's console"
    return $status
}

# zephyr_console: the running (or last) server's console so far, without its shell's prompts and
# colour codes.
zephyr_console() {
    sed -e 's/\x1b\[[0-9;]*[A-Za-z]//g' -e 's/\r//g' -e 's/^\(uart:~\$ \)*//' \
        "$BLUEZVM_OUT/$zephyr_session-uart.log" 2> /dev/null | grep -v '^$'
}

# zephyr_connected: succeeds when the running server's last word on its link is "Connected". The
# console spans the server's lives (a reset or a nudge starts it again on the same log), and a life
# ended by sys_reboot or SIGTERM prints no "Disconnected": only the lines since its last start
# ("bt_hci_core: Identity", printed by bt_enable at each start) count. Reading the whole log, the
# nudge after `dfu reset` took the previous life's "Connected" for the new one's, did not restart
# the server, and the central (btvirt drops the advertising report that answers the start of
# discovery) never heard it: `dfu images` found no device in 30 s, 3 boots of 4.
zephyr_connected() {
    zephyr_console | grep -E 'smp_bt_sample: (Connected|Disconnected)|bt_hci_core: Identity' \
        | tail -n 1 | grep -q 'smp_bt_sample: Connected'
}

# zephyr_running: succeeds while the server process is alive.
zephyr_running() {
    [ -n "$zephyr_pid" ] && kill -0 "$zephyr_pid" 2> /dev/null
}

# zephyr_stop: stops the server by its PID (SIGTERM through timeout, SIGKILL after 10 s) and its
# console reader, then waits until bluetoothd has the controller back (Index Added once the user
# channel closed), so the next scenario finds every adapter. Prints the end of the console.
zephyr_stop() {
    [ -n "$zephyr_pid" ] || return 0
    local uart_pid
    zephyr_nudge_stop
    if zephyr_running; then
        kill -TERM "$zephyr_pid" 2> /dev/null
        bluezvm_wait_until 10 "the server to exit" eval "! kill -0 $zephyr_pid 2> /dev/null" \
            || kill -KILL "$zephyr_pid" 2> /dev/null
    fi
    bluezvm_session_stop "$zephyr_session"
    uart_pid=$(cat "$BLUEZVM_OUT/$zephyr_session-uart.pid" 2> /dev/null)
    [ -n "$uart_pid" ] && kill "$uart_pid" 2> /dev/null
    zephyr_pid=""
    # A central still connected keeps its link (btvirt never times one out): drop it.
    dbus-send --system --print-reply --reply-timeout=10000 --dest=org.bluez \
        "$(bluezvm_device_path "$zephyr_central" "$zephyr_address")" org.bluez.Device1.Disconnect > /dev/null 2>&1
    bluezvm_log "the server stopped; its console's last lines:"
    zephyr_console | tail -n 8 | sed 's/^/  console| /'
    bluezvm_wait_dbus 30 "bluetoothd to have $zephyr_adapter again" \
        "type='signal',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesAdded'" \
        bluezvm_has_adapters "$zephyr_adapter" || bluezvm_log "warning: bluetoothd did not get $zephyr_adapter back"
}
