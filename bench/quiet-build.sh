# Sourced by the bench scripts: `quiet_build ARGS...` runs `swift build ARGS...` without its
# progress lines, but shows everything it printed when it fails (swift build writes its errors
# to stdout, so a plain >/dev/null would make a broken build end the script without a word).
quiet_build() {
  local log
  log=$(mktemp)
  if ! swift build "$@" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "swift build $* failed" >&2
    exit 1
  fi
  rm -f "$log"
}
