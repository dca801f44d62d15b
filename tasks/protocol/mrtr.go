package protocol

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcptasks/mcptasks/schema/v20260728"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// Multi-round-trip requests (2026-07-28): a tool's Prepare runs before
// anything else of a call and may answer that it needs input first. The
// core then answers the tools/call with an InputRequiredResult, and the
// client retries the same call with its answers and the requestState it
// was given. The state carries no authority on trust: it is sealed with
// an HMAC under a key of the Core, bound to the requestor, the tool, the
// arguments and a short expiry, and a retry whose state fails any of
// these checks is refused.

// ResultTypeInputRequired is the resultType of an InputRequiredResult.
const ResultTypeInputRequired = "input_required"

// DefaultRequestStateTTL is how long a requestState stays valid.
const DefaultRequestStateTTL = 10 * time.Minute

// InputRequired is the error a tool's Prepare returns to ask the client
// for input before the call goes on. In the 2026-07-28 profile it becomes
// an InputRequiredResult; when the call already runs as a task (either
// profile) each request is asked through the task instead (it goes
// input_required), and Prepare runs again with the answers.
type InputRequired struct {
	// Requests are the input requests by key: elicitation/create,
	// sampling/createMessage or roots/list, each needing the client
	// capability of its kind. Keys are the tool's choice and must be
	// unique within the call (they are, as map keys).
	Requests map[string]tasks.InputRequest
	// State is the tool's own state for the next round; Prepare gets it
	// back, verified, as ToolCall.State.
	State []byte
}

func (e *InputRequired) Error() string {
	keys := make([]string, 0, len(e.Requests))
	for k := range e.Requests {
		keys = append(keys, k)
	}
	return "the tool needs input first: " + strings.Join(keys, ", ")
}

// WithRequestStateKey sets the key requestState is sealed with. Instances
// of one deployment that share a store should share the key, so that a
// retry may reach any of them; by default each Core draws its own.
func WithRequestStateKey(key []byte) Option {
	return func(c *Core) {
		if len(key) > 0 {
			c.stateKey = append([]byte(nil), key...)
		}
	}
}

// sealedState is what a requestState carries.
type sealedState struct {
	Owner   string   `json:"o"`
	Tool    string   `json:"t"`
	Args    string   `json:"a"` // digest of the canonical arguments
	Expires int64    `json:"e"` // unix milliseconds
	Keys    []string `json:"k"` // the keys asked in the round
	State   []byte   `json:"s,omitempty"`
}

const stateMACLabel = "mcptasks requestState v1."

func newStateKey() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return k
}

// argsDigest hashes arguments after re-encoding them, so a client that
// reorders members or spacing on the retry still matches.
func argsDigest(args json.RawMessage) string {
	var v any
	canon := []byte(args)
	if json.Unmarshal(args, &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			canon = b
		}
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:])
}

func (c *Core) stateMAC(payload string) []byte {
	m := hmac.New(sha256.New, c.stateKey)
	m.Write([]byte(stateMACLabel))
	m.Write([]byte(payload))
	return m.Sum(nil)
}

// sealState encodes s as payload "." MAC, both base64url.
func (c *Core) sealState(s sealedState) (string, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return "", err
	}
	payload := base64.RawURLEncoding.EncodeToString(b)
	return payload + "." + base64.RawURLEncoding.EncodeToString(c.stateMAC(payload)), nil
}

// errBadState refuses a requestState that fails verification.
func errBadState(why string) error {
	return badParam(`"requestState" is not valid for this call (%s); retry without it to start over`, why)
}

// openState verifies a requestState for this requestor, tool and
// arguments, and returns what it carries.
func (c *Core) openState(token string, owner tasks.Owner, tool string, args json.RawMessage) (sealedState, error) {
	payload, mac, ok := strings.Cut(token, ".")
	if !ok {
		return sealedState{}, errBadState("malformed")
	}
	got, err := base64.RawURLEncoding.DecodeString(mac)
	if err != nil || !hmac.Equal(got, c.stateMAC(payload)) {
		return sealedState{}, errBadState("integrity check failed")
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return sealedState{}, errBadState("malformed")
	}
	var s sealedState
	if err := json.Unmarshal(b, &s); err != nil {
		return sealedState{}, errBadState("malformed")
	}
	switch {
	case s.Owner != string(owner):
		return sealedState{}, errBadState("issued to another requestor")
	case s.Tool != tool:
		return sealedState{}, errBadState("issued for another tool")
	case s.Args != argsDigest(args):
		return sealedState{}, errBadState("issued for other arguments")
	case c.engine.Config().Now().UnixMilli() > s.Expires:
		return sealedState{}, errBadState("expired")
	}
	return s, nil
}

