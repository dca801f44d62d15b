package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mcptasks/mcptasks/tasks/wire"
)

// CallOption adjusts one request.
type CallOption func(*callConfig)

type callConfig struct {
	id      json.RawMessage
	onID    func(id json.RawMessage)
	headers http.Header
}

// WithRequestID makes the request use id (raw JSON) instead of the next
// counter value.
func WithRequestID(id json.RawMessage) CallOption {
	return func(cc *callConfig) { cc.id = id }
}

// OnRequestID is called with the request id before the request is sent,
// e.g. to cancel it later with notifications/cancelled.
func OnRequestID(f func(id json.RawMessage)) CallOption {
	return func(cc *callConfig) { cc.onID = f }
}

// WithCallHeader sets an HTTP header on this request only, replacing the
// client-wide value (an empty value removes the header).
func WithCallHeader(key, value string) CallOption {
	return func(cc *callConfig) {
		if cc.headers == nil {
			cc.headers = http.Header{}
		}
		cc.headers[http.CanonicalHeaderKey(key)] = []string{value}
	}
}

// Call sends a JSON-RPC request and returns the raw result. A JSON-RPC
// error comes back as *RPCError, a non-2xx HTTP answer as *HTTPError.
// params may be nil, a json.RawMessage or any value encoding/json accepts.
func (c *Client) Call(ctx context.Context, method string, params any, opts ...CallOption) (json.RawMessage, error) {
	resp, err := c.CallMessage(ctx, method, params, opts...)
	if err != nil {
		return nil, err
	}
	if resp.Kind == KindError {
		if resp.env.Error == nil {
			return nil, fmt.Errorf("%s: malformed error response", method)
		}
		e := *resp.env.Error
		return nil, &e
	}
	return resp.env.Result, nil
}

// CallMessage is Call returning the whole response message (success or
// JSON-RPC error), for callers that need its raw bytes or transport facts.
// The error is non-nil only when no response was obtained. An answer
// served with a Content-Type other than JSON or an event stream is still
// read as JSON when it parses as the response to the request: the caller,
// not the client, judges the media type (Message.ContentType).
func (c *Client) CallMessage(ctx context.Context, method string, params any, opts ...CallOption) (*Message, error) {
	x := Exchange{Method: method}
	m, err := c.callMessage(ctx, method, params, &x, opts...)
	if m != nil && len(x.Body) == 0 {
		x.Body = m.Raw
	}
	x.Err = err
	c.observeExchange(x)
	return m, err
}

