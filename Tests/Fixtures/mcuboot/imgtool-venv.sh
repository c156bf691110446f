#!/usr/bin/env bash
# imgtool-venv.sh — MCUboot's imgtool (the version pinned in requirements.txt) in a venv under
# .build (MCUBOOT_VENV, default .build/mcuboot-venv), made again when requirements.txt changes.
# Used by make-mcuboot-fixtures.sh and by `make test-unit`, whose imgtool tests
# (Tests/DFUCommandTests/ImgtoolLiveTests.swift) run only when the venv is there.
#   Tests/Fixtures/mcuboot/imgtool-venv.sh        prints the venv's imgtool path
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
VENV=${MCUBOOT_VENV:-$ROOT/.build/mcuboot-venv}
stamp=$VENV/requirements.sha256
wanted=$(sha256sum "$HERE/requirements.txt" | cut -d' ' -f1)
if [[ ! -x $VENV/bin/imgtool ]] || [[ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]]; then
    python=${PYTHON:-$(command -v python3 || true)}
    usable() { [ -n "$1" ] && "$1" -c 'import venv, ensurepip' 2>/dev/null; }
    if ! usable "$python"; then
        "$ROOT/scripts/install-deps.sh" --for "the imgtool tests" python3 python3-venv
        python=/usr/bin/python3
    fi
    echo "imgtool: installing $HERE/requirements.txt into $VENV" >&2
    rm -rf "$VENV"
    "$python" -m venv "$VENV"
    "$VENV/bin/pip" install --disable-pip-version-check --no-input -q -r "$HERE/requirements.txt"
    echo "$wanted" > "$stamp"
fi
echo "$VENV/bin/imgtool"
