package gen

import (
	"encoding/json"
	"fmt"
)

// Examples returns JSON instances of the generated type named typeName that
// are valid against its schema: a "full" one with every optional property
// set, a "minimal" one with only required properties (required arrays
// empty, required+nullable values null), and for unions one per variant.
// Tests use them to prove that every generated type decodes, encodes and
// validates without loss.
func (ir *IR) Examples(typeName string) ([]json.RawMessage, error) {
	t, ok := ir.byName[typeName]
	if !ok {
		return nil, fmt.Errorf("gen: no generated type %s", typeName)
	}
	var out []json.RawMessage
	add := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("gen: example of %s: %w", typeName, err)
		}
		out = append(out, b)
		return nil
	}
	if t.Kind == KindUnion {
		src := ir.resolveNode(t.node)
		members := src.anyOf
		if members == nil {
			members = src.oneOf
		}
		for _, m := range members {
			if len(m.types) > 1 {
				for _, ty := range m.types {
					if err := add(ir.example(&node{ptr: m.ptr, types: []string{ty}, keywords: 1}, true, 0, 0)); err != nil {
						return nil, err
					}
				}
				continue
			}
			if err := add(ir.example(m, true, 0, 0)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	for _, full := range []bool{true, false} {
		if err := add(ir.example(t.node, full, 0, 0)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (ir *IR) resolveNode(n *node) *node {
	for i := 0; i < 32 && n.ref != "" && n.keywords == 1; i++ {
		n = ir.doc.defs[n.ref]
	}
	return n
}

const exampleDepth = 10

// example builds one instance of n. full sets optional properties; variant
// picks the union member at the top level (nested unions use their first).
func (ir *IR) example(n *node, full bool, depth, variant int) any {
	if depth > exampleDepth {
		full = false
	}
	n = ir.resolveNode(n)
	switch {
	case n.hasConst:
		return n.constVal
	case n.enum != nil:
		return n.enum[0]
	case len(n.allOf) > 0:
		merged := map[string]any{}
		for _, m := range n.allOf {
			if obj, ok := ir.example(m, full, depth+1, 0).(map[string]any); ok {
				rm := ir.resolveNode(m)
				for k, v := range obj {
					if _, declared := rm.props[k]; isBag(rm) && !declared {
						continue // the open part of a bag is not modelled inside allOf
					}
					merged[k] = v
				}
			}
		}
		return merged
	case len(n.anyOf) > 0:
		return ir.example(n.anyOf[variant%len(n.anyOf)], full, depth+1, 0)
	case len(n.oneOf) > 0:
		return ir.example(n.oneOf[variant%len(n.oneOf)], full, depth+1, 0)
	case n.isEmpty():
		return map[string]any{"any": []any{json.Number("1"), "x", true, nil}}
	}
	if len(n.types) > 1 {
		for _, ty := range n.types {
			if ty == "null" && !full {
				return nil
			}
		}
		for _, ty := range n.types {
			if ty != "null" {
				return ir.example(&node{ptr: n.ptr, types: []string{ty}, format: n.format, keywords: 1}, full, depth, 0)
			}
		}
		return nil
	}
	switch {
	case n.isType("string"):
		switch n.format {
		case "uri":
			return "https://example.com/a"
		case "byte":
			return "aGVsbG8="
		case "uri-template":
			return "file:///{path}"
		}
		return "s"
	case n.isType("integer"):
		return json.Number("7")
	case n.isType("number"):
		return json.Number("0.5")
	case n.isType("boolean"):
		return true
	case n.isType("array"):
		if !full {
			return []any{}
		}
		return []any{ir.example(n.items, full, depth+1, 0)}
	}
	// Objects.
	obj := map[string]any{}
	for _, p := range sortedKeys(n.props) {
		if !n.required[p] && !full {
			continue
		}
		if p == "_meta" {
			obj[p] = map[string]any{"example.com/key": "v"}
			continue
		}
		obj[p] = ir.example(n.props[p], full, depth+1, 0)
	}
	if n.addl != nil && full && (len(n.props) == 0 || isBag(n)) {
		if n.addl.isEmpty() {
			if !n.addlTrue {
				obj["extra"] = "v"
			}
		} else {
			obj["k"] = ir.example(n.addl, full, depth+1, 0)
		}
	}
	return obj
}
