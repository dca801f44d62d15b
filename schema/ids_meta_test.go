package schema

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/mcptasks/mcptasks/tasks/wire"
)

func TestRequestID(t *testing.T) {
	tests := []struct {
		raw      string
		isString bool
		str      string
		n        int64
	}{
		{`"abc"`, true, "abc", 0},
		{`42`, false, "", 42},
		{`"42"`, true, "42", 0},
		{`"\u0061"`, true, "a", 0},
		{`-1`, false, "", -1},
	}
	for _, tt := range tests {
		var id RequestID
		if err := json.Unmarshal([]byte(tt.raw), &id); err != nil {
			t.Fatalf("%s: %v", tt.raw, err)
		}
		if id.IsString() != tt.isString || id.IsZero() {
			t.Errorf("%s: IsString %v IsZero %v", tt.raw, id.IsString(), id.IsZero())
		}
		if s, ok := id.AsString(); ok != tt.isString || s != tt.str {
			t.Errorf("%s: AsString = %q, %v", tt.raw, s, ok)
		}
		if n, ok := id.AsInt(); ok == tt.isString || n != tt.n {
			t.Errorf("%s: AsInt = %d, %v", tt.raw, n, ok)
		}
		out, _ := json.Marshal(id)
		var back RequestID
		if err := json.Unmarshal(out, &back); err != nil || back != id {
			t.Errorf("%s: round trip %s → %v", tt.raw, out, back)
		}
		if err := Validate("RequestId", out); err != nil {
			t.Errorf("%s: %v", tt.raw, err)
		}
	}
	if StringRequestID("1") == IntRequestID(1) {
		t.Error(`"1" and 1 must be different ids`)
	}
	var unicode RequestID
	_ = json.Unmarshal([]byte(`"\u0061"`), &unicode)
	if unicode != StringRequestID("a") {
		t.Error("equal strings with different escapes must be the same id")
	}
	pending := map[RequestID]string{IntRequestID(1): "one", StringRequestID("1"): "string one"}
	if len(pending) != 2 || pending[IntRequestID(1)] != "one" {
		t.Errorf("RequestID as map key: %v", pending)
	}
	var zero RequestID
	if out, _ := json.Marshal(zero); string(out) != "null" || !zero.IsZero() {
		t.Errorf("zero id encodes %s", out)
	}
	var fromNull RequestID = IntRequestID(5)
	if err := json.Unmarshal([]byte(`null`), &fromNull); err != nil || !fromNull.IsZero() {
		t.Errorf("null decodes to %v (%v), want the unset id", fromNull, err)
	}
	// Lenient: a float id decodes; the validator rejects it.
	var f RequestID
	if err := json.Unmarshal([]byte(`1.5`), &f); err != nil {
		t.Fatalf("lenient decode of 1.5: %v", err)
	}
	if out, _ := json.Marshal(f); string(out) != "1.5" {
		t.Errorf("1.5 re-encodes as %s", out)
	}
	if err := Validate("RequestId", []byte(`1.5`)); err == nil {
		t.Error("validator accepted 1.5 as a request id")
	}
}

func TestProgressToken(t *testing.T) {
	for _, tok := range []ProgressToken{StringProgressToken("p"), IntProgressToken(9)} {
		out, err := json.Marshal(tok)
		if err != nil {
			t.Fatal(err)
		}
		var back ProgressToken
		if err := json.Unmarshal(out, &back); err != nil || back != tok {
			t.Errorf("%s: %v %v", out, back, err)
		}
		if err := Validate(tok.SchemaDef(), out); err != nil {
			t.Error(err)
		}
	}
	p := ProgressNotificationParams{ProgressToken: IntProgressToken(3), Progress: 0.5}
	if err := ValidateValue(p); err != nil {
		t.Fatal(err)
	}
}

