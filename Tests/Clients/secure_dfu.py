"""Secure DFU (nRF5 SDK 12-17) as a client speaks it, written here from the protocol.

The Control Point takes requests with response and answers by notification
`60 <request opcode> <result> [payload]`; the Packet characteristic takes the
init packet and the image as writes without response. Opcodes, object types and
payload layouts are those of the SDK's `nrf_dfu_req_handler.h` and
`nrf_dfu_ble.c` (Select answers max_size, offset, CRC-32; Calculate Checksum
and every Packet Receipt Notification answer offset, CRC-32; all little endian).
The transport is two async callables and a queue of Control Point notifications,
so the same client runs over any BLE library.
"""

import asyncio
import struct
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

SERVICE = "0000fe59-0000-1000-8000-00805f9b34fb"
CONTROL_POINT = "8ec90001-f315-4f60-9fb8-838830daea50"
PACKET = "8ec90002-f315-4f60-9fb8-838830daea50"

CREATE, SET_PRN, CALCULATE_CHECKSUM, EXECUTE, SELECT, RESPONSE = 0x01, 0x02, 0x03, 0x04, 0x06, 0x60
COMMAND_OBJECT, DATA_OBJECT = 0x01, 0x02
SUCCESS = 0x01


class DFUError(Exception):
    pass


@dataclass(frozen=True)
class ObjectState:
    max_size: int
    offset: int
    crc: int


def request(opcode: int, *fields: tuple[str, int]) -> bytes:
    """`opcode` followed by its little-endian fields, e.g. request(CREATE, ("B", 2), ("I", 4096))."""
    return bytes([opcode]) + b"".join(struct.pack("<" + f, v) for f, v in fields)


class SecureDFUClient:
    def __init__(self, write_control_point: Callable[[bytes], Awaitable[None]],
                 write_packet: Callable[[bytes], Awaitable[None]],
                 notifications: "asyncio.Queue[bytes]", packet_size: int,
                 timeout: float = 10.0):
        self.write_control_point = write_control_point
        self.write_packet = write_packet
        self.notifications = notifications
        self.packet_size = packet_size
        self.timeout = timeout
        self.prn = 0

    async def _answer(self, opcode: int) -> bytes:
        """The next Control Point notification, which must answer `opcode` with success."""
        try:
            frame = await asyncio.wait_for(self.notifications.get(), self.timeout)
        except TimeoutError:
            raise DFUError(f"no answer to 0x{opcode:02x} within {self.timeout} s") from None
        if len(frame) < 3 or frame[0] != RESPONSE or frame[1] != opcode:
            raise DFUError(f"expected the answer to 0x{opcode:02x}, got {frame.hex(' ')}")
        if frame[2] != SUCCESS:
            raise DFUError(f"0x{opcode:02x} refused with result 0x{frame[2]:02x} ({frame.hex(' ')})")
        return frame[3:]

    async def call(self, message: bytes) -> bytes:
        await self.write_control_point(message)
        return await self._answer(message[0])

    async def set_prn(self, value: int) -> None:
        await self.call(request(SET_PRN, ("H", value)))
        self.prn = value

    async def select(self, object_type: int) -> ObjectState:
        payload = await self.call(request(SELECT, ("B", object_type)))
        return ObjectState(*struct.unpack("<III", payload))

    async def checksum(self) -> tuple[int, int]:
        offset, crc = struct.unpack("<II", await self.call(request(CALCULATE_CHECKSUM)))
        return offset, crc

    async def execute(self) -> None:
        await self.call(request(EXECUTE))

    async def stream(self, data: bytes, start: int, whole: bytes) -> None:
        """Writes `data` (which begins at offset `start` of `whole`) as Packet writes, checking every receipt."""
        sent = 0
        for number, index in enumerate(range(0, len(data), self.packet_size), start=1):
            chunk = data[index:index + self.packet_size]
            await self.write_packet(chunk)
            sent += len(chunk)
            if self.prn and number % self.prn == 0:
                payload = await self._answer(CALCULATE_CHECKSUM)
                offset, crc = struct.unpack("<II", payload)
                expected = start + sent
                if offset != expected or crc != zlib.crc32(whole[:expected]):
                    raise DFUError(f"receipt says offset {offset} crc {crc:08x}, sent up to {expected}")

    async def send_object(self, object_type: int, data: bytes, start: int, whole: bytes,
                          pause_after_create: float = 0.0) -> None:
        await self.call(request(CREATE, ("B", object_type), ("I", len(data))))
        if pause_after_create:
            await asyncio.sleep(pause_after_create)
        await self.stream(data, start, whole)
        offset, crc = await self.checksum()
        end = start + len(data)
        if offset != end or crc != zlib.crc32(whole[:end]):
            raise DFUError(f"checksum says offset {offset} crc {crc:08x}, expected {end} {zlib.crc32(whole[:end]):08x}")
        await self.execute()

    async def upload(self, init_packet: bytes, image: bytes, prn: int, first_object_pause: float) -> int:
        """The whole exchange for one part; returns the number of data objects sent."""
        await self.set_prn(0)                      # the init packet goes without receipts
        command = await self.select(COMMAND_OBJECT)
        if len(init_packet) > command.max_size:
            raise DFUError(f"init packet of {len(init_packet)} bytes, the command object takes {command.max_size}")
        await self.send_object(COMMAND_OBJECT, init_packet, 0, init_packet)
        await self.set_prn(prn)
        data = await self.select(DATA_OBJECT)
        objects = 0
        for start in range(0, len(image), data.max_size):
            chunk = image[start:start + data.max_size]
            await self.send_object(DATA_OBJECT, chunk, start, image,
                                   pause_after_create=first_object_pause if start == 0 else 0.0)
            objects += 1
        return objects
