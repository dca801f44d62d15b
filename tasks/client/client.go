// Package client is the requestor side of MCP 2025-11-25 tasks over the
// Streamable HTTP transport: initialize, tools/list, tools/call (plain and
// task-augmented), tasks/get, tasks/result, tasks/list, tasks/cancel and
// notifications. It speaks to any server, not only the reference one, and
// never judges what it receives: every message is handed to an Observer as
// raw bytes, tagged with the schema $def it should conform to, so the
// conformance suite can validate it.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptasks/mcptasks/tasks/wire"
)

// ProtocolVersion is the MCP revision this client proposes.
const ProtocolVersion = "2025-11-25"

// Header names of the Streamable HTTP transport.
const (
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderProtocolVersion = "Mcp-Protocol-Version"
	HeaderLastEventID     = "Last-Event-ID"
)

// RequestHandler answers a request the server sends to the client (for
// example elicitation/create) while a response stream is open. It returns
// the JSON result, or an *RPCError to send back as a JSON-RPC error.
type RequestHandler func(ctx context.Context, req *Message) (any, error)

// Observer sees every message the client sends or receives, in order of
// arrival per stream. It must not block for long.
type Observer func(m *Message)

// Exchange is one request the client posted and what came back, for
// callers that explain a verdict with evidence: the method and raw body
// sent, then the HTTP status, Content-Type and the start of the answer (or
// the transport error when none came).
type Exchange struct {
	Method      string
	Sent        []byte
	HTTPStatus  int
	ContentType string
	// Body is the answer's body, or the JSON-RPC response found in an
	// event stream; at most MaxExchangeBody bytes.
	Body []byte
	Err  error
	At   time.Time
}

// MaxExchangeBody bounds Exchange.Body.
const MaxExchangeBody = 4 << 10

// ExchangeObserver sees every request the client posts once it has been
// answered (or has failed). It must not block for long.
type ExchangeObserver func(Exchange)

// Client is one MCP session with one server URL. It is safe for concurrent
// use once Connect has returned.
type Client struct {
	url        string
	httpClient *http.Client
	header     http.Header
	info       Implementation
	caps       json.RawMessage
	proposed   string
	handler    RequestHandler
	observers  []Observer
	exchanges  []ExchangeObserver
	logf       func(format string, args ...any)

	nextID atomic.Int64

	mu            sync.Mutex
	sessionID     string
	version       string
	initResult    json.RawMessage
	notifications []*Message
	streams       []context.CancelFunc
}

// Implementation names a client or server (clientInfo / serverInfo).
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Option configures a Client.
type Option func(*Client)

// WithHeader adds a header sent on every HTTP request, e.g. Authorization.
func WithHeader(key, value string) Option {
	return func(c *Client) { c.header.Add(key, value) }
}

// WithHeaders adds every header of h to every HTTP request.
func WithHeaders(h http.Header) Option {
	return func(c *Client) {
		for k, vs := range h {
			for _, v := range vs {
				c.header.Add(k, v)
			}
		}
	}
}

// WithHTTPClient replaces the HTTP client (default: no overall timeout,
// since tasks/result may block for a long time; use contexts instead).
func WithHTTPClient(h *http.Client) Option {
	return func(c *Client) { c.httpClient = h }
}

// WithClientInfo sets the clientInfo sent in initialize.
func WithClientInfo(name, version string) Option {
	return func(c *Client) { c.info = Implementation{Name: name, Version: version} }
}

// WithCapabilities replaces the client capabilities sent in initialize.
// The default declares form-mode elicitation.
func WithCapabilities(raw json.RawMessage) Option {
	return func(c *Client) { c.caps = raw }
}

// WithProtocolVersion sets the protocol version proposed in initialize.
func WithProtocolVersion(v string) Option {
	return func(c *Client) { c.proposed = v }
}

// WithRequestHandler sets the handler for server-initiated requests. Without
// one, ping is answered with {} and anything else with -32601.
func WithRequestHandler(h RequestHandler) Option {
	return func(c *Client) { c.handler = h }
}

// WithObserver adds an observer of every message sent and received.
func WithObserver(o Observer) Option {
	return func(c *Client) { c.observers = append(c.observers, o) }
}

// WithExchangeObserver adds an observer of every posted request and its
// answer.
func WithExchangeObserver(o ExchangeObserver) Option {
	return func(c *Client) { c.exchanges = append(c.exchanges, o) }
}

// WithLogf sets a debug logger for transport events (reconnections,
// unparseable frames). Default: silent.
func WithLogf(f func(format string, args ...any)) Option {
	return func(c *Client) { c.logf = f }
}

// New returns an unconnected client for the MCP endpoint url.
func New(url string, opts ...Option) *Client {
	c := &Client{
		url:        url,
		httpClient: &http.Client{},
		header:     http.Header{},
		info:       Implementation{Name: "mcptasks-client", Version: "0"},
		caps:       json.RawMessage(`{"elicitation":{"form":{}}}`),
		proposed:   ProtocolVersion,
		logf:       func(string, ...any) {},
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// URL returns the endpoint this client talks to.
func (c *Client) URL() string { return c.url }

// SessionID returns the Mcp-Session-Id the server assigned, if any.
func (c *Client) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID
}

// ProtocolVersion returns the negotiated protocol version ("" before Connect).
func (c *Client) ProtocolVersion() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// InitializeResult returns the raw result of initialize ("" before Connect).
func (c *Client) InitializeResult() json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.initResult
}

