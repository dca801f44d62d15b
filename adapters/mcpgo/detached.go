package mcpgo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// runDetached is the work of a task created for the tool name: the plain
// tools/call (without params.task) goes through mcp-go's HandleMessage on
// the task's context, which no HTTP request or stdio read owns, and the
// JSON-RPC message mcp-go answers becomes the task's outcome as it is: its
// result member, or its error.
func (a *Adapter) runDetached(name string) protocol.ToolHandler {
	return func(ctx context.Context, call *protocol.ToolCall) (json.RawMessage, error) {
		t := call.Task
		if t == nil {
			return nil, &tasks.RPCError{Code: wire.CodeInternalError, Message: "internal error: a task tool ran without its task"}
		}
		// The token lets the handler report progress the mcp-go way; the
		// task session turns it into the task's progress, sent under the
		// requestor's own token.
		params := map[string]any{
			"name":      name,
			"arguments": call.Arguments,
			"_meta":     map[string]any{"progressToken": t.TaskID()},
		}
		msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "task:" + t.TaskID(), "method": "tools/call", "params": params})
		if err != nil {
			return nil, err
		}
		ts := newTaskSession(a, t)
		defer ts.close()
		rctx := context.WithValue(ctx, taskKey, t)
		rctx = a.srv.WithContext(rctx, ts)
		return outcome(a.srv.HandleMessage(rctx, msg))
	}
}

// outcome turns mcp-go's answer into a task outcome.
func outcome(msg mcp.JSONRPCMessage) (json.RawMessage, error) {
	switch m := msg.(type) {
	case mcp.JSONRPCResponse:
		return json.Marshal(m.Result)
	case *mcp.JSONRPCResponse:
		return json.Marshal(m.Result)
	case mcp.JSONRPCError:
		return nil, rpcError(m.Error)
	case *mcp.JSONRPCError:
		return nil, rpcError(m.Error)
	case nil:
		return nil, errors.New("mcp-go sent no answer to the tool call")
	}
	return nil, fmt.Errorf("mcp-go answered the tool call with a %T", msg)
}

func rpcError(e mcp.JSONRPCErrorDetails) error {
	out := &tasks.RPCError{Code: int64(e.Code), Message: e.Message}
	if e.Data != nil {
		if b, err := json.Marshal(e.Data); err == nil {
			out.Data = b
		}
	}
	return out
}

// taskSession is the mcp-go session a task's handler sees. What the
// handler sends to "its client" goes through the task instead:
// notifications/progress become the task's progress, elicitations make the
// task input_required, and other notifications reach the owner's sessions.
type taskSession struct {
	a     *Adapter
	t     tasks.TaskContext
	ch    chan mcp.JSONRPCNotification
	done  chan struct{}
	ended chan struct{}
}

func newTaskSession(a *Adapter, t tasks.TaskContext) *taskSession {
	s := &taskSession{a: a, t: t, ch: make(chan mcp.JSONRPCNotification, 64), done: make(chan struct{}), ended: make(chan struct{})}
	go s.forward()
	return s
}

func (s *taskSession) close() {
	close(s.done)
	<-s.ended
}

// forward relays the handler's notifications until the handler returns,
// then drains what is left.
func (s *taskSession) forward() {
	defer close(s.ended)
	for {
		select {
		case n := <-s.ch:
			s.relay(n)
		case <-s.done:
			for {
				select {
				case n := <-s.ch:
					s.relay(n)
				default:
					return
				}
			}
		}
	}
}

func (s *taskSession) relay(n mcp.JSONRPCNotification) {
	if n.Method == "notifications/progress" {
		var p struct {
			Progress float64  `json:"progress"`
			Total    *float64 `json:"total"`
			Message  string   `json:"message"`
		}
		if b, err := json.Marshal(n.Params); err == nil && json.Unmarshal(b, &p) == nil {
			if err := s.t.Progress(tasks.Progress{Progress: p.Progress, Total: p.Total, Message: p.Message}); err != nil {
				s.a.log.Debug("mcpgo: task progress refused", "task", s.t.TaskID(), "err", err)
			}
		}
		return
	}
	b, err := json.Marshal(n.Params)
	if err != nil {
		return
	}
	var params map[string]any
	if json.Unmarshal(b, &params) != nil {
		return
	}
	for _, sess := range s.a.sessionsOf(s.t.Owner()) {
		_ = s.a.srv.SendNotificationToSpecificClient(sess, n.Method, params)
	}
}

// SessionID names the task, so mcp-go keeps its per-session state apart.
func (s *taskSession) SessionID() string { return "task:" + s.t.TaskID() }

// Initialize does nothing: the session exists for one task.
func (s *taskSession) Initialize() {}

// Initialized is always true, so mcp-go lets the handler notify.
func (s *taskSession) Initialized() bool { return true }

// NotificationChannel receives what the handler sends its client.
func (s *taskSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.ch }

// RequestElicitation asks the requestor through the task: the task turns
// input_required and the request reaches the owner on a tasks/result
// stream or the standalone stream.
func (s *taskSession) RequestElicitation(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	params, err := json.Marshal(req.Params)
	if err != nil {
		return nil, err
	}
	raw, err := s.t.RequireInput(ctx, tasks.InputRequest{Method: "elicitation/create", Params: params})
	if err != nil {
		return nil, err
	}
	var res mcp.ElicitationResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("mcpgo: the elicitation answer is not an ElicitResult: %w", err)
	}
	return &res, nil
}

var _ server.SessionWithElicitation = (*taskSession)(nil)

// sessionsOf returns the ids of owner's sessions.
func (a *Adapter) sessionsOf(owner tasks.Owner) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var ids []string
	for id, s := range a.sessions {
		if s.owner == owner {
			ids = append(ids, id)
		}
	}
	return ids
}
