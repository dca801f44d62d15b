package gen

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Kind says how a generated type is shaped in Go.
type Kind int

// The kinds of generated types.
const (
	// KindStruct is an object with declared properties.
	KindStruct Kind = iota
	// KindEnum is a string with a closed set of values.
	KindEnum
	// KindScalar is a named string, integer, number or boolean.
	KindScalar
	// KindUnion is an anyOf/oneOf kept as raw JSON with typed accessors.
	KindUnion
	// KindBag is an open object kept as raw JSON.
	KindBag
)

// GoKind says how a field's Go type is built.
type GoKind int

// The shapes of Go type expressions.
const (
	// GoBuiltin is a predeclared type (string, int64, float64, bool).
	GoBuiltin GoKind = iota
	// GoNamed is a type declared in the target package.
	GoNamed
	// GoRaw is encoding/json.RawMessage.
	GoRaw
	// GoSlice is a slice of Elem.
	GoSlice
	// GoMap is a map from string to Elem.
	GoMap
	// GoPointer is a pointer to Elem.
	GoPointer
)

// GoType is a Go type expression.
type GoType struct {
	Kind GoKind  // shape of the expression
	Name string  // builtin or named type name
	Elem *GoType // element of a slice, map or pointer
}

func builtin(name string) GoType { return GoType{Kind: GoBuiltin, Name: name} }
func named(name string) GoType   { return GoType{Kind: GoNamed, Name: name} }
func raw() GoType                { return GoType{Kind: GoRaw} }
func sliceOf(e GoType) GoType    { return GoType{Kind: GoSlice, Elem: &e} }
func mapOf(e GoType) GoType      { return GoType{Kind: GoMap, Elem: &e} }
func pointerTo(e GoType) GoType  { return GoType{Kind: GoPointer, Elem: &e} }
func (t GoType) fillable() bool  { return t.Kind == GoSlice || t.Kind == GoMap }

// String renders the type as Go source ("[]ContentBlock", "*int64").
func (t GoType) String() string { return t.goString() }

func (t GoType) goString() string {
	switch t.Kind {
	case GoBuiltin, GoNamed:
		return t.Name
	case GoRaw:
		return "json.RawMessage"
	case GoSlice:
		return "[]" + t.Elem.goString()
	case GoMap:
		return "map[string]" + t.Elem.goString()
	default:
		return "*" + t.Elem.goString()
	}
}

// Type is one generated Go type.
type Type struct {
	Name    string // Go name
	Def     string // path below #/$defs/ ("Task", "CancelTaskRequest/properties/params")
	Pointer string // JSON pointer of the schema ("#/$defs/Task")
	Kind    Kind   // how the type is shaped in Go

	Fields []*Field  // KindStruct: direct fields, sorted by JSON name
	Embeds []string  // KindStruct: embedded generated types (allOf)
	Values []string  // KindEnum: the values, sorted
	Base   GoType    // KindScalar: underlying builtin
	Vars   []Variant // KindUnion: variants in schema order
	Disc   string    // KindUnion: discriminator property, "" when none
	// Fill: the struct has required slices, maps or bags that MarshalJSON
	// turns from nil into [] or {}.
	Fill bool
	// Embedded: another type embeds this one (allOf), so it must not get
	// JSON methods that would be promoted.
	Embedded bool

	node *node
}

// Field is one struct field.
type Field struct {
	Name     string // Go name
	JSON     string // wire name
	Type     GoType // Go type of the field
	Required bool   // listed in "required"
	Nullable bool   // required and may be null: pointer without omitempty
	Omit     string // "", "omitempty" or "omitzero"
	Fill     string // "" or the JSON literal MarshalJSON uses for nil ("[]", "{}")
	Const    any    // const value when the property is a const

	node *node
}

// Variant is one member of a union.
type Variant struct {
	Name  string // accessor suffix: AsName / FromName
	Type  GoType // Go type the variant decodes to
	Const string // discriminator value, when the union has one
	node  *node
}

// Constant is one generated package constant.
type Constant struct {
	Name  string // Go name ("MethodTasksGet")
	Value string // string value ("tasks/get")
}

