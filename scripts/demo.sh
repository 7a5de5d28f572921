#!/usr/bin/env bash
# The demo: installs what is missing, builds shuttle, and plays an agent over MCP on a machine
# with no display at all. The agent's first call starts the daemon, which gives the agent a
# virtual desktop of its own (the default, `[daemon] display = "per-agent"`); the agent
# launches an app there, lists windows, reads the app's controls and takes a screenshot.
#
#   scripts/demo.sh          run the demo, then stop the daemon (and with it the agent's desktop)
#   scripts/demo.sh --keep   leave the daemon running, and say how to reach it
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

# A socket, config and state of the demo's own, and no display: the person's session (if any)
# is not used.
state=$PWD/target/demo
rm -rf "$state"
mkdir -p "$state"
chmod 700 "$state"
export SHUTTLE_SOCKET=$state/desk.sock SHUTTLE_CONFIG=$state/config.toml XDG_STATE_HOME=$state/state
unset DISPLAY WAYLAND_DISPLAY
shot=$PWD/target/demo-screenshot.png

echo "\$ shuttle mcp   (an MCP client, with no DISPLAY: initialize, launch an app, windows, find, screenshot)"
/usr/bin/python3 - "$SHUTTLE" "$shot" <<'PY'
import base64, json, subprocess, sys, time
shuttle, shot_path = sys.argv[1:3]
mcp = subprocess.Popen([shuttle, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
ids = iter(range(1, 1000))
def ask(method, params):
    i = next(ids)
    mcp.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
    mcp.stdin.flush()
    while True:
        msg = json.loads(mcp.stdout.readline())
        if msg.get("id") == i:
            return msg
def call(name, arguments):
    result = ask("tools/call", {"name": name, "arguments": arguments})["result"]
    if result.get("isError"):
        sys.exit(f"{name} {arguments} failed: {result['content'][0]['text']}")
    return result["content"]
def text(content):
    return next(c["text"] for c in content if c["type"] == "text")
init = ask("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "demo", "version": "1"}})
print("initialize ->", init["result"]["serverInfo"], "protocol", init["result"]["protocolVersion"])
mcp.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
tools = ask("tools/list", {})["result"]["tools"]
print("tools/list ->", [t["name"] for t in tools])
launched = json.loads(text(call("desk", {"verb": "launch", "app": "gtk3-widget-factory"})))
print("desk launch gtk3-widget-factory ->", launched["outcome"], "pid", launched["pid"], "window", launched.get("window", {}).get("title"))
status = json.loads(text(call("status", {})))
mine = status["agents"]["agents"]
print("status -> display mode", status["display"]["mode"], "; the agent's own display:", [a["display"] for a in mine])
windows = json.loads(text(call("desk", {"verb": "windows"})))
print("desk windows ->", [w["title"] for w in windows])
found = json.loads(text(call("desk", {"verb": "find", "window": "gtk3-widget-factory", "name": "checkbutton", "role": "check box"})))
print("desk find checkbutton ->", len(found["nodes"]), "check boxes, the first at", found["nodes"][0].get("bounds"))
shot = call("screenshot", {"window": "gtk3-widget-factory"})
image = next(c for c in shot if c["type"] == "image")
with open(shot_path, "wb") as f:
    f.write(base64.b64decode(image["data"]))
print("screenshot ->", text(shot), f"+ a {image['mimeType']} image of {len(image['data']) * 3 // 4} bytes")
mcp.stdin.close()
mcp.wait()
PY

echo
echo "The screenshot is at $shot"
pid=$("$SHUTTLE" status | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["pid"])')
if $keep; then
  echo "The daemon (pid $pid) is still running; the agent's desktop ended with its MCP session,"
  echo "and calls from a shell get a desktop of their own. In another shell:"
  echo "  export SHUTTLE_SOCKET=$SHUTTLE_SOCKET SHUTTLE_CONFIG=$SHUTTLE_CONFIG XDG_STATE_HOME=$XDG_STATE_HOME"
  echo "  $SHUTTLE status; $SHUTTLE desk windows"
  echo "Stop it (and every display it started) with: kill $pid"
else
  kill "$pid"
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
fi
