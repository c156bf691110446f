"""Reads a Secure DFU package (.zip made by nrfutil): its parts in upload order.

Follows the manifest layout documented for nrfutil packages: one key per part
(softdevice, bootloader, softdevice_bootloader, application), each naming a
bin_file (the image) and a dat_file (the init packet). Only what the client
suites need; `dfu inspect` is the project's full reader.
"""

import json
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

# The system part goes first, the application last, as nrfutil and dfu send them.
UPLOAD_ORDER = ("softdevice_bootloader", "softdevice", "bootloader", "application")


@dataclass(frozen=True)
class PackagePart:
    kind: str
    init_packet: bytes
    image: bytes

    @property
    def image_crc32(self) -> int:
        return zlib.crc32(self.image)


def read_package(path: Path) -> list[PackagePart]:
    with zipfile.ZipFile(path) as archive:
        manifest = json.loads(archive.read("manifest.json"))["manifest"]
        return [PackagePart(kind=kind,
                            init_packet=archive.read(manifest[kind]["dat_file"]),
                            image=archive.read(manifest[kind]["bin_file"]))
                for kind in UPLOAD_ORDER if kind in manifest]
