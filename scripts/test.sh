#!/usr/bin/env bash
# Runs every check shuttle has: formatting, clippy, unit tests, and the end-to-end tests on a
# virtual desktop of their own. Installs missing packages first. Usage: scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh
step() { echo "== $*" >&2; }

step "Node for scripts (pinned, checked by sha256)"
# The virtual desktop gives the tests a home of their own, so the daemon is told where Node is.
SHUTTLE_NODE=$(scripts/node.sh)
export SHUTTLE_NODE
step "runtime tests (node --test)"
"$SHUTTLE_NODE" --test 'runtime/test/*.test.mts'

step "cargo fmt --check"
cargo fmt --all --check
# The end-to-end tests are one test binary behind the e2e feature: a plain `cargo test` needs no
# desktop. Every step takes the feature, so the workspace is built once.
step "cargo clippy"
cargo clippy --workspace --all-targets --features shuttle/e2e -- -D warnings
step "build"
cargo build --workspace --all-targets --features shuttle/e2e

# One test at a time: the end-to-end tests share one screen, one keyboard and one focus.
step "tests (unit and end-to-end, on a virtual desktop)"
rig=$(mktemp -d -t shuttle-rig-XXXXXX)
trap 'rm -rf "$rig"' EXIT
SHUTTLE_RIG=$rig scripts/desktop.sh run cargo test --workspace --features shuttle/e2e -- --test-threads=1
