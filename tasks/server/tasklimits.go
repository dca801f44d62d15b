package server

import (
	"fmt"
	"sync"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
)

// Task limits of the server, kept as aliases of the protocol core's.
const (
	// DefaultMaxActiveTasks: see protocol.DefaultMaxActiveTasks.
	DefaultMaxActiveTasks = protocol.DefaultMaxActiveTasks
	// DefaultMaxRetainedTasksPerOwner: see protocol.DefaultMaxRetainedTasksPerOwner.
	DefaultMaxRetainedTasksPerOwner = protocol.DefaultMaxRetainedTasksPerOwner
	// DefaultMaxRetainedTasks: see protocol.DefaultMaxRetainedTasks.
	DefaultMaxRetainedTasks = protocol.DefaultMaxRetainedTasks
)

// CodeLimitExceeded is the JSON-RPC error code of a refusal for a limit:
// too many tasks or too many sessions. See wire.CodeLimitExceeded.
const CodeLimitExceeded = protocol.CodeLimitExceeded

// WithMaxActiveTasks caps the tasks whose work runs on this server at the
// same time (see protocol.WithMaxActiveTasks).
func WithMaxActiveTasks(n int) Option {
	return func(s *Server) { s.coreOpts = append(s.coreOpts, protocol.WithMaxActiveTasks(n)) }
}

// WithMaxRetainedTasks caps the unexpired tasks created through this
// server, per owner and in total (see protocol.WithMaxRetainedTasks).
func WithMaxRetainedTasks(perOwner, total int) Option {
	return func(s *Server) {
		s.coreOpts = append(s.coreOpts, protocol.WithMaxRetainedTasks(perOwner, total))
	}
}

func limitErr(msg string) *tasks.RPCError { return protocol.LimitError(msg) }

// logRefusal logs a limit refusal through the core's sampling.
func (s *Server) logRefusal(msg string, attrs ...any) { s.core.LogRefusal(msg, attrs...) }

// DefaultMaxWaitingPerIdentity caps the HTTP requests of one identity that
// may wait at the same time: tools/call and tasks/result in progress and
// open GET streams. Each holds a connection, so without it one client
// could occupy every connection the listener allows.
const DefaultMaxWaitingPerIdentity = 256

// WithMaxWaitingPerIdentity caps the HTTP requests one identity (bearer
// subject, or client IP without a token) may have waiting at once:
// tools/call and tasks/result calls in progress and open GET streams. A
// call past the cap fails with CodeLimitExceeded, a GET with HTTP 429.
// Zero keeps DefaultMaxWaitingPerIdentity; negative removes the cap.
// Stdio is not affected.
func WithMaxWaitingPerIdentity(n int) Option {
	return func(s *Server) {
		if n != 0 {
			s.waiting.max = n
		}
	}
}

// identSlots counts waiting requests per identity.
type identSlots struct {
	max int

	mu sync.Mutex
	n  map[string]int
}

// acquire takes a slot for ident ("" is never counted); the returned
// release must be called once. ok is false at the cap.
func (w *identSlots) acquire(ident string) (release func(), ok bool) {
	if !w.take(ident) {
		return nil, false
	}
	var once sync.Once
	return func() { once.Do(func() { w.give(ident) }) }, true
}

// take is acquire without the release function, for callers that pair it
// with exactly one give (no allocation per request).
func (w *identSlots) take(ident string) bool {
	if ident == "" || w.max <= 0 {
		return true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n[ident] >= w.max {
		return false
	}
	w.n[ident]++
	return true
}

// give returns the slot of ident that take gave.
func (w *identSlots) give(ident string) {
	if ident == "" || w.max <= 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if v := w.n[ident] - 1; v > 0 {
		w.n[ident] = v
	} else {
		delete(w.n, ident)
	}
}

func waitingLimitErr(max int) *tasks.RPCError {
	return limitErr(fmt.Sprintf("request limit reached: you already have %d requests waiting (tools/call, tasks/result, GET streams); let some finish first", max))
}
