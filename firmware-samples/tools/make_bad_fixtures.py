#!/usr/bin/env python3
"""Write Tests/Fixtures/bad/: one broken DFU input per file, one cause each.

Usage: make_bad_fixtures.py PACKAGES_DIR BAD_DIR KEYS_DIR

Every file is derived with the Python standard library from the valid packages
that make-samples.sh has just generated (secure-app-1024.zip, secure-bl.zip,
secure-sd.zip, legacy-app.zip), except signed-with-other-key.zip, which
make-samples.sh makes with nrfutil before calling this script. Entries written
here carry the fixed time 1980-01-01 00:00:00, so the output depends only on
the input packages. Also writes BAD_DIR/README.md and BAD_DIR/expected.json
from the table below, so the three never disagree. Finally it checks, with
plain Python and the openssl CLI (through make_expected.py), that every file
shows its defect and, where it can, nothing else; it stops with an error if not.
"""

import hashlib
import json
import os
import random
import struct
import sys
import zipfile
import zlib

from make_expected import DecodeError, crc16_ccitt, decode_legacy_dat, decode_secure_dat, verifying_keys

FIXED_TIME = (1980, 1, 1, 0, 0, 0)
MIB = 1024 * 1024

# file, cause key, one-line description of the single defect.
CAUSES = [
    ("not-a-zip.zip", "not_a_zip",
     "Plain ASCII text with a .zip name: no ZIP signature anywhere."),
    ("empty.zip", "empty_file", "A file of 0 bytes."),
    ("truncated.zip", "truncated_zip",
     "The first half of secure-app-1024.zip: local headers present, central directory gone."),
    ("no-manifest.zip", "no_manifest",
     "A well-formed zip holding app_1024.bin and app_1024.dat but no manifest.json."),
    ("invalid-json.zip", "invalid_manifest_json",
     "manifest.json is cut off in the middle of an object (not valid JSON); the bin and dat are fine."),
    ("missing-file.zip", "missing_file",
     "manifest.json names app_1024.bin, which is not in the zip (app_1024.dat is)."),
    ("two-system-parts.zip", "two_system_parts",
     "manifest has both `bootloader` and `softdevice` (taken from secure-bl.zip and secure-sd.zip); "
     "a package may hold at most one system part."),
    ("unknown-part.zip", "unknown_part",
     "manifest's only part is under the key `firmware`, which is not a DFU part type; "
     "its bin and dat (from secure-app-1024.zip) are present."),
    ("zip-bomb.zip", "declared_size_too_small",
     "app.bin is 32 MiB of zeros deflated (about 32 KiB), but both its local header and its central "
     "directory entry declare an uncompressed size of 4096. The CRC-32 is that of the real 32 MiB, so a "
     "reader that stops at 4096 bytes sees a CRC mismatch, and one that trusts the deflate stream runs "
     "past the declared size."),
    ("oversize.zip", "entry_too_large",
     "app.bin honestly declares 20 MiB (20971520 bytes of zeros, deflated to about 20 KiB): more than the "
     "16 MiB entry cap."),
    ("dotdot-path.zip", "path_traversal",
     "The application's bin entry is named `../evil.bin`, and manifest.json refers to it by that name."),
    ("absolute-path.zip", "absolute_path",
     "The application's bin entry is named `/etc/evil.bin`, and manifest.json refers to it by that name."),
    ("truncated-init.zip", "truncated_init_packet",
     "secure-app-1024.zip with app_1024.dat cut to its first half (a protobuf message ending mid-field)."),
    ("garbage-init.zip", "garbage_init_packet",
     "secure-app-1024.zip with app_1024.dat replaced by 140 seeded random bytes (random.Random(666)) "
     "that do not parse as an init packet."),
    ("hash-mismatch.zip", "hash_mismatch",
     "secure-app-1024.zip with 16 bytes of app_1024.bin (offset 512..527) inverted after generation; "
     "size, manifest and signed .dat unchanged, so the SHA-256 in the init packet no longer matches."),
    ("legacy-crc-mismatch.zip", "legacy_crc_mismatch",
     "legacy-app.zip with 16 bytes of app.bin (offset 512..527) inverted after generation; size, manifest "
     "and .dat unchanged, so firmware_crc16 no longer matches."),
    ("signed-with-other-key.zip", "signature_mismatch",
     "A valid package made by nrfutil but signed with other-private.pem: its signature verifies with "
     "other-public.pem and must fail with test-public.pem."),
]


def read_zip(path: str) -> list[tuple[zipfile.ZipInfo, bytes]]:
    """Return (info, data) for every entry, in the zip's own order."""
    with zipfile.ZipFile(path) as z:
        return [(info, z.read(info)) for info in z.infolist()]


