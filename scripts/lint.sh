#!/usr/bin/env bash
# Fails when the project's code uses a force unwrap, `try!` or an implicitly unwrapped optional
# (swift-format's NeverForceUnwrap, NeverUseForceTry, NeverUseImplicitlyUnwrappedOptionals over
# Sources/). Layout findings of swift-format are not enforced. Then checks that every target imports
# exactly what Package.swift declares, and nothing against the layering (scripts/check-imports.py).
set -euo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}
# refuse FINDINGS FAILURE SUCCESS: prints the findings and FAILURE and fails when there are any, else SUCCESS.
refuse() {
    if [ -n "$1" ]; then
        echo "$1"
        echo "lint: $2" >&2
        exit 1
    fi
    echo "lint: $3"
}

findings=$("$swift" format lint --configuration .swift-format -r Sources 2>&1 \
    | grep -E '\[(NeverForceUnwrap|NeverUseForceTry|NeverUseImplicitlyUnwrappedOptionals)\]' || true)
refuse "$findings" "force unwraps, try! or implicitly unwrapped optionals in Sources/ (see above)" \
    "no force unwraps, try! or implicitly unwrapped optionals in Sources/"

# Foundation's Process.terminationStatus/terminationReason trap (SIGILL, no message) while the child runs:
# tests read a child's end through Tests/TestSupport/ProcessEnd.swift, or a termination handler's argument.
unguarded=$(grep -rnE '\.termination(Status|Reason)\b' Tests \
    | grep -vE '^Tests/TestSupport/ProcessEnd\.swift:|finished\.terminationStatus|^Tests/ProcessSpawningTests/ProcessEndTests\.swift:.*_ = process\.terminationStatus|^[^:]+:[0-9]+:\s*///' || true)
refuse "$unguarded" "a child's end read with Foundation's trapping terminationStatus/terminationReason in Tests/ (use statusIfEnded, endedBySignal or status(endingWithin:))" \
    "every child's end in Tests/ is read without Foundation's trap"

# Every target imports exactly what Package.swift declares, in the architecture's direction.
package_json=$(mktemp)
trap 'rm -f "$package_json"' EXIT
"$swift" package dump-package > "$package_json"
python3 scripts/check-imports.py "$package_json"
