// Package memory certifies the example server on the memory store over
// Streamable HTTP, with two bearer identities.
package memory_test

import (
	"testing"

	"github.com/mcptasks/mcptasks/examples/gosdk-server/internal/certifytest"
	"github.com/mcptasks/mcptasks/suites"
)

func TestCertifyOnMemory(t *testing.T) {
	url := certifytest.Start(t, "memory", certifytest.TokenFile(t))
	run, err := suites.CertifyServer(t.Context(), t, certifytest.Config(url),
		suites.WithReportDir(t.TempDir()), suites.WithImplementation("gosdk-server (memory)", "test"))
	if err != nil {
		t.Fatal(err)
	}
	certifytest.Judge(t, run)
}
