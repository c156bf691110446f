"""bleak, a BLE client written elsewhere, against `dfu-sim serve` as bluetoothd.

Each test starts its own `dfu-sim serve` (a private dbus-daemon with the stand-in
on it) and points bleak's BlueZ backend at it through DBUS_SYSTEM_BUS_ADDRESS.
bleak checks the BlueZ version with `bluetoothctl --version` (Debian's 5.66 here),
then uses only the D-Bus API: discovery, Device1.Connect, the GATT objects,
StartNotify or AcquireNotify, WriteValue with type request or command.

Tests marked `stand_in_difference` pin bluetoothd 5.66's real behaviour where the
stand-in still differs (the row of the fidelity findings is named); they are strict
expected failures until the stand-in is fixed, then the marker must go.
"""

import asyncio
import zlib

import pytest
from bleak import BleakClient, BleakScanner
from bleak.exc import (BleakBluetoothNotAvailableError, BleakBluetoothNotAvailableReason, BleakDBusError,
                       BleakGATTProtocolError, BleakGATTProtocolErrorCode)
from dbus_fast import BusType, Message
from dbus_fast.aio import MessageBus

import secure_dfu as dfu
from conftest import PACKAGES, SAMPLES
from dfu_package import read_package

BOOTLOADER = "C0:FF:EE:00:00:10"
DEVICE_PATH = "/org/bluez/hci0/dev_C0_FF_EE_00_00_10"
# secure-app.zip is for hw_version 52 and SoftDevice 0xB7 (firmware-samples/README.md).
SECURE_BOOTLOADER = ("--device", "secure,sd_id=0xB7")


def stand_in_difference(row: str, what: str):
    return pytest.mark.xfail(reason=f"{row}: dfu-sim {what}", strict=True)


async def connected(address: str = BOOTLOADER, **kwargs) -> BleakClient:
    client = BleakClient(address, timeout=10, **kwargs)
    await client.connect()
    return client


def dfu_characteristics(client: BleakClient):
    service = client.services.get_service(dfu.SERVICE)
    assert service is not None, f"no FE59 service among {[s.uuid for s in client.services]}"
    return (service, service.get_characteristic(dfu.CONTROL_POINT),
            service.get_characteristic(dfu.PACKET))


async def dfu_client(client: BleakClient, use_start_notify: bool, timeout: float = 10.0) -> dfu.SecureDFUClient:
    _, control_point, packet = dfu_characteristics(client)
    notifications: asyncio.Queue[bytes] = asyncio.Queue()
    await client.start_notify(control_point, lambda _, data: notifications.put_nowait(bytes(data)),
                              bluez={"use_start_notify": use_start_notify})

    async def write_control_point(data: bytes) -> None:
        await client.write_gatt_char(control_point, data, response=True)

    async def write_packet(data: bytes) -> None:
        await client.write_gatt_char(packet, data, response=False)

    size = packet.max_write_without_response_size
    return dfu.SecureDFUClient(write_control_point, write_packet, notifications, packet_size=size - size % 4,
                               timeout=timeout)


async def managed_objects() -> dict:
    bus = await MessageBus(bus_type=BusType.SYSTEM).connect()
    try:
        reply = await bus.call(Message(destination="org.bluez", path="/",
                                       interface="org.freedesktop.DBus.ObjectManager",
                                       member="GetManagedObjects"))
        return reply.body[0]
    finally:
        bus.disconnect()


async def test_discovery_reports_the_bootloader_with_its_name_and_dfu_service(dfu_sim):
    dfu_sim(*SECURE_BOOTLOADER)
    found = await BleakScanner.discover(timeout=2.0, return_adv=True, service_uuids=[dfu.SERVICE])
    assert BOOTLOADER in found, f"bleak saw {list(found)}"
    device, advertisement = found[BOOTLOADER]
    assert device.name == "DfuTarg"
    assert dfu.SERVICE in advertisement.service_uuids
    assert isinstance(advertisement.rssi, int) and -127 <= advertisement.rssi <= 20


