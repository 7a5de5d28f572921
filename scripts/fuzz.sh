#!/usr/bin/env bash
# Feeds generated inputs to the wire decoder and to `shuttle mcp`, far more than the test suite
# does: a million cases per decoder property, and about a million JSON-RPC messages through a
# real `shuttle mcp` process to a daemon on the fake desk. Needs no display. Usage:
#
#   scripts/fuzz.sh [CASES] [MCP_BATCHES]     defaults 1000000 and 50000 (about 21 messages each)
set -euo pipefail
cd "$(dirname "$0")/.."

cases=${1:-1000000}
batches=${2:-50000}
scripts/deps.sh >&2

echo "== wire decoder: $cases cases per property" >&2
SHUTTLE_FUZZ_CASES=$cases cargo test --release -p shuttle-desk-core --test fuzz

echo "== shuttle mcp: $batches batches" >&2
SHUTTLE_FUZZ_MCP_BATCHES=$batches cargo test --release -p shuttle --test fuzz_mcp -- --nocapture \
  2> >(grep -v 'rmcp::service' >&2)
