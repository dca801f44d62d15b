// Package sessions certifies the example server without tokens over
// Streamable HTTP: every session is a requestor of its own.
package sessions_test

import (
	"testing"

	"github.com/mcptasks/mcptasks/examples/gosdk-server/internal/certifytest"
	"github.com/mcptasks/mcptasks/suites"
)

func TestCertifyWithSessionOwners(t *testing.T) {
	url := certifytest.Start(t, "memory", "")
	cfg := certifytest.Config(url)
	cfg.Headers, cfg.HeadersB = nil, nil
	run, err := suites.CertifyServer(t.Context(), t, cfg,
		suites.WithReportDir(t.TempDir()), suites.WithImplementation("gosdk-server (sessions)", "test"))
	if err != nil {
		t.Fatal(err)
	}
	// Without credentials there is no second authorization context: what
	// needs one cannot be judged, and isolation between sessions is.
	certifytest.Judge(t, run, "TASKS-ELICIT-009", "TASKS-SEC-001", "TASKS-SEC-006", "TASKS-SEC-007")
	for _, e := range append(run.Report.Requirements, run.Report.Recommendations...) {
		if (e.ID == "TASKS-SEC-005" || e.ID == "MCPT-SESSION-001") && e.Status != "pass" {
			t.Errorf("%s: %s, want pass: sessions are the owners here", e.ID, e.Status)
		}
	}
}
