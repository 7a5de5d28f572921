#!/usr/bin/env bash
# Reproduces the numbers in docs/reliability.md: the kill hotkey test run 20 times, how long a
# call takes during each fault, the crash recovery tests, the fuzzers and the soak. Each part
# runs on a virtual desktop of its own (none needs yours). About 10 minutes on 2 cores.
# Usage: scripts/reliability.sh
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${SHUTTLE_RELIABILITY_INSIDE:-}" ]; then
  scripts/deps.sh
  cargo build -p shuttle --tests >&2
  scripts/repeat.sh safety the_kill_hotkey_stops_a_long_type_midway 20
  rig=$(mktemp -d -t shuttle-reliability-rig-XXXXXX)
  trap 'rm -rf "$rig"' EXIT
  SHUTTLE_RIG=$rig SHUTTLE_RELIABILITY_INSIDE=1 scripts/desktop.sh run "$0"
  scripts/fuzz.sh
  scripts/soak.sh 2000
  exit
fi

# Inside the virtual desktop: the faults, then the crash recovery tests.
faults=(
  "desk_read a_stopped_x_server_fails_a_call_in_bounded_time_and_the_daemon_recovers"
  "desk_read a_server_grab_held_by_another_client_fails_a_call_in_bounded_time"
  "a11y a_frozen_app_times_out_and_shows_as_unanswered"
  "a11y an_accessibility_bus_that_never_answers_fails_a_read_in_bounded_time"
  "safety confirm_mode_asks_the_person_and_takes_no_answer_as_deny"
)
for fault in "${faults[@]}"; do
  read -r file test <<<"$fault"
  cargo test -q -p shuttle --features e2e --test e2e -- --exact "$file::$test" --nocapture 2>&1 | grep '^fault:'
done
cargo test -q -p shuttle --features e2e --test e2e -- crash:: --test-threads=1 2>&1 | grep -E '^test result'
