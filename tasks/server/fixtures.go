package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// Fixture tool names: the tools a server under test exposes so that every
// conformance spec can run (docs/conformance.md lists them and what
// each one does; docs/server.md shows how taskserver exposes them). Each
// is the default tool of the suites fixture role of the same stem
// (suites.FixtureSleep is the role, FixtureSleepTool the tool that plays
// it here).
const (
	FixtureSleepTool         = "fixture_sleep"
	FixtureSleepRequiredTool = "fixture_sleep_required"
	FixtureForbiddenTool     = "fixture_forbidden"
	FixtureToolErrorTool     = "fixture_tool_error"
	FixtureRPCErrorTool      = "fixture_rpc_error"
	FixtureInputTool         = "fixture_input"
	FixtureProgressTool      = "fixture_progress"
	FixtureInputMultiTool    = "fixture_input_multi"
	FixtureMRTRThenTaskTool  = "fixture_mrtr_then_task"
)

// Limits of fixture arguments.
const (
	maxFixtureMillis = 10 * 60 * 1000
	maxFixtureSteps  = 1000
	maxQuestionBytes = 4096
)

// FixtureRPCErrorCode is the JSON-RPC error code fixture_rpc_error ends
// with (an implementation-defined server error).
const FixtureRPCErrorCode = -32000

const msSchema = `{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"maximum":600000,"description":"how long to run, in milliseconds"}}}`

// Fixtures returns the fixture tools. Every result is a deterministic
// function of the arguments (and, for fixture_input, of the answer);
// every wait ends early when the call or task is cancelled.
func Fixtures() []Tool {
	return []Tool{
		{Name: FixtureSleepTool, Description: "Sleeps for ms milliseconds, then succeeds. Task support optional.",
			InputSchema: json.RawMessage(msSchema), TaskSupport: TaskOptional, Validate: validateMs, Handler: sleepHandler},
		{Name: FixtureSleepRequiredTool, Description: "Sleeps for ms milliseconds, then succeeds. Must run as a task.",
			InputSchema: json.RawMessage(msSchema), TaskSupport: TaskRequired, Validate: validateMs, Handler: sleepHandler},
		{Name: FixtureForbiddenTool, Description: "Succeeds at once. Must not run as a task.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{}}`), TaskSupport: TaskForbidden,
			Handler: func(context.Context, *ToolCall) (json.RawMessage, error) {
				return textResult("fixture_forbidden ran", nil, false), nil
			}},
		{Name: FixtureToolErrorTool, Description: "Sleeps for ms milliseconds, then returns a tool result with isError true.",
			InputSchema: json.RawMessage(msSchema), TaskSupport: TaskOptional, Validate: validateMs,
			Handler: func(ctx context.Context, c *ToolCall) (json.RawMessage, error) {
				ms, _ := fixtureMs(c.Arguments)
				if err := sleep(ctx, ms); err != nil {
					return nil, err
				}
				return textResult(fmt.Sprintf("fixture_tool_error: deliberate tool failure after %d ms", ms), nil, true), nil
			}},
		{Name: FixtureRPCErrorTool, Description: "Sleeps for ms milliseconds, then fails with a JSON-RPC error.",
			InputSchema: json.RawMessage(msSchema), TaskSupport: TaskOptional, Validate: validateMs,
			Handler: func(ctx context.Context, c *ToolCall) (json.RawMessage, error) {
				ms, _ := fixtureMs(c.Arguments)
				if err := sleep(ctx, ms); err != nil {
					return nil, err
				}
				return nil, &tasks.RPCError{Code: FixtureRPCErrorCode,
					Message: fmt.Sprintf("fixture_rpc_error: deliberate JSON-RPC error after %d ms", ms),
					Data:    json.RawMessage(`{"ms":` + strconv.FormatInt(ms, 10) + `}`)}
			}},
		{Name: FixtureInputTool, Description: "Asks the requestor a question through a form elicitation, then returns the answer. Must run as a task.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"question":{"type":"string"}},"required":["question"]}`),
			TaskSupport: TaskRequired, Validate: validateQuestion, Handler: inputHandler},
		{Name: FixtureInputMultiTool, Description: "Asks the requestor two questions at once (two form elicitations outstanding together), then returns both answers. Must run as a task.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"question":{"type":"string"}},"required":["question"]}`),
			TaskSupport: TaskRequired, Validate: validateQuestion, Handler: inputMultiHandler},
		{Name: FixtureMRTRThenTaskTool, Description: "Asks the requestor a question before any task exists (a 2026-07-28 multi-round-trip tools/call answered with an InputRequiredResult), then runs as a task that returns the answer. Must run as a task.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"question":{"type":"string"}},"required":["question"]}`),
			TaskSupport: TaskRequired, Validate: validateQuestion, Prepare: mrtrPrepare, Handler: mrtrHandler},
		{Name: FixtureProgressTool, Description: "Runs for ms milliseconds in steps, reporting progress after each step.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"maximum":600000},"steps":{"type":"integer","minimum":1,"maximum":1000}}}`),
			TaskSupport: TaskOptional, Validate: validateProgress, Handler: progressHandler},
	}
}