func TestMeta(t *testing.T) {
	var m Meta
	if _, ok, err := m.RelatedTask(); ok || err != nil {
		t.Fatalf("nil Meta: %v %v", ok, err)
	}
	if err := m.SetRelatedTask("t-9"); err != nil {
		t.Fatal(err)
	}
	if err := m.SetProgressToken(IntProgressToken(4)); err != nil {
		t.Fatal(err)
	}
	if err := m.SetModelImmediateResponse("on it"); err != nil {
		t.Fatal(err)
	}
	rel, ok, err := m.RelatedTask()
	if !ok || err != nil || rel.TaskID != "t-9" {
		t.Fatalf("RelatedTask = %+v %v %v", rel, ok, err)
	}
	tok, ok, err := m.ProgressToken()
	if !ok || err != nil || tok != IntProgressToken(4) {
		t.Fatalf("ProgressToken = %v %v %v", tok, ok, err)
	}
	if string(m[wire.MetaRelatedTask]) != `{"taskId":"t-9"}` {
		t.Fatalf("related-task entry %s", m[wire.MetaRelatedTask])
	}
	p := PaginatedRequestParams{Meta: m}
	if err := ValidateValue(p); err != nil {
		t.Fatal(err)
	}
	// A malformed entry is reported, not hidden.
	bad := Meta{wire.MetaRelatedTask: json.RawMessage(`"t-9"`)}
	if _, ok, err := bad.RelatedTask(); !ok || err == nil {
		t.Fatalf("malformed related-task: ok %v err %v", ok, err)
	}
	if w := WithRelatedTask("x"); len(w) != 1 {
		t.Fatalf("WithRelatedTask = %v", w)
	}
	// Absent _meta stays absent, {} stays {}.
	var r CallToolResult
	roundTrip(t, "CallToolResult", `{"content":[],"_meta":{}}`, &r)
	if r.Meta == nil {
		t.Fatal("empty _meta decoded as nil")
	}
	out, _ := json.Marshal(CallToolResult{})
	if strings.Contains(string(out), "_meta") {
		t.Fatalf("nil Meta encoded: %s", out)
	}
	if wire.MetaRelatedTask != "io.modelcontextprotocol/related-task" || wire.MetaModelImmediateResponse != "io.modelcontextprotocol/model-immediate-response" {
		t.Fatal("meta keys changed")
	}
}

