#!/usr/bin/env bash
# make-mcuboot-fixtures.sh — MCUboot images made by MCUboot's own imgtool (PyPI, the version pinned
# in requirements.txt), with the verdict `imgtool verify` gives each, for `dfu inspect` and the
# MCUboot reader to be compared with (Tests/DFUCoreTests/MCUbootFixtureTests.swift,
# Tests/DFUCommandTests/InspectMCUbootTests.swift).
#
# Writes Tests/Fixtures/mcuboot/:
#   keys/TYPE.pem, keys/TYPE.pub.pem   imgtool keygen / getpub --encoding pem (TEST ONLY), for
#                                      ecdsa-p256, ed25519, rsa-2048, rsa-3072
#   keys/TYPE.keyhash                  SHA-256 of `imgtool getpub --encoding raw` (the key bytes
#                                      MCUboot embeds and hashes), lowercase hex
#   images/*.bin, images/*.hex         imgtool sign outputs, and tampered/truncated copies of some
#   dfu_application.zip                two images (application core, network core) and a
#                                      manifest.json shaped as the nRF Connect SDK writes it
#                                      (scripts/bootloader/generate_zip.py, cmake/sysbuild/zip.cmake)
#   expected.tsv                       one row per (file, key) check: file, key (or -), imgtool's
#                                      verdict (OK, INVALID_HASH, INVALID_SIGNATURE, INVALID_MAGIC,
#                                      INVALID_TLV_INFO_MAGIC, KEY_MISMATCH, or CRASH when imgtool
#                                      ends with a Python exception), the version and digest
#                                      imgtool prints (or -)
#
# Members of the zip are verified by imgtool before they are zipped; their rows name them
# `dfu_application.zip/MEMBER`. Signatures (ECDSA, RSA-PSS) differ on every run; run the script
# again to replace every output together.
#
# Usage: Tests/Fixtures/mcuboot/make-mcuboot-fixtures.sh
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
IMGTOOL=$("$HERE/imgtool-venv.sh")
VENV=$(dirname "$(dirname "$IMGTOOL")")
PY=$VENV/bin/python

cd "$HERE"
rm -rf keys images work dfu_application.zip expected.tsv
mkdir -p keys images work

for type in ecdsa-p256 ed25519 rsa-2048 rsa-3072; do
    "$IMGTOOL" keygen -k "keys/$type.pem" -t "$type"
    "$IMGTOOL" getpub -k "keys/$type.pem" --encoding pem -o "keys/$type.pub.pem"
    "$IMGTOOL" getpub -k "keys/$type.pem" --encoding raw -o "work/$type.raw"
    sha256sum "work/$type.raw" | cut -d' ' -f1 > "keys/$type.keyhash"
done

# Keys whose images are checked without a key only (their hash TLVs are SHA384 and SHA512).
"$IMGTOOL" keygen -k work/ecdsa-p384.pem -t ecdsa-p384

# Synthetic bodies: a counter pattern, different per body so no two images share a hash.
body() { # NAME SIZE SEED
    "$PY" -c 'import sys; n, s = int(sys.argv[2]), int(sys.argv[3]); open(sys.argv[1], "wb").write(bytes((i * 7 + s) & 0xFF for i in range(n)))' "work/$1" "$2" "$3"
}
body app.bin 3000 1
body net.bin 1500 2
body small.bin 100 3

