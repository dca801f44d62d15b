package suites

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema/exttasks"
	"github.com/mcptasks/mcptasks/schema/v20260728"
	"github.com/mcptasks/mcptasks/tasks/client"
)

// unknownTaskID is a well-formed task id no server hands out.
const unknownTaskID = "00000000-0000-4000-8000-000000000000"

// errorProbes are requests every 2026-07-28 server answers with a
// JSON-RPC error of the plain kind (-32601 or -32602): each sends matching
// routing headers, protocol version 2026-07-28 and the extension and form
// elicitation declared, so none of the 2026-07-28 codes fits it. (A
// tasks/get without taskId is left out: it goes without Mcp-Name, which a
// server may refuse with -32020, EXT-DISC-19.)
func (env *ServerEnv) errorProbes() []extRequest {
	probes := []extRequest{
		{Method: exttasks.MethodGet, Params: map[string]any{"taskId": unknownTaskID}},
		{Method: exttasks.MethodUpdate, Params: map[string]any{"taskId": unknownTaskID, "inputResponses": map[string]any{}}},
		{Method: exttasks.MethodCancel, Params: map[string]any{"taskId": unknownTaskID}},
		{Method: "tasks/bogus", Params: map[string]any{"taskId": unknownTaskID}},
		{Method: "tools/call", Params: map[string]any{"name": "mcptasks-conformance-no-such-tool", "arguments": map[string]any{}}},
	}
	if name := env.Config.ToolName(FixtureSleep); name != "" {
		probes = append(probes, extRequest{Method: "tools/call", Params: map[string]any{"name": name, "arguments": "not an object"}})
	}
	return probes
}

// probeWhat names a probe in a failure message.
func probeWhat(req extRequest) string {
	b, _ := json.Marshal(req.Params)
	return fmt.Sprintf("%s %s", req.Method, b)
}

// The reserved range of MCP error codes and the three 2026-07-28 defines.
const (
	codeReservedLow  = -32099
	codeReservedHigh = -32020
	codeMismatch     = -32020
	codeMissingCap   = -32021
	codeUnsupported  = -32022
)

// requiredCapsEmpty reports whether a -32021 names no capability at all
// under data.requiredCapabilities.
func requiredCapsEmpty(e *client.RPCError) bool {
	var d struct {
		RequiredCapabilities map[string]json.RawMessage `json:"requiredCapabilities"`
	}
	_ = json.Unmarshal(e.Data, &d)
	return len(d.RequiredCapabilities) == 0
}

var _ = describeServer("2026-07-28: error codes", "ext-get", func(env *ServerEnv) {
	env.It("never answers with the retired codes -32002 or -32042", "EXT-ERR-013", func(ctx SpecContext) {
		for _, req := range env.errorProbes() {
			r := env.extDo(ctx, req)
			if r.Error == nil {
				continue
			}
			Expect(r.Error.Code).NotTo(BeElementOf(int64(-32002), int64(-32042)), "%s was answered with a code 2026-07-28 retired: %s", probeWhat(req), r)
		}
	})

	env.It("uses codes of -32020..-32099 only as 2026-07-28 defines them", "EXT-ERR-012", func(ctx SpecContext) {
		for _, req := range env.errorProbes() {
			r := env.extDo(ctx, req)
			if r.Error == nil || r.Error.Code < codeReservedLow || r.Error.Code > codeReservedHigh {
				continue
			}
			what := probeWhat(req)
			switch r.Error.Code {
			case codeMismatch:
				env.failf("%s carried routing headers that match its body, yet came back with -32020 (header mismatch)", what)
			case codeUnsupported:
				env.failf("%s asked for protocol version %s, which the server speaks, yet came back with -32022 (unsupported version)", what, Protocol2026)
			case codeMissingCap:
				_, namesTasks := requiredExtension(r.Error)
				if namesTasks || requiredCapsEmpty(r.Error) {
					env.failf("%s declared the tasks extension and form elicitation, yet came back with -32021 (missing client capability) naming nothing it lacked", what)
				}
			default:
				env.failf("%s came back with %d, a code of the range reserved for the MCP specification that 2026-07-28 does not define", what, r.Error.Code)
			}
		}
	})
})

