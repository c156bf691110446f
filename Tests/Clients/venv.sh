#!/usr/bin/env bash
# The client suites' venv (.build/clients-venv) with the pinned packages of requirements.txt, made
# again whenever that file changes; prints the venv's directory. Used by run.sh and by `make bench`
# (smpmgr for the SMP figure).
#   Tests/Clients/venv.sh
# Installs Debian's python3 and python3-venv through scripts/install-deps.sh when `python3` is not
# Python 3.11 or later with venv.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=Tests/Clients
python=${PYTHON:-$(command -v python3 || true)}
usable() { [ -n "$1" ] && "$1" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; }
if ! usable "$python"; then
    scripts/install-deps.sh --for "the client suites" python3 python3-venv >&2
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
    "$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q -r "$here/requirements.txt" >&2
    echo "$wanted" > "$stamp"
fi
echo "$PWD/$venv"
