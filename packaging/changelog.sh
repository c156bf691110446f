#!/usr/bin/env bash
# Prints the Debian changelog of the package being built, to standard output.
#   packaging/changelog.sh VERSION MAINTAINER
# The entry's version is the binary's (build-deb.sh passes what `dfu --version` prints); its text
# is packaging/release-notes (one change a line), its date the last commit's (SOURCE_DATE_EPOCH).
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:?usage: packaging/changelog.sh VERSION MAINTAINER}
maintainer=${2:?usage: packaging/changelog.sh VERSION MAINTAINER}
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
echo "dfu ($version) unstable; urgency=medium"
echo
grep -v '^[[:space:]]*\(#\|$\)' packaging/release-notes | while IFS= read -r change; do
    printf '%s\n' "$change" | fold -s -w 74 | sed 's/ *$//; 1s/^/  * /; 1!s/^/    /'
done
echo
echo " -- $maintainer  $(LC_ALL=C date -u -R -d "@$epoch")"
