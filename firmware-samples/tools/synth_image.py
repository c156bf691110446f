#!/usr/bin/env python3
"""Write a synthetic firmware image: deterministic bytes from a seeded generator.

The images are NOT runnable firmware. They only have the size and the look of
one: pseudo-random bytes drawn from a 16-value alphabet (itself chosen by the
seed), so they compress to roughly half their size without being trivial.

Usage:
  synth_image.py bin OUT.bin SIZE SEED
      Write SIZE bytes.
  synth_image.py hex OUT.hex SEED REGION [REGION ...]
      Write an Intel HEX file. Each REGION is ADDRESS:SIZE (numbers in C
      notation, e.g. 0x26000:40962); each region gets its own bytes from the
      same generator, in order. Records carry 16 data bytes; an extended
      linear address record (type 04) opens every 64 KiB segment that holds
      data; the file ends with an end-of-file record (type 01).

The same arguments always give the same bytes (Python's random.Random with an
integer seed is stable across Python 3 versions).
"""

import random
import sys

ALPHABET_SIZE = 16
HEX_RECORD_DATA = 16


def synthetic_bytes(rng: random.Random, size: int) -> bytes:
    """Return SIZE bytes drawn from a seed-chosen alphabet of 16 byte values."""
    alphabet = rng.sample(range(256), ALPHABET_SIZE)
    return bytes(rng.choice(alphabet) for _ in range(size))


def hex_record(record_type: int, address: int, data: bytes) -> str:
    """Format one Intel HEX record with its two's-complement checksum."""
    body = bytes([len(data), (address >> 8) & 0xFF, address & 0xFF, record_type]) + data
    checksum = (-sum(body)) & 0xFF
    return ":" + (body + bytes([checksum])).hex().upper()


def intel_hex(regions: list[tuple[int, bytes]]) -> str:
    """Render (address, bytes) regions as Intel HEX text with type 04 records."""
    lines = []
    segment = None
    for start, data in regions:
        offset = 0
        while offset < len(data):
            address = start + offset
            if address >> 16 != segment:
                segment = address >> 16
                lines.append(hex_record(0x04, 0, segment.to_bytes(2, "big")))
            # A record never crosses a 64 KiB boundary.
            room = 0x10000 - (address & 0xFFFF)
            count = min(HEX_RECORD_DATA, len(data) - offset, room)
            lines.append(hex_record(0x00, address & 0xFFFF, data[offset:offset + count]))
            offset += count
    lines.append(hex_record(0x01, 0, b""))
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) >= 5 and argv[1] == "bin":
        out, size, seed = argv[2], int(argv[3], 0), int(argv[4], 0)
        with open(out, "wb") as f:
            f.write(synthetic_bytes(random.Random(seed), size))
        return 0
    if len(argv) >= 5 and argv[1] == "hex":
        out, seed = argv[2], int(argv[3], 0)
        rng = random.Random(seed)
        regions = []
        for spec in argv[4:]:
            address, size = (int(part, 0) for part in spec.split(":"))
            regions.append((address, synthetic_bytes(rng, size)))
        with open(out, "w", newline="\n") as f:
            f.write(intel_hex(regions))
        return 0
    sys.stderr.write(__doc__)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
