#!/usr/bin/env bash
# The Wayland desk's first numbers beside sway's and grim's, on the virtual desktop's headless
# sway with a foot terminal open. Usage: scripts/bench_wayland.sh (inside scripts/desktop.sh's
# environment: source its env file first).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${SHUTTLE_RIG_WAYLAND:?source the env file of the virtual desktop (scripts/desktop.sh start)}"
RUNS=${RUNS:-30}
export WAYLAND_DISPLAY=$SHUTTLE_RIG_WAYLAND XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
cargo build --release -p shuttle-desk-wayland --example measure >/dev/null 2>&1
cargo build --release -p shuttle >/dev/null 2>&1
# await_window TITLE: waits up to 5 s for sway to show a window titled TITLE.
await_window() {
  for _ in $(seq 100); do
    swaymsg -s "$SHUTTLE_RIG_SWAYSOCK" -t get_tree | grep -q "\"$1\"" && return
    sleep 0.05
  done
}
foot --title "bench wayland" sleep 600 >/dev/null 2>&1 &
terminal=$!
trap 'kill $terminal 2>/dev/null' EXIT
await_window "bench wayland"
shot=$(mktemp -d)
# still FILE: waits until FILE has not changed for a second (the app has read every key; it
# writes its whole text on every change, so a long text takes it a while).
still() {
  local before="" now
  for _ in $(seq 60); do
    now=$(md5sum <"$1")
    [ "$now" = "$before" ] && return
    before=$now
    sleep 1
  done
}
# 100 characters: layout keys, accents, symbols, CJK and emoji.
text='Hello, wörld! Ça va? ½ ✓ 日本語のテキスト 😀🎉 naïve café — 42 × 7 = 294; Ωμέγα ßtraße ¿qué? ok, all done now!'
entry=tests/fixture/wayland_entry.py
echo "desk-wayland, in one process (medians of $RUNS; typing: ${#text} characters):"
target/release/examples/measure "$RUNS" "$shot/desk.png" "$text" "$entry"
echo "peers, a whole process each run:"
hyperfine -N --warmup 3 --runs "$RUNS" \
  "swaymsg -s $SHUTTLE_RIG_SWAYSOCK -t get_tree -r" \
  "grim -t ppm $shot/grim.ppm" \
  "grim -t png $shot/grim.png" 2>/dev/null | grep -E "Benchmark|Time"
# wtype makes a virtual keyboard per run, into the same kind of entry.
GDK_BACKEND=wayland /usr/bin/python3 "$entry" "wtype typing" "$shot/wtype.txt" >/dev/null 2>&1 &
wtype_entry=$!
await_window "wtype typing"
hyperfine -N --runs "$RUNS" "wtype '$text'" 2>/dev/null | grep -E "Benchmark|Time"
still "$shot/wtype.txt"
expected=$(printf '%.0s'"$text" $(seq "$RUNS"))
if [ "$(cat "$shot/wtype.txt")" = "$expected" ]; then echo "wtype exact: true"; else
  echo "wtype exact: false ($(wc -m <"$shot/wtype.txt") of $(( ${#text} * RUNS )) characters)"; fi
kill $wtype_entry

# The whole path an agent's call takes: `shuttle desk VERB`, a process per call like the peers,
# through a daemon started inside the sway session (WAYLAND_DISPLAY and SWAYSOCK set).
daemon_dir=$(mktemp -d)
chmod 700 "$daemon_dir"
export SHUTTLE_SOCKET=$daemon_dir/desk.sock SHUTTLE_CONFIG=$daemon_dir/config.toml
SWAYSOCK=$SHUTTLE_RIG_SWAYSOCK target/release/shuttle serve --foreground --display inherit \
  >"$daemon_dir/log" 2>&1 &
daemon=$!
trap 'kill $terminal $daemon 2>/dev/null; rm -rf "$shot" "$daemon_dir"' EXIT
for _ in $(seq 100); do [ -S "$SHUTTLE_SOCKET" ] && break; sleep 0.05; done
desk() { target/release/shuttle desk "$@" --agent bench; }
GDK_BACKEND=wayland /usr/bin/python3 "$entry" "daemon typing" "$shot/daemon.txt" >/dev/null 2>&1 &
daemon_entry=$!
await_window "daemon typing"
desk windows >/dev/null
echo "through the daemon (shuttle desk, a process per call) beside the peers:"
hyperfine -N --warmup 3 --runs "$RUNS" \
  "target/release/shuttle desk windows --agent bench" \
  "swaymsg -s $SHUTTLE_RIG_SWAYSOCK -t get_tree -r" \
  "target/release/shuttle desk shot --agent bench path=$shot/daemon.png" \
  "grim -t png $shot/grim.png" \
  "target/release/shuttle desk click --agent bench x=5 y=5" \
  "swaymsg -s $SHUTTLE_RIG_SWAYSOCK seat - cursor set 5 5, seat - cursor press button1, seat - cursor release button1" \
  2>/dev/null | grep -E "Benchmark|Time"
: >"$shot/daemon.txt"
hyperfine -N --runs "$RUNS" \
  "target/release/shuttle desk type --agent bench window='daemon typing' text='$text'" \
  2>/dev/null | grep -E "Benchmark|Time"
still "$shot/daemon.txt"
if [ "$(cat "$shot/daemon.txt")" = "$expected" ]; then echo "shuttle desk type exact: true"; else
  echo "shuttle desk type exact: false ($(wc -m <"$shot/daemon.txt") of $(( ${#text} * RUNS )) characters)"; fi
kill $daemon_entry