// InitializeResult is the part of the initialize result the client reads.
type InitializeResult struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`
	ServerInfo      Implementation  `json:"serverInfo"`
	Instructions    string          `json:"instructions,omitempty"`
}

// Connect performs the initialize handshake: it proposes the protocol
// version, keeps the session id and negotiated version for every later
// request, and sends notifications/initialized.
func (c *Client) Connect(ctx context.Context) (*InitializeResult, error) {
	params := map[string]any{
		"protocolVersion": c.proposed,
		"capabilities":    c.caps,
		"clientInfo":      c.info,
	}
	raw, err := c.Call(ctx, wire.MethodInitialize, params)
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	var res InitializeResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("initialize: decode result: %w", err)
	}
	c.mu.Lock()
	c.version = res.ProtocolVersion
	c.initResult = raw
	c.mu.Unlock()
	if err := c.Notify(ctx, wire.NotificationInitialized, nil); err != nil {
		return nil, fmt.Errorf("notifications/initialized: %w", err)
	}
	return &res, nil
}

// Close ends the GET streams this client opened and, if the server gave a
// session id, asks the server to end the session with HTTP DELETE (errors,
// including 405, are ignored).
func (c *Client) Close(ctx context.Context) error {
	c.mu.Lock()
	streams := c.streams
	c.streams = nil
	sid := c.sessionID
	c.mu.Unlock()
	for _, cancel := range streams {
		cancel()
	}
	if sid == "" {
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.url, nil)
	if err != nil {
		return err
	}
	c.setHeaders(req)
	resp, err := c.httpClient.Do(req)
	if err != nil {
		return nil
	}
	resp.Body.Close()
	return nil
}

// DeleteSession asks the server to end the session with HTTP DELETE and
// returns the HTTP status (405 means the server does not let clients end
// sessions). The client forgets nothing: later requests still carry the old
// session id, which lets callers check how the server treats it.
func (c *Client) DeleteSession(ctx context.Context) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.url, nil)
	if err != nil {
		return 0, err
	}
	c.setHeaders(req)
	x := Exchange{Method: "DELETE", Sent: []byte("DELETE " + c.url + " (Mcp-Session-Id " + req.Header.Get(HeaderSessionID) + ")")}
	resp, err := c.httpClient.Do(req)
	if err != nil {
		x.Err = err
		c.observeExchange(x)
		return 0, fmt.Errorf("DELETE session: %w", err)
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	x.HTTPStatus, x.ContentType, x.Body = resp.StatusCode, resp.Header.Get("Content-Type"), b
	c.observeExchange(x)
	return resp.StatusCode, nil
}

// Notifications returns the notifications received so far, on any stream.
func (c *Client) Notifications() []*Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*Message(nil), c.notifications...)
}

// setHeaders applies the session, version and user headers to req.
func (c *Client) setHeaders(req *http.Request) {
	for k, vs := range c.header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	c.mu.Lock()
	sid, ver := c.sessionID, c.version
	c.mu.Unlock()
	if sid != "" {
		req.Header.Set(HeaderSessionID, sid)
	}
	if ver != "" {
		req.Header.Set(HeaderProtocolVersion, ver)
	}
}

func (c *Client) observeExchange(x Exchange) {
	if len(x.Body) > MaxExchangeBody {
		x.Body = x.Body[:MaxExchangeBody]
	}
	x.At = time.Now()
	for _, o := range c.exchanges {
		o(x)
	}
}

func (c *Client) observe(m *Message) {
	for _, o := range c.observers {
		o(m)
	}
}

// HTTPError is a non-2xx HTTP answer where a JSON-RPC message was expected.
type HTTPError struct {
	Method     string // the JSON-RPC method that was posted, if any
	StatusCode int
	Body       string
}

// Error describes the status and the start of the body.
func (e *HTTPError) Error() string {
	body := strings.TrimSpace(e.Body)
	if len(body) > 200 {
		body = body[:200] + "…"
	}
	if body != "" {
		return fmt.Sprintf("%s: HTTP %d: %s", e.Method, e.StatusCode, body)
	}
	return fmt.Sprintf("%s: HTTP %d", e.Method, e.StatusCode)
}

// RPCError is a JSON-RPC error object returned by the server.
type RPCError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error renders code and message.
func (e *RPCError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// ErrorCode returns the JSON-RPC error code carried by err, if any.
func ErrorCode(err error) (int64, bool) {
	var rpc *RPCError
	if errors.As(err, &rpc) {
		return rpc.Code, true
	}
	return 0, false
}

// ErrNoResponse means a response stream ended without the JSON-RPC
// response to the request and could not be resumed.
var ErrNoResponse = errors.New("stream ended without a response")

// ErrNoStream means the server does not offer the GET stream (HTTP 405).
var ErrNoStream = errors.New("server offers no GET stream")

// retryDelay bounds how long the client waits before resuming a stream.
const maxRetryDelay = 5 * time.Second
