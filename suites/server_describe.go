package suites

import (
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// serverGroup is one area of server specs, registered at init by the
// server_*.go files (and by vendors through DescribeServerSpecs) and
// instantiated by DescribeServer.
type serverGroup struct {
	name, area string
	body       func(env *ServerEnv)
}

var serverGroups []serverGroup

// describeServer registers a group of server specs; nothing is built until
// DescribeServer runs.
func describeServer(name, area string, body func(env *ServerEnv)) bool {
	serverGroups = append(serverGroups, serverGroup{name: name, area: area, body: body})
	return true
}

// DescribeServerSpecs adds a vendor's own group of server specs to the
// suite, the way csi-test's DescribeSanity does: body receives the same
// ServerEnv as the built-in specs and registers its specs with env.It
// (or env.ItNeeding), each naming a requirement added with
// RegisterRequirement. Nothing is built until DescribeServer (or
// CertifyServer, RunServer) runs, so call it from a package-level var
// declaration or init, before the suite is described. It returns true
// so it can be used as `var _ = suites.DescribeServerSpecs(...)`.
func DescribeServerSpecs(name, area string, body func(env *ServerEnv)) bool {
	return describeServer(name, area, body)
}

// DescribeServer registers every server spec under one container, to be
// run by the caller's own RunSpecs. Use it to embed the suite in an
// existing Ginkgo suite or to certify several servers in one test binary.
// Which features the server has is decided once, from a probe of the
// server before the first spec runs (CertifyServer reports the same
// decision); WithFeature overrides it. It returns true so it can be used
// as `var _ = suites.DescribeServer(...)`.
func DescribeServer(cfg ServerConfig, opts ...Option) bool {
	o := newOptions(opts)
	cfg = o.scale(cfg).withDefaults()
	env := &ServerEnv{Config: cfg, opts: o, features: o.features}
	title := "mcptasks server conformance"
	if o.implName != "" {
		title += " of " + o.implName
	}
	ginkgo.Describe(title, modeLabel(ModeServer), func() {
		ginkgo.BeforeEach(func() {
			// Failures of the spec's own assertions carry the evidence:
			// the last exchange with the server and the spec section.
			gomega.RegisterFailHandler(env.failWithEvidence)
			ginkgo.DeferCleanup(func() { gomega.RegisterFailHandler(ginkgo.Fail) })
		})
		for _, g := range serverGroups {
			ginkgo.Describe(g.name, areaLabel(g.area), func() { g.body(env) })
		}
	})
	return true
}

// RunServer certifies a live server in a Go test: it registers the server
// specs, runs them with Ginkgo and, with WithReportDir, writes the
// conformance report. Call it once per test binary; use DescribeServer to
// certify more configurations.
func RunServer(t *testing.T, cfg ServerConfig, opts ...Option) {
	t.Helper()
	if _, err := CertifyServer(t.Context(), t, cfg, opts...); err != nil {
		t.Fatalf("suites.RunServer: %v", err)
	}
}
