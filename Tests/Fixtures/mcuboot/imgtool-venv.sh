#!/usr/bin/env bash
# imgtool-venv.sh — MCUboot's imgtool (the version pinned in requirements.txt) in a venv under
# .build (MCUBOOT_VENV, default .build/mcuboot-venv), made again when requirements.txt changes.
# Used by make-mcuboot-fixtures.sh and by `make test-unit`, whose imgtool tests
# (Tests/DFUCommandTests/ImgtoolLiveTests.swift) run only when the venv is there.
#   Tests/Fixtures/mcuboot/imgtool-venv.sh        prints the venv's imgtool path
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
venv=$("$ROOT/scripts/python-venv.sh" "$HERE/requirements.txt" "${MCUBOOT_VENV:-$ROOT/.build/mcuboot-venv}" \
    "the imgtool tests")
echo "$venv/bin/imgtool"