type fixtureArgs struct {
	MS       *json.Number `json:"ms"`
	Steps    *json.Number `json:"steps"`
	Question *string      `json:"question"`
}

func decodeFixture(args json.RawMessage) (fixtureArgs, error) {
	var a fixtureArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return a, errors.New(protocol.FieldError(err))
	}
	return a, nil
}

func intArg(n *json.Number, name string, def, lo, hi int64) (int64, error) {
	if n == nil {
		return def, nil
	}
	v, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil || v < lo || v > hi {
		return 0, fmt.Errorf("%q must be an integer from %d to %d, got %s", name, lo, hi, n.String())
	}
	return v, nil
}

func fixtureMs(args json.RawMessage) (int64, error) {
	if ms, ok := plainMs(args); ok {
		return ms, nil
	}
	a, err := decodeFixture(args)
	if err != nil {
		return 0, err
	}
	return intArg(a.MS, "ms", 0, 0, maxFixtureMillis)
}

// plainMs reads arguments of exactly the form {"ms":N} or {}, the ones
// load generators send, without the reflection of encoding/json; N must
// be a plain decimal integer within the fixture's range. ok is false for
// anything else, which then takes the general path (and its errors).
func plainMs(args json.RawMessage) (int64, bool) {
	if string(args) == "{}" {
		return 0, true
	}
	const prefix = `{"ms":`
	if len(args) < len(prefix)+2 || len(args) > len(prefix)+10 || string(args[:len(prefix)]) != prefix || args[len(args)-1] != '}' {
		return 0, false
	}
	digits := args[len(prefix) : len(args)-1]
	if len(digits) > 1 && digits[0] == '0' {
		return 0, false
	}
	var ms int64
	for _, d := range digits {
		if d < '0' || d > '9' {
			return 0, false
		}
		ms = ms*10 + int64(d-'0')
	}
	if ms > maxFixtureMillis {
		return 0, false
	}
	return ms, true
}

func validateMs(args json.RawMessage) error {
	_, err := fixtureMs(args)
	return err
}

func validateQuestion(args json.RawMessage) error {
	a, err := decodeFixture(args)
	if err != nil {
		return err
	}
	if a.Question == nil || *a.Question == "" {
		return errors.New(`"question" is required and must be a non-empty string`)
	}
	if len(*a.Question) > maxQuestionBytes {
		return fmt.Errorf(`"question" must be at most %d bytes`, maxQuestionBytes)
	}
	return nil
}

func progressArgs(args json.RawMessage) (ms, steps int64, err error) {
	a, err := decodeFixture(args)
	if err != nil {
		return 0, 0, err
	}
	if ms, err = intArg(a.MS, "ms", 0, 0, maxFixtureMillis); err != nil {
		return 0, 0, err
	}
	steps, err = intArg(a.Steps, "steps", 3, 1, maxFixtureSteps)
	return ms, steps, err
}

func validateProgress(args json.RawMessage) error {
	_, _, err := progressArgs(args)
	return err
}