@pytest.mark.parametrize(("option", "reason"), [
    ("--adapter-off", BleakBluetoothNotAvailableReason.POWERED_OFF),
    ("--no-adapter", BleakBluetoothNotAvailableReason.NO_BLUETOOTH),
])
async def test_a_host_without_a_powered_adapter_is_reported_as_bluetooth_not_available(dfu_sim, option, reason):
    dfu_sim(*SECURE_BOOTLOADER, option)
    # bleak picks the first Adapter1 with the "central" role and Powered true (manager.py get_default_adapter).
    with pytest.raises(BleakBluetoothNotAvailableError) as raised:
        await BleakScanner.discover(timeout=1.0)
    assert raised.value.reason == reason


async def test_connect_resolves_the_dfu_service_with_control_point_and_packet(dfu_sim):
    dfu_sim(*SECURE_BOOTLOADER)
    client = await connected()
    try:
        assert client.is_connected
        _, control_point, packet = dfu_characteristics(client)
        # nrf_dfu_ble.c: the Control Point is written with response and notifies.
        assert sorted(control_point.properties) == ["notify", "write"]
        assert "write-without-response" in packet.properties
        assert [d.uuid[4:8] for d in control_point.descriptors] == ["2902"]
    finally:
        await client.disconnect()


@stand_in_difference("B2", "gives the Packet characteristic notify and a CCCD, and declares it after the Control Point")
async def test_packet_is_write_without_response_only_and_declared_before_the_control_point(dfu_sim):
    dfu_sim(*SECURE_BOOTLOADER)
    client = await connected()
    try:
        _, control_point, packet = dfu_characteristics(client)
        # nrf_dfu_ble.c adds the Packet characteristic first (dfu_pkt_char_add, then dfu_ctrl_pt_add).
        assert packet.properties == ["write-without-response"]
        assert packet.descriptors == []
        assert packet.handle < control_point.handle
    finally:
        await client.disconnect()


async def test_a_control_point_write_before_notifications_are_enabled_is_refused_with_att_error_fd(dfu_sim):
    dfu_sim(*SECURE_BOOTLOADER)
    client = await connected()
    try:
        _, control_point, _ = dfu_characteristics(client)
        # nrf_dfu_ble.c on_ctrl_pt_write(): without the CCCD set, the write is answered with
        # BLE_GATT_STATUS_ATTERR_CPS_CCCD_CONFIG_ERROR (ATT 0xFD); BlueZ 5.66 create_gatt_dbus_error()
        # has no name for it: Failed "Operation failed with ATT error: 0xfd", which bleak parses back.
        with pytest.raises(BleakGATTProtocolError) as raised:
            await client.write_gatt_char(control_point, dfu.request(dfu.SELECT, ("B", dfu.COMMAND_OBJECT)), response=True)
        assert raised.value.code == BleakGATTProtocolErrorCode.CCCD_IMPROPERLY_CONFIGURED
        # The exact reply (later BlueZ versions name it org.bluez.Error.ImproperlyConfigured instead).
        bus = await MessageBus(bus_type=BusType.SYSTEM).connect()
        try:
            reply = await bus.call(Message(destination="org.bluez", path=control_point.obj[0],
                                           interface="org.bluez.GattCharacteristic1", member="WriteValue",
                                           signature="aya{sv}", body=[b"\x06\x01", {}]))
        finally:
            bus.disconnect()
        assert (reply.error_name, reply.body) == ("org.bluez.Error.Failed", ["Operation failed with ATT error: 0xfd"])
    finally:
        await client.disconnect()


@pytest.mark.parametrize("use_start_notify", [True, False], ids=["StartNotify", "AcquireNotify"])
async def test_control_point_answers_arrive_as_notifications(dfu_sim, use_start_notify):
    serve = dfu_sim(*SECURE_BOOTLOADER)
    client = await connected()
    try:
        session = await dfu_client(client, use_start_notify)
        # 06 01 (Select command object) → 60 06 01 max_size offset crc: nothing received yet.
        state = await session.select(dfu.COMMAND_OBJECT)
        assert state.offset == 0 and state.crc == 0 and state.max_size >= 128
        # 02 0c 00 (Set PRN 12) → 60 02 01
        await session.set_prn(12)
    finally:
        await client.disconnect()
    stats = serve.stop()["devices"][0]["stats"]
    if use_start_notify:
        assert (stats["start_notify"], stats["acquire_notify"]) == (1, 0)
    else:
        assert (stats["start_notify"], stats["acquire_notify"]) == (0, 1)


