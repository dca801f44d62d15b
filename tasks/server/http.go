package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/schema/v20260728"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// HTTP header names of the Streamable HTTP transport.
const (
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderProtocolVersion = "Mcp-Protocol-Version"
)

// defaultKeepAlive is how often an idle SSE stream gets a comment line, so
// proxies and clients see the connection alive.
const defaultKeepAlive = 15 * time.Second

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// respPool holds buffers for encoding success responses; one that grew
// past maxPooledResponse (a large tool result) is not kept.
var respPool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

const maxPooledResponse = 64 << 10

// ServeHTTP implements the Streamable HTTP transport at whatever path the
// handler is mounted on: POST carries client messages, GET opens the
// session's stream of server messages, DELETE ends the session.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.originAllowed(r.Header.Get("Origin")) {
		refuseUnread(w, r)
		httpError(w, http.StatusForbidden, nil, rpcErr(wire.CodeInvalidRequest, "origin "+strconv.Quote(r.Header.Get("Origin"))+" is not allowed"))
		return
	}
	if s.modernOnly && r.Method != http.MethodPost {
		// No sessions to end and no standalone stream to open.
		refuseUnread(w, r)
		w.Header().Set("Allow", "POST")
		httpError(w, http.StatusMethodNotAllowed, nil, rpcErr(wire.CodeInvalidRequest,
			"method "+r.Method+" is not allowed: this server speaks only protocol version "+protocol.ModernProtocolVersion+", where every message is a POST"))
		return
	}
	// A POST's version header is judged once its body says which profile
	// it speaks (servePOST).
	if v := r.Header.Get(HeaderProtocolVersion); v != "" && !supportedVersion(v) && r.Method != http.MethodPost {
		refuseUnread(w, r)
		httpError(w, http.StatusBadRequest, nil, rpcErr(wire.CodeInvalidRequest,
			fmt.Sprintf("unsupported %s %q: this server supports %s", HeaderProtocolVersion, v, strings.Join(supportedVersions, ", "))))
		return
	}
	switch r.Method {
	case http.MethodPost:
		s.servePOST(w, r)
	case http.MethodGet:
		s.serveGET(w, r)
	case http.MethodDelete:
		s.serveDELETE(w, r)
	default:
		refuseUnread(w, r)
		w.Header().Set("Allow", "GET, POST, DELETE")
		httpError(w, http.StatusMethodNotAllowed, nil, rpcErr(wire.CodeInvalidRequest, "method "+r.Method+" is not allowed: use POST, GET or DELETE"))
	}
}

