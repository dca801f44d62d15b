package gosdk

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
)

// outboxSize bounds the messages queued for one session's standalone
// stream; beyond it, messages are dropped (status and progress
// notifications are best effort, and an input request dropped this way is
// handed out again when the stream reopens).
const outboxSize = 256

// sessionState is what the adapter keeps per SDK session.
type sessionState struct {
	a  *Adapter
	ss *mcp.ServerSession
	// id is the SDK's session id, or a random one for transports without
	// session ids (stdio), so such a session still is an owner of its own.
	id string
	// listening: a standalone stream is open (an HTTP GET stream; always
	// for a wrapped connection, which writes to stdout or the like).
	listening atomic.Bool
	// conn is the wrapped connection of a session served through
	// Transport; it can carry notifications the SDK has no API for.
	conn atomic.Pointer[conn]
	// ready: the SDK answered initialize; user is the token's user id
	// then (the SDK binds the session to it).
	ready atomic.Bool
	user  atomic.Pointer[string]

	mu     sync.Mutex
	owners map[tasks.Owner]*session
	outbox chan []byte
	done   chan struct{}
	closed bool
}

// state returns the adapter's state of ss, creating it (and a watcher
// that forgets it when the session ends) on first use.
func (a *Adapter) state(ss *mcp.ServerSession) *sessionState {
	a.mu.Lock()
	defer a.mu.Unlock()
	if st := a.sessions[ss]; st != nil {
		return st
	}
	id := ss.ID()
	if id == "" {
		id = "conn-" + uuid.NewString()
	}
	st := &sessionState{a: a, ss: ss, id: id, owners: make(map[tasks.Owner]*session),
		outbox: make(chan []byte, outboxSize), done: make(chan struct{})}
	a.sessions[ss] = st
	if ss.ID() != "" {
		a.byID[ss.ID()] = st
	}
	go st.send()
	go func() {
		_ = ss.Wait()
		a.forget(st)
	}()
	return st
}

// initialized reports whether the session completed initialize.
func (st *sessionState) initialized() bool { return st.ready.Load() }

// userID is the token user the session was initialized by ("" if none).
func (st *sessionState) userID() string {
	if u := st.user.Load(); u != nil {
		return *u
	}
	return ""
}

// lookupID returns the state of the session with SDK session id id.
func (a *Adapter) lookupID(id string) *sessionState {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.byID[id]
}

// forget drops a session that ended: the core stops routing to it, and
// input requests it held go to another stream of their owner.
func (a *Adapter) forget(st *sessionState) {
	a.mu.Lock()
	if a.sessions[st.ss] == st {
		delete(a.sessions, st.ss)
	}
	if a.byID[st.ss.ID()] == st {
		delete(a.byID, st.ss.ID())
	}
	a.mu.Unlock()
	st.mu.Lock()
	st.closed = true
	close(st.done)
	sessions := make([]*session, 0, len(st.owners))
	for _, s := range st.owners {
		sessions = append(sessions, s)
	}
	st.mu.Unlock()
	for _, s := range sessions {
		a.core.RemoveSession(s)
	}
}

// session returns the core session of st for owner, registering it with
// the core on first use. An SDK session normally has one owner; a server
// whose token info changes within a session gets one core session per
// owner, so each sees only its own tasks.
func (st *sessionState) session(owner tasks.Owner) *session {
	st.mu.Lock()
	s := st.owners[owner]
	if s == nil && !st.closed {
		s = &session{st: st, owner: owner}
		st.owners[owner] = s
		st.a.core.AddSession(s)
	}
	st.mu.Unlock()
	if s == nil { // the session already ended: serve the request anyway
		s = &session{st: st, owner: owner}
	}
	return s
}

// sessions returns the core sessions of st.
func (st *sessionState) sessions() []*session {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]*session, 0, len(st.owners))
	for _, s := range st.owners {
		out = append(out, s)
	}
	return out
}

// streamOpened marks the standalone stream open and lets the core hand it
// the input requests that wait for one.
func (st *sessionState) streamOpened() {
	st.listening.Store(true)
	for _, s := range st.sessions() {
		st.a.core.StreamOpened(s)
	}
}

// queue hands msg to the session's sender without blocking.
func (st *sessionState) queue(msg []byte) {
	select {
	case <-st.done:
	case st.outbox <- msg:
	default:
		st.a.log.Warn("gosdk: session outbox full; message dropped", "session", st.id)
	}
}

// send delivers queued messages in order, through the SDK where it has an
// API for them (progress, elicitation) and through the wrapped connection
// for the rest (task status notifications).
func (st *sessionState) send() {
	for {
		select {
		case <-st.done:
			return
		case msg := <-st.outbox:
			st.deliver(context.Background(), msg, true)
		}
	}
}

