package suites

// Sections used only by the server requirements.
const (
	secLifecycle  = "basic/lifecycle.mdx"
	secTransports = "basic/transports.mdx § Streamable HTTP"
	secIndex      = "basic/index.mdx § Messages"
	secTools      = "server/tools.mdx"
	secProgress   = "basic/utilities/progress.mdx"
	secElicit     = "client/elicitation.mdx"
	secWire       = "schema.json#/$defs/"
	secServer     = "mcptasks reference server contract"
)

// serverRequirements are the requirements only live-server specs test.
// An id defined in storeRequirements is never repeated here; server specs
// reuse those ids when they check the same rule over the wire. Summaries
// are our own wording.
var serverRequirements = []Requirement{
	// Handshake and capabilities.
	{ID: "TASKS-INIT-003", Level: LevelMust, Section: secLifecycle + " § Initialization", Feature: "core", Summary: "The initialize answer names the protocol version, the server's capabilities and its implementation."},
	{ID: "TASKS-INIT-009", Level: LevelMust, Section: secLifecycle + " § Version Negotiation", Feature: "core", Summary: "A server that supports the version the client proposes answers with that same version."},
	{ID: "TASKS-INIT-010", Level: LevelMust, Section: secLifecycle + " § Version Negotiation", Feature: "core", Summary: "A proposal the server cannot support is answered with a version it does support, not refused."},
	{ID: "TASKS-INIT-011", Level: LevelShould, Section: secLifecycle + " § Version Negotiation", Feature: "core", Summary: "The fallback version offered is the newest one the server knows."},
	{ID: "TASKS-CAP-001", Level: LevelMust, Section: secTasks + " § Capabilities", Feature: "core", Summary: "A server that creates tasks for tool calls says so under capabilities.tasks.requests.tools.call."},
	{ID: "TASKS-WIRE-SCAP-001", Level: LevelMust, Section: secWire + "ServerCapabilities", Feature: "core", Summary: "Each tasks capability flag (list, cancel, requests.tools.call) is an object whose presence means support."},
	{ID: "TASKS-TOOLDEF-001", Level: LevelMust, Section: secTools + " § Capabilities", Feature: "core", Summary: "A server offering task-augmented tools also declares the tools capability."},
	{ID: "TASKS-XPORT-008", Level: LevelMust, Section: secTransports + " › Sending Messages to the Server", Feature: "core", Summary: "A notification the server accepts gets HTTP 202 with an empty body."},
	{ID: "TASKS-XPORT-010", Level: LevelMust, Section: secTransports + " › Sending Messages to the Server", Feature: "core", Summary: "A posted request is answered as application/json or as text/event-stream."},
	{ID: "TASKS-XPORT-023", Level: LevelMust, Section: secTransports + " › Listening for Messages from the Server", Feature: "core", Summary: "A GET on the endpoint opens an event stream or is refused with HTTP 405."},
	{ID: "TASKS-XPORT-035", Level: LevelMust, Section: secTransports + " › Session Management", Feature: "core", Summary: "Session ids use visible ASCII characters only."},
	{ID: "TASKS-XPORT-047", Level: LevelMust, Section: secTransports + " › Protocol Version Header", Feature: "core", Summary: "A request naming an unknown or malformed protocol version in its header is refused with HTTP 400."},

	{ID: "TASKS-XPORT-001", Level: LevelMust, Section: "basic/transports.mdx", Feature: "core", Summary: "Messages are UTF-8 encoded."},
	{ID: "TASKS-XPORT-028", Level: LevelMust, Section: secTransports + " › Resumability and Redelivery", Feature: "core", Summary: "SSE event ids, when present, are never reused within a session."},
	{ID: "TASKS-XPORT-004", Level: LevelMust, Section: secTransports + " › Security Warning", Feature: "core", Summary: "A request carrying an Origin the server does not accept gets HTTP 403."},
	{ID: "TASKS-INIT-001", Level: LevelMust, Section: secLifecycle + " § Initialization", Feature: "core", Summary: "Nothing but initialize opens a connection: earlier task requests are turned away."},
	{ID: "TASKS-XPORT-009", Level: LevelMust, Section: secTransports + " › Sending Messages to the Server", Feature: "core", Summary: "A posted notification or response the server does not accept is refused with an HTTP error status, not a 2xx."},
	{ID: "TASKS-XPORT-021", Level: LevelShould, Section: secTransports + " › Sending Messages to the Server", Feature: "core", Summary: "A dropped connection is not taken as a cancellation: the task keeps running."},
	{ID: "TASKS-XPORT-026", Level: LevelMust, Section: secTransports + " › Listening for Messages from the Server", Feature: "core", Summary: "Outside resumption, the GET stream never carries a JSON-RPC response."},
	{ID: "TASKS-XPORT-038", Level: LevelShould, Section: secTransports + " › Session Management", Feature: "core", Summary: "A server that hands out session ids answers requests missing one with HTTP 400."},
	{ID: "TASKS-XPORT-040", Level: LevelMust, Section: secTransports + " › Session Management", Feature: "core", Summary: "Once a session has been ended, requests naming it get HTTP 404."},

	// Tool negotiation.
	{ID: "TASKS-WIRE-TOOLEXEC-001", Level: LevelMust, Section: secWire + "ToolExecution", Feature: "core", Summary: "A tool's execution.taskSupport, when given, is forbidden, optional or required."},
	{ID: "TASKS-TOOLNEG-003", Level: LevelShould, Section: secTasks + " § Tool-Level Negotiation", Feature: "core", Summary: "Asking for a task on a tool without task support is answered with -32601."},
	{ID: "TASKS-TOOLNEG-004", Level: LevelMay, Section: secTasks + " § Tool-Level Negotiation", Feature: "core", Summary: "A tool with optional task support works both as a plain call and as a task."},
	{ID: "TASKS-TOOLNEG-006", Level: LevelMust, Section: secTasks + " § Tool-Level Negotiation", Feature: "core", Summary: "Calling a tool that requires tasks without one is refused with -32601; -32600 is reported as its own finding."},
	{ID: "TASKS-HANDLE-001", Level: LevelMust, Section: secTasks + " § Task Support and Handling", Feature: "core", Summary: "A request type that is not task-augmentable is processed normally even if it carries a task member."},
	{ID: "TASKS-TOOLDEF-006", Level: LevelShould, Section: secTools + " § Error Handling", Feature: "core", Summary: "A call to an unknown tool is a protocol error, even when it asks for a task."},

	{ID: "TASKS-TOOLDEF-002", Level: LevelMust, Section: secTools + " § Tool", Feature: "core", Summary: "Every listed tool is well formed and has an input schema object."},
	{ID: "TASKS-TOOLDEF-007", Level: LevelMust, Section: secTools + " § Security Considerations", Feature: "core", Summary: "Arguments that break a tool's input schema never lead to a successful task."},

	// Creation.
	{ID: "TASKS-RESULT-001", Level: LevelMust, Section: secTasks + " § Result Retrieval", Feature: "core", Summary: "An accepted task-augmented request is answered with a CreateTaskResult."},
	{ID: "TASKS-RESULT-002", Level: LevelShould, Section: secTasks + " § Result Retrieval", Feature: "core", Summary: "The CreateTaskResult is sent as soon as the task is accepted, not when its work ends."},
	{ID: "TASKS-WIRE-CREATE-001", Level: LevelMust, Section: secWire + "CreateTaskResult", Feature: "core", Summary: "The created task sits under a task member of the result rather than being spread over it."},
	{ID: "TASKS-CREATE-001", Level: LevelMay, Section: secTasks + " § Creating Tasks", Feature: "core", Summary: "A task may be requested with or without a ttl, and both are accepted."},
	{ID: "TASKS-TTL-001", Level: LevelMust, Section: secTasks + " § TTL and Resource Management", Feature: "core", Summary: "Every task the server returns carries createdAt as an RFC 3339 timestamp."},

	// Polling.
	{ID: "TASKS-WIRE-GET-001", Level: LevelMust, Section: secWire + "GetTaskResult", Feature: "core", Summary: "tasks/get returns the task's members directly in the result, without a wrapper."},
	{ID: "TASKS-TTL-006", Level: LevelMay, Section: secTasks + " § TTL and Resource Management", Feature: "core", Summary: "A suggested pollInterval, when present, is a non-negative whole number of milliseconds."},
	{ID: "TASKS-META-005", Level: LevelMust, Section: secTasks + " § Associating Task-Related Messages", Feature: "core", Summary: "Related-task metadata in a tasks/get request is ignored in favour of the taskId parameter."},
	{ID: "TASKS-META-006", Level: LevelShould, Section: secTasks + " § Associating Task-Related Messages", Feature: "core", Summary: "Results of tasks/get, tasks/list and tasks/cancel do not carry related-task metadata."},
	{ID: "TASKS-INPUT-002", Level: LevelShould, Section: secTasks + " § Input Required Status", Feature: "core", Summary: "tasks/get is answered with a plain JSON body, not an event stream."},

	// The catalog's MUST covers every task-related message; its own
	// reading (DISC-T03) makes the progress-notification case a warning,
	// and the cases with a MUST of their own are judged there (META-002
	// for elicitations, META-007 for the tasks/result payload). So SHOULD.
	{ID: "TASKS-META-001", Level: LevelShould, Section: secTasks + " § Associating Task-Related Messages", Feature: "core", Summary: "Progress notifications sent for a task name it in related-task metadata."},
	{ID: "TASKS-META-003", Level: LevelMust, Section: secTasks + " § Associating Task-Related Messages", Feature: "core", Summary: "The taskId parameter alone decides which task tasks/get, tasks/result and tasks/cancel act on."},

	// Results.
	{ID: "TASKS-RESULT-004", Level: LevelMust, Section: secTasks + " § Result Retrieval", Feature: "core", Summary: "tasks/result on a running task waits until the task is terminal before answering."},
	{ID: "TASKS-RESULT-005", Level: LevelMust, Section: secTasks + " § Result Retrieval", Feature: "core", Summary: "tasks/result gives the same result the request would have given without a task."},
	{ID: "TASKS-META-007", Level: LevelMust, Section: secTasks + " § Related Task Metadata", Feature: "core", Summary: "A successful tasks/result answer names its task in related-task metadata."},
	{ID: "TASKS-ERR-006", Level: LevelShould, Section: secTasks + " § Task Execution Errors", Feature: "core", Summary: "A failed task explains the failure in its statusMessage."},
	// Informative in the catalog (a lower-case should), so MAY: never binding.
	{ID: "TASKS-ERR-007", Level: LevelMay, Section: secTasks + " § Task Execution Errors", Feature: "core", Summary: "A tool task whose result has isError ends failed rather than completed."},
	{ID: "TASKS-ERR-008", Level: LevelMust, Section: secTasks + " § Task Execution Errors", Feature: "core", Summary: "When the request failed with a JSON-RPC error, tasks/result returns that same error."},
	{ID: "TASKS-WIRE-CALLRESULT-001", Level: LevelMust, Section: secWire + "CallToolResult", Feature: "core", Summary: "The tasks/result payload of a tool call is a well-formed CallToolResult."},

	// Listing.
	{ID: "TASKS-LIST-001", Level: LevelShould, Section: secTasks + " § Task Listing", Feature: "list", Summary: "Long task lists are split into pages."},
	{ID: "TASKS-WIRE-LIST-001", Level: LevelMust, Section: secWire + "ListTasksResult", Feature: "list", Summary: "tasks/list returns a tasks array of complete Task objects."},
	{ID: "TASKS-WIRE-LISTREQ-001", Level: LevelMust, Section: secWire + "ListTasksRequest", Feature: "list", Summary: "tasks/list works with its params left out as well as with empty params."},

	// Cancellation.
	{ID: "TASKS-WIRE-CANCEL-001", Level: LevelMust, Section: secWire + "CancelTaskResult", Feature: "cancel", Summary: "tasks/cancel returns the task's members directly in the result, without a wrapper."},

	{ID: "TASKS-NCANCEL-008", Level: LevelMust, Section: "basic/utilities/cancellation.mdx § Timing Considerations", Feature: "cancel", Summary: "A cancel that races the task's completion gets a cancelled task or -32602, and the server stays healthy."},

	// Informative in the catalog, so MAY here: never binding.
	{ID: "TASKS-NCANCEL-006", Level: LevelMay, Section: "basic/utilities/cancellation.mdx § Behavior Requirements", Feature: "core", Summary: "Cancelling the request that created a task does not cancel the task itself."},

	// Errors.
	{ID: "TASKS-ERR-005", Level: LevelShould, Section: secTasks + " § Protocol Errors", Feature: "core", Summary: "Error messages say what went wrong instead of a generic phrase."},
	{ID: "TASKS-JSONRPC-005", Level: LevelMust, Section: secIndex + " › Error Responses", Feature: "core", Summary: "An error answer echoes the request id and has an integer code and a message."},

	// TTL.
	{ID: "TASKS-TTL-003", Level: LevelMay, Section: secTasks + " § TTL and Resource Management", Feature: "core", Summary: "The granted ttl may differ from the one requested, and is reported."},
	// Not an MCP rule (a granted ttl of 0 is allowed by the spec): a
	// toolkit recommendation, so SHOULD.
	{ID: "MCPT-TTLREQ-001", Level: LevelShould, Section: secServer, Feature: "core", Summary: "Zero, negative and absurd ttl requests are refused with -32602 or adjusted; a created task never disappears at once."},

	// Notifications and progress.
	{ID: "TASKS-NOTIF-001", Level: LevelMay, Section: secTasks + " § Task Status Notification", Feature: "core", Summary: "Status notifications are optional; those sent are well formed and carry the whole task."},
	{ID: "TASKS-WIRE-NOTIF-002", Level: LevelMust, Section: secWire + "TaskStatusNotification", Feature: "core", Summary: "A status notification's params are a complete Task, ttl included."},
	{ID: "TASKS-WIRE-PROGRESS-001", Level: LevelMust, Section: secWire + "ProgressNotification", Feature: "core", Summary: "Progress notifications carry a string or integer token and a numeric progress."},
	{ID: "TASKS-NOTIF-005", Level: LevelShould, Section: secTasks + " § Task Notifications", Feature: "core", Summary: "Status notifications do not carry related-task metadata."},
	{ID: "TASKS-PROG-003", Level: LevelMust, Section: secProgress, Feature: "core", Summary: "Progress values for one token only ever increase."},
	{ID: "TASKS-PROG-004", Level: LevelMust, Section: secProgress, Feature: "core", Summary: "The progress token of the creating request stays in use for the task's whole life."},
	{ID: "TASKS-PROG-005", Level: LevelMust, Section: secProgress, Feature: "core", Summary: "A task's progress never moves to a token other than the one the creating request gave."},
	{ID: "TASKS-PROG-007", Level: LevelMust, Section: secProgress, Feature: "core", Summary: "Progress only names tokens that the client actually sent."},
	{ID: "TASKS-PROG-006", Level: LevelMust, Section: secProgress, Feature: "core", Summary: "No progress is reported for a task that has reached a terminal status."},

	// Input required.
	{ID: "TASKS-INPUT-003", Level: LevelShould, Section: secTasks + " § Input Required Status", Feature: "core", Summary: "A task waiting for the requestor's input shows input_required."},
	{ID: "TASKS-INPUT-004", Level: LevelMust, Section: secTasks + " § Input Required Status", Feature: "core", Summary: "The request that asks for a task's input names that task in related-task metadata."},
	{ID: "TASKS-INPUT-006", Level: LevelShould, Section: secTasks + " § Input Required Status", Feature: "core", Summary: "Once its input has arrived the task leaves input_required and carries on."},
	{ID: "TASKS-META-002", Level: LevelMust, Section: secTasks + " § Associating Task-Related Messages", Feature: "core", Summary: "An elicitation a task depends on carries that task's id as its related task."},
	{ID: "TASKS-ELICIT-002", Level: LevelMust, Section: secElicit + " § Capabilities", Feature: "core", Summary: "Elicitations use only a mode the client declared."},
	{ID: "TASKS-JSONRPC-002", Level: LevelMust, Section: secIndex + " › Requests", Feature: "core", Summary: "Requests the server sends have a string or integer id."},
	{ID: "TASKS-INIT-013", Level: LevelMust, Section: secLifecycle + " § Operation", Feature: "core", Summary: "The server only uses what was negotiated: no task-augmented requests to a client without a tasks capability."},
	{ID: "TASKS-ELICIT-009", Level: LevelMust, Section: secElicit + " § Security Considerations", Feature: "core", Summary: "A task's elicitation goes only to the identity the task belongs to."},
	{ID: "TASKS-XPORT-027", Level: LevelMust, Section: secTransports + " › Multiple Connections", Feature: "core", Summary: "Each server message travels on exactly one stream, never copied to several."},
	{ID: "TASKS-ELICIT-003", Level: LevelMust, Section: secElicit + " § Elicitation Requests", Feature: "core", Summary: "A form elicitation has a message and a requested schema, in a mode the client declared."},

	// Servers without authorization. SHOULD NOT folds into SHOULD.
	{ID: "TASKS-SEC-005", Level: LevelShould, Section: secTasks + " § Task Isolation and Access Control", Feature: "list", Summary: "A server that cannot tell requestors apart does not offer tasks/list."},
	// Not an MCP rule: without authorization the spec lets anyone holding
	// a task id read it. A toolkit recommendation.
	{ID: "MCPT-SESSION-001", Level: LevelShould, Section: secServer + " § requestors without credentials", Feature: "core", Summary: "Without authorization, a task is visible only to the session that created it."},

	// Session hygiene.
	{ID: "TASKS-XPORT-046", Level: LevelShould, Section: secTransports + " › Protocol Version Header", Feature: "core", Summary: "A request without a protocol version header is served as the 2025-03-26 revision, not refused."},
	{ID: "TASKS-NCANCEL-009", Level: LevelShould, Section: "basic/utilities/cancellation.mdx § Error Handling", Feature: "core", Summary: "Cancellation notifications naming nothing cancellable, or malformed, are ignored."},
	{ID: "TASKS-XPORT-034", Level: LevelShould, Section: secTransports + " › Session Management", Feature: "core", Summary: "Every session gets an id of its own."},
	{ID: "TASKS-JSONRPC-003", Level: LevelMust, Section: secIndex + " › Requests", Feature: "core", Summary: "The server never uses one request id twice in a session."},

	// Several instances.
	{ID: "MCPT-MULTI-001", Level: LevelMust, Section: secServer + " § several instances", Feature: "multi-instance", Summary: "A task created through one instance can be read through another sharing the store."},
	{ID: "MCPT-MULTI-002", Level: LevelMust, Section: secServer + " § several instances", Feature: "multi-instance", Summary: "Another instance lists the tasks created through the first."},
	{ID: "MCPT-MULTI-003", Level: LevelMust, Section: secServer + " § several instances", Feature: "multi-instance", Summary: "Another instance can cancel a task whose work runs on the first."},
	{ID: "MCPT-MULTI-004", Level: LevelMust, Section: secServer + " § several instances", Feature: "multi-instance", Summary: "Another instance can wait for and return the result of a task running on the first."},

	// Wire.
	{ID: "TASKS-JSONRPC-001", Level: LevelMust, Section: secIndex, Feature: "core", Summary: "Everything the server sends is a valid JSON-RPC 2.0 message."},
	{ID: "TASKS-JSONRPC-004", Level: LevelMust, Section: secIndex + " › Result Responses", Feature: "core", Summary: "A success answer echoes the request id and holds a result member."},
	{ID: "TASKS-JSONRPC-006", Level: LevelMust, Section: secIndex + " › Notifications", Feature: "core", Summary: "Notifications carry no id and are never answered."},
	{ID: "TASKS-JSONRPC-007", Level: LevelMust, Section: "basic/index.mdx § _meta", Feature: "core", Summary: "Every _meta key follows the prefix/name grammar."},
	{ID: "TASKS-WIRE-TASK-001", Level: LevelMust, Section: secWire + "Task", Feature: "core", Summary: "Every Task has taskId, status, createdAt, lastUpdatedAt and ttl."},
}

// ServerRequirementIDs lists the ids registered by the server half of the
// suite (server specs also reuse store ids, which are not listed here).
func ServerRequirementIDs() []string {
	ids := make([]string, 0, len(serverRequirements))
	for _, r := range serverRequirements {
		ids = append(ids, r.ID)
	}
	return ids
}
