// Package mcpgo puts mcptasks tasks into a server built on
// github.com/mark3labs/mcp-go, in place of mcp-go's own task support.
//
// mcp-go keeps its tasks in a private in-memory map, runs task work on the
// context of the request that created it and cannot be given another
// store. The Adapter therefore sits in front of mcp-go instead of inside
// it: an http.Handler wrapped around *server.StreamableHTTPServer, and a
// filter on the reader and writer given to StdioServer.Listen. It answers
// tasks/get, tasks/result, tasks/list and tasks/cancel from a tasks.Engine
// (any tasks.Store) through the transport-neutral core in tasks/protocol,
// turns a tools/call that carries params.task into a task, and runs the
// real call afterwards through MCPServer.HandleMessage on a context that no
// request owns, storing the JSON-RPC answer as the task's outcome.
// Everything else (initialize, prompts, resources, plain tool calls) goes
// to mcp-go unchanged; two mcp-go hooks add the tasks capability to the
// initialize result and execution.taskSupport to tools/list.
//
// Inside a task, a tool handler keeps using mcp-go's own calls: progress
// sent with SendNotificationToClient and elicitations sent with
// RequestElicitation are routed through the task (progress under the
// requestor's token, the elicitation as input_required). TaskFromContext
// gives the handler the task itself (variables, progress, input).
package mcpgo
