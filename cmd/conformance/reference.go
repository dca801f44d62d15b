package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"time"

	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/suites"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/server"
	"github.com/mcptasks/mcptasks/tasks/server/reference"
)

// localReference is the in-process reference deployment the command
// certifies when no --server is given: two instances of the reference
// server over one memory store, with the fixture tools, a short poll
// interval, two bearer tokens for two identities, and one cursor key and
// one requestState key, so a tasks/list cursor or a multi-round-trip
// retry from either instance works on both.
type localReference struct {
	Config    suites.ServerConfig
	instances []*reference.Instance
	store     tasks.Store
}

// startReference starts the reference deployment on loopback.
func startReference(ctx context.Context) (*localReference, error) {
	tokA, tokB := randomToken(), randomToken()
	cfg := tasks.Config{PollInterval: 50 * time.Millisecond, CursorKey: randomToken()}.WithDefaults()
	store := memory.New(cfg)
	verifier := server.NewStaticTokens(map[string]string{tokA: "conformance-a", tokB: "conformance-b"})
	ref := &localReference{store: store}
	// One requestState key for both instances, like the cursor key.
	stateKey := []byte(randomToken())
	for i := 0; i < 2; i++ {
		inst, err := reference.Start(ctx, reference.Options{
			Config:        cfg,
			Store:         store,
			EngineOptions: []tasks.EngineOption{tasks.WithReapInterval(time.Second)},
			ServerOptions: []server.Option{server.WithTokenVerifier(verifier), server.WithAllowAnonymous(false), server.WithRequestStateKey(stateKey)},
		})
		if err != nil {
			ref.Close()
			return nil, err
		}
		ref.instances = append(ref.instances, inst)
		ref.Config.URLs = append(ref.Config.URLs, inst.URL)
	}
	ref.Config.Headers = http.Header{"Authorization": {"Bearer " + tokA}}
	ref.Config.HeadersB = http.Header{"Authorization": {"Bearer " + tokB}}
	return ref, nil
}

// Close stops both instances and the shared store.
func (r *localReference) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, inst := range r.instances {
		_ = inst.Close(ctx)
	}
	_ = r.store.Close()
}

func randomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
