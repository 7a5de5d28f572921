#!/usr/bin/env bash
# Side-by-side benchmarks: shuttle against the peer tools on the same virtual desktop, in one
# run, with the ratio. Prints markdown, and writes it whole into docs/benchmarks.md between the
# markers there (the machine, the commit and the date at its top). Usage: scripts/bench.sh;
# SHUTTLE_BENCH_BEFORE=PATH also runs PATH, an earlier build of shuttle, where a table compares
# builds (scripts/bench_dialogs.py, scripts/bench_tasks.py).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${SHUTTLE_BENCH_INSIDE:-}" ]; then
  scripts/deps.sh
  # The virtual desktop gives the benchmark a home of its own, so the daemon is told where Node is.
  SHUTTLE_NODE=$(scripts/node.sh)
  export SHUTTLE_NODE
  cargo build --release -p shuttle >&2
  rig=$(mktemp -d -t shuttle-bench-rig-XXXXXX)
  out=$(mktemp -t shuttle-bench-out-XXXXXX)
  trap 'rm -rf "$rig" "$out"' EXIT
  SHUTTLE_RIG=$rig SHUTTLE_BENCH_INSIDE=1 scripts/desktop.sh run "$0" "$@" | tee "$out"
  /usr/bin/python3 - "$out" docs/benchmarks.md <<'PY'
import sys
run, doc = open(sys.argv[1]).read().strip(), sys.argv[2]
begin, end = "<!-- scripts/bench.sh writes from here -->", "<!-- scripts/bench.sh writes to here -->"
text = open(doc).read()
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(doc, "w").write(f"{head}{begin}\n\n{run}\n\n{end}{tail}")
PY
  echo "bench: wrote this run into docs/benchmarks.md" >&2
  exit
fi

export RUNS=${RUNS:-30}
SHUTTLE=$PWD/target/release/shuttle
work=$(mktemp -d -t shuttle-bench-XXXXXX)
chmod 700 "$work"
export SHUTTLE_SOCKET=$work/desk.sock
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

# A desktop with something on it: the widget factory and two fixture windows.
gtk3-widget-factory >/dev/null 2>&1 & pids+=($!)
for n in 1 2; do
  /usr/bin/python3 tests/fixture/fixture.py --title "bench $n" --log "$work/fixture$n.log" >/dev/null 2>&1 & pids+=($!)
done
SHUTTLE_LOG=warn "$SHUTTLE" serve --foreground --display inherit 2>/dev/null & pids+=($!)
for _ in $(seq 400); do
  [ "$(wmctrl -l 2>/dev/null | wc -l)" -ge 3 ] && "$SHUTTLE" status >/dev/null 2>&1 && break
  sleep 0.05
done
sleep 1 # let the apps finish their first paint, so every capture sees the same screen

changes=$(git status --porcelain --untracked-files=no | grep -q . && echo ", with uncommitted changes" || true)
echo "Printed by \`scripts/bench.sh\` at commit $(git rev-parse --short HEAD)$changes on $(date -u +%Y-%m-%d),"
echo "the release build. Machine: $(nproc) cores, $(uname -r); display $(xdpyinfo | awk '/dimensions:/ {print $2}')."
echo

