"""A Secure DFU target as a GATT peripheral of our own, served through BlueZ's GATT server API
(GattManager1.RegisterApplication, LEAdvertisingManager1.RegisterAdvertisement).

It is the device side for `dfu` on bluezoo: just enough of an nRF5 SDK 15-17 bootloader's
Secure DFU service (written here from the protocol as the SDK documents it in
`nrf_dfu_req_handler.h`/`nrf_dfu_ble.c`; see secure_dfu.py for the frame layouts) to take a
whole upload, and it records every byte it receives so a test can compare them with the
package. It does not validate the init packet or flash anything: the check is byte-exactness.

GATT layout as nrf_dfu_ble.c builds it: service FE59; the Packet characteristic first
(write without response), then the Control Point (write, notify). bluetoothd adds the CCCD
of a notifying characteristic itself, so the application exports none.
"""

import asyncio
import socket
import struct
import zlib

from dbus_fast import BusType, DBusError, Variant
from dbus_fast.aio import MessageBus
from dbus_fast.service import PropertyAccess, ServiceInterface, dbus_property, method

import secure_dfu as dfu

ROOT = "/org/example/dfu"
SERVICE_PATH = f"{ROOT}/service0"
PACKET_PATH = f"{SERVICE_PATH}/char0"
CONTROL_POINT_PATH = f"{SERVICE_PATH}/char1"
ADVERTISEMENT_PATH = f"{ROOT}/advertisement0"
MTU = 247


class SecureDFUTarget:
    """The bootloader side: objects, receipts, what was received and executed."""

    COMMAND_MAX, DATA_MAX = 256, 4096

    def __init__(self, notify):
        self.notify = notify
        self.command = b""
        self.data = b""
        self.executed_data = 0
        self.executed_command = False
        self.current = None
        self.object_end = 0
        self.prn = 0
        self.since_receipt = 0
        self.requests: list[bytes] = []
        self.packet_writes = 0

    def _answer(self, opcode: int, result: int = dfu.SUCCESS, payload: bytes = b"") -> None:
        self.notify(bytes([dfu.RESPONSE, opcode, result]) + payload)

    def _offset_and_crc(self) -> bytes:
        received = self.command if self.current == dfu.COMMAND_OBJECT else self.data
        return struct.pack("<II", len(received), zlib.crc32(received))

    def control_point(self, request: bytes) -> None:
        self.requests.append(request)
        opcode = request[0] if request else 0
        if opcode == dfu.SELECT and len(request) == 2 and request[1] in (dfu.COMMAND_OBJECT, dfu.DATA_OBJECT):
            self.current = request[1]
            maximum = self.COMMAND_MAX if self.current == dfu.COMMAND_OBJECT else self.DATA_MAX
            self._answer(opcode, payload=struct.pack("<I", maximum) + self._offset_and_crc())
        elif opcode == dfu.CREATE and len(request) == 6:
            kind, size = struct.unpack("<BI", request[1:])
            self.current = kind
            self.since_receipt = 0
            if kind == dfu.COMMAND_OBJECT:
                self.command = b""
                self.executed_command = False
                self.object_end = size
            else:
                # A new data object starts after the last executed one (the SDK discards the rest).
                self.data = self.data[:self.executed_data]
                self.object_end = self.executed_data + size
            self._answer(opcode)
        elif opcode == dfu.SET_PRN and len(request) == 3:
            self.prn = struct.unpack("<H", request[1:])[0]
            self.since_receipt = 0
            self._answer(opcode)
        elif opcode == dfu.CALCULATE_CHECKSUM:
            self._answer(opcode, payload=self._offset_and_crc())
        elif opcode == dfu.EXECUTE:
            if self.current == dfu.COMMAND_OBJECT and len(self.command) == self.object_end:
                self.executed_command = True
                self._answer(opcode)
            elif self.current == dfu.DATA_OBJECT and self.executed_command and len(self.data) == self.object_end:
                self.executed_data = len(self.data)
                self._answer(opcode)
            else:
                self._answer(opcode, result=0x08)      # operation not permitted
        else:
            self._answer(opcode, result=0x02)          # opcode not supported

    def packet(self, chunk: bytes) -> None:
        self.packet_writes += 1
        if self.current == dfu.COMMAND_OBJECT:
            self.command += chunk
        else:
            self.data += chunk
        self.since_receipt += 1
        if self.prn and self.since_receipt == self.prn:
            self.since_receipt = 0
            self._answer(dfu.CALCULATE_CHECKSUM, payload=self._offset_and_crc())


