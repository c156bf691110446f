#!/usr/bin/env bash
# The client suites (Tests/Clients/README.md): bleak against dfu-sim, dfu against bluezoo.
#   Tests/Clients/run.sh [PYTEST ARGS...]
# Installs what they need (Debian packages through scripts/install-deps.sh; the pinned PyPI
# packages of requirements.txt into a venv under .build), builds dfu and dfu-sim, runs pytest.
# pytest's exit 5 (no test collected) is a failure here.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=Tests/Clients
swift=${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}

# bleak asks `bluetoothctl --version` which BlueZ it talks to (bluez); bluezoo runs on a private
# dbus-daemon; venv.sh makes the venv (Python 3.11 or later).
scripts/install-deps.sh --for "the client suites" dbus-daemon bluez
venv=$(Tests/Clients/venv.sh)

"$swift" build --product dfu
"$swift" build --product dfu-sim
DFU_BUILD_DIR=$("$swift" build --show-bin-path)
export DFU_BUILD_DIR

export PYTHONDONTWRITEBYTECODE=1
status=0
# pytest's temporary folders (tmp_path) in one folder removed afterwards, not kept in /tmp (pytest keeps the last three).
basetemp=$(mktemp -d "${TMPDIR:-/tmp}/dfu-clients.XXXXXX")
trap 'rm -rf "$basetemp"' EXIT
"$venv/bin/python" -m pytest -c "$here/pytest.ini" --rootdir "$here" -p no:cacheprovider --basetemp "$basetemp/pytest" "$here" "$@" || status=$?
if [ "$status" -eq 5 ]; then
    echo "client suites: pytest collected no test" >&2
    exit 1
fi
exit "$status"
