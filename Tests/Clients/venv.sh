#!/usr/bin/env bash
# The client suites' venv (.build/clients-venv) with the pinned packages of requirements.txt, made
# again whenever that file changes; prints the venv's directory. Used by run.sh and by `make bench`
# (smpmgr for the SMP figure).
#   Tests/Clients/venv.sh
# scripts/python-venv.sh installs Debian's python3 and python3-venv when `python3` is not Python
# 3.11 or later with venv.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/python-venv.sh Tests/Clients/requirements.txt .build/clients-venv "client suites"
