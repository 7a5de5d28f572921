#!/usr/bin/env bash
# The demo: installs what is missing, builds shuttle, starts a virtual desktop with an app on
# it, starts the daemon, and shows the desk at work from the shell and over MCP.
#
#   scripts/demo.sh          run the demo, then stop everything it started
#   scripts/demo.sh --keep   leave the desktop and the daemon running, and say how to reach them
set -euo pipefail
cd "$(dirname "$0")/.."
keep=false
[ "${1:-}" = --keep ] && keep=true

scripts/deps.sh
SHUTTLE_NODE=$(scripts/node.sh)
export SHUTTLE_NODE
echo "== building shuttle (release)" >&2
cargo build --release -p shuttle
SHUTTLE=$PWD/target/release/shuttle

export SHUTTLE_RIG=${SHUTTLE_RIG:-$PWD/target/demo-desktop}
rm -rf "$SHUTTLE_RIG"
mkdir -p "$SHUTTLE_RIG"
scripts/desktop.sh start
# shellcheck disable=SC1091
source "$SHUTTLE_RIG/env"
export SHUTTLE_SOCKET=$SHUTTLE_RIG/shuttle/desk.sock

app_pid=
daemon_pid=
cleanup() {
  [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
  [ -n "$app_pid" ] && kill "$app_pid" 2>/dev/null
  scripts/desktop.sh stop
}
$keep || trap cleanup EXIT

gtk3-widget-factory >/dev/null 2>&1 &
app_pid=$!
"$SHUTTLE" serve --display inherit &
daemon_pid=$!
for _ in $(seq 200); do
  "$SHUTTLE" status >/dev/null 2>&1 && break
  sleep 0.05
done
for _ in $(seq 200); do
  "$SHUTTLE" desk windows 2>/dev/null | grep -q gtk3-widget-factory && break
  sleep 0.05
done

show() { echo; echo "\$ $*"; "$@"; }
show "$SHUTTLE" status
show "$SHUTTLE" desk windows
show "$SHUTTLE" desk screen
shot=$PWD/target/demo-screenshot.png
show "$SHUTTLE" desk shot path="$shot"

echo
echo "\$ shuttle mcp   (an MCP client: initialize, tools/list, desk windows, screenshot)"
/usr/bin/python3 - "$SHUTTLE" <<'PY'
import json, subprocess, sys
mcp = subprocess.Popen([sys.argv[1], "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def ask(i, method, params):
    mcp.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
    mcp.stdin.flush()
    while True:
        msg = json.loads(mcp.stdout.readline())
        if msg.get("id") == i:
            return msg
init = ask(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "demo", "version": "1"}})
print("initialize ->", init["result"]["serverInfo"], "protocol", init["result"]["protocolVersion"])
mcp.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
tools = ask(2, "tools/list", {})["result"]["tools"]
print("tools/list ->", [t["name"] for t in tools])
windows = json.loads(ask(3, "tools/call", {"name": "desk", "arguments": {"verb": "windows"}})["result"]["content"][0]["text"])
print("desk windows ->", [w["title"] for w in windows])
shot = ask(4, "tools/call", {"name": "screenshot", "arguments": {"window": "gtk3-widget-factory"}})["result"]["content"]
image = next(c for c in shot if c["type"] == "image")
print("screenshot ->", next(c["text"] for c in shot if c["type"] == "text"), f"+ a {image['mimeType']} image of {len(image['data']) * 3 // 4} bytes")
mcp.stdin.close()
mcp.wait()
PY

echo
echo "The screenshot is at $shot"
if $keep; then
  echo "Still running. In another shell:"
  echo "  source $SHUTTLE_RIG/env; export SHUTTLE_SOCKET=$SHUTTLE_SOCKET"
  echo "  $SHUTTLE desk windows"
  echo "Stop it with: kill $daemon_pid $app_pid; SHUTTLE_RIG=$SHUTTLE_RIG scripts/desktop.sh stop"
fi
