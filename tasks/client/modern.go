package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mcptasks/mcptasks/schema/exttasks"
	"github.com/mcptasks/mcptasks/schema/v20260728"
)

// ModernProtocolVersion is the revision Modern speaks.
const ModernProtocolVersion = "2026-07-28"

// DefaultModernCapabilities are the client capabilities Modern declares on
// every request unless told otherwise: the tasks extension and form-mode
// elicitation.
var DefaultModernCapabilities = json.RawMessage(`{"extensions":{"` + exttasks.ExtensionID + `":{}},"elicitation":{"form":{}}}`)

// Modern is a requestor of the stateless MCP 2026-07-28 core with the
// tasks extension: no initialize and no session; every request carries
// the protocol version, client information and capabilities in _meta and
// the routing headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name on
// tasks/*). It shares Client's transport, so observers and headers given
// as Options apply. A Modern is safe for concurrent use; the With methods
// return modified copies.
type Modern struct {
	c       *Client
	caps    json.RawMessage
	version string
	info    Implementation
}

// NewModern returns a Modern for the server at url.
func NewModern(url string, opts ...Option) *Modern {
	c := New(url, opts...)
	return &Modern{c: c, caps: DefaultModernCapabilities, version: ModernProtocolVersion, info: c.info}
}

// Client returns the underlying transport (for its observers and raw
// posts).
func (m *Modern) Client() *Client { return m.c }

// WithCapabilities returns a copy that declares raw as its client
// capabilities (e.g. {} to leave the tasks extension out).
func (m *Modern) WithCapabilities(raw json.RawMessage) *Modern {
	cp := *m
	cp.caps = raw
	return &cp
}

// WithVersion returns a copy that names v as its protocol version.
func (m *Modern) WithVersion(v string) *Modern {
	cp := *m
	cp.version = v
	return &cp
}

// Meta returns the _meta members every request of m carries.
func (m *Modern) Meta() map[string]any {
	return map[string]any{
		v20260728.ProtocolVersionMetaKey:    m.version,
		v20260728.ClientCapabilitiesMetaKey: m.caps,
		v20260728.ClientInfoMetaKey:         m.info,
	}
}

