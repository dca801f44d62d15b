// Package embedded certifies two other reference configurations by
// embedding suites.DescribeServer in its own Ginkgo suite: two instances
// sharing one store, and a single instance whose requestors are told apart
// only by their MCP session (no second identity configured).
package embedded_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/suites"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/server"
	"github.com/mcptasks/mcptasks/tasks/server/reference"
)

// started holds the deployments, started before the spec tree is built
// (their URLs are part of the configurations) and stopped after the run.
type deployment struct {
	instances []*reference.Instance
	store     tasks.Store
}

func (d *deployment) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, i := range d.instances {
		_ = i.Close(ctx)
	}
	if d.store != nil {
		_ = d.store.Close()
	}
}

func TestEmbeddedConfigurations(t *testing.T) {
	ctx := context.Background()
	cfg := tasks.Config{PollInterval: 50 * time.Millisecond, CursorKey: "embedded-test-cursor-key"}.WithDefaults()

	// Two instances over one shared memory store (and cursor key), two
	// bearer identities.
	shared := &deployment{store: memory.New(cfg)}
	defer shared.close()
	verifier := server.NewStaticTokens(map[string]string{"tok-a": "a", "tok-b": "b"})
	for i := 0; i < 2; i++ {
		inst, err := reference.Start(ctx, reference.Options{Config: cfg, Store: shared.store,
			ServerOptions: []server.Option{server.WithTokenVerifier(verifier)}})
		if err != nil {
			t.Fatal(err)
		}
		shared.instances = append(shared.instances, inst)
	}
	// One instance, identity = MCP session, no second identity given.
	single := &deployment{}
	defer single.close()
	inst, err := reference.Start(ctx, reference.Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	single.instances = append(single.instances, inst)

	Describe("two instances on one store", func() {
		suites.DescribeServer(suites.ServerConfig{
			URLs:     []string{shared.instances[0].URL, shared.instances[1].URL},
			Headers:  http.Header{"Authorization": {"Bearer tok-a"}},
			HeadersB: http.Header{"Authorization": {"Bearer tok-b"}},
		}, suites.WithImplementation("reference, shared store", "test"))
	})
	Describe("session identities only", func() {
		suites.DescribeServer(suites.ServerConfig{URLs: []string{single.instances[0].URL}},
			suites.WithImplementation("reference, sessions", "test"))
	})
	ReportAfterSuite("configurations behave as expected", func(r Report) {
		notSupported, multiRan := 0, 0
		for _, sr := range r.SpecReports {
			if !sr.LeafNodeType.Is(types.NodeTypeIt) {
				continue
			}
			path := strings.Join(sr.ContainerHierarchyTexts, " / ")
			if strings.HasPrefix(path, "session identities only") && strings.HasPrefix(sr.Failure.Message, suites.PrefixNotSupported) {
				notSupported++
			}
			if strings.HasPrefix(path, "two instances") && strings.Contains(path, "Several instances") && sr.State.Is(types.SpecStatePassed) {
				multiRan++
			}
		}
		Expect(notSupported).To(BeNumerically(">", 0), "without identity B the isolation specs must be not-supported")
		Expect(multiRan).To(BeNumerically(">=", 4), "the multi-instance specs must run and pass with two URLs")
	})
	RegisterFailHandler(Fail)
	RunSpecs(t, "reference server, embedded configurations")
}