// IR is the intermediate representation: every type to emit plus the
// generated constants, all in deterministic order.
type IR struct {
	Types          []*Type     // every generated type, sorted by Go name
	MethodConsts   []Constant  // one per distinct "method" const, sorted
	JSONRPCVersion string      // the "jsonrpc" const shared by every envelope
	Excluded       []Exclusion // $defs without a type, sorted
	Overridden     []Override  // $defs mapped to hand-written types, sorted

	cfg    Config
	doc    *document
	byName map[string]*Type
	defGo  map[string]string // def name → Go type name (generated or overridden)
}

// Lookup returns the generated type with Go name name.
func (ir *IR) Lookup(name string) (*Type, bool) {
	t, ok := ir.byName[name]
	return t, ok
}

type builder struct {
	ir       *IR
	excluded map[string]string
	override map[string]string
	methods  map[string]string // value → pointer where first seen
	jsonrpc  map[string]string
	reserved map[string]string // Go name → JSON pointer of the def that owns it
}

func buildIR(doc *document, cfg Config) (*IR, error) {
	b := &builder{
		ir: &IR{
			cfg: cfg, doc: doc,
			byName: map[string]*Type{},
			defGo:  map[string]string{},
		},
		excluded: map[string]string{},
		override: map[string]string{},
		methods:  map[string]string{},
		jsonrpc:  map[string]string{},
		reserved: map[string]string{},
	}
	for _, e := range cfg.Exclusions {
		if _, ok := doc.defs[e.Def]; !ok {
			return nil, fmt.Errorf("gen: exclusion of %q: no such $def", e.Def)
		}
		if strings.TrimSpace(e.Reason) == "" {
			return nil, fmt.Errorf("gen: exclusion of %q has no reason", e.Def)
		}
		b.excluded[e.Def] = e.Reason
		b.ir.Excluded = append(b.ir.Excluded, e)
	}
	for _, o := range cfg.Overrides {
		if _, ok := doc.defs[o.Def]; !ok {
			return nil, fmt.Errorf("gen: override of %q: no such $def", o.Def)
		}
		if _, ok := b.excluded[o.Def]; ok {
			return nil, fmt.Errorf("gen: %q is both excluded and overridden", o.Def)
		}
		b.override[o.Def] = o.GoType
		b.ir.defGo[o.Def] = o.GoType
		b.ir.Overridden = append(b.ir.Overridden, o)
	}
	sort.Slice(b.ir.Excluded, func(i, j int) bool { return b.ir.Excluded[i].Def < b.ir.Excluded[j].Def })
	sort.Slice(b.ir.Overridden, func(i, j int) bool { return b.ir.Overridden[i].Def < b.ir.Overridden[j].Def })
	// Names first, so references resolve regardless of order.
	reserved := b.reserved
	for _, o := range cfg.Overrides {
		reserved[o.GoType] = "#/$defs/" + o.Def
	}
	if cfg.MetaType != "" {
		reserved[cfg.MetaType] = "the hand-written _meta type"
	}
	for _, name := range sortedKeys(doc.defs) {
		if _, ok := b.excluded[name]; ok {
			continue
		}
		if _, ok := b.override[name]; ok {
			continue
		}
		gn := goName(name)
		if prev, ok := reserved[gn]; ok {
			return nil, fmt.Errorf("gen: #/$defs/%s: Go name %s collides with %s", escapePointer(name), gn, prev)
		}
		reserved[gn] = "#/$defs/" + escapePointer(name)
		b.ir.defGo[name] = gn
	}
	for _, name := range sortedKeys(doc.defs) {
		if _, ok := b.excluded[name]; ok {
			continue
		}
		if _, ok := b.override[name]; ok {
			continue
		}
		if _, err := b.defType(b.ir.defGo[name], doc.defs[name]); err != nil {
			return nil, err
		}
	}
	// Embedded types must not carry JSON methods that would be promoted.
	for _, name := range sortedKeys(b.ir.byName) {
		t := b.ir.byName[name]
		for _, e := range t.Embeds {
			et := b.ir.byName[e]
			et.Embedded = true
			if et.Fill {
				return nil, fmt.Errorf("gen: %s: embedded type %s needs a MarshalJSON, which would be promoted into %s", t.Pointer, e, t.Name)
			}
		}
	}
	for _, t := range b.ir.byName {
		b.ir.Types = append(b.ir.Types, t)
	}
	sort.Slice(b.ir.Types, func(i, j int) bool { return b.ir.Types[i].Name < b.ir.Types[j].Name })
	for _, v := range sortedKeys(b.methods) {
		name := "Method" + goName(v)
		for _, c := range b.ir.MethodConsts {
			if c.Name == name {
				return nil, fmt.Errorf("gen: %s: method constant %s for %q collides with the one for %q", b.methods[v], name, v, c.Value)
			}
		}
		b.ir.MethodConsts = append(b.ir.MethodConsts, Constant{Name: name, Value: v})
	}
	sort.Slice(b.ir.MethodConsts, func(i, j int) bool { return b.ir.MethodConsts[i].Name < b.ir.MethodConsts[j].Name })
	if len(b.jsonrpc) > 1 {
		return nil, fmt.Errorf("gen: the jsonrpc const differs between defs: %v", sortedKeys(b.jsonrpc))
	}
	for v := range b.jsonrpc {
		b.ir.JSONRPCVersion = v
	}
	return b.ir, nil
}

