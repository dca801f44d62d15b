package schema

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"testing"

	"github.com/mcptasks/mcptasks/gen"
)

// loadIR builds the generator's IR from the committed validation schema,
// which has the same structure as schema.json minus the prose.
func loadIR(t *testing.T) *gen.IR {
	t.Helper()
	data, err := os.ReadFile("validation_gen.json")
	if err != nil {
		t.Fatalf("read validation_gen.json: %v", err)
	}
	ir, err := gen.Load(data, gen.MCPConfig())
	if err != nil {
		t.Fatalf("load IR: %v", err)
	}
	return ir
}

// jsonEqual compares two JSON documents by value.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	decode := func(x []byte) any {
		dec := json.NewDecoder(bytes.NewReader(x))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("decode %s: %v", x, err)
		}
		return v
	}
	return reflect.DeepEqual(decode(a), decode(b))
}

// TestEveryGeneratedTypeRoundTrips: for every generated type, instances
// built from the schema validate, decode into the Go type, encode again
// without loss and still validate against the type's own $def.
func TestEveryGeneratedTypeRoundTrips(t *testing.T) {
	ir := loadIR(t)
	registry := generatedTypes()
	if len(ir.Types) != len(registry) {
		t.Fatalf("IR has %d types, the generated registry %d: regenerate", len(ir.Types), len(registry))
	}
	names := make([]string, 0, len(ir.Types))
	for _, typ := range ir.Types {
		names = append(names, typ.Name)
	}
	sort.Strings(names)
	instances := 0
	for _, name := range names {
		typ, _ := ir.Lookup(name)
		newValue, ok := registry[name]
		if !ok {
			t.Errorf("%s: in the IR but not generated", name)
			continue
		}
		examples, err := ir.Examples(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(examples) == 0 {
			t.Errorf("%s: no example instance", name)
		}
		for i, ex := range examples {
			instances++
			if err := Validate(typ.Def, ex); err != nil {
				t.Errorf("%s example %d %s is not valid input: %v", name, i, ex, err)
				continue
			}
			v := newValue()
			if got := v.(interface{ SchemaDef() string }).SchemaDef(); got != typ.Def {
				t.Errorf("%s.SchemaDef() = %q, want %q", name, got, typ.Def)
			}
			if err := json.Unmarshal(ex, v); err != nil {
				t.Errorf("%s example %d: decode %s: %v", name, i, ex, err)
				continue
			}
			out, err := json.Marshal(v)
			if err != nil {
				t.Errorf("%s example %d: encode: %v", name, i, err)
				continue
			}
			if !jsonEqual(t, ex, out) {
				t.Errorf("%s example %d lost data:\n in: %s\nout: %s", name, i, ex, out)
			}
			if err := Validate(typ.Def, out); err != nil {
				t.Errorf("%s example %d: re-encoded value is invalid: %v", name, i, err)
			}
		}
	}
	t.Logf("%d generated types, %d instances round-tripped", len(names), instances)
}

// TestEveryDefHasAGoType checks the coverage promise: every $def is either
// generated, overridden by a hand-written type, or excluded with a reason.
func TestEveryDefHasAGoType(t *testing.T) {
	ir := loadIR(t)
	v := NewValidator()
	covered := map[string]string{}
	for _, typ := range ir.Types {
		covered[typ.Def] = typ.Name
	}
	for _, o := range ir.Overridden {
		covered[o.Def] = o.GoType
	}
	for _, e := range ir.Excluded {
		if e.Reason == "" {
			t.Errorf("exclusion of %s has no reason", e.Def)
		}
		covered[e.Def] = "(excluded)"
	}
	for _, def := range v.Defs() {
		if _, ok := covered[def]; !ok {
			t.Errorf("$def %s has no Go type and is not excluded", def)
		}
	}
	if n := len(v.Defs()); n < 140 {
		t.Errorf("only %d $defs in the embedded schema", n)
	}
	// The hand-written overrides exist and answer with their $def.
	for _, x := range []interface{ SchemaDef() string }{RequestID{}, ProgressToken{}} {
		if !v.exists(x.SchemaDef()) {
			t.Errorf("%T.SchemaDef() = %q is not a $def", x, x.SchemaDef())
		}
	}
}