// extPostRaw posts body as it is, with the 2026-07-28 headers of method
// (an empty header value removes it), records the exchange as evidence
// and returns the HTTP status, content type and body.
func (env *ServerEnv) extPostRaw(ctx context.Context, method string, body []byte, headers map[string]string) (int, string, []byte) {
	GinkgoHelper()
	hr, err := env.extHTTPRequest(ctx, http.MethodPost, env.Config.URLs[0], bytes.NewReader(body), nil)
	if err != nil {
		HarnessError("%s: %v", method, err)
	}
	setExtPostHeaders(hr.Header, string(Protocol2026), method)
	overrideHeaders(hr.Header, headers)
	resp, err := env.httpClient().Do(hr)
	if err != nil {
		HarnessError("%s: %v", method, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	ct := resp.Header.Get("Content-Type")
	env.recordExchange(client.Exchange{Method: method, Sent: body, HTTPStatus: resp.StatusCode, ContentType: ct, Body: b, At: time.Now()})
	return resp.StatusCode, ct, b
}

var _ = describeServer("2026-07-28: Streamable HTTP rules", "ext-discover", func(env *ServerEnv) {
	env.It("never serves a tasks/get that lacks the protocol version header as a 2026-07-28 request", "EXT-XPORT-013", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 2000})
		r := env.extDo(ctx, extRequest{Method: exttasks.MethodGet, Params: map[string]any{"taskId": id},
			Headers: map[string]string{client.HeaderProtocolVersion: ""}})
		// A server without pre-2025-06-18 clients refuses the request; one
		// with them reads it as 2025-03-26, which has no tasks. Neither
		// shows the task.
		served := r.Error == nil && r.Status < 300 && r.str("taskId") == id
		Expect(served).To(BeFalse(), "a tasks/get without %s was served as a 2026-07-28 request: %s", client.HeaderProtocolVersion, r)
	})

	env.It("answers a POSTed notification with 202 and no body, or with an HTTP error", "EXT-XPORT-017", func(ctx SpecContext) {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{
			"requestId": "mcptasks-conformance-finished-request",
			"reason":    "conformance check of a POSTed notification",
			"_meta": map[string]any{
				v20260728.ProtocolVersionMetaKey:    string(Protocol2026),
				v20260728.ClientCapabilitiesMetaKey: capsFull,
				v20260728.ClientInfoMetaKey:         map[string]string{"name": "mcptasks-conformance", "version": "suite"},
			},
		}})
		status, _, got := env.extPostRaw(ctx, "notifications/cancelled", body, nil)
		if status >= 400 {
			return // the server did not accept it, and said so
		}
		Expect(status).To(Equal(http.StatusAccepted), "a POSTed notification the server took was answered with HTTP %d, not 202", status)
		Expect(bytes.TrimSpace(got)).To(BeEmpty(), "the 202 to a POSTed notification carried a body")
	})
})

// streamEnd watches the rest of an event stream after its response: ended
// says the stream closed (or broke) within wait, extra how many bytes
// came after the response. tailed stays false for an answer that was not
// an event stream carrying a response.
type streamEnd struct {
	tailed, ended bool
	extra         int64
}

// tail is an extRequest.Tail that reads what is left of the stream until
// it ends or wait passes, then closes the body.
func (e *streamEnd) tail(ctx context.Context, wait time.Duration) func(io.Reader, io.Closer) {
	return func(rest io.Reader, body io.Closer) {
		e.tailed = true
		done := make(chan int64, 1)
		go func() {
			n, _ := io.Copy(io.Discard, rest)
			done <- n
		}()
		timer := time.NewTimer(wait)
		defer timer.Stop()
		select {
		case e.extra = <-done:
			e.ended = true
			return
		case <-timer.C:
		case <-ctx.Done():
		}
		_ = body.Close()
		e.extra = <-done
	}
}