async def test_writes_without_response_go_as_write_value_commands(dfu_sim):
    serve = dfu_sim(*SECURE_BOOTLOADER)
    part = read_package(SAMPLES / "secure-app.zip")[0]
    client = await connected()
    try:
        session = await dfu_client(client, use_start_notify=True)
        await session.call(dfu.request(dfu.CREATE, ("B", dfu.COMMAND_OBJECT), ("I", len(part.init_packet))))
        packets = [part.init_packet[i:i + 20] for i in range(0, len(part.init_packet), 20)]
        for chunk in packets:
            await session.write_packet(chunk)
        # 03 → 60 03 01 offset crc: every byte written without response arrived, in order.
        assert await session.checksum() == (len(part.init_packet), zlib.crc32(part.init_packet))
    finally:
        await client.disconnect()
    stats = serve.stop()["devices"][0]["stats"]
    assert stats["write_value_commands"] == len(packets)
    assert stats["acquire_write"] == 0


@pytest.mark.parametrize("use_start_notify", [True, False], ids=["StartNotify", "AcquireNotify"])
async def test_a_whole_secure_dfu_exchange_installs_the_image_byte_exact(dfu_sim, use_start_notify):
    serve = dfu_sim(*SECURE_BOOTLOADER)
    part = read_package(SAMPLES / "secure-app.zip")[0]
    assert part.kind == "application" and len(part.image) == 20480
    disconnected = asyncio.Event()
    client = await connected(disconnected_callback=lambda _: disconnected.set())
    try:
        session = await dfu_client(client, use_start_notify)
        # PRN 4 and a pause after the first Create, as Nordic's own clients pace an SDK 15-17 bootloader.
        objects = await session.upload(part.init_packet, part.image, prn=4, first_object_pause=0.4)
        assert objects == 5
        # The last Execute installs the image and resets the device: the link drops.
        await asyncio.wait_for(disconnected.wait(), 10)
    finally:
        await client.disconnect()
    device = serve.stop()["devices"][0]
    assert device["images"]["application"] == {"size": len(part.image), "crc32": f"{part.image_crc32:08x}"}
    assert device["stats"]["crc_failures"] == 0
    assert device["stats"]["dropped_packets"] == 0


async def test_the_last_execute_is_answered_before_the_reset_whatever_the_connection_interval(dfu_sim):
    serve = dfu_sim(*SECURE_BOOTLOADER, "--link", "interval_ms=50")
    part = read_package(SAMPLES / "secure-app.zip")[0]
    client = await connected()
    try:
        session = await dfu_client(client, use_start_notify=True, timeout=5.0)
        # nrf_dfu_req_handler.c on_data_obj_execute_request_sched(): the response goes to the transport
        # first; the reset follows only from the settings write's callback (on_dfu_complete).
        assert await session.upload(part.init_packet, part.image, prn=4, first_object_pause=0.4) == 5
    finally:
        await client.disconnect()
    assert serve.stop()["devices"][0]["images"]["application"]["size"] == len(part.image)


async def test_a_client_that_does_not_pace_uploads_512_kb_byte_exact_as_to_an_sdk_15_17_bootloader(dfu_sim):
    serve = dfu_sim(*SECURE_BOOTLOADER)
    part = read_package(PACKAGES / "secure-app-512000.zip")[0]
    disconnected = asyncio.Event()
    client = await connected(disconnected_callback=lambda _: disconnected.set())
    try:
        session = await dfu_client(client, use_start_notify=True)
        # PRN 0, packets back to back, no pause after any Create. SDK 15-17 nrf_dfu_req_handler.c
        # on_data_obj_execute_request_sched() reschedules itself while nrf_fstorage_is_busy(), so the
        # Execute answer comes only when the object is in flash, and one object fits the receive buffers.
        assert await session.upload(part.init_packet, part.image, prn=0, first_object_pause=0.0) == 125
        await asyncio.wait_for(disconnected.wait(), 10)
    finally:
        await client.disconnect()
    device = serve.stop()["devices"][0]
    assert device["images"]["application"] == {"size": len(part.image), "crc32": f"{part.image_crc32:08x}"}
    assert device["stats"]["dropped_packets"] == 0


