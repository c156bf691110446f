#!/usr/bin/env bash
# make-nrfutil-fixtures.sh — what nrfutil 6.1.7 makes, for `dfu pkg generate` and `dfu keys display`
# to be compared with (Tests/DFUCommandTests/PkgGenerateFixtureTests.swift).
#
# Writes Tests/Fixtures/nrfutil/:
#   inputs/                     small synthetic images (.bin and Intel HEX), made here
#   cases.tsv                   name <TAB> outcome <TAB> argument... for every `pkg generate` run;
#                               outcome is `ok` or `refused N` (nrfutil's exit status)
#   packages/NAME.zip           nrfutil's package for every `ok` case
#   keys/*.txt                  `nrfutil keys display` of Tests/Fixtures/keys/test-private.pem
#
# Legacy packages (`legacy-*` cases, `--dfu-ver`) are made by adafruit-nrfutil 0.5.3.post16's
# `dfu genpkg` with the same arguments.
#
# nrfutil 6.1.7 needs Python <= 3.10 (its BLE driver wheel); it and adafruit-nrfutil are installed
# into two venvs under .build (both install a `nordicsemi` package, so they cannot share one;
# PYTHON310 names the interpreter; default python3.10). nrfutil zips its temporary folder
# in directory-listing order, so the runs use a tmpfs TMPDIR (/dev/shm), whose listing is the
# reverse order of creation; on ext4 the order follows a per-file-system name hash instead.
# Signed packages differ on every run (ECDSA takes a random nonce); everything else is stable.
#
# Usage: Tests/Fixtures/make-nrfutil-fixtures.sh
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=$HERE/nrfutil
VENV=${NRFUTIL_VENV:-$ROOT/.build/nrfutil-6.1.7-venv}
PYTHON310=${PYTHON310:-python3.10}
SYNTH=$ROOT/firmware-samples/tools/synth_image.py
TMPFS=${TMPFS:-/dev/shm}

if [[ ! -x $VENV/bin/nrfutil ]]; then
    "$PYTHON310" -m venv "$VENV"
    "$VENV/bin/pip" install -q nrfutil==6.1.7
fi
NRFUTIL=$VENV/bin/nrfutil
ADAFRUIT_VENV=${ADAFRUIT_VENV:-$ROOT/.build/adafruit-nrfutil-0.5.3.post16-venv}
if [[ ! -x $ADAFRUIT_VENV/bin/adafruit-nrfutil ]]; then
    "$PYTHON310" -m venv "$ADAFRUIT_VENV"
    "$ADAFRUIT_VENV/bin/pip" install -q adafruit-nrfutil==0.5.3.post16
fi
ADAFRUIT=$ADAFRUIT_VENV/bin/adafruit-nrfutil
[[ $("$ADAFRUIT" version) == "adafruit-nrfutil version 0.5.3.post16" ]] || { echo "need adafruit-nrfutil 0.5.3.post16" >&2; exit 1; }
[[ $("$NRFUTIL" version) == "nrfutil version 6.1.7" ]] || { echo "need nrfutil 6.1.7" >&2; exit 1; }
[[ $(stat -f -c %T "$TMPFS") == tmpfs ]] || { echo "$TMPFS is not a tmpfs (set TMPFS)" >&2; exit 1; }

rm -rf "$OUT"
mkdir -p "$OUT/inputs" "$OUT/packages" "$OUT/keys"
IN=$OUT/inputs
cp "$HERE/keys/test-private.pem" "$IN/test-private.pem"

# --- inputs ---------------------------------------------------------------------
python3 "$SYNTH" bin "$IN/app.bin" 3000 4001
python3 "$SYNTH" bin "$IN/app_4097.bin" 4097 4002         # padded to 4100
python3 "$SYNTH" bin "$IN/bootloader.bin" 2500 4003
python3 "$SYNTH" bin "$IN/softdevice.bin" 6000 4004
python3 "$SYNTH" hex "$IN/app.hex" 4005 0x26000:2000 0x26900:35 0x27FF0:18   # a gap, a 64 KiB boundary
python3 "$SYNTH" hex "$IN/bootloader.hex" 4006 0x78000:1500 0x10001014:4     # UICR word dropped
python3 "$SYNTH" hex "$IN/softdevice.hex" 4007 0x0:0x100 0x1000:5000         # MBR page dropped
# An s132-like SoftDevice: its info structure magic 0x51B1E5DB at 0x4004, so the image starts at 0x3000.
python3 - "$IN/s132.hex" <<'PY'
import random, sys
rng = random.Random(4008)
data = {a: rng.randrange(256) for a in range(0x1000, 0x5000)}
for i, b in enumerate((0xDB, 0xE5, 0xB1, 0x51)):
    data[0x4004 + i] = b
