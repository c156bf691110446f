#!/usr/bin/env python3
"""Fails when a target's Swift files import a module that Package.swift does not declare as one of
its direct dependencies, or declare a dependency they never import, or break the layering:
C wrappers -> IOLoop (the event loop) -> DBus -> BlueZ -> BlueZTransport, with DFUCore (the pure core) importing no D-Bus,
BlueZ or C module (CBOR through the CBOR wrapper, never CCbor), BlueZTransport no D-Bus (the BlueZ layer keeps it inside),
and DFUCommand
neither DBus nor BlueZ.

No target that `dfu` links imports the simulator (the targets named DFUSim…) or Foundation (JSON is read and
written by json-c through the JSON target; Foundation's modules would add megabytes of code and thousands of
protocol conformances that the Swift runtime scans at every start).

System calls are made in one place, SystemSupport: no other target of Sources imports the C library's
module (Glibc, Darwin, Musl), reads `errno` or calls a system function directly (they reach the C library
through Foundation too, so the calls themselves are looked for).

Usage: scripts/check-imports.py PACKAGE_JSON   (the output of `swift package dump-package`)"""
import json
import os
import re
import sys

# Modules of the toolchain and the platform: never declared in Package.swift.
PLATFORM = {"Foundation", "FoundationEssentials", "Glibc", "Darwin", "Dispatch", "Synchronization",
            "FoundationXML", "FoundationNetworking", "FoundationInternationalization", "Testing", "XCTest", "Musl", "_Concurrency", "os"}
# What a target must never import, whatever Package.swift says (the architecture's direction).
FORBIDDEN = {
    "DFUCore": {"DBus", "BlueZ", "BlueZTransport", "CDBus", "CZip", "CCrypto", "CZlib", "CLinux", "CCbor", "CJSON", "ZipArchive",
                "DFUSimulator", "IOLoop"},
    "IOLoop": {"DBus", "BlueZ", "BlueZTransport", "DFUCore", "CDBus"},
    "DBus": {"BlueZ", "BlueZTransport", "DFUCore", "DFUSimSupport"},
    "BlueZ": {"BlueZTransport", "DFUCore"},
    "DFUCommand": {"DBus", "BlueZ", "CDBus", "DFUSimulator", "DFUSimStandIn", "DFUSimPeripheral", "IOLoop", "DFUSimSupport"},
    "BlueZTransport": {"DBus", "CDBus", "DFUSimSupport"},
    "DFUCrypto": {"DFUCore", "DFUFormats"},
    "DFUFormats": {"DFUCore", "DBus", "BlueZ", "BlueZTransport", "CDBus", "CZip", "CCrypto", "CZlib", "CLinux", "CCbor",
                   "CJSON", "ZipArchive", "DFUSimulator", "IOLoop", "CBOR"},
    "CBOR": {"DFUCore", "DFUCrypto", "DBus", "BlueZ"},
    "JSON": {"DFUCore", "DFUFormats", "DFUCrypto", "DBus", "BlueZ"},
}
# Foundation's modules: not in any target `dfu` links.
FOUNDATION = {"Foundation", "FoundationEssentials", "FoundationInternationalization", "FoundationXML", "FoundationNetworking"}
# The system layer: the targets that call the C library for the project. SystemSupport (Errno, the one EINTR
# retry, FileDescriptor, ...) and ProcessSpawning (posix_spawn, on SystemSupport's Errno and retry), which
# `dfu` does not link.
SYSTEM_CALL_TARGETS = {"SystemSupport", "ProcessSpawning"}
SYSTEM_CALL_TARGET = "SystemSupport"
C_LIBRARY = {"Glibc", "Darwin", "Musl"}
# C library functions with no Swift method of the same name in the project, as free calls, and errno.
RAW_CALL = re.compile(
    r"(?<![.\w])(?:errno|EINTR|EAGAIN|EWOULDBLOCK)\b|(?<![.\w])(?:Glibc|Darwin|Musl)\."
    r"|(?<![.\w])(?:ioctl|fcntl|flock|epoll_\w+|eventfd|timerfd_\w+|socketpair|posix_spawn\w*|waitpid|wait4|getpid|geteuid"
    r"|isatty|openat|fstat|fstatat|lstat|mkdir|rmdir|unlink|unlinkat|mkdtemp|mkstemp|kill|signal|getenv|clock_gettime|getrusage"
    r"|sysconf|readlink|dup2|pipe|usleep|strerror|recv|pread|pwrite|ftruncate|fopen|fwrite|fgets|access|malloc|free)\s*\(")
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|internal|package|private|fileprivate)\s+)?import\s+(?:(?:struct|class|enum|func|var|let|protocol|typealias)\s+)?(\w+)", re.M)


