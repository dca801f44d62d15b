// Package redis certifies two instances of the example mcp-go server that
// share one Redis task store, multi-instance specs included.
package redis_test

import (
	"os"
	"strings"
	"testing"

	"github.com/mcptasks/mcptasks/examples/mcpgo-server/app"
	"github.com/mcptasks/mcptasks/examples/mcpgo-server/certify/internal/serve"
	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/suites"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

func TestCertifyTwoInstancesOnRedis(t *testing.T) {
	url, prefix := testenv.Redis(t)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	store := url + sep + "prefix=" + prefix
	a := serve.Start(t, app.Options{Store: store})
	b := serve.Start(t, app.Options{Store: store})
	run, err := suites.CertifyServer(t.Context(), t, suites.ServerConfig{
		URLs:     []string{a, b},
		Headers:  serve.HeadersA,
		HeadersB: serve.HeadersB,
		Fixtures: suites.FixtureMap(app.Fixtures),
	}, suites.WithReportDir(t.TempDir()), suites.WithImplementation("mcpgo-example", "redis x2"))
	if err != nil {
		t.Fatal(err)
	}
	serve.RequireZeroFailures(t, run)
	if !strings.Contains(strings.Join(run.Report.Features.Inferred, ","), "multi-instance") {
		t.Errorf("the run was not multi-instance: inferred %v", run.Report.Features.Inferred)
	}
}