class ObjectManager(ServiceInterface):
    def __init__(self, objects):
        super().__init__("org.freedesktop.DBus.ObjectManager")
        self.objects = objects

    @method()
    def GetManagedObjects(self) -> "a{oa{sa{sv}}}":
        return {path: {interface.name: interface.properties() for interface in interfaces}
                for path, interfaces in self.objects().items()}


class GattService(ServiceInterface):
    def __init__(self, uuid: str):
        super().__init__("org.bluez.GattService1")
        self.uuid = uuid

    def properties(self):
        return {"UUID": Variant("s", self.uuid), "Primary": Variant("b", True), "Includes": Variant("ao", [])}

    @dbus_property(access=PropertyAccess.READ)
    def UUID(self) -> "s":
        return self.uuid

    @dbus_property(access=PropertyAccess.READ)
    def Primary(self) -> "b":
        return True

    @dbus_property(access=PropertyAccess.READ)
    def Includes(self) -> "ao":
        return []


class GattCharacteristic(ServiceInterface):
    """One characteristic: WriteValue and AcquireWrite feed `on_write`; notifications go out as
    PropertiesChanged(Value) after StartNotify, or as datagrams on the AcquireNotify socket."""

    def __init__(self, uuid: str, flags: list[str], on_write):
        super().__init__("org.bluez.GattCharacteristic1")
        self.uuid = uuid
        self.flags = flags
        self.on_write = on_write
        self.value = b""
        self.notifying = False
        self.notify_sockets: list[socket.socket] = []
        self.write_sockets: list[socket.socket] = []
        self.handed_out: list[socket.socket] = []
        self.write_value_calls = 0
        self.acquire_write_calls = 0
        self.acquire_notify_calls = 0
        self.start_notify_calls = 0

    def properties(self):
        return {"UUID": Variant("s", self.uuid), "Service": Variant("o", SERVICE_PATH),
                "Flags": Variant("as", self.flags), "Value": Variant("ay", self.value),
                "Notifying": Variant("b", self.notifying), "MTU": Variant("q", MTU)}

    @dbus_property(access=PropertyAccess.READ)
    def UUID(self) -> "s":
        return self.uuid

    @dbus_property(access=PropertyAccess.READ)
    def Service(self) -> "o":
        return SERVICE_PATH

    @dbus_property(access=PropertyAccess.READ)
    def Flags(self) -> "as":
        return self.flags

    @dbus_property(access=PropertyAccess.READ)
    def Value(self) -> "ay":
        return self.value

    @dbus_property(access=PropertyAccess.READ)
    def Notifying(self) -> "b":
        return self.notifying

    # bluezoo takes the link's MTU from the application's characteristic (512 when absent).
    @dbus_property(access=PropertyAccess.READ)
    def MTU(self) -> "q":
        return MTU

    # Neither DFU characteristic is readable in the SDK; a GATT server application says so with
    # NotPermitted (doc/gatt-api.txt, ReadValue's errors).
    @method()
    def ReadValue(self, options: "a{sv}") -> "ay":
        raise DBusError("org.bluez.Error.NotPermitted", "Read not permitted")

    @method()
    def WriteValue(self, value: "ay", options: "a{sv}"):
        self.write_value_calls += 1
        self.on_write(bytes(value))

    @method()
    def StartNotify(self):
        self.start_notify_calls += 1
        self.notifying = True
        self.emit_properties_changed({"Notifying": True})

    @method()
    def StopNotify(self):
        self.notifying = False
        self.emit_properties_changed({"Notifying": False})

    # bluezoo calls Confirm after every value it passes on, notifications included.
    @method()
    def Confirm(self):
        pass

    def _socket_pair(self) -> tuple[socket.socket, socket.socket]:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.handed_out.append(theirs)
        return ours, theirs

    @method()
    def AcquireWrite(self, options: "a{sv}") -> "hq":
        self.acquire_write_calls += 1
        ours, theirs = self._socket_pair()
        ours.setblocking(False)
        self.write_sockets.append(ours)
        loop = asyncio.get_running_loop()

        def readable():
            try:
                datagram = ours.recv(65536)
            except BlockingIOError:
                return
            if not datagram:
                loop.remove_reader(ours.fileno())
                return
            self.on_write(datagram)

        loop.add_reader(ours.fileno(), readable)
        return [theirs.fileno(), MTU]

    @method()
    def AcquireNotify(self, options: "a{sv}") -> "hq":
        self.acquire_notify_calls += 1
        ours, theirs = self._socket_pair()
        self.notify_sockets.append(ours)
        return [theirs.fileno(), MTU]

    def send_notification(self, value: bytes) -> None:
        for connection in list(self.notify_sockets):
            try:
                connection.send(value)
            except OSError:
                self.notify_sockets.remove(connection)
        if self.notifying:
            self.value = value
            self.emit_properties_changed({"Value": value})

    def close(self) -> None:
        loop = asyncio.get_running_loop()
        for connection in self.write_sockets:
            loop.remove_reader(connection.fileno())
        for connection in self.write_sockets + self.notify_sockets + self.handed_out:
            connection.close()


