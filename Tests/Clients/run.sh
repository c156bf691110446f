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
# dbus-daemon; the venv needs Python 3.11 or later with venv and ensurepip.
scripts/install-deps.sh --for "the client suites" dbus-daemon bluez
python=${PYTHON:-$(command -v python3 || true)}
usable() { [ -n "$1" ] && "$1" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; }
if ! usable "$python"; then
    scripts/install-deps.sh --for "the client suites" python3 python3-venv
    python=/usr/bin/python3
    usable "$python" || { echo "client suites: $python is not Python 3.11 or later with venv" >&2; exit 69; }
fi

venv=.build/clients-venv
stamp=$venv/requirements.sha256
wanted=$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
    echo "client suites: installing $here/requirements.txt into $venv" >&2
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q -r "$here/requirements.txt"
    echo "$wanted" > "$stamp"
fi

"$swift" build --product dfu
"$swift" build --product dfu-sim
DFU_BUILD_DIR=$("$swift" build --show-bin-path)
export DFU_BUILD_DIR

export PYTHONDONTWRITEBYTECODE=1
status=0
"$venv/bin/python" -m pytest -c "$here/pytest.ini" --rootdir "$here" -p no:cacheprovider "$here" "$@" || status=$?
if [ "$status" -eq 5 ]; then
    echo "client suites: pytest collected no test" >&2
    exit 1
fi
exit "$status"
