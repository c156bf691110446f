"""`dfu` against bluezoo, a BlueZ emulator written elsewhere (PyPI `bluezoo`).

bluezoo serves org.bluez with two adapters on a private dbus-daemon: hci0 is the
host `dfu` uses; on hci1 our own Secure DFU peripheral (dfu_peripheral.py)
registers its GATT application and advertisement, so hci0's discovery reports
hci1 as a device advertising FE59 and a Connect links hci0's GATT objects to the
peripheral's. What the peripheral received is compared with the package.

Where bluezoo differs from bluetoothd (bluezoo 1.0.2), the test works around it:
- a second Connect to the same device fails in bluezoo (it exports the GATT
  objects of the application again at the same paths; bluetoothd keeps them and
  reuses them), so every `dfu` command gets a fresh bluezoo and bus: `dfu scan`
  connects to probe the mode, the upload connects once;
- a peripheral-side disconnect is not passed on in bluezoo (and its Disconnect
  leaves ServicesResolved and the GATT objects), so the peripheral cannot reset
  after the last Execute as a real bootloader does: `dfu` waits out its response
  timeout (10 s) for the reset, then ends the link itself, and still succeeds;
- bluezoo reports RSSI 0 and discovers every `--scan-interval` seconds (1 here).
"""

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from dbus_fast import BusType, Message, MessageType
from dbus_fast.aio import MessageBus

import secure_dfu as dfu
from conftest import SAMPLES, binary
from dfu_package import read_package
from dfu_peripheral import DFUPeripheral

HOST = "00:AA:01:00:00:00"
TARGET = "C0:FF:EE:00:00:10"
COMMAND_TIMEOUT = 120


async def wait_for_adapters(paths: set[str], timeout: float = 20.0) -> None:
    """Waits until bluezoo exports every adapter in `paths` powered, woken by its signals."""
    bus = await MessageBus(bus_type=BusType.SYSTEM).connect()
    changed = asyncio.Event()

    def on_message(message: Message) -> None:
        if message.message_type == MessageType.SIGNAL:
            changed.set()

    bus.add_message_handler(on_message)
    for rule in ("type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged'",
                 "type='signal',interface='org.freedesktop.DBus.ObjectManager'",
                 "type='signal',interface='org.freedesktop.DBus.Properties'"):
        await bus.call(Message(destination="org.freedesktop.DBus", path="/org/freedesktop/DBus",
                               interface="org.freedesktop.DBus", member="AddMatch", signature="s", body=[rule]))
    try:
        async with asyncio.timeout(timeout):
            while True:
                changed.clear()
                reply = await bus.call(Message(destination="org.bluez", path="/",
                                               interface="org.freedesktop.DBus.ObjectManager",
                                               member="GetManagedObjects"))
                if reply.message_type == MessageType.METHOD_RETURN:
                    objects = reply.body[0]
                    powered = {path for path in paths
                               if objects.get(path, {}).get("org.bluez.Adapter1", {}).get("Powered")
                               and objects[path]["org.bluez.Adapter1"]["Powered"].value}
                    if powered == paths:
                        return
                await changed.wait()
    finally:
        bus.disconnect()


class Bluezoo:
    """A private dbus-daemon with bluezoo on it (hci0 = host, hci1 = the peripheral's adapter)."""

    def __init__(self, log: Path):
        self.log = log.open("w")
        self.daemon = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"],
                                       stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.address = self.daemon.stdout.readline().strip() if self.daemon.stdout else ""
        assert self.address, f"dbus-daemon printed no address (see {log})"
        environment = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.address)
        self.bluezoo = subprocess.Popen(
            [str(Path(sys.executable).parent / "bluezoo"), "--auto-enable", "--scan-interval", "1",
             "--adapter", HOST, "--adapter", TARGET, "-v"],
            env=environment, stdout=self.log, stderr=subprocess.STDOUT)

    def stop(self) -> None:
        for process in (self.bluezoo, self.daemon):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        self.log.close()


@pytest.fixture
async def peripheral(tmp_path, monkeypatch):
    zoo = Bluezoo(tmp_path / "bluezoo.log")
    monkeypatch.setenv("DBUS_SYSTEM_BUS_ADDRESS", zoo.address)
    target = DFUPeripheral(adapter="/org/bluez/hci1")
    try:
        await wait_for_adapters({"/org/bluez/hci0", "/org/bluez/hci1"})
        await target.start()
        yield target
    finally:
        target.stop()
        zoo.stop()


async def run_dfu(*arguments: str) -> tuple[int, str, str]:
    """Runs the built `dfu` while this event loop keeps serving the peripheral."""
    process = await asyncio.create_subprocess_exec(
        str(binary("dfu")), *arguments, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        out, err = await asyncio.wait_for(process.communicate(), COMMAND_TIMEOUT)
    except TimeoutError:
        process.kill()
        out, err = await process.communicate()
        pytest.fail(f"dfu {' '.join(arguments)} did not end in {COMMAND_TIMEOUT} s: {err.decode()}")
    return process.returncode, out.decode(), err.decode()


async def test_dfu_scan_lists_the_peripheral_as_a_secure_bootloader(peripheral):
    status, out, err = await run_dfu("scan", "--timeout", "3", "--adapter", "hci0", "--json")
    assert status == 0, err
    devices = json.loads(out)["devices"]
    # The mode comes from the services of a short connection (FE59 with Control Point and Packet).
    assert [(d["address"], d["name"], d["mode"]) for d in devices] == [(TARGET, "DfuTarg", "secure-bootloader")]
    assert [uuid.lower() for uuid in devices[0]["services"]] == [dfu.SERVICE]


@pytest.mark.parametrize("acquire", [True, False], ids=["acquire", "no-acquire"])
async def test_dfu_upload_delivers_the_init_packet_and_image_byte_exact(peripheral, acquire):
    package = SAMPLES / "secure-app.zip"
    part = read_package(package)[0]
    options = [] if acquire else ["--no-acquire"]
    status, _, err = await run_dfu("upload", str(package), "--device", TARGET, "--adapter", "hci0", *options)
    assert status == 0, err

    target = peripheral.target
    assert target.command == part.init_packet
    assert target.executed_command
    assert target.data == part.image
    assert target.executed_data == len(part.image)
    if acquire:
        # Packets over the AcquireWrite socket, answers over the AcquireNotify socket.
        assert peripheral.packet.acquire_write_calls >= 1 and peripheral.packet.write_value_calls == 0
        assert peripheral.control_point.acquire_notify_calls >= 1 and peripheral.control_point.start_notify_calls == 0
    else:
        # Every packet a WriteValue, every answer a PropertiesChanged after StartNotify.
        assert peripheral.packet.acquire_write_calls == 0 and peripheral.control_point.acquire_notify_calls == 0
        assert peripheral.packet.write_value_calls == target.packet_writes
        assert peripheral.control_point.start_notify_calls >= 1
