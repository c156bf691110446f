#!/usr/bin/env bash
# make-samples.sh — rebuild every sample and test-fixture DFU package of `dfu`.
#
# What it writes (all paths relative to the package root):
#   firmware-samples/*.zip            small packages for the README and demos
#   Tests/Fixtures/keys/*.pem          signing keys (TEST ONLY; made once, kept)
#   Tests/Fixtures/hex/*.hex           the Intel HEX inputs of the hex packages
#   Tests/Fixtures/packages/*.zip      valid packages for tests
#   Tests/Fixtures/packages/expected.json  independently computed facts
#   Tests/Fixtures/bad/*               one broken input per file
#
# Tools (each in its own venv, outside the repository; see firmware-samples/README.md):
#   NRFUTIL           Nordic nrfutil 6.1.7 (Secure packages)      default: nrfutil
#   ADAFRUIT_NRFUTIL  adafruit-nrfutil 0.5.3.post16 (Legacy)       default: adafruit-nrfutil
#   PYTHON            any Python >= 3.9 with only the standard library,
#                     plus the openssl CLI for signature checks    default: python3
#
# Determinism: every firmware image comes from tools/synth_image.py with a fixed
# seed, so the .bin entries (and the .hex inputs) are byte-identical on every run.
# The zip containers are not: both generators stamp file times, and nrfutil
# signs with a random ECDSA nonce, so a re-run changes the zip bytes, the signed
# .dat files and therefore expected.json (which is recomputed from the outputs).
# The keys are made only when absent, so signatures always verify with the
# committed public keys.
#
# Usage: firmware-samples/make-samples.sh
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
NRFUTIL=${NRFUTIL:-nrfutil}
ADAFRUIT_NRFUTIL=${ADAFRUIT_NRFUTIL:-adafruit-nrfutil}
PYTHON=${PYTHON:-python3}

SAMPLES=$HERE
FIXTURES=$ROOT/Tests/Fixtures
KEYS=$FIXTURES/keys
HEXES=$FIXTURES/hex
PACKAGES=$FIXTURES/packages
BAD=$FIXTURES/bad

# --- tool check -------------------------------------------------------------
nrfutil_version=$("$NRFUTIL" version | sed -n 's/^nrfutil version //p')
adafruit_version=$("$ADAFRUIT_NRFUTIL" version | sed -n 's/^adafruit-nrfutil version //p')
if [[ $nrfutil_version != "6.1.7" ]]; then
    echo "need nrfutil 6.1.7, found '$nrfutil_version'" >&2; exit 1
fi
if [[ $adafruit_version != "0.5.3.post16" ]]; then
    echo "need adafruit-nrfutil 0.5.3.post16, found '$adafruit_version'" >&2; exit 1
