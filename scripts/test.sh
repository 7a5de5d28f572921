#!/usr/bin/env bash
# Runs every check shuttle has: formatting, clippy, unit tests, the end-to-end tests on a
# virtual desktop of their own, then the release archive and the Debian package as a person
# installs them (packaging/test.sh). Installs missing packages first, and says at the end where
# the time went. Usage: scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

timings=()
current=""
mark=$SECONDS
step() {
  [ -z "$current" ] || timings+=("$(printf '%5d s  %s' $((SECONDS - mark)) "$current")")
  current="$*"
  mark=$SECONDS
  [ -z "$current" ] || echo "== $*" >&2
}
rig=""
finish() {
  step ""
  [ -z "$rig" ] || rm -rf "$rig"
  echo "== where the time went:" >&2
  printf '   %s\n' "${timings[@]}" >&2
  echo "   $SECONDS s in all" >&2
}
trap finish EXIT

step "packages (scripts/deps.sh)"
scripts/deps.sh

step "Node for scripts (pinned, checked by sha256)"
# The virtual desktop gives the tests a home of their own, so the daemon is told where Node is.
SHUTTLE_NODE=$(scripts/node.sh)
export SHUTTLE_NODE
step "Plasma 6's KWin, from Debian 13, unpacked beside this machine (scripts/kwin6.sh)"
SHUTTLE_KWIN6=$(scripts/kwin6.sh)
export SHUTTLE_KWIN6
step "GNOME Shell 48, from Debian 13, unpacked beside this machine (scripts/gnome48.sh)"
SHUTTLE_GNOME48=$(scripts/gnome48.sh)
export SHUTTLE_GNOME48
step "MCP client SDKs, pinned (scripts/mcp_clients.sh)"
SHUTTLE_MCP_CLIENTS=$(scripts/mcp_clients.sh)
export SHUTTLE_MCP_CLIENTS
step "runtime tests (node --test)"
"$SHUTTLE_NODE" --test 'runtime/test/*.test.mts'

step "cargo fmt --check"
cargo fmt --all --check
# The end-to-end tests are one test binary behind the e2e feature: a plain `cargo test` needs no
# desktop. Every step takes the feature, so the workspace is built once; clippy also reads the
# measurements behind the bench feature, which only scripts/bench.sh runs.
step "cargo clippy"
cargo clippy --locked --workspace --all-targets --features shuttle/e2e,shuttle/bench,shuttle-desk-wayland/e2e,shuttle-desk-x11/e2e -- -D warnings
step "build (debug, every target)"
cargo build --locked --workspace --all-targets --features shuttle/e2e,shuttle-desk-wayland/e2e,shuttle-desk-x11/e2e

# One test at a time: the end-to-end tests share one screen, one keyboard and one focus.
step "tests (unit and end-to-end, on a virtual desktop)"
rig=$(mktemp -d -t shuttle-rig-XXXXXX)
SHUTTLE_RIG=$rig scripts/desktop.sh run cargo test --locked --workspace --features shuttle/e2e,shuttle-desk-wayland/e2e,shuttle-desk-x11/e2e -- --test-threads=1

# Packed from the binary the tests ran: building the dist profile here would compile every
# crate a third time (packaging/test.sh alone does build it).
step "the release archive and the .deb (packaging/test.sh)"
SHUTTLE_BINARY=target/debug/shuttle packaging/test.sh