func (c *Client) callMessage(ctx context.Context, method string, params any, x *Exchange, opts ...CallOption) (*Message, error) {
	var cc callConfig
	for _, o := range opts {
		o(&cc)
	}
	id := cc.id
	if id == nil {
		id = json.RawMessage(strconv.FormatInt(c.nextID.Add(1), 10))
	}
	if cc.onID != nil {
		cc.onID(id)
	}
	rawParams, err := encodeParams(params)
	if err != nil {
		return nil, fmt.Errorf("%s: encode params: %w", method, err)
	}
	env := envelope{JSONRPC: "2.0", ID: id, Method: method, Params: rawParams}
	body, err := json.Marshal(env)
	if err != nil {
		return nil, fmt.Errorf("%s: encode request: %w", method, err)
	}
	x.Sent = body
	out := parseMessage(body)
	out.Direction = Sent
	c.observe(out)

	resultDef := ResultDef(method, method == wire.MethodToolsCall && hasTask(rawParams))
	resp, err := c.post(ctx, method, body, cc.headers)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	x.HTTPStatus, x.ContentType = resp.StatusCode, resp.Header.Get("Content-Type")
	if method == wire.MethodInitialize {
		if sid := resp.Header.Get(HeaderSessionID); sid != "" {
			c.mu.Lock()
			c.sessionID = sid
			c.mu.Unlock()
		}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		x.Body = b
		return nil, &HTTPError{Method: method, StatusCode: resp.StatusCode, Body: string(b)}
	}
	ct := mediaType(resp.Header.Get("Content-Type"))
	match := func(m *Message) bool {
		return m.IsResponse() && bytes.Equal(bytes.TrimSpace(m.ID), bytes.TrimSpace(id))
	}
	tag := func(m *Message) {
		m.HTTPStatus = resp.StatusCode
		m.ContentType = resp.Header.Get("Content-Type")
		m.Stream = StreamPOST
		m.SessionID = c.SessionID()
		if m.IsResponse() && match(m) {
			m.Method = method
			if m.Kind == KindResult {
				m.ResultDef = resultDef
			}
		}
	}
	if ct == "text/event-stream" {
		got, lastID, retry, err := c.readSSE(ctx, resp.Body, tag, match)
		if got != nil {
			return got, nil
		}
		if err != nil && ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w", method, ctx.Err())
		}
		if lastID == "" {
			return nil, fmt.Errorf("%s: %w", method, ErrNoResponse)
		}
		return c.resume(ctx, method, lastID, retry, tag, match)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("%s: read response: %w", method, err)
	}
	x.Body = b
	m := parseMessage(bytes.TrimSpace(b))
	m.Direction = Received
	if ct != "application/json" && ct != "" && (m.Kind == KindInvalid || !match(m)) {
		// Neither JSON nor an event stream, and not even a JSON-RPC
		// answer in disguise: nothing to hand back.
		return nil, &ContentTypeError{Method: method, ContentType: resp.Header.Get("Content-Type"), Body: truncate(string(b))}
	}
	tag(m)
	c.dispatch(ctx, m)
	if !match(m) {
		return nil, fmt.Errorf("%s: response does not answer request id %s: %s", method, id, truncate(string(b)))
	}
	return m, nil
}

// maxBody bounds a JSON answer the client reads.
const maxBody = 64 << 20

// ContentTypeError is an answer served with a media type that is neither
// application/json nor text/event-stream and whose body is no JSON-RPC
// response to the request.
type ContentTypeError struct {
	Method      string
	ContentType string
	Body        string
}

// Error names the media type and the start of the body.
func (e *ContentTypeError) Error() string {
	return fmt.Sprintf("%s: answered with Content-Type %q, not application/json or text/event-stream: %s", e.Method, e.ContentType, e.Body)
}

// resume reconnects with GET and Last-Event-ID until the response arrives
// or the server stops offering a resumable stream.
func (c *Client) resume(ctx context.Context, method, lastID string, retry time.Duration, tag func(*Message), match func(*Message) bool) (*Message, error) {
	for attempt := 0; attempt < 20; attempt++ {
		if retry <= 0 {
			retry = 100 * time.Millisecond
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: %w", method, ctx.Err())
		case <-time.After(min(retry, maxRetryDelay)):
		}
		c.logf("client: resuming %s after event %q", method, lastID)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
		if err != nil {
			return nil, err
		}
		c.setHeaders(req)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set(HeaderLastEventID, lastID)
		resp, err := c.httpClient.Do(req)
		if err != nil {
			return nil, fmt.Errorf("%s: resume: %w", method, err)
		}
		if resp.StatusCode != http.StatusOK || mediaType(resp.Header.Get("Content-Type")) != "text/event-stream" {
			resp.Body.Close()
			return nil, fmt.Errorf("%s: %w (resumption answered HTTP %d)", method, ErrNoResponse, resp.StatusCode)
		}
		got, newLast, newRetry, _ := c.readSSE(ctx, resp.Body, tag, match)
		resp.Body.Close()
		if got != nil {
			return got, nil
		}
		if newLast != "" {
			lastID = newLast
		}
		if newRetry > 0 {
			retry = newRetry
		}
	}
	return nil, fmt.Errorf("%s: %w after repeated resumption", method, ErrNoResponse)
}

