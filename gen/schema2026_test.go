package gen

import (
	"strings"
	"testing"
)

// The shapes the 2026-07-28 core and the tasks extension schemas use, each
// mapped to the Go type it means.
func TestSchema2026Shapes(t *testing.T) {
	cfg := Config{Package: "x", SchemaVersion: "t", Generator: "t", MetaType: "Meta"}
	tests := []struct {
		name   string
		schema string
		want   []string // substrings of the generated source
	}{
		{"nullable anyOf", `{"$defs":{"T":{"type":"object","properties":{"ttlMs":{"anyOf":[{"type":"integer","maximum":9},{"type":"null"}]}},"required":["ttlMs"]}}}`,
			[]string{"TTLMs *int64 `json:\"ttlMs\"`"}},
		{"string const union is an enum", `{"$defs":{"T":{"type":"object","properties":{"s":{"anyOf":[{"type":"string","const":"a"},{"type":"string","const":"b"}]}},"required":["s"]}}}`,
			[]string{"type TS string", `TSA TS = "a"`}},
		{"inline enum that spells out a def of its name is the def", `{"$defs":{"TStatus":{"type":"string","enum":["a","b"]},"T":{"type":"object","properties":{"status":{"anyOf":[{"type":"string","const":"b"},{"type":"string","const":"a"}]}},"required":["status"]}}}`,
			[]string{"Status TStatus `json:\"status\"`", "#/$defs/TStatus of"}},
		{"map def", `{"$defs":{"V":{"type":"object","properties":{"x":{"type":"string"}}},"M":{"type":"object","additionalProperties":{"$ref":"#/$defs/V"}}}}`,
			[]string{"type M map[string]V"}},
		{"closed by not and dialect markers", `{"$defs":{"C":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":{"not":{}},"propertyNames":{"pattern":"^x"}}}}`,
			[]string{"type C struct{}"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Generate([]byte(tc.schema), cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(out.Types), w) {
					t.Errorf("missing %q in:\n%s", w, out.Types)
				}
			}
		})
	}
}
