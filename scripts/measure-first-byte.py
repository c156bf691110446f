#!/usr/bin/env python3
"""Time from `dfu upload` start to the first byte sent, and dfu's peak memory, for the 500 KB
package, through dfu-sim.  Usage: scripts/measure-first-byte.py .build/release/dfu .build/debug/dfu-sim
(run from the package root; needs /usr/bin/time)."""
import subprocess, time, sys, re
dfu = sys.argv[1]; sim = sys.argv[2]
inner = f"echo START >&2; exec /usr/bin/time -v {dfu} upload Tests/Fixtures/packages/secure-app-512000.zip -d C0:FF:EE:00:00:10 -vv"
cmd = [sim, "run", "--device", "buttonless,address=C0:FF:EE:00:00:10,sd_id=0xB7", "--", "sh", "-c", inner]
p = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
t0=None; first=None; data=None; rss=None; created=False
for line in p.stderr:
    now = time.monotonic()
    if line.startswith("START"): t0 = now
    if first is None and "→ Secure DFU Packet" in line: first = now - t0
    if "Create Object (01 02" in line: created = True
    if created and data is None and "→ Secure DFU Packet" in line: data = now - t0
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", line)
    if m: rss = int(m.group(1))
p.wait()
print(f"dfu start -> first Packet write (init packet) {first*1000:.0f} ms, -> first firmware byte {data*1000:.0f} ms; peak RSS {rss} kB")
