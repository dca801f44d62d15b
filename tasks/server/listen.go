package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// EndpointPath is where Listen mounts the MCP endpoint.
const EndpointPath = "/mcp"

// Connection limits of Listen applied when no ListenOption sets them.
const (
	// DefaultMaxConns caps the open client connections. On Unix it is
	// further lowered to leave room under the process's open-file limit
	// (see WithMaxConns).
	DefaultMaxConns = 1024
	// DefaultReadHeaderTimeout is how long a client may take to send a
	// request's headers.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultConnIdleTimeout is how long a kept-alive connection may wait
	// for its next request.
	DefaultConnIdleTimeout = 2 * time.Minute
)

// ListenOption configures Listen.
type ListenOption func(*listenConfig)

type listenConfig struct {
	maxConns          int
	readHeaderTimeout time.Duration
	idleTimeout       time.Duration
}

// WithMaxConns caps the client connections open at once. When the cap is
// reached, a new connection takes the place of the connection that has
// waited longest for a request or for the rest of one (slow or idle
// clients go first; connections whose request is being answered are never
// cut); if every connection is busy answering, the new one gets HTTP 503
// at once. Zero keeps DefaultMaxConns; negative removes the cap. On Unix
// the cap never exceeds the open-file limit minus a reserve of 64, so
// accepting never fails for lack of descriptors.
func WithMaxConns(n int) ListenOption {
	return func(c *listenConfig) {
		if n != 0 {
			c.maxConns = n
		}
	}
}

// WithReadHeaderTimeout sets how long a client may take to send request
// headers; default DefaultReadHeaderTimeout. Request bodies have their
// own deadline (WithBodyTimeout).
func WithReadHeaderTimeout(d time.Duration) ListenOption {
	return func(c *listenConfig) {
		if d > 0 {
			c.readHeaderTimeout = d
		}
	}
}

// WithConnIdleTimeout sets how long a kept-alive connection may wait for
// its next request; default DefaultConnIdleTimeout.
func WithConnIdleTimeout(d time.Duration) ListenOption {
	return func(c *listenConfig) {
		if d > 0 {
			c.idleTimeout = d
		}
	}
}

// Listener is a Server serving Streamable HTTP on a TCP address.
type Listener struct {
	// URL is the MCP endpoint, e.g. http://127.0.0.1:41234/mcp.
	URL string
	// Addr is the address actually listened on.
	Addr net.Addr

	srv     *Server
	http    *http.Server
	limit   *connLimiter
	serveCh chan error
}

// Listen serves s at EndpointPath on addr; "127.0.0.1:0" picks a free
// loopback port. It returns once the socket is listening.
func Listen(s *Server, addr string, opts ...ListenOption) (*Listener, error) {
	cfg := listenConfig{
		maxConns:          DefaultMaxConns,
		readHeaderTimeout: DefaultReadHeaderTimeout,
		idleTimeout:       DefaultConnIdleTimeout,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.maxConns > 0 {
		if fdCap := fdBudget(); fdCap > 0 && cfg.maxConns > fdCap {
			s.log.Info("connection cap lowered to fit the open-file limit", "max_conns", fdCap, "asked", cfg.maxConns)
			cfg.maxConns = fdCap
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("server: listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle(EndpointPath, s)
	hs := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: cfg.readHeaderTimeout,
		IdleTimeout:       cfg.idleTimeout,
	}
	l := &Listener{
		URL:     "http://" + ln.Addr().String() + EndpointPath,
		Addr:    ln.Addr(),
		srv:     s,
		http:    hs,
		serveCh: make(chan error, 1),
	}
	var serveLn net.Listener = ln
	if cfg.maxConns > 0 {
		l.limit = newConnLimiter(ln, cfg.maxConns, s.log)
		hs.ConnState = l.limit.connState
		hs.ConnContext = l.limit.connContext
		serveLn = l.limit
	}
	go func() { l.serveCh <- hs.Serve(serveLn) }()
	return l, nil
}

// Server returns the MCP server behind the listener.
func (l *Listener) Server() *Server { return l.srv }

// ConnStats reports the connections open now, and how many were cut to
// make room or refused since the listener started; all zero without a
// connection cap.
func (l *Listener) ConnStats() (open int, evicted, refused int64) {
	if l.limit == nil {
		return 0, 0, 0
	}
	return l.limit.stats()
}

// Close stops accepting connections, ends every session (so streams and
// blocked requests return) and waits for handlers up to ctx. Tasks keep
// running on the engine; close the engine separately.
func (l *Listener) Close(ctx context.Context) error {
	l.srv.CloseSessions()
	err := l.http.Shutdown(ctx)
	if serr := <-l.serveCh; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
