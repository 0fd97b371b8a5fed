#!/usr/bin/env bash
# What `make demo` costs on a fresh clone, step by step (figures, not pass/fail): the package
# installs (`make deps`), the release build (`make build`) and the demo's two renders, each
# timed apart, for one commit or for several side by side (a before and after):
#   bench/make-demo-time.sh [COMMIT ...]      (default: HEAD)
# Each commit is cloned into a scratch folder of its own (no .build to reuse) and removed after.
# On a machine that has the packages already, the installs' time is what checking them costs.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
commits=("$@")
[[ ${#commits[@]} -gt 0 ]] || commits=(HEAD)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
seconds() { local started=$SECONDS; "$@" >"$scratch/step.log" 2>&1 || { tail -20 "$scratch/step.log"; exit 1; }; echo $((SECONDS - started)); }
printf '%-12s %8s %8s %8s %8s\n' commit "deps s" "build s" "demo s" "total s"
for commit in "${commits[@]}"; do
  clone=$scratch/clone
  rm -rf "$clone"
  git clone -q "$repo" "$clone"
  git -C "$clone" checkout -q "$commit"
  deps=$(seconds make -C "$clone" deps)
  build=$(seconds make -C "$clone" build)
  demo=$(seconds make -C "$clone" demo)
  printf '%-12s %8s %8s %8s %8s\n' "$(git -C "$clone" rev-parse --short HEAD)" "$deps" "$build" \
    "$((demo))" "$((deps + build + demo))"
done