sign() { # OUT INPUT ARGS...
    local out=$1 input=$2
    shift 2
    "$IMGTOOL" sign "$@" "work/$input" "images/$out" >/dev/null
}
common=(--header-size 0x200 --pad-header --align 4 --slot-size 0x20000)
sign ecdsa-p256.bin app.bin "${common[@]}" --version 1.2.3+4 -k keys/ecdsa-p256.pem
sign ed25519.bin app.bin "${common[@]}" --version 2.0.0 -k keys/ed25519.pem
sign rsa-2048.bin app.bin "${common[@]}" --version 0.9.1+77 -k keys/rsa-2048.pem
sign rsa-3072.bin app.bin "${common[@]}" --version 3.1.4+159 -k keys/rsa-3072.pem
sign unsigned.bin small.bin "${common[@]}" --version 0.0.1
sign security-counter.bin app.bin "${common[@]}" --version 1.0.0 --security-counter 7 -k keys/ecdsa-p256.pem
sign boot-record.bin small.bin "${common[@]}" --version 1.1.0 --boot-record SPE --custom-tlv 0xa0 0x1234 -k keys/ed25519.pem
sign full-pubkey.bin small.bin "${common[@]}" --version 1.0.0 --public-key-format full -k keys/ecdsa-p256.pem
sign padded-confirmed.bin small.bin --header-size 0x200 --pad-header --align 4 --slot-size 0x2000 --version 1.0.1 --confirm -k keys/ecdsa-p256.pem
sign header-0x20.bin small.bin --header-size 0x20 --pad-header --align 8 --slot-size 0x4000 --version 255.255.65535+4294967295 --non-bootable -k keys/ed25519.pem
sign rom-fixed.bin small.bin "${common[@]}" --version 1.0.0 --rom-fixed 0x10000 -k keys/rsa-2048.pem
sign ecdsa-p384.bin small.bin "${common[@]}" --version 4.0.0 -k work/ecdsa-p384.pem
sign ed25519-sha512.bin small.bin "${common[@]}" --version 5.0.0 --sha 512 -k keys/ed25519.pem
sign encrypted.bin app.bin "${common[@]}" --version 1.0.0 -k keys/ecdsa-p256.pem -E keys/ecdsa-p256.pub.pem
# Intel HEX: imgtool writes the signed image at --hex-addr.
"$PY" -c 'from intelhex import IntelHex; h = IntelHex(); h.frombytes(open("work/app.bin", "rb").read(), 0); h.tofile("work/app.hex", "hex")'
"$IMGTOOL" sign "${common[@]}" --version 1.2.3 -k keys/ecdsa-p256.pem --hex-addr 0xc000 work/app.hex images/signed.hex >/dev/null

# Broken copies, each with one cause.
"$PY" - <<'EOF'
def load(name):
    return bytearray(open("images/" + name, "rb").read())
def save(name, data):
    open("images/" + name, "wb").write(bytes(data))
import struct
base = load("ecdsa-p256.bin")
hdr_size, prot, img_size = struct.unpack_from("<HHI", base, 8)
tlv = hdr_size + img_size + prot
# A body byte changed: the SHA-256 TLV no longer matches.
d = base[:]; d[hdr_size + 10] ^= 0x01; save("tampered-body.bin", d)
# A header byte changed (the version's build number): hashed too.
d = base[:]; d[24] ^= 0x01; save("tampered-header.bin", d)
# The last signature byte changed: the hash still matches, the signature does not.
d = base[:]; d[-1] ^= 0x01; save("tampered-signature.bin", d)
# Cut inside the TLV area, and inside the body.
save("truncated-tlv.bin", base[:tlv + 10])
save("truncated-body.bin", base[:hdr_size + 100])
# The image magic changed.
d = base[:]; d[0] ^= 0xFF; save("bad-magic.bin", d)
# The TLV info magic changed.
d = base[:]; d[tlv] ^= 0xFF; save("bad-tlv-magic.bin", d)
# The ed25519 image's signature made with another key's hash in front: key hash kept, signature replaced by zeros.
d = load("ed25519.bin"); d[-64:] = bytes(64); save("tampered-ed25519.bin", d)
# A body byte of the SHA384 and SHA512 images changed.
for name in ("ecdsa-p384.bin", "ed25519-sha512.bin"):
    d = load(name); d[0x200 + 5] ^= 0x01; save("tampered-" + name, d)
