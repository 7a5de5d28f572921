#!/usr/bin/env bash
# Installs the Node.js that shuttle runs scripts on, as packaging/node.pin pins it: the official
# linux-x64 build as the npm registry carries it, its tarball and its binary each checked
# against a pinned sha256. The daemon never takes Node from the person's PATH, so a script runs
# on the same Node (and the same TypeScript stripping) on every machine. The release archive
# and the .deb carry this Node beside the binary; this script is for a source checkout.
#
# Where: $SHUTTLE_NODE_HOME, else $XDG_DATA_HOME/loomhand/shuttle/node, else
# ~/.local/share/loomhand/shuttle/node; it holds bin/node and Node's LICENSE. Does nothing when
# the node there already is the pinned one. Downloads with curl (installed from Debian's
# packages if missing, with sudo unless root) from $NPM_CONFIG_REGISTRY, else the npm registry.
# Prints the path of the node binary.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=../packaging/node.pin
source "$here/packaging/node.pin"

home="${SHUTTLE_NODE_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/loomhand/shuttle/node}"
node="$home/bin/node"

sha256() { sha256sum "$1" | cut -d ' ' -f 1; }

if [ -x "$node" ] && [ "$(sha256 "$node")" = "$NODE_BINARY_SHA256" ]; then
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

if ! command -v curl >/dev/null; then
  echo "node.sh: curl is missing; installing Debian's curl and ca-certificates" >&2
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
    curl ca-certificates >/dev/null
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

registry="${NPM_CONFIG_REGISTRY:-${npm_config_registry:-https://registry.npmjs.org}}"
url="${registry%/}/$NODE_PACKAGE/-/$NODE_PACKAGE-$NODE_VERSION.tgz"
tarball="$work/$NODE_PACKAGE-$NODE_VERSION.tgz"
echo "node.sh: fetching $url" >&2
curl -fsSL --retry 3 -o "$tarball" "$url"

actual="$(sha256 "$tarball")"
if [ "$actual" != "$NODE_TARBALL_SHA256" ]; then
  echo "node.sh: refusing $url: its sha256 is $actual, the pin (packaging/node.pin) is $NODE_TARBALL_SHA256" >&2
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
actual="$(sha256 "$stage/bin/node")"
if [ "$actual" != "$NODE_BINARY_SHA256" ]; then
  echo "node.sh: refusing bin/node of $url: its sha256 is $actual, the pin is $NODE_BINARY_SHA256" >&2
  exit 1
fi

if [ -e "$home" ]; then
  old="$(mktemp -d "$(dirname "$home")/.node-old.XXXXXX")"
  mv "$home" "$old/node"
fi
mv "$stage" "$home"
stage=""

echo "$node"