// post sends one JSON-RPC message body.
func (c *Client) post(ctx context.Context, method string, body []byte, override http.Header) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	c.setHeaders(req)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, vs := range override {
		if len(vs) == 0 || vs[0] == "" {
			req.Header.Del(k)
			continue
		}
		req.Header[k] = vs
	}
	resp, err := c.httpClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return resp, nil
}

// readSSE reads events from body, dispatching every message, until one
// satisfies match (returned) or the stream ends. It reports the last event
// id and retry hint seen so the caller can resume.
func (c *Client) readSSE(ctx context.Context, body io.Reader, tag func(*Message), match func(*Message) bool) (*Message, string, time.Duration, error) {
	r := bufio.NewReaderSize(body, 64<<10)
	var (
		data    strings.Builder
		hasData bool
		eventID string
		lastID  string
		retry   time.Duration
	)
	for {
		line, err := r.ReadString('\n')
		if line != "" || err == nil {
			line = strings.TrimRight(line, "\r\n")
			switch {
			case line == "":
				if hasData && strings.TrimSpace(data.String()) != "" {
					m := parseMessage([]byte(data.String()))
					m.Direction = Received
					m.EventID = eventID
					tag(m)
					c.dispatch(ctx, m)
					if match != nil && match(m) {
						return m, lastID, retry, nil
					}
				}
				data.Reset()
				hasData = false
				eventID = ""
			case strings.HasPrefix(line, ":"):
				// comment / keep-alive
			default:
				field, value, _ := strings.Cut(line, ":")
				value = strings.TrimPrefix(value, " ")
				switch field {
				case "data":
					if hasData {
						data.WriteByte('\n')
					}
					data.WriteString(value)
					hasData = true
				case "id":
					eventID = value
					lastID = value
				case "retry":
					if ms, perr := strconv.Atoi(value); perr == nil && ms >= 0 {
						retry = time.Duration(ms) * time.Millisecond
					}
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, lastID, retry, nil
			}
			return nil, lastID, retry, err
		}
	}
}

// dispatch records a received message, answers server requests and keeps
// notifications.
func (c *Client) dispatch(ctx context.Context, m *Message) {
	c.observe(m)
	switch m.Kind {
	case KindNotification:
		c.mu.Lock()
		c.notifications = append(c.notifications, m)
		c.mu.Unlock()
	case KindRequest:
		c.answer(ctx, m)
	}
}

// answer runs the request handler for a server request and posts back the
// JSON-RPC response.
func (c *Client) answer(ctx context.Context, m *Message) {
	var (
		result any
		err    error
	)
	switch {
	case c.handler != nil:
		result, err = c.handler(ctx, m)
	case m.Method == wire.MethodPing:
		result = struct{}{}
	default:
		err = &RPCError{Code: -32601, Message: "client does not handle " + m.Method}
	}
	env := envelope{JSONRPC: "2.0", ID: m.ID}
	if err != nil {
		var rpc *RPCError
		if !errors.As(err, &rpc) {
			rpc = &RPCError{Code: -32603, Message: err.Error()}
		}
		env.Error = rpc
	} else {
		raw, merr := encodeParams(result)
		if merr != nil || raw == nil {
			raw = json.RawMessage(`{}`)
		}
		env.Result = raw
	}
	body, merr := json.Marshal(env)
	if merr != nil {
		c.logf("client: encode answer to %s: %v", m.Method, merr)
		return
	}
	out := parseMessage(body)
	out.Direction = Sent
	out.Method = m.Method
	c.observe(out)
	resp, perr := c.post(ctx, m.Method, body, nil)
	if perr != nil {
		c.logf("client: post answer to %s: %v", m.Method, perr)
		return
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// Notify sends a JSON-RPC notification. Any 2xx answer is success; the
// spec expects 202 with an empty body.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	_, err := c.NotifyRaw(ctx, method, params)
	return err
}

// NotifyRaw sends a notification and returns the HTTP status and body of
// the answer, for callers that check the transport rules themselves.
func (c *Client) NotifyRaw(ctx context.Context, method string, params any) (*RawResponse, error) {
	rawParams, err := encodeParams(params)
	if err != nil {
		return nil, fmt.Errorf("%s: encode params: %w", method, err)
	}
	body, err := json.Marshal(envelope{JSONRPC: "2.0", Method: method, Params: rawParams})
	if err != nil {
		return nil, err
	}
	out := parseMessage(body)
	out.Direction = Sent
	c.observe(out)
	return c.PostRaw(ctx, body)
}

// RawResponse is an HTTP answer read in full.
type RawResponse struct {
	StatusCode int
	Header     http.Header
	Body       []byte
}

// PostRaw posts body as is, with the client's headers (CallOption headers
// may replace or remove some), and reads the whole answer. A non-2xx
// status is returned as *HTTPError together with the response.
func (c *Client) PostRaw(ctx context.Context, body []byte, opts ...CallOption) (*RawResponse, error) {
	var cc callConfig
	for _, o := range opts {
		o(&cc)
	}
	var probe struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(body, &probe)
	x := Exchange{Method: probe.Method, Sent: body}
	resp, err := c.post(ctx, "POST", body, cc.headers)
	if err != nil {
		x.Err = err
		c.observeExchange(x)
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	x.HTTPStatus, x.ContentType, x.Body, x.Err = resp.StatusCode, resp.Header.Get("Content-Type"), b, err
	c.observeExchange(x)
	if err != nil {
		return nil, err
	}
	rr := &RawResponse{StatusCode: resp.StatusCode, Header: resp.Header, Body: b}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return rr, &HTTPError{Method: "POST", StatusCode: resp.StatusCode, Body: string(b)}
	}
	return rr, nil
}

// OpenStream opens the standalone GET stream and dispatches what arrives on
// it (notifications are collected, requests answered) until ctx ends or
// Close is called. It returns ErrNoStream if the server answers 405.
func (c *Client) OpenStream(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		cancel()
		return err
	}
	c.setHeaders(req)
	req.Header.Set("Accept", "text/event-stream")
	x := Exchange{Method: "GET", Sent: []byte("GET " + c.url + " (Accept: text/event-stream)")}
	resp, err := c.httpClient.Do(req)
	if err != nil {
		cancel()
		x.Err = err
		c.observeExchange(x)
		return fmt.Errorf("GET stream: %w", err)
	}
	x.HTTPStatus, x.ContentType = resp.StatusCode, resp.Header.Get("Content-Type")
	if resp.StatusCode == http.StatusMethodNotAllowed {
		resp.Body.Close()
		cancel()
		c.observeExchange(x)
		return ErrNoStream
	}
	if resp.StatusCode != http.StatusOK || mediaType(resp.Header.Get("Content-Type")) != "text/event-stream" {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		cancel()
		x.Body = b
		c.observeExchange(x)
		return &HTTPError{Method: "GET", StatusCode: resp.StatusCode, Body: string(b)}
	}
	x.Body = []byte("(an event stream, left open)")
	c.observeExchange(x)
	c.mu.Lock()
	c.streams = append(c.streams, cancel)
	c.mu.Unlock()
	tag := func(m *Message) {
		m.Stream = StreamGET
		m.SessionID = c.SessionID()
		m.HTTPStatus = resp.StatusCode
		m.ContentType = resp.Header.Get("Content-Type")
	}
	go func() {
		defer cancel()
		defer resp.Body.Close()
		_, _, _, _ = c.readSSE(ctx, resp.Body, tag, nil)
	}()
	return nil
}

func encodeParams(params any) (json.RawMessage, error) {
	switch p := params.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return p, nil
	case []byte:
		return json.RawMessage(p), nil
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	return b, nil
}

func hasTask(params json.RawMessage) bool {
	var p struct {
		Task json.RawMessage `json:"task"`
	}
	return json.Unmarshal(params, &p) == nil && p.Task != nil && !isNull(p.Task)
}

func mediaType(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(ct))
	}
	return mt
}

func truncate(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
