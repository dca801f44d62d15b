// Package redis certifies two instances of the example server sharing one
// Redis store, multi-instance specs included.
package redis_test

import (
	"os"
	"strings"
	"testing"

	"github.com/mcptasks/mcptasks/examples/gosdk-server/internal/certifytest"
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
	tokens := certifytest.TokenFile(t)
	a := certifytest.Start(t, store, tokens)
	b := certifytest.Start(t, store, tokens)
	run, err := suites.CertifyServer(t.Context(), t, certifytest.Config(a, b),
		suites.WithReportDir(t.TempDir()), suites.WithImplementation("gosdk-server (2 instances, redis)", "test"))
	if err != nil {
		t.Fatal(err)
	}
	certifytest.Judge(t, run)
	for _, e := range run.Report.Requirements {
		if strings.HasPrefix(e.ID, "MCPT-MULTI-") && e.Status != "pass" {
			t.Errorf("%s: %s, want pass with two instances", e.ID, e.Status)
		}
	}
}
