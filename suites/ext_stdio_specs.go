package suites

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema/exttasks"
)

// The stdio specs of the 2026-07-28 profile each start their own child
// from the run's command and speak to it with the extStdio driver: one
// JSON line per request, every stdout line kept as evidence.

// stdioLine is the part of a stdout line the specs look at.
type stdioLine struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code int64           `json:"code"`
		Data json.RawMessage `json:"data"`
	} `json:"error"`
}

// stdioEvidence renders the raw stdout lines for a failure message.
func stdioEvidence(s *extStdio) string {
	lines := s.evidence()
	if len(lines) == 0 {
		return "\nstdout: no line"
	}
	var b strings.Builder
	b.WriteString("\nstdout lines:")
	for _, l := range lines {
		fmt.Fprintf(&b, "\n  %s", excerpt([]byte(l), 400))
	}
	return b.String()
}

var _ = describeServer("2026-07-28: stdio", "ext-stdio", func(env *ServerEnv) {
	start := func(ctx SpecContext) *extStdio {
		s, err := startExtStdio(ctx, env.Config.Command)
		Expect(err).NotTo(HaveOccurred(), "starting the server command")
		DeferCleanup(s.close)
		return s
	}
	// await reads lines until one answers id (decoded) or d passes.
	await := func(s *extStdio, id string, d time.Duration) (*stdioLine, bool) {
		deadline := time.Now().Add(d)
		for {
			left := time.Until(deadline)
			if left <= 0 {
				return nil, false
			}
			line, ok := s.next(left)
			if !ok {
				return nil, false
			}
			var m stdioLine
			if json.Unmarshal([]byte(line), &m) == nil && string(m.ID) == id && m.Method == "" {
				return &m, true
			}
		}
	}

	env.It("over stdio answers an unsupported protocol version with -32022 listing the supported versions", "EXT-BASE-015", func(ctx SpecContext) {
		s := start(ctx)
		Expect(s.send(1, exttasks.MethodGet, "1999-01-01", map[string]any{"taskId": "x"})).To(Succeed())
		m, ok := await(s, "1", env.scaled(10*time.Second))
		if !ok {
			Fail("no answer to tasks/get naming protocol version 1999-01-01" + stdioEvidence(s))
		}
		if m.Error == nil || m.Error.Code != -32022 {
			Fail("tasks/get naming protocol version 1999-01-01 was not refused with -32022" + stdioEvidence(s))
		}
		var d struct {
			Supported []string `json:"supported"`
			Requested *string  `json:"requested"`
		}
		if err := json.Unmarshal(m.Error.Data, &d); err != nil || d.Supported == nil || d.Requested == nil {
			Fail("-32022 without data {supported: [...], requested}" + stdioEvidence(s))
		}
		if *d.Requested != "1999-01-01" {
			Fail("data.requested is not 1999-01-01" + stdioEvidence(s))
		}
	})

	env.It("over stdio writes nothing but JSON-RPC 2.0 messages to stdout, one per line", "EXT-XPORT-024", func(ctx SpecContext) {
		s := start(ctx)
		Expect(s.send(1, "server/discover", "", nil)).To(Succeed())
		Expect(s.send(2, "tools/list", "", nil)).To(Succeed())
		Expect(s.send(3, exttasks.MethodGet, "1999-01-01", map[string]any{"taskId": "x"})).To(Succeed())
		Expect(s.send(4, exttasks.MethodGet, "", map[string]any{"taskId": "no-such-task"})).To(Succeed())
		_, ok := await(s, "4", env.scaled(10*time.Second))
		if !ok {
			Fail("no answer to the fourth request" + stdioEvidence(s))
		}
		// A short quiet spell catches anything written after the answers.
		for {
			if _, more := s.next(env.scaled(300 * time.Millisecond)); !more {
				break
			}
		}
		for _, l := range s.evidence() {
			var m map[string]json.RawMessage
			if err := json.Unmarshal([]byte(l), &m); err != nil || string(m["jsonrpc"]) != `"2.0"` {
				Fail(fmt.Sprintf("stdout line %q is not one JSON-RPC 2.0 message", excerpt([]byte(l), 200)) + stdioEvidence(s))
			}
		}
	})

	env.It("over stdio sends nothing more for a subscriptions/listen the client cancelled", "EXT-XPORT-023", func(ctx SpecContext) {
		s := start(ctx)
		Expect(s.send(7, "subscriptions/listen", "", map[string]any{"notifications": map[string]any{"taskIds": []string{}}})).To(Succeed())
		acked := false
		deadline := time.Now().Add(env.scaled(10 * time.Second))
		for !acked && time.Until(deadline) > 0 {
			line, ok := s.next(time.Until(deadline))
			if !ok {
				break
			}
			var m stdioLine
			if json.Unmarshal([]byte(line), &m) != nil {
				continue
			}
			if m.Method == "" && string(m.ID) == "7" {
				NotApplicable("the server answered subscriptions/listen at once instead of keeping a stream: %s", excerpt([]byte(line), 200))
			}
			acked = m.Method == "notifications/subscriptions/acknowledged"
		}
		if !acked {
			NotApplicable("no notifications/subscriptions/acknowledged for subscriptions/listen")
		}
		Expect(s.write(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled",
			"params": map[string]any{"requestId": 7, "_meta": extMeta(string(Protocol2026), capsFull)}})).To(Succeed())
		quiet := time.Now().Add(env.scaled(time.Second))
		for time.Until(quiet) > 0 {
			line, ok := s.next(time.Until(quiet))
			if !ok {
				break
			}
			var m stdioLine
			_ = json.Unmarshal([]byte(line), &m)
			if string(m.ID) == "7" || strings.Contains(string(m.Params), `"requestId":7`) {
				Fail(fmt.Sprintf("after notifications/cancelled the server still sent %q for request 7", excerpt([]byte(line), 200)) + stdioEvidence(s))
			}
		}
	})
})
