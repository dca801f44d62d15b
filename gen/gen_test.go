package gen

import (
	"bytes"
	"encoding/json"
	"flag"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// stubs stands in for the hand-written part of package schema, so goldens
// can be type-checked on their own.
const stubs = `package schema

import "encoding/json"

type Meta map[string]json.RawMessage
type RequestID struct{ v string }
type ProgressToken struct{ v string }
`

// testConfig is the configuration of one golden case: the MCP defaults for
// names, plus the case's own exclusions and overrides from config.json.
func testConfig(t *testing.T, dir string) Config {
	t.Helper()
	cfg := MCPConfig()
	cfg.Exclusions, cfg.Overrides = nil, nil
	data, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if os.IsNotExist(err) {
		return cfg
	}
	if err != nil {
		t.Fatal(err)
	}
	var extra struct {
		Exclusions []Exclusion `json:"exclusions"`
		Overrides  []Override  `json:"overrides"`
	}
	if err := json.Unmarshal(data, &extra); err != nil {
		t.Fatalf("%s/config.json: %v", dir, err)
	}
	cfg.Exclusions, cfg.Overrides = extra.Exclusions, extra.Overrides
	return cfg
}

func TestGolden(t *testing.T) {
	// One source importer for every case: it caches what it has checked.
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil)
	dirs, err := filepath.Glob(filepath.Join("testdata", "golden", "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 10 {
		t.Fatalf("found only %d golden cases", len(dirs))
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join(dir, "schema.json"))
			if err != nil {
				t.Fatal(err)
			}
			out, err := Generate(in, testConfig(t, dir))
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			golden := filepath.Join(dir, "want.go.golden")
			if *update {
				if err := os.WriteFile(golden, out.Types, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./gen -update)", err)
			}
			if !bytes.Equal(out.Types, want) {
				t.Errorf("generated code differs from %s (run go test ./gen -update and review the diff)\n%s", golden, out.Types)
			}
			typeCheck(t, fset, imp, golden, want)
			again, err := Generate(in, testConfig(t, dir))
			if err != nil || !bytes.Equal(again.Types, out.Types) || !bytes.Equal(again.Validation, out.Validation) {
				t.Errorf("second run differs (err %v): output is not deterministic", err)
			}
		})
	}
}

// typeCheck parses and type-checks one golden file together with the stubs.
func typeCheck(t *testing.T, fset *token.FileSet, imp types.Importer, name string, src []byte) {
	t.Helper()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	if !ast.IsGenerated(f) {
		t.Errorf("%s lacks the generated-code header", name)
	}
	st, err := parser.ParseFile(fset, "stubs.go", stubs, 0)
	if err != nil {
		t.Fatal(err)
	}
	conf := types.Config{Importer: imp}
	if _, err := conf.Check("schema", fset, []*ast.File{st, f}, nil); err != nil {
		t.Fatalf("type-check %s: %v", name, err)
	}
}

