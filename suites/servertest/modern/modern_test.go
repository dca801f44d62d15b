// Package modern_test certifies the reference server restricted to the
// 2026-07-28 profile (server.WithModernOnly) through the go test door:
// the 2026-07-28 suite passes, the rules for a server speaking only that
// revision are judged (not left not-applicable), and the 2025-11-25
// profile is out of scope.
package modern_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/suites"
	"github.com/mcptasks/mcptasks/suites/report"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/server"
	"github.com/mcptasks/mcptasks/tasks/server/reference"
)

func TestModernOnlyReferenceServer(t *testing.T) {
	ctx := context.Background()
	tokens := map[string]string{"tok-alice": "alice", "tok-bob": "bob"}
	inst, err := reference.Start(ctx, reference.Options{
		Config: tasks.Config{PollInterval: 50 * time.Millisecond},
		ServerOptions: []server.Option{server.WithTokenVerifier(server.NewStaticTokens(tokens)), server.WithAllowAnonymous(false),
			server.WithModernOnly()},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = inst.Close(context.Background()) })
	dir := t.TempDir()
	suites.RunServer(t, suites.ServerConfig{
		URLs:     []string{inst.URL},
		Headers:  http.Header{"Authorization": {"Bearer tok-alice"}},
		HeadersB: http.Header{"Authorization": {"Bearer tok-bob"}},
	}, suites.WithReportDir(dir), suites.WithImplementation("mcptasks reference (2026-07-28 only)", "test"))

	raw, err := os.ReadFile(filepath.Join(dir, report.FileJSON))
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	if r.Summary.Verdict == report.VerdictNonConformant || r.Summary.Totals[report.StatusFail] > 0 {
		t.Errorf("verdict %s, %d failing", r.Summary.Verdict, r.Summary.Totals[report.StatusFail])
	}
	if got := r.Protocols; !slices.Equal(got, []string{"2026-07-28"}) {
		t.Errorf("protocols certified %v, want only 2026-07-28", got)
	}
	status := map[string]report.Status{}
	for _, es := range [][]report.Entry{r.Requirements, r.Recommendations} {
		for _, e := range es {
			status[e.ID] = e.Status
		}
	}
	for _, id := range []string{"EXT-COMPAT-015", "EXT-COMPAT-016", "EXT-GET-015"} {
		if status[id] != report.StatusPass {
			t.Errorf("%s is %q, want pass", id, status[id])
		}
	}
	passed := 0
	for id, s := range status {
		if s == report.StatusPass && id[:4] != "EXT-" {
			t.Errorf("%s (2025-11-25) passed against a server that does not speak 2025-11-25", id)
		}
		if s == report.StatusPass {
			passed++
		}
	}
	t.Logf("%d 2026-07-28 requirements pass", passed)
}