async def test_a_reconnection_finds_the_same_services_and_the_bootloader_kept_the_partial_object(dfu_sim):
    dfu_sim(*SECURE_BOOTLOADER)
    part = read_package(SAMPLES / "secure-app.zip")[0]
    client = await connected()
    try:
        session = await dfu_client(client, use_start_notify=True)
        await session.call(dfu.request(dfu.CREATE, ("B", dfu.COMMAND_OBJECT), ("I", len(part.init_packet))))
        await session.write_packet(part.init_packet[:64])
        await session.checksum()
        first_paths = sorted(s.obj[0] for s in client.services.characteristics.values())
    finally:
        await client.disconnect()
    assert not client.is_connected

    client = await connected()
    try:
        # Same address, default Cache=always: the same objects, at the same paths.
        assert sorted(s.obj[0] for s in client.services.characteristics.values()) == first_paths
        session = await dfu_client(client, use_start_notify=True)
        # The bootloader kept the command object across the link loss: a client can resume it.
        state = await session.select(dfu.COMMAND_OBJECT)
        assert (state.offset, state.crc) == (64, zlib.crc32(part.init_packet[:64]))
    finally:
        await client.disconnect()


@stand_in_difference("B1", "removes every GATT object of a device when its link drops")
async def test_gatt_objects_stay_exported_after_a_disconnect(dfu_sim):
    dfu_sim(*SECURE_BOOTLOADER)
    client = await connected()
    await client.disconnect()
    objects = await managed_objects()
    device = objects[DEVICE_PATH]["org.bluez.Device1"]
    assert device["Connected"].value is False
    # device.c gatt_cache_cleanup(): with [GATT] Cache = always the attribute database and its
    # D-Bus objects are kept for the next connection.
    services = [path for path, interfaces in objects.items()
                if path.startswith(DEVICE_PATH + "/") and "org.bluez.GattService1" in interfaces]
    assert services, "no GattService1 left under the device after the disconnect"


BUTTONLESS = "8ec90003-f315-4f60-9fb8-838830daea50"


async def test_buttonless_answers_enter_bootloader_by_indication_and_the_bootloader_appears_at_address_plus_one(dfu_sim):
    dfu_sim("--device", "buttonless,sd_id=0xB7")
    disconnected = asyncio.Event()
    client = await connected(disconnected_callback=lambda _: disconnected.set())
    try:
        characteristic = client.services.get_characteristic(BUTTONLESS)
        assert characteristic is not None and sorted(characteristic.properties) == ["indicate", "write"]
        indications: asyncio.Queue[bytes] = asyncio.Queue()
        await client.start_notify(characteristic, lambda _, data: indications.put_nowait(bytes(data)))
        # 01 (enter bootloader) → indication 20 01 01 (response to 01: success), then the reset.
        await client.write_gatt_char(characteristic, b"\x01", response=True)
        assert await asyncio.wait_for(indications.get(), 10) == bytes([0x20, 0x01, 0x01])
        await asyncio.wait_for(disconnected.wait(), 10)
    finally:
        await client.disconnect()
    # ble_dfu_unbonded.c: without bonds the bootloader advertises at the address + 1.
    found = await BleakScanner.discover(timeout=2.0, return_adv=True, service_uuids=[dfu.SERVICE])
    assert "C0:FF:EE:00:00:11" in found, f"bleak saw {list(found)}"


@stand_in_difference("B3", "exports NotifyAcquired on indicate-only characteristics and lets AcquireNotify take them")
async def test_an_indicate_only_characteristic_offers_no_acquire_notify_so_bleak_uses_start_notify(dfu_sim):
    serve = dfu_sim("--device", "buttonless,sd_id=0xB7")
    client = await connected()
    try:
        characteristic = client.services.get_characteristic(BUTTONLESS)
        # gatt-client.c (5.66): characteristic_notify_acquired_exists() shows NotifyAcquired only with
        # the "notify" flag, and characteristic_acquire_notify() answers NotSupported without it.
        assert "NotifyAcquired" not in characteristic.obj[1]
        # bleak asks for AcquireNotify only where NotifyAcquired is present, else StartNotify.
        await client.start_notify(characteristic, lambda *_: None, bluez={"use_start_notify": False})
    finally:
        await client.disconnect()
    stats = serve.stop()["devices"][0]["stats"]
    assert (stats["start_notify"], stats["acquire_notify"]) == (1, 0)


