// Package certify runs the conformance suite (conformance --server) on
// the workflow example over Streamable HTTP, with two bearer identities.
package certify

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/examples/workflow/app"
	"github.com/mcptasks/mcptasks/suites"
	"github.com/mcptasks/mcptasks/suites/report"
)

func TestCertifyWorkflowExample(t *testing.T) {
	tokens := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(tokens, []byte("tok-a-91 alice\ntok-b-92 bob\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- app.Serve(ctx, app.Options{Addr: "127.0.0.1:0", Store: "memory", Tokens: tokens,
			PollInterval: 50 * time.Millisecond, Lease: time.Second, ReapInterval: 250 * time.Millisecond,
			ShutdownGrace: 5 * time.Second, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Ready: func(u string) { ready <- u }})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("example server: %v", err)
		}
	})
	var url string
	select {
	case url = <-ready:
	case err := <-done:
		t.Fatalf("example server did not start: %v", err)
	}
	cfg := suites.ServerConfig{
		URLs:     []string{url},
		Headers:  http.Header{"Authorization": {"Bearer tok-a-91"}},
		HeadersB: http.Header{"Authorization": {"Bearer tok-b-92"}},
		Fixtures: suites.FixtureMap(app.Fixtures),
	}
	run, err := suites.CertifyServer(t.Context(), t, cfg, suites.WithReportDir(t.TempDir()),
		suites.WithImplementation("workflow example (memory)", "test"))
	if err != nil {
		t.Fatal(err)
	}
	s := run.Report.Summary
	t.Logf("verdict %s: %d of %d specs ran; totals %v; recommendations %v", s.Verdict, s.Ran, s.Specs, s.Totals, s.Recommendations)
	var notes []string
	for _, es := range [][]report.Entry{run.Report.Requirements, run.Report.Recommendations} {
		for _, e := range es {
			if e.Status != report.StatusPass {
				notes = append(notes, fmt.Sprintf("%s %s (%s): %s", e.ID, e.Status, e.Level, e.Message))
			}
		}
	}
	sort.Strings(notes)
	t.Logf("not passed:\n  %s", strings.Join(notes, "\n  "))
	if n := s.Totals[report.StatusFail] + s.Totals[report.StatusError]; n > 0 {
		t.Errorf("%d requirements failed or could not be run", n)
	}
	if n := s.Recommendations[report.StatusFail] + s.Recommendations[report.StatusError]; n > 0 {
		t.Errorf("%d recommendations failed or could not be run", n)
	}
	if s.Verdict != report.VerdictConformant {
		t.Errorf("verdict %s, want %s", s.Verdict, report.VerdictConformant)
	}
}
