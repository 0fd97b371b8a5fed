#!/usr/bin/env bash
# Builds Tests/Consumer, a package that depends on this one through a tagged git URL, as a
# project using live-stories would (SwiftPM refuses unsafe flags in such a dependency). The
# committed HEAD is cloned into a temporary folder and tagged 0.0.1 there; nothing here changes.
set -euo pipefail
cd "$(dirname "$0")/.."
# A consumer never builds the studio; leaving it out of the clone's manifest also spares
# resolving Hummingbird and SwiftNIO (Package.swift, docs/studio.md).
export LIVE_STORIES_NO_STUDIO=1
SWIFT=${SWIFT:-$(command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone --quiet --no-local . "$work/live-stories"
git -C "$work/live-stories" -c user.name=ci -c user.email=ci@localhost tag -a 0.0.1 -m "consumer check"
cp -R Tests/Consumer "$work/consumer"
rm -rf "$work/consumer/.build"
cd "$work/consumer"
LIVE_STORIES_URL="file://$work/live-stories" "$SWIFT" build --product consumer
LIVE_STORIES_URL="file://$work/live-stories" "$SWIFT" run --skip-build consumer
