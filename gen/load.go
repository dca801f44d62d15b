package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// node is one JSON Schema (sub)schema as the loader understands it. Only the
// keywords listed in load are accepted; anything else is an error that names
// the node's JSON pointer.
type node struct {
	ptr string

	types    []string // "type", as a list even when written as a string
	ref      string   // "$ref" target def name
	props    map[string]*node
	hasProps bool // "properties" was present (even if empty)
	required map[string]bool
	constVal any
	hasConst bool
	enum     []any
	addl     *node // "additionalProperties" as a schema ({} or true → empty node)
	addlTrue bool  // "additionalProperties": true
	items    *node
	anyOf    []*node
	oneOf    []*node
	allOf    []*node
	format   string
	keywords int // number of structural keywords present (0 → the empty schema {})
}

// annotation keywords carry no structure and are ignored by the generator.
var annotationKeywords = map[string]bool{
	"description": true, "title": true, "default": true, "examples": true,
	"$comment": true, "deprecated": true, "readOnly": true, "writeOnly": true,
	// A dialect marker on a $def (the extension schema repeats it on every
	// definition) changes nothing for the Go types.
	"$schema": true,
	// Range checks are left to the validator; the Go type stays float64/int64.
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	"minLength": true, "maxLength": true, "minItems": true, "maxItems": true,
	"pattern": true,
	// Key constraints are the validator's job too; the Go type stays a map.
	"propertyNames": true,
}

// document is the loaded schema file.
type document struct {
	schemaURI string
	defs      map[string]*node
}

func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the JSON document")
	}
	return v, nil
}

func load(data []byte) (*document, error) {
	v, err := decodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("gen: decode schema: %w", err)
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("gen: #: schema document is not a JSON object")
	}
	doc := &document{defs: map[string]*node{}}
	for k, val := range root {
		switch k {
		case "$schema":
			s, _ := val.(string)
			doc.schemaURI = s
		case "$defs":
		case "$id", "description", "title", "$comment":
		default:
			return nil, fmt.Errorf("gen: #/%s: unsupported top-level keyword %q", escapePointer(k), k)
		}
	}
	defs, ok := root["$defs"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("gen: #/$defs: missing or not an object")
	}
	for _, name := range sortedKeys(defs) {
		n, err := loadNode(defs[name], "#/$defs/"+escapePointer(name))
		if err != nil {
			return nil, err
		}
		doc.defs[name] = n
	}
	// Every $ref must resolve to a def.
	var check func(n *node) error
	check = func(n *node) error {
		if n == nil {
			return nil
		}
		if n.ref != "" {
			if _, ok := doc.defs[n.ref]; !ok {
				return fmt.Errorf("gen: %s: $ref to unknown def %q", n.ptr, n.ref)
			}
		}
		for _, c := range n.children() {
			if err := check(c); err != nil {
				return err
			}
		}
		return nil
	}
	for _, name := range sortedKeys(doc.defs) {
		if err := check(doc.defs[name]); err != nil {
			return nil, err
		}
	}
	return doc, nil
}

func (n *node) children() []*node {
	var out []*node
	for _, k := range sortedKeys(n.props) {
		out = append(out, n.props[k])
	}
	if n.addl != nil {
		out = append(out, n.addl)
	}
	if n.items != nil {
		out = append(out, n.items)
	}
	out = append(out, n.anyOf...)
	out = append(out, n.oneOf...)
	out = append(out, n.allOf...)
	return out
}

