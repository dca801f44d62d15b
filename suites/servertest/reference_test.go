// Package servertest certifies the reference server with the server half of
// the conformance suite through the go test door (suites.RunServer).
package servertest_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/suites"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/server"
	"github.com/mcptasks/mcptasks/tasks/server/reference"
)

// TestReferenceServer certifies one reference instance with two bearer
// identities; its report is written into a temporary directory.
func TestReferenceServer(t *testing.T) {
	ctx := context.Background()
	tokens := map[string]string{"tok-alice": "alice", "tok-bob": "bob"}
	inst, err := reference.Start(ctx, reference.Options{
		Config:        tasks.Config{PollInterval: 50 * time.Millisecond},
		ServerOptions: []server.Option{server.WithTokenVerifier(server.NewStaticTokens(tokens))},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = inst.Close(context.Background()) })
	suites.RunServer(t, suites.ServerConfig{
		URLs:     []string{inst.URL},
		Headers:  http.Header{"Authorization": {"Bearer tok-alice"}},
		HeadersB: http.Header{"Authorization": {"Bearer tok-bob"}},
	}, suites.WithReportDir(t.TempDir()), suites.WithImplementation("mcptasks reference", "test"))
}