func (b *builder) add(t *Type) error {
	if prev, ok := b.ir.byName[t.Name]; ok {
		return fmt.Errorf("gen: %s: Go type name %s collides with %s", t.Pointer, t.Name, prev.Pointer)
	}
	if prev, ok := b.reserved[t.Name]; ok && prev != t.Pointer {
		return fmt.Errorf("gen: %s: Go type name %s collides with %s", t.Pointer, t.Name, prev)
	}
	b.ir.byName[t.Name] = t
	return nil
}

// resolve follows a chain of pure $ref schemas to the def that has content.
func (b *builder) resolve(n *node) *node {
	for i := 0; i < 32 && n.ref != "" && n.keywords == 1; i++ {
		n = b.ir.doc.defs[n.ref]
	}
	return n
}

// isBag reports whether n is an open object whose only declared property
// (if any) is _meta: it is kept as raw JSON.
func isBag(n *node) bool {
	if n.addl == nil || !n.addl.isEmpty() {
		return false
	}
	if len(n.types) > 0 && !n.isType("object") {
		return false
	}
	for k := range n.props {
		if k != "_meta" {
			return false
		}
	}
	return n.ref == "" && n.anyOf == nil && n.oneOf == nil && n.allOf == nil
}

// isPresenceFlag reports whether n is the capability pattern: an object with
// no declared properties and additionalProperties true.
func isPresenceFlag(n *node) bool {
	return isBag(n) && n.addlTrue && len(n.props) == 0
}

// defType builds the named type for a $def or an inline schema.
func (b *builder) defType(name string, n *node) (*Type, error) {
	t := &Type{Name: name, Def: strings.TrimPrefix(n.ptr, "#/$defs/"), Pointer: n.ptr, node: n}
	src := b.resolve(n)
	switch {
	case len(src.allOf) > 0:
		t.Kind = KindStruct
		if err := b.allOf(t, src); err != nil {
			return nil, err
		}
	case len(src.anyOf) > 0 || len(src.oneOf) > 0:
		t.Kind = KindUnion
		if err := b.union(t, src); err != nil {
			return nil, err
		}
	case src.enum != nil:
		t.Kind = KindEnum
		if !src.isType("string") {
			return nil, fmt.Errorf("gen: %s: only string enums are supported", src.ptr)
		}
		for _, v := range src.enum {
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("gen: %s: enum value %v is not a string", src.ptr, v)
			}
			t.Values = append(t.Values, s)
		}
		sort.Strings(t.Values)
		seen := map[string]string{}
		for _, v := range t.Values {
			c := name + goName(v)
			if p, ok := seen[c]; ok {
				return nil, fmt.Errorf("gen: %s: enum values %q and %q both map to %s", src.ptr, p, v, c)
			}
			seen[c] = v
		}
	case isBag(src):
		t.Kind = KindBag
	case src.isType("object") && len(src.props) == 0 && src.addl != nil && !src.addl.isEmpty():
		// A map def (the extension's InputRequests): a named map type.
		vt, _, err := b.typeOf(name+"Value", src.addl)
		if err != nil {
			return nil, err
		}
		t.Kind, t.Base = KindScalar, mapOf(vt)
	case src.isType("object") || src.props != nil:
		t.Kind = KindStruct
		if err := b.structFields(t, src); err != nil {
			return nil, err
		}
	case len(src.types) == 1:
		bt, err := scalarType(src)
		if err != nil {
			return nil, err
		}
		t.Kind, t.Base = KindScalar, bt
	default:
		return nil, fmt.Errorf("gen: %s: unsupported schema shape (types %v); add an override", src.ptr, src.types)
	}
	if err := b.add(t); err != nil {
		return nil, err
	}
	return t, nil
}

