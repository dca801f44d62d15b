package gosdk

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptasks/mcptasks/tasks/protocol"
)

// Streamable HTTP header names.
const (
	sessionHeader  = "Mcp-Session-Id"
	versionHeader  = "Mcp-Protocol-Version"
	perRequestMeta = "io.modelcontextprotocol/protocolVersion"
)

// HandlerOptions configures Handler. The zero value is usable.
type HandlerOptions struct {
	// MaxBodyBytes is the largest request body the adapter reads; larger
	// bodies are passed on untouched for the SDK to refuse. Zero means the
	// SDK's default (mcp.DefaultMaxRequestBodyBytes).
	MaxBodyBytes int64
	// AllowMissingSessionID passes requests without an Mcp-Session-Id
	// header (other than initialize) on to the SDK, which then serves each
	// in a new session. By default they are refused with HTTP 400: a task
	// created in such a session could never be found again by a requestor
	// identified by its session.
	AllowMissingSessionID bool
	// SDKPolls sends tasks/get, tasks/list and tasks/cancel through the
	// SDK like any other request. By default the adapter answers them
	// itself, as a plain JSON body, for sessions it knows: polling is the
	// hot path of tasks, and a poll needs nothing from the SDK.
	SDKPolls bool
}

// Handler wraps next, normally the SDK's mcp.NewStreamableHTTPHandler
// serving the adapter's server (behind any auth middleware such as
// auth.RequireBearerToken, and an http.CrossOriginProtection). It
// carries params.task of tools/call past the SDK, answers polls
// (tasks/get, tasks/list, tasks/cancel) of known sessions directly, and
// watches each session's standalone GET stream so that the input requests
// of tasks reach clients that only poll tasks/get.
func (a *Adapter) Handler(next http.Handler, opts *HandlerOptions) http.Handler {
	h := &handler{a: a, next: next}
	if opts != nil {
		h.opts = *opts
	}
	if h.opts.MaxBodyBytes <= 0 {
		h.opts.MaxBodyBytes = mcp.DefaultMaxRequestBodyBytes
	}
	return h
}

type handler struct {
	a    *Adapter
	next http.Handler
	opts HandlerOptions
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// ServeHTTP rewrites POST bodies, answers polls and tracks GET streams.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		if r.Body == nil || r.Body == http.NoBody {
			break
		}
		buf := bufPool.Get().(*bytes.Buffer)
		buf.Reset()
		defer bufPool.Put(buf)
		n, err := buf.ReadFrom(io.LimitReader(r.Body, h.opts.MaxBodyBytes+1))
		if err != nil || n > h.opts.MaxBodyBytes {
			// Too large, or the read failed: let the SDK see (and refuse)
			// what was read followed by the rest.
			r.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(bytes.Clone(buf.Bytes())), r.Body), r.Body}
			break
		}
		_ = r.Body.Close()
		body := buf.Bytes()
		sid := r.Header.Get(sessionHeader)
		if sid == "" && !h.opts.AllowMissingSessionID && !isInitialize(body) {
			writeError(w, http.StatusBadRequest, nil, jsonrpc.CodeInvalidRequest,
				"Bad Request: Mcp-Session-Id header is required (send initialize first)")
			return
		}
		if !h.opts.SDKPolls && sid != "" && h.poll(w, r, sid, body) {
			return
		}
		body = carryTask(body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
	case http.MethodGet:
		if st := h.a.lookupID(r.Header.Get(sessionHeader)); st != nil {
			lw := &listenWriter{ResponseWriter: w, st: st}
			defer lw.closed()
			w = lw
		}
	}
	h.next.ServeHTTP(w, r)
}

// pollMethods are the quick task methods the handler may answer itself.
var pollMethods = map[string]bool{"tasks/get": true, "tasks/list": true, "tasks/cancel": true}

