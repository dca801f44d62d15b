// Package protocol is the transport-neutral core of MCP 2025-11-25 tasks.
//
// It knows what the tasks feature means on the wire but not how bytes
// move: task-augmented tools/call and the taskSupport rules of a tool
// registry, tasks/get, tasks/result, tasks/list and tasks/cancel, ttl
// parsing, related-task metadata, JSON-RPC error codes, the tasks
// capability and the execution.taskSupport member of tools/list, status
// notifications to the owner's sessions only, progress, and the requests a
// task sends its requestor while it is input_required.
//
// A transport (tasks/server speaks Streamable HTTP and stdio) or an SDK
// adapter does three things with a Core:
//
//   - it tells the core about its sessions (AddSession, RemoveSession), so
//     status notifications and input requests reach the right requestor;
//   - it passes each request of a method Handles reports to Handle, with a
//     Caller (owner, session, the request's own stream) and the raw params,
//     and sends back the raw result or WireError of the error;
//   - it passes each JSON-RPC response a client sends to Respond.
//
// A transport without an MCP layer of its own answers initialize with
// Initialize; one that has (an SDK) patches the marshalled initialize and
// tools/list results with PatchInitialize and PatchToolsList. The package
// imports no transport and no SDK.
package protocol
