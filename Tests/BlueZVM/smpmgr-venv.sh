#!/usr/bin/env bash
# smpmgr-venv.sh — smpmgr (the versions pinned in smpmgr-requirements.txt) in a venv under .build
# (SMPMGR_VENV, default .build/smpmgr-venv), made again when the requirements change. The VM guest
# runs it from there (it sees the host's files), so `make test-bluez` makes it before booting.
#   Tests/BlueZVM/smpmgr-venv.sh        prints the venv's python path
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
VENV=${SMPMGR_VENV:-$ROOT/.build/smpmgr-venv}
requirements=$HERE/smpmgr-requirements.txt
stamp=$VENV/requirements.sha256
wanted=$(sha256sum "$requirements" | cut -d' ' -f1)
if [[ ! -x $VENV/bin/smpmgr ]] || [[ "$(cat "$stamp" 2> /dev/null)" != "$wanted" ]]; then
    python=${PYTHON:-$(command -v python3 || true)}
    usable() { [ -n "$1" ] && "$1" -c 'import venv, ensurepip' 2> /dev/null; }
    if ! usable "$python"; then
        "$ROOT/scripts/install-deps.sh" --for "smpmgr in the BlueZ VM" python3 python3-venv
        python=/usr/bin/python3
    fi
    echo "smpmgr: installing $requirements into $VENV" >&2
    rm -rf "$VENV"
    "$python" -m venv "$VENV"
    "$VENV/bin/pip" install --disable-pip-version-check --no-input -q -r "$requirements"
    echo "$wanted" > "$stamp"
fi
echo "$VENV/bin/python"
