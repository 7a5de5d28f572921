#!/usr/bin/env bash
# Installs the MCP client SDKs the end-to-end tests drive `shuttle mcp` with, pinned, into
# target/mcp-clients (or $SHUTTLE_MCP_CLIENTS): the Python SDK in a virtualenv (venv/) and the
# TypeScript SDK (node_modules/). Skips what is there already. Prints the directory.
# Needs python3 with venv and pip, and npm (Debian's npm package when none is installed).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON_SDK="mcp==2.3.0"
TYPESCRIPT_SDK="@modelcontextprotocol/sdk@1.32.2"

dir=${SHUTTLE_MCP_CLIENTS:-$PWD/target/mcp-clients}
mkdir -p "$dir"

if ! "$dir/venv/bin/python" -c "import mcp" 2>/dev/null; then
  echo "mcp_clients: installing the Python SDK ($PYTHON_SDK)" >&2
  python3 -m venv "$dir/venv"
  "$dir/venv/bin/pip" install --quiet --disable-pip-version-check "$PYTHON_SDK"
fi

if [ ! -f "$dir/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
  echo "mcp_clients: installing the TypeScript SDK ($TYPESCRIPT_SDK)" >&2
  if ! command -v npm >/dev/null; then
    sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends npm >/dev/null
  fi
  npm install --silent --no-audit --no-fund --prefix "$dir" "$TYPESCRIPT_SDK" >/dev/null
fi

echo "$dir"