func scalarType(n *node) (GoType, error) {
	if len(n.types) != 1 {
		return GoType{}, fmt.Errorf("gen: %s: a list of types %v is only supported as required+nullable or inside a union", n.ptr, n.types)
	}
	switch n.types[0] {
	case "string":
		return builtin("string"), nil
	case "integer":
		return builtin("int64"), nil
	case "number":
		return builtin("float64"), nil
	case "boolean":
		return builtin("bool"), nil
	}
	return GoType{}, fmt.Errorf("gen: %s: type %q is not a scalar", n.ptr, n.types[0])
}

func (b *builder) structFields(t *Type, n *node) error {
	seen := map[string]string{}
	for _, prop := range sortedKeys(n.props) {
		f, err := b.field(t.Name, prop, n.props[prop], n.required[prop])
		if err != nil {
			return err
		}
		if prev, ok := seen[f.Name]; ok {
			return fmt.Errorf("gen: %s: properties %q and %q both map to field %s", n.ptr, prev, prop, f.Name)
		}
		seen[f.Name] = prop
		t.Fields = append(t.Fields, f)
		if f.Fill != "" {
			t.Fill = true
		}
	}
	for r := range n.required {
		if _, ok := n.props[r]; !ok {
			return fmt.Errorf("gen: %s: required property %q is not declared", n.ptr, r)
		}
	}
	return nil
}

// field maps one property to a struct field.
func (b *builder) field(parent, prop string, n *node, required bool) (*Field, error) {
	f := &Field{Name: goName(prop), JSON: prop, Required: required, node: n}
	if f.Name == "" {
		return nil, fmt.Errorf("gen: %s: property %q has no usable Go name", n.ptr, prop)
	}
	childName := parent + f.Name
	if prop == "_meta" && b.ir.cfg.MetaType != "" {
		if !(n.isType("object") || len(n.types) == 0) {
			return nil, fmt.Errorf("gen: %s: _meta is not an object", n.ptr)
		}
		f.Type = named(b.ir.cfg.MetaType)
		if required {
			f.Fill = "{}"
		} else {
			f.Omit = "omitzero"
		}
		return f, nil
	}
	if n.hasConst {
		switch v := n.constVal.(type) {
		case string:
			f.Type = builtin("string")
			switch prop {
			case "method":
				if _, ok := b.methods[v]; !ok {
					b.methods[v] = n.ptr
				}
			case "jsonrpc":
				b.jsonrpc[v] = n.ptr
			}
		case json.Number:
			if _, err := v.Int64(); err != nil {
				return nil, fmt.Errorf("gen: %s: non-integer numeric const %s", n.ptr, v)
			}
			f.Type = builtin("int64")
		case bool:
			f.Type = builtin("bool")
		default:
			return nil, fmt.Errorf("gen: %s: unsupported const value %v", n.ptr, v)
		}
		f.Const = n.constVal
		if !required {
			f.Type, f.Omit = pointerTo(f.Type), "omitempty"
		}
		return f, nil
	}
	// anyOf [scalar, null] is the same as type [scalar, "null"].
	if alt, ok := nullableAnyOf(n); ok {
		n = alt
	}
	// Required + nullable.
	if len(n.types) == 2 && (n.types[0] == "null" || n.types[1] == "null") {
		other := n.types[0]
		if other == "null" {
			other = n.types[1]
		}
		if !required {
			return nil, fmt.Errorf("gen: %s: optional and nullable at once is not supported (absent and null would be indistinguishable); add an override", n.ptr)
		}
		bt, err := scalarType(&node{ptr: n.ptr, types: []string{other}})
		if err != nil {
			return nil, err
		}
		f.Type, f.Nullable = pointerTo(bt), true
		return f, nil
	}
	gt, kind, err := b.typeOf(childName, n)
	if err != nil {
		return nil, err
	}
	f.Type = gt
	switch {
	case required && (gt.fillable()):
		if gt.Kind == GoSlice {
			f.Fill = "[]"
		} else {
			f.Fill = "{}"
		}
	case required && gt.Kind == GoRaw && kind == KindBag:
		f.Fill = "{}"
	case required:
	case gt.Kind == GoSlice || gt.Kind == GoMap:
		f.Omit = "omitzero"
	case gt.Kind == GoRaw:
		f.Omit = "omitempty"
	case gt.Kind == GoNamed && kind == KindBag:
		if isPresenceFlag(b.resolve(n)) && n.ref == "" {
			f.Type, f.Omit = pointerTo(gt), "omitempty"
		} else {
			f.Omit = "omitempty"
		}
	default:
		f.Type, f.Omit = pointerTo(gt), "omitempty"
	}
	return f, nil
}

