// Package server is the reference MCP 2025-11-25 receiver for tasks: JSON-RPC
// dispatch over the tasks Engine, a tool registry, and two transports,
// Streamable HTTP (Server is an http.Handler) and stdio (ServeStdio).
//
// Tasks are bound to the requestor: the subject of a verified bearer token
// when a TokenVerifier is configured and the request carries a token,
// otherwise the MCP session that created them. Status notifications go only
// to sessions of the owning requestor; a task's progress goes to the session
// that created it, under the progressToken of the creating request; input a
// task needs (elicitation) is delivered on the requestor's tasks/result
// stream, or on its standalone stream (GET, stdout) when no tasks/result
// waits on the task, for clients that only poll tasks/get.
//
// The tasks semantics live in tasks/protocol; this package is the
// transport over it.
package server

import (
	"log/slog"
	"sync"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
)

// ProtocolVersion is the MCP revision this server implements and prefers.
const ProtocolVersion = protocol.ProtocolVersion

// supportedVersions are the revisions accepted in initialize and in the
// MCP-Protocol-Version header, newest first.
var supportedVersions = protocol.SupportedVersions()

func supportedVersion(v string) bool { return protocol.SupportedVersion(v) }

// DefaultMaxBodyBytes is the default limit on one HTTP request body or one
// stdio line.
const DefaultMaxBodyBytes = 4 << 20

// Implementation names this server in the initialize result.
type Implementation = protocol.Implementation

// Option configures a Server.
type Option func(*Server)

// WithLogger sets the logger; default slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(s *Server) {
		if l != nil {
			s.log = l
		}
	}
}

// WithTokenVerifier makes bearer tokens identify requestors: a request with
// an Authorization: Bearer header is answered 401 unless v accepts the
// token, and its tasks belong to the token's subject. Requests without a
// token are refused with 401 unless anonymous use is allowed (see
// WithAllowAnonymous), in which case their session owns their tasks.
func WithTokenVerifier(v TokenVerifier) Option { return func(s *Server) { s.verifier = v } }

// WithAllowAnonymous lets requests without a bearer token in when a
// TokenVerifier is configured; their tasks are bound to their session. It
// defaults to the engine Config's AllowAnonymous.
func WithAllowAnonymous(allow bool) Option {
	return func(s *Server) { s.allowAnonymous = allow; s.anonSet = true }
}

// WithAllowedOrigins adds origins (scheme://host[:port]) accepted in the
// Origin header besides loopback ones.
func WithAllowedOrigins(origins ...string) Option {
	return func(s *Server) { s.origins = append(s.origins, origins...) }
}

// WithMaxBodyBytes limits the size of one incoming message.
func WithMaxBodyBytes(n int64) Option {
	return func(s *Server) {
		if n > 0 {
			s.maxBody = n
		}
	}
}

// WithSessionIdleTimeout sets after how long without requests, open
// streams or requests in flight an HTTP session is forgotten (its tasks
// stay); default DefaultSessionIdleTimeout. A timer checks every quarter
// of it (between 25 ms and 1 min). Later requests with its id get 404.
func WithSessionIdleTimeout(d time.Duration) Option {
	return func(s *Server) {
		if d > 0 {
			s.idleTimeout = d
		}
	}
}

// DefaultBodyTimeout is how long a client may take to send one HTTP
// request body once its headers have arrived.
const DefaultBodyTimeout = 30 * time.Second

// WithBodyTimeout sets how long a client may take to send one HTTP request
// body, counted from when the handler starts; a slower body is cut and the
// connection closed. Default DefaultBodyTimeout; negative disables it.
// Response streams (SSE) are not affected: the deadline only covers
// reading the body.
func WithBodyTimeout(d time.Duration) Option {
	return func(s *Server) {
		if d != 0 {
			s.bodyTimeout = d
		}
	}
}

// WithImplementation sets the serverInfo sent in the initialize result.
func WithImplementation(info Implementation) Option {
	return func(s *Server) { s.coreOpts = append(s.coreOpts, protocol.WithImplementation(info)) }
}

