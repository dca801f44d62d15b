package app

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Tool names of the example. The conformance suite finds them through
// Fixtures, which maps its fixture roles to these names.
const (
	ToolSleep         = "sleep"
	ToolSleepRequired = "sleep_required"
	ToolEcho          = "echo"
	ToolFail          = "fail"
	ToolBreak         = "break"
	ToolAsk           = "ask"
	ToolSteps         = "steps"
)

// Fixtures maps the suite's fixture roles to the example's tools (the
// --fixture flags of the conformance command).
var Fixtures = map[string]string{
	"sleep":          ToolSleep,
	"sleep_required": ToolSleepRequired,
	"forbidden":      ToolEcho,
	"tool_error":     ToolFail,
	"rpc_error":      ToolBreak,
	"input":          ToolAsk,
	"progress":       ToolSteps,
}

// toolDef is one tool of the example: plain mcp-go, plus whether it may
// ("optional") or must ("required") run as a task.
type toolDef struct {
	tool    mcp.Tool
	support mcp.TaskSupport
	handler server.ToolHandlerFunc
}

const maxMillis = 600000

func msOption() mcp.ToolOption {
	return mcp.WithInteger("ms", mcp.Description("how long to run, in milliseconds"), mcp.Min(0), mcp.Max(maxMillis))
}

func tools(srv *server.MCPServer) []toolDef {
	return []toolDef{
		{mcp.NewTool(ToolSleep, mcp.WithDescription("Waits ms milliseconds, then succeeds. May run as a task."), msOption()),
			mcp.TaskSupportOptional, sleepTool},
		{mcp.NewTool(ToolSleepRequired, mcp.WithDescription("Waits ms milliseconds, then succeeds. Must run as a task."), msOption()),
			mcp.TaskSupportRequired, sleepTool},
		{mcp.NewTool(ToolEcho, mcp.WithDescription("Returns its text at once. Never runs as a task."), mcp.WithString("text")),
			"", func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("echo: " + req.GetString("text", "")), nil
			}},
		{mcp.NewTool(ToolFail, mcp.WithDescription("Waits ms milliseconds, then returns a tool error (isError)."), msOption()),
			mcp.TaskSupportOptional, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				ms, bad := millis(req)
				if bad != nil {
					return bad, nil
				}
				if err := sleep(ctx, ms); err != nil {
					return nil, err
				}
				return mcp.NewToolResultError(fmt.Sprintf("fail: a deliberate tool error after %d ms", ms)), nil
			}},
		{mcp.NewTool(ToolBreak, mcp.WithDescription("Waits ms milliseconds, then ends in a JSON-RPC error."), msOption()),
			mcp.TaskSupportOptional, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				ms, bad := millis(req)
				if bad != nil {
					return bad, nil
				}
				if err := sleep(ctx, ms); err != nil {
					return nil, err
				}
				return nil, fmt.Errorf("break: a deliberate JSON-RPC error after %d ms", ms)
			}},
		{mcp.NewTool(ToolAsk, mcp.WithDescription("Asks the requestor a question (form elicitation) and returns the answer. Must run as a task."),
			mcp.WithString("question", mcp.Required())),
			mcp.TaskSupportRequired, askTool(srv)},
		{mcp.NewTool(ToolSteps, mcp.WithDescription("Runs ms milliseconds in steps, reporting progress after each."), msOption(),
			mcp.WithInteger("steps", mcp.Min(1), mcp.Max(1000))),
			mcp.TaskSupportOptional, stepsTool(srv)},
	}
}

// millis reads the ms argument; a bad one is answered as a tool error.
func millis(req mcp.CallToolRequest) (int64, *mcp.CallToolResult) {
	v, ok := req.GetArguments()["ms"]
	if !ok || v == nil {
		return 0, nil
	}
	f, isNum := v.(float64)
	if !isNum || f != math.Trunc(f) || f < 0 || f > maxMillis {
		return 0, mcp.NewToolResultError(fmt.Sprintf(`"ms" must be an integer from 0 to %d, got %v`, maxMillis, v))
	}
	return int64(f), nil
}

func sleep(ctx context.Context, ms int64) error {
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func sleepTool(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	ms, bad := millis(req)
	if bad != nil {
		return bad, nil
	}
	if err := sleep(ctx, ms); err != nil {
		return nil, err
	}
	return mcp.NewToolResultStructured(map[string]int64{"ms": ms}, fmt.Sprintf("slept %d ms", ms)), nil
}

// stepsTool reports progress the mcp-go way; inside a task the adapter
// turns it into the task's progress.
func stepsTool(srv *server.MCPServer) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ms, bad := millis(req)
		if bad != nil {
			return bad, nil
		}
		steps := int64(req.GetFloat("steps", 3))
		if steps < 1 || steps > 1000 {
			return mcp.NewToolResultError(`"steps" must be an integer from 1 to 1000`), nil
		}
		var token mcp.ProgressToken
		if m := req.Params.Meta; m != nil {
			token = m.ProgressToken
		}
		for i := int64(1); i <= steps; i++ {
			if err := sleep(ctx, ms/steps); err != nil {
				return nil, err
			}
			if token != nil {
				_ = srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
					"progressToken": token, "progress": i, "total": steps, "message": fmt.Sprintf("step %d of %d", i, steps)})
			}
		}
		return mcp.NewToolResultStructured(map[string]int64{"steps": steps, "ms": ms}, fmt.Sprintf("completed %d steps in %d ms", steps, ms)), nil
	}
}

// askTool asks through mcp-go's RequestElicitation; inside a task the
// adapter makes the task input_required until the requestor answers.
func askTool(srv *server.MCPServer) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		q := req.GetString("question", "")
		if q == "" {
			return mcp.NewToolResultError(`"question" is required and must be a non-empty string`), nil
		}
		res, err := srv.RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{
			Message: q,
			RequestedSchema: map[string]any{"type": "object",
				"properties": map[string]any{"answer": map[string]any{"type": "string", "description": "your answer"}},
				"required":   []string{"answer"}},
		}})
		if err != nil {
			return nil, fmt.Errorf("ask: %w", err)
		}
		if res == nil {
			return nil, errors.New("ask: no answer")
		}
		if res.Action != mcp.ElicitationResponseActionAccept {
			return mcp.NewToolResultStructured(map[string]string{"action": string(res.Action)}, "no answer: the requestor chose "+string(res.Action)), nil
		}
		answer := ""
		if m, ok := res.Content.(map[string]any); ok {
			answer, _ = m["answer"].(string)
		}
		return mcp.NewToolResultStructured(map[string]string{"action": string(res.Action), "answer": answer}, "answer: "+answer), nil
	}
}