// pollRequest is the envelope of a poll.
type pollRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// poll answers a tasks/get, tasks/list or tasks/cancel of a session the
// adapter knows, with the checks the SDK makes on such a request, as a
// JSON body. It returns false, having written nothing, for anything else,
// which then takes the SDK's path.
func (h *handler) poll(w http.ResponseWriter, r *http.Request, sid string, body []byte) bool {
	if !bytes.Contains(body, []byte(`"tasks/`)) || bytes.Contains(body, []byte(perRequestMeta)) {
		return false
	}
	var req pollRequest
	if json.Unmarshal(body, &req) != nil || req.JSONRPC != "2.0" || !pollMethods[req.Method] || !validID(req.ID) {
		return false
	}
	st := h.a.lookupID(sid)
	if st == nil || !st.initialized() || !plainPOST(r) {
		return false
	}
	if v := r.Header.Get(versionHeader); v != "" && !protocol.SupportedVersion(v) {
		return false
	}
	ti := auth.TokenInfoFromContext(r.Context())
	if u := st.userID(); u != "" && (ti == nil || ti.UserID != u) {
		return false // the SDK refuses a session used by another user
	}
	if !hostAllowed(r) {
		return false
	}
	owner, err := h.a.ownerOf(st, &mcp.RequestExtra{TokenInfo: ti, Header: r.Header})
	var res json.RawMessage
	if err == nil {
		res, err = h.a.core.Handle(r.Context(), &caller{session: st.session(owner), ctx: r.Context()}, req.Method, req.Params)
	}
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		e := h.a.core.WireError(req.Method, err)
		writeError(w, http.StatusOK, req.ID, e.Code, e.Message, e.Data)
		return true
	}
	out := make([]byte, 0, len(res)+len(req.ID)+40)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, req.ID...)
	out = append(out, `,"result":`...)
	out = append(out, res...)
	out = append(out, '}')
	_, _ = w.Write(out)
	return true
}

// validID reports whether a raw JSON-RPC id is a string or a number.
func validID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	if len(id) == 0 {
		return false
	}
	switch c := id[0]; {
	case c == '"':
		var s string
		return json.Unmarshal(id, &s) == nil
	case c == '-' || (c >= '0' && c <= '9'):
		var n json.Number
		return json.Unmarshal(id, &n) == nil
	}
	return false
}

// plainPOST checks what the SDK checks of a POST: a JSON body, and a
// client that accepts both JSON and event streams.
func plainPOST(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return false
	}
	var jsonOK, streamOK bool
	for _, v := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(v, ",") {
			switch mt, _, _ := mime.ParseMediaType(strings.TrimSpace(part)); mt {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK && streamOK
}

// hostAllowed mirrors the SDK's protection against DNS rebinding: a
// request that reached a loopback address must name a loopback host.
func hostAllowed(r *http.Request) bool {
	la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || la == nil || !isLoopback(la.String()) {
		return true
	}
	return isLoopback(r.Host)
}

func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// isInitialize reports whether body is an initialize request (or a batch
// holding one).
func isInitialize(body []byte) bool {
	if !bytes.Contains(body, []byte(`"initialize"`)) {
		return false
	}
	var one struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &one) == nil {
		return one.Method == "initialize"
	}
	var batch []struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &batch) == nil {
		for _, m := range batch {
			if m.Method == "initialize" {
				return true
			}
		}
	}
	return false
}

// writeError writes a JSON-RPC error response with the given HTTP status.
func writeError(w http.ResponseWriter, status int, id json.RawMessage, code int64, msg string, data ...json.RawMessage) {
	e := &jsonrpc.Error{Code: code, Message: msg}
	if len(data) > 0 {
		e.Data = data[0]
	}
	eb, _ := json.Marshal(e)
	out := []byte(`{"jsonrpc":"2.0",`)
	if len(id) > 0 {
		out = append(out, `"id":`...)
		out = append(out, id...)
		out = append(out, ',')
	}
	out = append(out, `"error":`...)
	out = append(out, eb...)
	out = append(out, '}')
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(out)
}

// listenWriter watches the response of a GET stream: once the SDK answers
// it with 200 the session's standalone stream is open, until the handler
// returns.
type listenWriter struct {
	http.ResponseWriter
	st     *sessionState
	opened bool
}

// WriteHeader marks the stream open on success.
func (w *listenWriter) WriteHeader(code int) {
	w.ResponseWriter.WriteHeader(code)
	if code == http.StatusOK && !w.opened {
		w.opened = true
		// The SDK registers the stream under a lock it holds until the
		// stream is ready, so what the core sends from here on waits for
		// it rather than getting lost.
		w.st.streamOpened()
	}
}

// Flush passes flushes on.
func (w *listenWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *listenWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *listenWriter) closed() {
	if w.opened {
		w.st.listening.Store(false)
	}
}