func TestGenerateErrors(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		cfg     func(*Config)
		wantErr []string // substrings, the first usually a JSON pointer
	}{
		{"unknown keyword", `{"$defs":{"A":{"type":"object","patternProperties":{"^x":{}}}}}`, nil,
			[]string{"#/$defs/A/patternProperties", "unsupported keyword"}},
		{"optional nullable", `{"$defs":{"A":{"type":"object","properties":{"x":{"type":["string","null"]}}}}}`, nil,
			[]string{"#/$defs/A/properties/x", "optional and nullable"}},
		{"type list def", `{"$defs":{"Id":{"type":["string","integer"]}}}`, nil,
			[]string{"#/$defs/Id", "override"}},
		{"inline name collision", `{"$defs":{"A":{"type":"object","properties":{"params":{"type":"object","properties":{"x":{"type":"string"}}}}},"AParams":{"type":"object"}}}`, nil,
			[]string{"#/$defs/A/properties/params", "AParams", "collides"}},
		{"def name collision", `{"$defs":{"RequestId":{"type":"string"},"RequestID":{"type":"string"}}}`, nil,
			[]string{"RequestID", "collides"}},
		{"field collision", `{"$defs":{"A":{"type":"object","properties":{"taskId":{"type":"string"},"task_id":{"type":"string"}}}}}`, nil,
			[]string{"#/$defs/A", "TaskID"}},
		{"ref to excluded", `{"$defs":{"A":{"type":"object","properties":{"b":{"$ref":"#/$defs/B"}}},"B":{"type":"object"}}}`,
			func(c *Config) { c.Exclusions = []Exclusion{{Def: "B", Reason: "test"}} },
			[]string{"#/$defs/A/properties/b", "excluded"}},
		{"exclusion without reason", `{"$defs":{"B":{"type":"object"}}}`,
			func(c *Config) { c.Exclusions = []Exclusion{{Def: "B"}} },
			[]string{"no reason"}},
		{"override of unknown def", `{"$defs":{"B":{"type":"object"}}}`,
			func(c *Config) { c.Overrides = []Override{{Def: "Nope", GoType: "X"}} },
			[]string{"Nope", "no such $def"}},
		{"remote ref", `{"$defs":{"A":{"$ref":"https://example.com/x.json"}}}`, nil,
			[]string{"#/$defs/A/$ref", "local"}},
		{"dangling ref", `{"$defs":{"A":{"type":"object","properties":{"b":{"$ref":"#/$defs/Missing"}}}}}`, nil,
			[]string{"#/$defs/A/properties/b", "Missing"}},
		{"numeric enum", `{"$defs":{"A":{"type":"integer","enum":[1,2]}}}`, nil,
			[]string{"#/$defs/A", "string enums"}},
		{"ref with siblings", `{"$defs":{"A":{"type":"object","properties":{"b":{"$ref":"#/$defs/B","type":"object"}}},"B":{"type":"object"}}}`, nil,
			[]string{"#/$defs/A/properties/b", "sibling"}},
		{"false schema", `{"$defs":{"A":false}}`, nil, []string{"#/$defs/A", "false schema"}},
		{"not json", `{"$defs":`, nil, []string{"decode schema"}},
		{"no defs", `{"type":"object"}`, nil, []string{"#/type"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := MCPConfig()
			cfg.Exclusions, cfg.Overrides = nil, nil
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			_, err := Generate([]byte(tt.schema), cfg)
			if err == nil {
				t.Fatal("Generate succeeded, want an error")
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestNames(t *testing.T) {
	tests := map[string]string{
		"RequestId":                   "RequestID",
		"taskId":                      "TaskID",
		"JSONRPCRequest":              "JSONRPCRequest",
		"jsonrpc":                     "JSONRPC",
		"mimeType":                    "MIMEType",
		"websiteUrl":                  "WebsiteURL",
		"uriTemplate":                 "URITemplate",
		"ttl":                         "TTL",
		"_meta":                       "Meta",
		"$schema":                     "Schema",
		"input_required":              "InputRequired",
		"notifications/tasks/status":  "NotificationsTasksStatus",
		"resources/templates/list":    "ResourcesTemplatesList",
		"URLElicitationRequiredError": "URLElicitationRequiredError",
		"ElicitRequestURLParams":      "ElicitRequestURLParams",
		"date-time":                   "DateTime",
		"sampling/createMessage":      "SamplingCreateMessage",
	}
	for in, want := range tests {
		if got := goName(in); got != want {
			t.Errorf("goName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStripProse(t *testing.T) {
	in := `{"$defs":{"A":{"description":"An A thing.","title":"A","type":"object","properties":{"title":{"type":"string","description":"The title."},"description":{"type":"string"}},"const":{"title":"kept"}}}}`
	out, err := StripProse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var got any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"$defs": map[string]any{"A": map[string]any{
		"type": "object",
		"properties": map[string]any{
			"title":       map[string]any{"type": "string"},
			"description": map[string]any{"type": "string"},
		},
		"const": map[string]any{"title": "kept"},
	}}}
	gotJSON, _ := json.Marshal(got)
	wantJSON, _ := json.Marshal(want)
	if !bytes.Equal(gotJSON, wantJSON) {
		t.Fatalf("StripProse = %s\nwant %s", gotJSON, wantJSON)
	}
	if strings.Contains(string(out), "thing") {
		t.Fatal("prose survived")
	}
}

func TestExamplesAreDeterministic(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "golden", "union", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Load(in, MCPConfig())
	if err == nil {
		t.Fatal("MCPConfig overrides must fail on a schema without RequestId")
	}
	cfg := MCPConfig()
	cfg.Exclusions, cfg.Overrides = nil, nil
	ir, err := Load(in, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := ir.Examples("ContentBlock")
	if err != nil {
		t.Fatal(err)
	}
	if len(ex) != 2 || !strings.Contains(string(ex[0]), `"text"`) || !strings.Contains(string(ex[1]), `"image"`) {
		t.Fatalf("ContentBlock examples = %s", ex)
	}
	ex2, _ := ir.Examples("MessageValuesValue")
	if len(ex2) != 4 {
		t.Fatalf("MessageValuesValue examples = %s, want one per variant (list, string, integer, boolean)", ex2)
	}
	if _, err := ir.Examples("Nope"); err == nil {
		t.Fatal("Examples of an unknown type succeeded")
	}
}
