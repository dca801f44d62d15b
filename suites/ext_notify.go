package suites

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema/exttasks"
	"github.com/mcptasks/mcptasks/tasks/client"
)

// subscriptionIDKey is the _meta key tying a notification to its listen
// request.
const subscriptionIDKey = "io.modelcontextprotocol/subscriptionId"

// listenRun is what one subscriptions/listen stream delivered.
type listenRun struct {
	id       string
	status   int
	errReply *client.RPCError
	messages []json.RawMessage
}

// listenMsg is the part of a stream message the specs read.
type listenMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Meta   map[string]json.RawMessage `json:"_meta"`
		Status string                     `json:"status"`
		TaskID string                     `json:"taskId"`
	} `json:"params"`
	Error *client.RPCError `json:"error"`
}

// extListen opens subscriptions/listen for taskIDs and reads its stream
// until stop returns true for a message, the server ends it, or d
// passes.
func (env *ServerEnv) extListen(ctx context.Context, taskIDs []string, caps json.RawMessage, d time.Duration, stop func(listenMsg) bool) listenRun {
	GinkgoHelper()
	return env.extListenFilter(ctx, map[string]any{"taskIds": taskIDs}, caps, d, stop)
}

// extListenFilter is extListen with any notifications filter; what the
// stream carried becomes the evidence of a failure that follows.
func (env *ServerEnv) extListenFilter(ctx context.Context, filter map[string]any, caps json.RawMessage, d time.Duration, stop func(listenMsg) bool) listenRun {
	GinkgoHelper()
	run := listenRun{id: fmt.Sprintf("listen-%d", extSeq.Add(1))}
	lctx, cancel := context.WithTimeout(ctx, env.scaled(d))
	defer cancel()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": run.id, "method": "subscriptions/listen", "params": map[string]any{
		"notifications": filter,
		"_meta":         extMeta(string(Protocol2026), caps),
	}})
	hr, err := env.extHTTPRequest(lctx, http.MethodPost, env.Config.URLs[0], bytes.NewReader(body), nil)
	if err != nil {
		HarnessError("subscriptions/listen: %v", err)
	}
	setExtPostHeaders(hr.Header, string(Protocol2026), "subscriptions/listen")
	resp, err := env.httpClient().Do(hr)
	if err != nil {
		HarnessError("subscriptions/listen: %v", err)
	}
	defer resp.Body.Close()
	run.status = resp.StatusCode
	each := func(msg json.RawMessage) bool {
		run.messages = append(run.messages, msg)
		var m listenMsg
		_ = json.Unmarshal(msg, &m)
		if m.Error != nil {
			run.errReply = m.Error
			return false
		}
		return !stop(m)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		_ = readSSEMessages(bufio.NewReader(resp.Body), each)
	} else {
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		if b.Len() > 0 {
			each(b.Bytes())
		}
	}
	carried := make([][]byte, len(run.messages))
	for i, m := range run.messages {
		carried[i] = m
	}
	env.recordExchange(client.Exchange{Method: "subscriptions/listen", Sent: body, HTTPStatus: resp.StatusCode,
		ContentType: resp.Header.Get("Content-Type"), Body: bytes.Join(carried, []byte("\n")), At: time.Now()})
	return run
}

var _ = describeServer("2026-07-28: subscriptions/listen and task notifications", "ext-notify", func(env *ServerEnv) {
	// follow creates a short sleep task and listens to it until a
	// notification shows it terminal.
	follow := func(ctx SpecContext) (string, listenRun) {
		GinkgoHelper()
		id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 300})
		run := env.extListen(ctx, []string{id}, capsFull, 5*time.Second, func(m listenMsg) bool {
			return m.Method == exttasks.MethodNotification && extTerminal(m.Params.Status)
		})
		Expect(run.errReply).To(BeNil(), "subscriptions/listen failed: %v", run.errReply)
		return id, run
	}

	env.It("refuses a listen for taskIds without the extension with -32021", "EXT-NOTIFY-004", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 1000})
		run := env.extListen(ctx, []string{id}, capsNoExt, 3*time.Second, func(listenMsg) bool { return true })
		Expect(run.errReply).NotTo(BeNil(), "a listen for taskIds without the extension was accepted: %s", run.messages)
		Expect(run.errReply.Code).To(BeEquivalentTo(-32021), "wrong code: %v", run.errReply)
		Expect(run.status).To(Equal(http.StatusBadRequest), "HTTP status of the refusal")
		for _, m := range run.messages {
			var lm listenMsg
			_ = json.Unmarshal(m, &lm)
			Expect(lm.Method).NotTo(Equal(exttasks.MethodNotification), "a task notification came despite the refusal")
		}
	})

	env.It("opens a subscription with an acknowledgement tagged with the listen request id", "EXT-NOTIFY-009", func(ctx SpecContext) {
		_, run := follow(ctx)
		Expect(run.messages).NotTo(BeEmpty(), "the listen stream carried nothing")
		var first listenMsg
		_ = json.Unmarshal(run.messages[0], &first)
		Expect(first.Method).To(Equal("notifications/subscriptions/acknowledged"), "the first message of the stream: %s", run.messages[0])
		Expect(string(first.Params.Meta[subscriptionIDKey])).To(MatchJSON(fmt.Sprintf("%q", run.id)), "the acknowledgement's subscriptionId: %s", run.messages[0])
	})

	env.It("tags every task notification with the listen request id", "EXT-NOTIFY-010", func(ctx SpecContext) {
		_, run := follow(ctx)
		n := 0
		for _, raw := range run.messages {
			var m listenMsg
			_ = json.Unmarshal(raw, &m)
			if m.Method != exttasks.MethodNotification {
				continue
			}
			n++
			Expect(m.Params.Meta).To(HaveKey(subscriptionIDKey), "a task notification without subscriptionId: %s", raw)
			Expect(string(m.Params.Meta[subscriptionIDKey])).To(MatchJSON(fmt.Sprintf("%q", run.id)), "subscriptionId: %s", raw)
		}
		if n == 0 {
			NotApplicable("the server sent no task notification (they are optional)")
		}
	})

	env.It("sends task notifications as notifications/tasks with a detailed task", "EXT-WIRE-022", func(ctx SpecContext) {
		id, run := follow(ctx)
		n := 0
		for _, raw := range run.messages {
			var m struct {
				JSONRPC string          `json:"jsonrpc"`
				Method  string          `json:"method"`
				Params  json.RawMessage `json:"params"`
			}
			_ = json.Unmarshal(raw, &m)
			if m.Method != exttasks.MethodNotification {
				continue
			}
			n++
			Expect(m.JSONRPC).To(Equal("2.0"), "%s", raw)
			t := expectTaskShape(m.Params, "notifications/tasks params")
			var tid, st string
			_ = json.Unmarshal(t["taskId"], &tid)
			_ = json.Unmarshal(t["status"], &st)
			Expect(tid).To(Equal(id), "a notification about a task the stream did not ask for: %s", raw)
			if st == stCompleted {
				Expect(isObject(t["result"])).To(BeTrue(), "a completed notification without result (EXT-DISC-02): %s", raw)
			}
		}
		if n == 0 {
			NotApplicable("the server sent no task notification (they are optional)")
		}
	})

	env.It("never gives a notification an id", "EXT-NOTIFY-013", func(ctx SpecContext) {
		_, run := follow(ctx)
		for _, raw := range run.messages {
			var m listenMsg
			_ = json.Unmarshal(raw, &m)
			if m.Method == exttasks.MethodNotification {
				Expect(m.ID).To(BeNil(), "a notifications/tasks with an id: %s", raw)
			}
		}
	})
})
