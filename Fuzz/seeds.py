#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into a folder (default .build-fuzz/seeds/).

Sources: firmware-samples/*.zip, Tests/Fixtures/{packages,bad}/*.zip, Tests/Fixtures/hex/*.hex,
Tests/Fixtures/fuzz-regressions/<target>/*, and ../shared/nordic-samples when it is there.
From every zip it takes the zip itself (zip-archive, package), its manifest.json (manifest), its
.dat files (secure-init-packet, and legacy-init-packet behind a byte that picks the manifest's
dfu_version), its .hex files (intel-hex) and all its entries framed for package-entries.

Usage: Fuzz/seeds.py [OUT]
"""
import hashlib
import json
import os
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dbus_seeds  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build-fuzz", "seeds")
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "nordic-samples")
# The legacy-init-packet target's first byte: index into [none, 0.5, 0.6, 0.7, 0.8].
LEGACY_VERSIONS = {None: 0, 0.5: 1, 0.6: 2, 0.7: 3, 0.8: 4}
MARKER = b"\n#entry "
# Packages above this framed size are left out of package-entries (slow to mutate).
ENTRIES_CAP = 1 << 20

def write(target, data):
    folder = os.path.join(OUT, target)
    os.makedirs(folder, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(data)


def files(folder, suffixes):
    if not os.path.isdir(folder):
        return []
    found = []
    for base, _, names in os.walk(folder):
        for n in sorted(names):
            if n.lower().endswith(suffixes):
                found.append(os.path.join(base, n))
    return sorted(found)


def from_zip(path):
    data = open(path, "rb").read()
    write("zip-archive", data)
    write("package", data)
    try:
        z = zipfile.ZipFile(path)
        entries = {i.filename: z.read(i) for i in z.infolist() if not i.is_dir() and i.file_size < (16 << 20)}
    except Exception:
        return  # a bad zip is still a good seed for the zip targets
    version = None
    manifest = entries.get("manifest.json")
    if manifest is not None:
        write("manifest", manifest)
        try:
            version = json.loads(manifest).get("manifest", {}).get("dfu_version")
        except Exception:
            pass
    for name, body in entries.items():
        lower = name.lower()
        if lower.endswith(".dat"):
            write("secure-init-packet", body)
            write("legacy-init-packet", bytes([LEGACY_VERSIONS.get(version, 0)]) + body)
        elif lower.endswith(".hex"):
            write("intel-hex", body)
    framed = b"".join(MARKER + name.encode() + b"\n" + body for name, body in sorted(entries.items()))
    if len(framed) <= ENTRIES_CAP:
        write("package-entries", framed)


def conversations():
    """Device conversations for the protocol targets: a setup byte, then moves (see each target)."""
    for setup in (0x00, 0x01, 0x06, 0x13, 0x24, 0x32, 0x51, 0x77):
        # Secure (byte 1: the data object size): an honest device throughout; with a lost packet
        # and a timeout on the way; ending with a disconnect.
        for size_index in range(4):
            write("secure-dfu-responses", bytes([setup, size_index]) + bytes(400))
        write("secure-dfu-responses", bytes([setup, 1]) + bytes(30) + b"\x09" + bytes(30) + b"\x0c" + bytes(300))
        write("secure-dfu-responses", bytes([setup, 2]) + bytes(20) + b"\x0d")
        # Legacy: every request answered with success (status 1), receipts now and then.
        write("legacy-dfu-notifications", bytes([setup]) + b"\x0c" * 200)
        write("legacy-dfu-notifications", bytes([setup]) + b"\x0c\x07" * 100)
        write("legacy-dfu-notifications", bytes([setup]) + b"\x05\x01" * 40 + b"\x0b")
        # Buttonless: success to every request, or a refusal, or a disconnect.
        write("buttonless-responses", bytes([setup]) + b"\x04\x01\x04\x01")
        write("buttonless-responses", bytes([setup]) + b"\x04\x02\x08")
    # The notification decoders alone (the whole input is also decoded as one frame).
    write("secure-dfu-responses", bytes.fromhex("600601") + bytes.fromhex("00100000" "00000000" "00000000"))
    write("secure-dfu-responses", bytes.fromhex("60030b07"))
    write("legacy-dfu-notifications", bytes.fromhex("110c000000"))
    write("legacy-dfu-notifications", bytes.fromhex("0801"))
    # SMP responses (frame layout in zephyr doc/services/device_mgmt/smp_protocol.rst), cut into
    # 20-byte notifications (first byte 19 → pieces of 20), and their CBOR bodies alone.
    smp = [
        "0900001800000106" "a2" "686275665f73697a65" "1909ab" "696275665f636f756e74" "04",  # buf_size 2475, buf_count 4
        "0b00000600010701" "a1" "636f6666" "04",                                           # upload: {"off": 4}
        "0b00000f00010801" "a2" "636f6666" "1903e8" "656d61746368" "f5",                   # {"off": 1000, "match": true}
        "0b00001100010701" "a1" "63657272" "a2" "6567726f7570" "01" "627263" "09",         # {"err": {"group": 1, "rc": 9}}
        "0300000500010701" "a1" "627263" "06",                                             # SMP v1 {"rc": 6}
        "0900002600010400" "a1" "66696d61676573" "81" "a3" "64736c6f74" "00"
        "6776657273696f6e" "65312e322e33" "66616374697665" "f5",                           # images [{slot 0, "1.2.3", active}]
    ]
    for frame in smp:
        write("smp-frames", bytes([19]) + bytes.fromhex(frame))
        write("cbor", bytes.fromhex(frame)[8:])
    write("cbor", bytes.fromhex("9f01820203ff"))       # [_ 1, [2, 3]]
    write("cbor", bytes.fromhex("5f42010243030405ff"))  # (_ h'0102', h'030405')
    write("cbor", bytes.fromhex("f93c00"))              # half float 1.0
    # smp-machine: write length, ending, image sizes, image count, then one byte per await (see the target).
    write("smp-machine", bytes([230, 0, 2, 2, 0]) + bytes([4, 150, 3]) + bytes([4, 0, 0]) + bytes([5, 5]) * 20)
    write("smp-machine", bytes([20, 1, 1, 1, 1]) + bytes([4, 20, 2]) + bytes([0, 4, 4, 1, 6, 5]) * 10)


def main():
    zips = files(os.path.join(ROOT, "firmware-samples"), (".zip",))
    for sub in ("packages", "bad"):
        zips += files(os.path.join(ROOT, "Tests", "Fixtures", sub), (".zip",))
    zips += files(SHARED, (".zip",))
    for z in zips:
        from_zip(z)
    for h in files(os.path.join(ROOT, "Tests", "Fixtures", "hex"), (".hex",)) + files(SHARED, (".hex",)):
        write("intel-hex", open(h, "rb").read())
    # MCUboot images made by imgtool: flat (mode byte 0), Intel HEX (1), and the members of the
    # nRF Connect SDK fixture zip behind its manifest (2).
    mcuboot = os.path.join(ROOT, "Tests", "Fixtures", "mcuboot")
    for f in files(os.path.join(mcuboot, "images"), (".bin",)):
        write("mcuboot", b"\x00" + open(f, "rb").read())
    for f in files(os.path.join(mcuboot, "images"), (".hex",)):
        write("mcuboot", b"\x01" + open(f, "rb").read())
    ncs = os.path.join(mcuboot, "dfu_application.zip")
    if os.path.isfile(ncs):
        with zipfile.ZipFile(ncs) as z:
            manifest = z.read("manifest.json")
            for name in z.namelist():
                if name != "manifest.json":
                    member = manifest.replace(name.encode(), b"app_update.bin")
                    write("mcuboot", b"\x02" + len(member).to_bytes(2, "big") + member + z.read(name))
    conversations()
    for wire in dbus_seeds.seeds():
        write("dbus-message", wire)
    # Committed seeds and every input that once crashed a target.
    for kind in ("seeds", "fuzz-regressions"):
        base = os.path.join(ROOT, "Fuzz", "seeds") if kind == "seeds" else os.path.join(ROOT, "Tests", "Fixtures", kind)
        if not os.path.isdir(base):
            continue
        for target in sorted(os.listdir(base)):
            for f in files(os.path.join(base, target), ("",)):
                if not f.endswith(".md"):
                    write(target, open(f, "rb").read())
    shared = "with" if os.path.isdir(SHARED) else "without"
    totals = {t: len(os.listdir(os.path.join(OUT, t))) for t in sorted(os.listdir(OUT))} if os.path.isdir(OUT) else {}
    print(f"fuzz seeds ({shared} ../shared/nordic-samples) in {OUT}: "
          + ", ".join(f"{t} {n}" for t, n in totals.items()))


main()