// typeOf maps a schema at a property, item or value position to a Go type;
// inline objects, enums and unions become new named types called name.
func (b *builder) typeOf(name string, n *node) (GoType, Kind, error) {
	if n.ref != "" {
		if n.keywords != 1 {
			return GoType{}, 0, fmt.Errorf("gen: %s: $ref with sibling keywords is not supported", n.ptr)
		}
		if reason, ok := b.excluded[n.ref]; ok {
			return GoType{}, 0, fmt.Errorf("gen: %s: refers to excluded $def %s (%s)", n.ptr, n.ref, reason)
		}
		gn := b.ir.defGo[n.ref]
		if _, ok := b.override[n.ref]; ok {
			return named(gn), KindScalar, nil
		}
		return named(gn), b.kindOf(b.ir.doc.defs[n.ref]), nil
	}
	switch {
	case n.isEmpty():
		return raw(), KindScalar, nil
	case n.enum != nil && b.sameEnumDef(name, n) != "":
		// An inline enum spelling out a $def of the same name (the
		// extension schema inlines TaskStatus) is that def.
		return named(b.ir.defGo[b.sameEnumDef(name, n)]), KindEnum, nil
	case len(n.allOf) > 0 || len(n.anyOf) > 0 || len(n.oneOf) > 0 || n.enum != nil:
		t, err := b.defType(name, n)
		if err != nil {
			return GoType{}, 0, err
		}
		return named(t.Name), t.Kind, nil
	case isPresenceFlag(n):
		t, err := b.defType(name, n)
		if err != nil {
			return GoType{}, 0, err
		}
		return named(t.Name), t.Kind, nil
	case isBag(n):
		return raw(), KindBag, nil
	case n.isType("array"):
		if n.items == nil {
			return GoType{}, 0, fmt.Errorf("gen: %s: array without items", n.ptr)
		}
		et, _, err := b.typeOf(name+"Item", n.items)
		if err != nil {
			return GoType{}, 0, err
		}
		return sliceOf(et), KindScalar, nil
	case n.isType("object") && len(n.props) == 0 && n.addl != nil:
		vt, _, err := b.typeOf(name+"Value", n.addl)
		if err != nil {
			return GoType{}, 0, err
		}
		return mapOf(vt), KindScalar, nil
	case n.isType("object") || len(n.props) > 0:
		t, err := b.defType(name, n)
		if err != nil {
			return GoType{}, 0, err
		}
		return named(t.Name), t.Kind, nil
	default:
		bt, err := scalarType(n)
		if err != nil {
			return GoType{}, 0, err
		}
		return bt, KindScalar, nil
	}
}

