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
foot --title "bench wayland" sleep 600 >/dev/null 2>&1 &
terminal=$!
trap 'kill $terminal 2>/dev/null' EXIT
for _ in $(seq 100); do
  swaymsg -s "$SHUTTLE_RIG_SWAYSOCK" -t get_tree | grep -q '"bench wayland"' && break
  sleep 0.05
done
shot=$(mktemp -d)
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
for _ in $(seq 100); do
  swaymsg -s "$SHUTTLE_RIG_SWAYSOCK" -t get_tree | grep -q '"wtype typing"' && break
  sleep 0.05
done
hyperfine -N --runs "$RUNS" "wtype '$text'" 2>/dev/null | grep -E "Benchmark|Time"
sleep 1
expected=$(printf '%.0s'"$text" $(seq "$RUNS"))
if [ "$(cat "$shot/wtype.txt")" = "$expected" ]; then echo "wtype exact: true"; else
  echo "wtype exact: false ($(wc -m <"$shot/wtype.txt") of $(( ${#text} * RUNS )) characters)"; fi
kill $wtype_entry
rm -rf "$shot"
