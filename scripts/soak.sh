#!/usr/bin/env bash
# Four agents at once against one daemon and a real GTK app on a virtual desktop of its own,
# CALLS calls each (default 2000): reports the calls made, and the daemon's open descriptors and
# resident memory before and after. Usage: scripts/soak.sh [CALLS]
set -euo pipefail
cd "$(dirname "$0")/.."

calls=${1:-2000}
if [ -z "${SHUTTLE_SOAK_INSIDE:-}" ]; then
  scripts/deps.sh
  cargo build -p shuttle --features e2e --tests >&2
  rig=$(mktemp -d -t shuttle-soak-rig-XXXXXX)
  trap 'rm -rf "$rig"' EXIT
  SHUTTLE_RIG=$rig SHUTTLE_SOAK_INSIDE=1 scripts/desktop.sh run "$0" "$@"
  exit
fi

log=${TMPDIR:-/tmp}/shuttle-soak.log
status=0
SHUTTLE_SOAK_CALLS=$calls cargo test -q -p shuttle --features e2e --test e2e -- soak:: --nocapture --test-threads=1 \
  >"$log" 2>&1 || status=$?
grep -E '^soak:' "$log" || true
[ "$status" -eq 0 ] || echo "the soak failed: see $log" >&2
exit "$status"
