#!/usr/bin/env python3
"""Start-up cost of `PROGRAM --version`: CPU time (user + system) and peak RSS, median of N runs.

    packaging/measure-startup.py [--runs N] PROGRAM [PROGRAM...]

Each run is one fork/exec of PROGRAM --version with its output discarded; the figures are the
child's own, from wait4()'s rusage (ru_utime + ru_stime, ru_maxrss in KiB), plus wall time.
The peak RSS is only an upper bound: Linux carries this Python process's own peak into the child
across exec, so a child smaller than Python shows Python's figure (dfu-bench-rusage, a small C
program, measures it exactly; docs/packaging.md).
"""
import argparse
import os
import statistics
import subprocess
import sys
import time


def one_run(program):
    start = time.monotonic()
    child = subprocess.Popen([program, "--version"], stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit(f"measure-startup: {program} --version exited with {child.returncode}")
    return (usage.ru_utime + usage.ru_stime) * 1000, usage.ru_maxrss, wall * 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("programs", nargs="+")
    arguments = parser.parse_args()
    print(f"{'program':<40} {'runs':>4} {'CPU ms':>7} {'wall ms':>8} {'peak RSS KiB':>12}  (medians)")
    for program in arguments.programs:
        one_run(program)  # warm the page cache
        runs = [one_run(program) for _ in range(arguments.runs)]
        cpu = statistics.median(r[0] for r in runs)
        rss = statistics.median(r[1] for r in runs)
        wall = statistics.median(r[2] for r in runs)
        print(f"{program:<40} {arguments.runs:>4} {cpu:>7.1f} {wall:>8.1f} {rss:>12.0f}")


if __name__ == "__main__":
    main()
