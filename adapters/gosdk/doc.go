// Package gosdk adds MCP 2025-11-25 tasks to a server built on the
// official Go SDK (github.com/modelcontextprotocol/go-sdk), with tasks kept
// in any tasks.Store of this toolkit (memory, SQLite, PostgreSQL, Redis,
// DynamoDB, or a store of your own).
//
// Install registers the tasks/* methods as custom methods of the
// *mcp.Server and a receiving middleware that runs task-augmented
// tools/call through the transport-neutral core (tasks/protocol), adds
// capabilities.tasks to the initialize result and execution.taskSupport
// to tools/list. AddTool adds a tool with a typed handler that gets the
// task (variables, progress, input, failure) when it runs as one.
//
// The SDK drops params.task from tools/call before any hook sees it, so
// the server must be served through the adapter: Handler in front of
// mcp.NewStreamableHTTPHandler, and Connect or Run for stdio and other
// transports.
//
// What the SDK cannot do, and what the adapter does instead:
//   - it has no API for server-initiated custom notifications, so
//     notifications/tasks/status go out only on connections served with
//     Connect or Run (stdio); over Streamable HTTP none are sent, which
//     the specification allows (they are optional), and clients poll
//     tasks/get;
//   - it owns initialize and tools/list, so the adapter patches their
//     encoded results instead of re-modelling them.
package gosdk
