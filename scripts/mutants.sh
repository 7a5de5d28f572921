#!/usr/bin/env bash
# Mutation testing of the policy code. cargo-mutants changes the safety controls (crates/desk's
# guard and intent, and the outcome vocabulary in desk-core) one function at a time, and runs the
# tests that need no display against each change; a change that no test notices is a rule no
# test checks. Results land in target/mutants/; the summary prints caught and missed counts.
#
#   scripts/mutants.sh              every mutant (`time` printed 40m35s on 2 cores, 2026-12-06)
#   scripts/mutants.sh --list       what would be tried
#   MUTANTS_PARTS=outcome scripts/mutants.sh    one part only (guard, outcome)
#   MUTANTS_PARTS=guard scripts/mutants.sh --re accessibility_off   the mutants of one function
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo-mutants >/dev/null; then
  echo "mutants: installing cargo-mutants" >&2
  cargo install cargo-mutants --locked
fi

# The rig's tests are not run here: the fake desk covers the policy without a display.
unset DISPLAY
run() {
  local out=$1; shift
  mkdir -p "target/mutants/$out"
  cargo mutants --no-shuffle --output "target/mutants/$out" "$@"
}
parts=${MUTANTS_PARTS:-guard outcome}
status=0
for part in $parts; do
  case $part in
    guard) run guard --package shuttle-desk \
      --file 'crates/desk/src/guard/*.rs' --file crates/desk/src/intent.rs "$@" || status=$? ;;
    outcome) run outcome --package shuttle-desk-core --file crates/desk-core/src/outcome.rs "$@" ||
      status=$? ;;
    *) echo "mutants: no part $part (guard, outcome)" >&2; exit 2 ;;
  esac
done
for part in $parts; do
  dir=target/mutants/$part/mutants.out
  [ -d "$dir" ] || continue
  echo "== $part: caught $(wc -l <"$dir/caught.txt"), missed $(wc -l <"$dir/missed.txt"), timeout $(wc -l <"$dir/timeout.txt"), unviable $(wc -l <"$dir/unviable.txt")"
  sed 's/^/   missed: /' "$dir/missed.txt"
done
exit "$status"
