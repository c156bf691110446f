"""MCUboot images for the SMP client suite, made by MCUboot's own imgtool (PyPI, in the suite's venv).

`imgtool sign` wraps a body of pseudo-random bytes in an MCUboot header and TLV area, signed with
the committed test key of Tests/Fixtures/mcuboot/keys; `imgtool verify` then gives the image's
digest, the SHA256 TLV that Zephyr's image list shows as `hash`. Nothing of the project's own code
is involved in making or checking these images.
"""

import random
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from conftest import REPOSITORY

KEY = REPOSITORY / "Tests" / "Fixtures" / "mcuboot" / "keys" / "ecdsa-p256.pem"
IMGTOOL = Path(sys.executable).parent / "imgtool"
# The simulated nRF52840's slots (ZephyrTargetConfiguration: 0x76000, the nRF52840 DK's MCUboot partitions).
SLOT_SIZE = 0x76000


@dataclass(frozen=True)
class SignedImage:
    path: Path
    data: bytes
    version: str
    digest: bytes

    @property
    def hash_hex(self) -> str:
        return self.digest.hex()


def make_image(directory: Path, body_size: int, version: str, seed: int) -> SignedImage:
    """`imgtool sign` of `body_size` pseudo-random bytes at `version` ("1.2.3" or "1.2.3+4")."""
    body = directory / f"body-{seed}.bin"
    body.write_bytes(random.Random(seed).randbytes(body_size))
    signed = directory / f"image-{version}-{seed}.bin"
    # The header is padded in by imgtool (--pad-header), 0x200 bytes as NCS builds use; alignment 4 as nRF52 flash.
    subprocess.run([str(IMGTOOL), "sign", "--header-size", "0x200", "--pad-header", "--align", "4",
                    "--slot-size", hex(SLOT_SIZE), "--version", version, "--key", str(KEY), str(body), str(signed)],
                   check=True, capture_output=True, text=True)
    verified = subprocess.run([str(IMGTOOL), "verify", "--key", str(KEY), str(signed)],
                              check=True, capture_output=True, text=True).stdout
    # "Image digest: <hex>" is the SHA256 TLV (imgtool/main.py verify).
    digest = next(line.split(":", 1)[1].strip() for line in verified.splitlines() if line.startswith("Image digest:"))
    return SignedImage(path=signed, data=signed.read_bytes(), version=version, digest=bytes.fromhex(digest))
