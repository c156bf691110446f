"""smpclient and smpmgr, the MCUmgr/SMP client library and command line written elsewhere, against
`dfu-sim serve --device smp` as bluetoothd.

Each test starts its own `dfu-sim serve` with the simulated Zephyr/MCUboot target (Zephyr's `smp_svr`
with its Bluetooth overlay on an nRF52840: one image, buf_size 2475, buf_count 4) and points bleak,
which smpclient's BLE transport drives, at its private bus. smpclient finds the device by a scan,
connects, asks AcquireWrite for the ATT MTU, subscribes to the SMP characteristic with StartNotify,
reads the MCUmgr parameters, and writes every request without response in pieces of MTU − 3 bytes,
one request at a time. The images are made by MCUboot's imgtool (mcuboot_image.py).

What a request and its answer must be is Zephyr's: `subsys/mgmt/mcumgr/grp/os_mgmt/src/os_mgmt.c` and
`subsys/mgmt/mcumgr/grp/img_mgmt/src/img_mgmt.c`, `img_mgmt_state.c`, `zephyr_img_mgmt.c`; the
simulated target names the function it follows for each (Sources/DFUSimulator/SimulatedZephyrTarget.swift).
"""

import asyncio
import os
import time
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from bleak.exc import BleakError
from smpclient import SMPClient
from smpclient.generics import error, success
from smpclient.requests.image_management import ImageStatesRead, ImageStatesWrite
from smpclient.requests.os_management import EchoWrite, MCUMgrParametersRead, ResetWrite
from smpclient.transport import SMPTransportDisconnected
from smpclient.transport.ble import SMPBLETransport

from mcuboot_image import make_image

ADDRESS = "C0:FF:EE:00:00:10"
SMP_TARGET = ("--device", "smp")
# smpclient's request timeout; the simulated target answers within a few connection intervals,
# but the machine running the suite may be busy.
TIMEOUT = 10.0


def smp_client() -> SMPClient:
    return SMPClient(SMPBLETransport(), ADDRESS, timeout_s=TIMEOUT)


async def image_states(client: SMPClient) -> list:
    response = await client.request(ImageStatesRead())
    assert success(response), f"image state read answered {response}"
    return response.images


async def upload(client: SMPClient, data: bytes, stop_after: int | None = None) -> list[int]:
    """smpclient's upload, one request at a time; the offsets the target answered.

    With `stop_after`, the upload is left once the target has taken at least that many bytes."""
    offsets = []
    async for offset in client.upload(data, first_timeout_s=TIMEOUT, subsequent_timeout_s=TIMEOUT):
        offsets.append(offset)
        if stop_after is not None and offset >= stop_after:
            break
    return offsets


def report_slots(serve) -> list[dict]:
    device = serve.stop()["devices"][0]
    return device["slots"]


async def test_mcumgr_parameters_are_the_targets_netbuf_size_and_count(dfu_sim):
    dfu_sim(*SMP_TARGET)
    async with smp_client() as client:
        # os_mgmt.c os_mgmt_mcumgr_params(): {"buf_size": CONFIG_MCUMGR_TRANSPORT_NETBUF_SIZE,
        # "buf_count": CONFIG_MCUMGR_TRANSPORT_NETBUF_COUNT}; smp_svr's overlay-bt.conf sets the size to 2475.
        response = await client.request(MCUMgrParametersRead())
        assert success(response), f"MCUmgr parameters answered {response}"
        assert (response.buf_size, response.buf_count) == (2475, 4)
        # smpclient sizes its upload requests to the whole buffer (SMPTransport.max_unencoded_size).
        assert client._transport.max_unencoded_size == 2475


@pytest.mark.parametrize("text", ["hello", "", "é" * 300], ids=["short", "empty", "longer-than-one-notification"])
async def test_echo_answers_the_same_text(dfu_sim, text):
    dfu_sim(*SMP_TARGET)
    async with smp_client() as client:
        # os_mgmt.c os_mgmt_echo(): {"d": text} → {"r": text}. 600 bytes of UTF-8 need two writes and two
        # notifications at MTU 498: smp_bt.c reassembles the request and splits the answer.
        response = await client.request(EchoWrite(d=text))
        assert success(response), f"echo answered {response}"
        assert response.r == text


