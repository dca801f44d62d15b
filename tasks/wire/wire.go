// Package wire is the one home of the protocol's constant spellings used
// by tasks: JSON-RPC method and notification names, the _meta keys, the
// task status strings and the JSON-RPC error codes. It holds constants and
// nothing else, so any package (stores included) can use it without
// pulling in the generated types or the validator.
package wire

// Request methods.
const (
	MethodInitialize        = "initialize"
	MethodPing              = "ping"
	MethodToolsList         = "tools/list"
	MethodToolsCall         = "tools/call"
	MethodTasksGet          = "tasks/get"
	MethodTasksResult       = "tasks/result"
	MethodTasksList         = "tasks/list"
	MethodTasksCancel       = "tasks/cancel"
	MethodElicitationCreate = "elicitation/create"
)

// Notification methods.
const (
	NotificationInitialized = "notifications/initialized"
	NotificationCancelled   = "notifications/cancelled"
	NotificationProgress    = "notifications/progress"
	NotificationTaskStatus  = "notifications/tasks/status"
)

// Keys of _meta entries.
const (
	// MetaRelatedTask ties a message to the task it belongs to.
	MetaRelatedTask = "io.modelcontextprotocol/related-task"
	// MetaModelImmediateResponse carries, in a CreateTaskResult, text a
	// host may hand to the model at once.
	MetaModelImmediateResponse = "io.modelcontextprotocol/model-immediate-response"
	// MetaProgressToken is the requestor's progress token in request
	// params.
	MetaProgressToken = "progressToken"
)

// Task statuses as spelled on the wire.
const (
	StatusWorking       = "working"
	StatusInputRequired = "input_required"
	StatusCompleted     = "completed"
	StatusFailed        = "failed"
	StatusCancelled     = "cancelled"
)

// JSON-RPC error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeLimitExceeded refuses a request because a resource limit is
	// reached (too many tasks for this requestor or this server, too many
	// sessions). It lies in the range JSON-RPC leaves to implementations
	// (-32000 to -32099) and avoids the codes MCP and common SDKs already
	// use there (-32000, -32001, -32002, -32042). Retrying later, once
	// tasks finish or expire, can succeed; the request had no effect.
	CodeLimitExceeded = -32029
	// CodeRequestCancelled is stored as the outcome of a cancelled task.
	// The protocol leaves that payload open; -32800 is the code MCP SDKs
	// commonly use for a cancelled request.
	CodeRequestCancelled = -32800
)