// Call sends method with params (an object, or nil) plus the request
// _meta and returns the raw result. A JSON-RPC error comes back as
// *RPCError whatever HTTP status carried it.
func (m *Modern) Call(ctx context.Context, method string, params any, opts ...CallOption) (json.RawMessage, error) {
	p, err := m.params(params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	hdr := []CallOption{WithCallHeader(HeaderProtocolVersion, m.version), WithCallHeader("Mcp-Method", method)}
	if id, ok := p["taskId"].(string); ok && strings.HasPrefix(method, "tasks/") {
		hdr = append(hdr, WithCallHeader("Mcp-Name", id))
	}
	res, err := m.c.Call(ctx, method, p, append(hdr, opts...)...)
	return res, rpcFromHTTP(err)
}

// params merges params into an object with the request _meta.
func (m *Modern) params(params any) (map[string]any, error) {
	out := map[string]any{}
	if params != nil {
		raw, err := json.Marshal(params)
		if err != nil {
			return nil, err
		}
		if string(raw) != "null" {
			if err := json.Unmarshal(raw, &out); err != nil {
				return nil, fmt.Errorf("params must be an object: %w", err)
			}
		}
	}
	meta := m.Meta()
	if extra, ok := out["_meta"].(map[string]any); ok {
		for k, v := range extra {
			meta[k] = v
		}
	}
	out["_meta"] = meta
	return out, nil
}

// rpcFromHTTP turns a non-2xx answer whose body is a JSON-RPC error (400
// and 404 carry them in this revision) into that *RPCError.
func rpcFromHTTP(err error) error {
	var he *HTTPError
	if !errors.As(err, &he) {
		return err
	}
	var env struct {
		Error *RPCError `json:"error"`
	}
	if json.Unmarshal([]byte(he.Body), &env) != nil || env.Error == nil {
		return err
	}
	return env.Error
}

// Discover calls server/discover.
func (m *Modern) Discover(ctx context.Context) (v20260728.DiscoverResult, error) {
	var r v20260728.DiscoverResult
	raw, err := m.Call(ctx, "server/discover", nil)
	if err != nil {
		return r, err
	}
	return r, json.Unmarshal(raw, &r)
}

// ListTools calls tools/list.
func (m *Modern) ListTools(ctx context.Context) ([]v20260728.Tool, error) {
	var r v20260728.ListToolsResult
	raw, err := m.Call(ctx, "tools/list", nil)
	if err != nil {
		return nil, err
	}
	return r.Tools, json.Unmarshal(raw, &r)
}

// ModernCallResult is the answer to tools/call: a task (Task non-nil) or
// the tool's result.
type ModernCallResult struct {
	Task   *exttasks.CreateTaskResult
	Result json.RawMessage
}

// CallTool calls a tool; the server decides whether the answer is a task.
func (m *Modern) CallTool(ctx context.Context, name string, args any) (ModernCallResult, error) {
	if args == nil {
		args = map[string]any{}
	}
	raw, err := m.Call(ctx, "tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return ModernCallResult{}, err
	}
	var probe struct {
		ResultType string `json:"resultType"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return ModernCallResult{}, fmt.Errorf("tools/call: %w", err)
	}
	if probe.ResultType != exttasks.ResultTypeTask {
		return ModernCallResult{Result: raw}, nil
	}
	var t exttasks.CreateTaskResult
	if err := json.Unmarshal(raw, &t); err != nil {
		return ModernCallResult{}, fmt.Errorf("tools/call: %w", err)
	}
	return ModernCallResult{Task: &t}, nil
}

// GetTask calls tasks/get.
func (m *Modern) GetTask(ctx context.Context, id string) (exttasks.GetTaskResult, error) {
	var r exttasks.GetTaskResult
	raw, err := m.Call(ctx, exttasks.MethodGet, map[string]any{"taskId": id})
	if err != nil {
		return r, err
	}
	return r, json.Unmarshal(raw, &r)
}

// UpdateTask answers input requests of a task with tasks/update;
// responses maps input request keys to their results.
func (m *Modern) UpdateTask(ctx context.Context, id string, responses map[string]json.RawMessage) error {
	_, err := m.Call(ctx, exttasks.MethodUpdate, map[string]any{"taskId": id, "inputResponses": responses})
	return err
}

// CancelTask calls tasks/cancel (acknowledged; the task may still end
// otherwise).
func (m *Modern) CancelTask(ctx context.Context, id string) error {
	_, err := m.Call(ctx, exttasks.MethodCancel, map[string]any{"taskId": id})
	return err
}

// InputAnswerer answers one input request of a task (for instance an
// elicitation) with the result to send back.
type InputAnswerer func(ctx context.Context, key string, req exttasks.InputRequest) (json.RawMessage, error)

// Poll polls tasks/get, honouring pollIntervalMs (at least minInterval),
// until the task is terminal, and answers each input request once through
// answer (nil: input requests are left unanswered). It returns the last
// detailed task.
func (m *Modern) Poll(ctx context.Context, id string, minInterval time.Duration, answer InputAnswerer) (exttasks.GetTaskResult, error) {
	answered := map[string]bool{}
	for {
		t, err := m.GetTask(ctx, id)
		if err != nil {
			return t, err
		}
		switch t.Status {
		case exttasks.TaskStatusCompleted, exttasks.TaskStatusFailed, exttasks.TaskStatusCancelled:
			return t, nil
		case exttasks.TaskStatusInputRequired:
			if answer != nil {
				out := map[string]json.RawMessage{}
				for k, req := range t.InputRequests {
					if answered[k] {
						continue
					}
					res, err := answer(ctx, k, req)
					if err != nil {
						return t, err
					}
					out[k] = res
					answered[k] = true
				}
				if len(out) > 0 {
					if err := m.UpdateTask(ctx, id, out); err != nil {
						return t, err
					}
				}
			}
		}
		wait := minInterval
		if t.PollIntervalMs != nil && time.Duration(*t.PollIntervalMs)*time.Millisecond > wait {
			wait = time.Duration(*t.PollIntervalMs) * time.Millisecond
		}
		select {
		case <-ctx.Done():
			return t, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// Listen opens subscriptions/listen for taskIDs and calls onAck with the
// acknowledged ids, then onTask with every notifications/tasks that
// arrives, until ctx ends (nil) or the server ends the stream.
func (m *Modern) Listen(ctx context.Context, taskIDs []string, onAck func(ids []string), onTask func(exttasks.TaskStatusNotificationParams)) error {
	p, err := m.params(map[string]any{"notifications": map[string]any{"taskIds": taskIDs}})
	if err != nil {
		return err
	}
	id := json.RawMessage(fmt.Sprintf(`"listen-%d"`, m.c.nextID.Add(1)))
	body, err := json.Marshal(envelope{JSONRPC: "2.0", ID: id, Method: "subscriptions/listen", Params: mustRaw(p)})
	if err != nil {
		return err
	}
	hdr := http.Header{HeaderProtocolVersion: {m.version}, "Mcp-Method": {"subscriptions/listen"}}
	resp, err := m.c.post(ctx, "subscriptions/listen", body, hdr)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b := make([]byte, 64<<10)
		n, _ := resp.Body.Read(b)
		return rpcFromHTTP(&HTTPError{Method: "subscriptions/listen", StatusCode: resp.StatusCode, Body: string(b[:n])})
	}
	var final error
	tag := func(msg *Message) {
		msg.Stream = StreamPOST
		if msg.Kind == KindError && msg.env.Error != nil {
			e := *msg.env.Error
			final = &e
			return
		}
		if msg.Kind != KindNotification {
			return
		}
		var params json.RawMessage
		var n struct {
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(msg.Raw, &n) == nil {
			params = n.Params
		}
		switch msg.Method {
		case "notifications/subscriptions/acknowledged":
			var a struct {
				Notifications struct {
					TaskIDs []string `json:"taskIds"`
				} `json:"notifications"`
			}
			_ = json.Unmarshal(params, &a)
			if onAck != nil {
				onAck(a.Notifications.TaskIDs)
			}
		case exttasks.MethodNotification:
			var t exttasks.TaskStatusNotificationParams
			if json.Unmarshal(params, &t) == nil && onTask != nil {
				onTask(t)
			}
		}
	}
	match := func(msg *Message) bool { return msg.IsResponse() }
	_, _, _, err = m.c.readSSE(ctx, resp.Body, tag, match)
	if ctx.Err() != nil {
		return nil
	}
	if final != nil {
		return final
	}
	return err
}

func mustRaw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
