"""Fixtures shared by the client suites: where the project's binaries and packages are,
and a `dfu-sim serve` on a private bus per test."""

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("DFU_BUILD_DIR", REPOSITORY / ".build" / "debug"))
PACKAGES = REPOSITORY / "Tests" / "Fixtures" / "packages"
SAMPLES = REPOSITORY / "firmware-samples"


def binary(name: str) -> Path:
    path = BUILD / name
    if not path.is_file():
        pytest.fail(f"{path} is missing: build it first (swift build), or run Tests/Clients/run.sh")
    return path


class DFUSimServe:
    """`dfu-sim serve` with its own dbus-daemon; the report is read when it stops."""

    def __init__(self, arguments: list[str], report: Path):
        self.report_path = report
        self.process = subprocess.Popen(
            [str(binary("dfu-sim")), "serve", "--report", str(report), *arguments],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline().strip() if self.process.stdout else ""
        if not line:
            self.process.wait(10)
            error = self.process.stderr.read() if self.process.stderr else ""
            pytest.fail(f"dfu-sim serve printed no bus address: {error.strip()}")
        self.address = line

    def stop(self) -> dict:
        """SIGTERM, then the report dfu-sim wrote on its way out."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        status = self.process.wait(20)
        assert status == 0, f"dfu-sim serve ended with {status}: {self.process.stderr.read()}"
        return json.loads(self.report_path.read_text())


@pytest.fixture
def dfu_sim(tmp_path, monkeypatch):
    """Starts `dfu-sim serve ARGS...` and points DBUS_SYSTEM_BUS_ADDRESS at its bus."""
    started: list[DFUSimServe] = []

    def start(*arguments: str) -> DFUSimServe:
        serve = DFUSimServe(list(arguments), tmp_path / f"report-{len(started)}.json")
        started.append(serve)
        monkeypatch.setenv("DBUS_SYSTEM_BUS_ADDRESS", serve.address)
        return serve

    yield start
    for serve in started:
        if serve.process.poll() is None:
            serve.process.kill()
            serve.process.wait()