def target_dir(target):
    if target.get("path"):
        return target["path"]
    base = "Tests" if target["type"] == "test" else "Sources"
    return os.path.join(base, target["name"])


def imports_of(directory):
    found = {}
    for root, _, files in os.walk(directory):
        for name in files:
            if name.endswith(".swift"):
                path = os.path.join(root, name)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                # `#if canImport(X)` blocks still name real imports; conditional platform modules are in PLATFORM.
                for module in IMPORT.findall(text):
                    found.setdefault(module, path)
    return found


# The simulator: every target named DFUSim… (models, stand-in, peripheral, its support and command line).
SIMULATOR_PREFIX = "DFUSim"
# Never linked into `dfu` either: what only the simulator, the benchmarks and the tests need.
NOT_SHIPPED = {"ProcessSpawning"}


def shipped_targets(package):
    """The targets the `dfu` executable links: its dependency closure."""
    by_name = {target["name"]: target for target in package["targets"]}
    seen, pending = set(), ["dfu"]
    while pending:
        name = pending.pop()
        if name in seen or name not in by_name:
            continue
        seen.add(name)
        for dependency in by_name[name].get("dependencies", []):
            for kind in ("byName", "target", "product"):
                if kind in dependency:
                    pending.append(dependency[kind][0])
    return seen


def raw_system_calls(directory):
    """(path, line number, text) of each raw C library use in the Swift files under `directory`."""
    found = []
    for root, _, files in os.walk(directory):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(root, name)
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    # Not in text: string literals emptied, comments cut; enum cases named like a call are not calls.
                    code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line).split("//", 1)[0]
                    code = re.sub(r"\bcase\s+\.?\w+\(", "case _(", code)
                    if RAW_CALL.search(code):
                        found.append((path, number, line.strip()))
    return found


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        package = json.load(f)
    problems = []
    shipped = shipped_targets(package)
    for name in sorted(shipped):
        if name.startswith(SIMULATOR_PREFIX) or name in NOT_SHIPPED:
            problems.append(f"Package.swift: dfu links {name}, which only the simulator, the benchmarks and the tests use")
    for target in package["targets"]:
        if target["type"] == "system":
            continue
        name = target["name"]
        declared = set()
        for dependency in target.get("dependencies", []):
            for kind in ("byName", "target", "product"):
                if kind in dependency:
                    declared.add(dependency[kind][0])
        used = imports_of(target_dir(target))
        own = name.replace("-", "_")
        for module, path in sorted(used.items()):
            if name in shipped and module in FOUNDATION:
                problems.append(f"{path}: {name} ships in dfu and must not import {module} (JSON goes through the JSON target)")
                continue
            if module in PLATFORM or module == own:
                continue
            if name in shipped and module.startswith(SIMULATOR_PREFIX):
                problems.append(f"{path}: {name} ships in dfu and must not import the simulator's {module}")
            elif module in FORBIDDEN.get(name, set()):
                problems.append(f"{path}: {name} must not import {module}")
            elif module not in declared:
                problems.append(f"{path}: {name} imports {module}, which Package.swift does not declare")
        if not target_dir(target).startswith("Tests") and name not in SYSTEM_CALL_TARGETS:
            for module in sorted(C_LIBRARY & set(used)):
                problems.append(f"{used[module]}: {name} imports {module}; system calls go through {SYSTEM_CALL_TARGET}")
            for path, number, text in raw_system_calls(target_dir(target)):
                problems.append(f"{path}:{number}: a raw C library call outside {SYSTEM_CALL_TARGET}: {text}")
        for module in sorted(declared - set(used)):
            problems.append(f"Package.swift: {name} declares {module} but no file of it imports it")
    for problem in problems:
        print(problem)
    if problems:
        print("check-imports: Package.swift and the imports disagree (see above)", file=sys.stderr)
        return 1
    print("check-imports: every target imports exactly what Package.swift declares, in the architecture's direction;"
          f" only {' and '.join(sorted(SYSTEM_CALL_TARGETS))} call the C library; dfu links no simulator part and no Foundation")
    return 0


if __name__ == "__main__":
    sys.exit(main())
