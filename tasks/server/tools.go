package server

import "github.com/mcptasks/mcptasks/tasks/protocol"

// The tool types of the server are those of the protocol core; they are
// aliased here so code written against tasks/server keeps compiling.
type (
	// TaskSupport: see protocol.TaskSupport.
	TaskSupport = protocol.TaskSupport
	// ToolCall: see protocol.ToolCall.
	ToolCall = protocol.ToolCall
	// ToolHandler: see protocol.ToolHandler.
	ToolHandler = protocol.ToolHandler
	// Tool: see protocol.Tool.
	Tool = protocol.Tool
	// Registry: see protocol.Registry.
	Registry = protocol.Registry
)

// The task support levels (see protocol.TaskForbidden and the others).
const (
	TaskForbidden = protocol.TaskForbidden
	TaskOptional  = protocol.TaskOptional
	TaskRequired  = protocol.TaskRequired
)

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return protocol.NewRegistry() }
