#!/usr/bin/env bash
# Starts server.mjs, a small server on the TypeScript SDK's v2 server
# package, so the conformance command can be tried against it. The package
# is installed from npm into a scratch directory; nothing of it is kept in
# this repository.
#
#   cmd/conformance/testdata/typescript-sdk-v2/run.sh        # port 3918
#   go run ./cmd/conformance --server http://localhost:3918/mcp \
#     --fixture forbidden=greet --fixture sleep=slow_compute
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
VERSION="${MCP_TS_SERVER_VERSION:-2.4.0}"
DIR="${MCP_TS_SERVER_DIR:-${TMPDIR:-/tmp}/mcptasks-ts-server-$VERSION}"
command -v node >/dev/null || { echo "node is required" >&2; exit 2; }
command -v npm >/dev/null || { echo "npm is required" >&2; exit 2; }
if [ ! -d "$DIR/node_modules/@modelcontextprotocol/server" ]; then
  mkdir -p "$DIR"
  (cd "$DIR" && npm init -y >/dev/null && npm install --no-audit --no-fund "@modelcontextprotocol/server@$VERSION" zod@4 >/dev/null)
fi
cp "$HERE/server.mjs" "$DIR/server.mjs"
cd "$DIR" && exec node server.mjs
