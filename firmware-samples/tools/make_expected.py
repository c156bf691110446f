#!/usr/bin/env python3
"""Compute expected.json for a folder of DFU packages, independently of the generators.

Usage: make_expected.py LOG KEYS_DIR HEX_DIR PACKAGES_DIR OUT.json [README.md]

Reads every *.zip in PACKAGES_DIR with zipfile and computes, per part, the
sizes, zlib CRC-32, SHA-256 and CRC-16/CCITT of the .bin and .dat files. It
decodes the init packets itself: Secure .dat files with the small protobuf
reader below (field numbers from the dfu-cc protocol), Legacy .dat files with
struct. Signatures are checked with the openssl CLI against every *-public.pem
in KEYS_DIR. A part made from the Intel HEX files in HEX_DIR is compared with
this script's own conversion of them. Nothing here imports nrfutil or
adafruit-nrfutil. With README.md, also writes a markdown table of the result.

LOG is the log written by make-samples.sh: it says which command made each
package and which seeded inputs went into it; that goes into `generator` and
`inputs`. Field names follow shared/nordic-samples/samples.json where the two
overlap.
"""

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import zipfile
import zlib

SYSTEM_PARTS = ["softdevice_bootloader", "softdevice", "bootloader"]
PART_ORDER = SYSTEM_PARTS + ["application"]

FW_TYPES = {0: "APPLICATION", 1: "SOFTDEVICE", 2: "BOOTLOADER", 3: "SOFTDEVICE_BOOTLOADER",
            4: "EXTERNAL_APPLICATION"}
HASH_TYPES = {0: "NO_HASH", 1: "CRC", 2: "SHA128", 3: "SHA256", 4: "SHA512"}
OP_CODES = {0: "RESET", 1: "INIT"}
SIGNATURE_TYPES = {0: "ECDSA_P256_SHA256", 1: "ED25519"}
VALIDATION_TYPES = {0: "NO_VALIDATION", 1: "VALIDATE_GENERATED_CRC", 2: "VALIDATE_SHA256",
                    3: "VALIDATE_ECDSA_P256_SHA256"}


class DecodeError(ValueError):
    """The bytes are not the message they claim to be."""


# --- protobuf (wire format only) ---------------------------------------------

def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    """Return (value, next position) of the base-128 varint at POS."""
    value, shift = 0, 0
    while True:
        if pos >= len(data):
            raise DecodeError("varint runs past the end")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise DecodeError("varint longer than 10 bytes")