fi
command -v openssl >/dev/null || { echo "need the openssl CLI" >&2; exit 1; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
IN=$WORK/in          # generator inputs; commands run here so names stay short
OUT=$WORK/out        # generator outputs before they are moved into place
mkdir -p "$IN" "$OUT" "$KEYS" "$HEXES" "$PACKAGES" "$BAD"
# The log, in the order things happen (inputs are rewritten under the same name):
#   input <TAB> file <TAB> bin|hex <TAB> seed <TAB> size, or ADDR:SIZE regions
#   package <TAB> path of the zip <TAB> tool <TAB> argv...
LOG=$WORK/log.tsv
: >"$LOG"

# synth_bin NAME SIZE SEED — a synthetic .bin input.
synth_bin() {
    "$PYTHON" "$HERE/tools/synth_image.py" bin "$IN/$1" "$2" "$3"
    printf 'input\t%s\tbin\t%s\t%s\n' "$1" "$3" "$2" >>"$LOG"
}

# synth_hex NAME SEED REGION... — a synthetic Intel HEX input (REGION = ADDR:SIZE).
synth_hex() {
    local name=$1 seed=$2; shift 2
    "$PYTHON" "$HERE/tools/synth_image.py" hex "$IN/$name" "$seed" "$@"
    printf 'input\t%s\thex\t%s\t%s\n' "$name" "$seed" "$*" >>"$LOG"
}

# record PATH TOOL ARG... — remember how the package at PATH was made (for expected.json).
record() {
    local path=$1 tool=$2; shift 2
    { printf 'package\t%s\t%s' "$path" "$tool"; printf '\t%s' "$@"; printf '\n'; } >>"$LOG"
}

# secure DEST_DIR PACKAGE ARG... — nrfutil pkg generate, run inside $IN.
secure() {
    local dest=$1 package=$2; shift 2
    (cd "$IN" && "$NRFUTIL" pkg generate "$@" "$OUT/$package" >"$WORK/last.log" 2>&1) \
        || { cat "$WORK/last.log" >&2; exit 1; }
    mv "$OUT/$package" "$dest/$package"
    record "$dest/$package" "nrfutil $nrfutil_version" pkg generate "$@" "$package"
}

# legacy DEST_DIR PACKAGE ARG... — adafruit-nrfutil dfu genpkg, run inside $IN.
legacy() {
    local dest=$1 package=$2; shift 2
    (cd "$IN" && "$ADAFRUIT_NRFUTIL" dfu genpkg "$@" "$OUT/$package" >"$WORK/last.log" 2>&1) \
        || { cat "$WORK/last.log" >&2; exit 1; }
    mv "$OUT/$package" "$dest/$package"
    record "$dest/$package" "adafruit-nrfutil $adafruit_version" dfu genpkg "$@" "$package"
}

# --- keys (TEST ONLY) ---------------------------------------------------------
# Made once with nrfutil and then kept: re-running must not change them.
for key in test other; do
    if [[ ! -f $KEYS/$key-private.pem ]]; then
        "$NRFUTIL" keys generate "$KEYS/$key-private.pem" >/dev/null
    fi
    "$NRFUTIL" keys display --key pk --format pem "$KEYS/$key-private.pem" >"$KEYS/$key-public.pem"
done
cp "$KEYS/test-private.pem" "$IN/test-private.pem"
cp "$KEYS/other-private.pem" "$IN/other-private.pem"

# Common init-packet values. 0xB7 = s132 6.1.1, the SoftDevice "on the device";
# 0x0101 = s132 7.2.0, the SoftDevice a package brings along (--sd-id).
HW=(--hw-version 52)
SDREQ=(--sd-req 0xB7)
KEY=(--key-file test-private.pem)

# --- firmware-samples/ (README and demos) -------------------------------------
synth_bin app.bin 20480 1001
synth_bin softdevice.bin 102400 1002
synth_bin bootloader.bin 24576 1003
secure "$SAMPLES" secure-app.zip \
    --application app.bin --application-version 1 "${HW[@]}" "${SDREQ[@]}" "${KEY[@]}"
secure "$SAMPLES" secure-sd-bl-app.zip \
    --softdevice softdevice.bin --bootloader bootloader.bin --bootloader-version 2 \
    --application app.bin --application-version 1 "${HW[@]}" "${SDREQ[@]}" --sd-id 0x0101 "${KEY[@]}"
legacy "$SAMPLES" legacy-app.zip --application app.bin --dev-type 0x0052 --sd-req 0x0088
rm -f "$IN"/*.bin

# --- Tests/Fixtures/packages/: Secure -----------------------------------------
# Application only, around the 4096-byte data object. nrfutil pads every image
# to a whole 4-byte word with 0xFF, so 4095 -> 4096 and 4097 -> 4100 bytes.
for size in 1024 4095 4096 4097 512000; do
    synth_bin "app_$size.bin" "$size" "$size"
    secure "$PACKAGES" "secure-app-$size.zip" \
        --application "app_$size.bin" --application-version 1 "${HW[@]}" "${SDREQ[@]}" "${KEY[@]}"
done
secure "$PACKAGES" secure-app-4096-unsigned.zip \
    --application app_4096.bin --application-version 1 "${HW[@]}" "${SDREQ[@]}"
secure "$PACKAGES" secure-app-1024-unsigned.zip \
    --application app_1024.bin --application-version 1 "${HW[@]}" "${SDREQ[@]}"
# The same 1024-byte image with the rarer init-packet fields set.
secure "$PACKAGES" secure-app-1024-boot-validation.zip \
    --application app_1024.bin --application-version 7 "${HW[@]}" --sd-req 0xB7,0x0101 \
    --app-boot-validation VALIDATE_ECDSA_P256_SHA256 "${KEY[@]}"
secure "$PACKAGES" secure-app-1024-debug.zip \
    --application app_1024.bin --application-version 3 "${HW[@]}" "${SDREQ[@]}" --debug-mode "${KEY[@]}"
secure "$PACKAGES" secure-app-1024-external.zip \
    --application app_1024.bin --application-version 4 "${HW[@]}" "${SDREQ[@]}" --external-app "${KEY[@]}"

# System parts: small images whose sizes are words but not pages.
synth_bin softdevice.bin 12300 2001
synth_bin bootloader.bin 5000 2002
synth_bin app.bin 3000 2003
secure "$PACKAGES" secure-bl.zip \
    --bootloader bootloader.bin --bootloader-version 2 "${HW[@]}" "${SDREQ[@]}" "${KEY[@]}"
secure "$PACKAGES" secure-sd.zip \
    --softdevice softdevice.bin "${HW[@]}" "${SDREQ[@]}" "${KEY[@]}"
secure "$PACKAGES" secure-sd-bl.zip \
    --softdevice softdevice.bin --bootloader bootloader.bin --bootloader-version 2 \
    "${HW[@]}" "${SDREQ[@]}" "${KEY[@]}"
secure "$PACKAGES" secure-sd-bl-app.zip \
    --softdevice softdevice.bin --bootloader bootloader.bin --bootloader-version 2 \
    --application app.bin --application-version 1 "${HW[@]}" "${SDREQ[@]}" --sd-id 0x0101 "${KEY[@]}"
secure "$PACKAGES" secure-sd-app.zip \
    --softdevice softdevice.bin --application app.bin --application-version 1 \
    "${HW[@]}" "${SDREQ[@]}" --sd-id 0x0101 "${KEY[@]}"

# From Intel HEX. The app lies at 0x26000 and ends 2 bytes into the next 64 KiB
# segment (two type-04 records; 40962 -> 40964 bytes after word padding).
# The SoftDevice hex also holds an MBR at 0x0-0xFFF, and the bootloader hex a
# UICR word at 0x10001014: nrfutil drops both when it converts.
synth_hex app.hex 3001 0x26000:40962
synth_hex softdevice.hex 3002 0x0:0x1000 0x1000:12288
synth_hex bootloader.hex 3003 0x78000:5000 0x10001014:4
cp "$IN/app.hex" "$IN/softdevice.hex" "$IN/bootloader.hex" "$HEXES/"
secure "$PACKAGES" secure-app-hex.zip \
    --application app.hex --application-version 1 "${HW[@]}" "${SDREQ[@]}" "${KEY[@]}"
secure "$PACKAGES" secure-sd-bl-app-hex.zip \
    --softdevice softdevice.hex --bootloader bootloader.hex --bootloader-version 2 \
    --application app.hex --application-version 1 "${HW[@]}" "${SDREQ[@]}" --sd-id 0x0101 "${KEY[@]}"

# The same package with every entry deflated instead of stored (both generators
# store): made by Python's zipfile, entries and order unchanged.
"$PYTHON" - "$PACKAGES/secure-app-4096.zip" "$PACKAGES/secure-app-4096-deflated.zip" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as src, zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as dst:
    for info in src.infolist():
        fresh = zipfile.ZipInfo(info.filename, date_time=info.date_time)
        fresh.compress_type, fresh.external_attr = zipfile.ZIP_DEFLATED, info.external_attr
        dst.writestr(fresh, src.read(info))
PY
printf 'package\t%s\tpython3 zipfile\trepack\tsecure-app-4096.zip\t--deflate\n' "$PACKAGES/secure-app-4096-deflated.zip" >>"$LOG"

# --- Tests/Fixtures/packages/: Legacy -----------------------------------------
legacy "$PACKAGES" legacy-app.zip --application app.bin
legacy "$PACKAGES" legacy-app-versions.zip --application app.bin \
    --application-version 5 --dev-type 0x0052 --dev-revision 3 --sd-req 0x0088,0x0081
legacy "$PACKAGES" legacy-app-dfu-0.6.zip --application app.bin --dfu-ver 0.6
# Not made: --dfu-ver 0.7 (SHA-256 init packet) and 0.8 / --key-file (signed)
# crash adafruit-nrfutil 0.5.3.post16 under Python 3 (bytes put into the JSON
# manifest; Python 2 str.encode('hex') in its signing code).
legacy "$PACKAGES" legacy-bl.zip --bootloader bootloader.bin
legacy "$PACKAGES" legacy-sd.zip --softdevice softdevice.bin
legacy "$PACKAGES" legacy-sd-bl.zip --softdevice softdevice.bin --bootloader bootloader.bin
legacy "$PACKAGES" legacy-sd-bl-app.zip \
    --softdevice softdevice.bin --bootloader bootloader.bin --application app.bin

# --- Tests/Fixtures/bad/ --------------------------------------------------------
# The one bad package a generator makes: signed with the other key.
secure "$BAD" signed-with-other-key.zip \
    --application app.bin --application-version 1 "${HW[@]}" "${SDREQ[@]}" --key-file other-private.pem
# The rest are cut or rewritten from the packages above by plain Python.
"$PYTHON" "$HERE/tools/make_bad_fixtures.py" "$PACKAGES" "$BAD" "$KEYS"

# --- expected.json ------------------------------------------------------------
"$PYTHON" "$HERE/tools/make_expected.py" "$LOG" "$KEYS" "$HEXES" "$PACKAGES" "$PACKAGES/expected.json" "$PACKAGES/README.md"
"$PYTHON" "$HERE/tools/make_expected.py" "$LOG" "$KEYS" "$HEXES" "$SAMPLES" "$SAMPLES/expected.json"

echo "done:"
(cd "$ROOT" && ls -l firmware-samples/*.zip Tests/Fixtures/packages Tests/Fixtures/bad | sed 's/^/  /')
