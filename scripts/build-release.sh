#!/usr/bin/env bash
# The one release build of the command line, used by `make build`, the benches
# (bench/quiet-build.sh's quiet_release_build) and the Dockerfile, so all of them build and
# measure the same binary in the same build folder. Extra arguments go to `swift build`.
#
# Swift's runtime and Foundation are linked statically: binding their symbols at every start
# cost about 35 ms of CPU (of 140), which each shard of a sharded render paid again. A build
# without the flag works the same, but switching one build folder between the two rebuilds
# everything, so nothing else should build this product in release another way.
set -euo pipefail
cd "$(dirname "$0")/.."
exec "${SWIFT:-swift}" build -c release --product render-stories --static-swift-stdlib "$@"