async def test_the_image_list_shows_the_running_image_active_and_confirmed(dfu_sim):
    serve = dfu_sim(*SMP_TARGET)
    async with smp_client() as client:
        images = await image_states(client)
    # img_mgmt_state.c img_mgmt_state_read(): one entry per slot holding a readable image; the running
    # one active and confirmed; "image" only with more than one updatable image. smp's ImageState
    # forbids fields it does not know, so the answer has Zephyr's field names and types.
    assert len(images) == 1
    running = images[0]
    assert (running.image, running.slot, running.active, running.confirmed, running.pending, running.permanent) == (
        None, 0, True, True, False, False)
    assert running.bootable is True
    assert re.fullmatch(r"\d+\.\d+\.\d+(\.\d+)?", running.version)
    (slot,) = report_slots(serve)
    assert (slot["image"], slot["slot"], slot["version"]) == (0, 0, running.version)
    assert slot["hash"] == bytes(running.hash).hex()


async def test_an_imgtool_image_uploads_into_the_secondary_slot_with_its_hash_listed(dfu_sim, tmp_path):
    serve = dfu_sim(*SMP_TARGET)
    image = make_image(tmp_path, body_size=30_000, version="1.1.0", seed=1)
    async with smp_client() as client:
        offsets = await upload(client, image.data)
        # img_mgmt.c img_mgmt_upload(): every answer is the next offset the target expects; with
        # IMG_ENABLE_IMAGE_CHECK the last one also says whether the slot hashes to the request's "sha"
        # (smpclient sends the SHA-256 of the whole file and raises on match: false).
        assert offsets[-1] == len(image.data)
        assert offsets == sorted(offsets) and len(offsets) == len(set(offsets))
        # A request fills buf_size: 2475 bytes of frame carry about 2.4 KB of image.
        assert len(offsets) <= len(image.data) // 2300 + 1
        images = await image_states(client)
    assert [(i.slot, i.version, bytes(i.hash), i.active, i.pending, i.confirmed) for i in images] == [
        (0, images[0].version, bytes(images[0].hash), True, False, True),
        (1, "1.1.0", image.digest, False, False, False),
    ]
    report = serve.stop()["devices"][0]
    assert [(s["slot"], s["version"], s["hash"]) for s in report["slots"]][1] == (1, "1.1.0", image.hash_hex)
    stats = report["stats"]
    # One request at a time: never more than one in flight, nothing sent twice.
    assert stats["smp_max_in_flight"] == 1
    assert stats["smp_retransmissions"] == 0


async def test_test_reset_and_the_image_list_show_the_swap_then_confirm_makes_it_permanent(dfu_sim, tmp_path):
    serve = dfu_sim(*SMP_TARGET)
    image = make_image(tmp_path, body_size=20_000, version="2.0.0+7", seed=2)
    async with smp_client() as client:
        running = (await image_states(client))[0]
        await upload(client, image.data)
        # img_mgmt_state.c img_mgmt_state_write(): {"hash": h, "confirm": false} marks the secondary for test;
        # the answer is the image list, the secondary now pending.
        response = await client.request(ImageStatesWrite(hash=image.digest))
        assert success(response), f"state write (test) answered {response}"
        secondary = next(i for i in response.images if i.slot == 1)
        assert (bytes(secondary.hash), secondary.pending, secondary.confirmed, secondary.permanent) == (
            image.digest, True, False, False)
        # os_mgmt.c os_mgmt_reset(): answered first, the reset follows MCUMGR_GRP_OS_RESET_MS later.
        response = await client.request(ResetWrite())
        assert success(response), f"reset answered {response}"
        # smpclient's BLE transport sets this event from bleak's disconnected callback.
        await asyncio.wait_for(client._transport._disconnected_event.wait(), TIMEOUT)

    # MCUboot swapped the images: the new one runs under test (not confirmed), the old one waits in the
    # secondary slot to come back at the next reset unless the new one is confirmed.
    async with smp_client() as client:
        images = await image_states(client)
        assert [(i.slot, i.version, bytes(i.hash), i.active, i.confirmed, i.pending) for i in images] == [
            (0, "2.0.0.7", image.digest, True, False, False),
            (1, running.version, bytes(running.hash), False, True, False),
        ]
        # {"confirm": true} without a hash confirms the running image (img_mgmt_state_confirm()).
        response = await client.request(ImageStatesWrite(confirm=True))
        assert success(response), f"state write (confirm) answered {response}"
        assert (response.images[0].slot, response.images[0].confirmed) == (0, True)
    report = serve.stop()["devices"][0]
    assert [(s["slot"], s["version"], s["hash"], s["active"], s["confirmed"]) for s in report["slots"]] == [
        (0, "2.0.0.7", image.hash_hex, True, True),
        (1, running.version, bytes(running.hash).hex(), False, False),
    ]
    assert report["stats"]["smp_resets"] == 1