// envelope is the part of an outgoing message the adapter reads.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// errUndeliverable: the SDK has no way to send this message here.
var errUndeliverable = errors.New("gosdk: the SDK cannot send this message on this transport")

// deliver sends one message the core produced: on the stream of the
// request ctx belongs to, or on the standalone stream when ctx is not a
// request's. standalone says which, for the handling of failures.
func (st *sessionState) deliver(ctx context.Context, msg []byte, standalone bool) error {
	var env envelope
	if err := json.Unmarshal(msg, &env); err != nil {
		return err
	}
	switch {
	case env.Method == "notifications/progress":
		var p mcp.ProgressNotificationParams
		if err := json.Unmarshal(env.Params, &p); err != nil {
			return err
		}
		return st.ss.NotifyProgress(ctx, &p)
	case env.Method == "elicitation/create" && len(env.ID) > 0:
		var p mcp.ElicitParams
		if err := json.Unmarshal(env.Params, &p); err != nil {
			return err
		}
		go st.elicit(ctx, env.ID, &p, standalone)
		return nil
	case len(env.ID) == 0:
		// A notification the SDK has no API for (notifications/tasks/status):
		// only a wrapped connection can carry it.
		if c := st.conn.Load(); c != nil {
			return c.Write(ctx, &jsonrpc.Request{Method: env.Method, Params: env.Params})
		}
		return errUndeliverable
	}
	return errUndeliverable
}

// schemaMismatch is how the SDK's ServerSession.Elicit words an answer
// whose content fails the requested schema (v1.8.0 has no error value for
// it); TestElicitAnswerAgainstTheSchema notices a change of wording.
const schemaMismatch = "does not match requested schema"

// elicit asks the client through the SDK and routes the answer to the
// core under the core's own request id.
func (st *sessionState) elicit(ctx context.Context, id json.RawMessage, p *mcp.ElicitParams, standalone bool) {
	res, err := st.ss.Elicit(ctx, p)
	var answer, rpcErr json.RawMessage
	switch {
	case err == nil:
		b, merr := json.Marshal(res)
		if merr != nil {
			return
		}
		answer = b
	case ctx.Err() != nil:
		// The tasks/result request that carried it ended: the core hands
		// the request out again.
		return
	case strings.Contains(err.Error(), schemaMismatch):
		// The client answered, but its content does not match the
		// requested schema (the SDK checks it): the task gets an
		// invalid-params error rather than being asked again and again.
		b, merr := json.Marshal(&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the answer does not match the requested schema: " + err.Error()})
		if merr != nil {
			return
		}
		rpcErr = b
	default:
		var we *jsonrpc.Error
		if !errors.As(err, &we) {
			st.a.log.Debug("gosdk: elicitation not delivered", "session", st.id, "err", err)
			if standalone {
				st.redeliver()
			}
			return
		}
		b, merr := json.Marshal(we)
		if merr != nil {
			return
		}
		rpcErr = b
	}
	// The core accepts the answer only from the owner of the task that
	// asked, and only once.
	for _, s := range st.sessions() {
		if st.a.core.Respond(s.owner, id, answer, rpcErr) == nil {
			return
		}
	}
}

// redeliver makes the input requests handed to this session's standalone
// stream deliverable again after the SDK could not send one (the stream
// closed in between): the core treats the session as gone and back.
func (st *sessionState) redeliver() {
	st.listening.Store(false)
	// Under st.mu, so that forget (which marks the session closed under it
	// first) never sees a session re-added after it removed it.
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return // forget hands its requests on
	}
	for _, s := range st.owners {
		st.a.core.RemoveSession(s)
		st.a.core.AddSession(s)
	}
}

// session is one owner's view of an SDK session, as the core sees it.
type session struct {
	st    *sessionState
	owner tasks.Owner
}

var _ protocol.Session = (*session)(nil)

// SessionID is the SDK session's id (or the adapter's, without one).
func (s *session) SessionID() string { return s.st.id }

// Owner is the requestor the session acts for.
func (s *session) Owner() tasks.Owner { return s.owner }

// Notify queues msg for the standalone stream.
func (s *session) Notify(msg []byte) { s.st.queue(msg) }

// Listening reports whether a standalone stream is open.
func (s *session) Listening() bool { return s.st.listening.Load() }

// ElicitForm reports whether the client declared form elicitation.
func (s *session) ElicitForm() bool {
	p := s.st.ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return false
	}
	e := p.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil
}

// caller is the requestor of one request.
type caller struct {
	*session
	ctx context.Context // the SDK's request context
}

// Session returns the session without the request, for what outlives it.
func (c *caller) Session() protocol.Session { return c.session }

// Send writes msg on the request's own stream.
func (c *caller) Send(msg []byte) error { return c.st.deliver(c.ctx, msg, false) }
