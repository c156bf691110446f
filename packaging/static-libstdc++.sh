#!/bin/sh
# static-libstdc++.sh CLANG DIR [CLANG-ARGUMENT...]: writes DIR/libstdc++.so, a linker script naming the
# libstdc++.a that CLANG links against, so that a link searching DIR first takes libstdc++ statically
# where the Swift toolchain's static-stdlib-args.lnk asks for -lstdc++ (make static, build-deb-arm64.sh).
set -eu
clang=$1 dir=$2
shift 2
archive=$("$clang" "$@" -print-file-name=libstdc++.a)
case $archive in
/*) [ -f "$archive" ] || { echo "static-libstdc++.sh: $archive does not exist (the libstdc++ -dev package is missing)" >&2; exit 1; } ;;
*) echo "static-libstdc++.sh: $clang $* finds no libstdc++.a (the libstdc++ -dev package is missing)" >&2; exit 1 ;;
esac
mkdir -p "$dir"
printf 'INPUT(%s)\n' "$archive" > "$dir/libstdc++.so.tmp"
mv "$dir/libstdc++.so.tmp" "$dir/libstdc++.so"
