package suites

// Sections of the 2026-07-28 requirements: the extension's tasks.md, the
// core pages, the two schemas and the SEP, as the catalog
// (ext-tasks-requirements.yaml) names them.
const (
	secExt      = "ext-tasks tasks.md"
	secExtSEP   = "ext-tasks SEP-2663 § Backward Compatibility"
	secExtWire  = "ext-tasks schema.json#/$defs/"
	secCoreWire = "2026-07-28 schema.json#/$defs/"
	secCore     = "2026-07-28 "
	secCoreHTTP = "2026-07-28 basic/transports/streamable-http.mdx § Request Metadata"
	secMRTR     = "2026-07-28 basic/patterns/mrtr.mdx"
)

// extRequirements are the server-testable requirements of the tasks
// extension catalog that the 2026-07-28 specs judge, under the catalog's
// own ids and levels (MUST NOT and SHOULD NOT fold into MUST and SHOULD).
// Entries the catalog calls informative are MAY here (never deciding the
// verdict) unless one of its discrepancy decisions makes a violation a
// failure, which the summary then names. Summaries are our own wording.
var extRequirements = []Requirement{
	// Discovery, versions and routing headers.
	{ID: "EXT-CAP-018", Level: LevelMust, Section: secCore + "basic/versioning.mdx § Protocol Version Negotiation", Feature: FeatureExtTasks, Summary: "server/discover is implemented and answers a DiscoverResult that lists 2026-07-28."},
	{ID: "EXT-CAP-004", Level: LevelMust, Section: secExt + " § Capability Negotiation", Feature: FeatureExtTasks, Summary: "A server offering the tasks extension names it in capabilities.extensions of server/discover."},
	{ID: "EXT-WIRE-025", Level: LevelMust, Section: secExtWire + "TasksExtensionCapability", Feature: FeatureExtTasks, Summary: "The tasks extension's capability value is a JSON object."},
	{ID: "EXT-CAP-020", Level: LevelMust, Section: secCore + "basic/versioning.mdx § Protocol Version Negotiation", Feature: FeatureExtTasks, Summary: "Extension identifiers in capabilities are prefixed names following the _meta key grammar."},
	{ID: "EXT-COMPAT-009", Level: LevelMust, Section: secExtSEP, Feature: FeatureExtTasks, Summary: "server/discover never advertises the 2025-11-25 capabilities.tasks."},
	{ID: "EXT-COMPAT-015", Level: LevelShould, Section: secCore + "basic/transports/streamable-http.mdx § Earlier Streamable HTTP Revisions", Feature: FeatureExtTasks, Summary: "A server speaking only 2026-07-28 answers GET and DELETE on the endpoint with 405, ignores Mcp-Session-Id and Last-Event-ID and mints no session id (not applicable to a server that accepts initialize)."},
	{ID: "EXT-COMPAT-016", Level: LevelShould, Section: secCore + "basic/versioning.mdx § Backward Compatibility", Feature: FeatureExtTasks, Summary: "A server speaking only 2026-07-28 refuses initialize with an error that names its versions (not applicable to a server that accepts initialize)."},
	{ID: "EXT-XPORT-011", Level: LevelMust, Section: secCoreHTTP + " › Protocol Version Header", Feature: FeatureExtTasks, Summary: "An unimplemented protocol version is refused with HTTP 400 and -32022 whose data lists the supported versions and echoes the requested one."},
	{ID: "EXT-BASE-015", Level: LevelMust, Section: secCore + "basic/versioning.mdx § Protocol Version Negotiation", Feature: FeatureExtTasks, Summary: "Over stdio too, an unimplemented protocol version is refused with -32022 whose data lists the supported versions and echoes the requested one."},
	{ID: "EXT-XPORT-024", Level: LevelMust, Section: secCore + "basic/transports/stdio.mdx", Feature: FeatureExtTasks, Summary: "Over stdio every line the server writes to stdout is one JSON-RPC 2.0 message."},
	{ID: "EXT-XPORT-023", Level: LevelMust, Section: secCore + "basic/transports/stdio.mdx § Cancellation", Feature: FeatureExtTasks, Summary: "Over stdio, once the client cancels a request (here a subscriptions/listen stream) the server sends nothing more for it."},
	{ID: "EXT-XPORT-012", Level: LevelMust, Section: secCoreHTTP + " › Protocol Version Header", Feature: FeatureExtTasks, Summary: "An unimplemented method is answered with HTTP 404 and -32601."},
	{ID: "EXT-XPORT-010", Level: LevelMust, Section: secCoreHTTP + " › Protocol Version Header", Feature: FeatureExtTasks, Summary: "A protocol version header that contradicts the version in _meta is refused with HTTP 400 and -32020."},
	{ID: "EXT-XPORT-004", Level: LevelMust, Section: secCoreHTTP + " › Server Validation", Feature: FeatureExtTasks, Summary: "An Mcp-Method header naming another method than the body is refused with HTTP 400 and -32020."},
	{ID: "EXT-XPORT-003", Level: LevelMust, Section: secCoreHTTP + " › Server Validation", Feature: FeatureExtTasks, Summary: "On tasks/get, tasks/update and tasks/cancel an Mcp-Name other than params.taskId is refused with HTTP 400 and -32020."},
	{ID: "EXT-XPORT-007", Level: LevelMust, Section: secCoreHTTP + " › Value Encoding", Feature: FeatureExtTasks, Summary: "A Base64-sentinel Mcp-Name is decoded before it is compared with the body."},
	{ID: "EXT-XPORT-008", Level: LevelMust, Section: secCoreHTTP + " › Case Sensitivity", Feature: FeatureExtTasks, Summary: "Routing header values are compared with their case: a taskId differing only in case does not match."},
	{ID: "EXT-XPORT-020", Level: LevelMust, Section: secCore + "basic/transports/streamable-http.mdx § Security", Feature: FeatureExtTasks, Summary: "A request carrying an Origin the server does not accept gets HTTP 403."},
	{ID: "EXT-XPORT-013", Level: LevelMust, Section: secCoreHTTP + " › Protocol Version Header", Feature: FeatureExtTasks, Summary: "A POST without MCP-Protocol-Version is refused, or read as 2025-03-26; never served as a 2026-07-28 task request."},
	{ID: "EXT-XPORT-018", Level: LevelShould, Section: secCore + "basic/transports/streamable-http.mdx § Receiving Messages", Feature: FeatureExtTasks, Summary: "An event stream answering tools/call (a CreateTaskResult included) or tasks/get ends once its final response is out."},
	{ID: "EXT-XPORT-019", Level: LevelMust, Section: secCore + "basic/transports/streamable-http.mdx § Cancellation", Feature: FeatureExtTasks, Summary: "A closed request stream ends that request only: the task made by an answered tools/call, or polled by a tasks/get, keeps going."},
	{ID: "EXT-XPORT-017", Level: LevelMust, Section: secCore + "basic/transports/streamable-http.mdx § Sending Messages", Feature: FeatureExtTasks, Summary: "A POSTed notification gets 202 with an empty body when taken, an HTTP error status when not."},
	{ID: "EXT-XPORT-016", Level: LevelMust, Section: secCore + "basic/transports/streamable-http.mdx § Sending Messages", Feature: FeatureExtTasks, Summary: "Task requests are answered as application/json or as an event stream."},
	{ID: "EXT-BASE-011", Level: LevelMust, Section: secCore + "basic/index.mdx § _meta", Feature: FeatureExtTasks, Summary: "A request whose _meta lacks a required per-request field is malformed: -32602 with HTTP 400."},
	{ID: "EXT-BASE-001", Level: LevelMust, Section: secCore + "basic/index.mdx", Feature: FeatureExtTasks, Summary: "The message patterns are implemented: subscriptions/listen is never an unknown method."},
	{ID: "EXT-XPORT-021", Level: LevelMust, Section: secCore + "basic/transports/index.mdx § Messages", Feature: FeatureExtTasks, Summary: "Every message the server sends is valid UTF-8."},
	{ID: "EXT-BASE-013", Level: LevelShould, Section: secCore + "basic/index.mdx § _meta", Feature: FeatureExtTasks, Summary: "Results carry the server's name and version in _meta."},
	{ID: "EXT-BASE-014", Level: LevelShould, Section: secCore + "basic/index.mdx § _meta", Feature: FeatureExtTasks, Summary: "clientInfo does not decide whether a call makes a task, nor who may read the task."},
	{ID: "EXT-BASE-007", Level: LevelShould, Section: secCore + "basic/index.mdx § Statelessness", Feature: FeatureExtTasks, Summary: "Many tasks running at once each keep their own state and outcome."},

	// Task creation.
	{ID: "EXT-CAP-003", Level: LevelMust, Section: secExt + " § Capability Negotiation", Feature: FeatureExtTasks, Summary: "The extension declared in a request's own _meta is enough for a task, with no earlier handshake."},
	{ID: "EXT-CAP-009", Level: LevelMust, Section: secExt + " § Capability Negotiation", Feature: FeatureExtTasks, Summary: "A request that does not itself declare the extension never gets a task, whatever earlier requests declared."},
	{ID: "EXT-CAP-016", Level: LevelMust, Section: secCore + "basic/versioning.mdx § Extension Negotiation", Feature: FeatureExtTasks, Summary: "Without the extension declared the server serves the plain core or refuses, and never answers with a task."},
	{ID: "EXT-CAP-012", Level: LevelMust, Section: secExt + " § Capability Negotiation", Feature: FeatureExtTasks, Summary: "A call the server can serve only as a task is refused with -32021 (HTTP 400) when the extension is not declared."},
	{ID: "EXT-CAP-013", Level: LevelMust, Section: secExt + " § Capability Negotiation", Feature: FeatureExtTasks, Summary: "That -32021 names the tasks extension, as an object, under data.requiredCapabilities.extensions."},
	{ID: "EXT-CREATE-001", Level: LevelMust, Section: secExt + " § Supported Methods", Feature: FeatureExtTasks, Summary: "Only tools/call is answered with a task (informative in the catalog; EXT-DISC-24 makes a task elsewhere a failure)."},
	{ID: "EXT-CREATE-003", Level: LevelMust, Section: secExt + " § Polymorphic Results", Feature: FeatureExtTasks, Summary: "A CreateTaskResult says resultType task."},
	{ID: "EXT-CREATE-004", Level: LevelMust, Section: secExt + " § Polymorphic Results", Feature: FeatureExtTasks, Summary: "No result but a CreateTaskResult says resultType task."},
	{ID: "EXT-CREATE-006", Level: LevelMust, Section: secExt + " § Task Creation", Feature: FeatureExtTasks, Summary: "The CreateTaskResult is flat: the task's members sit beside resultType, with no nested task."},
	{ID: "EXT-CREATE-009", Level: LevelMust, Section: secExt + " § Task Creation", Feature: FeatureExtTasks, Summary: "A task is readable through tasks/get, on any instance, as soon as its CreateTaskResult is out."},
	{ID: "EXT-SEC-002", Level: LevelMust, Section: secExt + " § Security Considerations", Feature: FeatureExtTasks, Summary: "Task ids cannot be guessed: long, distinct, and a near miss finds nothing."},
	{ID: "EXT-SEC-006", Level: LevelMust, Section: secCore + "server/tools.mdx § Security Considerations", Feature: FeatureExtTasks, Summary: "Arguments that break a tool's input schema never lead to a successful call or task."},
	{ID: "EXT-WIRE-036", Level: LevelMust, Section: secCoreWire + "CallToolResult", Feature: FeatureExtTasks, Summary: "A synchronous CallToolResult has a content array and a resultType."},

	// The Task on the wire.
	{ID: "EXT-WIRE-001", Level: LevelMust, Section: secExtWire + "Task", Feature: FeatureExtTasks, Summary: "Every task carries taskId, status, createdAt, lastUpdatedAt and ttlMs."},
	{ID: "EXT-WIRE-005", Level: LevelMust, Section: secExtWire + "Task", Feature: FeatureExtTasks, Summary: "ttlMs is present as a non-negative integer or null (negative values fail, EXT-DISC-12)."},
	{ID: "EXT-WIRE-006", Level: LevelMust, Section: secExtWire + "Task", Feature: FeatureExtTasks, Summary: "pollIntervalMs is optional and, when given, a positive integer (EXT-DISC-12)."},
	{ID: "EXT-LIFE-004", Level: LevelMust, Section: secExt + " § Tasks", Feature: FeatureExtTasks, Summary: "createdAt is an RFC 3339 timestamp that stays the same for the task's life."},
	{ID: "EXT-LIFE-005", Level: LevelMust, Section: secExt + " § Tasks", Feature: FeatureExtTasks, Summary: "lastUpdatedAt is an RFC 3339 timestamp, never before createdAt and never moving back."},
	{ID: "EXT-LIFE-009", Level: LevelMust, Section: secExt + " § Task Status", Feature: FeatureExtTasks, Summary: "A terminal status never changes again (informative in the catalog; EXT-DISC-08 makes a change a failure)."},
	{ID: "EXT-TTL-007", Level: LevelMust, Section: secExt + " § Tasks", Feature: FeatureExtTasks, Summary: "A task stays readable at least until createdAt + ttlMs (informative in the catalog; EXT-DISC-34 grades this retention window)."},

	// Polling and outcomes.
	{ID: "EXT-GET-005", Level: LevelMust, Section: secExt + " § Task Polling", Feature: FeatureExtTasks, Summary: "A task still running is shown as working, under the same taskId."},
	{ID: "EXT-GET-008", Level: LevelMust, Section: secExt + " § Task Polling", Feature: FeatureExtTasks, Summary: "A completed task is shown with its final result inlined."},
	{ID: "EXT-WIRE-013", Level: LevelMust, Section: secExtWire + "CompletedTask", Feature: FeatureExtTasks, Summary: "The inlined result of a completed task is an object; a resultType in it, when present, is complete (EXT-DISC-13)."},
	{ID: "EXT-GET-009", Level: LevelMust, Section: secExt + " § Task Polling", Feature: FeatureExtTasks, Summary: "A cancelled task is shown as cancelled, without a result."},
	{ID: "EXT-GET-010", Level: LevelMust, Section: secExt + " § Task Polling", Feature: FeatureExtTasks, Summary: "A task whose work raised a JSON-RPC error is shown as failed with that error inlined and no result."},
	{ID: "EXT-GET-011", Level: LevelMust, Section: secExt + " § Task Polling", Feature: FeatureExtTasks, Summary: "Every tasks/get result says resultType complete (EXT-DISC-01)."},
	{ID: "EXT-GET-015", Level: LevelShould, Section: secCore + "basic/index.mdx § Statelessness", Feature: FeatureExtTasks, Summary: "tasks/get, tasks/update and tasks/cancel are served on a connection other than the one that created the task, as they are on that one (SHOULD NOT insist on the creating connection)."},
	{ID: "EXT-GET-016", Level: LevelMust, Section: secCore + "basic/index.mdx § Statelessness", Feature: FeatureExtTasks, Summary: "tasks/get, tasks/update and tasks/cancel need params.taskId; nothing else stands in for it."},
	{ID: "EXT-ERR-001", Level: LevelMust, Section: secExt + " § Error Handling", Feature: FeatureExtTasks, Summary: "tasks/get of an unknown or empty taskId fails with -32602."},
	{ID: "EXT-ERR-002", Level: LevelShould, Section: secExt + " § Error Handling", Feature: FeatureExtTasks, Summary: "tasks/update and tasks/cancel of an unknown taskId fail with -32602."},
	{ID: "EXT-ERR-004", Level: LevelMust, Section: secExt + " § Error Handling", Feature: FeatureExtTasks, Summary: "tasks/* on a request not declaring the extension fail with -32021 (HTTP 400), before any lookup (EXT-DISC-11)."},
	{ID: "EXT-ERR-007", Level: LevelShould, Section: secExt + " § Error Handling", Feature: FeatureExtTasks, Summary: "A failed task explains itself in statusMessage."},
	{ID: "EXT-ERR-008", Level: LevelMust, Section: secExt + " § Error Handling", Feature: FeatureExtTasks, Summary: "The error inlined in a failed task is the very error the request raised."},
	{ID: "EXT-ERR-009", Level: LevelMust, Section: secExt + " § Error Handling", Feature: FeatureExtTasks, Summary: "A tool result flagged isError never makes the task failed."},
	{ID: "EXT-ERR-010", Level: LevelMust, Section: secExt + " § Error Handling", Feature: FeatureExtTasks, Summary: "A tool result flagged isError ends the task completed, with that result inlined."},
	{ID: "EXT-ERR-011", Level: LevelMust, Section: secExt + " § Error Handling", Feature: FeatureExtTasks, Summary: "The result inlined in a completed task is the very result the request produced (ignoring _meta and resultType, EXT-DISC-32)."},
	{ID: "EXT-ERR-012", Level: LevelMust, Section: secCore + "basic/index.mdx § Error Responses › Error Codes", Feature: FeatureExtTasks, Summary: "No error uses a code of -32020..-32099 that 2026-07-28 does not define, nor -32020, -32021 or -32022 where its meaning does not apply."},
	{ID: "EXT-ERR-013", Level: LevelMust, Section: secCore + "basic/index.mdx § Error Responses › Error Codes", Feature: FeatureExtTasks, Summary: "The retired codes -32002 and -32042 are never sent."},
	{ID: "EXT-ERR-016", Level: LevelShould, Section: secCore + "server/tools.mdx § Error Handling", Feature: FeatureExtTasks, Summary: "An error raised inside a tool comes back as a result with isError true, not as a JSON-RPC error."},

	// Input.
	{ID: "EXT-GET-006", Level: LevelMust, Section: secExt + " § Task Polling", Feature: FeatureExtTasks, Summary: "A task waiting for the client is shown as input_required with a non-empty inputRequests map (EXT-DISC-16)."},
	{ID: "EXT-INPUT-012", Level: LevelMust, Section: secMRTR + " § Server Requirements", Feature: FeatureExtTasks, Summary: "Input requests are elicitation, sampling or roots requests only."},
	{ID: "EXT-INPUT-013", Level: LevelMust, Section: secMRTR + " § Server Requirements", Feature: FeatureExtTasks, Summary: "No input request asks for a kind of client feature the creating call did not declare (EXT-DISC-25)."},
	{ID: "EXT-INPUT-014", Level: LevelMust, Section: secCore + "client/elicitation.mdx § Capabilities", Feature: FeatureExtTasks, Summary: "Elicitations use only the modes the client declared: no URL mode for a form-only client."},
	{ID: "EXT-INPUT-015", Level: LevelMust, Section: secCore + "client/elicitation.mdx § Form Mode", Feature: FeatureExtTasks, Summary: "A form elicitation carries a message and a requested schema."},
	{ID: "EXT-INPUT-016", Level: LevelMust, Section: secCore + "client/elicitation.mdx § URL Mode Elicitation Requests", Feature: FeatureExtTasks, Summary: "A URL-mode elicitation in inputRequests carries a message and a valid absolute url."},
	{ID: "EXT-INPUT-007", Level: LevelMust, Section: secExt + " § Task Update Requests", Feature: FeatureExtTasks, Summary: "A key the client answered is never used for a later input request."},
	{ID: "EXT-INPUT-019", Level: LevelMust, Section: secCore + "client/elicitation.mdx § Error Handling", Feature: FeatureExtTasks, Summary: "A declined elicitation does not leave the task parked on it."},
	{ID: "EXT-INPUT-020", Level: LevelMust, Section: secMRTR + " § Server Requirements", Feature: FeatureExtTasks, Summary: "A task waiting for input that never comes stays pollable and cancellable."},
	{ID: "EXT-INPUT-022", Level: LevelMust, Section: secMRTR, Feature: FeatureExtTasks, Summary: "The server sends no JSON-RPC requests to the client; input reaches it only through inputRequests."},
	{ID: "EXT-GET-007", Level: LevelMust, Section: secExt + " § Task Polling", Feature: FeatureExtTasks, Summary: "inputRequests lists every request still waiting for an answer, not only the newest; an answered one leaves it."},
	{ID: "EXT-INPUT-006", Level: LevelMust, Section: secExt + " § Task Update Requests", Feature: FeatureExtTasks, Summary: "Within a task an input key stands for one request only, for as long as the task lives."},
	{ID: "EXT-INPUT-008", Level: LevelMust, Section: secExt + " § Task Update Requests", Feature: FeatureExtTasks, Summary: "No input key of a task ever names two different requests: its method and params stay the same on every poll."},
	{ID: "EXT-MRTR-002", Level: LevelMust, Section: secMRTR + " § Supported Requests", Feature: FeatureExtTasks, Summary: "No tasks/* reply says resultType input_required."},
	{ID: "EXT-UPDATE-002", Level: LevelMust, Section: secExt + " § Task Update Requests", Feature: FeatureExtTasks, Summary: "tasks/update is acknowledged with an empty result."},
	{ID: "EXT-UPDATE-006", Level: LevelShould, Section: secExt + " § Task Update Requests", Feature: FeatureExtTasks, Summary: "Answers under keys that are not outstanding are acknowledged and change nothing."},
	{ID: "EXT-UPDATE-009", Level: LevelMust, Section: secExt + " § Task Update Requests", Feature: FeatureExtTasks, Summary: "The tasks/update acknowledgement says resultType complete."},
	{ID: "EXT-UPDATE-010", Level: LevelMay, Section: secExt + " § Example Message Flow", Feature: FeatureExtTasks, Summary: "An input task whose requests are all answered goes on to complete (informative in the catalog)."},
	{ID: "EXT-UPDATE-011", Level: LevelShould, Section: secMRTR + " § Error Handling", Feature: FeatureExtTasks, Summary: "A malformed or missing inputResponses is refused with a JSON-RPC error and changes nothing."},
	{ID: "EXT-UPDATE-012", Level: LevelShould, Section: secMRTR + " § Error Handling", Feature: FeatureExtTasks, Summary: "An answer carrying a member the server does not know is acknowledged and used, not refused."},

	// Multi-round-trip tools/call before a task exists.
	{ID: "EXT-MRTR-003", Level: LevelMust, Section: secMRTR + " § Server Requirements", Feature: FeatureExtTasks, Summary: "An InputRequiredResult carries inputRequests, requestState or both."},
	{ID: "EXT-WIRE-038", Level: LevelMust, Section: secCoreWire + "InputRequiredResult", Feature: FeatureExtTasks, Summary: "An InputRequiredResult has a resultType and valid optional inputRequests and requestState, at least one of them present."},
	{ID: "EXT-MRTR-001", Level: LevelShould, Section: secExt + " § Task Creation", Feature: FeatureExtTasks, Summary: "A server combining multi-round-trip input with a task ends the rounds first and then returns a CreateTaskResult, without requestState or inputRequests, whose task uses the answers."},
	{ID: "EXT-MRTR-012", Level: LevelShould, Section: secMRTR + " § Error Handling", Feature: FeatureExtTasks, Summary: "A retry that lacks answers the server needs gets a new InputRequiredResult, not an error."},

	// Cancellation.
	{ID: "EXT-CANCEL-003", Level: LevelMust, Section: secExt + " § Task Cancellation", Feature: FeatureExtTasks, Summary: "tasks/cancel is acknowledged with an empty result, no task in it."},
	{ID: "EXT-CANCEL-004", Level: LevelShould, Section: secExt + " § Task Cancellation", Feature: FeatureExtTasks, Summary: "tasks/cancel of an unknown taskId fails with a JSON-RPC error."},
	{ID: "EXT-CANCEL-009", Level: LevelMust, Section: secExt + " § Task Cancellation", Feature: FeatureExtTasks, Summary: "The tasks/cancel acknowledgement says resultType complete."},
	{ID: "EXT-CANCEL-010", Level: LevelMust, Section: secExt + " § Task Cancellation", Feature: FeatureExtTasks, Summary: "Cancelling a finished task is acknowledged and keeps its status (informative in the catalog; EXT-DISC-09 makes an error a failure in this profile)."},

	// Notifications.
	{ID: "EXT-NOTIFY-004", Level: LevelMust, Section: secExt + " § Task Status Notifications", Feature: FeatureExtTasks, Summary: "A listen for taskIds without the extension declared is refused with -32021."},
	{ID: "EXT-NOTIFY-009", Level: LevelMust, Section: secCore + "basic/patterns/subscriptions.mdx § Acknowledgment", Feature: FeatureExtTasks, Summary: "A listen stream opens with an acknowledgement tagged with the listen request's id."},
	{ID: "EXT-NOTIFY-010", Level: LevelMust, Section: secCore + "basic/patterns/subscriptions.mdx § Receiving Notifications", Feature: FeatureExtTasks, Summary: "Every task notification on a listen stream is tagged with the listen request's id."},
	{ID: "EXT-NOTIFY-013", Level: LevelMust, Section: secCore + "basic/index.mdx § Notifications", Feature: FeatureExtTasks, Summary: "A task notification has no id."},
	{ID: "EXT-NOTIFY-007", Level: LevelMust, Section: secExt + " § Task Status Notifications", Feature: FeatureExtTasks, Summary: "A task's listen stream carries no notifications/progress and no notifications/message."},
	{ID: "EXT-NOTIFY-008", Level: LevelMust, Section: secCore + "basic/patterns/subscriptions.mdx § Opening a Stream", Feature: FeatureExtTasks, Summary: "A listen stream gets only the notification types it opted into: none of notifications/tasks without taskIds."},
	{ID: "EXT-WIRE-022", Level: LevelMust, Section: secExtWire + "TaskStatusNotification", Feature: FeatureExtTasks, Summary: "notifications/tasks carries a detailed task about a task the stream asked for, with the result when completed (EXT-DISC-02)."},

	// Progress and logging.
	{ID: "EXT-PROG-004", Level: LevelMust, Section: secCore + "basic/patterns/progress.mdx § Progress Flow", Feature: FeatureExtTasks, Summary: "The progress values sent under one token keep rising."},
	{ID: "EXT-PROG-005", Level: LevelMust, Section: "2026-07-28 changelog.mdx § Major changes", Feature: FeatureExtTasks, Summary: "A request that set no io.modelcontextprotocol/logLevel gets no notifications/message."},
	{ID: "EXT-PROG-006", Level: LevelMust, Section: secCore + "basic/transports/streamable-http.mdx § Receiving Messages", Feature: FeatureExtTasks, Summary: "Progress on a request's response stream carries that request's own progressToken."},

	// Backward compatibility and isolation.
	{ID: "EXT-COMPAT-001", Level: LevelMust, Section: secExtSEP, Feature: FeatureExtTasks, Summary: "A 2025-11-25 session declaring the extension key in its capabilities still gets no extension task."},
	{ID: "EXT-COMPAT-003", Level: LevelMust, Section: secExtSEP, Feature: FeatureExtTasks, Summary: "Declaring only the legacy tasks client capability counts as not declaring the extension."},
	{ID: "EXT-COMPAT-005", Level: LevelMust, Section: secExtSEP, Feature: FeatureExtTasks, Summary: "tasks/result is gone: -32601 with HTTP 404."},
	{ID: "EXT-COMPAT-006", Level: LevelMust, Section: "2026-07-28 changelog.mdx § Major changes", Feature: FeatureExtTasks, Summary: "tasks/list is gone: -32601 with HTTP 404."},
	{ID: "EXT-COMPAT-007", Level: LevelMust, Section: secExtSEP, Feature: FeatureExtTasks, Summary: "A legacy params.task on tools/call is ignored: no error and no say in task creation."},
	{ID: "EXT-SEC-007", Level: LevelMust, Section: secCore + "client/elicitation.mdx § Statefulness", Feature: FeatureExtTasks, Summary: "A task's pending input belongs to the authorization context that created it: another one can neither read nor answer it."},
	{ID: "EXT-SEC-003", Level: LevelMust, Section: secExt + " § Security Considerations", Feature: FeatureExtTasks, Summary: "Another authorization context can neither read, answer nor cancel a task (any error passes, EXT-DISC-30)."},
}
