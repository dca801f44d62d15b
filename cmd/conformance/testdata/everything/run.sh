#!/usr/bin/env bash
# Starts the official "everything" MCP server (npm
# @modelcontextprotocol/server-everything, built on the TypeScript SDK 1.x
# with its experimental tasks) over Streamable HTTP, so the conformance
# command can be tried against a server people run as it is published. It is
# installed from npm into a scratch directory; nothing of it is kept in this
# repository.
#
#   cmd/conformance/testdata/everything/run.sh        # port 3919
#   go run ./cmd/conformance --server http://localhost:3919/mcp \
#     --fixture sleep_required=simulate-research-query --fixture-arg sleep_required.ms= \
#     --fixture-const 'sleep_required.topic="x"' \
#     --fixture input=simulate-research-query --fixture-arg input.question= \
#     --fixture-const 'input.topic="x"' --fixture-const 'input.ambiguous=true' \
#     --fixture forbidden=echo --fixture-const 'forbidden.message="x"'
#
# STDIO=1 serves stdio instead (for conformance --command).
set -euo pipefail
VERSION="${MCP_EVERYTHING_VERSION:-2026.8.31}"
PORT="${PORT:-3919}"
DIR="${MCP_EVERYTHING_DIR:-${TMPDIR:-/tmp}/mcptasks-everything-$VERSION}"
command -v node >/dev/null || { echo "node is required" >&2; exit 2; }
command -v npm >/dev/null || { echo "npm is required" >&2; exit 2; }
if [ ! -d "$DIR/node_modules/@modelcontextprotocol/server-everything" ]; then
  mkdir -p "$DIR"
  (cd "$DIR" && npm init -y >/dev/null && npm install --no-audit --no-fund "@modelcontextprotocol/server-everything@$VERSION" >/dev/null)
fi
cd "$DIR/node_modules/@modelcontextprotocol/server-everything/dist"
if [ -n "${STDIO:-}" ]; then
  exec node index.js stdio
fi
PORT="$PORT" exec node index.js streamableHttp
