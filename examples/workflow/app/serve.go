package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptasks/mcptasks/stores/storeurl"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/server"
)

// Options configure Serve.
type Options struct {
	// Addr is the loopback address to listen on; the MCP endpoint is /mcp.
	Addr string
	// Store is a store URL (see stores/storeurl): memory, sqlite:PATH,
	// postgres://…, redis://…, dynamodb://….
	Store string
	// Tokens is a file of "TOKEN SUBJECT" lines; when set, requests need
	// a bearer token, whose subject owns the tasks and workflows.
	Tokens        string
	PollInterval  time.Duration
	Lease         time.Duration
	ReapInterval  time.Duration
	ShutdownGrace time.Duration
	Logger        *slog.Logger
	// Ready, if set, gets the endpoint URL once the server listens.
	Ready func(url string)
}

// Serve runs the example server over Streamable HTTP until ctx ends.
func Serve(ctx context.Context, o Options) error {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.ShutdownGrace <= 0 {
		o.ShutdownGrace = 10 * time.Second
	}
	log := o.Logger
	cfg := tasks.Config{PollInterval: o.PollInterval, CursorKey: cursorKey(o.Store)}.WithDefaults()
	store, err := storeurl.Open(ctx, o.Store, cfg)
	if err != nil {
		return fmt.Errorf("opening store %q: %w", storeurl.Redact(o.Store), err)
	}
	defer store.Close()
	eopts := []tasks.EngineOption{tasks.WithLogger(log)}
	if o.Lease > 0 {
		eopts = append(eopts, tasks.WithLeaseDuration(o.Lease))
	}
	if o.ReapInterval > 0 {
		eopts = append(eopts, tasks.WithReapInterval(o.ReapInterval))
	}
	engine := tasks.NewEngine(store, cfg, eopts...)
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), o.ShutdownGrace)
		defer cancel()
		_ = engine.Close(cctx)
	}()
	srv, err := New(engine, log)
	if err != nil {
		return err
	}
	if err := checkLoopback(o.Addr); err != nil {
		return err
	}
	h, err := srv.HTTPHandler(o.Tokens)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	url := "http://" + ln.Addr().String() + "/mcp"
	log.Info("serving MCP over Streamable HTTP", "url", url, "store", storeurl.Redact(o.Store), "tokens", o.Tokens != "")
	if o.Ready != nil {
		o.Ready(url)
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), o.ShutdownGrace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		_ = hs.Close()
	}
	return nil
}

// HTTPHandler is the MCP endpoint: the adapter's handler in front of the
// SDK's Streamable HTTP handler, behind a bearer-token check when a token
// file is given.
func (s *Server) HTTPHandler(tokenFile string) (http.Handler, error) {
	var h http.Handler = s.Adapter.Handler(mcp.NewStreamableHTTPHandler(
		func(*http.Request) *mcp.Server { return s.MCP }, &mcp.StreamableHTTPOptions{Logger: s.log}), nil)
	h = http.NewCrossOriginProtection().Handler(h)
	if tokenFile == "" {
		return h, nil
	}
	tokens, err := server.LoadTokenFile(tokenFile)
	if err != nil {
		return nil, err
	}
	return auth.RequireBearerToken(func(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		sub, err := tokens.VerifyToken(ctx, token)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
		}
		return &auth.TokenInfo{UserID: sub, Expiration: time.Now().Add(time.Hour)}, nil
	}, nil)(h), nil
}

// cursorKey derives the tasks/list cursor key from the store URL, so
// instances on one store accept each other's cursors; "" for memory.
func cursorKey(store string) string {
	if store == "" || store == "memory" {
		return ""
	}
	sum := sha256.Sum256([]byte("mcptasks cursor key v1\x00" + store))
	return hex.EncodeToString(sum[:])
}

// checkLoopback refuses listen addresses outside loopback.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		return nil
	}
	return fmt.Errorf("--addr %q is not a loopback address", addr)
}