// originAllowed accepts requests without Origin, from loopback origins and
// from configured ones.
func (s *Server) originAllowed(origin string) bool {
	if origin == "" {
		return true
	}
	for _, o := range s.origins {
		if o == "*" || strings.EqualFold(o, origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	switch u.Hostname() {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// httpError writes a JSON-RPC error response with an HTTP status.
func httpError(w http.ResponseWriter, status int, id json.RawMessage, e *tasks.RPCError) {
	body := appendError(nil, id, e)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeAuthError(w http.ResponseWriter, err error) {
	var ae *authError
	if errors.As(err, &ae) {
		if ae.status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="`+ae.msg+`"`)
		}
		httpError(w, ae.status, nil, rpcErr(wire.CodeInvalidRequest, ae.msg))
		return
	}
	httpError(w, http.StatusUnauthorized, nil, rpcErr(wire.CodeInvalidRequest, err.Error()))
}

// lookupSession finds the request's session, answering 400 (no header),
// 404 (unknown or ended session) or 403 (another identity) itself.
func (s *Server) lookupSession(w http.ResponseWriter, r *http.Request, subject string) *session {
	sid := r.Header.Get(HeaderSessionID)
	if sid == "" {
		httpError(w, http.StatusBadRequest, nil, rpcErr(wire.CodeInvalidRequest, "missing "+HeaderSessionID+" header: send initialize first and echo the session id it returns"))
		return nil
	}
	sess := s.session(sid)
	if sess == nil {
		httpError(w, http.StatusNotFound, nil, rpcErr(wire.CodeInvalidRequest, "unknown or ended session: initialize a new one"))
		return nil
	}
	sess.touch()
	if sess.subject != subject {
		httpError(w, http.StatusForbidden, nil, rpcErr(wire.CodeInvalidRequest, "the session belongs to another identity"))
		return nil
	}
	return sess
}

// refuseUnread prepares the answer to a request whose body will not be
// read: the connection closes after the answer, and the read deadline is
// moved to now so net/http does not wait for a slow body to drain it.
func refuseUnread(w http.ResponseWriter, r *http.Request) {
	if !hasBody(r) {
		return // no body: the connection can be kept
	}
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}

// readBody reads a POST body within the body deadline and size limit, then
// lifts the deadline so a long answer (an SSE stream) is not cut.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, buf *bytes.Buffer) error {
	rc := http.NewResponseController(w)
	if s.bodyTimeout > 0 {
		_ = rc.SetReadDeadline(time.Now().Add(s.bodyTimeout))
	}
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, s.maxBody))
	if err != nil {
		// Cut the connection: what is left of the body is not wanted.
		w.Header().Set("Connection", "close")
		_ = rc.SetReadDeadline(time.Now())
		return err
	}
	if s.bodyTimeout > 0 {
		_ = rc.SetReadDeadline(time.Time{})
	}
	connServing(r.Context())
	return nil
}

func (s *Server) servePOST(w http.ResponseWriter, r *http.Request) {
	// Credentials are checked before the body is read, so a client
	// without them cannot hold the connection by sending it slowly.
	subject, err := s.identify(r)
	if err != nil {
		refuseUnread(w, r)
		writeAuthError(w, err)
		return
	}
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bufPool.Put(buf)
	if err := s.readBody(w, r, buf); err != nil {
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			httpError(w, http.StatusRequestEntityTooLarge, nil, rpcErr(wire.CodeInvalidRequest,
				fmt.Sprintf("request body too large: the limit is %d bytes", mbe.Limit)))
		case isTimeout(err):
			httpError(w, http.StatusRequestTimeout, nil, rpcErr(wire.CodeInvalidRequest,
				fmt.Sprintf("the request body did not arrive within %s", s.bodyTimeout)))
		default:
			httpError(w, http.StatusBadRequest, nil, rpcErr(wire.CodeParseError, "could not read the request body: "+err.Error()))
		}
		return
	}
	m, k, err := decodeValue(buf.Bytes())
	msg := &m
	if err != nil {
		var de *decodeError
		if errors.As(err, &de) {
			httpError(w, http.StatusBadRequest, de.id, de.err)
			return
		}
		httpError(w, http.StatusBadRequest, nil, rpcErr(wire.CodeInvalidRequest, err.Error()))
		return
	}
	if isModernRequest(k, msg) {
		s.serveModernPOST(w, r, msg, subject)
		return
	}
	if s.modernOnly && (k != kindNotification || !protocol.IsModern(msg.Method, msg.Params)) {
		httpError(w, http.StatusBadRequest, msg.ID, legacyRefusal(k, msg))
		return
	}
	if k == kindRequest && msg.Method != wire.MethodInitialize && r.Header.Get(HeaderSessionID) == "" {
		// Neither profile: no _meta (2026-07-28) and no session
		// (2025-11-25). A 2026-07-28 request that lacks its _meta is
		// malformed (-32602); the answer names both ways out.
		httpError(w, http.StatusBadRequest, msg.ID, rpcErr(wire.CodeInvalidParams,
			"params._meta with "+v20260728.ProtocolVersionMetaKey+" and "+v20260728.ClientCapabilitiesMetaKey+" is required ("+protocol.ModernProtocolVersion+
				"), or send initialize first and echo the "+HeaderSessionID+" it returns (2025-11-25)"))
		return
	}
	if k == kindNotification && protocol.IsModern(msg.Method, msg.Params) {
		// A stateless notification: there is no session it could refer
		// to, and none the server acts on; accepted and ignored.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if v := r.Header.Get(HeaderProtocolVersion); v != "" && !supportedVersion(v) {
		httpError(w, http.StatusBadRequest, nil, rpcErr(wire.CodeInvalidRequest,
			fmt.Sprintf("unsupported %s %q: this server supports %s", HeaderProtocolVersion, v, strings.Join(supportedVersions, ", "))))
		return
	}
	if k == kindRequest && msg.Method == wire.MethodInitialize {
		s.serveInitialize(w, r, msg, subject, identityKey(r, subject))
		return
	}
	sess := s.lookupSession(w, r, subject)
	if sess == nil {
		return
	}
	switch k {
	case kindNotification:
		s.onNotification(sess, msg)
		w.WriteHeader(http.StatusAccepted)
	case kindResponse:
		if err := s.core.Respond(sess.owner, msg.ID, msg.Result, msg.Error); err != nil {
			httpError(w, http.StatusBadRequest, nil, rpcErr(wire.CodeInvalidRequest, "response id "+string(msg.ID)+" answers no pending server request"))
			return
		}
		w.WriteHeader(http.StatusAccepted)
	case kindRequest:
		// The answer and the call in one allocation.
		hc := &struct {
			out httpOut
			c   call
		}{out: httpOut{w: w, sess: sess, allowSSE: acceptsSSE(r)}}
		rb := respPool.Get().(*[]byte)
		hc.c = call{ctx: r.Context(), sess: sess, id: msg.ID, method: msg.Method, params: msg.Params, out: &hc.out, resp: (*rb)[:0]}
		resp := s.dispatch(&hc.c)
		hc.out.finish(resp) // writes a copy of resp, so its buffer can be used again
		if resp != nil && cap(resp) <= maxPooledResponse {
			*rb = resp[:0]
		}
		respPool.Put(rb)
	}
}

func (s *Server) serveInitialize(w http.ResponseWriter, r *http.Request, msg *envelope, subject, ident string) {
	sess := newSession(subject)
	sess.ident = ident
	owner, err := tasks.ResolveOwner(tasks.Identity{Subject: subject, SessionID: sess.id}, s.allowAnonymous)
	if err != nil {
		httpError(w, http.StatusUnauthorized, nil, rpcErr(wire.CodeInvalidRequest, err.Error()))
		return
	}
	sess.owner = owner
	c := &call{ctx: r.Context(), sess: sess, id: msg.ID, method: msg.Method, params: msg.Params, out: noStream{}}
	resp := s.dispatch(c)
	if sess.protocolVersion() != "" {
		if le := s.admitSession(sess); le != nil {
			s.logRefusal("session refused", "reason", le.msg, "identity", ident)
			if le.status == http.StatusServiceUnavailable {
				w.Header().Set("Retry-After", "10")
			}
			httpError(w, le.status, msg.ID, limitErr(le.msg))
			sess.close()
			return
		}
		w.Header().Set(HeaderSessionID, sess.id)
		s.log.Debug("session started", "session", sess.id, "owner", owner)
	}
	writeJSON(w, resp)
}

// jsonContentType is shared by every JSON answer; net/http only reads it.
var jsonContentType = []string{"application/json"}

// writeJSON answers with one JSON body. net/http adds Content-Length itself
// for a body written in one piece by a handler that does not flush.
func writeJSON(w http.ResponseWriter, body []byte) {
	w.Header()["Content-Type"] = jsonContentType
	_, _ = w.Write(body)
}

// onNotification handles client notifications; unknown ones are ignored.
func (s *Server) onNotification(sess *session, msg *envelope) {
	switch msg.Method {
	case wire.NotificationInitialized:
		sess.initialized.Store(true)
	case wire.NotificationCancelled:
		var p schema.CancelledNotificationParams
		if json.Unmarshal(msg.Params, &p) != nil || p.RequestID == nil || p.RequestID.IsZero() {
			return // malformed: ignored
		}
		reason := ""
		if p.Reason != nil {
			reason = *p.Reason
		}
		sess.cancelRequest(canonicalID(mustJSON(p.RequestID)), reason)
	}
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// canonicalID renders a request id the same way however it was spelled.
func canonicalID(raw json.RawMessage) json.RawMessage {
	if plainID(raw) {
		return raw
	}
	var id schema.RequestID
	if json.Unmarshal(raw, &id) != nil {
		return raw
	}
	b, err := json.Marshal(id)
	if err != nil {
		return raw
	}
	return b
}

// plainID reports whether raw is already in the form canonicalID gives:
// an integer written with digits only (an optional minus sign, no
// leading zero), or a string of printable ASCII that encoding/json writes
// back unchanged (no quote, backslash, <, > or &). Most ids are, and for
// them canonicalID costs no decoding.
func plainID(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		if len(raw) < 2 || raw[len(raw)-1] != '"' {
			return false
		}
		for _, c := range raw[1 : len(raw)-1] {
			if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return false
			}
		}
		return true
	}
	digits := raw
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 || (digits[0] == '0' && len(digits) > 1) {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func acceptsSSE(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		if strings.Contains(v, "text/event-stream") || strings.Contains(v, "*/*") {
			return true
		}
	}
	return false
}

// httpOut answers one POSTed request: with a JSON body, or with an SSE
// stream as soon as a message related to the request must go out first.
type httpOut struct {
	w        http.ResponseWriter
	sess     *session
	allowSSE bool

	mu   sync.Mutex
	sse  bool
	done bool
}

var errStreamDone = errors.New("the request's stream is finished")

func (o *httpOut) startSSE() {
	h := o.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	o.w.WriteHeader(http.StatusOK)
	o.sse = true
	writePrime(o.w, o.sess.nextEventID(streamPOST))
	flush(o.w)
}

func (o *httpOut) send(msg []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done {
		return errStreamDone
	}
	if !o.allowSSE {
		return errNoStream
	}
	if !o.sse {
		o.startSSE()
	}
	if err := writeEvent(o.w, o.sess.nextEventID(streamPOST), msg); err != nil {
		return err
	}
	return flush(o.w)
}

// ping keeps a long-waiting answer alive: it switches to SSE (if the
// client accepts it) and writes a comment line.
func (o *httpOut) ping() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done || !o.allowSSE {
		return errNoStream
	}
	if !o.sse {
		o.startSSE()
	}
	if _, err := o.w.Write([]byte(": keep-alive\n\n")); err != nil {
		return err
	}
	return flush(o.w)
}

// finish writes the response (nil: none, the request was cancelled) and
// ends the answer.
func (o *httpOut) finish(resp []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.done = true
	switch {
	case o.sse && resp != nil:
		_ = writeEvent(o.w, o.sess.nextEventID(streamPOST), resp)
		_ = flush(o.w)
	case o.sse:
	case resp == nil:
		// A cancelled request gets no response: an empty stream, without
		// an event id, so the client does not try to resume it.
		h := o.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		o.w.WriteHeader(http.StatusOK)
	default:
		writeJSON(o.w, resp)
	}
}

// noStream is the sender of requests that cannot carry extra messages.
type noStream struct{}

func (noStream) send([]byte) error { return errNoStream }

// writePrime writes the first event of a stream: an id and empty data, so
// a client can resume from it.
func writePrime(w http.ResponseWriter, id string) {
	_, _ = fmt.Fprintf(w, "id: %s\ndata: \n\n", id)
}

// writeEvent writes one SSE event carrying a JSON message on one line.
func writeEvent(w http.ResponseWriter, id string, msg []byte) error {
	msg = oneLine(msg)
	buf := make([]byte, 0, len(msg)+len(id)+16)
	buf = append(buf, "id: "...)
	buf = append(buf, id...)
	buf = append(buf, "\ndata: "...)
	buf = append(buf, msg...)
	buf = append(buf, "\n\n"...)
	_, err := w.Write(buf)
	return err
}

// oneLine compacts a JSON message that contains line breaks.
func oneLine(msg []byte) []byte {
	if bytes.IndexByte(msg, '\n') < 0 && bytes.IndexByte(msg, '\r') < 0 {
		return msg
	}
	var b bytes.Buffer
	if json.Compact(&b, msg) != nil {
		return bytes.ReplaceAll(bytes.ReplaceAll(msg, []byte("\r"), nil), []byte("\n"), nil)
	}
	return b.Bytes()
}

func flush(w http.ResponseWriter) error {
	return http.NewResponseController(w).Flush()
}

func (s *Server) serveGET(w http.ResponseWriter, r *http.Request) {
	if !acceptsSSE(r) {
		httpError(w, http.StatusNotAcceptable, nil, rpcErr(wire.CodeInvalidRequest, "GET opens an SSE stream: the Accept header must include text/event-stream"))
		return
	}
	if hasBody(r) {
		refuseUnread(w, r)
		httpError(w, http.StatusBadRequest, nil, rpcErr(wire.CodeInvalidRequest, "GET carries no body"))
		return
	}
	subject, err := s.identify(r)
	if err != nil {
		writeAuthError(w, err)
		return
	}
	sess := s.lookupSession(w, r, subject)
	if sess == nil {
		return
	}
	release, ok := s.waiting.acquire(sess.ident)
	if !ok {
		s.logRefusal("stream refused", "identity", sess.ident, "max_waiting_per_identity", s.waiting.max)
		httpError(w, http.StatusTooManyRequests, nil, waitingLimitErr(s.waiting.max))
		return
	}
	defer release()
	connServing(r.Context())
	if last := r.Header.Get("Last-Event-ID"); last != "" && !strings.HasPrefix(last, streamGET) {
		httpError(w, http.StatusBadRequest, nil, rpcErr(wire.CodeInvalidRequest,
			"response streams cannot be resumed on this server: repeat the request instead"))
		return
	}
	ctx, detach := sess.attachGET(r.Context())
	defer detach()
	s.core.StreamOpened(sess)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	writePrime(w, sess.nextEventID(streamGET))
	if flush(w) != nil {
		return
	}
	tick := time.NewTicker(s.keepAliveEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-sess.wake:
			msgs := sess.takeAll()
			for i, msg := range msgs {
				if writeEvent(w, sess.nextEventID(streamGET), msg) != nil {
					sess.requeue(msgs[i:]) // keep them for the next stream
					return
				}
			}
			if flush(w) != nil {
				return
			}
		case <-tick.C:
			if _, err := w.Write([]byte(": keep-alive\n\n")); err != nil || flush(w) != nil {
				return
			}
		}
	}
}

// hasBody reports whether a request announces a body.
func hasBody(r *http.Request) bool {
	return r.ContentLength != 0 || len(r.TransferEncoding) > 0
}

// isTimeout reports whether err is a network deadline expiring.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func (s *Server) serveDELETE(w http.ResponseWriter, r *http.Request) {
	if hasBody(r) {
		refuseUnread(w, r)
		httpError(w, http.StatusBadRequest, nil, rpcErr(wire.CodeInvalidRequest, "DELETE carries no body"))
		return
	}
	subject, err := s.identify(r)
	if err != nil {
		writeAuthError(w, err)
		return
	}
	sess := s.lookupSession(w, r, subject)
	if sess == nil {
		return
	}
	s.dropSession(sess.id)
	s.log.Debug("session ended by the client", "session", sess.id, "owner", sess.owner)
	w.WriteHeader(http.StatusNoContent)
}
