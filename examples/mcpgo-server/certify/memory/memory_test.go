// Package memory certifies the example mcp-go server, with tasks served by
// adapters/mcpgo on the memory store, over real HTTP on loopback.
package memory_test

import (
	"testing"

	"github.com/mcptasks/mcptasks/examples/mcpgo-server/app"
	"github.com/mcptasks/mcptasks/examples/mcpgo-server/certify/internal/serve"
	"github.com/mcptasks/mcptasks/suites"
)

func TestCertifyOnMemory(t *testing.T) {
	url := serve.Start(t, app.Options{Store: "memory"})
	run, err := suites.CertifyServer(t.Context(), t, suites.ServerConfig{
		URLs:     []string{url},
		Headers:  serve.HeadersA,
		HeadersB: serve.HeadersB,
		Fixtures: suites.FixtureMap(app.Fixtures),
	}, suites.WithReportDir(t.TempDir()), suites.WithImplementation("mcpgo-example", "memory"))
	if err != nil {
		t.Fatal(err)
	}
	serve.RequireZeroFailures(t, run)
	// What mcp-go's built-in tasks get wrong passes through the adapter.
	for _, d := range serve.BuiltinDefects {
		serve.RequirePass(t, run, d.ID)
	}
}
