package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/mcptasks/mcptasks/schema/v20260728"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// The 2026-07-28 profile on the same endpoint: a request whose params
// carry a protocol version in _meta (or server/discover) is served
// statelessly by protocol.Core.HandleModern, without initialize or
// session; everything else keeps the 2025-11-25 session flow.

// HTTP headers of the 2026-07-28 Streamable HTTP transport.
const (
	HeaderMcpMethod = "Mcp-Method"
	HeaderMcpName   = "Mcp-Name"
)

// modernCaller is the requestor of one 2026-07-28 request.
type modernCaller struct {
	owner tasks.Owner
	out   sender
}

func (m modernCaller) Owner() tasks.Owner    { return m.owner }
func (m modernCaller) Send(msg []byte) error { return m.out.send(msg) }

// modernOwner is the owner of a 2026-07-28 requestor: its bearer subject,
// or, on a server without authentication, the one anonymous owner (a
// stateless request has no session to tell requestors apart; task ids
// are unguessable).
func modernOwner(subject string) tasks.Owner {
	if subject == "" {
		return tasks.AnonymousOwner
	}
	o, _ := tasks.ResolveOwner(tasks.Identity{Subject: subject}, false)
	return o
}

// dispatchModern serves one 2026-07-28 request and returns the encoded
// answer (nil when the request was cancelled) and its HTTP status.
// track, when not nil, lets notifications/cancelled end a long request.
func (s *Server) dispatchModern(ctx context.Context, ident string, owner tasks.Owner, msg *envelope, out sender, track func(id json.RawMessage, cancel context.CancelCauseFunc) func()) ([]byte, int) {
	if protocol.ModernLongRunning(msg.Method) {
		release, ok := s.waiting.acquire(ident)
		if !ok {
			s.logRefusal("request refused", "identity", ident, "method", msg.Method, "max_waiting_per_identity", s.waiting.max)
			e := waitingLimitErr(s.waiting.max)
			e.Code = protocol.CodeModernLimitExceeded
			return appendError(nil, msg.ID, e), http.StatusTooManyRequests
		}
		defer release()
		cctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		if track != nil {
			defer track(msg.ID, cancel)()
		}
		ctx = cctx
		if p, ok := out.(pinger); ok {
			defer s.keepAlive(p)()
		}
	}
	res, err := s.core.HandleModern(ctx, modernCaller{owner: owner, out: out}, msg.ID, msg.Method, msg.Params)
	if ctx.Err() != nil && (err != nil || msg.Method == "subscriptions/listen") {
		return nil, http.StatusOK // the client went away or cancelled
	}
	if err != nil {
		e := s.core.ModernWireError(msg.Method, err)
		return appendError(nil, msg.ID, e), protocol.ModernHTTPStatus(e, protocol.IsMalformedMeta(err))
	}
	return appendResponse(make([]byte, 0, len(res)+48), msg.ID, res), http.StatusOK
}

// headerMismatch is the -32020 refusal of a header that disagrees with
// the body.
func headerMismatch(msg string) *tasks.RPCError {
	return rpcErr(v20260728.CodeHeaderMismatch, msg)
}

// checkModernHeaders compares the routing headers of a 2026-07-28 POST
// with its body: MCP-Protocol-Version with the _meta version, Mcp-Method
// with the method and, on tasks/*, Mcp-Name with params.taskId (a
// =?base64?…?= value is decoded first). A missing MCP-Protocol-Version is
// refused; a missing Mcp-Method or Mcp-Name is accepted.
func checkModernHeaders(r *http.Request, msg *envelope) *tasks.RPCError {
	v := r.Header.Get(HeaderProtocolVersion)
	if v == "" {
		// Only clients older than 2025-06-18 omit it, and those start
		// with initialize, never with a per-request _meta.
		return headerMismatch("the " + HeaderProtocolVersion + " header is required with a per-request protocol version")
	}
	if v != protocol.ModernVersion(msg.Params) {
		return headerMismatch("the " + HeaderProtocolVersion + " header " + v + " differs from the protocol version in _meta")
	}
	if m := r.Header.Get(HeaderMcpMethod); m != "" && m != msg.Method {
		return headerMismatch("the " + HeaderMcpMethod + " header " + m + " differs from the method " + msg.Method)
	}
	if name, ok := r.Header[http.CanonicalHeaderKey(HeaderMcpName)]; ok && len(name) > 0 && strings.HasPrefix(msg.Method, "tasks/") {
		var p struct {
			TaskID string `json:"taskId"`
		}
		_ = json.Unmarshal(msg.Params, &p)
		got := name[0]
		if enc, ok := strings.CutPrefix(got, "=?base64?"); ok && strings.HasSuffix(enc, "?=") {
			b, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(enc, "?="))
			if err != nil {
				return headerMismatch("the " + HeaderMcpName + " header is not valid base64")
			}
			got = string(b)
		}
		if got != p.TaskID {
			return headerMismatch("the " + HeaderMcpName + " header differs from params.taskId")
		}
	}
	return nil
}

// serveModernPOST answers a POSTed 2026-07-28 request.
func (s *Server) serveModernPOST(w http.ResponseWriter, r *http.Request, msg *envelope, subject string) {
	if e := checkModernHeaders(r, msg); e != nil {
		httpError(w, http.StatusBadRequest, msg.ID, e)
		return
	}
	out := &httpOut{w: w, sess: &session{id: uuid.NewString()}, allowSSE: acceptsSSE(r)}
	resp, status := s.dispatchModern(r.Context(), identityKey(r, subject), modernOwner(subject), msg, out, nil)
	out.mu.Lock()
	streaming := out.sse
	out.mu.Unlock()
	if status != http.StatusOK && !streaming && resp != nil {
		out.mu.Lock()
		out.done = true
		out.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(resp)
		return
	}
	out.finish(resp)
}

// isModernRequest reports whether a decoded message is a 2026-07-28
// request.
func isModernRequest(k kind, msg *envelope) bool {
	return k == kindRequest && protocol.IsModern(msg.Method, msg.Params)
}

// legacyRefusal is what a server speaking only 2026-07-28 answers a message
// of an earlier revision with: initialize gets the version refusal naming
// 2026-07-28 (and echoing the version asked for), another request the
// refusal of a request without _meta, anything else an invalid request.
func legacyRefusal(k kind, msg *envelope) *tasks.RPCError {
	only := "this server speaks only protocol version " + protocol.ModernProtocolVersion
	switch {
	case k == kindRequest && msg.Method == wire.MethodInitialize:
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(msg.Params, &p)
		refusal := protocol.UnsupportedVersionError(p.ProtocolVersion)
		refusal.Message = "initialize is not served: " + only + ", whose requests carry their version in _meta (see server/discover)"
		return refusal
	case k == kindRequest:
		return rpcErr(wire.CodeInvalidParams, "params._meta with "+v20260728.ProtocolVersionMetaKey+" and "+v20260728.ClientCapabilitiesMetaKey+" is required: "+only)
	}
	return rpcErr(wire.CodeInvalidRequest, only+", which has no sessions: the message was not taken")
}