async def test_an_upload_left_after_a_disconnect_resumes_at_the_targets_offset(dfu_sim, tmp_path):
    serve = dfu_sim(*SMP_TARGET)
    image = make_image(tmp_path, body_size=40_000, version="1.2.0", seed=3)
    async with smp_client() as client:
        first = await upload(client, image.data, stop_after=10_000)
    taken = first[-1]
    assert 10_000 <= taken < len(image.data)
    # The upload state is in RAM and outlives the link (smp_bt.c smp_bt_disconnected() only drops a
    # reassembly). smpclient starts again at offset 0 with the same "sha"; zephyr_img_mgmt.c
    # img_mgmt_upload_inspect() recognises the upload in progress and answers its offset, writing nothing.
    async with smp_client() as client:
        second = await upload(client, image.data)
        images = await image_states(client)
    assert second[0] == taken
    assert second[-1] == len(image.data)
    assert next(bytes(i.hash) for i in images if i.slot == 1) == image.digest
    report = serve.stop()["devices"][0]
    assert report["slots"][1]["hash"] == image.hash_hex
    # The resume costs one request: offset 0 sent again (its data is not written again).
    assert report["stats"]["smp_retransmissions"] == 1


async def test_a_test_of_an_unknown_hash_is_refused_with_the_image_groups_error(dfu_sim):
    dfu_sim(*SMP_TARGET)
    async with smp_client() as client:
        response = await client.request(ImageStatesWrite(hash=bytes(32)))
    # img_mgmt_state.c img_mgmt_state_write(): no slot with that hash → IMG_MGMT_ERR_HASH_NOT_FOUND (8),
    # as an SMP version 2 group error {"err": {"group": 1, "rc": 8}} (smp.c smp_add_cmd_err()).
    assert error(response), f"state write of an unknown hash answered {response}"
    assert (int(response.err.group), int(response.err.rc)) == (1, 8)


def smpmgr(*arguments: str) -> str:
    """smpmgr's command line (the venv's), on the bus DBUS_SYSTEM_BUS_ADDRESS names; its output.

    smpmgr keeps a debug log (its --logfile: smpclient's steps and every D-Bus signal bleak read, timed); when
    the command fails, the log's last lines are in the failure, to say which step never finished."""
    with tempfile.TemporaryDirectory(prefix="smpmgr-") as folder:
        log = Path(folder) / "smpmgr.log"
        command = [str(Path(sys.executable).parent / "smpmgr"), "--ble", ADDRESS, "--timeout", str(TIMEOUT),
                   "--logfile", str(log), *arguments]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120,
                              env={**os.environ, "COLUMNS": "300", "TERM": "dumb", "NO_COLOR": "1"})
        if done.returncode != 0:
            lines = log.read_text(errors="replace").splitlines() if log.exists() else ["(smpmgr wrote no log)"]
            steps = "\n".join(line[:400] for line in lines[-40:])
            pytest.fail(f"{' '.join(arguments)}: exit {done.returncode}\n{done.stdout}\n{done.stderr}\n"
                        f"smpmgr's log, last {min(len(lines), 40)} of {len(lines)} lines:\n{steps}")
    return done.stdout


def listed(output: str) -> list[dict]:
    """The ImageState lines `smpmgr image state-read` prints (rich's repr of smp's ImageState), e.g.
    ImageState(slot=0, version='1.0.0', image=None, hash=HashBytes('00FE…3D'), bootable=True, …)."""
    entries = []
    for line in output.splitlines():
        if not line.startswith("ImageState("):
            continue
        fields = re.findall(r"(\w+)=(?:HashBytes\('([0-9A-F]+)'\)|'([^']*)'|([^,)]+))", line)
        entries.append({key: hashed or quoted or plain for key, hashed, quoted, plain in fields})
    return entries


def test_smpmgr_uploads_tests_resets_and_lists_the_swapped_image(dfu_sim, tmp_path):
    serve = dfu_sim(*SMP_TARGET)
    image = make_image(tmp_path, body_size=25_000, version="3.1.4", seed=4)
    before = listed(smpmgr("image", "state-read"))
    assert [(e["slot"], e["active"], e["confirmed"]) for e in before] == [("0", "True", "True")]
    smpmgr("image", "upload", str(image.path))
    smpmgr("image", "state-write", image.hash_hex)
    smpmgr("os", "reset")
    after = listed(smpmgr("image", "state-read"))
    assert [(e["slot"], e["version"], e["hash"].lower(), e["active"], e["confirmed"]) for e in after] == [
        ("0", "3.1.4", image.hash_hex, "True", "False"),
        ("1", before[0]["version"], before[0]["hash"].lower(), "False", "True"),
    ]
    report = serve.stop()["devices"][0]
    assert report["slots"][0]["hash"] == image.hash_hex
    assert report["stats"]["smp_resets"] == 1


