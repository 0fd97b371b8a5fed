#!/usr/bin/env bash
# Renders on a Slurm cluster: one array job of N frame-range shards, then a dependent job that
# merges them into one result, byte-identical to a single render's frames. Waits for the merge
# job and exits with its status.
#
#   scripts/render-slurm.sh BOARD N OUT [--mp4 FILE.mp4] [render options, e.g. --size 1080x1920]
#   scripts/render-slurm.sh --boards LIST.txt OUT [--mp4] [render options]
#   scripts/render-slurm.sh --data ROWS BOARD OUT [--rows-per-task K] [batch and render options]
#
# The first form splits one storyboard (`render-stories frames --shards N`, whole GOPs with --mp4
# so the shards' segments join without re-encoding); OUT gets the frames, one lifecycle.jsonl
# and summary.json, each shard's own trace as OUT/shards/NN-lifecycle.jsonl and the jobs' logs
# in OUT/logs/. The second renders each storyboard listed in LIST.txt (one path a line, relative
# to the list; # comments) as one array task, into OUT/NAME/ (and OUT/NAME.mp4 with --mp4), and
# the logs into OUT/logs/. The third renders BOARD once for each row of ROWS (.csv, .json, .jsonl;
# `render-stories batch`), K rows an array task (default 1), into OUT/<row>/ as a batch does
# (each row whole or not at all, so OUT holds the rows done even when others fail), with
# OUT/batch.json merged from every task's part at the end; every row is checked before anything
# is submitted, a row that fails or does not finish makes the exit 3 (as batch), and the logs go
# to OUT/logs/. OUT must be new or empty; the first two forms fill it only after
# everything succeeded. Shards render into OUT's parent (.render-slurm.*), which, like the
# storyboard and the tool, every node must see. A failed shard is tried once more; one that
# still fails cancels the merge, and its log is named (the logs are kept, the frames are not).
# RENDER_STORIES names the tool (default: this checkout's release build); SBATCH_OPTIONS adds
# sbatch options (e.g. "--partition=render --time=1:00:00"); the usual SBATCH_* variables work.
set -euo pipefail
usage() { sed -n '2,25p' "$0" >&2; exit 2; }
say() { echo "render-slurm: $*" >&2; }
die() { say "$*"; exit 1; }
(($# >= 3)) || usage

here=$(cd "$(dirname "$0")/.." && pwd)
export RENDER_STORIES=${RENDER_STORIES:-$here/.build/release/render-stories}
# The merge job joins the clip segments with it (sbatch passes the environment on).
export LIVE_STORIES_JOIN_SEGMENTS=${LIVE_STORIES_JOIN_SEGMENTS:-$here/scripts/join-segments.sh}
[[ -x $RENDER_STORIES ]] || die "$RENDER_STORIES is not built (make build)"
for tool in sbatch scontrol scancel squeue; do
  command -v "$tool" >/dev/null || die "needs Slurm's $tool on PATH (apt-get install slurm-client)"
done
batch=$here/deploy/slurm/render.sbatch
read -r -a extra <<< "${SBATCH_OPTIONS:-}"

boards="" data=""
if [[ $1 == --data ]]; then
  (($# >= 4)) || usage
  data=$(realpath "$2") board=$(realpath "$3") out=$(realpath -m "$4")
  shift 4
  [[ -f $data ]] || die "$data is not a file"
  [[ -f $board ]] || die "$board is not a file"
  per=1
  if [[ ${1:-} == --rows-per-task ]]; then
    (($# >= 2)) || { say "--rows-per-task needs a number"; exit 2; }
    per=$2
    shift 2
    [[ $per =~ ^[1-9][0-9]*$ ]] || { say "--rows-per-task must be a positive number"; exit 2; }
  fi
elif [[ $1 == --boards ]]; then
  boards=$(realpath "$2") out=$(realpath -m "$3")
  shift 3
  [[ -f $boards ]] || die "$boards is not a file"
else
  board=$(realpath "$1") shards=$2 out=$(realpath -m "$3")
  shift 3
  [[ -f $board ]] || die "$board is not a file"
  [[ $shards =~ ^[1-9][0-9]*$ ]] || { say "N must be a positive number"; exit 2; }
fi
mp4=""
if [[ -z $data && ${1:-} == --mp4 ]]; then
  if [[ -n $boards ]]; then
    mp4=yes
    shift
  else
    (($# >= 2)) || usage
    mp4=$(realpath -m "$2")
    shift 2
  fi
  command -v ffmpeg >/dev/null || die "--mp4 needs the ffmpeg CLI to join segments"
fi
if [[ -e $out ]] && [[ ! -d $out || -n $(ls -A "$out") ]]; then
  die "$out exists and is not an empty folder; give a new one (nothing is overwritten)"
fi

mkdir -p "$(dirname "$out")"
work=$(mktemp -d "$(dirname "$out")/.render-slurm.XXXXXX")
mkdir "$work/logs"
array="" final=""
# On success everything is in OUT and the work folder goes; on failure its logs stay (named
# below) and the partial frames go; on Ctrl-C the jobs are cancelled too.
finish() {
  local status=$?
  if ((status != 0)); then
    [[ -z $final ]] || scancel "$final" 2>/dev/null || true
    if [[ -n $array ]]; then
      # The other shards stop before their frames are removed (a minute at most).
      scancel "$array" 2>/dev/null || true
      for _ in {1..60}; do
        [[ -z $(squeue -h -j "$array" 2>/dev/null) ]] && break
        sleep 1
      done
    fi
    find "$work" -mindepth 1 -maxdepth 1 ! -name logs -exec rm -rf {} +
    say "logs kept in $work/logs"
  else
    rm -rf "$work"
  fi
}
trap finish EXIT
trap 'exit 130' INT TERM

if [[ -n $data ]]; then
  # Every row is checked here, once: bad data stops the batch before a job is queued (exit 2).
  rows=$("$RENDER_STORIES" batch "$board" --data "$data" --output "$work/batch" --check "$@") || {
    status=$?
    rm -rf "$work"
    trap - EXIT
    exit "$status"
  }
  count=$(((rows + per - 1) / per))
  # The rows render into OUT itself, each whole or not at all, as a batch's do.
  mkdir -p "$out"
  array=$(sbatch --parsable "${extra[@]}" --array=0-$((count - 1)) --output="$work/logs/rows-%a.log" \
    "$batch" rows "$out" "$board" "$data" "$per" "$rows" "$@")
  array=${array%%;*} # --parsable prints "id" or "id;cluster"
  what="rows" unit="block" finallog=$work/logs/merge.log dependency=afterany
  ((per > 1)) || unit="row"
  # afterany: a task whose row failed still reported it; the merge says which rows never ran.
  final=$(sbatch --parsable "${extra[@]}" --job-name=render-stories-merge --dependency=afterany:"$array" \
    --output="$finallog" "$batch" rows-merge "$out" "$board" "$data" "$@")
elif [[ -n $boards ]]; then
  count=$(grep -c -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$boards" || true)
  ((count > 0)) || die "$boards lists no storyboards"
  names=$(grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$boards" | sed 's|.*/||; s/\.json$//' | sort | uniq -d)
  [[ -z $names ]] || die "two storyboards in $boards have the same name: $names (each gets OUT/NAME)"
  flag=()
  [[ -n $mp4 ]] && flag=(--mp4)
  # Relative paths in LIST are relative to the list's folder.
  array=$(cd "$(dirname "$boards")" && sbatch --parsable "${extra[@]}" --array=0-$((count - 1)) \
    --output="$work/logs/board-%a.log" "$batch" board "$work" "$boards" "${flag[@]}" "$@")
  array=${array%%;*} # --parsable prints "id" or "id;cluster"
  what="board" unit="storyboard" finallog=$work/logs/collect.log
  final=$(sbatch --parsable "${extra[@]}" --job-name=render-stories-collect --dependency=afterok:"$array" \
    --kill-on-invalid-dep=yes --output="$work/logs/collect.log" "$batch" collect "$work" "$out")
else
  # Slurm array task i renders shard i. The cuts are planned once, here, as render-sharded.sh
  # plans them: on the clips' keyframes (--keyframes opens every source, which each task would
  # otherwise do again, and might see differently).
  whole=()
  [[ -n $mp4 ]] && whole=(--whole-seconds)
  mapfile -t ranges < <("$RENDER_STORIES" frames "$board" --shards "$shards" --keyframes "${whole[@]}" "$@")
  count=${#ranges[@]}
  ((count > 0)) || die "cannot split the frames of $board"
  ((count == shards)) || say "whole seconds of frames make $count shards, not $shards"
  printf '%s\n' "${ranges[@]}" > "$work/ranges.txt"
  array=$(sbatch --parsable "${extra[@]}" --array=0-$((count - 1)) --output="$work/logs/shard-%a.log" \
    "$batch" shard "$work" "$board" "$shards" --ranges "$work/ranges.txt" "${whole[@]}" "$@")
  array=${array%%;*} # --parsable prints "id" or "id;cluster"
  what="shard" unit="shard" finallog=$work/logs/merge.log
  clip=()
  [[ -n $mp4 ]] && clip=("$mp4")
  final=$(sbatch --parsable "${extra[@]}" --job-name=render-stories-merge --dependency=afterok:"$array" \
    --kill-on-invalid-dep=yes --output="$finallog" "$batch" merge "$work" "$out" "$count" "${clip[@]}")
fi
final=${final%%;*}
say "submitted $count ${unit}s as array job $array, then job $final (${dependency:-afterok}); waiting"

# Like `sbatch --wait` for the last job, but also knows a job cancelled because a shard failed.
state() { scontrol show job -o "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -1 | cut -d= -f2; }
# An empty state (the controller restarting, a lost reply) is asked again for a minute.
unknown=0
while :; do
  current=$(state "$final")
  case $current in
    PENDING|RUNNING|CONFIGURING|COMPLETING|REQUEUED|REQUEUE_HOLD|RESIZING|SUSPENDED) unknown=0; sleep 1 ;;
    "") ((++unknown < 60)) || break; sleep 1 ;;
    *) break ;;
  esac
done
if [[ -n $data && -f $out/batch.json ]]; then
  # The rows are in OUT; a row that failed (or did not finish) makes the merge exit 3, as
  # batch does.
  trap - EXIT
  mv "$work/logs" "$out/logs"
  rm -rf "$work"
  tail -n 1 "$out/logs/merge.log" >&2 || true
  status=$(scontrol show job -o "$final" 2>/dev/null | sed -n 's/.*ExitCode=\([0-9]*\):.*/\1/p')
  if [[ $current == COMPLETED ]]; then
    say "done: $out ($rows rows; $out/batch.json)"
    exit 0
  fi
  while read -r task task_state code; do
    [[ $task_state == COMPLETED ]] || say "rows task $task ended $task_state (exit $code); its log: $out/logs/rows-$task.log"
  done < <(scontrol show job -o "$array" 2>/dev/null |
             sed -n 's/.*ArrayTaskId=\([0-9]*\) .*JobState=\([A-Z_]*\) .*ExitCode=\([0-9:]*\).*/\1 \2 \3/p')
  say "done with failures: $out/batch.json lists them"
  exit "${status:-3}"
fi
if [[ $current == COMPLETED ]]; then
  # The jobs' logs (which node ran what, a retried shard) join the result.
  trap - EXIT
  mv "$work/logs" "$out/logs"
  rm -rf "$work"
  say "done: $out${mp4:+ (and ${mp4/#yes/the clips})}"
  exit 0
fi
# Which shards failed, each with its log. One line per array task: ArrayTaskId=i … JobState=S.
failed=0
while read -r task task_state code; do
  # Tasks still queued or running when the merge was cancelled are cancelled below, not failed.
  case $task_state in COMPLETED|PENDING|RUNNING|CONFIGURING|COMPLETING) continue ;; esac
  failed=1
  say "$what $task failed ($task_state, exit $code); its log: $work/logs/$what-$task.log"
done < <(scontrol show job -o "$array" 2>/dev/null |
           sed -n 's/.*ArrayTaskId=\([0-9]*\) .*JobState=\([A-Z_]*\) .*ExitCode=\([0-9:]*\).*/\1 \2 \3/p')
status=$(scontrol show job -o "$final" 2>/dev/null | sed -n 's/.*ExitCode=\([0-9]*\):.*/\1/p')
if ((failed)); then
  say "job $final did not merge (${current:-gone}): a $unit failed twice"
else
  say "job $final ended ${current:-gone}; its log: $finallog"
fi
exit $(( ${status:-1} > 0 ? status : 1 ))
