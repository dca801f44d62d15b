#!/usr/bin/env bash
# Starts the example Streamable HTTP server of the official MCP TypeScript SDK
# (which has experimental tasks support) so the conformance command can be
# tried against a server this project did not write. Nothing from the SDK is
# kept in this repository: it is installed from npm into a scratch directory.
#
#   cmd/conformance/testdata/typescript-sdk/run.sh            # port 3917
#   go run ./cmd/conformance --server http://localhost:3917/mcp \
#     --fixture sleep_required=delay --fixture-arg sleep_required.ms=duration \
#     --fixture forbidden=greet \
#     --fixture input=collect-user-info-task --fixture-arg input.question=
#
# The example process exits on some unhandled errors; the loop below starts
# it again (and says so) so one crash does not turn every later spec into an
# error. Stop the script with Ctrl-C.
set -euo pipefail

VERSION="${MCP_TS_SDK_VERSION:-1.32.2}"
PORT="${PORT:-3917}"
DIR="${MCP_TS_SDK_DIR:-${TMPDIR:-/tmp}/mcptasks-ts-sdk-$VERSION}"

command -v node >/dev/null || { echo "node is required" >&2; exit 2; }
command -v npm >/dev/null || { echo "npm is required" >&2; exit 2; }

if [ ! -d "$DIR/node_modules/@modelcontextprotocol/sdk" ]; then
  mkdir -p "$DIR"
  (cd "$DIR" && npm init -y >/dev/null && npm install --no-audit --no-fund "@modelcontextprotocol/sdk@$VERSION" >/dev/null)
fi
EXAMPLE="$DIR/node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js"
[ -f "$EXAMPLE" ] || { echo "example server not found in SDK $VERSION: $EXAMPLE" >&2; exit 2; }

trap 'kill 0' EXIT
while true; do
  echo "starting @modelcontextprotocol/sdk@$VERSION simpleStreamableHttp on port $PORT" >&2
  MCP_PORT="$PORT" node "$EXAMPLE" >>"$DIR/server.log" 2>&1 || true
  echo "the example server exited (see $DIR/server.log); restarting" >&2
  sleep 0.5
done
