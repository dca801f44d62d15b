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

// Listener is a Server serving Streamable HTTP on a TCP address.
type Listener struct {
	// URL is the MCP endpoint, e.g. http://127.0.0.1:41234/mcp.
	URL string
	// Addr is the address actually listened on.
	Addr net.Addr

	srv     *Server
	http    *http.Server
	serveCh chan error
}

// Listen serves s at EndpointPath on addr; "127.0.0.1:0" picks a free
// loopback port. It returns once the socket is listening.
func Listen(s *Server, addr string) (*Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("server: listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle(EndpointPath, s)
	hs := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	l := &Listener{
		URL:     "http://" + ln.Addr().String() + EndpointPath,
		Addr:    ln.Addr(),
		srv:     s,
		http:    hs,
		serveCh: make(chan error, 1),
	}
	go func() { l.serveCh <- hs.Serve(ln) }()
	return l, nil
}

// Server returns the MCP server behind the listener.
func (l *Listener) Server() *Server { return l.srv }

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