class Advertisement(ServiceInterface):
    def __init__(self, name: str, service_uuids: list[str]):
        super().__init__("org.bluez.LEAdvertisement1")
        self.local_name = name      # not `name`: ServiceInterface keeps the interface's name there
        self.service_uuids = service_uuids

    @dbus_property(access=PropertyAccess.READ)
    def Type(self) -> "s":
        return "peripheral"

    @dbus_property(access=PropertyAccess.READ)
    def ServiceUUIDs(self) -> "as":
        return self.service_uuids

    @dbus_property(access=PropertyAccess.READ)
    def LocalName(self) -> "s":
        return self.local_name

    @dbus_property(access=PropertyAccess.READ)
    def Discoverable(self) -> "b":
        return True

    @method()
    def Release(self):
        pass


class DFUPeripheral:
    """Registers the service and an advertisement on `adapter` of the bus at DBUS_SYSTEM_BUS_ADDRESS."""

    def __init__(self, adapter: str = "/org/bluez/hci1", name: str = "DfuTarg"):
        self.adapter = adapter
        self.name = name
        self.bus: MessageBus | None = None
        self.control_point = GattCharacteristic(dfu.CONTROL_POINT, ["write", "notify"], self._on_control_point)
        self.packet = GattCharacteristic(dfu.PACKET, ["write-without-response"], self._on_packet)
        self.target = SecureDFUTarget(self.control_point.send_notification)
        self.service = GattService(dfu.SERVICE)
        self.advertisement = Advertisement(name, [dfu.SERVICE])
        self.object_manager = ObjectManager(self._objects)

    def _on_control_point(self, value: bytes) -> None:
        self.target.control_point(value)

    def _on_packet(self, value: bytes) -> None:
        self.target.packet(value)

    def _objects(self):
        return {SERVICE_PATH: [self.service], PACKET_PATH: [self.packet], CONTROL_POINT_PATH: [self.control_point]}

    async def start(self) -> None:
        self.bus = await MessageBus(bus_type=BusType.SYSTEM, negotiate_unix_fd=True).connect()
        self.bus.export(ROOT, self.object_manager)
        for path, interfaces in self._objects().items():
            for interface in interfaces:
                self.bus.export(path, interface)
        self.bus.export(ADVERTISEMENT_PATH, self.advertisement)
        introspection = await self.bus.introspect("org.bluez", self.adapter)
        adapter = self.bus.get_proxy_object("org.bluez", self.adapter, introspection)
        await adapter.get_interface("org.bluez.GattManager1").call_register_application(ROOT, {})
        await adapter.get_interface("org.bluez.LEAdvertisingManager1").call_register_advertisement(
            ADVERTISEMENT_PATH, {})

    def stop(self) -> None:
        self.control_point.close()
        self.packet.close()
        if self.bus:
            self.bus.disconnect()
