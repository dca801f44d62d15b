#!/usr/bin/env bash
# Re-runs the two SDK trials with one command: builds the conformance
# command from this checkout, starts each SDK's example server with its
# run.sh (fetched from npm / the Go module proxy into scratch directories),
# certifies it with the mapping documented in docs/conformance.md, and stops
# it. Reports go to $TRIALS_DIR/<sdk>/ (default ./trial-results). Not part
# of `make test`: the trials need the registries and take a few minutes.
#
#   cmd/conformance/testdata/trials.sh            # both
#   cmd/conformance/testdata/trials.sh mcp-go     # one (mcp-go, typescript-sdk, typescript-sdk-v2, everything)
#   cmd/conformance/testdata/trials.sh everything-stdio   # the everything server over stdio (not in "all": ~6 min)
#
# The exit code is 0 when every trial ran (whatever its verdict; both SDKs
# are expected to be non-conformant) and 1 when a server could not start.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
OUT="$(mkdir -p "${TRIALS_DIR:-trial-results}" && cd "${TRIALS_DIR:-trial-results}" && pwd)"
BIN="$OUT/conformance"
(cd "$ROOT" && go build -o "$BIN" ./cmd/conformance)

# Two identities that are only headers: neither SDK example has
# authorization, which the suite detects and reports.
IDS=(--header 'X-Identity: a' --header-b 'X-Identity: b')

wait_port() { # url
  for _ in $(seq 1 600); do
    if curl -s -o /dev/null -X POST -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
      -d '{"jsonrpc":"2.0","id":0,"method":"ping"}' "$1"; then return 0; fi
    sleep 0.5
  done
  return 1
}

trial() { # name url, then conformance args
  local name="$1" url="$2"; shift 2
  echo "== $name: starting its example server" >&2
  setsid bash "$HERE/$name/run.sh" >"$OUT/$name-server.log" 2>&1 &
  local pid=$!
  if ! wait_port "$url"; then
    echo "$name: the server did not come up (see $OUT/$name-server.log)" >&2
    kill -- -"$pid" 2>/dev/null || true
    return 1
  fi
  local code=0
  "$BIN" --server "$url" "${IDS[@]}" --report-dir "$OUT/$name" --no-color "$@" | tee "$OUT/$name.txt" || code=$?
  kill -- -"$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  # A server that restarted mid-run turns the specs running at that moment
  # into errors: say how often it happened, so the report is read with that
  # in mind.
  local restarts
  restarts="$(grep -c 'restarting' "$OUT/$name-server.log" || true)"
  echo "== $name: exit $code (1 = non-conformant); server restarts during the run: ${restarts:-0}; reports in $OUT/$name" >&2
}

want="${1:-all}"
status=0
if [ "$want" = all ] || [ "$want" = mcp-go ]; then
  trial mcp-go http://localhost:8080/mcp \
    --fixture sleep_required=process_batch --fixture-arg sleep_required.ms=delay/1000 \
    --fixture-const 'sleep_required.items=["a"]' \
    --fixture forbidden=quick_check --fixture-const 'forbidden.input="x"' \
    --fixture rpc_error=analyze_data --fixture-arg rpc_error.ms= --fixture-const 'rpc_error.data=""' || status=1
fi
if [ "$want" = all ] || [ "$want" = typescript-sdk ]; then
  PORT=3917 MCP_TS_SDK_LOG="$OUT/typescript-sdk-node.log" trial typescript-sdk http://localhost:3917/mcp \
    --fixture sleep_required=delay --fixture-arg sleep_required.ms=duration \
    --fixture forbidden=greet --fixture-const 'forbidden.name="x"' \
    --fixture input=collect-user-info-task --fixture-arg input.question= || status=1
fi
if [ "$want" = all ] || [ "$want" = typescript-sdk-v2 ]; then
  # The v2 server package has no server side of the tasks extension
  # (docs/trial-ts-v2.md): the run shows which profiles it is certified in.
  PORT=3918 trial typescript-sdk-v2 http://localhost:3918/mcp \
    --fixture forbidden=greet --fixture sleep=slow_compute || status=1
fi
if [ "$want" = all ] || [ "$want" = everything ]; then
  # The official "everything" server as published: its one task tool runs
  # four one-second stages whatever it is asked, so the run takes minutes.
  PORT=3919 trial everything http://localhost:3919/mcp \
    --fixture sleep_required=simulate-research-query --fixture-arg sleep_required.ms= \
    --fixture-const 'sleep_required.topic="x"' \
    --fixture input=simulate-research-query --fixture-arg input.question= \
    --fixture-const 'input.topic="x"' --fixture-const 'input.ambiguous=true' \
    --fixture forbidden=echo --fixture-const 'forbidden.message="x"' || status=1
fi
if [ "$want" = everything-stdio ]; then
  # The same server over stdio: the command starts one process per spec
  # (run.sh installs the package; STDIO=1 makes it serve stdio).
  echo "== everything-stdio" >&2
  code=0
  "$BIN" --command "env STDIO=1 bash $HERE/everything/run.sh" --report-dir "$OUT/everything-stdio" --no-color \
    --fixture sleep_required=simulate-research-query --fixture-arg sleep_required.ms= \
    --fixture-const 'sleep_required.topic="x"' \
    --fixture input=simulate-research-query --fixture-arg input.question= \
    --fixture-const 'input.topic="x"' --fixture-const 'input.ambiguous=true' \
    --fixture forbidden=echo --fixture-const 'forbidden.message="x"' | tee "$OUT/everything-stdio.txt" || code=$?
  echo "== everything-stdio: exit $code (1 = non-conformant); reports in $OUT/everything-stdio" >&2
fi
exit $status
