package protocol

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// TimeLayout is how task timestamps appear on the wire: RFC 3339 in UTC
// with millisecond precision, e.g. 2025-11-25T10:30:00.000Z.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// FormatTime renders t as a wire timestamp.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// WireTask converts a tasks.Record to the wire Task: timestamps in RFC 3339 (UTC,
// milliseconds), ttl in milliseconds or null when unlimited, pollInterval
// in milliseconds (absent when zero).
func WireTask(r tasks.Record) schema.Task {
	t := schema.Task{
		TaskID:        r.ID,
		Status:        schema.TaskStatus(r.Status),
		CreatedAt:     FormatTime(r.CreatedAt),
		LastUpdatedAt: FormatTime(r.LastUpdatedAt),
	}
	if r.StatusMessage != "" {
		msg := r.StatusMessage
		t.StatusMessage = &msg
	}
	if r.TTL != nil {
		ms := r.TTL.Milliseconds()
		t.TTL = &ms
	}
	if r.PollInterval > 0 {
		ms := r.PollInterval.Milliseconds()
		t.PollInterval = &ms
	}
	return t
}

// WireGetResult is the tasks/get (and tasks/cancel) result for r: the Task
// with the task's variables as top-level entries of _meta. Variables whose
// names fall in a prefix reserved for MCP itself are left out, so they can
// never pose as protocol metadata.
func WireGetResult(r tasks.Record) schema.GetTaskResult {
	res := schema.GetTaskResult{Task: WireTask(r)}
	for k, v := range r.Variables {
		if ReservedMetaKey(k) {
			continue
		}
		if res.Meta == nil {
			res.Meta = make(schema.Meta, len(r.Variables))
		}
		res.Meta[k] = v
	}
	return res
}

// ReservedMetaKey reports whether a _meta key belongs to MCP: its prefix
// (the part before the last "/") has "modelcontextprotocol" or "mcp" as
// its second dot-separated label, as in io.modelcontextprotocol/.
func ReservedMetaKey(key string) bool {
	i := strings.LastIndexByte(key, '/')
	if i < 0 {
		return false
	}
	labels := strings.Split(key[:i], ".")
	return len(labels) >= 2 && (labels[1] == "modelcontextprotocol" || labels[1] == "mcp")
}

// RecordFromWire converts a wire Task back to the tasks.Record fields it
// carries (no owner, method, variables or outcome). It fails when a
// timestamp is not RFC 3339 or the status is unknown.
func RecordFromWire(t schema.Task) (tasks.Record, error) {
	r := tasks.Record{ID: t.TaskID, Status: tasks.Status(t.Status)}
	if !r.Status.Valid() {
		return tasks.Record{}, fmt.Errorf("%w: unknown task status %q", tasks.ErrInvalidParams, t.Status)
	}
	var err error
	if r.CreatedAt, err = time.Parse(time.RFC3339Nano, t.CreatedAt); err != nil {
		return tasks.Record{}, fmt.Errorf("%w: createdAt: %v", tasks.ErrInvalidParams, err)
	}
	if r.LastUpdatedAt, err = time.Parse(time.RFC3339Nano, t.LastUpdatedAt); err != nil {
		return tasks.Record{}, fmt.Errorf("%w: lastUpdatedAt: %v", tasks.ErrInvalidParams, err)
	}
	r.CreatedAt, r.LastUpdatedAt = r.CreatedAt.UTC(), r.LastUpdatedAt.UTC()
	if t.StatusMessage != nil {
		r.StatusMessage = *t.StatusMessage
	}
	if t.TTL != nil {
		ttl := time.Duration(*t.TTL) * time.Millisecond
		r.TTL = &ttl
		r.ExpiresAt = r.CreatedAt.Add(ttl)
	}
	if t.PollInterval != nil {
		r.PollInterval = time.Duration(*t.PollInterval) * time.Millisecond
	}
	return r, nil
}

// RPCCode maps an error from a Store or the engine to its JSON-RPC error
// code: -32602 for anything the requestor got wrong (unknown or expired
// task, bad cursor, move out of a terminal status, oversized variables,
// bad parameters), wire.CodeLimitExceeded for tasks.ErrLimit, -32603 for everything
// else.
func RPCCode(err error) int {
	var rpc *tasks.RPCError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &rpc):
		return int(rpc.Code)
	case errors.Is(err, tasks.ErrLimit):
		return wire.CodeLimitExceeded
	case errors.Is(err, tasks.ErrNotFound), errors.Is(err, tasks.ErrInvalidCursor),
		errors.Is(err, tasks.ErrInvalidTransition), errors.Is(err, tasks.ErrVariablesTooLarge),
		errors.Is(err, tasks.ErrInvalidParams), errors.Is(err, tasks.ErrNotReady):
		return wire.CodeInvalidParams
	default:
		return wire.CodeInternalError
	}
}
