// Package reference assembles the reference MCP tasks server in-process: a
// store (memory unless told otherwise), an Engine, a Server with the
// fixture tools, listening on a loopback port. Tests and cmd/conformance
// use it to certify the reference implementation without a subprocess.
package reference

import (
	"context"
	"errors"
	"log/slog"

	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/server"
)

// Options configures Start. The zero value gives a memory store with
// default limits, the fixture tools and 127.0.0.1:0.
type Options struct {
	// Config holds the task limits; defaults are applied.
	Config tasks.Config
	// Store, if set, is used instead of a fresh memory store; it is not
	// closed by Close.
	Store tasks.Store
	// Addr is the listen address; default 127.0.0.1:0.
	Addr string
	// NoFixtures leaves the fixture tools out.
	NoFixtures bool
	// Logger receives the server's logs; default: discarded.
	Logger *slog.Logger
	// EngineOptions, ServerOptions and ListenOptions are passed through.
	EngineOptions []tasks.EngineOption
	ServerOptions []server.Option
	ListenOptions []server.ListenOption
}

// Instance is a running reference server.
type Instance struct {
	// URL is the MCP endpoint.
	URL string
	// Engine runs the tasks; Server answers MCP; Store keeps the tasks.
	Engine *tasks.Engine
	Server *server.Server
	Store  tasks.Store

	listener  *server.Listener
	ownsStore bool
}

// Start builds and starts a reference server.
func Start(ctx context.Context, o Options) (*Instance, error) {
	cfg := o.Config.WithDefaults()
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	st, owns := o.Store, false
	if st == nil {
		st, owns = memory.New(cfg), true
	}
	eng := tasks.NewEngine(st, cfg, append([]tasks.EngineOption{tasks.WithLogger(log)}, o.EngineOptions...)...)
	sopts := []server.Option{server.WithLogger(log)}
	if !o.NoFixtures {
		sopts = append(sopts, server.WithFixtures())
	}
	srv, err := server.New(eng, append(sopts, o.ServerOptions...)...)
	if err != nil {
		_ = eng.Close(ctx)
		if owns {
			_ = st.Close()
		}
		return nil, err
	}
	addr := o.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := server.Listen(srv, addr, o.ListenOptions...)
	if err != nil {
		_ = eng.Close(ctx)
		if owns {
			_ = st.Close()
		}
		return nil, err
	}
	return &Instance{URL: ln.URL, Engine: eng, Server: srv, Store: st, listener: ln, ownsStore: owns}, nil
}

// Listener returns the HTTP listener (for its connection statistics).
func (i *Instance) Listener() *server.Listener { return i.listener }

// Close stops the listener, the engine (running tasks end as failed) and,
// if Start created it, the store.
func (i *Instance) Close(ctx context.Context) error {
	err := i.listener.Close(ctx)
	err = errors.Join(err, i.Engine.Close(ctx))
	if i.ownsStore {
		err = errors.Join(err, i.Store.Close())
	}
	return err
}
