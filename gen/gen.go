// Package gen turns the MCP JSON schema into Go wire types and a prose-free
// validation schema. Generate is a pure function in three stages: load the
// schema into nodes, build an intermediate representation of the Go types,
// and emit formatted source with jennifer. cmd/gen does the file IO.
package gen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Output is what Generate produces.
type Output struct {
	// Types is the formatted Go source of the wire types.
	Types []byte
	// Validation is the schema with every description and title string
	// removed, as indented JSON with sorted keys.
	Validation []byte
	// TestRegistry is the Go source of a _test.go file in the same package
	// with a constructor for every generated type (generatedTypes()).
	TestRegistry []byte
	// SHA256 is the hex sha256 of the input schema.
	SHA256 string
	// IR is the intermediate representation the source was emitted from.
	IR *IR
}

// Generate converts schemaJSON into Go source and the validation schema.
// The result depends only on its inputs: the same bytes and Config always
// yield byte-identical output.
func Generate(schemaJSON []byte, cfg Config) (Output, error) {
	if cfg.Package == "" || cfg.SchemaVersion == "" || cfg.Generator == "" {
		return Output{}, fmt.Errorf("gen: Config needs Package, SchemaVersion and Generator")
	}
	if cfg.SchemaFile == "" {
		cfg.SchemaFile = "schema.json"
	}
	sum := sha256.Sum256(schemaJSON)
	sha := hex.EncodeToString(sum[:])
	ir, err := Load(schemaJSON, cfg)
	if err != nil {
		return Output{}, err
	}
	src, err := emit(ir, sha)
	if err != nil {
		return Output{}, err
	}
	reg, err := emitRegistry(ir)
	if err != nil {
		return Output{}, err
	}
	val, err := StripProse(schemaJSON)
	if err != nil {
		return Output{}, err
	}
	return Output{Types: src, Validation: val, TestRegistry: reg, SHA256: sha, IR: ir}, nil
}

// Load runs the first two stages (load and IR) without emitting code.
func Load(schemaJSON []byte, cfg Config) (*IR, error) {
	doc, err := load(schemaJSON)
	if err != nil {
		return nil, err
	}
	return buildIR(doc, cfg)
}

// StripProse removes every "description" and "title" member whose value is a
// string (annotations), keeping properties that happen to use those names,
// and renders the rest as indented JSON with sorted keys.
func StripProse(schemaJSON []byte) ([]byte, error) {
	v, err := decodeJSON(schemaJSON)
	if err != nil {
		return nil, fmt.Errorf("gen: decode schema: %w", err)
	}
	v = strip(v, false)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("gen: encode validation schema: %w", err)
	}
	return buf.Bytes(), nil
}

// strip walks a decoded schema. inNames is true for objects whose keys are
// names (properties, $defs), not keywords.
func strip(v any, inNames bool) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, val := range t {
			if !inNames && (k == "description" || k == "title") {
				if _, isString := val.(string); isString {
					continue
				}
			}
			if !inNames && (k == "const" || k == "enum" || k == "default" || k == "examples") {
				out[k] = val // instance data, not schemas
				continue
			}
			names := !inNames && (k == "properties" || k == "$defs" || k == "patternProperties" || k == "dependentSchemas")
			out[k] = strip(val, names)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = strip(e, false)
		}
		return out
	default:
		return v
	}
}