var _ = describeServer("2026-07-28: the end of a response stream", "ext-discover", func(env *ServerEnv) {
	env.It("ends an event-stream answer to tools/call or tasks/get with its final response", "EXT-XPORT-018", func(ctx SpecContext) {
		wait := env.scaled(2 * time.Second)
		streams := 0
		// watched sends req; when the answer is an event stream, the
		// stream must end within wait of the response.
		watched := func(req extRequest, what string) *extReply {
			GinkgoHelper()
			var end streamEnd
			req.Tail = end.tail(ctx, wait)
			r := env.extDo(ctx, req)
			if !end.tailed || ctx.Err() != nil {
				return r
			}
			streams++
			Expect(end.ended).To(BeTrue(), "the event stream answering %s stayed open %s after its final response (%d more bytes came): %s", what, wait, end.extra, r)
			return r
		}
		// task follows a task the call made, if any, with one tasks/get.
		task := func(r *extReply, what string) {
			GinkgoHelper()
			if r.Error != nil || r.str("resultType") != exttasks.ResultTypeTask || r.str("taskId") == "" {
				return
			}
			id := r.str("taskId")
			env.ext.mu.Lock()
			env.ext.created = append(env.ext.created, extCreated{id: id, headers: env.Config.Headers})
			env.ext.mu.Unlock()
			watched(extRequest{Method: exttasks.MethodGet, Params: map[string]any{"taskId": id}}, "tasks/get of the task "+what+" made")
		}

		if name := env.Config.ToolName(FixtureProgress); name != "" {
			// Progress before the answer is what usually turns it into a
			// stream: once without the extension (a plain result), once
			// with it (a task, perhaps).
			for _, c := range []struct {
				caps json.RawMessage
				what string
			}{{capsNoExt, "a tools/call of the progress fixture without the extension"}, {capsFull, "a tools/call of the progress fixture with the extension"}} {
				meta := extMeta(string(Protocol2026), c.caps)
				meta["progressToken"] = fmt.Sprintf("progress-%d", extSeq.Add(1))
				r := watched(extRequest{Method: "tools/call", Meta: meta, Caps: c.caps,
					Params: map[string]any{"name": name, "arguments": env.Config.FixtureArguments(FixtureProgress, map[string]any{"ms": 300, "steps": 3})}}, c.what)
				task(r, c.what)
			}
		}
		if name := env.Config.ToolName(FixtureSleep); name != "" {
			what := "a tools/call of the sleep fixture with the extension"
			r := watched(extRequest{Method: "tools/call",
				Params: map[string]any{"name": name, "arguments": env.Config.FixtureArguments(FixtureSleep, map[string]any{"ms": 300})}}, what)
			task(r, what)
		}
		if streams == 0 {
			NotApplicable("no tools/call or tasks/get was answered with an event stream (every answer was application/json), so no stream could show the rule")
		}
		AddReportEntry("event-stream answers watched", streams)
	})
})

var _ = describeServer("2026-07-28: input state and identity", "ext-input", func(env *ServerEnv) {
	env.It("keeps a task's input requests from another authorization context, which can neither read nor answer them", "EXT-SEC-007", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureInput, map[string]any{"question": "conformance?"})
		rs := env.extPollUntil(ctx, id, func(s string) bool { return s == stInputRequired || extTerminal(s) })
		parked := rs[len(rs)-1]
		asked := inputRequests(parked)
		if parked.str("status") != stInputRequired || len(asked) == 0 {
			NotSupported("the input fixture's task never waited with input requests (EXT-GET-006 judges that): %s", parked)
		}

		read := env.extDo(ctx, extRequest{Method: exttasks.MethodGet, Identity: env.Config.HeadersB, Params: map[string]any{"taskId": id}})
		if read.Error == nil && read.Status < 300 {
			Expect(inputRequests(read)).To(BeEmpty(), "identity B's tasks/get showed identity A's input requests: %s", read)
		}

		answers := map[string]any{}
		for k, req := range asked {
			answers[k] = map[string]any{"action": "accept", "content": formAnswer(req.Params)}
		}
		env.extDo(ctx, extRequest{Method: exttasks.MethodUpdate, Identity: env.Config.HeadersB, Params: map[string]any{"taskId": id, "inputResponses": answers}})
		// The answer may take effect after the acknowledgement: look a few
		// times that A's task still waits for every key it asked.
		for range 3 {
			time.Sleep(env.scaled(150 * time.Millisecond))
			r := env.extGet(ctx, id)
			Expect(r.str("status")).To(Equal(stInputRequired), "identity B's tasks/update answered identity A's input: A's task moved on: %s", r)
			for k := range asked {
				Expect(inputRequests(r)).To(HaveKey(k), "identity B's tasks/update answered identity A's input request %q: %s", k, r)
			}
		}
	})
})

