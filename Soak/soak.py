#!/usr/bin/env python3
"""Chaos soak: many uploads of the release `dfu` through `dfu-sim` with seeded random faults.

Phase 1 (chaos): SOAK_RUNS uploads, each in its own `dfu-sim run` with a random device kind,
package and fault set (disconnects at random offsets or requests, dropped and corrupted packets,
delayed (modelled and on the wall clock) and missing responses, failed connections and pairing, the GATT cache on or off, the
adapter vanishing, bluetoothd restarting mid-upload).
Phase 2 (long-lived): SOAK_SERVE_RUNS uploads against one `dfu-sim serve`, some of them with the
stand-in restarted (SIGHUP) mid-upload; the serving process's open fds, VmRSS and children are
sampled at start, middle and end.

Every run must end with exit 0 and a byte-exact image in dfu-sim's report, or with a documented
exit code and exactly one error line from `dfu -q` (no hang, no signal, no stack trace), and the
simulator must report no protocol violation. Prints the seed at start and with every failure;
`SOAK_SEED=S SOAK_ONLY=I` replays chaos run I of seed S. Exits 1 on any failure.
"""

import argparse
import collections
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests", "Fixtures", "packages")
SAMPLES = os.path.join(ROOT, "firmware-samples")

# Packages (small ones, so that most runs take a second or two): path, protocol.
PACKAGES = [
    (os.path.join(FIXTURES, "secure-app-1024.zip"), "secure"),
    (os.path.join(FIXTURES, "secure-app-4096.zip"), "secure"),
    (os.path.join(FIXTURES, "secure-app-4097.zip"), "secure"),
    (os.path.join(FIXTURES, "secure-sd-bl-app.zip"), "secure"),
    (os.path.join(FIXTURES, "secure-sd-bl.zip"), "secure"),
    (os.path.join(FIXTURES, "secure-sd-app.zip"), "secure"),
    (os.path.join(FIXTURES, "secure-bl.zip"), "secure"),
    (os.path.join(SAMPLES, "secure-app.zip"), "secure"),
    (os.path.join(FIXTURES, "legacy-app.zip"), "legacy"),
    (os.path.join(FIXTURES, "legacy-sd-bl-app.zip"), "legacy"),
    (os.path.join(FIXTURES, "legacy-sd-bl.zip"), "legacy"),
    (os.path.join(FIXTURES, "legacy-sd.zip"), "legacy"),
    (os.path.join(SAMPLES, "legacy-app.zip"), "legacy"),
]

# Device kinds: protocol, weight, extra dfu options.
KINDS = {
    "secure": ("secure", 3, []),
    "buttonless": ("secure", 3, []),
    "buttonless-bonded": ("secure", 2, []),
    "buttonless-experimental": ("secure", 1, ["--experimental-buttonless"]),
    "legacy": ("legacy", 2, []),
    "legacy-app": ("legacy", 2, []),
}
ADDRESS = "C0:FF:EE:00:00:10"
# The exit codes the README documents for `dfu upload`.
DOCUMENTED = {0, 1, 2, 65, 66, 69, 70, 130}
# Secure and Legacy control point requests a disconnect may hit.
SECURE_OPCODES = [0x01, 0x02, 0x03, 0x04, 0x06]
LEGACY_OPCODES = [0x01, 0x02, 0x03, 0x04, 0x05]
CRASH_MARKERS = re.compile(r"Fatal error|Stack dump|Current stack trace|Backtrace|Segmentation|SIGSEGV|Illegal instruction|#\d+ 0x[0-9a-f]+")


