#!/usr/bin/env bash
# Runs a small stdio MCP server built on the official MCP TypeScript SDK
# (stdio-server.mjs beside this script) so `conformance --command` can be
# tried against a stdio server this project did not write. The SDK is
# installed from npm into a scratch directory, as run.sh does:
#
#   go run ./cmd/conformance --command cmd/conformance/testdata/typescript-sdk/stdio.sh \
#     --fixture sleep=wait --fixture forbidden=greet
#
# stdin and stdout belong to MCP; everything else goes to stderr.
set -euo pipefail

VERSION="${MCP_TS_SDK_VERSION:-1.32.2}"
DIR="${MCP_TS_SDK_DIR:-${TMPDIR:-/tmp}/mcptasks-ts-sdk-$VERSION}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

command -v node >/dev/null || { echo "node is required" >&2; exit 2; }
if [ ! -d "$DIR/node_modules/@modelcontextprotocol/sdk" ]; then
  command -v npm >/dev/null || { echo "npm is required" >&2; exit 2; }
  mkdir -p "$DIR"
  (cd "$DIR" && npm init -y >/dev/null && npm install --no-audit --no-fund "@modelcontextprotocol/sdk@$VERSION" >/dev/null) >&2
fi
# The module resolves the SDK from its own directory: run a copy there.
cp "$HERE/stdio-server.mjs" "$DIR/stdio-server.mjs"
exec node "$DIR/stdio-server.mjs"
