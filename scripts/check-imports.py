#!/usr/bin/env python3
"""Fails when a target's Swift files import a module that Package.swift does not declare as one of
its direct dependencies, or declare a dependency they never import, or break the layering:
C wrappers -> IOLoop (the event loop) -> DBus -> BlueZ -> BlueZTransport, with DFUCore (the pure core) importing no D-Bus,
BlueZ or C module (CBOR through the CBOR wrapper, never CCbor), BlueZTransport no D-Bus (the BlueZ layer keeps it inside),
and DFUCommand
neither DBus nor BlueZ.

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
    "DFUCore": {"DBus", "BlueZ", "BlueZTransport", "CDBus", "CZip", "CCrypto", "CZlib", "CLinux", "CCbor", "ZipArchive",
                "DFUSimulator", "IOLoop"},
    "IOLoop": {"DBus", "BlueZ", "BlueZTransport", "DFUCore", "CDBus"},
    "DBus": {"BlueZ", "BlueZTransport", "DFUCore", "SimulatorSupport"},
    "BlueZ": {"BlueZTransport", "DFUCore"},
    "DFUCommand": {"DBus", "BlueZ", "CDBus", "DFUSimulator", "BlueZStandIn", "BlueZPeripheral", "IOLoop", "SimulatorSupport"},
    "BlueZTransport": {"DBus", "CDBus", "SimulatorSupport"},
    "DFUCrypto": {"DFUCore", "DFUFormats"},
    "DFUFormats": {"DFUCore", "DBus", "BlueZ", "BlueZTransport", "CDBus", "CZip", "CCrypto", "CZlib", "CLinux", "CCbor",
                   "ZipArchive", "DFUSimulator", "IOLoop", "CBOR"},
    "CBOR": {"DFUCore", "DFUCrypto", "DBus", "BlueZ"},
}
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


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        package = json.load(f)
    problems = []
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
            if module in PLATFORM or module == own:
                continue
            if module in FORBIDDEN.get(name, set()):
                problems.append(f"{path}: {name} must not import {module}")
            elif module not in declared:
                problems.append(f"{path}: {name} imports {module}, which Package.swift does not declare")
        for module in sorted(declared - set(used)):
            problems.append(f"Package.swift: {name} declares {module} but no file of it imports it")
    for problem in problems:
        print(problem)
    if problems:
        print("check-imports: Package.swift and the imports disagree (see above)", file=sys.stderr)
        return 1
    print("check-imports: every target imports exactly what Package.swift declares, in the architecture's direction")
    return 0


if __name__ == "__main__":
    sys.exit(main())
