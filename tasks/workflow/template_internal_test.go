package workflow

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestResolve(t *testing.T) {
	args := map[string]any{"city": `Oslo","admin":true`, "n": "7"}
	outputs := map[string]any{
		"fetch": map[string]any{"temp": json.Number("12.50"), "tags": []any{"a", "b"}, "nested": map[string]any{"x": nil}},
	}
	look := func(r ref) (any, bool) {
		if r.arg != "" {
			v, ok := args[r.arg]
			return v, ok
		}
		v, ok := outputs[r.step]
		if !ok {
			return nil, false
		}
		return member(v, r.path)
	}
	for _, tc := range []struct {
		name, tmpl, want string
		unresolved       []string
	}{
		{"no injection through a value", `{"city":"{{args.city}}"}`, `{"city":"Oslo\",\"admin\":true"}`, nil},
		{"whole reference keeps the type", `{"t":"{{steps.fetch.output.temp}}","tags":"{{steps.fetch.output.tags}}"}`, `{"t":12.50,"tags":["a","b"]}`, nil},
		{"array index", `{"first":"{{steps.fetch.output.tags.1}}"}`, `{"first":"b"}`, nil},
		{"null member", `{"x":"{{steps.fetch.output.nested.x}}"}`, `{"x":null}`, nil},
		{"text interpolation", `{"s":"n={{args.n}} tags={{steps.fetch.output.tags}}"}`, `{"s":"n=7 tags=[\"a\",\"b\"]"}`, nil},
		{"unresolved stays", `{"a":"{{steps.later.output.v}}","b":"x {{steps.fetch.output.missing}}"}`,
			`{"a":"{{steps.later.output.v}}","b":"x {{steps.fetch.output.missing}}"}`,
			[]string{"{{steps.later.output.v}}", "{{steps.fetch.output.missing}}"}},
		{"keys are not templates", `{"{{args.n}}":1}`, `{"{{args.n}}":1}`, nil},
		{"unclosed braces are text", `{"a":"{{args.n"}`, `{"a":"{{args.n"}`, nil},
		{"nested arrays and objects", `{"l":[{"c":"{{args.n}}"},["{{args.n}}"]]}`, `{"l":[{"c":"7"},["7"]]}`, nil},
		{"empty template", ``, `{}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, unresolved, err := resolve(json.RawMessage(tc.tmpl), look)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("resolve = %s, want %s", got, tc.want)
			}
			slices.Sort(unresolved)
			want := slices.Clone(tc.unresolved)
			slices.Sort(want)
			if !slices.Equal(unresolved, want) {
				t.Errorf("unresolved %v, want %v", unresolved, want)
			}
		})
	}
	if _, _, err := resolve(json.RawMessage(`{"a":"{{env.HOME}}"}`), look); err == nil {
		t.Error("a reference outside args and steps was accepted")
	}
}
