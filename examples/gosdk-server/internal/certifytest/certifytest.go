// Package certifytest starts the example server for the certification
// tests (each in a package of its own, since the conformance suite runs
// once per test binary) and judges their reports.
package certifytest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/examples/gosdk-server/app"
	"github.com/mcptasks/mcptasks/suites"
	"github.com/mcptasks/mcptasks/suites/report"
)

// Bearer tokens of the two test identities.
const (
	TokenAlice = "tok-alice-6c1e"
	TokenBob   = "tok-bob-a47d"
)

// TokenFile writes the test identities' token file and returns its path.
func TokenFile(t testing.TB) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(p, []byte(TokenAlice+" alice\n"+TokenBob+" bob\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Start runs an example server instance over HTTP on a loopback port in
// this process, on store, accepting the test tokens, and returns its
// endpoint URL. It stops when t ends.
func Start(t testing.TB, store string, tokens string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	go func() {
		done <- app.Serve(ctx, app.Options{
			Addr: "127.0.0.1:0", Store: store, Tokens: tokens,
			PollInterval: 50 * time.Millisecond, Lease: time.Second, ReapInterval: 250 * time.Millisecond,
			ShutdownGrace: 5 * time.Second, Logger: log,
			Ready: func(url string) { ready <- url },
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("example server: %v", err)
		}
	})
	select {
	case url := <-ready:
		return url
	case err := <-done:
		t.Fatalf("example server did not start: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("example server did not start within 30 s")
	}
	return ""
}

// Config is the suite configuration for the example server at urls, with
// both test identities and the fixture roles mapped to its tools.
func Config(urls ...string) suites.ServerConfig {
	return suites.ServerConfig{
		URLs:     urls,
		Headers:  http.Header{"Authorization": {"Bearer " + TokenAlice}},
		HeadersB: http.Header{"Authorization": {"Bearer " + TokenBob}},
		Fixtures: suites.FixtureMap(app.Fixtures),
	}
}

// Judge fails t unless the run has no failure and no harness error and is
// conformant, and logs the totals and every requirement that did not
// pass. Requirements named in notSupported may be not-supported (a
// precondition that cannot hold for this kind of run); the verdict is then
// partial at best, which is accepted when nothing else falls short.
func Judge(t testing.TB, run *suites.ServerRun, notSupported ...string) {
	t.Helper()
	if run == nil || run.Report == nil {
		t.Fatal("no report")
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
	allowed := 0
	for _, e := range run.Report.Requirements {
		if e.Status == report.StatusNotSupported {
			if !slices.Contains(notSupported, e.ID) {
				t.Errorf("%s is not-supported: %s", e.ID, e.Message)
			}
			allowed++
		}
	}
	switch {
	case s.Verdict == report.VerdictConformant:
	case s.Verdict == report.VerdictPartial && allowed > 0:
		t.Logf("verdict partial only because of %d not-supported requirements that cannot hold here: %v", allowed, notSupported)
	default:
		t.Errorf("verdict %s, want %s", s.Verdict, report.VerdictConformant)
	}
}