// capsFormAndURL declares the tasks extension and both elicitation modes.
var capsFormAndURL = json.RawMessage(`{"extensions":{"` + exttasks.ExtensionID + `":{}},"elicitation":{"form":{},"url":{}}}`)

var _ = describeServer("2026-07-28: URL-mode elicitation in a task", "ext-input", func(env *ServerEnv) {
	env.It("gives a URL-mode elicitation a message and a valid absolute url", "EXT-INPUT-016", func(ctx SpecContext) {
		r := env.extToolCall(ctx, FixtureInput, map[string]any{"question": "conformance?"}, capsFormAndURL)
		if r.Error != nil {
			NotSupported("the input fixture could not be called by a client offering both elicitation modes: %s", r)
		}
		if r.str("resultType") != exttasks.ResultTypeTask {
			NotSupported("the server answered the input fixture synchronously (resultType %q): the rule is about a task's input requests", r.str("resultType"))
		}
		id := r.str("taskId")
		env.ext.mu.Lock()
		env.ext.created = append(env.ext.created, extCreated{id: id, headers: env.Config.Headers})
		env.ext.mu.Unlock()
		rs := env.extPollUntil(ctx, id, func(s string) bool { return s == stInputRequired || extTerminal(s) })
		seen := 0
		for _, p := range rs {
			for k, req := range inputRequests(p) {
				var params struct {
					Mode    string          `json:"mode"`
					Message json.RawMessage `json:"message"`
					URL     json.RawMessage `json:"url"`
				}
				_ = json.Unmarshal(req.Params, &params)
				if req.Method != "elicitation/create" || params.Mode != "url" {
					continue
				}
				seen++
				var msg, link string
				Expect(json.Unmarshal(params.Message, &msg)).To(Succeed(), "URL-mode elicitation %q has no message string: %s", k, p)
				Expect(json.Unmarshal(params.URL, &link)).To(Succeed(), "URL-mode elicitation %q has no url string: %s", k, p)
				u, err := url.Parse(link)
				Expect(err == nil && u.Scheme != "" && (u.Host != "" || u.Opaque != "")).To(BeTrue(), "URL-mode elicitation %q has url %q, which is not a valid absolute URL: %s", k, link, p)
			}
		}
		if seen == 0 {
			NotApplicable("the input fixture asked no URL-mode elicitation of a client that offered URL mode")
		}
	})
})