// readRetry fills the InputResponses and State of a call from a retry's
// inputResponses and requestState. Answers count only under the keys the
// verified state says were asked; without a requestState nothing was
// asked by this core, so answers are ignored.
func (c *Core) readRetry(owner tasks.Owner, tc *ToolCall, rawResponses json.RawMessage, state *string) error {
	var answers map[string]json.RawMessage
	if len(rawResponses) > 0 && string(rawResponses) != "null" {
		if !IsObject(rawResponses) {
			return badParam(`"inputResponses" must be an object, got %s`, JSONType(rawResponses))
		}
		if err := json.Unmarshal(rawResponses, &answers); err != nil {
			return badParam(`"inputResponses": %s`, FieldError(err))
		}
		for k, v := range answers {
			if !IsObject(v) {
				return badParam(`"inputResponses[%q]" must be an object, got %s`, k, JSONType(v))
			}
		}
	}
	if state == nil {
		return nil
	}
	s, err := c.openState(*state, owner, tc.Name, tc.Arguments)
	if err != nil {
		return err
	}
	tc.State = s.State
	for _, k := range s.Keys {
		if v, ok := answers[k]; ok {
			if tc.InputResponses == nil {
				tc.InputResponses = map[string]json.RawMessage{}
			}
			tc.InputResponses[k] = v
		}
	}
	return nil
}

// safePrepare runs a tool's Prepare, turning a panic into an error.
func safePrepare(p func(context.Context, *ToolCall) error, ctx context.Context, tc *ToolCall) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errors.New("tool prepare panicked")
		}
	}()
	return p(ctx, tc)
}

// inputRequiredResult answers a call whose Prepare asked for input with
// an InputRequiredResult: the requests (each of a kind the request's
// capabilities declare) and a sealed requestState.
func (c *Core) inputRequiredResult(owner tasks.Owner, m modernMeta, tc *ToolCall, ir *InputRequired) (json.RawMessage, error) {
	reqs := make(map[string]json.RawMessage, len(ir.Requests))
	keys := make([]string, 0, len(ir.Requests))
	for k, r := range ir.Requests {
		if k == "" {
			return nil, rpcErr(wire.CodeInternalError, "internal error: the tool asked for input under an empty key")
		}
		if err := m.allowsInput(r.Method); err != nil {
			return nil, err
		}
		body, err := json.Marshal(map[string]json.RawMessage{"method": mustMarshal(r.Method), "params": r.Params})
		if len(r.Params) == 0 {
			body, err = json.Marshal(map[string]string{"method": r.Method})
		}
		if err != nil {
			return nil, fmt.Errorf("input request %q: %w", k, err)
		}
		reqs[k] = body
		keys = append(keys, k)
	}
	state, err := c.sealState(sealedState{
		Owner:   string(owner),
		Tool:    tc.Name,
		Args:    argsDigest(tc.Arguments),
		Expires: c.engine.Config().Now().Add(DefaultRequestStateTTL).UnixMilli(),
		Keys:    keys,
		State:   ir.State,
	})
	if err != nil {
		return nil, err
	}
	// requestState is always present, so the result never lacks both.
	out := map[string]any{"resultType": ResultTypeInputRequired, "requestState": state}
	if len(reqs) > 0 {
		out["inputRequests"] = reqs
	}
	b, err := json.Marshal(out)
	return b, err
}

// allowsInput refuses an input request of a kind the request's client
// capabilities do not declare, with -32021 naming what is missing.
func (m modernMeta) allowsInput(method string) error {
	var need string
	switch method {
	case wire.MethodElicitationCreate:
		if m.elicitForm() {
			return nil
		}
		need = `{"elicitation":{"form":{}}}`
	case "sampling/createMessage":
		if m.caps.Sampling != nil {
			return nil
		}
		need = `{"sampling":{}}`
	case "roots/list":
		if m.caps.Roots != nil {
			return nil
		}
		need = `{"roots":{}}`
	default:
		return rpcErr(wire.CodeInternalError, "internal error: the tool asked for input with "+method+", which is not an input request")
	}
	return &tasks.RPCError{Code: v20260728.CodeMissingRequiredClientCapability,
		Message: "the tool needs input through " + method + ", which the request's client capabilities do not declare",
		Data:    json.RawMessage(`{"requiredCapabilities":` + need + `}`)}
}

// prepareInTask runs a tool's Prepare inside its task: every input it
// asks for is asked through the task (all at once, so the task shows
// them together), and Prepare runs again with the answers until it is
// satisfied.
func prepareInTask(t tasks.TaskContext, p func(context.Context, *ToolCall) error, tc *ToolCall) error {
	for {
		err := safePrepare(p, t, tc)
		var ir *InputRequired
		if !errors.As(err, &ir) {
			return err
		}
		if len(ir.Requests) == 0 {
			return errors.New("the tool asked for input without any input request, which a task cannot serve")
		}
		type answer struct {
			key string
			raw json.RawMessage
			err error
		}
		// The first request that fails gives up on the others: the round
		// cannot be completed.
		ctx, giveUp := context.WithCancelCause(t)
		ch := make(chan answer, len(ir.Requests))
		for k, r := range ir.Requests {
			go func() {
				raw, err := t.RequireInput(ctx, r)
				if err != nil {
					giveUp(err)
				}
				ch <- answer{k, raw, err}
			}()
		}
		responses := make(map[string]json.RawMessage, len(ir.Requests))
		for range ir.Requests {
			if a := <-ch; a.err == nil {
				responses[a.key] = a.raw
			}
		}
		giveUp(nil)
		if err := context.Cause(ctx); err != nil && len(responses) < len(ir.Requests) {
			return err
		}
		tc.InputResponses, tc.State = responses, ir.State
	}
}
