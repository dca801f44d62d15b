package schema

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func int64p(n int64) *int64 { return &n }

// roundTrip decodes raw into v, re-encodes it, and checks the result is
// JSON-equal to raw and valid against def.
func roundTrip(t *testing.T, def string, raw string, v any) []byte {
	t.Helper()
	if err := Validate(def, []byte(raw)); err != nil {
		t.Fatalf("input is not a valid %s: %v", def, err)
	}
	if err := json.Unmarshal([]byte(raw), v); err != nil {
		t.Fatalf("decode %s: %v", def, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encode %s: %v", def, err)
	}
	if !jsonEqual(t, []byte(raw), out) {
		t.Fatalf("%s round trip lost data:\n in: %s\nout: %s", def, raw, out)
	}
	if err := Validate(def, out); err != nil {
		t.Fatalf("re-encoded %s is invalid: %v", def, err)
	}
	return out
}

const taskJSON = `{"taskId":"t-1","status":"working","statusMessage":"busy","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:01Z","ttl":60000,"pollInterval":500}`

func TestTaskTTL(t *testing.T) {
	tests := []struct {
		name string
		task Task
		want string
	}{
		{"null", Task{TaskID: "a", Status: TaskStatusWorking, CreatedAt: "c", LastUpdatedAt: "u"}, `"ttl":null`},
		{"number", Task{TaskID: "a", Status: TaskStatusWorking, CreatedAt: "c", LastUpdatedAt: "u", TTL: int64p(30000)}, `"ttl":30000`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := json.Marshal(tt.task)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), tt.want) {
				t.Fatalf("encoded %s, want it to contain %s", out, tt.want)
			}
			if err := Validate("Task", out); err != nil {
				t.Fatalf("encoded task is invalid: %v", err)
			}
			var back Task
			roundTrip(t, "Task", string(out), &back)
			if (back.TTL == nil) != (tt.task.TTL == nil) || (back.TTL != nil && *back.TTL != *tt.task.TTL) {
				t.Fatalf("TTL after round trip = %v, want %v", back.TTL, tt.task.TTL)
			}
		})
	}
}

func TestTaskStatusValues(t *testing.T) {
	for _, s := range []TaskStatus{TaskStatusWorking, TaskStatusInputRequired, TaskStatusCompleted, TaskStatusFailed, TaskStatusCancelled} {
		if !s.Valid() {
			t.Errorf("%q.Valid() = false", s)
		}
	}
	if TaskStatus("done").Valid() {
		t.Error(`"done" is not a status but Valid() says it is`)
	}
	if TaskStatusInputRequired != "input_required" {
		t.Errorf("TaskStatusInputRequired = %q", TaskStatusInputRequired)
	}
	// Decoding never rejects an unknown status: judging is the validator's job.
	var task Task
	if err := json.Unmarshal([]byte(`{"status":"bogus"}`), &task); err != nil || task.Status != "bogus" {
		t.Fatalf("lenient decode: status %q, err %v", task.Status, err)
	}
}

func TestCreateTaskResult(t *testing.T) {
	raw := `{"task":` + taskJSON + `,"_meta":{"io.modelcontextprotocol/model-immediate-response":"started"}}`
	var r CreateTaskResult
	roundTrip(t, "CreateTaskResult", raw, &r)
	if r.Task.TaskID != "t-1" || r.Task.Status != TaskStatusWorking || r.Task.TTL == nil || *r.Task.TTL != 60000 {
		t.Fatalf("decoded %+v", r.Task)
	}
	msg, ok, err := r.Meta.ModelImmediateResponse()
	if err != nil || !ok || msg != "started" {
		t.Fatalf("ModelImmediateResponse = %q, %v, %v", msg, ok, err)
	}
}

func TestGetTaskResultIsFlat(t *testing.T) {
	var r GetTaskResult
	out := roundTrip(t, "GetTaskResult", taskJSON, &r)
	if r.TaskID != "t-1" || r.PollInterval == nil || *r.PollInterval != 500 {
		t.Fatalf("decoded %+v", r)
	}
	if strings.Contains(string(out), `"task"`) {
		t.Fatalf("GetTaskResult must be flat, got %s", out)
	}
	built := GetTaskResult{Task: Task{TaskID: "x", Status: TaskStatusCompleted, CreatedAt: "c", LastUpdatedAt: "u"}}
	if err := ValidateValue(built); err != nil {
		t.Fatalf("built GetTaskResult is invalid: %v", err)
	}
	var c CancelTaskResult
	roundTrip(t, "CancelTaskResult", strings.Replace(taskJSON, `"working"`, `"cancelled"`, 1), &c)
	if c.Status != TaskStatusCancelled {
		t.Fatalf("CancelTaskResult status %q", c.Status)
	}
}