var _ = describeServer("2026-07-28: what a listen stream may carry", "ext-notify", func(env *ServerEnv) {
	env.It("sends no progress or log notifications on a listen stream for a task", "EXT-NOTIFY-007", func(ctx SpecContext) {
		name := env.extTool(FixtureProgress)
		token := fmt.Sprintf("progress-%d", extSeq.Add(1))
		r := env.extDo(ctx, extRequest{Method: "tools/call",
			Params: map[string]any{"name": name, "arguments": env.Config.FixtureArguments(FixtureProgress, map[string]any{"ms": 800, "steps": 4})},
			Meta: map[string]any{
				v20260728.ProtocolVersionMetaKey:    string(Protocol2026),
				v20260728.ClientCapabilitiesMetaKey: capsFull,
				v20260728.ClientInfoMetaKey:         map[string]string{"name": "mcptasks-conformance", "version": "suite"},
				"progressToken":                     token,
				"io.modelcontextprotocol/logLevel":  "debug",
			}})
		if r.Error != nil {
			NotSupported("the progress fixture could not be called with a progressToken and a log level: %s", r)
		}
		if r.str("resultType") != exttasks.ResultTypeTask {
			NotSupported("the server answered the progress fixture synchronously (resultType %q): the rule is about a task's listen stream", r.str("resultType"))
		}
		id := r.str("taskId")
		if id == "" {
			NotSupported("the CreateTaskResult has no string taskId to listen for (EXT-WIRE-001 judges that): %s", r)
		}
		env.ext.mu.Lock()
		env.ext.created = append(env.ext.created, extCreated{id: id, headers: env.Config.Headers})
		env.ext.mu.Unlock()

		run := env.extListen(ctx, []string{id}, capsFull, 5*time.Second, func(m listenMsg) bool {
			return m.Method == exttasks.MethodNotification && extTerminal(m.Params.Status)
		})
		if run.errReply != nil {
			NotApplicable("the server refused the listen for the task (%v), so no stream could show the rule", run.errReply)
		}
		for _, raw := range run.messages {
			var m listenMsg
			_ = json.Unmarshal(raw, &m)
			Expect(m.Method).NotTo(BeElementOf("notifications/progress", "notifications/message"), "the listen stream of a task carried a progress or log notification: %s", raw)
		}
	})

	env.It("sends no task notifications on a listen stream that did not ask for taskIds", "EXT-NOTIFY-008", func(ctx SpecContext) {
		env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 300})
		// The stream stays open well past the task's end: a server that
		// sends task notifications it was not asked for has sent one by then.
		run := env.extListenFilter(ctx, map[string]any{"toolsListChanged": true}, capsFull, 1200*time.Millisecond, func(listenMsg) bool { return false })
		if run.errReply != nil {
			NotApplicable("the server refused a listen for toolsListChanged only (%v), so no stream could show the rule", run.errReply)
		}
		for _, raw := range run.messages {
			var m listenMsg
			_ = json.Unmarshal(raw, &m)
			Expect(m.Method).NotTo(Equal(exttasks.MethodNotification), "a listen stream that asked for toolsListChanged only carried a task notification: %s", raw)
		}
	})
})

// extProgressCall calls the progress fixture with the given capabilities,
// progressToken and, when not empty, log level in _meta.
func (env *ServerEnv) extProgressCall(ctx context.Context, caps json.RawMessage, token, logLevel string) *extReply {
	GinkgoHelper()
	name := env.extTool(FixtureProgress)
	meta := map[string]any{
		v20260728.ProtocolVersionMetaKey:    string(Protocol2026),
		v20260728.ClientCapabilitiesMetaKey: caps,
		v20260728.ClientInfoMetaKey:         map[string]string{"name": "mcptasks-conformance", "version": "suite"},
		"progressToken":                     token,
	}
	if logLevel != "" {
		meta["io.modelcontextprotocol/logLevel"] = logLevel
	}
	r := env.extDo(ctx, extRequest{Method: "tools/call", Meta: meta,
		Params: map[string]any{"name": name, "arguments": env.Config.FixtureArguments(FixtureProgress, map[string]any{"ms": 400, "steps": 4})}})
	if r.Error != nil {
		NotSupported("the progress fixture could not be called with a progressToken: %s", r)
	}
	if r.str("resultType") == exttasks.ResultTypeTask {
		env.ext.mu.Lock()
		env.ext.created = append(env.ext.created, extCreated{id: r.str("taskId"), headers: env.Config.Headers})
		env.ext.mu.Unlock()
	}
	return r
}

// progressNote is the part of a notifications/progress the specs read.
type progressNote struct {
	Method string `json:"method"`
	Params struct {
		Token    json.RawMessage `json:"progressToken"`
		Progress float64         `json:"progress"`
	} `json:"params"`
}

// notesOf decodes the notifications a reply's stream carried before it.
func notesOf(r *extReply) []progressNote {
	out := make([]progressNote, len(r.Notifications))
	for i, raw := range r.Notifications {
		_ = json.Unmarshal(raw, &out[i])
	}
	return out
}

