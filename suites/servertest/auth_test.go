package servertest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/suites"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/server"
	"github.com/mcptasks/mcptasks/tasks/server/reference"
)

// TestDetectAuthorization checks the identity-B probe against a reference
// server with bearer tokens and one without any authorization.
func TestDetectAuthorization(t *testing.T) {
	ctx := context.Background()
	start := func(opts ...server.Option) string {
		inst, err := reference.Start(ctx, reference.Options{Config: tasks.Config{PollInterval: 50 * time.Millisecond}, ServerOptions: opts})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = inst.Close(context.Background()) })
		return inst.URL
	}
	authed := start(server.WithTokenVerifier(server.NewStaticTokens(map[string]string{"tok-a": "a", "tok-b": "b"})))
	open := start()
	bearer := func(tok string) http.Header { return http.Header{"Authorization": {"Bearer " + tok}} }
	header := func(v string) http.Header { return http.Header{"X-Identity": {v}} }
	tests := []struct {
		name          string
		cfg           suites.ServerConfig
		contexts, ano bool
		reason        string
	}{
		{"tokens on a server with authorization", suites.ServerConfig{URLs: []string{authed}, Headers: bearer("tok-a"), HeadersB: bearer("tok-b")},
			true, false, "HTTP 401"},
		{"headers on a server without authorization", suites.ServerConfig{URLs: []string{open}, Headers: header("a"), HeadersB: header("b")},
			false, true, "no authorization"},
		{"no identity B", suites.ServerConfig{URLs: []string{authed}, Headers: bearer("tok-a")},
			false, false, "no second identity"},
		{"the same headers twice", suites.ServerConfig{URLs: []string{authed}, Headers: bearer("tok-a"), HeadersB: bearer("tok-a")},
			false, false, "same headers"},
		{"declared by the operator", suites.ServerConfig{URLs: []string{open}, Headers: header("a"), HeadersB: header("b"), AuthContexts: suites.AuthContextsYes},
			true, true, "operator"},
		{"denied by the operator", suites.ServerConfig{URLs: []string{authed}, Headers: bearer("tok-a"), HeadersB: bearer("tok-b"), AuthContexts: suites.AuthContextsNo},
			false, false, "operator"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := suites.DetectAuthorization(ctx, tt.cfg)
			if a.Contexts != tt.contexts || a.Anonymous != tt.ano || !strings.Contains(a.Reason, tt.reason) {
				t.Errorf("got %+v, want contexts %v, anonymous %v, reason with %q", a, tt.contexts, tt.ano, tt.reason)
			}
		})
	}
}