func TestListTasksResult(t *testing.T) {
	var r ListTasksResult
	roundTrip(t, "ListTasksResult", `{"tasks":[`+taskJSON+`],"nextCursor":"abc"}`, &r)
	if len(r.Tasks) != 1 || r.NextCursor == nil || *r.NextCursor != "abc" {
		t.Fatalf("decoded %+v", r)
	}
	// An empty page keeps "tasks": [] — a nil slice must not encode null.
	out, err := json.Marshal(ListTasksResult{})
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"tasks":[]}` {
		t.Fatalf("empty ListTasksResult encodes %s", out)
	}
	if err := Validate("ListTasksResult", out); err != nil {
		t.Fatal(err)
	}
	var empty ListTasksResult
	roundTrip(t, "ListTasksResult", `{"tasks":[]}`, &empty)
}

func TestRequiredArraysEncodeEmpty(t *testing.T) {
	for _, v := range []interface{ SchemaDef() string }{
		CallToolResult{}, &CallToolResult{}, ListToolsResult{}, ListTasksResult{}, ListResourcesResult{},
	} {
		out, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(out), "null") {
			t.Errorf("%T encodes %s", v, out)
		}
		if err := Validate(v.SchemaDef(), out); err != nil {
			t.Errorf("%T: %v", v, err)
		}
	}
}

func TestTaskStatusNotificationParams(t *testing.T) {
	raw := `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t-1"}},` + taskJSON[1:]
	var p TaskStatusNotificationParams
	roundTrip(t, "TaskStatusNotificationParams", raw, &p)
	rel, ok, err := p.Meta.RelatedTask()
	if err != nil || !ok || rel.TaskID != "t-1" {
		t.Fatalf("RelatedTask = %+v, %v, %v", rel, ok, err)
	}
	n := TaskStatusNotification{JSONRPC: JSONRPCVersion, Method: MethodNotificationsTasksStatus, Params: p}
	if err := ValidateValue(n); err != nil {
		t.Fatalf("notification: %v", err)
	}
	if MethodNotificationsTasksStatus != "notifications/tasks/status" {
		t.Fatalf("MethodNotificationsTasksStatus = %q", MethodNotificationsTasksStatus)
	}
}

func TestCallToolRequestParamsWithTask(t *testing.T) {
	raw := `{"name":"slow","arguments":{"n":3,"deep":{"x":[1,2]}},"task":{"ttl":60000},"_meta":{"progressToken":"p-1","vendor.example/x":true}}`
	var p CallToolRequestParams
	roundTrip(t, "CallToolRequestParams", raw, &p)
	if p.Task == nil || p.Task.TTL == nil || *p.Task.TTL != 60000 {
		t.Fatalf("task = %+v", p.Task)
	}
	tok, ok, err := p.Meta.ProgressToken()
	if err != nil || !ok || tok != StringProgressToken("p-1") {
		t.Fatalf("progress token = %v, %v, %v", tok, ok, err)
	}
	var noTask CallToolRequestParams
	out := roundTrip(t, "CallToolRequestParams", `{"name":"fast"}`, &noTask)
	if noTask.Task != nil || strings.Contains(string(out), "task") {
		t.Fatalf("absent task came back as %s", out)
	}
	req := CallToolRequest{ID: IntRequestID(7), JSONRPC: JSONRPCVersion, Method: MethodToolsCall, Params: p}
	if err := ValidateValue(req); err != nil {
		t.Fatal(err)
	}
}

func TestToolExecutionTaskSupport(t *testing.T) {
	for _, ts := range []ToolExecutionTaskSupport{ToolExecutionTaskSupportForbidden, ToolExecutionTaskSupportOptional, ToolExecutionTaskSupportRequired} {
		raw := `{"name":"t","inputSchema":{"type":"object"},"execution":{"taskSupport":"` + string(ts) + `"}}`
		var tool Tool
		roundTrip(t, "Tool", raw, &tool)
		if tool.Execution == nil || tool.Execution.TaskSupport == nil || *tool.Execution.TaskSupport != ts || !ts.Valid() {
			t.Fatalf("execution = %+v", tool.Execution)
		}
	}
	if err := Validate("ToolExecution", []byte(`{"taskSupport":"sometimes"}`)); err == nil {
		t.Fatal("bad taskSupport accepted")
	}
}

