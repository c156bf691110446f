#!/bin/sh
# Flash every device listed in a file, keep the JSON Lines log, say which devices were not updated.
# Usage: rig.sh PACKAGE DEVICES_FILE LOG
# Exit status: dfu's: 0 when every device was updated, 130 when interrupted (Ctrl-C), otherwise
# the code of the first device that failed (1 refused, 2 not found, 65 bad package, ...).
package=$1 devices=$2 log=$3
# Ctrl-C reaches dfu too: it stops every device cleanly and writes its summary; the script then reports.
trap 'echo "interrupted: run the same command again for the devices not updated"' INT TERM
dfu upload "$package" --devices-from "$devices" --json > "$log"
status=$?
echo "updated: $(grep -c '"result":"updated"' "$log")"
failed=$(sed -n 's/.*"event":"summary".*"failed":\[\([^]]*\)\].*/\1/p' "$log" | tr -d '"' | tr ',' ' ')
if [ -n "$failed" ]; then echo "not updated: $failed"; fi
exit "$status"
