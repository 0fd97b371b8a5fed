# Sourced by the bench scripts: `quiet_build ARGS...` runs `swift build ARGS...` without its
# progress lines, but shows everything it printed when it fails (swift build writes its errors
# to stdout, so a plain >/dev/null would make a broken build end the script without a word).
# The release command line is built as the Makefile builds it (RELEASE_BUILD: Swift's runtime
# linked statically), so that a bench and `make demo` share one build and measure the same binary.
quiet_build() {
  local log
  if [[ "$*" == "-c release --product render-stories" ]]; then
    set -- "$@" --static-swift-stdlib
  fi
  log=$(mktemp)
  if ! swift build "$@" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "swift build $* failed" >&2
    exit 1
  fi
  rm -f "$log"
}