def test_smpmgr_echo(dfu_sim):
    dfu_sim(*SMP_TARGET)
    assert "hello from smpmgr" in smpmgr("os", "echo", "hello from smpmgr")


async def test_an_upload_cut_by_the_link_resumes_at_the_targets_offset(dfu_sim, tmp_path):
    # The device drops the link once 12000 bytes of SMP writes reached it: within the fifth request.
    serve = dfu_sim(*SMP_TARGET, "--fault", "disconnect-after-bytes=12000")
    image = make_image(tmp_path, body_size=40_000, version="1.3.0", seed=5)
    offsets = []
    client = smp_client()
    await client.connect()
    # smpclient's BLE transport turns bleak's disconnected callback into SMPTransportDisconnected while it waits
    # for an answer; while it still writes the request's pieces, bleak refuses the next write (the link's services
    # are gone) with BleakError. Which one depends on when the stand-in's event loop tears the link down.
    with pytest.raises((SMPTransportDisconnected, BleakError)):
        async for offset in client.upload(image.data, first_timeout_s=TIMEOUT, subsequent_timeout_s=TIMEOUT):
            offsets.append(offset)
    await client.disconnect()
    assert 0 < offsets[-1] < 12_000
    async with smp_client() as client:
        resumed = await upload(client, image.data)
        images = await image_states(client)
    # Either the cut request never became a whole frame (smp_bt.c drops the partial reassembly) and the
    # target expects the same offset again, or it was written and only its answer was lost: one chunk further.
    assert offsets[-1] <= resumed[0] <= offsets[-1] + 2475
    assert resumed[-1] == len(image.data)
    assert next(bytes(i.hash) for i in images if i.slot == 1) == image.digest
    report = serve.stop()["devices"][0]
    assert report["slots"][1]["hash"] == image.hash_hex
    assert report["stats"]["smp_max_in_flight"] == 1


async def test_with_smp_paced_an_upload_takes_the_links_time_on_the_wall_clock(dfu_sim, tmp_path):
    # By default the stand-in answers SMP requests as fast as the host runs; `--link smp_paced=yes` holds each
    # answer until the modelled link and flash deliver it (dfu-bench figure 6 measures throughput so).
    serve = dfu_sim(*SMP_TARGET, "--link", "mtu=498,interval_ms=15,phy=2m,smp_paced=yes")
    image = make_image(tmp_path, body_size=40_000, version="1.4.0", seed=6)
    async with smp_client() as client:
        started = time.monotonic()
        offsets = await upload(client, image.data)
        elapsed = time.monotonic() - started
    assert offsets[-1] == len(image.data)
    # One request at a time: each answer comes in a connection event after its request (15 ms at least), and
    # the flash writes the image at no more than 4 bytes per 41 us (nRF52840 datasheet maxima, FlashTimings).
    assert elapsed >= len(offsets) * 0.015
    assert elapsed >= len(image.data) / 4 * 41e-6
    report = serve.stop()["devices"][0]
    assert report["slots"][1]["hash"] == image.hash_hex
    # Waiting for a paced answer counts as the model's time in the report, not as the client's idling.
    assert report["stats"]["modelled_ms"] >= len(image.data) / 4 * 41e-3


async def test_smpclient_against_an_smp_auth_target_without_a_pairing_agent_fails_at_once(dfu_sim):
    serve = dfu_sim("--device", "smp-auth")
    # smpclient neither pairs nor registers an agent. The SMP characteristic needs an encrypted, authenticated
    # link (CONFIG_MCUMGR_TRANSPORT_BT_PERM_RW_AUTHEN); with no agent to pair through, bluetoothd 5.66 refuses the
    # subscription (dfu-sim's pairing model, docs/dfu-sim.md) and smpclient's connect ends there instead of waiting.
    client = smp_client()
    started = time.monotonic()
    with pytest.raises(BleakError, match="Not paired"):
        await client.connect()
    assert time.monotonic() - started < TIMEOUT
    stats = serve.stop()["devices"][0]["stats"]
    assert stats["smp_requests"] == 0