func loadNode(v any, ptr string) (*node, error) {
	if b, ok := v.(bool); ok {
		if b {
			return &node{ptr: ptr}, nil
		}
		return nil, fmt.Errorf("gen: %s: the false schema is not supported", ptr)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("gen: %s: schema is not an object", ptr)
	}
	n := &node{ptr: ptr}
	for _, k := range sortedKeys(m) {
		val := m[k]
		kp := ptr + "/" + escapePointer(k)
		if annotationKeywords[k] {
			continue
		}
		n.keywords++
		switch k {
		case "type":
			switch t := val.(type) {
			case string:
				n.types = []string{t}
			case []any:
				for _, e := range t {
					s, ok := e.(string)
					if !ok {
						return nil, fmt.Errorf("gen: %s: type list entry is not a string", kp)
					}
					n.types = append(n.types, s)
				}
			default:
				return nil, fmt.Errorf("gen: %s: type is neither a string nor a list", kp)
			}
		case "$ref":
			s, _ := val.(string)
			const prefix = "#/$defs/"
			if len(s) <= len(prefix) || s[:len(prefix)] != prefix {
				return nil, fmt.Errorf("gen: %s: only local #/$defs/ references are supported, got %q", kp, s)
			}
			n.ref = s[len(prefix):]
		case "properties":
			pm, ok := val.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("gen: %s: properties is not an object", kp)
			}
			n.hasProps = true
			n.props = map[string]*node{}
			for _, pk := range sortedKeys(pm) {
				c, err := loadNode(pm[pk], kp+"/"+escapePointer(pk))
				if err != nil {
					return nil, err
				}
				n.props[pk] = c
			}
		case "required":
			list, ok := val.([]any)
			if !ok {
				return nil, fmt.Errorf("gen: %s: required is not a list", kp)
			}
			n.required = map[string]bool{}
			for _, e := range list {
				s, ok := e.(string)
				if !ok {
					return nil, fmt.Errorf("gen: %s: required entry is not a string", kp)
				}
				n.required[s] = true
			}
		case "const":
			n.constVal, n.hasConst = val, true
		case "enum":
			list, ok := val.([]any)
			if !ok {
				return nil, fmt.Errorf("gen: %s: enum is not a list", kp)
			}
			n.enum = list
		case "additionalProperties":
			if b, ok := val.(bool); ok {
				if !b {
					// Closed objects are modelled like open ones: the
					// validator enforces closedness, the wire type is lenient.
					continue
				}
				n.addl, n.addlTrue = &node{ptr: kp}, true
				continue
			}
			if m, ok := val.(map[string]any); ok && len(m) == 1 && m["not"] != nil {
				// {"not": {}} is false spelled as a schema: closed, and
				// modelled like false above.
				continue
			}
			c, err := loadNode(val, kp)
			if err != nil {
				return nil, err
			}
			n.addl = c
		case "items":
			c, err := loadNode(val, kp)
			if err != nil {
				return nil, err
			}
			n.items = c
		case "anyOf", "oneOf", "allOf":
			list, ok := val.([]any)
			if !ok || len(list) == 0 {
				return nil, fmt.Errorf("gen: %s: %s is not a non-empty list", kp, k)
			}
			var subs []*node
			for i, e := range list {
				c, err := loadNode(e, fmt.Sprintf("%s/%d", kp, i))
				if err != nil {
					return nil, err
				}
				subs = append(subs, c)
			}
			switch k {
			case "anyOf":
				n.anyOf = subs
			case "oneOf":
				n.oneOf = subs
			default:
				n.allOf = subs
			}
		case "format":
			s, _ := val.(string)
			n.format = s
			n.keywords-- // annotation only in 2020-12
		default:
			return nil, fmt.Errorf("gen: %s: unsupported keyword %q", kp, k)
		}
	}
	constUnionToEnum(n)
	return n, nil
}

// constUnionToEnum rewrites {"anyOf": [{"type": "string", "const": A}, …]}
// (string constants only, nothing else beside anyOf) as the string enum
// [A, …], which is what such a union means.
func constUnionToEnum(n *node) {
	if len(n.anyOf) < 2 || n.keywords != 1 {
		return
	}
	var values []any
	for _, v := range n.anyOf {
		s, ok := v.constVal.(string)
		if !v.hasConst || !ok || !v.isType("string") || v.keywords != 2 {
			return
		}
		values = append(values, s)
	}
	n.anyOf, n.enum, n.types, n.keywords = nil, values, []string{"string"}, 2
}

// isEmpty reports whether n is the empty schema {} (anything goes).
func (n *node) isEmpty() bool { return n.keywords == 0 }

// isType reports whether n declares exactly the single JSON type t.
func (n *node) isType(t string) bool { return len(n.types) == 1 && n.types[0] == t }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
