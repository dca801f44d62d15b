package exttasks

import (
	_ "embed" // the validation schema is embedded below
	"encoding/json"
	"sync"

	"github.com/mcptasks/mcptasks/schema"
)

// ExtensionID names the tasks extension in capability maps and in the data
// of a missing-capability error.
const ExtensionID = "io.modelcontextprotocol/tasks"

// Result types of the extension's results.
const (
	// ResultTypeTask marks a CreateTaskResult.
	ResultTypeTask = "task"
	// ResultTypeComplete marks the ordinary result of a request, including
	// tasks/get, tasks/update and tasks/cancel.
	ResultTypeComplete = "complete"
)

// Methods of the extension.
const (
	MethodGet    = "tasks/get"
	MethodUpdate = "tasks/update"
	MethodCancel = "tasks/cancel"
	// MethodNotification is the status notification sent on a
	// subscriptions/listen stream that asked for the task.
	MethodNotification = "notifications/tasks"
)

// Meta is every "_meta" member (the same type as schema.Meta).
type Meta = schema.Meta

// RequestID is a JSON-RPC request id (the same type as schema.RequestID).
type RequestID = schema.RequestID

// JSONValue is any JSON value, kept as raw JSON.
type JSONValue = json.RawMessage

// JSONObject is a JSON object of any values, kept as raw JSON per member.
type JSONObject = map[string]json.RawMessage

// DetailedTaskFields is a task as tasks/get and notifications/tasks show
// it: the Task members plus, depending on the status, the inlined result
// (completed), error (failed) or outstanding input requests
// (input_required).
type DetailedTaskFields struct {
	TaskID         string          `json:"taskId"`
	Status         TaskStatus      `json:"status"`
	StatusMessage  *string         `json:"statusMessage,omitempty"`
	CreatedAt      string          `json:"createdAt"`
	LastUpdatedAt  string          `json:"lastUpdatedAt"`
	TTLMs          *int64          `json:"ttlMs"`
	PollIntervalMs *int64          `json:"pollIntervalMs,omitempty"`
	Result         json.RawMessage `json:"result,omitempty"`
	Error          *Error          `json:"error,omitempty"`
	InputRequests  InputRequests   `json:"inputRequests,omitzero"`
}

// GetTaskResult is the result of tasks/get: resultType "complete" and a
// detailed task.
type GetTaskResult struct {
	Meta       Meta   `json:"_meta,omitzero"`
	ResultType string `json:"resultType"`
	DetailedTaskFields
}

// SchemaDef returns "GetTaskResult".
func (GetTaskResult) SchemaDef() string { return "GetTaskResult" }

// TaskStatusNotificationParams are the params of notifications/tasks: a
// detailed task, as tasks/get would show it at that moment.
type TaskStatusNotificationParams struct {
	Meta Meta `json:"_meta,omitzero"`
	DetailedTaskFields
}

// SchemaDef returns "TaskStatusNotificationParams".
func (TaskStatusNotificationParams) SchemaDef() string { return "TaskStatusNotificationParams" }

// TaskStatusNotification is a notifications/tasks message.
type TaskStatusNotification struct {
	JSONRPC string                       `json:"jsonrpc"`
	Method  string                       `json:"method"`
	Params  TaskStatusNotificationParams `json:"params"`
}

// SchemaDef returns "TaskStatusNotification".
func (TaskStatusNotification) SchemaDef() string { return "TaskStatusNotification" }

//go:embed validation_gen.json
var validationJSON []byte

// validationURL is the $id of the extension schema; nothing is fetched.
const validationURL = "https://modelcontextprotocol.io/ext-tasks/schema.json"

var defaultValidator = sync.OnceValue(func() *schema.Validator {
	return schema.NewValidatorFor(validationJSON, validationURL)
})

// NewValidator returns a Validator over the embedded extension schema.
func NewValidator(opts ...schema.Option) *schema.Validator {
	return schema.NewValidatorFor(validationJSON, validationURL, opts...)
}

// Validate checks raw against a $def (or SchemaDef path) of the extension
// schema using a shared Validator.
func Validate(def string, raw []byte) error { return defaultValidator().Validate(def, raw) }