var _ = describeServer("2026-07-28: progress and logging", "ext-notify", func(env *ServerEnv) {
	env.It("sends no log message for a request that set no log level", "EXT-PROG-005", func(ctx SpecContext) {
		token := fmt.Sprintf("progress-%d", extSeq.Add(1))
		env.extProgressCall(ctx, capsNoExt, token+"-sync", "")
		if r := env.extProgressCall(ctx, capsFull, token+"-task", ""); r.str("resultType") == exttasks.ResultTypeTask {
			env.extPollUntil(ctx, r.str("taskId"), extTerminal)
		}
		for _, r := range env.extReplies() {
			for i, n := range notesOf(r) {
				Expect(n.Method).NotTo(Equal("notifications/message"), "%s carried a log message though no request set a log level: %s", r.Method, r.Notifications[i])
			}
		}
	})

	env.It("sends on a request's stream only notifications about that request", "EXT-PROG-006", func(ctx SpecContext) {
		token := fmt.Sprintf("progress-%d", extSeq.Add(1))
		sync := env.extProgressCall(ctx, capsNoExt, token, "")
		own := map[*extReply]string{sync: token}
		if r := env.extProgressCall(ctx, capsFull, token+"-task", ""); r.str("resultType") == exttasks.ResultTypeTask {
			own[r] = token + "-task"
			env.extPollUntil(ctx, r.str("taskId"), extTerminal)
		}
		seen := 0
		for _, r := range env.extReplies() {
			for i, n := range notesOf(r) {
				if n.Method != "notifications/progress" {
					continue
				}
				seen++
				Expect(string(n.Params.Token)).To(MatchJSON(fmt.Sprintf("%q", own[r])), "the stream of %s carried progress for another request: %s", r.Method, r.Notifications[i])
			}
		}
		if seen == 0 {
			NotApplicable("the server sent no progress notification on any response stream (they are optional)")
		}
	})

	env.It("raises the progress value with every notification of a request", "EXT-PROG-004", func(ctx SpecContext) {
		token := fmt.Sprintf("progress-%d", extSeq.Add(1))
		r := env.extProgressCall(ctx, capsNoExt, token, "")
		var values []float64
		for _, n := range notesOf(r) {
			if n.Method == "notifications/progress" && string(n.Params.Token) == fmt.Sprintf("%q", token) {
				values = append(values, n.Params.Progress)
			}
		}
		if len(values) < 2 {
			NotApplicable("the server sent %d progress notifications for the call, fewer than two to compare", len(values))
		}
		for i := 1; i < len(values); i++ {
			Expect(values[i]).To(BeNumerically(">", values[i-1]), "progress went from %v to %v on the stream of %s: %v", values[i-1], values[i], r, values)
		}
	})
})

var _ = describeServer("2026-07-28: base protocol", "ext-discover", func(env *ServerEnv) {
	env.It("implements subscriptions/listen, the subscribe-and-notify pattern", "EXT-BASE-001", func(ctx SpecContext) {
		run := env.extListenFilter(ctx, map[string]any{}, capsFull, 2*time.Second, func(listenMsg) bool { return true })
		unknown := run.status == http.StatusNotFound || (run.errReply != nil && run.errReply.Code == -32601)
		Expect(unknown).To(BeFalse(), "subscriptions/listen was answered as a method the server does not implement (HTTP %d, %v)", run.status, run.errReply)
	})

	env.It("encodes every message as UTF-8", "EXT-XPORT-021", func(ctx SpecContext) {
		env.extDo(ctx, extRequest{Method: "server/discover"})
		id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 100})
		env.extTerminalReply(ctx, id)
		env.extGet(ctx, unknownTaskID)
		for _, r := range env.extReplies() {
			Expect(utf8.Valid(r.Message)).To(BeTrue(), "the answer to %s is not valid UTF-8: %q", r.Method, r.Message)
			for _, n := range r.Notifications {
				Expect(utf8.Valid(n)).To(BeTrue(), "a notification on the stream of %s is not valid UTF-8: %q", r.Method, n)
			}
		}
	})
})
