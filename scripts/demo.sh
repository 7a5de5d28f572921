#!/usr/bin/env bash
# The demo: an agent over MCP on a machine with no display at all. The agent's first call starts
# the daemon, which gives the agent a virtual desktop of its own (the default, `[daemon] display
# = "per-agent"`); the agent launches an app there, lists windows, reads the app's controls and
# takes a screenshot. It installs only what it uses: Xvfb, openbox, D-Bus, the AT-SPI bus and
# one GTK app (gtk3-widget-factory), from Debian's packages, with sudo unless root.
#
# The same script runs from a source tree, from the release archive and from the .deb:
#
#   scripts/demo.sh                 in a source tree: also builds shuttle (release)
#   ./demo.sh                       in an unpacked release archive: the shuttle beside it
#   /usr/share/shuttle/demo.sh      after installing the .deb: /usr/bin/shuttle
#   demo.sh --with PATH             that shuttle binary
#   demo.sh --keep                  leave the daemon running, and say how to reach it
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
keep=false
with=""
while [ $# -gt 0 ]; do
  case "$1" in
    --keep) keep=true; shift ;;
    --with) with="${2:?--with needs the path of a shuttle binary}"; shift 2 ;;
    *) echo "demo.sh: unknown argument $1 (see the top of $0)" >&2; exit 2 ;;
  esac
done

# libpipewire: shuttle reads GNOME's screen casts with it, and links it wherever it runs.
packages=(xvfb xfonts-base openbox dbus at-spi2-core gtk-3-examples libpipewire-0.3-0 libxkbcommon0)
source_tree=false
if [ -z "$with" ] && [ ! -x "$here/shuttle" ] && [ -f "$here/../Cargo.toml" ]; then
  source_tree=true
  # Building needs a C compiler (the TLS crate has C in it), PipeWire's headers and libclang
  # (its bindings are generated), and curl for Node.
  packages+=(gcc libc6-dev libpipewire-0.3-dev libclang-dev libxkbcommon-dev curl ca-certificates)
fi
missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing ${missing[*]}" >&2
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

if [ -n "$with" ]; then
  shuttle="$with"
elif [ -x "$here/shuttle" ]; then
  shuttle="$here/shuttle"
elif $source_tree; then
  cd "$here/.."
  node=$(scripts/node.sh)
  if ! command -v cargo >/dev/null; then
    echo "demo.sh: cargo is missing: install Rust with rustup (https://rustup.rs)" >&2
    exit 1
  fi
  echo "== building shuttle (release)" >&2
  cargo build --release -p shuttle
  shuttle="$PWD/target/release/shuttle"
elif command -v shuttle >/dev/null; then
  shuttle=$(command -v shuttle)
else
  echo "demo.sh: no shuttle binary here, none on PATH; pass --with PATH" >&2
  exit 1
fi
shuttle=$(readlink -f "$shuttle")
# The Node shuttle ships beside itself plays the agent; a source build uses scripts/node.sh's.
[ -n "${node:-}" ] || node="$(dirname "$shuttle")/node/bin/node"
[ -x "$node" ] || node="${XDG_DATA_HOME:-$HOME/.local/share}/loomhand/shuttle/node/bin/node"
[ -x "$node" ] || { echo "demo.sh: no Node beside $shuttle; reinstall shuttle" >&2; exit 1; }

# A socket, config and state of the demo's own, and no display: the person's session (if any)
# is not used.
state=$(mktemp -d -t shuttle-demo-XXXXXX)
export SHUTTLE_SOCKET=$state/desk.sock SHUTTLE_CONFIG=$state/config.toml XDG_STATE_HOME=$state/state
unset DISPLAY WAYLAND_DISPLAY
shot="${TMPDIR:-/tmp}/shuttle-demo-screenshot.png"
$source_tree && shot="$PWD/target/demo-screenshot.png"

echo "\$ shuttle mcp   (an MCP client, with no DISPLAY: initialize, launch an app, windows, find, screenshot)"
"$node" "$here/demo.mjs" "$shuttle" "$shot"

echo
echo "The screenshot is at $shot"
pid=$("$shuttle" status | "$node" -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).pid))')
if $keep; then
  echo "The daemon (pid $pid) is still running; the agent's desktop ended with its MCP session,"
  echo "and calls from a shell get a desktop of their own. In another shell:"
  echo "  export SHUTTLE_SOCKET=$SHUTTLE_SOCKET SHUTTLE_CONFIG=$SHUTTLE_CONFIG XDG_STATE_HOME=$XDG_STATE_HOME"
  echo "  $shuttle status; $shuttle desk windows"
  echo "Stop it (and every display it started) with: kill $pid"
else
  kill "$pid"
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  rm -rf "$state"
fi
