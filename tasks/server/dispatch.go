package server

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/mcptasks/mcptasks/tasks/protocol"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// sender carries messages related to one request (progress, elicitation)
// to the requestor before the response: on HTTP it turns the POST answer
// into an SSE stream, on stdio it writes to the output.
type sender interface {
	send(msg []byte) error
}

// pinger is a sender that can keep an idle stream alive.
type pinger interface {
	ping() error
}

// errNoStream: the request's answer cannot carry extra messages (the
// client did not accept an SSE stream).
var errNoStream = errors.New("the request cannot carry server messages: the client did not accept text/event-stream")

// call is one request being served.
type call struct {
	ctx    context.Context
	sess   *session
	id     json.RawMessage
	method string
	params json.RawMessage
	out    sender
	// as is the call's Caller, kept here so that handing it to the
	// protocol core as a pointer boxes nothing.
	as caller
	// resp, when not nil, is an empty buffer a success response is
	// appended to instead of a new one.
	resp []byte
}

// caller is the protocol core's view of a request: its session plus the
// request's own stream.
type caller struct {
	*session
	out sender
}

// Send writes msg on the request's stream.
func (c caller) Send(msg []byte) error { return c.out.send(msg) }

// Session returns the session without the request, for what outlives it.
func (c caller) Session() protocol.Session { return c.session }

// known reports whether the server answers method.
func known(method string) bool {
	return method == wire.MethodInitialize || method == wire.MethodPing || protocol.Handles(method)
}

// dispatch runs one request and returns the encoded response, or nil when
// no response must be sent (the request was cancelled by the client).
func (s *Server) dispatch(c *call) []byte {
	if !known(c.method) {
		return appendError(nil, c.id, rpcErr(wire.CodeMethodNotFound, "method not found: "+strconv.Quote(c.method)))
	}
	if c.method != wire.MethodInitialize && c.method != wire.MethodPing && c.sess.protocolVersion() == "" {
		return appendError(nil, c.id, rpcErr(wire.CodeInvalidRequest, "the session is not initialized: send initialize first"))
	}
	if protocol.LongRunning(c.method) {
		if !s.waiting.take(c.sess.ident) {
			s.logRefusal("request refused", "identity", c.sess.ident, "method", c.method, "max_waiting_per_identity", s.waiting.max)
			return appendError(nil, c.id, waitingLimitErr(s.waiting.max))
		}
		defer s.waiting.give(c.sess.ident)
		ctx, cancel := context.WithCancelCause(c.ctx)
		defer cancel(nil)
		defer c.sess.untrack(c.sess.trackKey(c.id, cancel))
		c.ctx = ctx
		if p, ok := c.out.(pinger); ok && c.method == wire.MethodTasksResult {
			defer s.keepAlive(p)()
		}
	}
	var (
		res json.RawMessage
		err error
		// inPlace: res is the whole response so far, the core having
		// appended its result to the envelope's start.
		inPlace bool
	)
	switch c.method {
	case wire.MethodInitialize:
		res, err = s.initialize(c)
	case wire.MethodPing:
		res = json.RawMessage(`{}`)
	default:
		c.as = caller{session: c.sess, out: c.out}
		if c.resp != nil {
			res, err = s.core.HandleAppend(c.ctx, &c.as, c.method, c.params, appendResponseStart(c.resp, c.id))
			inPlace = true
		} else {
			res, err = s.core.Handle(c.ctx, &c.as, c.method, c.params)
		}
	}
	if cause := context.Cause(c.ctx); cause != nil {
		var rc *requestCancelled
		if errors.As(cause, &rc) || errors.Is(cause, errSessionClosed) {
			return nil
		}
	}
	if err != nil {
		return appendError(nil, c.id, s.core.WireError(c.method, err))
	}
	if inPlace {
		return append(res, '}')
	}
	buf := c.resp
	if buf == nil {
		buf = make([]byte, 0, len(res)+48)
	}
	return appendResponse(buf, c.id, res)
}

// keepAlive pings a long-waiting answer every keep-alive period, so it
// moves to an SSE stream with keep-alive comments and idle-connection
// timeouts do not cut it. The returned function stops it.
func (s *Server) keepAlive(p pinger) func() {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(s.keepAliveEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				_ = p.ping()
			}
		}
	}()
	return func() { close(stop); <-done }
}

func (s *Server) initialize(c *call) (json.RawMessage, error) {
	res, n, err := s.core.Initialize(c.params)
	if err != nil {
		return nil, err
	}
	c.sess.setVersion(n.ProtocolVersion)
	if n.ElicitForm {
		c.sess.elicitForm.Store(true)
	}
	return res, nil
}