func TestUnions(t *testing.T) {
	var cb ContentBlock
	if err := cb.FromTextContent(TextContent{Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	if d, err := cb.Discriminator(); err != nil || d != "text" {
		t.Fatalf("Discriminator = %q, %v", d, err)
	}
	res := CallToolResult{Content: []ContentBlock{cb}}
	if err := ValidateValue(res); err != nil {
		t.Fatal(err)
	}
	var back CallToolResult
	out, _ := json.Marshal(res)
	roundTrip(t, "CallToolResult", string(out), &back)
	tc, err := back.Content[0].AsTextContent()
	if err != nil || tc.Text != "hi" || tc.Type != "text" {
		t.Fatalf("AsTextContent = %+v, %v", tc, err)
	}
	// Unknown content decodes (lenient) and is kept byte for byte.
	var odd ContentBlock
	if err := json.Unmarshal([]byte(`{"type":"hologram","x":1}`), &odd); err != nil {
		t.Fatal(err)
	}
	if d, _ := odd.Discriminator(); d != "hologram" || string(odd.Raw()) != `{"type":"hologram","x":1}` {
		t.Fatalf("odd content: %q %s", d, odd.Raw())
	}
	if err := ValidateValue(odd); err == nil {
		t.Fatal("validator accepted unknown content type")
	}
	var zero ContentBlock
	if _, err := zero.AsTextContent(); err == nil {
		t.Fatal("AsTextContent of an unset union succeeded")
	}
	// Union of primitives inside ElicitResult.
	var er ElicitResult
	roundTrip(t, "ElicitResult", `{"action":"accept","content":{"a":"x","b":3,"c":true,"d":["p","q"]}}`, &er)
	if n, err := er.Content["b"].AsInteger(); err != nil || n != 3 {
		t.Fatalf("AsInteger = %d, %v", n, err)
	}
	if l, err := er.Content["d"].AsStringList(); err != nil || len(l) != 2 {
		t.Fatalf("AsStringList = %v, %v", l, err)
	}
	// Envelopes.
	var msg JSONRPCMessage
	if err := json.Unmarshal([]byte(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"t"}}`), &msg); err != nil {
		t.Fatal(err)
	}
	req, err := msg.AsJSONRPCRequest()
	if err != nil || req.Method != MethodTasksGet || req.ID != IntRequestID(1) {
		t.Fatalf("AsJSONRPCRequest = %+v, %v", req, err)
	}
	var params GetTaskRequestParams
	if err := json.Unmarshal(req.Params, &params); err != nil || params.TaskID != "t" {
		t.Fatalf("params %+v %v", params, err)
	}
}

func TestBagTypes(t *testing.T) {
	var payload GetTaskPayloadResult
	raw := `{"content":[{"type":"text","text":"done"}],"isError":false,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t"}}}`
	roundTrip(t, "GetTaskPayloadResult", raw, &payload)
	var ctr CallToolResult
	if err := payload.Decode(&ctr); err != nil || len(ctr.Content) != 1 {
		t.Fatalf("Decode = %+v, %v", ctr, err)
	}
	resp := JSONRPCResultResponse{ID: StringRequestID("r"), JSONRPC: JSONRPCVersion}
	out, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"id":"r","jsonrpc":"2.0","result":{}}` {
		t.Fatalf("empty result encodes %s", out)
	}
	if err := ValidateValue(resp); err != nil {
		t.Fatal(err)
	}
}

// TestSchemaSHA256 catches a schema bump without regeneration.
func TestSchemaSHA256(t *testing.T) {
	data, err := os.ReadFile("2025-11-25/schema.json")
	if errors.Is(err, os.ErrNotExist) {
		t.Skip("not-supported: schema/2025-11-25/schema.json is absent; run `make schema`")
	}
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != SchemaSHA256 {
		t.Fatalf("schema.json sha256 %s, types generated from %s: run `make generate`", got, SchemaSHA256)
	}
	src, err := os.ReadFile("SOURCE")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "sha256: "+SchemaSHA256) {
		t.Fatalf("schema/SOURCE does not pin %s", SchemaSHA256)
	}
	if SchemaVersion != "2025-11-25" {
		t.Fatalf("SchemaVersion = %q", SchemaVersion)
	}
}

// TestNoSchemaProse checks that no description or title text of the schema
// made it into the committed generated files.
func TestNoSchemaProse(t *testing.T) {
	data, err := os.ReadFile("2025-11-25/schema.json")
	if errors.Is(err, os.ErrNotExist) {
		t.Skip("not-supported: schema/2025-11-25/schema.json is absent; run `make schema`")
	}
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var prose []string
	var walk func(v any, names bool)
	walk = func(v any, names bool) {
		switch x := v.(type) {
		case map[string]any:
			for k, val := range x {
				if s, ok := val.(string); ok && !names && (k == "description" || k == "title") {
					prose = append(prose, s)
					continue
				}
				walk(val, !names && (k == "properties" || k == "$defs"))
			}
		case []any:
			for _, e := range x {
				walk(e, false)
			}
		}
	}
	walk(doc, false)
	if len(prose) < 100 {
		t.Fatalf("found only %d prose strings; the walk is broken", len(prose))
	}
	for _, file := range []string{"types_gen.go", "validation_gen.json", "types_gen_test.go"} {
		body, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(body)
		for _, p := range prose {
			// Short labels ("Tool", "Task ID") may coincide with names;
			// a sentence fragment of five words or more may not appear.
			words := strings.Fields(p)
			for i := 0; i+5 <= len(words); i++ {
				frag := strings.Join(words[i:i+5], " ")
				if strings.Contains(text, frag) {
					t.Errorf("%s contains schema prose %q", file, frag)
					break
				}
			}
		}
	}
}
