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


def main():
    zips = files(os.path.join(ROOT, "firmware-samples"), (".zip",))
    for sub in ("packages", "bad"):
        zips += files(os.path.join(ROOT, "Tests", "Fixtures", sub), (".zip",))
    zips += files(SHARED, (".zip",))
    for z in zips:
        from_zip(z)
    for h in files(os.path.join(ROOT, "Tests", "Fixtures", "hex"), (".hex",)) + files(SHARED, (".hex",)):
        write("intel-hex", open(h, "rb").read())
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
