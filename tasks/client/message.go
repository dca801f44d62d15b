package client

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/mcptasks/mcptasks/tasks/wire"
)

// Direction says whether a message was sent or received by the client.
type Direction string

// Directions of a Message.
const (
	Sent     Direction = "sent"
	Received Direction = "received"
)

// Kind is the JSON-RPC shape of a message.
type Kind string

// Message kinds.
const (
	KindRequest      Kind = "request"
	KindNotification Kind = "notification"
	KindResult       Kind = "result" // a success response
	KindError        Kind = "error"  // an error response
	KindInvalid      Kind = "invalid"
)

// Stream names where a received message arrived.
const (
	StreamPOST = "post" // the answer to a POST, as JSON or SSE
	StreamGET  = "get"  // the standalone GET stream (or a resumed stream)
)

// Message is one JSON-RPC message as it crossed the wire.
type Message struct {
	Direction Direction
	Kind      Kind
	// Method is the method of a request or notification; for a response,
	// the method of the request it answers (when known).
	Method string
	// ID is the raw JSON-RPC id, nil for notifications.
	ID json.RawMessage
	// Raw is the exact bytes of the message.
	Raw json.RawMessage
	// Def is the schema $def the whole message should conform to, e.g.
	// "JSONRPCResultResponse" or "ElicitRequest".
	Def string
	// ResultDef is, for a success response, the $def its `result` member
	// should conform to (e.g. "GetTaskResult", "CreateTaskResult").
	ResultDef string
	// Stream is StreamPOST or StreamGET for received messages.
	Stream string
	// EventID is the SSE event id the message came with, if any.
	EventID string
	// SessionID is the Mcp-Session-Id of the client that received the
	// message ("" when the server uses no sessions).
	SessionID string
	// HTTPStatus and ContentType describe the HTTP response that carried
	// a received message.
	HTTPStatus  int
	ContentType string
	// At is when the message was sent or received.
	At time.Time

	env envelope
}

// Params returns the params of a request or notification (nil if absent).
func (m *Message) Params() json.RawMessage { return m.env.Params }

// Result returns the result member of a success response.
func (m *Message) Result() json.RawMessage { return m.env.Result }

// Error returns the error member of an error response.
func (m *Message) Error() *RPCError { return m.env.Error }

// IsResponse reports whether m is a success or error response.
func (m *Message) IsResponse() bool { return m.Kind == KindResult || m.Kind == KindError }

// envelope is the union of JSON-RPC message members, decoded leniently.
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// parseMessage decodes raw leniently and classifies it. A frame that is not
// a JSON object comes back as KindInvalid, never as an error, so observers
// can still report it.
func parseMessage(raw []byte) *Message {
	m := &Message{Raw: append(json.RawMessage(nil), raw...), At: time.Now()}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		m.Kind = KindInvalid
		m.Def = "JSONRPCMessage"
		return m
	}
	_ = json.Unmarshal(raw, &m.env)
	if isNull(m.env.ID) {
		m.env.ID = nil
	}
	m.ID = m.env.ID
	m.Method = m.env.Method
	_, hasResult := probe["result"]
	_, hasError := probe["error"]
	switch {
	case m.env.Method != "" && m.env.ID != nil:
		m.Kind = KindRequest
		m.Def = requestDef(m.env.Method)
	case m.env.Method != "":
		m.Kind = KindNotification
		m.Def = notificationDef(m.env.Method)
	case hasError:
		m.Kind = KindError
		m.Def = "JSONRPCErrorResponse"
	case hasResult:
		m.Kind = KindResult
		m.Def = "JSONRPCResultResponse"
	default:
		m.Kind = KindInvalid
		m.Def = "JSONRPCMessage"
	}
	return m
}

func isNull(raw json.RawMessage) bool {
	return len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

// requestDef maps a server-to-client request method to its $def.
func requestDef(method string) string {
	switch method {
	case wire.MethodElicitationCreate:
		return "ElicitRequest"
	case "sampling/createMessage":
		return "CreateMessageRequest"
	case "roots/list":
		return "ListRootsRequest"
	case wire.MethodPing:
		return "PingRequest"
	case wire.MethodTasksGet:
		return "GetTaskRequest"
	case wire.MethodTasksResult:
		return "GetTaskPayloadRequest"
	case wire.MethodTasksList:
		return "ListTasksRequest"
	case wire.MethodTasksCancel:
		return "CancelTaskRequest"
	}
	return "JSONRPCRequest"
}

// notificationDef maps a notification method to its $def.
func notificationDef(method string) string {
	switch method {
	case wire.NotificationTaskStatus:
		return "TaskStatusNotification"
	case wire.NotificationProgress:
		return "ProgressNotification"
	case "notifications/message":
		return "LoggingMessageNotification"
	case wire.NotificationCancelled:
		return "CancelledNotification"
	case "notifications/elicitation/complete":
		return "ElicitationCompleteNotification"
	case "notifications/tools/list_changed":
		return "ToolListChangedNotification"
	case "notifications/resources/list_changed":
		return "ResourceListChangedNotification"
	case "notifications/resources/updated":
		return "ResourceUpdatedNotification"
	case "notifications/prompts/list_changed":
		return "PromptListChangedNotification"
	}
	return "JSONRPCNotification"
}

// ResultDef returns the $def the result of a client request with this
// method should conform to. taskAugmented is true when the request carried
// params.task (the reply is then a CreateTaskResult).
func ResultDef(method string, taskAugmented bool) string {
	if taskAugmented {
		return "CreateTaskResult"
	}
	switch method {
	case wire.MethodInitialize:
		return "InitializeResult"
	case wire.MethodPing:
		return "EmptyResult"
	case wire.MethodToolsList:
		return "ListToolsResult"
	case wire.MethodToolsCall:
		return "CallToolResult"
	case wire.MethodTasksGet:
		return "GetTaskResult"
	case wire.MethodTasksResult:
		return "GetTaskPayloadResult"
	case wire.MethodTasksList:
		return "ListTasksResult"
	case wire.MethodTasksCancel:
		return "CancelTaskResult"
	case "prompts/list":
		return "ListPromptsResult"
	case "resources/list":
		return "ListResourcesResult"
	}
	return "Result"
}
