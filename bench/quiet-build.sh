# Sourced by the bench scripts: `quiet_build ARGS...` runs `swift build ARGS...` without its
# progress lines, but shows everything it printed when it fails (swift build writes its errors
# to stdout, so a plain >/dev/null would make a broken build end the script without a word).
# `quiet_release_build` builds the command line as `make build` does (scripts/build-release.sh),
# so that a bench and `make demo` share one build and measure the same binary.
quiet_run_build() {
  local log
  log=$(mktemp)
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "$* failed" >&2
    exit 1
  fi
  rm -f "$log"
}

quiet_build() {
  quiet_run_build swift build "$@"
}

quiet_release_build() {
  quiet_run_build scripts/build-release.sh
}
