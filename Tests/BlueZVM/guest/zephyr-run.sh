#!/bin/bash
# Runs Zephyr's smp_svr (native_sim) on ADAPTER for guest/zephyr.sh, and runs it again on the same
# flash each time it resets. native_sim has no reset: sys_reboot() ends in the weak
# sys_arch_reboot(), which prints "sys_arch_reboot called with type N. Exiting" and the process
# ends. Before the restart, the central's link to it is dropped (Device1.Disconnect: btvirt ends no
# link whose peer vanished, where a real central would see the link's supervision timeout), and
# the controller, which the kernel handed back to bluetoothd when the user channel closed, is
# taken again. Ends when the server ends any other way, or on SIGTERM (passed on to the server).
#   zephyr-run.sh ADAPTER UART_LOG UART_PIDFILE CENTRAL_DEVICE_PATH SERVER_OPTION...
# Each run's standard output is this script's; the console (a UART on a pseudo-terminal, new at
# each run) is appended to UART_LOG from the moment the terminal exists (-attach_uart_cmd).
set -u
# shellcheck source=lib.sh
. "$BLUEZVM_LIB"
# shellcheck source=zephyr.sh
. "$(dirname "$BLUEZVM_LIB")/zephyr.sh"
adapter=$1 uart_log=$2 uart_pidfile=$3 central_device=$4
shift 4
server_pid=""
restart_requested=0
trap '[ -n "$server_pid" ] && kill -TERM "$server_pid" 2> /dev/null; wait "$server_pid" 2> /dev/null; exit 143' TERM INT
# SIGUSR1: stop the server and start it again on the same flash (zephyr_nudge_on_discovery).
trap 'restart_requested=1; [ -n "$server_pid" ] && kill -TERM "$server_pid" 2> /dev/null' USR1
echo $$ > "$uart_pidfile.run"
# stty makes the terminal raw without echo (an echo would feed the server's own output back to
# its shell).
attach="sh -c 'stty -F \"\$0\" raw -echo; exec cat \"\$0\"' %s >> $uart_log 2>&1 & echo \$! > $uart_pidfile"
run=0
while :; do
    run=$((run + 1))
    # Later runs keep the flash: whatever erased it at the first run must not again.
    if ((run > 1)); then
        args=()
        for option in "$@"; do
            [ "$option" = -flash_erase ] || args+=("$option")
        done
        set -- "${args[@]}"
    fi
    # The run's output goes to a file (complete once the process ended) and, as it comes, to ours.
    output=$(mktemp /tmp/zephyr-run.XXXXXX)
    "$zephyr_exe" --bt-dev="$adapter" -no-color "-attach_uart_cmd=$attach" "$@" >> "$output" 2>&1 &
    server_pid=$!
    tail -n +1 -f --pid="$server_pid" "$output" &
    tail_pid=$!
    # A trap interrupts wait: wait again until the server really ended.
    while :; do
        wait "$server_pid"
        status=$?
        kill -0 "$server_pid" 2> /dev/null || break
    done
    server_pid=""
    wait "$tail_pid"
    if ((restart_requested)); then
        restart_requested=0
        rm -f "$output"
        echo "zephyr-run: restarting the server on request (run $run ended with status $status)"
        zephyr_take_controller "$adapter" 2> /dev/null
        bluezvm_wait_dbus 10 "bluetoothd to have $adapter back" \
            "type='signal',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesAdded'" \
            bluezvm_has_adapters "$adapter"
        zephyr_take_controller "$adapter" || echo "zephyr-run: cannot take $adapter back from bluetoothd"
        continue
    fi
    if ! grep -q 'sys_arch_reboot called' "$output"; then
        rm -f "$output"
        echo "zephyr-run: the server ended with status $status (run $run)"
        exit "$status"
    fi
    rm -f "$output"
    echo "zephyr-run: the server reset (run $run ended with status $status): the central's link is dropped, the controller taken again, and the server starts again on the same flash"
    dbus-send --system --print-reply --reply-timeout=10000 --dest=org.bluez "$central_device" \
        org.bluez.Device1.Disconnect > /dev/null 2>&1
    bluezvm_wait_dbus 10 "bluetoothd to have $adapter back" \
        "type='signal',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesAdded'" \
        bluezvm_has_adapters "$adapter"
    zephyr_take_controller "$adapter" || echo "zephyr-run: cannot take $adapter back from bluetoothd"
done
