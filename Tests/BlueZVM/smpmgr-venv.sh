#!/usr/bin/env bash
# smpmgr-venv.sh — smpmgr (the versions pinned in smpmgr-requirements.txt) in a venv under .build
# (SMPMGR_VENV, default .build/smpmgr-venv), made again when the requirements change. The VM guest
# runs it from there (it sees the host's files), so `make test-bluez` makes it before booting.
#   Tests/BlueZVM/smpmgr-venv.sh        prints the venv's python path
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
venv=$("$ROOT/scripts/python-venv.sh" "$HERE/smpmgr-requirements.txt" "${SMPMGR_VENV:-$ROOT/.build/smpmgr-venv}" \
    "smpmgr in the BlueZ VM")
echo "$venv/bin/python"
