#!/usr/bin/env bash
# Builds the libFuzzer targets and runs each for a bounded time (`make fuzz`).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]   default 60 s each, every target
#
# Targets: storyboard, trace-line, feed-page, exif, manifest (Swift, the package in Tests/Fuzz/), png-coder and
# deflate-writer (C, built here with the toolchain's clang). Each starts from its committed seeds
# in Tests/Fuzz/corpus/<target>/; inputs it finds go to a scratch corpus under .build-fuzz/, so
# the committed seeds stay small. A crash (or a timeout, or a leak) writes its input under
# Tests/Fuzz/crashes/ and the run fails; turn that input into a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
all=(storyboard trace-line feed-page exif manifest png-coder deflate-writer)
if (($#)); then targets=("$@"); else targets=("${all[@]}"); fi

swift_bin=$(command -v swift || echo /opt/swift/usr/bin/swift)
toolchain=$(dirname "$(readlink -f "$swift_bin")")
clang=$toolchain/clang
scratch=$PWD/.build-fuzz
crashes=Tests/Fuzz/crashes
mkdir -p "$scratch" "$crashes"

# MARK: - Build

wants_swift=0
for target in "${targets[@]}"; do
  case $target in storyboard|trace-line|feed-page|exif|manifest) wants_swift=1 ;; esac
done
if ((wants_swift)); then
  # Release, for speed, with -enable-testing: @testable reaches the parsers' internals.
  "$swift_bin" build --package-path Tests/Fuzz --scratch-path "$scratch/swift" -c release \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing -Xswiftc -use-ld=lld \
    -Xswiftc -g 2>&1 | grep -v "^\[" || true
  test -x "$scratch/swift/release/FuzzStoryboard" || { echo "fuzz: the Swift targets did not build" >&2; exit 1; }
fi
# shellcheck disable=SC2054 # the commas belong to -fsanitize=, not to the array
c_flags=(-fuse-ld=lld -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
         -ISources/CStoryPNG/include -ISources/CStoryPNG)
# The whole PNG target (writer, deflate coder, direct reader), beside the fuzz target.
c_sources=(Sources/CStoryPNG/*.c)
for target in "${targets[@]}"; do
  case $target in
    png-coder)
      "$clang" "${c_flags[@]}" Tests/Fuzz/C/fuzz_png_coder.c "${c_sources[@]}" -lpng16 -lz -ldeflate \
        -o "$scratch/fuzz-png-coder" ;;
    deflate-writer)
      "$clang" "${c_flags[@]}" Tests/Fuzz/C/fuzz_deflate_writer.c "${c_sources[@]}" -lpng16 -lz -ldeflate \
        -o "$scratch/fuzz-deflate-writer" ;;
  esac
done

# MARK: - Run

binary() {
  case $1 in
    storyboard) echo "$scratch/swift/release/FuzzStoryboard" ;;
    trace-line) echo "$scratch/swift/release/FuzzTraceLine" ;;
    feed-page) echo "$scratch/swift/release/FuzzFeedPage" ;;
    exif) echo "$scratch/swift/release/FuzzEXIF" ;;
    manifest) echo "$scratch/swift/release/FuzzManifest" ;;
    *) echo "$scratch/fuzz-$1" ;;
  esac
}
status=0 passed=0 failed=0
for target in "${targets[@]}"; do
  seeds=Tests/Fuzz/corpus/$target
  found=$scratch/corpus/$target
  mkdir -p "$found"
  started=$SECONDS
  # -timeout: an input that takes 10 s is a hang worth a report. The fuzzer's own log goes to
  # a file; its last lines are shown.
  log=$scratch/$target.log
  if ASAN_OPTIONS=detect_leaks=1 "$(binary "$target")" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
       -print_final_stats=1 -artifact_prefix="$crashes/$target-" "$found" "$seeds" >"$log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    echo "fuzz $target: ${runs} inputs in $((SECONDS - started)) s, no crash"
    passed=$((passed + 1))
  else
    echo "fuzz $target: FAILED after $((SECONDS - started)) s; log $log" >&2
    grep -v '^#[0-9]' "$log" | tail -40 >&2
    status=1 failed=$((failed + 1))
  fi
done
if find "$crashes" -type f ! -name .gitkeep | grep -q .; then
  echo "fuzz: crash inputs in $crashes:" >&2
  find "$crashes" -type f ! -name .gitkeep >&2
  status=1
fi
echo "fuzz: $passed passed, $failed failed"
exit $status
