package exttasks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/mcptasks/mcptasks/gen"
)

// TestSchemaSHA256 checks that the generated types, the SOURCE pin and the
// placed input (when present) agree.
func TestSchemaSHA256(t *testing.T) {
	src, err := os.ReadFile("SOURCE")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "sha256: "+SchemaSHA256) {
		t.Fatalf("SOURCE does not pin %s", SchemaSHA256)
	}
	data, err := os.ReadFile("schema.json")
	if errors.Is(err, os.ErrNotExist) {
		t.Skip("not-supported: schema.json is absent; run `make schema`")
	}
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != SchemaSHA256 {
		t.Fatalf("schema.json sha256 %s, types generated from %s: run `make generate`", got, SchemaSHA256)
	}
}

// TestEveryGeneratedTypeRoundTrips: every generated type decodes and
// re-encodes the generator's example instances without loss, and both
// validate against the type's $def.
func TestEveryGeneratedTypeRoundTrips(t *testing.T) {
	data, err := os.ReadFile("validation_gen.json")
	if err != nil {
		t.Fatal(err)
	}
	ir, err := gen.Load(data, gen.ExtTasksConfig())
	if err != nil {
		t.Fatal(err)
	}
	registry := generatedTypes()
	if len(ir.Types) != len(registry) {
		t.Fatalf("IR has %d types, the generated registry %d: regenerate", len(ir.Types), len(registry))
	}
	names := make([]string, 0, len(ir.Types))
	for _, typ := range ir.Types {
		names = append(names, typ.Name)
	}
	sort.Strings(names)
	for _, name := range names {
		typ, _ := ir.Lookup(name)
		examples, err := ir.Examples(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, ex := range examples {
			// The example builder fills every _meta with a neutral entry; the
			// 2026 core requires named members there, so a complaint about
			// _meta alone is the example's, not the type's.
			if err := Validate(typ.Def, ex); err != nil && !strings.Contains(err.Error(), "_meta") {
				t.Errorf("%s example %d %s is not valid input: %v", name, i, ex, err)
				continue
			}
			v := registry[name]()
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
		}
	}
}

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