def fields(data: bytes) -> list[tuple[int, int, object]]:
    """Split a message into (field number, wire type, value); value is int or bytes."""
    out, pos = [], 0
    while pos < len(data):
        key, pos = read_varint(data, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise DecodeError("field number 0")
        if wire == 0:
            value, pos = read_varint(data, pos)
        elif wire == 2:
            length, pos = read_varint(data, pos)
            if pos + length > len(data):
                raise DecodeError("length-delimited field runs past the end")
            value, pos = data[pos:pos + length], pos + length
        elif wire == 5:
            if pos + 4 > len(data):
                raise DecodeError("fixed32 runs past the end")
            value, pos = int.from_bytes(data[pos:pos + 4], "little"), pos + 4
        elif wire == 1:
            if pos + 8 > len(data):
                raise DecodeError("fixed64 runs past the end")
            value, pos = int.from_bytes(data[pos:pos + 8], "little"), pos + 8
        else:
            raise DecodeError(f"wire type {wire}")
        out.append((number, wire, value))
    return out


def packed_varints(data: bytes) -> list[int]:
    """Decode a packed repeated varint field."""
    out, pos = [], 0
    while pos < len(data):
        value, pos = read_varint(data, pos)
        out.append(value)
    return out


def need(wire: int, expected: int, what: str) -> None:
    if wire != expected:
        raise DecodeError(f"{what}: wire type {wire}, expected {expected}")


def decode_init_command(data: bytes) -> dict:
    """InitCommand: 1 fw_version, 2 hw_version, 3 sd_req (repeated), 4 type, 5 sd_size,
    6 bl_size, 7 app_size, 8 hash {1 hash_type, 2 hash}, 9 is_debug,
    10 boot_validation {1 type, 2 bytes} (repeated)."""
    init = {"fw_version": None, "hw_version": None, "sd_req": [], "type": None, "sd_size": 0,
            "bl_size": 0, "app_size": 0, "hash_type": None, "hash_le": None, "is_debug": False,
            "boot_validation": [], "boot_validation_bytes_le": []}
    scalar = {1: "fw_version", 2: "hw_version", 5: "sd_size", 6: "bl_size", 7: "app_size"}
    for number, wire, value in fields(data):
        if number in scalar:
            need(wire, 0, scalar[number])
            init[scalar[number]] = value
        elif number == 3:
            ids = packed_varints(value) if wire == 2 else [value]
            init["sd_req"] += [f"0x{v:X}" for v in ids]
        elif number == 4:
            need(wire, 0, "type")
            init["type"] = FW_TYPES.get(value, value)
        elif number == 8:
            need(wire, 2, "hash")
            for n, w, v in fields(value):
                if n == 1:
                    init["hash_type"] = HASH_TYPES.get(v, v)
                elif n == 2:
                    need(w, 2, "hash.hash")
                    init["hash_le"] = v.hex()
        elif number == 9:
            need(wire, 0, "is_debug")
            init["is_debug"] = bool(value)
        elif number == 10:
            need(wire, 2, "boot_validation")
            kind, raw = None, b""
            for n, w, v in fields(value):
                if n == 1:
                    kind = VALIDATION_TYPES.get(v, v)
                elif n == 2:
                    need(w, 2, "boot_validation.bytes")
                    raw = v
            init["boot_validation"].append(kind)
            init["boot_validation_bytes_le"].append(raw.hex())
    if init["type"] is None or init["hash_le"] is None:
        raise DecodeError("InitCommand lacks type or hash")
    return init


def decode_command(data: bytes) -> tuple[dict, bytes]:
    """Command: 1 op_code, 2 init. Returns (decoded, raw InitCommand bytes)."""
    op_code, init_bytes = None, None
    for number, wire, value in fields(data):
        if number == 1:
            need(wire, 0, "op_code")
            op_code = OP_CODES.get(value, value)
        elif number == 2:
            need(wire, 2, "init")
            init_bytes = value
    if init_bytes is None:
        raise DecodeError("Command without init")
    decoded = {"op_code": op_code}
    decoded.update(decode_init_command(init_bytes))
    return decoded, init_bytes


def decode_secure_dat(data: bytes) -> tuple[dict, bytes, bytes | None]:
    """Packet: 1 command (unsigned) | 2 signed_command {1 command, 2 signature_type, 3 signature}.
    Returns (decoded init, signed bytes = raw InitCommand, signature r||s little-endian or None)."""
    top = fields(data)
    if len(top) != 1:
        raise DecodeError(f"Packet has {len(top)} top-level fields")
    number, wire, value = top[0]
    need(wire, 2, "Packet field")
    if number == 1:
        decoded, init_bytes = decode_command(value)
        decoded.update({"signature_type": None, "signature_le": None})
        return decoded, init_bytes, None
    if number == 2:
        command, signature_type, signature = None, None, None
        for n, w, v in fields(value):
            if n == 1:
                need(w, 2, "signed_command.command")
                command = v
            elif n == 2:
                signature_type = SIGNATURE_TYPES.get(v, v)
            elif n == 3:
                need(w, 2, "signed_command.signature")
                signature = v
        if command is None or signature is None:
            raise DecodeError("SignedCommand lacks command or signature")
        decoded, init_bytes = decode_command(command)
        decoded.update({"signature_type": signature_type, "signature_le": signature.hex()})
        return decoded, init_bytes, signature
    raise DecodeError(f"Packet field {number}")


# --- Legacy init packet -------------------------------------------------------

def decode_legacy_dat(data: bytes) -> dict:
    """device_type u16, device_revision u16, application_version u32, sd count u16,
    sd_req u16 * count, then either crc16 u16 (dfu 0.5), or ext_packet_id u32 and:
    0 -> crc16 u16 (0.6); 1 -> length u32 + SHA-256 (0.7); 2 -> length + SHA-256 + ECDSA (0.8)."""
    def u(offset: int, size: int) -> int:
        if offset + size > len(data):
            raise DecodeError("legacy init packet too short")
        return int.from_bytes(data[offset:offset + size], "little")

    init = {"raw_hex": data.hex(), "device_type": u(0, 2), "device_revision": u(2, 2),
            "application_version": u(4, 4)}
    count = u(8, 2)
    init["softdevice_req"] = [u(10 + 2 * i, 2) for i in range(count)]
    rest = 10 + 2 * count
    tail = len(data) - rest
    if tail == 2:
        init["firmware_crc16"] = u(rest, 2)
    elif tail >= 4:
        ext = u(rest, 4)
        init["ext_packet_id"] = ext
        if ext == 0 and tail == 6:
            init["firmware_crc16"] = u(rest + 4, 2)
        elif ext in (1, 2) and tail == (40 if ext == 1 else 104):
            init["firmware_length"] = u(rest + 4, 4)
            init["firmware_hash"] = data[rest + 8:rest + 40].hex()
            if ext == 2:
                init["init_packet_ecds"] = data[rest + 40:rest + 104].hex()
        else:
            raise DecodeError(f"legacy ext_packet_id {ext} with {tail} trailing bytes")
    else:
        raise DecodeError(f"legacy init packet with {tail} trailing bytes")
    return init


# --- checksums and signatures ---------------------------------------------------

def crc16_ccitt(data: bytes) -> int:
    """CRC-16/CCITT-FALSE: polynomial 0x1021, initial 0xFFFF, no reflection, no final xor."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


def der_signature(r: bytes, s: bytes) -> bytes:
    """ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER } from big-endian r and s."""
    def integer(value: bytes) -> bytes:
        value = value.lstrip(b"\0") or b"\0"
        if value[0] & 0x80:
            value = b"\0" + value
        return bytes([0x02, len(value)]) + value
    body = integer(r) + integer(s)
    return bytes([0x30, len(body)]) + body


def verifying_keys(signed: bytes, signature_be: bytes, keys: dict[str, str]) -> list[str]:
    """Names of the public keys (openssl dgst -sha256 -verify) that accept the signature."""
    accepted = []
    with tempfile.TemporaryDirectory() as tmp:
        data_path, sig_path = os.path.join(tmp, "data"), os.path.join(tmp, "sig")
        with open(data_path, "wb") as f:
            f.write(signed)
        with open(sig_path, "wb") as f:
            f.write(der_signature(signature_be[:32], signature_be[32:]))
        for name, path in sorted(keys.items()):
            result = subprocess.run(
                ["openssl", "dgst", "-sha256", "-verify", path, "-signature", sig_path, data_path],
                capture_output=True)
            if result.returncode == 0:
                accepted.append(name)
    return accepted


# --- Intel HEX -------------------------------------------------------------------

MBR_END = 0x1000
UICR_START = 0x10000000


def hex_to_bin(path: str, drop_mbr: bool) -> bytes:
    """The image of an Intel HEX file as nrfutil turns it into a .bin: data at or above
    UICR (0x10000000) dropped, the MBR page (below 0x1000) dropped for SoftDevices, gaps and the
    tail up to a whole 4-byte word filled with 0xFF."""
    memory: dict[int, int] = {}
    base = 0
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            raw = bytes.fromhex(line[1:])
            if sum(raw) & 0xFF:
                raise DecodeError(f"{path}: bad record checksum")
            count, address, kind, data = raw[0], int.from_bytes(raw[1:3], "big"), raw[3], raw[4:-1]
            if len(data) != count:
                raise DecodeError(f"{path}: bad record length")
            if kind == 0x00:
                for i, byte in enumerate(data):
                    memory[base + address + i] = byte
            elif kind == 0x04:
                base = int.from_bytes(data, "big") << 16
            elif kind == 0x02:
                base = int.from_bytes(data, "big") << 4
            elif kind == 0x01:
                break
    kept = [a for a in memory if a < UICR_START and (a >= MBR_END or not drop_mbr)]
    start, end = min(kept), max(kept) + 1
    size = (end - start + 3) // 4 * 4
    # Everything in [start, start + size) is below UICR and, for SoftDevices, above the MBR.
    return bytes(memory.get(start + i, 0xFF) for i in range(size))


def hex_inputs_match(part: dict, binary: bytes, inputs: list[dict], input_dir: str | None) -> bool | None:
    """Whether the part's .bin equals the conversion of the hex inputs it was made from;
    None when the part was not made from hex files."""
    hexes = {i["file"]: i for i in inputs if i["format"] == "hex"}
    if input_dir is None or not hexes:
        return None
    if part["type"] == "application" and "app.hex" in hexes:
        return binary == hex_to_bin(os.path.join(input_dir, "app.hex"), drop_mbr=False)
    if part["type"] == "softdevice_bootloader" and {"softdevice.hex", "bootloader.hex"} <= set(hexes):
        expected = (hex_to_bin(os.path.join(input_dir, "softdevice.hex"), drop_mbr=True)
                    + hex_to_bin(os.path.join(input_dir, "bootloader.hex"), drop_mbr=False))
        return binary == expected
    return None


# --- packages ---------------------------------------------------------------------

def read_log(path: str) -> dict[str, dict]:
    """Map package path (real path) -> {generator, inputs} from make-samples.sh's log."""
    current_inputs: dict[str, dict] = {}
    packages = {}
    with open(path) as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if cols[0] == "input":
                name, kind, seed, shape = cols[1], cols[2], int(cols[3]), cols[4]
                item = {"file": name, "format": kind, "seed": seed}
                if kind == "bin":
                    item["size"] = int(shape)
                else:
                    item["regions"] = [{"address": f"0x{int(a, 0):08X}", "size": int(s, 0)}
                                       for a, s in (r.split(":") for r in shape.split())]
                current_inputs[name] = item
            elif cols[0] == "package":
                path, tool, argv = cols[1], cols[2], cols[3:]
                inputs = [current_inputs[a] for a in argv if a in current_inputs]
                packages[os.path.realpath(path)] = {"generator": {"tool": tool, "argv": argv},
                                                    "inputs": inputs}
    return packages


