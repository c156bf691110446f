#!/usr/bin/env bash
# python-venv.sh REQUIREMENTS VENV PURPOSE — a venv at VENV with the pinned packages of REQUIREMENTS,
# made again whenever that file changes (its sha256 is kept in the venv); prints the venv's folder.
# Installs Debian's python3 and python3-venv through install-deps.sh (naming PURPOSE) when `python3`
# (or $PYTHON) is not Python 3.11 or later with venv; exits 69 if there is still none. pip's
# messages go to standard error. Used by the imgtool tests, the client suites and the VM's smpmgr.
set -euo pipefail
if [ $# -ne 3 ]; then
    echo "usage: $0 REQUIREMENTS VENV PURPOSE" >&2
    exit 64
fi
requirements=$1 venv=$2 purpose=$3
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usable() { [ -n "$1" ] && "$1" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))' 2> /dev/null; }
stamp=$venv/requirements.sha256
wanted=$(sha256sum "$requirements" | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2> /dev/null)" != "$wanted" ]; then
    python=${PYTHON:-$(command -v python3 || true)}
    if ! usable "$python"; then
        "$root/scripts/install-deps.sh" --for "$purpose" python3 python3-venv >&2
        python=/usr/bin/python3
        usable "$python" || { echo "$purpose: $python is not Python 3.11 or later with venv" >&2; exit 69; }
    fi
    echo "$purpose: installing $requirements into $venv" >&2
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q -r "$requirements" >&2
    echo "$wanted" > "$stamp"
fi
(cd "$venv" && pwd)