# compare LABEL NAME COMMAND [NAME COMMAND]...: hyperfine the commands (shuttle's first), then
# a table row per command with the ratio of its median to shuttle's.
compare() {
  local label=$1; shift
  local json=$work/$(echo "$label" | tr -c 'a-z0-9' _).json
  local args=()
  while [ $# -gt 0 ]; do args+=(--command-name "$1" "$2"); shift 2; done
  # A command that fails stops the run: say which, and what it said when run once more.
  if ! hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$json" "${args[@]}" >/dev/null \
    2>"$work/hyperfine.err"; then
    echo "bench: \"$label\" failed: $(tail -n 5 "$work/hyperfine.err")" >&2
    for ((i = 1; i < ${#args[@]}; i += 3)); do
      # shellcheck disable=SC2086 # the command line as hyperfine split it
      ${args[i + 1]} >/dev/null 2>"$work/command.err" \
        || echo "bench: $(basename "${args[i + 1]%% *}") ... said: $(tail -n 3 "$work/command.err")" >&2
    done
    exit 1
  fi
  /usr/bin/python3 - "$json" "$label" <<'PY'
import json, statistics, sys
results = json.load(open(sys.argv[1]))["results"]
ours = statistics.median(results[0]["times"])
print(f"#### {sys.argv[2]}\n")
print("| command | median ms | min ms | max ms | ratio to shuttle |")
print("|---|---|---|---|---|")
for r in results:
    med = statistics.median(r["times"])
    print(f"| `{r['command']}` | {med*1000:.1f} | {min(r['times'])*1000:.1f} | {max(r['times'])*1000:.1f} | {med/ours:.2f}x |")
print()
PY
}

compare "list windows" \
  "shuttle desk windows" "$SHUTTLE desk windows" \
  "wmctrl -l" "wmctrl -l" \
  "xdotool search --name ." "xdotool search --name ."
compare "full-screen PNG, 1920x1080" \
  "shuttle desk shot --image FILE" "$SHUTTLE desk shot --image $work/ours.png" \
  "import -window root png:FILE" "import -window root png:$work/theirs.png"
"$SHUTTLE" desk shot --image "$work/ours.png" >/dev/null
import -window root "png:$work/theirs.png"
echo "PNG bytes: shuttle $(stat -c %s "$work/ours.png"), ImageMagick $(stat -c %s "$work/theirs.png")"
echo

# One window's PNG: shuttle reads the window's own pixels (Composite), import the screen's.
bench_id=$(wmctrl -l | awk '/bench 1$/ {print $1; exit}')
compare "one window's PNG, 640x480" \
  "shuttle desk shot window=ID --image FILE" "$SHUTTLE desk shot window=$bench_id --image $work/ours-window.png" \
  "import -window ID png:FILE" "import -window $bench_id png:$work/theirs-window.png"

# shuttle doctor as a person runs it: Node found where scripts/node.sh put it, so its checksum
# is read too. No peer checks the same things; xdpyinfo, the one X query, is the yardstick.
data_home=${SHUTTLE_NODE%/loomhand/shuttle/node/bin/node}
compare "shuttle doctor, every check (Node's checksum included)" \
  "shuttle doctor" "env -u SHUTTLE_NODE XDG_DATA_HOME=$data_home $SHUTTLE doctor" \
  "xdpyinfo" "xdpyinfo"
echo "#### Call latency inside the processes (no process start-up)"
echo
cargo bench -q -p shuttle --bench latency 2>/dev/null
echo
/usr/bin/python3 scripts/bench_a11y.py "$SHUTTLE" tests/fixture/fixture.py "$work"
/usr/bin/python3 scripts/bench_vision.py "$SHUTTLE" tests/fixture/fixture.py "$work"
/usr/bin/python3 scripts/bench_scripts.py "$SHUTTLE" "$work"
/usr/bin/python3 scripts/bench_models.py "$SHUTTLE" "$work"
cargo test -q -p shuttle --release --features e2e,bench --test e2e -- costs::display_costs --nocapture 2>/dev/null | grep -E '^(####|\||$)'
cargo test -q -p shuttle --release --features e2e,bench --test e2e -- costs::clipboard_costs --nocapture 2>/dev/null | grep -E '^(####|\||$)'

echo "#### A service call: spliced through the daemon against the service's socket directly"
echo
echo '```'
cargo test -q -p shuttle --release --features bench --test splice -- --nocapture 2>/dev/null | grep -E '^(splice_cost|  )'
echo '```'
echo

# Input: a click on a fixture's canvas, and a key combination into it. Typing comes last:
# xdotool's keymap changes keep the window manager busy for a while afterwards.
target=$(/usr/bin/python3 -c '
import json, sys
ready = next(json.loads(l) for l in open(sys.argv[1]) if "\"ready\"" in l)
print(ready["x"] + 300, ready["y"] + 300)' "$work/fixture1.log")
read -r cx cy <<<"$target"
"$SHUTTLE" desk focus window="bench 1" >/dev/null
compare "click" \
  "shuttle desk click x=$cx y=$cy" "$SHUTTLE desk click x=$cx y=$cy" \
  "xdotool mousemove $cx $cy click 1" "xdotool mousemove $cx $cy click 1" \
  "xdotool mousemove $cx $cy click --delay 0 1" "xdotool mousemove $cx $cy click --delay 0 1"
compare "key combination" \
  "shuttle desk key keys=ctrl+a" "$SHUTTLE desk key keys=ctrl+a" \
  "xdotool key ctrl+a" "xdotool key ctrl+a" \
  "xdotool key --delay 0 ctrl+a" "xdotool key --delay 0 ctrl+a"
# The window news: a dialog that opens 300 ms after a press, in the press's reply or the next.
/usr/bin/python3 scripts/bench_replies.py "$SHUTTLE" tests/fixture/fixture.py "$work"
# The MCP surface: tools/list's bytes, the largest replies whole and within the budget, and how
# late progress notifications arrive.
echo
echo "#### MCP: what a client receives from \`shuttle mcp\` (\`scripts/bench_mcp.py\`)"
echo
/usr/bin/python3 scripts/bench_mcp.py "$SHUTTLE" tests/fixture/fixture.py "$work"
# Dialogs real apps build after a shortcut, in its own reply; beside an earlier build when
# SHUTTLE_BENCH_BEFORE names one.
/usr/bin/python3 scripts/bench_dialogs.py "$SHUTTLE" tests/fixture/fixture.py "$work" ${SHUTTLE_BENCH_BEFORE:+"$SHUTTLE_BENCH_BEFORE"}
# launch: the main window once settled and the dialog in front of it, against xdotool --sync.
/usr/bin/python3 scripts/bench_launch.py "$SHUTTLE" "$work"
# What the sandbox of launched apps costs a launch, on a daemon of its own with private displays.
/usr/bin/python3 scripts/bench_sandbox.py "$SHUTTLE"
# Calls per task for an agent that learns of windows from the replies alone; beside an earlier
# build when SHUTTLE_BENCH_BEFORE names one.
/usr/bin/python3 scripts/bench_tasks.py "$SHUTTLE" "$work" ${SHUTTLE_BENCH_BEFORE:+"$SHUTTLE_BENCH_BEFORE"}

# What the safety controls cost: a second daemon with the auth guard, the marker and the
# journal off. The default daemon asks AT-SPI whether a password field has the focus before
# typing a character; a shortcut (ctrl+a above) skips that.
printf '[safety]\nauth_guard = false\nindicator = false\n\n[journal]\nenabled = false\n' >"$work/plain.toml"
SHUTTLE_SOCKET=$work/plain.sock SHUTTLE_CONFIG=$work/plain.toml SHUTTLE_LOG=warn \
  "$SHUTTLE" serve --foreground --display inherit 2>/dev/null & pids+=($!)
for _ in $(seq 200); do
  SHUTTLE_SOCKET=$work/plain.sock "$SHUTTLE" status >/dev/null 2>&1 && break
  sleep 0.05
done
# The apps the tasks above launched and closed may have left no window with the focus.
"$SHUTTLE" desk focus window="bench 1" >/dev/null
compare "type one character, with and without the safety controls" \
  "shuttle desk type text=a (defaults)" "$SHUTTLE desk type text=a" \
  "shuttle desk type text=a (auth guard, marker, journal off)" "env SHUTTLE_SOCKET=$work/plain.sock $SHUTTLE desk type text=a" \
  "xdotool type a" "xdotool type a"

/usr/bin/python3 scripts/bench_input.py "$SHUTTLE" tests/fixture/fixture.py "$work"
# Background input beside the foreground path and xdotool's window-targeted input (daemons of
# its own, input = "foreground" and "background").
/usr/bin/python3 scripts/bench_background.py "$SHUTTLE" tests/fixture/fixture.py "$work"

echo "#### Wire decode (criterion, 74-byte packet)"
echo
cargo bench -q -p shuttle-desk-core --bench wire -- --noplot 2>/dev/null | /usr/bin/python3 -c '
import re, sys
text = sys.stdin.read()
for name, low, mid, high in re.findall(r"^(\S[^\n]*?)\s+time:\s+\[(\S+ \S+) (\S+ \S+) (\S+ \S+)\]", text, re.M):
    print(f"- {name}: {mid} (95% interval {low} to {high})")
'

# The Wayland desk on the desktop's headless sway, beside swaymsg, grim and wtype.
echo
echo "#### Wayland: headless sway, beside swaymsg, grim and wtype (\`scripts/bench_wayland.sh\`, 20 runs)"
echo
echo '```'
RUNS=20 scripts/bench_wayland.sh
echo '```'

# The GNOME desk on a headless GNOME Shell seat, beside the GNOME APIs a peer calls there, and
# the same verbs on an Xvfb seat.
echo
echo "#### GNOME: a headless GNOME Shell seat, beside the Shell's and Mutter's own APIs (\`scripts/bench_gnome.py\`)"
echo
/usr/bin/python3 scripts/bench_gnome.py "$SHUTTLE"

# The KDE desk on a headless KWin seat, beside KWin's own interfaces called directly, and the
# same verbs on an Xvfb seat.
echo
echo "#### KDE: a headless KWin seat, beside KWin's own interfaces (\`scripts/bench_kde.py\`)"
echo
/usr/bin/python3 scripts/bench_kde.py "$SHUTTLE"