// kindOf classifies a $def without building it.
func (b *builder) kindOf(n *node) Kind {
	n = b.resolve(n)
	switch {
	case len(n.allOf) > 0:
		return KindStruct
	case len(n.anyOf) > 0 || len(n.oneOf) > 0:
		return KindUnion
	case n.enum != nil:
		return KindEnum
	case isBag(n):
		return KindBag
	case n.isType("object") || n.props != nil:
		return KindStruct
	}
	return KindScalar
}

// allOf builds a struct from an allOf. Pure references to structs are
// embedded (flat on the wire); references to bags contribute their declared
// properties; when an inline object takes part, everything is flattened into
// one struct whose inline properties override the referenced ones.
func (b *builder) allOf(t *Type, n *node) error {
	if n.props != nil || n.anyOf != nil || n.oneOf != nil {
		return fmt.Errorf("gen: %s: allOf next to other structural keywords is not supported", n.ptr)
	}
	inline := false
	for _, m := range n.allOf {
		if m.ref == "" {
			inline = true
		}
	}
	if !inline {
		seen := map[string]string{}
		for _, m := range n.allOf {
			target := b.resolve(b.ir.doc.defs[m.ref])
			switch b.kindOf(target) {
			case KindStruct:
				if len(target.allOf) > 0 {
					return fmt.Errorf("gen: %s: embedding an allOf type is not supported", m.ptr)
				}
				for _, p := range sortedKeys(target.props) {
					if prev, ok := seen[p]; ok {
						return fmt.Errorf("gen: %s: property %q appears in both %s and %s", n.ptr, p, prev, m.ref)
					}
					seen[p] = m.ref
				}
				t.Embeds = append(t.Embeds, b.ir.defGo[m.ref])
			case KindBag:
				for _, p := range sortedKeys(target.props) {
					if prev, ok := seen[p]; ok {
						return fmt.Errorf("gen: %s: property %q appears in both %s and %s", n.ptr, p, prev, m.ref)
					}
					seen[p] = m.ref
					f, err := b.field(t.Name, p, target.props[p], target.required[p])
					if err != nil {
						return err
					}
					t.Fields = append(t.Fields, f)
				}
			default:
				return fmt.Errorf("gen: %s: allOf member is neither an object nor a bag", m.ptr)
			}
		}
		return nil
	}
	merged := &node{ptr: n.ptr, types: []string{"object"}, props: map[string]*node{}, required: map[string]bool{}, keywords: 1}
	var visit func(m *node) error
	visit = func(m *node) error {
		m = b.resolve(m)
		if len(m.allOf) > 0 {
			for _, s := range m.allOf {
				if err := visit(s); err != nil {
					return err
				}
			}
			return nil
		}
		if !(m.isType("object") || m.props != nil) || m.anyOf != nil || m.oneOf != nil {
			return fmt.Errorf("gen: %s: allOf member is not a plain object", m.ptr)
		}
		for p, pn := range m.props {
			merged.props[p] = pn
		}
		for r := range m.required {
			merged.required[r] = true
		}
		return nil
	}
	for _, m := range n.allOf {
		if err := visit(m); err != nil {
			return err
		}
	}
	return b.structFields(t, merged)
}