async def test_services_are_generic_attribute_and_dfu_without_the_claimed_gap_service(dfu_sim):
    dfu_sim(*SECURE_BOOTLOADER)
    client = await connected()
    try:
        # gatt-client.c export_service() skips services claimed by an internal profile: GAP (1800)
        # belongs to profiles/gap/gas.c, so bluetoothd exports only 1801 and the DFU service.
        assert sorted(s.uuid[4:8] for s in client.services) == ["1801", "fe59"]
    finally:
        await client.disconnect()


@stand_in_difference("B13", "leaves GAP (1800) out of Device1.UUIDs")
async def test_device_uuids_name_every_resolved_service_the_gap_service_included(dfu_sim):
    dfu_sim(*SECURE_BOOTLOADER)
    client = await connected()
    try:
        uuids = (await managed_objects())[DEVICE_PATH]["org.bluez.Device1"]["UUIDs"].value
        # device.c add_gatt_service() adds every primary service's UUID, claimed or not.
        assert {"00001800-0000-1000-8000-00805f9b34fb", dfu.SERVICE} <= set(uuids)
    finally:
        await client.disconnect()


@stand_in_difference("B7", "answers a read of the Control Point with Failed \"ATT error: 0x0a\"")
async def test_reading_the_control_point_is_not_permitted(dfu_sim):
    dfu_sim(*SECURE_BOOTLOADER)
    client = await connected()
    try:
        _, control_point, _ = dfu_characteristics(client)
        # The SDK gives the Control Point no read permission: ATT error 0x02, which
        # gatt-client.c create_gatt_dbus_error() turns into NotPermitted "Read not permitted",
        # and bleak (assert_gatt_reply) back into the ATT code.
        with pytest.raises(BleakGATTProtocolError) as raised:
            await client.read_gatt_char(control_point)
        assert raised.value.code == BleakGATTProtocolErrorCode.READ_NOT_PERMITTED
    finally:
        await client.disconnect()


@stand_in_difference("B9", "refuses WriteValue type=command on the Control Point with NotSupported")
async def test_a_write_command_to_the_control_point_is_sent_without_error(dfu_sim):
    dfu_sim(*SECURE_BOOTLOADER)
    client = await connected()
    try:
        _, control_point, _ = dfu_characteristics(client)
        # gatt-client.c characteristic_write_value(): type "command" sends an ATT Write Command
        # whatever the characteristic's flags and returns at once.
        await client.write_gatt_char(control_point, dfu.request(dfu.SELECT, ("B", dfu.COMMAND_OBJECT)), response=False)
    finally:
        await client.disconnect()


@stand_in_difference("B6", "lets a Secure bootloader pair and bond")
async def test_pairing_with_a_secure_bootloader_fails_and_leaves_it_unpaired(dfu_sim):
    dfu_sim(*SECURE_BOOTLOADER)
    client = await connected()
    try:
        # The bootloader answers SMP Pairing Failed (finding B6). Linux smp.c smp_sig_channel() passes a
        # received Pairing Failed to smp_failure(), which reports mgmt_auth_failed(HCI_ERROR_AUTH_FAILURE);
        # BlueZ's device.c new_authentication_return() turns that status into AuthenticationFailed.
        with pytest.raises(BleakDBusError) as raised:
            await client.pair()
        assert raised.value.dbus_error == "org.bluez.Error.AuthenticationFailed"
        device = (await managed_objects())[DEVICE_PATH]["org.bluez.Device1"]
        assert device["Paired"].value is False and device["Bonded"].value is False
    finally:
        await client.disconnect()


async def test_device_properties_after_service_resolution(dfu_sim):
    dfu_sim(*SECURE_BOOTLOADER)
    client = await connected()
    try:
        device = (await managed_objects())[DEVICE_PATH]["org.bluez.Device1"]
        assert device["Connected"].value is True and device["ServicesResolved"].value is True
        assert device["Address"].value == BOOTLOADER and device["AddressType"].value in ("public", "random")
        assert dfu.SERVICE in device["UUIDs"].value
    finally:
        await client.disconnect()