func TestCapabilityPresenceFlags(t *testing.T) {
	raw := `{"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}},"tools":{"listChanged":true}}`
	var c ServerCapabilities
	out := roundTrip(t, "ServerCapabilities", raw, &c)
	if c.Tasks == nil || c.Tasks.List == nil || c.Tasks.Cancel == nil || c.Tasks.Requests == nil ||
		c.Tasks.Requests.Tools == nil || c.Tasks.Requests.Tools.Call == nil {
		t.Fatalf("presence flags lost: %s", out)
	}
	// Only list: cancel stays absent.
	var only ServerCapabilities
	out = roundTrip(t, "ServerCapabilities", `{"tasks":{"list":{}}}`, &only)
	if only.Tasks.Cancel != nil || strings.Contains(string(out), "cancel") {
		t.Fatalf("absent flag appeared: %s", out)
	}
	// Built in Go.
	built := ServerCapabilities{Tasks: &ServerCapabilitiesTasks{
		List:     &ServerCapabilitiesTasksList{},
		Cancel:   &ServerCapabilitiesTasksCancel{},
		Requests: &ServerCapabilitiesTasksRequests{Tools: &ServerCapabilitiesTasksRequestsTools{Call: &ServerCapabilitiesTasksRequestsToolsCall{}}},
	}}
	got, err := json.Marshal(built)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"tasks":{"cancel":{},"list":{},"requests":{"tools":{"call":{}}}}}`; string(got) != want {
		t.Fatalf("built capabilities encode %s, want %s", got, want)
	}
	// Flags with content keep it.
	var extra ServerCapabilities
	roundTrip(t, "ServerCapabilities", `{"tasks":{"list":{"vendor":1}}}`, &extra)

	var cc ClientCapabilities
	roundTrip(t, "ClientCapabilities", `{"tasks":{"list":{},"cancel":{},"requests":{"elicitation":{"create":{}},"sampling":{"createMessage":{}}}},"elicitation":{"form":{},"url":{}}}`, &cc)
	if cc.Tasks.Requests.Elicitation.Create == nil || cc.Tasks.Requests.Sampling.CreateMessage == nil {
		t.Fatal("client task request flags lost")
	}
}

func TestValidatorRejects(t *testing.T) {
	tests := []struct {
		name, def, raw, pointer, reason string
	}{
		{"task without ttl", "Task", `{"taskId":"a","status":"working","createdAt":"c","lastUpdatedAt":"u"}`, "", "ttl"},
		{"bad status", "Task", strings.Replace(taskJSON, `"working"`, `"running"`, 1), "/status", "must be one of"},
		{"wrapped GetTaskResult", "GetTaskResult", `{"task":` + taskJSON + `}`, "", "missing properties"},
		{"ttl as string", "Task", strings.Replace(taskJSON, `60000`, `"60000"`, 1), "/ttl", "want"},
		{"nested content", "CallToolResult", `{"content":[{"type":"text"}]}`, "/content/0", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.def, []byte(tt.raw))
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("got %v, want a *ValidationError", err)
			}
			if ve.Def != tt.def || !strings.HasPrefix(ve.Pointer, tt.pointer) || !strings.Contains(ve.Reason, tt.reason) {
				t.Fatalf("error = def %q pointer %q reason %q", ve.Def, ve.Pointer, ve.Reason)
			}
			if !strings.Contains(err.Error(), tt.def) {
				t.Fatalf("message does not name the def: %s", err)
			}
			if out := ve.DetailedOutput(); out == nil || out.Valid {
				t.Fatalf("DetailedOutput = %+v", out)
			}
		})
	}
}

func TestValidatorInputErrors(t *testing.T) {
	if err := Validate("NoSuchThing", []byte(`{}`)); !errors.Is(err, ErrUnknownDef) || !strings.Contains(err.Error(), "NoSuchThing") {
		t.Fatalf("unknown def: %v", err)
	}
	for _, def := range []string{"", "Task/properties/nope", "Task/required/9"} {
		if err := Validate(def, []byte(`{}`)); !errors.Is(err, ErrUnknownDef) {
			t.Errorf("def %q: %v", def, err)
		}
	}
	if err := Validate("Task", []byte(`{"taskId":`)); !errors.Is(err, ErrInvalidJSON) {
		t.Fatalf("truncated JSON: %v", err)
	}
	if err := Validate("Task", []byte(taskJSON+` {}`)); !errors.Is(err, ErrInvalidJSON) {
		t.Fatalf("trailing data: %v", err)
	}
}

func TestValidatorConcurrent(t *testing.T) {
	v := NewValidator()
	defs := []string{"Task", "GetTaskResult", "CreateTaskResult", "ListTasksResult", "CallToolRequestParams"}
	inputs := map[string]string{
		"Task": taskJSON, "GetTaskResult": taskJSON, "CreateTaskResult": `{"task":` + taskJSON + `}`,
		"ListTasksResult": `{"tasks":[]}`, "CallToolRequestParams": `{"name":"x"}`,
	}
	errs := make(chan error, 8*50)
	done := make(chan struct{})
	for g := 0; g < 8; g++ {
		go func(g int) {
			defer func() { done <- struct{}{} }()
			for i := 0; i < 50; i++ {
				def := defs[(g+i)%len(defs)]
				if err := v.Validate(def, []byte(inputs[def])); err != nil {
					errs <- err
				}
				if err := v.Validate("Task", []byte(`{}`)); err == nil {
					errs <- errors.New("empty task accepted")
				}
			}
		}(g)
	}
	for g := 0; g < 8; g++ {
		<-done
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestFormatAssertions(t *testing.T) {
	lax, strict := NewValidator(), NewValidator(WithFormatAssertions())
	raw := []byte(`{"type":"image","mimeType":"image/png","data":"not base64!"}`)
	if err := lax.Validate("ImageContent", raw); err != nil {
		t.Fatalf("formats are annotations by default: %v", err)
	}
	if err := strict.Validate("ImageContent", raw); err == nil {
		t.Fatal("bad base64 accepted with format assertions on")
	}
	if err := strict.Validate("ImageContent", []byte(`{"type":"image","mimeType":"image/png","data":"aGk="}`)); err != nil {
		t.Fatal(err)
	}
}