// union builds the variants of an anyOf/oneOf.
func (b *builder) union(t *Type, n *node) error {
	if n.props != nil || n.allOf != nil || (n.anyOf != nil && n.oneOf != nil) {
		return fmt.Errorf("gen: %s: a union next to other structural keywords is not supported", n.ptr)
	}
	members := n.anyOf
	if members == nil {
		members = n.oneOf
	}
	seen := map[string]string{}
	addVar := func(v Variant) error {
		if prev, ok := seen[v.Name]; ok {
			return fmt.Errorf("gen: %s: union variants %s and %s both map to accessor %s", n.ptr, prev, v.node.ptr, v.Name)
		}
		seen[v.Name] = v.node.ptr
		t.Vars = append(t.Vars, v)
		return nil
	}
	for i, m := range members {
		switch {
		case m.ref != "":
			gt, _, err := b.typeOf("", m)
			if err != nil {
				return err
			}
			if err := addVar(Variant{Name: gt.Name, Type: gt, node: m}); err != nil {
				return err
			}
		case len(m.types) > 1 && m.keywords == 1:
			for _, ty := range m.types {
				if ty == "null" {
					return fmt.Errorf("gen: %s: null inside a union is not supported", m.ptr)
				}
				bt, err := scalarType(&node{ptr: m.ptr, types: []string{ty}})
				if err != nil {
					return err
				}
				if err := addVar(Variant{Name: goName(ty), Type: bt, node: m}); err != nil {
					return err
				}
			}
		default:
			vname := fmt.Sprintf("%sVariant%d", t.Name, i)
			gt, _, err := b.typeOf(vname, m)
			if err != nil {
				return err
			}
			if err := addVar(Variant{Name: variantName(gt, i), Type: gt, node: m}); err != nil {
				return err
			}
		}
	}
	// A discriminator: one property that is a string const in every
	// variant, with distinct values.
	var cands map[string]bool
	for _, v := range t.Vars {
		props := map[string]bool{}
		if v.node.ref != "" {
			target := b.resolve(b.ir.doc.defs[v.node.ref])
			for p, pn := range target.props {
				if s, ok := pn.constVal.(string); ok && pn.hasConst && s != "" {
					props[p] = true
				}
			}
		}
		if cands == nil {
			cands = props
			continue
		}
		for p := range cands {
			if !props[p] {
				delete(cands, p)
			}
		}
	}
	for _, p := range sortedKeys(cands) {
		vals := map[string]bool{}
		distinct := true
		for _, v := range t.Vars {
			s := b.resolve(b.ir.doc.defs[v.node.ref]).props[p].constVal.(string)
			if vals[s] {
				distinct = false
			}
			vals[s] = true
		}
		if distinct {
			t.Disc = p
			for i := range t.Vars {
				t.Vars[i].Const = b.resolve(b.ir.doc.defs[t.Vars[i].node.ref]).props[p].constVal.(string)
			}
			break
		}
	}
	return nil
}

func variantName(gt GoType, i int) string {
	switch gt.Kind {
	case GoBuiltin:
		switch gt.Name {
		case "int64":
			return "Integer"
		case "float64":
			return "Number"
		case "bool":
			return "Boolean"
		}
		return goName(gt.Name)
	case GoNamed:
		return gt.Name
	case GoSlice:
		return variantName(*gt.Elem, i) + "List"
	case GoMap:
		return variantName(*gt.Elem, i) + "Map"
	case GoRaw:
		return fmt.Sprintf("Raw%d", i)
	}
	return fmt.Sprintf("Variant%d", i)
}

// nullableAnyOf rewrites a schema of the form {"anyOf": [{"type": T}, {"type":
// "null"}]} (in either order, T a single scalar type, no other structural
// keywords) as {"type": [T, "null"]}; ok is false for anything else.
func nullableAnyOf(n *node) (*node, bool) {
	if len(n.anyOf) != 2 || n.keywords != 1 {
		return nil, false
	}
	a, b := n.anyOf[0], n.anyOf[1]
	if a.isType("null") {
		a, b = b, a
	}
	if !b.isType("null") || b.keywords != 1 || len(a.types) != 1 || a.keywords != 1 || a.types[0] == "null" {
		return nil, false
	}
	switch a.types[0] {
	case "string", "integer", "number", "boolean":
	default:
		return nil, false
	}
	return &node{ptr: n.ptr, types: []string{a.types[0], "null"}, keywords: 1}, true
}

// sameEnumDef returns the $def whose Go name is name when it is a string
// enum with exactly the values of the inline enum n, else "".
func (b *builder) sameEnumDef(name string, n *node) string {
	for def, gn := range b.ir.defGo {
		if gn != name {
			continue
		}
		d := b.resolve(b.ir.doc.defs[def])
		if d == nil || !d.isType("string") || len(d.enum) != len(n.enum) {
			return ""
		}
		want := map[any]bool{}
		for _, v := range d.enum {
			want[v] = true
		}
		for _, v := range n.enum {
			if !want[v] {
				return ""
			}
		}
		return def
	}
	return ""
}
