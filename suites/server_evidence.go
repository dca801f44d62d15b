package suites

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/onsi/ginkgo/v2"
)

// recordExchange keeps the last request and its answer for the evidence of
// a failure.
func (env *ServerEnv) recordExchange(x client.Exchange) {
	if len(x.Body) > client.MaxExchangeBody {
		x.Body = x.Body[:client.MaxExchangeBody]
	}
	env.mu.Lock()
	env.last = &x
	env.mu.Unlock()
}

// failWithEvidence is the Gomega fail handler during server specs: the
// assertion's message, then what was last sent, what came back and the
// section of the spec's requirement.
func (env *ServerEnv) failWithEvidence(message string, callerSkip ...int) {
	skip := 0
	if len(callerSkip) > 0 {
		skip = callerSkip[0]
	}
	ginkgo.Fail(readable(strings.TrimRight(message, "\n"))+env.evidence(), skip+1)
}

// nilPhrases turn Gomega's rendering of a nil value into words: a spec
// that expected an error and got none saw a success, which the evidence
// that follows shows.
var nilPhrases = strings.NewReplacer(
	"Expected an error to have occurred.  Got:\n    <nil>: nil", "Expected an error, but the request succeeded",
	"got <nil>", "got nothing (nil)",
	"<nil>: nil", "nil (absent)",
	"<nil>", "nil",
)

// readable rewrites a failure message so it never shows a bare <nil>.
func readable(message string) string { return nilPhrases.Replace(message) }

// failf fails the running spec with a formatted message followed by the
// evidence, like a failed assertion.
func (env *ServerEnv) failf(format string, args ...any) {
	ginkgo.Fail(fmt.Sprintf(format, args...)+env.evidence(), 1)
}

// evidence describes the last exchange with the server and the spec
// section of the running spec's requirement.
func (env *ServerEnv) evidence() string {
	var b strings.Builder
	env.mu.Lock()
	x := env.last
	env.mu.Unlock()
	if x != nil {
		fmt.Fprintf(&b, "\nsent: %s", excerpt(x.Sent, 300))
		switch {
		case env.Config.Stdio() && x.Err != nil && len(bytes.TrimSpace(x.Body)) == 0:
			fmt.Fprintf(&b, "\ncame back over stdio: no answer (%v)", x.Err)
		case env.Config.Stdio() && len(bytes.TrimSpace(x.Body)) == 0:
			b.WriteString("\ncame back over stdio: no answer")
		case env.Config.Stdio():
			fmt.Fprintf(&b, "\ncame back over stdio: %s", excerpt(x.Body, 500))
		case x.HTTPStatus == 0 && x.Err != nil:
			fmt.Fprintf(&b, "\ncame back: no answer (%v)", x.Err)
		case len(bytes.TrimSpace(x.Body)) == 0:
			fmt.Fprintf(&b, "\ncame back: HTTP %d with an empty body (Content-Type %q)", x.HTTPStatus, x.ContentType)
		default:
			fmt.Fprintf(&b, "\ncame back: HTTP %d, %s: %s", x.HTTPStatus, orNone(x.ContentType), excerpt(x.Body, 500))
		}
	}
	if r, ok := Lookup(currentRequirement()); ok {
		fmt.Fprintf(&b, "\nspec: %s (%s, %s)", r.Section, r.ID, r.Level)
	}
	b.WriteString(env.children.stderr(1000))
	return b.String()
}

// currentRequirement is the requirement id of the running spec ("" when
// there is none).
func currentRequirement() string {
	for _, l := range ginkgo.CurrentSpecReport().Labels() {
		if id, ok := strings.CutPrefix(l, LabelReq+":"); ok {
			return id
		}
	}
	return ""
}

// excerpt renders raw bytes on one line, cut after n bytes.
func excerpt(raw []byte, n int) string {
	s := strings.Join(strings.Fields(string(raw)), " ")
	if len(s) > n {
		return s[:n] + "… (" + strconv.Itoa(len(raw)) + " bytes)"
	}
	return s
}

func orNone(ct string) string {
	if ct == "" {
		return "no Content-Type"
	}
	return "Content-Type " + ct
}

// record keeps a received message for the wire check.
func (env *ServerEnv) record(m *client.Message) {
	if m.Direction != client.Received {
		return
	}
	env.mu.Lock()
	env.messages = append(env.messages, m)
	env.mu.Unlock()
}

// Messages returns the messages received so far in this spec, by any
// client the spec made.
func (env *ServerEnv) Messages() []*client.Message {
	env.mu.Lock()
	defer env.mu.Unlock()
	return append([]*client.Message(nil), env.messages...)
}
