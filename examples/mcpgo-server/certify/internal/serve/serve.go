// Package serve starts the example server in a test, on a loopback port.
package serve

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/examples/mcpgo-server/app"
	"github.com/mcptasks/mcptasks/suites"
	"github.com/mcptasks/mcptasks/suites/report"
)

// Tokens are the two identities the certification uses.
var Tokens = map[string]string{"tok-alice": "alice", "tok-bob": "bob"}

// HeadersA and HeadersB carry those identities.
var (
	HeadersA = http.Header{"Authorization": {"Bearer tok-alice"}}
	HeadersB = http.Header{"Authorization": {"Bearer tok-bob"}}
)

// Start runs the example over real HTTP on loopback and returns its MCP URL;
// it stops with the test.
func Start(t testing.TB, o app.Options) string {
	t.Helper()
	if o.Tokens == nil {
		o.Tokens = Tokens
	}
	if o.PollInterval == 0 {
		o.PollInterval = 50 * time.Millisecond
	}
	a, err := app.New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", a.Handler())
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: mux}}
	srv.Start()
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.Close(ctx)
	})
	return srv.URL + "/mcp"
}

// Summarize logs the verdict, the counts and every requirement that did not
// pass, with its reason.
func Summarize(t testing.TB, run *suites.ServerRun) {
	t.Helper()
	s := run.Report.Summary
	t.Logf("verdict %s: %d specs, %d ran, totals %v, recommendations %v", s.Verdict, s.Specs, s.Ran, s.Totals, s.Recommendations)
	for _, list := range [][]report.Entry{run.Report.Requirements, run.Report.Recommendations} {
		for _, e := range list {
			if e.Status != report.StatusPass {
				t.Logf("%s %s (%s): %s", e.ID, e.Status, e.Level, e.Message)
			}
		}
	}
	for _, h := range run.Report.HarnessErrors {
		t.Logf("harness error: %s", h)
	}
}

// RequireZeroFailures fails t unless no requirement or recommendation
// failed or errored, no harness error happened and something passed.
func RequireZeroFailures(t testing.TB, run *suites.ServerRun) {
	t.Helper()
	Summarize(t, run)
	for _, list := range [][]report.Entry{run.Report.Requirements, run.Report.Recommendations} {
		for _, e := range list {
			if e.Status == report.StatusFail || e.Status == report.StatusError {
				t.Errorf("%s: %s: %s", e.ID, e.Status, e.Message)
			}
		}
	}
	if len(run.Report.HarnessErrors) > 0 {
		t.Errorf("harness errors: %v", run.Report.HarnessErrors)
	}
	if run.Report.Summary.Totals[report.StatusPass] == 0 {
		t.Error("no requirement passed")
	}
}

// Failures returns the ids of the requirements and recommendations that
// failed.
func Failures(run *suites.ServerRun) map[string]report.Entry {
	out := map[string]report.Entry{}
	for _, list := range [][]report.Entry{run.Report.Requirements, run.Report.Recommendations} {
		for _, e := range list {
			if e.Status == report.StatusFail {
				out[e.ID] = e
			}
		}
	}
	return out
}

// Defect is a failure of mcp-go's built-in tasks that the adapter fixes.
type Defect struct {
	ID       string // the requirement
	Why      string // what is wrong, in short
	Evidence string // a fragment of the suite's failure message
	// Unobserved, when set, is a fragment of the not-applicable message
	// the requirement gets when a run never sees the evidence, because
	// the defect shows only in a message that mcp-go itself may lose.
	Unobserved string
}

// BuiltinDefects are the failures the built-in run must show, each judged
// against its rule:
//   - TASKS-XPORT-021 (SHOULD NOT take the end of a connection as a
//     cancellation): mcp-go runs task work on the request's context, so
//     the task is cancelled once the CreateTaskResult is written;
//   - TASKS-WIRE-NOTIF-002 (MUST, schema): the status notification's
//     params must be a whole Task, and mcp-go leaves ttl out when it is null.
//     The notification of the creating session races with mcp-go's own
//     forwarder of the finished tools/call response, which takes it off the
//     session's channel and drops it; in such a run no notification arrives
//     and the requirement is not-applicable instead;
//   - TASKS-SEC-001 (MUST tie each task to its authorization context):
//     mcp-go broadcasts status notifications to every session, so another
//     principal learns of the task;
//   - TASKS-TTL-004 (MUST state the ttl in force): a requested ttl of -1 is
//     reported as a retention of -1 ms.
var BuiltinDefects = []Defect{
	{"TASKS-XPORT-021", "work cancelled when the response ends", "cancel", ""},
	{"TASKS-WIRE-NOTIF-002", "status notification without ttl", "ttl", "sent no notifications/tasks/status"},
	{"TASKS-SEC-001", "status notification broadcast to every session", "notifications/tasks/status", ""},
	{"TASKS-TTL-004", "negative ttl reported", "ttl", ""},
}

// RequirePass fails t unless each id passed.
func RequirePass(t testing.TB, run *suites.ServerRun, ids ...string) {
	t.Helper()
	status := map[string]report.Status{}
	for _, list := range [][]report.Entry{run.Report.Requirements, run.Report.Recommendations} {
		for _, e := range list {
			status[e.ID] = e.Status
		}
	}
	for _, id := range ids {
		if status[id] != report.StatusPass {
			t.Errorf("%s: %q, want pass", id, status[id])
		}
	}
}