def expected_images(path):
    """The images a byte-exact upload of the package leaves in flash: part name -> (size, crc32 hex)."""
    with zipfile.ZipFile(path) as archive:
        manifest = json.loads(archive.read("manifest.json"))["manifest"]
        images = {}
        for part, entry in manifest.items():
            if not isinstance(entry, dict) or "bin_file" not in entry:
                continue
            data = archive.read(entry["bin_file"])
            if part == "softdevice_bootloader":
                meta = entry.get("info_read_only_metadata") or entry
                sd_size = meta["sd_size"]
                pieces = {"softdevice": data[:sd_size], "bootloader": data[sd_size:]}
            else:
                pieces = {part: data}
            for name, piece in pieces.items():
                images[name] = (len(piece), "%08x" % (zlib.crc32(piece) & 0xFFFFFFFF))
        return images


def package_bytes(path):
    return sum(size for size, _ in expected_images(path).values())


class Soak:
    def __init__(self, args):
        self.args = args
        self.seed = args.seed
        self.failures = []
        self.by_code = collections.Counter()
        self.by_fault = collections.defaultdict(collections.Counter)
        self.by_kind = collections.defaultdict(collections.Counter)
        self.violations = 0
        self.durations = []
        self.tmp = tempfile.mkdtemp(prefix="dfu-soak-")
        self.expected = {path: expected_images(path) for path, _ in PACKAGES}

    # -- one chaos run -------------------------------------------------------------------------

    def plan(self, index):
        """The random choices of chaos run `index` (a pure function of the seed and the index)."""
        rng = random.Random("%d:%d" % (self.seed, index))
        kinds = list(KINDS)
        kind = rng.choices(kinds, weights=[KINDS[k][1] for k in kinds])[0]
        protocol = KINDS[kind][0]
        package = rng.choice([p for p, proto in PACKAGES if proto == protocol])
        total = package_bytes(package)
        packet = 20 if protocol == "legacy" else 244
        packets = max(1, total // packet)
        if protocol == "secure":
            device = kind + ",address=%s,sd_id=0xB7,sd_id_after=0x101" % ADDRESS
        else:
            device = kind + ",address=%s,sd_id=0x88" % ADDRESS
        faults, labels = [], []
        count = rng.choices([0, 1, 2, 3], weights=[2, 5, 3, 1])[0]
        catalogue = [
            ("disconnect-after-bytes", 5), ("disconnect-at", 3), ("drop-packet", 4), ("corrupt-packet", 4),
            ("drop-response", 2), ("response-delay-ms", 1), ("late-response", 3), ("fail-connections", 2),
            ("adapter-vanish", 1),
            ("restart", 2), ("no-stale-cache", 1), ("service-changed", 1),
        ]
        if kind == "buttonless-bonded":
            catalogue.append(("fail-pairing", 1))
        chosen = set()
        for _ in range(count):
            chosen.add(rng.choices([c for c, _ in catalogue], weights=[w for _, w in catalogue])[0])
        for fault in sorted(chosen):
            if fault == "disconnect-after-bytes":
                faults.append("disconnect-after-bytes=%d" % rng.randint(1, total))
            elif fault == "disconnect-at":
                opcode = rng.choice(SECURE_OPCODES if protocol == "secure" else LEGACY_OPCODES)
                faults.append("disconnect-at=0x%02X:%d" % (opcode, rng.randint(1, 3)))
            elif fault == "drop-packet":
                faults.append("drop-packet=" + ":".join(str(rng.randint(1, packets)) for _ in range(rng.randint(1, 3))))
            elif fault == "corrupt-packet":
                faults.append("corrupt-packet=" + ":".join(str(rng.randint(1, packets)) for _ in range(rng.randint(1, 2))))
            elif fault == "drop-response":
                faults.append("drop-response=%d" % rng.randint(1, 40))
            elif fault == "response-delay-ms":
                faults.append("response-delay-ms=%d" % rng.choice([5, 50, 200, 900]))
            elif fault == "late-response":
                for _ in range(rng.randint(1, 3)):
                    faults.append("late-response=%d:%d" % (rng.randint(1, 40), rng.choice([50, 400, 1500, 4000])))
            elif fault == "fail-connections":
                faults.append("fail-connections=%d" % rng.randint(1, 4))
            elif fault == "adapter-vanish":
                faults.append("adapter-vanish-after-bytes=%d" % rng.randint(1, total))
            elif fault == "restart":
                faults.append("restart-after-bytes=%d" % rng.randint(1, total))
            elif fault == "no-stale-cache":
                faults.append("no-stale-cache")
            elif fault == "service-changed":
                device += ",service_changed=yes"
            elif fault == "fail-pairing":
                faults.append("fail-pairing")
            labels.append(fault)
        if not labels:
            labels = ["none"]
        if "no-stale-cache" not in chosen and "service-changed" not in chosen and kind in ("buttonless-bonded", "legacy-app"):
            labels.append("stale-cache")
        options = list(KINDS[kind][2])
        options += ["--scan-timeout", "3", "--connect-timeout", "3", "--first-object-delay", "0"]
        options += ["--retries", str(rng.choice([1, 3, 3, 5]))]
        if rng.random() < 0.2:
            options += ["--prn", str(rng.choice([0, 1, 4]))]
        return {"kind": kind, "package": package, "device": device, "faults": faults, "labels": labels, "options": options}

    def chaos_run(self, index):
        plan = self.plan(index)
        report = os.path.join(self.tmp, "report-%d.json" % index)
        command = [self.args.dfu_sim, "run", "--device", plan["device"]]
        for fault in plan["faults"]:
            command += ["--fault", fault]
        command += ["--report", report, "--", self.args.dfu, "upload", plan["package"], "--device", ADDRESS, "-q"]
        command += plan["options"]
        status, stderr, seconds = self.execute(command, self.args.timeout)
        self.durations.append(seconds)
        document = None
        try:
            with open(report) as handle:
                document = json.load(handle)
            os.remove(report)
        except (OSError, ValueError):
            pass
        problems = self.judge(status, stderr, document, plan["package"])
        outcome = "hang" if status is None else str(status)
        self.by_code[outcome] += 1
        for label in plan["labels"]:
            self.by_fault[label][outcome] += 1
        self.by_kind[plan["kind"]][outcome] += 1
        if problems:
            self.fail("chaos run %d" % index, problems, command, stderr, replay="SOAK_SEED=%d SOAK_ONLY=%d" % (self.seed, index))
        if self.args.verbose:
            last = stderr.strip().splitlines()[-1:] or [""]
            print("run %d: %s %s %s %s -> %s (%.1f s) %s" % (
                index, plan["kind"], os.path.basename(plan["package"]), plan["faults"], plan["options"][-1], outcome,
                seconds, last[0]))

    # -- judging -------------------------------------------------------------------------------

    def judge(self, status, stderr, document, package):
        problems = []
        lines = [line for line in stderr.splitlines() if line.strip() and not line.startswith("dbus-daemon[")]
        if status is None:
            problems.append("no exit within %d s (hang)" % self.args.timeout)
        elif status < 0 or status > 128 and status != 130:
            problems.append("ended by a signal (status %d)" % status)
        elif status not in DOCUMENTED:
            problems.append("undocumented exit code %d" % status)
        if CRASH_MARKERS.search(stderr):
            problems.append("a crash or stack trace on standard error")
        if status == 0:
            if lines:
                problems.append("exit 0 but %d line(s) on standard error with -q" % len(lines))
            problems += self.image_problems(document, package)
        elif status is not None:
            if len(lines) != 1:
                problems.append("exit %d with %d error lines instead of one" % (status, len(lines)))
            elif not lines[0].startswith("dfu: "):
                problems.append("error line does not start with 'dfu: '")
            elif status == 70:
                problems.append("internal error (exit 70)")
        if document is None:
            problems.append("dfu-sim wrote no report")
        else:
            for device in document.get("devices", []):
                for violation in device.get("violations", []):
                    self.violations += 1
                    problems.append("simulator invariant violated: " + violation)
        return problems

    def image_problems(self, document, package):
        if document is None:
            return []
        devices = document.get("devices", [])
        if not devices:
            return ["the report has no device"]
        images = devices[0].get("images", {})
        problems = []
        for part, (size, crc) in self.expected[package].items():
            got = images.get(part)
            if got is None or got.get("size") != size or got.get("crc32") != crc:
                problems.append("exit 0 but the %s in flash is %s, not %d bytes crc32 %s" % (part, got, size, crc))
        return problems

    def fail(self, what, problems, command, stderr, replay):
        self.failures.append(what)
        print("FAIL %s (seed %d; replay: %s)" % (what, self.seed, replay))
        for problem in problems:
            print("    " + problem)
        print("    command: " + " ".join(command))
        for line in stderr.splitlines()[-5:]:
            print("    stderr: " + line)
        sys.stdout.flush()

    # -- processes -----------------------------------------------------------------------------

    def execute(self, command, timeout, environment=None):
        """Runs `command` in its own process group; returns (status or None on timeout, stderr, seconds)."""
        start = time.monotonic()
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            start_new_session=True, env=environment)
        try:
            _, err = process.communicate(timeout=timeout)
            status = process.returncode
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            _, err = process.communicate()
            status = None
        return status, err.decode("utf-8", "replace"), time.monotonic() - start

    # -- phase 2: a long-lived dfu-sim serve ---------------------------------------------------

    def serve_phase(self):
        runs = self.args.serve_runs
        if runs <= 0:
            return {}
        rng = random.Random("%d:serve" % self.seed)
        report = os.path.join(self.tmp, "serve-report.json")
        last_success = None
        serve = subprocess.Popen(
            [self.args.dfu_sim, "serve", "--device", "buttonless,address=%s,sd_id=0xB7,sd_id_after=0x101" % ADDRESS,
             "--report", report],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
        address = serve.stdout.readline().decode().strip()
        environment = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=address)
        packages = [os.path.join(FIXTURES, "secure-app-1024.zip"), os.path.join(FIXTURES, "secure-app-4096.zip"),
                    os.path.join(SAMPLES, "secure-app.zip")]
        samples = {}
        restarts = 0
        try:
            for index in range(runs):
                if index in (runs // 10, runs // 2) or index == runs - 1:
                    # Start: after a tenth of the runs (caches and pools warmed up); middle; end.
                    label = {runs // 10: "start", runs // 2: "middle"}.get(index, "end")
                    samples[label] = process_figures(serve.pid)
                package = rng.choice(packages)
                command = [self.args.dfu, "upload", package, "--device", ADDRESS, "-q", "--scan-timeout", "3",
                           "--connect-timeout", "3", "--first-object-delay", "0"]
                restart_at = rng.uniform(0.05, 0.8) if rng.random() < 0.15 else None
                status, stderr, seconds = self.execute_with_restart(command, environment, serve.pid, restart_at)
                if restart_at is not None:
                    time.sleep(0.5)  # let the restarted stand-in take org.bluez again before the next run
                restarts += restart_at is not None
                outcome = "hang" if status is None else str(status)
                self.by_code[outcome] += 1
                self.by_fault["serve-restart" if restart_at is not None else "serve"][outcome] += 1
                problems = self.judge(status, stderr, {"devices": []}, package)
                problems = [p for p in problems if "report has no device" not in p]
                last_success = package if status == 0 else None  # checked when the last run succeeded
                if self.args.verbose:
                    last = stderr.strip().splitlines()[-1:] or [""]
                    print("serve run %d: %s restart at %s -> %s (%.1f s) %s" % (
                        index, os.path.basename(package), restart_at, outcome, seconds, last[0]))
                if serve.poll() is not None:
                    problems.append("dfu-sim serve exited (status %s)" % serve.returncode)
                if problems:
                    self.fail("serve run %d" % index, problems, command, stderr, replay="SOAK_SEED=%d (serve phase)" % self.seed)
                    if serve.poll() is not None:
                        break
        finally:
            if serve.poll() is None:
                serve.send_signal(signal.SIGTERM)
                try:
                    serve.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(serve.pid, signal.SIGKILL)
                    serve.wait()
                    self.fail("serve shutdown", ["dfu-sim serve did not stop within 10 s of SIGTERM"], [], "", "")
        if serve.returncode not in (0, None):
            self.fail("serve shutdown", ["dfu-sim serve exited with %s" % serve.returncode], [], "", "")
        try:
            with open(report) as handle:
                document = json.load(handle)
        except (OSError, ValueError):
            document = None
        problems = self.judge(0, "", document, last_success) if last_success else []
        if problems:
            self.fail("serve report", problems, [], "", "SOAK_SEED=%d (serve phase)" % self.seed)
        return {"samples": samples, "restarts": restarts, "runs": runs}

    def execute_with_restart(self, command, environment, serve_pid, restart_at):
        """Runs `command`; when `restart_at` is given, SIGHUPs dfu-sim serve that many seconds in."""
        start = time.monotonic()
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            start_new_session=True, env=environment)
        if restart_at is not None:
            try:
                process.wait(timeout=restart_at)
            except subprocess.TimeoutExpired:
                os.kill(serve_pid, signal.SIGHUP)
        try:
            _, err = process.communicate(timeout=self.args.timeout)
            status = process.returncode
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            _, err = process.communicate()
            status = None
        self.durations.append(time.monotonic() - start)
        return status, err.decode("utf-8", "replace"), time.monotonic() - start

    # -- the whole soak ------------------------------------------------------------------------

    def run(self):
        print("soak: seed %d, %d chaos runs + %d runs against one dfu-sim serve (replay with SOAK_SEED=%d)"
              % (self.seed, self.args.runs, self.args.serve_runs, self.seed))
        sys.stdout.flush()
        started = time.monotonic()
        indices = [self.args.only] if self.args.only is not None else range(self.args.runs)
        for count, index in enumerate(indices, 1):
            self.chaos_run(index)
            if count % 50 == 0:
                print("soak: %d/%d chaos runs, %d failures, %.0f s" % (count, len(indices), len(self.failures), time.monotonic() - started))
                sys.stdout.flush()
        serve = self.serve_phase() if self.args.only is None else {}
        growth = self.growth_problems(serve)
        self.summary(time.monotonic() - started, serve, growth)
        return 1 if self.failures else 0

    def growth_problems(self, serve):
        samples = serve.get("samples", {})
        if not {"start", "middle", "end"} <= set(samples):
            return []
        start, middle, end = samples["start"], samples["middle"], samples["end"]
        problems = []
        for key, what in (("fds", "dfu-sim's open fds"), ("tree_fds", "open fds of dfu-sim and its dbus-daemon")):
            if end[key] - start[key] > self.args.max_fd_growth:
                problems.append("%s grew from %d to %d" % (what, start[key], end[key]))
        for key, what in (("rss_kb", "dfu-sim's VmRSS"), ("tree_rss_kb", "VmRSS of dfu-sim and its dbus-daemon")):
            if end[key] - middle[key] > self.args.max_rss_growth_kb:
                problems.append("%s grew by %d kB from the middle to the end" % (what, end[key] - middle[key]))
        if end["children"] != start["children"]:
            problems.append("children went from %d to %d" % (start["children"], end["children"]))
        for problem in problems:
            self.fail("resource growth", [problem], [], "", "SOAK_SEED=%d" % self.seed)
        return problems

    def summary(self, seconds, serve, growth):
        total = sum(self.by_code.values())
        print()
        print("soak summary (seed %d)" % self.seed)
        print("  uploads: %d in %.0f s (median %.1f s, longest %.1f s)" % (
            total, seconds, sorted(self.durations)[len(self.durations) // 2] if self.durations else 0,
            max(self.durations, default=0)))
        print("  outcomes by exit code: " + ", ".join("%s: %d" % item for item in sorted(self.by_code.items())))
        print("  by fault kind:")
        for label in sorted(self.by_fault):
            print("    %-22s %s" % (label, ", ".join("%s: %d" % item for item in sorted(self.by_fault[label].items()))))
        print("  by device kind:")
        for label in sorted(self.by_kind):
            print("    %-22s %s" % (label, ", ".join("%s: %d" % item for item in sorted(self.by_kind[label].items()))))
        print("  simulator invariant violations: %d" % self.violations)
        if serve.get("samples"):
            s = serve["samples"]
            print("  dfu-sim serve (%d uploads, %d stand-in restarts): fds / VmRSS kB of dfu-sim; of dfu-sim + dbus-daemon; descendants"
                  % (serve["runs"], serve["restarts"]))
            for label in ("start", "middle", "end"):
                if label in s:
                    f = s[label]
                    print("    %-7s %d / %d; %d / %d; %d" % (label, f["fds"], f["rss_kb"], f["tree_fds"], f["tree_rss_kb"], f["children"]))
            print("  growth limits: fds +%d (start to end), VmRSS +%d kB (middle to end), children unchanged: %s" % (
                self.args.max_fd_growth, self.args.max_rss_growth_kb, "exceeded" if growth else "held"))
        print("  failures: %d%s" % (len(self.failures), "" if not self.failures else " (" + ", ".join(self.failures[:20]) + ")"))
        print("soak: %s" % ("FAILED" if self.failures else "passed"))


def process_figures(pid):
    """Open fds and VmRSS (kB) of `pid` alone and of its whole process tree, and the number of live
    descendants (a long-lived dfu-sim serve has one: its dbus-daemon)."""
    def own(process):
        fds = len(os.listdir("/proc/%d/fd" % process))
        rss = 0
        with open("/proc/%d/status" % process) as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
        return fds, rss

    def children(process):
        found = []
        for task in os.listdir("/proc/%d/task" % process):
            try:
                with open("/proc/%d/task/%s/children" % (process, task)) as handle:
                    found += [int(child) for child in handle.read().split()]
            except OSError:
                pass
        return found

    fds, rss = own(pid)
    tree_fds, tree_rss, descendants = fds, rss, 0
    pending = children(pid)
    while pending:
        current = pending.pop()
        try:
            more_fds, more_rss = own(current)
            pending += children(current)
        except OSError:
            continue
        descendants += 1
        tree_fds += more_fds
        tree_rss += more_rss
    return {"fds": fds, "rss_kb": rss, "tree_fds": tree_fds, "tree_rss_kb": tree_rss, "children": descendants}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dfu", default=os.path.join(ROOT, ".build", "release", "dfu"))
    parser.add_argument("--dfu-sim", default=os.path.join(ROOT, ".build", "release", "dfu-sim"))
    parser.add_argument("--runs", type=int, default=int(os.environ.get("SOAK_RUNS", "500")))
    parser.add_argument("--serve-runs", type=int, default=int(os.environ.get("SOAK_SERVE_RUNS", "100")))
    parser.add_argument("--seed", type=int, default=int(os.environ.get("SOAK_SEED") or random.SystemRandom().randrange(1 << 31)))
    parser.add_argument("--only", type=int, default=int(os.environ["SOAK_ONLY"]) if os.environ.get("SOAK_ONLY") else None)
    parser.add_argument("--timeout", type=int, default=int(os.environ.get("SOAK_TIMEOUT", "90")),
                        help="seconds one upload may take before it counts as a hang")
    parser.add_argument("--max-fd-growth", type=int, default=4)
    parser.add_argument("--max-rss-growth-kb", type=int, default=4096)
    parser.add_argument("-v", "--verbose", action="store_true", default=bool(os.environ.get("SOAK_VERBOSE")))
    args = parser.parse_args()
    for tool in (args.dfu, args.dfu_sim):
        if not os.access(tool, os.X_OK):
            sys.exit("soak: %s is not built (make build)" % tool)
    sys.exit(Soak(args).run())


if __name__ == "__main__":
    main()
