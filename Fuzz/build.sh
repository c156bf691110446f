#!/usr/bin/env bash
# Builds the libFuzzer binaries of dfu's parsers into $FUZZ_BUILD (default .build-fuzz/).
#
# SwiftPM renames an executable target's entry point, so the fuzz binaries are built with swiftc
# directly: each library module the parsers live in is compiled into a static archive with
# coverage instrumentation and AddressSanitizer (-sanitize=fuzzer,address), then each
# Fuzz/Targets/<name>.swift (which defines LLVMFuzzerTestOneInput with @_cdecl) is linked
# against them and libFuzzer's own main.
#
#   Fuzz/build.sh            build every target
#   Fuzz/build.sh manifest   build one target
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
SWIFTC=${SWIFTC:-$(command -v swiftc 2>/dev/null || echo /opt/swift/usr/bin/swiftc)}
out=${FUZZ_BUILD:-$root/.build-fuzz}
mods=$out/modules
mkdir -p "$mods" "$out/bin"

# The same language settings as Package.swift, plus the sanitizers; -O keeps Swift's
# overflow and bounds traps (only -Ounchecked drops them), which is what we want to find.
flags=(-swift-version 6 -O -g -parse-as-library -sanitize=fuzzer,address
       -enable-upcoming-feature MemberImportVisibility
       -enable-upcoming-feature InternalImportsByDefault
       -use-ld=lld -I "$mods" -I Sources/CCrypto -I Sources/CZlib -I Sources/CZip -I Sources/CDBus -I Sources/CLinux -I Sources/CCbor -I Sources/CJSON
       -I Sources/CInterruptSignals/include)
# C include paths of the system libraries (libdbus keeps its headers in two folders).
read -r -a cflags <<<"$(pkg-config --cflags libzip libcrypto zlib libcbor json-c dbus-1 2>/dev/null || true)"
for f in "${cflags[@]}"; do flags+=(-Xcc "$f"); done
libs=(-lzip -lcrypto -lz -lcbor -ljson-c)

# The library modules that hold parsers, in dependency order.
modules=(DFUCrypto ZipArchive CBOR JSON DFUFormats DFUCore)
if [[ -d Sources/DBus ]] && grep -rq "CDBus" Sources/DBus --include="*.swift"; then
    # DBus is served by the event loop: IOLoop (and its SystemSupport) first.
    modules+=(SystemSupport IOLoop DBus)
    libs+=(-ldbus-1)
fi

# Rebuilds a module when one of its sources is newer than its archive, or when a module
# built before it (which it may import) was rebuilt.
rebuilt=0
build_module() {
    local name=$1 lib=$mods/lib$1.a
    mapfile -t sources < <(find "Sources/$name" -name '*.swift' | sort)
    if [[ $rebuilt -eq 0 ]] && [[ -f $lib ]] && [[ -z $(find "Sources/$name" -name '*.swift' -newer "$lib" -print -quit) ]]; then
        return
    fi
    rebuilt=1
    echo "fuzz build: module $name (${#sources[@]} files)"
    "$SWIFTC" "${flags[@]}" -module-name "$name" -emit-module -emit-module-path "$mods/$name.swiftmodule" \
        -emit-library -static -o "$lib" "${sources[@]}"
}

for m in "${modules[@]}"; do build_module "$m"; done

archives=()
for m in "${modules[@]}"; do archives+=("$mods/lib$m.a"); done
# SystemSupport's one C source (the SIGINT/SIGTERM handler), compiled by the toolchain's clang.
if [[ " ${modules[*]} " == *" SystemSupport "* ]]; then
    signals=$mods/interrupt_signals.o
    if [[ ! -f $signals ]] || [[ Sources/CInterruptSignals/interrupt_signals.c -nt $signals ]]; then
        "$(dirname "$SWIFTC")/clang" -O2 -g -fsanitize=address -I Sources/CInterruptSignals/include \
            -c Sources/CInterruptSignals/interrupt_signals.c -o "$signals"
    fi
    archives+=("$signals")
fi

targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
    mapfile -t targets < <(cd Fuzz/Targets && ls -- *.swift | sed 's/\.swift$//')
fi
# Fuzz/Support/*.swift (input helpers) is compiled into every target.
mapfile -t support < <(find Fuzz/Support -name '*.swift' 2>/dev/null | sort)
for t in "${targets[@]}"; do
    src=Fuzz/Targets/$t.swift
    [[ -f $src ]] || { echo "fuzz build: no such target $t ($src)" >&2; exit 2; }
    bin=$out/bin/$t
    if [[ -f $bin ]] && [[ -z $(find "$src" "${support[@]}" "${archives[@]}" -newer "$bin" -print -quit) ]]; then
        continue
    fi
    echo "fuzz build: target $t"
    "$SWIFTC" "${flags[@]}" -module-name "Fuzz_${t//-/_}" "$src" "${support[@]}" "${archives[@]}" "${libs[@]}" -o "$bin"
done
