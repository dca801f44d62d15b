package server

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/mcptasks/mcptasks/tasks"
)

// outboxSize bounds the messages a session keeps for a stream that is not
// open; beyond it the oldest are dropped (they are notifications, which
// requestors must not rely on).
const outboxSize = 512

// session is one MCP session: an HTTP client identified by Mcp-Session-Id,
// or the single peer of a stdio connection.
type session struct {
	id      string
	owner   tasks.Owner            // fixed at initialize
	subject string                 // verified bearer subject bound at initialize, if any
	version atomic.Pointer[string] // negotiated protocol version

	initialized atomic.Bool
	lastSeen    atomic.Int64 // unix nanoseconds of the last request
	pinned      bool         // never forgotten for idleness (stdio)
	elicitForm  atomic.Bool  // the client declared form-mode elicitation
	eventSeq    atomic.Uint64

	// Notifications waiting for the GET stream / stdout. The queue grows
	// on demand, so an idle session costs a few hundred bytes, not a
	// preallocated buffer.
	qmu   sync.Mutex
	queue [][]byte
	wake  chan struct{} // signalled (capacity 1) when queue gains a message

	// ident is what the per-identity session cap counts the session
	// under (see identityKey); "" for stdio.
	ident string
	// capped: counted in the session caps (guarded by Server.mu).
	capped bool

	ctx       context.Context
	end       context.CancelFunc
	closeOnce sync.Once

	mu        sync.Mutex
	getCancel context.CancelFunc // the open GET stream, if any
	getGen    uint64
	inflight  map[string]context.CancelCauseFunc
}

// SessionID identifies the session (protocol.Session).
func (s *session) SessionID() string { return s.id }

// Owner is the requestor owning the session's tasks (protocol.Session).
func (s *session) Owner() tasks.Owner { return s.owner }

// Notify queues msg for the standalone stream (protocol.Session).
func (s *session) Notify(msg []byte) { s.push(msg) }

// ElicitForm reports whether the client declared form-mode elicitation
// (protocol.Session).
func (s *session) ElicitForm() bool { return s.elicitForm.Load() }

// Listening reports whether the standalone stream is open: the GET stream
// on HTTP, always on stdio (protocol.Session).
func (s *session) Listening() bool {
	if s.pinned {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.getCancel != nil
}

// touch records activity on the session.
func (s *session) touch() { s.lastSeen.Store(time.Now().UnixNano()) }

// idleSince reports whether the session had no request since t and has no
// open stream or request in flight.
func (s *session) idleSince(t time.Time) bool {
	if s.pinned || s.lastSeen.Load() >= t.UnixNano() {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.getCancel == nil && len(s.inflight) == 0
}

// protocolVersion is the negotiated version, "" before initialize.
func (s *session) protocolVersion() string {
	if v := s.version.Load(); v != nil {
		return *v
	}
	return ""
}

func (s *session) setVersion(v string) { s.version.Store(&v) }

func newSession(subject string) *session {
	ctx, end := context.WithCancel(context.Background())
	sess := &session{
		ctx:      ctx,
		end:      end,
		id:       uuid.NewString(),
		subject:  subject,
		wake:     make(chan struct{}, 1),
		inflight: make(map[string]context.CancelCauseFunc),
	}
	sess.touch()
	return sess
}

// push queues a message for the session's standalone stream without ever
// blocking; when the queue is full the oldest message is dropped.
func (s *session) push(msg []byte) {
	select {
	case <-s.ctx.Done():
		return
	default:
	}
	s.qmu.Lock()
	if len(s.queue) >= outboxSize {
		s.queue[0] = nil
		s.queue = s.queue[1:]
	}
	s.queue = append(s.queue, msg)
	s.qmu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// takeAll removes and returns every queued message, oldest first.
func (s *session) takeAll() [][]byte {
	s.qmu.Lock()
	q := s.queue
	s.queue = nil
	s.qmu.Unlock()
	return q
}

// requeue puts messages that could not be delivered back at the front of
// the queue, keeping at most outboxSize messages (the newest).
func (s *session) requeue(msgs [][]byte) {
	if len(msgs) == 0 {
		return
	}
	s.qmu.Lock()
	q := append(append(make([][]byte, 0, len(msgs)+len(s.queue)), msgs...), s.queue...)
	if len(q) > outboxSize {
		q = q[len(q)-outboxSize:]
	}
	s.queue = q
	s.qmu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Stream kinds, encoded in SSE event ids so a Last-Event-ID tells which
// kind of stream a client wants to resume.
const (
	streamGET  = "g"
	streamPOST = "p"
)

// nextEventID returns an SSE event id unique across the session's streams.
func (s *session) nextEventID(kind string) string {
	return kind + strconv.FormatUint(s.eventSeq.Add(1), 10) + "-" + s.id[:8]
}

// attachGET makes the caller the session's standalone stream, ending any
// previous one, and returns a context that ends when the stream must stop.
func (s *session) attachGET(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	s.mu.Lock()
	if s.getCancel != nil {
		s.getCancel()
	}
	s.getCancel = cancel
	s.getGen++
	gen := s.getGen
	s.mu.Unlock()
	stop := context.AfterFunc(s.ctx, cancel)
	return ctx, func() {
		stop()
		cancel()
		s.mu.Lock()
		if s.getGen == gen {
			s.getCancel = nil
		}
		s.mu.Unlock()
	}
}

// track registers an in-flight request so notifications/cancelled can end
// it; the returned function unregisters it.
func (s *session) track(id json.RawMessage, cancel context.CancelCauseFunc) func() {
	key := s.trackKey(id, cancel)
	return func() { s.untrack(key) }
}

// trackKey is track without the closure: it returns the key to pass to
// untrack once the request ends.
func (s *session) trackKey(id json.RawMessage, cancel context.CancelCauseFunc) string {
	key := string(canonicalID(id))
	s.mu.Lock()
	s.inflight[key] = cancel
	s.mu.Unlock()
	return key
}

// untrack forgets the in-flight request trackKey registered.
func (s *session) untrack(key string) {
	s.mu.Lock()
	delete(s.inflight, key)
	s.mu.Unlock()
}

// cancelRequest ends the named in-flight request; unknown ids are ignored.
func (s *session) cancelRequest(id json.RawMessage, reason string) bool {
	s.mu.Lock()
	cancel := s.inflight[string(id)]
	s.mu.Unlock()
	if cancel == nil {
		return false
	}
	cancel(&requestCancelled{reason: reason})
	return true
}

func (s *session) close() {
	s.closeOnce.Do(func() {
		s.end()
		s.mu.Lock()
		for _, c := range s.inflight {
			c(errSessionClosed)
		}
		if s.getCancel != nil {
			s.getCancel()
		}
		s.mu.Unlock()
	})
}

// requestCancelled is the cause of a request context ended by
// notifications/cancelled: such a request gets no response.
type requestCancelled struct{ reason string }

func (e *requestCancelled) Error() string {
	if e.reason == "" {
		return "request cancelled by the client"
	}
	return "request cancelled by the client: " + e.reason
}

type sessionClosedError struct{}

func (sessionClosedError) Error() string { return "session closed" }

var errSessionClosed error = sessionClosedError{}