// WithRequestStateKey sets the key that seals the requestState of
// multi-round-trip tool calls (see protocol.WithRequestStateKey). Give
// every instance of a deployment the same key so a retry may reach any
// of them; without it each server draws its own.
func WithRequestStateKey(key []byte) Option {
	return func(s *Server) { s.coreOpts = append(s.coreOpts, protocol.WithRequestStateKey(key)) }
}

// WithTools registers tools (see Registry.Add).
func WithTools(tools ...Tool) Option {
	return func(s *Server) {
		for _, t := range tools {
			if err := s.tools.Add(t); err != nil {
				s.setupErr = err
			}
		}
	}
}

// WithModernOnly makes the server speak only the 2026-07-28 profile, as a
// server that never supported 2025-11-25 would: initialize and every other
// request without a per-request protocol version are refused with HTTP 400
// (initialize with an error naming 2026-07-28 as the supported version),
// and GET and DELETE on the endpoint get 405, since there are no sessions
// and no standalone streams. Session and Last-Event-ID headers on
// 2026-07-28 requests are ignored, as they always are. Without it the
// server speaks both revisions on one endpoint.
func WithModernOnly() Option { return func(s *Server) { s.modernOnly = true } }

// WithFixtures registers the fixture tools (see Fixtures).
func WithFixtures() Option { return WithTools(Fixtures()...) }

// Server is an MCP server whose tools can run as tasks on an Engine. It
// serves Streamable HTTP as an http.Handler (mount it at the MCP endpoint
// path) and stdio through ServeStdio. It is safe for concurrent use.
type Server struct {
	engine         *tasks.Engine
	core           *protocol.Core
	coreOpts       []protocol.Option
	tools          *Registry
	log            *slog.Logger
	verifier       TokenVerifier
	allowAnonymous bool
	anonSet        bool
	origins        []string
	maxBody        int64
	setupErr       error
	idleTimeout    time.Duration
	keepAliveEvery time.Duration
	maxSessions    int
	maxPerIdentity int
	bodyTimeout    time.Duration
	waiting        identSlots
	modernOnly     bool

	mu           sync.RWMutex
	sessions     map[string]*session
	perIdentity  map[string]int // open HTTP sessions by identityKey
	httpSessions int
	sweepTimer   *time.Timer // idle-session sweep; nil while no HTTP session exists
}

// New returns a server running tools as tasks on engine. It returns an
// error when a tool is registered twice or is malformed.
func New(engine *tasks.Engine, opts ...Option) (*Server, error) {
	s := &Server{
		engine:         engine,
		tools:          NewRegistry(),
		log:            slog.Default(),
		maxBody:        DefaultMaxBodyBytes,
		idleTimeout:    DefaultSessionIdleTimeout,
		keepAliveEvery: defaultKeepAlive,
		maxSessions:    DefaultMaxSessions,
		maxPerIdentity: DefaultMaxSessionsPerIdentity,
		bodyTimeout:    DefaultBodyTimeout,
		waiting:        identSlots{max: DefaultMaxWaitingPerIdentity, n: make(map[string]int)},
		sessions:       make(map[string]*session),
		perIdentity:    make(map[string]int),
	}
	for _, o := range opts {
		o(s)
	}
	if s.setupErr != nil {
		return nil, s.setupErr
	}
	if !s.anonSet {
		s.allowAnonymous = engine.Config().AllowAnonymous
	}
	core, err := protocol.New(engine, append([]protocol.Option{protocol.WithLogger(s.log), protocol.WithRegistry(s.tools)}, s.coreOpts...)...)
	if err != nil {
		return nil, err
	}
	s.core = core
	return s, nil
}

// Engine returns the engine the server runs tasks on.
func (s *Server) Engine() *tasks.Engine { return s.engine }

// Tools returns the server's tool registry; tools may be added before the
// server takes traffic.
func (s *Server) Tools() *Registry { return s.tools }

// Core returns the transport-neutral protocol core the server runs on.
func (s *Server) Core() *protocol.Core { return s.core }
