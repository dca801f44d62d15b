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
# The example's background task code has no catch: when a task's work ends
# after its session was closed ("Not connected") or after its ttl timer
# already dropped the task (a ttl of 0, a negative one or one above 2^31-1
# ms, which Node's timers turn into 1 ms), the promise rejection is
# unhandled and Node exits. That is a crash of the example, not a behaviour
# the conformance suite judges, and it would turn whatever spec runs at
# that moment into an error. So Node runs with --unhandled-rejections=warn
# (set MCP_TS_SDK_UNHANDLED_REJECTIONS=throw to see the crashes), and the
# loop below still restarts the process if it exits for another reason,
# logging each restart to stderr. Stop the script with Ctrl-C.
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

REJECTIONS="${MCP_TS_SDK_UNHANDLED_REJECTIONS:-warn}"
LOG="${MCP_TS_SDK_LOG:-$DIR/server-$PORT.log}"
trap 'kill 0' EXIT
while true; do
  echo "$(date -u +%T) starting @modelcontextprotocol/sdk@$VERSION simpleStreamableHttp on port $PORT" >&2
  MCP_PORT="$PORT" node --unhandled-rejections="$REJECTIONS" "$EXAMPLE" >>"$LOG" 2>&1 || true
  echo "$(date -u +%T) the example server exited (see $LOG); restarting" >&2
  sleep 0.2
done