lines, upper = [], None
for start in range(0x1000, 0x5000, 16):
    if start >> 16 != upper:
        upper = start >> 16
        rec = [2, 0, 0, 4, upper >> 8, upper & 0xFF]
        lines.append(":" + bytes(rec + [(-sum(rec)) & 0xFF]).hex().upper())
    chunk = [data[a] for a in range(start, start + 16)]
    rec = [16, (start >> 8) & 0xFF, start & 0xFF, 0] + chunk
    lines.append(":" + bytes(rec + [(-sum(rec)) & 0xFF]).hex().upper())
lines.append(":00000001FF")
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY

# --- cases ------------------------------------------------------------------------
# name | arguments (no argument contains a space)
CASES=(
"app-bin|--application app.bin --application-version 1 --hw-version 52 --sd-req 0xB7"
"app-hex|--application app.hex --application-version 1 --hw-version 52 --sd-req 0xB7"
"app-padded|--application app_4097.bin --application-version 1 --hw-version 52 --sd-req 0xB7"
"app-version-string|--application app.bin --application-version-string 1.2.3 --hw-version 52 --sd-req 0xB7"
"app-version-string-wins|--application app.bin --application-version 9 --application-version-string 10.20.30 --hw-version 52 --sd-req 0xB7"
"app-numbers|--application app.bin --application-version 0x10 --hw-version 064 --sd-req 183,0x0101"
"app-sd-req-set-order|--application app.bin --application-version 1 --hw-version 52 --sd-req 0xB7,0x101,0xAF,0xA8,0x0F,0xB7"
"app-sd-id|--application app.bin --application-version 1 --hw-version 52 --sd-req 0xB7 --sd-id 0x101,0x100"
"app-external|--application app.bin --application-version 1 --hw-version 52 --external-app"
"app-external-sd-req|--application app.bin --application-version 1 --hw-version 52 --sd-req 0xB7 --external-app"
"app-debug|--application app.bin --debug-mode"
"app-debug-versions|--application app.bin --application-version 5 --hw-version 52 --sd-req 0xB7 --debug-mode"
"app-sha256|--application app.bin --application-version 1 --hw-version 52 --sd-req 0xB7 --app-boot-validation VALIDATE_GENERATED_SHA256"
"app-no-validation|--application app.bin --application-version 1 --hw-version 52 --sd-req 0xB7 --app-boot-validation NO_VALIDATION"
"bl-bin|--bootloader bootloader.bin --bootloader-version 2 --hw-version 52 --sd-req 0xB7"
"bl-hex|--bootloader bootloader.hex --bootloader-version 2 --hw-version 52 --sd-req 0xB7"
"sd-bin|--softdevice softdevice.bin --hw-version 52 --sd-req 0xB7"
"sd-hex|--softdevice softdevice.hex --hw-version 52 --sd-req 0xB7 --sd-boot-validation VALIDATE_GENERATED_SHA256"
"sd-s132-hex|--softdevice s132.hex --hw-version 52 --sd-req 0xB7"
"sd-bl|--softdevice softdevice.bin --bootloader bootloader.bin --bootloader-version 2 --hw-version 52 --sd-req 0xB7"
"sd-bl-hex|--softdevice softdevice.hex --bootloader bootloader.hex --bootloader-version 3 --hw-version 52 --sd-req 0xB7,0xAF"
"sd-bl-app|--softdevice softdevice.bin --bootloader bootloader.bin --bootloader-version 2 --application app.bin --application-version 1 --hw-version 52 --sd-req 0xB7 --sd-id 0x0101"
"sd-bl-app-hex|--softdevice softdevice.hex --bootloader bootloader.hex --bootloader-version 2 --application app.hex --application-version 1 --hw-version 52 --sd-req 0xB7 --sd-id 0x0101"
"sd-app|--softdevice softdevice.bin --application app.bin --application-version 1 --hw-version 52 --sd-req 0xB7,0xAF --sd-id 0x101,0xB7,0x100"
"sd-bl-app-sd-validation|--softdevice softdevice.bin --bootloader bootloader.bin --bootloader-version 2 --application app.bin --application-version 1 --hw-version 52 --sd-req 0xB7 --sd-id 0x0101 --sd-boot-validation NO_VALIDATION --app-boot-validation VALIDATE_GENERATED_SHA256"
"signed-app|--application app.bin --application-version 1 --hw-version 52 --sd-req 0xB7 --key-file test-private.pem"
"signed-sd-bl-app|--softdevice softdevice.bin --bootloader bootloader.bin --bootloader-version 2 --application app.bin --application-version 1 --hw-version 52 --sd-req 0xB7 --sd-id 0x0101 --key-file test-private.pem"
"signed-app-ecdsa-validation|--application app.bin --application-version 1 --hw-version 52 --sd-req 0xB7 --app-boot-validation VALIDATE_ECDSA_P256_SHA256 --key-file test-private.pem"
"signed-sd-bl-ecdsa-validation|--softdevice softdevice.hex --bootloader bootloader.hex --bootloader-version 2 --hw-version 52 --sd-req 0xB7 --sd-boot-validation VALIDATE_ECDSA_P256_SHA256 --key-file test-private.pem"
"refuse-bl-app|--bootloader bootloader.bin --bootloader-version 2 --application app.bin --application-version 1 --hw-version 52 --sd-req 0xB7"
"refuse-no-hw-version|--application app.bin --application-version 1 --sd-req 0xB7"
"refuse-no-sd-req|--application app.bin --application-version 1 --hw-version 52"
"refuse-no-app-version|--application app.bin --hw-version 52 --sd-req 0xB7"
"refuse-no-bl-version|--bootloader bootloader.bin --hw-version 52 --sd-req 0xB7"
"refuse-sd-app-no-sd-id|--softdevice softdevice.bin --application app.bin --application-version 1 --hw-version 52 --sd-req 0xB7"
"refuse-external-no-app|--softdevice softdevice.bin --hw-version 52 --sd-req 0xB7 --external-app"
"refuse-external-with-sd|--softdevice softdevice.bin --bootloader bootloader.bin --bootloader-version 2 --application app.bin --application-version 1 --hw-version 52 --sd-req 0xB7 --sd-id 0x101 --external-app"
"refuse-app-version-no-app|--bootloader bootloader.bin --bootloader-version 2 --application-version 1 --hw-version 52 --sd-req 0xB7"
"refuse-bl-version-no-bl|--application app.bin --application-version 1 --bootloader-version 2 --hw-version 52 --sd-req 0xB7"
"refuse-bad-sd-req|--application app.bin --application-version 1 --hw-version 52 --sd-req 0xZZ"
"refuse-bad-version-string|--application app.bin --application-version-string 1.2 --hw-version 52 --sd-req 0xB7"
"refuse-bad-hw-version|--application app.bin --application-version 1 --hw-version 5x --sd-req 0xB7"
"refuse-bad-validation|--application app.bin --application-version 1 --hw-version 52 --sd-req 0xB7 --app-boot-validation CRC"
"refuse-ecdsa-validation-no-key|--application app.bin --application-version 1 --hw-version 52 --sd-req 0xB7 --app-boot-validation VALIDATE_ECDSA_P256_SHA256"
"refuse-version-too-large|--application app.bin --application-version 0x100000000 --hw-version 52 --sd-req 0xB7"
"refuse-two-sd-req|--application app.bin --application-version 1 --hw-version 52 --sd-req 0xB7 --sd-req 0xAF"
"legacy-app|--dfu-ver 0.5 --application app.bin"
"legacy-app-0.6|--dfu-ver 0.6 --application app.bin"
"legacy-app-fields|--dfu-ver 0.5 --application app.bin --application-version 5 --dev-type 0x0052 --dev-revision 3 --sd-req 0x0088,0x0081,0x0088"
"legacy-app-none|--dfu-ver 0.6 --application app_4097.bin --application-version none --dev-type none --dev-revision none --sd-req none"
"legacy-app-hex|--dfu-ver 0.5 --application app.hex --sd-req 0x0088"
"legacy-bl-app|--dfu-ver 0.5 --bootloader bootloader.bin --application app.bin"
"legacy-sd|--dfu-ver 0.5 --softdevice softdevice.hex"
"legacy-sd-bl|--dfu-ver 0.6 --softdevice softdevice.bin --bootloader bootloader.hex"
"legacy-sd-bl-app|--dfu-ver 0.5 --softdevice softdevice.hex --bootloader bootloader.hex --application app.hex --dev-type 0x0052"
)

