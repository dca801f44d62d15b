package suites

// httpOnly lists the requirements that are rules of the Streamable HTTP
// transport itself (status codes, headers, sessions, event streams).
// Against a server reached over stdio they are not-applicable; every
// other requirement is judged over either transport.
var httpOnly = map[string]bool{
	"TASKS-XPORT-004": true, // Origin header
	"TASKS-XPORT-008": true, // 202 for notifications
	"TASKS-XPORT-009": true, // HTTP error for an invalid body
	"TASKS-XPORT-010": true, // media type of answers
	"TASKS-XPORT-021": true, // a dropped HTTP connection is no cancellation
	"TASKS-XPORT-023": true, // GET stream or 405
	"TASKS-XPORT-026": true, // no responses on the GET stream
	"TASKS-XPORT-027": true, // one SSE stream per server request
	"TASKS-XPORT-028": true, // SSE event ids
	"TASKS-XPORT-034": true, // Mcp-Session-Id per session
	"TASKS-XPORT-035": true, // Mcp-Session-Id characters
	"TASKS-XPORT-038": true, // 400 without a session id
	"TASKS-XPORT-040": true, // 404 on an ended session
	"TASKS-XPORT-046": true, // no MCP-Protocol-Version header
	"TASKS-XPORT-047": true, // bad MCP-Protocol-Version header
	"TASKS-INPUT-002": true, // tasks/get as JSON rather than SSE
}

// HTTPOnly reports whether requirement id is a rule of the Streamable HTTP
// transport, not-applicable to a server spoken to over stdio.
func HTTPOnly(id string) bool { return httpOnly[id] }
