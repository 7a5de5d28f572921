#!/usr/bin/env bash
# Runs one end-to-end test N times in a row on one virtual desktop and counts the passes: a
# test that fails once in N is a bug, in the test or in shuttle. Usage:
#
#   scripts/repeat.sh FILE TEST [N]     e.g. scripts/repeat.sh safety the_kill_hotkey_stops_a_long_type_midway 20
#
# FILE is a file of crates/shuttle/tests/e2e without .rs (its module in the e2e test binary).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 2 ]; then
  echo "usage: $0 FILE TEST [N]   (FILE is a crates/shuttle/tests/e2e file without .rs)" >&2
  exit 2
fi
file=$1 test=$2 runs=${3:-20}

if [ -z "${SHUTTLE_REPEAT_INSIDE:-}" ]; then
  scripts/deps.sh
  SHUTTLE_NODE=$(scripts/node.sh)
  export SHUTTLE_NODE
  cargo build -p shuttle --features e2e --tests >&2
  rig=$(mktemp -d -t shuttle-repeat-rig-XXXXXX)
  trap 'rm -rf "$rig"' EXIT
  SHUTTLE_RIG=$rig SHUTTLE_REPEAT_INSIDE=1 scripts/desktop.sh run "$0" "$@"
  exit
fi

passed=0
for i in $(seq "$runs"); do
  if cargo test -q -p shuttle --features e2e --test e2e -- --exact "$file::$test" --test-threads=1 \
      >"${TMPDIR:-/tmp}/shuttle-repeat-$i.log" 2>&1; then
    passed=$((passed + 1))
    rm -f "${TMPDIR:-/tmp}/shuttle-repeat-$i.log"
  else
    echo "run $i failed: see ${TMPDIR:-/tmp}/shuttle-repeat-$i.log" >&2
  fi
done
echo "$test: passed $passed of $runs"
[ "$passed" -eq "$runs" ]