: >"$OUT/cases.tsv"
for case in "${CASES[@]}"; do
    name=${case%%|*}
    read -r -a args <<<"${case#*|}"
    set +e
    if [[ $name == legacy-* ]]; then tool=("$ADAFRUIT" dfu genpkg); else tool=("$NRFUTIL" pkg generate); fi
    (cd "$IN" && TMPDIR=$TMPFS "${tool[@]}" "${args[@]}" "$OUT/packages/$name.zip" >"$OUT/last.log" 2>&1)
    status=$?
    set -e
    if [[ $status == 0 ]]; then outcome=ok; else outcome="refused $status"; rm -f "$OUT/packages/$name.zip"; fi
    if [[ $name == refuse-* && $outcome == ok ]] || [[ $name != refuse-* && $outcome != ok ]]; then
        cat "$OUT/last.log" >&2; echo "$name: nrfutil did not do what the case name says ($outcome)" >&2; exit 1
    fi
    { printf '%s\t%s' "$name" "$outcome"; printf '\t%s' "${args[@]}"; printf '\n'; } >>"$OUT/cases.tsv"
done
rm -f "$OUT/last.log" "$IN/test-private.pem"

# --- keys display -------------------------------------------------------------------
KEY=$HERE/keys/test-private.pem
for k in pk sk; do
    for f in hex pem; do "$NRFUTIL" keys display --key $k --format $f "$KEY" >"$OUT/keys/$k-$f.txt"; done
done
"$NRFUTIL" keys display --key pk --format code "$KEY" >"$OUT/keys/pk-code.txt"

echo "wrote $(grep -c . "$OUT/cases.tsv") cases to $OUT"