def describe_package(path: str, keys: dict[str, str], made: dict, hex_dir: str) -> dict:
    with zipfile.ZipFile(path) as z:
        infos = z.infolist()
        files = {i.filename: z.read(i) for i in infos}
    manifest = json.loads(files["manifest.json"])["manifest"]
    legacy = "dfu_version" in manifest
    entry = {
        "file": os.path.basename(path),
        "format": "legacy" if legacy else "secure",
        "zip_size": os.path.getsize(path),
        "entries": {i.filename: i.file_size for i in infos},
        "compression": {i.filename: "deflated" if i.compress_type == zipfile.ZIP_DEFLATED else "stored"
                        for i in infos},
        "manifest": json.loads(files["manifest.json"]),
    }
    if legacy:
        entry["dfu_version"] = manifest["dfu_version"]
    entry.update(made)

    parts, signed = [], []
    for kind in PART_ORDER:
        if kind not in manifest:
            continue
        spec = manifest[kind]
        binary, dat = files[spec["bin_file"]], files[spec["dat_file"]]
        part = {
            "type": kind,
            "bin_file": spec["bin_file"], "bin_size": len(binary),
            "bin_crc32": f"{zlib.crc32(binary):08x}",
            "bin_sha256": hashlib.sha256(binary).hexdigest(),
            "bin_crc16_ccitt": f"{crc16_ccitt(binary):04x}",
            "dat_file": spec["dat_file"], "dat_size": len(dat),
            "dat_crc32": f"{zlib.crc32(dat):08x}",
        }
        checks = {}
        from_hex = hex_inputs_match(part, binary, made["inputs"], hex_dir)
        if from_hex is not None:
            checks["bin_matches_hex_inputs"] = from_hex
        if legacy:
            init = decode_legacy_dat(dat)
            part["init"] = init
            part["manifest_init_packet_data"] = spec.get("init_packet_data")
            if "sd_size" in spec:
                part["sd_size"] = part["manifest_sd_size"] = spec["sd_size"]
            if "bl_size" in spec:
                part["bl_size"] = part["manifest_bl_size"] = spec["bl_size"]
            manifest_init = spec.get("init_packet_data", {})
            checks["manifest_init_matches_dat"] = all(
                init.get(k) == (v.hex() if isinstance(v, bytes) else v) for k, v in manifest_init.items())
            if "sd_size" in spec or "bl_size" in spec:
                checks["manifest_sizes_match_bin"] = spec.get("sd_size", 0) + spec.get("bl_size", 0) == len(binary)
            if "firmware_crc16" in init:
                checks["crc16_matches_bin"] = init["firmware_crc16"] == crc16_ccitt(binary)
            if "firmware_hash" in init:
                checks["sha256_matches_bin"] = init["firmware_hash"] == hashlib.sha256(binary).hexdigest()
                checks["length_matches_bin"] = init["firmware_length"] == len(binary)
            signed.append("init_packet_ecds" in init)
        else:
            init, init_bytes, signature = decode_secure_dat(dat)
            part["init"] = init
            if "info_read_only_metadata" in spec:
                metadata = spec["info_read_only_metadata"]
                part["manifest_info_read_only_metadata"] = metadata
                checks["manifest_sizes_match_init"] = (
                    metadata.get("sd_size", 0) == init["sd_size"] and metadata.get("bl_size", 0) == init["bl_size"])
            for size_key in ("sd_size", "bl_size"):
                if init[size_key]:
                    part[size_key] = init[size_key]
            for kind_name, raw_hex in zip(init["boot_validation"], init["boot_validation_bytes_le"]):
                if kind_name == "VALIDATE_ECDSA_P256_SHA256" and kind == "application":
                    raw = bytes.fromhex(raw_hex)
                    accepted = verifying_keys(binary, raw[31::-1] + raw[:31:-1], keys)
                    checks["boot_validation_signature_verifies_with_test_public"] = accepted == ["test-public.pem"]
            checks["sha256_le_matches_bin"] = init["hash_le"] == hashlib.sha256(binary).digest()[::-1].hex()
            checks["sizes_match_bin"] = init["sd_size"] + init["bl_size"] + init["app_size"] == len(binary)
            if signature is not None:
                signature_be = signature[31::-1] + signature[:31:-1]
                accepted = verifying_keys(init_bytes, signature_be, keys)
                init["signature_verified_by"] = accepted[0] if len(accepted) == 1 else (accepted or None)
                checks["signature_verifies_with_test_public_only"] = accepted == ["test-public.pem"]
            else:
                init["signature_verified_by"] = None
            signed.append(signature is not None)
        part["checks"] = checks
        parts.append(part)
    unknown = sorted(set(manifest) - set(PART_ORDER) - {"dfu_version"})
    if unknown:
        raise SystemExit(f"{path}: unknown manifest keys {unknown}")
    entry["signed"] = all(signed) if signed else False
    entry["parts"] = parts
    return entry


