#!/usr/bin/env bash
# Tests/test-plan.txt as `swift test` takes it (docs/testing.md).
#   scripts/test-plan.sh GROUP        the regex of GROUP's entries, for --filter or --skip: a class
#                                     matches `Target.Class/…`, a single test `Target.Class/test` whole
#   scripts/test-plan.sh --check LIST every entry names at least one test of LIST (the output of
#                                     `swift test list`), so a renamed class cannot change group silently
set -euo pipefail
plan=$(dirname "$0")/../Tests/test-plan.txt
entries() { awk -v g="$1" '!/^#/ && NF >= 2 && (g == "" || $2 == g) { print $1 }' "$plan"; }

if [ "${1:-}" = "--check" ]; then
  list=${2:?usage: scripts/test-plan.sh --check LIST}
  missing=0
  for entry in $(entries "" | sort -u); do
    case $entry in
      */*) grep -q "\.$entry\$" "$list" ;;
      *) grep -q "\.$entry/" "$list" ;;
    esac || { echo "Tests/test-plan.txt: $entry names no test" >&2; missing=1; }
  done
  exit $missing
fi

group=${1:?usage: scripts/test-plan.sh GROUP | --check LIST}
regex=""
for entry in $(entries "$group"); do
  case $entry in
    */*) regex+="${regex:+|}$entry\$" ;;
    *) regex+="${regex:+|}$entry/" ;;
  esac
done
[ -n "$regex" ] || { echo "Tests/test-plan.txt has no $group entries" >&2; exit 1; }
echo "\\.($regex)"