def entry(name: str, data: bytes, method: int = zipfile.ZIP_STORED) -> tuple[zipfile.ZipInfo, bytes]:
    """A zip entry with a fixed time stamp."""
    info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
    info.compress_type = method
    info.external_attr = 0o644 << 16
    return info, data


def write_zip(path: str, entries: list[tuple[zipfile.ZipInfo, bytes]]) -> None:
    """Write entries in order; re-stamps them with the fixed time."""
    with zipfile.ZipFile(path, "w") as z:
        for info, data in entries:
            fresh, _ = entry(info.filename, data, info.compress_type)
            z.writestr(fresh, data)


def replaced(entries, name, data):
    """Entries with the data of NAME replaced."""
    return [(i, data if i.filename == name else d) for i, d in entries]


def without(entries, name):
    """Entries without NAME."""
    return [(i, d) for i, d in entries if i.filename != name]


def manifest_entry(manifest: dict) -> tuple[zipfile.ZipInfo, bytes]:
    """manifest.json in nrfutil's layout (4-space indent)."""
    return entry("manifest.json", json.dumps(manifest, indent=4).encode())


def invert(data: bytes, start: int, count: int) -> bytes:
    """Invert COUNT bytes from START (keeps the size)."""
    out = bytearray(data)
    for i in range(start, start + count):
        out[i] ^= 0xFF
    return bytes(out)


def patch_declared_size(path: str, name: str, declared: int) -> None:
    """Overwrite the uncompressed size of NAME in its local header and central entry."""
    with open(path, "rb") as f:
        raw = bytearray(f.read())
    encoded = name.encode()
    patched = 0
    # Local file header: signature PK\x03\x04, name length at 26, name at 30, size at 22.
    pos = raw.find(b"PK\x03\x04")
    while pos != -1:
        name_len = struct.unpack_from("<H", raw, pos + 26)[0]
        if raw[pos + 30:pos + 30 + name_len] == encoded:
            struct.pack_into("<I", raw, pos + 22, declared)
            patched += 1
        pos = raw.find(b"PK\x03\x04", pos + 4)
    # Central directory header: signature PK\x01\x02, name length at 28, name at 46, size at 24.
    pos = raw.find(b"PK\x01\x02")
    while pos != -1:
        name_len = struct.unpack_from("<H", raw, pos + 28)[0]
        if raw[pos + 46:pos + 46 + name_len] == encoded:
            struct.pack_into("<I", raw, pos + 24, declared)
            patched += 1
        pos = raw.find(b"PK\x01\x02", pos + 4)
    if patched != 2:
        raise SystemExit(f"{path}: expected to patch 2 headers of {name}, patched {patched}")
    with open(path, "wb") as f:
        f.write(raw)