def init_summary(part: dict) -> str:
    """One line of the decoded init packet, for the README table."""
    init = part["init"]
    if "type" in init:
        text = (f"{init['type']} fw={init['fw_version']} hw={init['hw_version']} "
                f"sd_req=[{','.join(init['sd_req'])}]")
        if init["sd_size"] or init["bl_size"]:
            text += f" sd_size={init['sd_size']} bl_size={init['bl_size']}"
        if init["is_debug"]:
            text += " is_debug"
        if init["boot_validation"] != ["VALIDATE_GENERATED_CRC"] * len(init["boot_validation"]):
            text += f" boot_validation={','.join(init['boot_validation'])}"
        signer = init["signature_verified_by"]
        return text + (f" signed ({signer})" if init["signature_type"] else " unsigned")
    text = (f"dev_type=0x{init['device_type']:04X} dev_rev=0x{init['device_revision']:04X} "
            f"app_ver=0x{init['application_version']:X} "
            f"sd_req=[{','.join(f'0x{v:X}' for v in init['softdevice_req'])}]")
    if "ext_packet_id" in init:
        text += f" ext_packet_id={init['ext_packet_id']}"
    if "firmware_crc16" in init:
        text += f" crc16=0x{init['firmware_crc16']:04X}"
    return text


def write_readme(path: str, result: list[dict]) -> None:
    """A markdown table of RESULT, for people; expected.json stays the reference."""
    lines = [
        "# Valid DFU packages (test fixtures)",
        "",
        "Made by `firmware-samples/make-samples.sh` with Nordic's generators (nrfutil 6.1.7 for Secure,",
        "adafruit-nrfutil 0.5.3.post16 for Legacy); see `firmware-samples/README.md` for the tools, seeds and",
        "what is deterministic. The firmware images are synthetic (seeded pseudo-random bytes), NOT runnable",
        "firmware. Signed packages are signed with `../keys/test-private.pem` (TEST ONLY).",
        "",
        "`expected.json` is the reference: for every zip, its entries, manifest, the generator command, the",
        "seeded inputs, and per part (system part first, then application) the sizes, CRC-32, SHA-256 and",
        "CRC-16/CCITT of the .bin and .dat, and the init packet decoded by",
        "`firmware-samples/tools/make_expected.py` (plain Python: zipfile, zlib, hashlib, a small protobuf",
        "reader, struct; signatures checked with the openssl CLI). Field names follow",
        "`shared/nordic-samples/samples.json`. This table is generated from it.",
        "",
        "Note: both generators pad every image to a whole 4-byte word with 0xFF, so `secure-app-4095.zip`",
        "holds a 4096-byte bin and `secure-app-4097.zip` a 4100-byte bin (the name gives the input size).",
        "",
        "Fields of each `expected.json` entry: `file`, `format` (`secure`/`legacy`), `zip_size`, `entries`",
        "(name -> uncompressed size), `compression` (name -> `stored`/`deflated`), `manifest` (as stored),",
        "`dfu_version` (Legacy), `signed`, `generator` (`tool`, `argv`), `inputs` (seeded synthetic inputs:",
        "`file`, `format`, `seed`, `size` or `regions`), and `parts` in upload order. Each part: `type`",
        "(manifest key), `bin_file`, `bin_size`, `bin_crc32` (8 lowercase hex), `bin_sha256`,",
        "`bin_crc16_ccitt`, `dat_file`, `dat_size`, `dat_crc32`, `sd_size`/`bl_size` when non-zero, `init`",
        "(Secure: `op_code`, `type`, `fw_version`, `hw_version`, `sd_req` as \"0x..\" strings, `sd_size`,",
        "`bl_size`, `app_size`, `hash_type`, `hash_le` (SHA-256 of the bin, byte-reversed), `is_debug`,",
        "`boot_validation`, `boot_validation_bytes_le`, `signature_type`, `signature_le`,",
        "`signature_verified_by`; Legacy: `device_type`, `device_revision`, `application_version`,",
        "`softdevice_req`, `ext_packet_id`, `firmware_crc16`, `raw_hex`), the manifest's own copies",
        "(`manifest_info_read_only_metadata`, `manifest_init_packet_data`, `manifest_sd_size`,",
        "`manifest_bl_size`), and `checks` (independent consistency checks, all true).",
        "",
        "| file | zip B | format | parts: bin (size, CRC-32) | init packet | made with |",
        "|---|---|---|---|---|---|",
    ]
    for entry in result:
        parts = "<br>".join(f"{p['type']}: {p['bin_file']} ({p['bin_size']}, {p['bin_crc32']})"
                            for p in entry["parts"])
        inits = "<br>".join(init_summary(p) for p in entry["parts"])
        if entry["format"] == "legacy":
            inits = f"dfu_version={entry['dfu_version']}<br>" + inits
        generator = entry.get("generator")
        made = f"`{generator['tool'].split()[0]} {' '.join(generator['argv'])}`" if generator else ""
        lines.append(f"| `{entry['file']}` | {entry['zip_size']} | {entry['format']} | {parts} | {inits} | {made} |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main(argv: list[str]) -> int:
    if len(argv) not in (6, 7):
        sys.stderr.write(__doc__)
        return 64
    log, keys_dir, hex_dir, packages_dir, out = argv[1:6]
    made = read_log(log)
    keys = {name: os.path.join(keys_dir, name)
            for name in os.listdir(keys_dir) if name.endswith("-public.pem")}
    result = []
    for name in sorted(os.listdir(packages_dir)):
        if name.endswith(".zip"):
            path = os.path.join(packages_dir, name)
            recipe = made.get(os.path.realpath(path))
            if recipe is None:
                raise SystemExit(f"{path}: not in the log, so its recipe is unknown")
            result.append(describe_package(path, keys, recipe, hex_dir))
    with open(out, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")
    if len(argv) == 7:
        write_readme(argv[6], result)
    failed = [(e["file"], p["type"], k) for e in result for p in e["parts"]
              for k, v in p["checks"].items() if v is not True]
    if failed:
        raise SystemExit(f"checks failed: {failed}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
