#!/usr/bin/env bash
# Builds and starts the task_tool example of github.com/mark3labs/mcp-go
# (a Go MCP SDK with tasks support) on :8080, so the conformance command can
# be tried against a server this project did not write. The SDK is fetched
# through the Go module proxy into a scratch module; nothing of it is kept
# in this repository.
#
#   cmd/conformance/testdata/mcp-go/run.sh
#   go run ./cmd/conformance --server http://localhost:8080/mcp \
#     --fixture sleep_required=process_batch --fixture-arg sleep_required.ms=delay/1000 \
#     --fixture-const 'sleep_required.items=["a"]' \
#     --fixture forbidden=quick_check --fixture-const 'forbidden.input="x"' \
#     --fixture rpc_error=analyze_data --fixture-arg rpc_error.ms= --fixture-const 'rpc_error.data=""'
#
# (analyze_data with empty data fails with a JSON-RPC error; the example has
# no tool that returns an isError result.) cmd/conformance/testdata/trials.sh
# runs this and the TypeScript trial with one command.
set -euo pipefail

VERSION="${MCP_GO_VERSION:-v1.2.1}"
DIR="${MCP_GO_DIR:-${TMPDIR:-/tmp}/mcptasks-mcp-go-$VERSION}"

mkdir -p "$DIR/tasktool"
cd "$DIR"
[ -f go.mod ] || go mod init mcptasks.local/mcpgo-trial >/dev/null 2>&1
go get "github.com/mark3labs/mcp-go@$VERSION" >/dev/null
SRC="$(go list -m -f '{{.Dir}}' "github.com/mark3labs/mcp-go")/examples/task_tool/main.go"
# The example is excluded from normal builds by a build constraint; copy it
# without the constraint lines.
grep -v -e '^//go:build ignore' -e '^// +build ignore' "$SRC" > tasktool/main.go
go mod tidy >/dev/null
go build -o tasktool-server ./tasktool
exec ./tasktool-server -t http