def verify_defects(bad: str, keys_dir: str) -> None:
    """Check that each file shows the defect its row describes."""
    keys = {n: os.path.join(keys_dir, n) for n in ("test-public.pem", "other-public.pem")}

    def path(name: str) -> str:
        return os.path.join(bad, name)

    def contents(name: str) -> dict[str, bytes]:
        with zipfile.ZipFile(path(name)) as z:
            return {i.filename: z.read(i) for i in z.infolist()}

    def app(name: str) -> tuple[dict, dict[str, bytes]]:
        files = contents(name)
        return json.loads(files["manifest.json"])["manifest"]["application"], files

    def fails_to_decode(data: bytes) -> bool:
        try:
            decode_secure_dat(data)
        except DecodeError:
            return True
        return False

    def signed_init(dat: bytes) -> tuple[dict, list[str]]:
        init, signed, signature = decode_secure_dat(dat)
        return init, verifying_keys(signed, signature[31::-1] + signature[:31:-1], keys)

    checks = {}
    checks["not-a-zip.zip"] = not zipfile.is_zipfile(path("not-a-zip.zip"))
    checks["empty.zip"] = os.path.getsize(path("empty.zip")) == 0
    checks["truncated.zip"] = not zipfile.is_zipfile(path("truncated.zip"))
    checks["no-manifest.zip"] = "manifest.json" not in contents("no-manifest.zip")
    try:
        json.loads(contents("invalid-json.zip")["manifest.json"])
        checks["invalid-json.zip"] = False
    except json.JSONDecodeError:
        checks["invalid-json.zip"] = True
    spec, files = app("missing-file.zip")
    checks["missing-file.zip"] = spec["bin_file"] not in files and spec["dat_file"] in files
    manifest = json.loads(contents("two-system-parts.zip")["manifest.json"])["manifest"]
    checks["two-system-parts.zip"] = set(manifest) == {"bootloader", "softdevice"}
    manifest = json.loads(contents("unknown-part.zip")["manifest.json"])["manifest"]
    checks["unknown-part.zip"] = set(manifest) == {"firmware"}
    with zipfile.ZipFile(path("zip-bomb.zip")) as z:
        info = z.getinfo("app.bin")
        with open(path("zip-bomb.zip"), "rb") as f:
            f.seek(info.header_offset)
            header = f.read(30)
            name_len, extra_len = struct.unpack_from("<HH", header, 26)
            f.seek(info.header_offset + 30 + name_len + extra_len)
            inflated = zlib.decompressobj(-15).decompress(f.read(info.compress_size))
    checks["zip-bomb.zip"] = (info.file_size == 4096 and struct.unpack_from("<I", header, 22)[0] == 4096
                              and len(inflated) == 32 * MIB and zlib.crc32(inflated) == info.CRC)
    with zipfile.ZipFile(path("oversize.zip")) as z:
        checks["oversize.zip"] = z.getinfo("app.bin").file_size == 20 * MIB > 16 * MIB
    for name, evil in (("dotdot-path.zip", "../evil.bin"), ("absolute-path.zip", "/etc/evil.bin")):
        spec, files = app(name)
        checks[name] = spec["bin_file"] == evil and evil in files
    spec, files = app("truncated-init.zip")
    checks["truncated-init.zip"] = fails_to_decode(files[spec["dat_file"]])
    spec, files = app("garbage-init.zip")
    checks["garbage-init.zip"] = fails_to_decode(files[spec["dat_file"]])
    spec, files = app("hash-mismatch.zip")
    init, signers = signed_init(files[spec["dat_file"]])
    binary = files[spec["bin_file"]]
    checks["hash-mismatch.zip"] = (init["hash_le"] != hashlib.sha256(binary).digest()[::-1].hex()
                                   and init["app_size"] == len(binary) and signers == ["test-public.pem"])
    spec, files = app("legacy-crc-mismatch.zip")
    init = decode_legacy_dat(files[spec["dat_file"]])
    checks["legacy-crc-mismatch.zip"] = init["firmware_crc16"] != crc16_ccitt(files[spec["bin_file"]])
    spec, files = app("signed-with-other-key.zip")
    init, signers = signed_init(files[spec["dat_file"]])
    checks["signed-with-other-key.zip"] = (
        signers == ["other-public.pem"]
        and init["hash_le"] == hashlib.sha256(files[spec["bin_file"]]).digest()[::-1].hex())

    unchecked = {name for name, _, _ in CAUSES} - set(checks)
    failed = sorted(name for name, ok in checks.items() if not ok)
    if unchecked or failed:
        raise SystemExit(f"bad fixtures: unchecked {sorted(unchecked)}, defect not shown by {failed}")


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 64
    packages, bad, keys_dir = argv[1], argv[2], argv[3]
    os.makedirs(bad, exist_ok=True)

    def out(name: str) -> str:
        return os.path.join(bad, name)

    app = read_zip(os.path.join(packages, "secure-app-1024.zip"))
    app_files = {i.filename: d for i, d in app}
    app_manifest = json.loads(app_files["manifest.json"])
    bin_name = app_manifest["manifest"]["application"]["bin_file"]
    dat_name = app_manifest["manifest"]["application"]["dat_file"]
    app_bin, app_dat = app_files[bin_name], app_files[dat_name]

    with open(out("not-a-zip.zip"), "w") as f:
        f.write("This is not a zip file. It is plain text with a .zip name.\n")
    open(out("empty.zip"), "wb").close()

    with open(os.path.join(packages, "secure-app-1024.zip"), "rb") as f:
        whole = f.read()
    with open(out("truncated.zip"), "wb") as f:
        f.write(whole[: len(whole) // 2])

    write_zip(out("no-manifest.zip"), without(app, "manifest.json"))
    write_zip(out("invalid-json.zip"), replaced(
        app, "manifest.json",
        b'{\n    "manifest": {\n        "application": {\n            "bin_file": "' + bin_name.encode() + b'",\n'))
    write_zip(out("missing-file.zip"), without(app, bin_name))

    bl = {i.filename: d for i, d in read_zip(os.path.join(packages, "secure-bl.zip"))}
    sd = {i.filename: d for i, d in read_zip(os.path.join(packages, "secure-sd.zip"))}
    bl_part = json.loads(bl["manifest.json"])["manifest"]["bootloader"]
    sd_part = json.loads(sd["manifest.json"])["manifest"]["softdevice"]
    write_zip(out("two-system-parts.zip"), [
        entry(bl_part["bin_file"], bl[bl_part["bin_file"]]),
        entry(bl_part["dat_file"], bl[bl_part["dat_file"]]),
        entry(sd_part["bin_file"], sd[sd_part["bin_file"]]),
        entry(sd_part["dat_file"], sd[sd_part["dat_file"]]),
        manifest_entry({"manifest": {"bootloader": bl_part, "softdevice": sd_part}}),
    ])

    write_zip(out("unknown-part.zip"), [
        entry(bin_name, app_bin), entry(dat_name, app_dat),
        manifest_entry({"manifest": {"firmware": {"bin_file": bin_name, "dat_file": dat_name}}}),
    ])

    def app_package(path: str, bin_entry: str, bin_data: bytes, method: int) -> None:
        write_zip(path, [
            entry(bin_entry, bin_data, method), entry(dat_name, app_dat),
            manifest_entry({"manifest": {"application": {"bin_file": bin_entry, "dat_file": dat_name}}}),
        ])

    bomb = bytes(32 * MIB)
    app_package(out("zip-bomb.zip"), "app.bin", bomb, zipfile.ZIP_DEFLATED)
    patch_declared_size(out("zip-bomb.zip"), "app.bin", 4096)
    app_package(out("oversize.zip"), "app.bin", bytes(20 * MIB), zipfile.ZIP_DEFLATED)
    app_package(out("dotdot-path.zip"), "../evil.bin", app_bin, zipfile.ZIP_STORED)
    app_package(out("absolute-path.zip"), "/etc/evil.bin", app_bin, zipfile.ZIP_STORED)

    write_zip(out("truncated-init.zip"), replaced(app, dat_name, app_dat[: len(app_dat) // 2]))
    garbage = random.Random(666).randbytes(140)
    write_zip(out("garbage-init.zip"), replaced(app, dat_name, garbage))
    write_zip(out("hash-mismatch.zip"), replaced(app, bin_name, invert(app_bin, 512, 16)))

    legacy = read_zip(os.path.join(packages, "legacy-app.zip"))
    legacy_manifest = json.loads(dict((i.filename, d) for i, d in legacy)["manifest.json"])
    legacy_bin = legacy_manifest["manifest"]["application"]["bin_file"]
    legacy_data = dict((i.filename, d) for i, d in legacy)[legacy_bin]
    write_zip(out("legacy-crc-mismatch.zip"), replaced(legacy, legacy_bin, invert(legacy_data, 512, 16)))

    missing = [name for name, _, _ in CAUSES if not os.path.exists(out(name))]
    if missing:
        raise SystemExit(f"not made: {missing}")

    verify_defects(bad, keys_dir)

    facts = []
    for name, cause, description in CAUSES:
        with open(out(name), "rb") as f:
            data = f.read()
        facts.append({"file": name, "cause": cause, "description": description,
                      "size": len(data), "crc32": f"{zlib.crc32(data):08x}"})
    with open(out("expected.json"), "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
        f.write("\n")

    lines = [
        "# Bad DFU inputs (test fixtures)",
        "",
        "Each file embodies exactly one defect; a reader must reject it with a typed error and never trap,",
        "hang or allocate without bound. Made by `firmware-samples/make-samples.sh` (which calls",
        "`firmware-samples/tools/make_bad_fixtures.py`) from the valid packages in `../packages/`;",
        "`expected.json` holds the same table in machine-readable form (file, cause, size, CRC-32 of the file).",
        "The firmware images inside are synthetic bytes, not runnable firmware. Keys: `../keys/` (TEST ONLY).",
        "",
        "| file | cause | what is wrong |",
        "|---|---|---|",
    ]
    lines += [f"| `{name}` | `{cause}` | {description} |" for name, cause, description in CAUSES]
    lines += [
        "",
        "## How common readers treat some of them (measured when these files were made)",
        "",
        "- `zip-bomb.zip`: libzip 1.7.3 (Debian's, used by `ZipArchive`) reports size 4096 from `zip_stat`, but",
        "  `zip_fread` keeps returning data until the deflate stream ends: 33554432 bytes, no error (the CRC",
        "  matches the real data). A reader must therefore cap what it reads itself (read at most the declared",
        "  size plus one byte, or the global cap, and fail if more arrives). Python's `zipfile` stops at 4096",
        "  bytes and raises `Bad CRC-32`; Info-ZIP `unzip -t` inflates all of it and says OK.",
        "- `oversize.zip`: libzip opens it and reads 20971520 bytes; only a size check stops it.",
        "- `truncated.zip`: libzip `zip_open` fails with \"Not a zip archive\" (no end of central directory).",
        "- `dotdot-path.zip`, `absolute-path.zip`: libzip opens and reads `../evil.bin` / `/etc/evil.bin` by",
        "  name without complaint; rejecting such names is the reader's job.",
    ]
    with open(out("README.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