// sleep waits ms milliseconds or until ctx ends.
func sleep(ctx context.Context, ms int64) error {
	if ms <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// textResult builds a CallToolResult with one text block.
func textResult(text string, structured any, isError bool) json.RawMessage {
	var block schema.ContentBlock
	_ = block.FromTextContent(schema.TextContent{Type: "text", Text: text})
	res := schema.CallToolResult{Content: []schema.ContentBlock{block}}
	if structured != nil {
		b, err := json.Marshal(structured)
		if err == nil {
			res.StructuredContent = b
		}
	}
	if isError {
		t := true
		res.IsError = &t
	}
	b, _ := json.Marshal(res)
	return b
}

func sleepHandler(ctx context.Context, c *ToolCall) (json.RawMessage, error) {
	ms, err := fixtureMs(c.Arguments)
	if err != nil {
		return nil, err
	}
	if err := sleep(ctx, ms); err != nil {
		return nil, err
	}
	return sleptResult(ms), nil
}

// sleptResult is textResult(fmt.Sprintf("slept %d ms", ms),
// map[string]int64{"ms": ms}, false), written directly: the text holds
// only ASCII letters, digits and spaces, so it needs no escaping
// (TestSleptResultMatchesEncodingJSON proves the bytes equal).
func sleptResult(ms int64) json.RawMessage {
	b := make([]byte, 0, 96)
	b = append(b, `{"content":[{"text":"slept `...)
	b = strconv.AppendInt(b, ms, 10)
	b = append(b, ` ms","type":"text"}],"structuredContent":{"ms":`...)
	b = strconv.AppendInt(b, ms, 10)
	return append(b, "}}"...)
}

func progressHandler(ctx context.Context, c *ToolCall) (json.RawMessage, error) {
	ms, steps, err := progressArgs(c.Arguments)
	if err != nil {
		return nil, err
	}
	total := float64(steps)
	for i := int64(1); i <= steps; i++ {
		if err := sleep(ctx, ms/steps); err != nil {
			return nil, err
		}
		_ = c.Progress(tasks.Progress{Progress: float64(i), Total: &total, Message: fmt.Sprintf("step %d of %d", i, steps)})
	}
	return textResult(fmt.Sprintf("completed %d steps in %d ms", steps, ms), map[string]int64{"steps": steps, "ms": ms}, false), nil
}

// answerSchema is the form fixture_input asks the requestor to fill.
const answerSchema = `{"type":"object","properties":{"answer":{"type":"string","description":"your answer"}},"required":["answer"]}`

// askRequest is the form elicitation the input fixtures send for
// question.
func askRequest(question string) (tasks.InputRequest, error) {
	p := schema.ElicitRequestFormParams{Message: question}
	if err := json.Unmarshal([]byte(answerSchema), &p.RequestedSchema); err != nil {
		return tasks.InputRequest{}, err
	}
	params, err := json.Marshal(p)
	if err != nil {
		return tasks.InputRequest{}, err
	}
	return tasks.InputRequest{Method: wire.MethodElicitationCreate, Params: params}, nil
}

// readAnswer reads an elicitation answer: its action and, when accepted,
// the answer field.
func readAnswer(raw json.RawMessage) (schema.ElicitResultAction, string, error) {
	var res schema.ElicitResult
	if err := json.Unmarshal(raw, &res); err != nil || !res.Action.Valid() {
		return "", "", &tasks.RPCError{Code: wire.CodeInvalidParams, Message: "the elicitation answer is not a valid ElicitResult"}
	}
	var answer string
	if v, ok := res.Content["answer"]; ok && res.Action == schema.ElicitResultActionAccept {
		_ = json.Unmarshal(v.Raw(), &answer)
	}
	return res.Action, answer, nil
}

// answerResult is the result of an input fixture for one answer.
func answerResult(action schema.ElicitResultAction, answer string) json.RawMessage {
	if action != schema.ElicitResultActionAccept {
		return textResult(fmt.Sprintf("no answer: the requestor chose %s", action), map[string]string{"action": string(action)}, false)
	}
	return textResult("answer: "+answer, map[string]string{"action": string(action), "answer": answer}, false)
}

func inputHandler(ctx context.Context, c *ToolCall) (json.RawMessage, error) {
	a, err := decodeFixture(c.Arguments)
	if err != nil || a.Question == nil {
		return nil, errors.New("fixture_input needs a question")
	}
	if c.Task == nil {
		return nil, &tasks.RPCError{Code: wire.CodeMethodNotFound, Message: "fixture_input must run as a task"}
	}
	req, err := askRequest(*a.Question)
	if err != nil {
		return nil, err
	}
	raw, err := c.Task.RequireInput(ctx, req)
	if err != nil {
		return nil, err
	}
	action, answer, err := readAnswer(raw)
	if err != nil {
		return nil, err
	}
	return answerResult(action, answer), nil
}

// inputMultiHandler asks "question (1 of 2)" and "question (2 of 2)" at
// the same time and returns both answers once both came.
func inputMultiHandler(ctx context.Context, c *ToolCall) (json.RawMessage, error) {
	a, err := decodeFixture(c.Arguments)
	if err != nil || a.Question == nil {
		return nil, errors.New("fixture_input_multi needs a question")
	}
	if c.Task == nil {
		return nil, &tasks.RPCError{Code: wire.CodeMethodNotFound, Message: "fixture_input_multi must run as a task"}
	}
	var wg sync.WaitGroup
	answers := make([]string, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() {
			req, err := askRequest(fmt.Sprintf("%s (%d of 2)", *a.Question, i+1))
			if err != nil {
				errs[i] = err
				return
			}
			raw, err := c.Task.RequireInput(ctx, req)
			if err != nil {
				errs[i] = err
				return
			}
			action, answer, err := readAnswer(raw)
			if err == nil && action != schema.ElicitResultActionAccept {
				answer = "(" + string(action) + ")"
			}
			answers[i], errs[i] = answer, err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return textResult("answers: "+answers[0]+", "+answers[1], map[string]string{"first": answers[0], "second": answers[1]}, false), nil
}

// mrtrKey is the input request key of fixture_mrtr_then_task.
const mrtrKey = "answer"

// mrtrPrepare asks the question until the retry carries an answer to it.
func mrtrPrepare(_ context.Context, c *ToolCall) error {
	a, err := decodeFixture(c.Arguments)
	if err != nil || a.Question == nil {
		return errors.New("fixture_mrtr_then_task needs a question")
	}
	if raw, ok := c.InputResponses[mrtrKey]; ok {
		if _, _, err := readAnswer(raw); err == nil {
			return nil
		}
	}
	req, err := askRequest(*a.Question)
	if err != nil {
		return err
	}
	return &protocol.InputRequired{Requests: map[string]tasks.InputRequest{mrtrKey: req}}
}

// mrtrHandler runs as the task created once mrtrPrepare had its answer
// and returns that answer.
func mrtrHandler(ctx context.Context, c *ToolCall) (json.RawMessage, error) {
	action, answer, err := readAnswer(c.InputResponses[mrtrKey])
	if err != nil {
		return nil, err
	}
	if err := sleep(ctx, 100); err != nil {
		return nil, err
	}
	return answerResult(action, answer), nil
}