# A protected TLV (the security counter's value) changed: hashed, so the hash fails.
d = load("security-counter.bin")
hs, pr, isz = struct.unpack_from("<HHI", d, 8)
d[hs + isz + 4 + 4] ^= 0x01; save("tampered-protected-tlv.bin", d)
EOF

# The nRF Connect SDK zip: the application core's image 0 and the network core's image 1 (nRF5340),
# manifest.json last, as generate_zip.py writes it (values given as 0x… become integers).
sign app_update.bin app.bin "${common[@]}" --version 1.4.0+0 -k keys/ecdsa-p256.pem
sign net_core_app_update.bin net.bin "${common[@]}" --version 1.4.0+0 -k keys/ecdsa-p256.pem
mv images/app_update.bin images/net_core_app_update.bin work/
"$PY" - <<'EOF'
import json, os, zipfile
files = [
    {"type": "application", "board": "nrf5340dk/nrf5340/cpuapp", "soc": "nrf5340", "load_address": 0x10000,
     "image_index": "0", "slot_index_primary": "1", "slot_index_secondary": "2", "version_MCUBOOT": "1.4.0+0",
     "file": "app_update.bin"},
    {"type": "application", "board": "nrf5340dk/nrf5340/cpunet", "soc": "nrf5340", "load_address": 0x1008800,
     "image_index": "1", "slot_index_primary": "3", "slot_index_secondary": "4", "version": "1.4.0+0",
     "file": "net_core_app_update.bin"},
]
for f in files:
    f["size"] = os.path.getsize("work/" + f["file"])
    f["modtime"] = 1764547200
manifest = {"format-version": 1, "time": 1764547200, "name": "fixture", "files": files}
with zipfile.ZipFile("dfu_application.zip", "w") as z:
    for f in files:
        z.write("work/" + f["file"], f["file"])
    z.writestr("manifest.json", json.dumps(manifest, indent=4))
EOF

# imgtool's verdicts. imgtool verify prints one line for a refusal and exits 1; on some broken
# files it ends with a Python exception instead (recorded as CRASH).
verdict() { # FILE KEY|- [LABEL]
    local file=$1 key=$2 label=${3:-$1} out status
    local args=()
    [[ $key != - ]] && args=(-k "keys/$key.pub.pem")
    set +e
    out=$("$IMGTOOL" verify "${args[@]}" "$file" 2>&1)
    status=$?
    set -e
    local result version=- digest=-
    case "$out" in
        *"correctly validated"*) result=OK
            version=$(sed -n 's/^Image version: //p' <<<"$out")
            digest=$(sed -n 's/^Image digest: //p' <<<"$out") ;;
        *"invalid hash"*) result=INVALID_HASH ;;
        *"No signature found"*) result=INVALID_SIGNATURE ;;
        *"Invalid image magic"*) result=INVALID_MAGIC ;;
        *"Invalid TLV info magic"*) result=INVALID_TLV_INFO_MAGIC ;;
        *"Key type does not match"*) result=KEY_MISMATCH ;;
        *Traceback*|*Error*) result=CRASH ;;
        *) echo "mcuboot fixtures: imgtool verify $file: unexpected output (exit $status): $out" >&2; exit 1 ;;
    esac
    printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$key" "$result" "${version:--}" "${digest:--}" >> expected.tsv
}
printf 'file\tkey\timgtool\tversion\tdigest\n' > expected.tsv
keys=(ecdsa-p256 ed25519 rsa-2048 rsa-3072)
for f in images/*.bin images/*.hex; do
    verdict "$f" -
    for k in "${keys[@]}"; do verdict "$f" "$k"; done
done
for m in app_update.bin net_core_app_update.bin; do
    verdict "work/$m" - "dfu_application.zip/$m"
    verdict "work/$m" ecdsa-p256 "dfu_application.zip/$m"
done
rm -rf work
echo "mcuboot fixtures: $(($(wc -l < expected.tsv) - 1)) verdicts in $HERE/expected.tsv" >&2
