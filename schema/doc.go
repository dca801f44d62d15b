// Package schema holds the MCP 2025-11-25 wire types, generated from the
// official schema.json by cmd/gen, and a Validator that checks raw JSON
// against any $def of that schema.
//
// The wire types decode leniently: they never reject a message because it
// breaks the schema. Judging conformance is the job of Validate, which works
// on the raw bytes. Hand-written parts: Meta (every _meta member), RequestID
// and ProgressToken (string-or-integer scalars), the Validator, and the meta
// key constants.
//
// Mapping rules, in short: required properties are values; optional ones are
// pointers with omitempty (slices and maps use omitzero, so an empty [] or {}
// survives a round trip); Task.TTL is a pointer without omitempty because the
// schema requires it and allows null; capability presence flags are pointers
// to named raw-JSON types; required arrays of a nil slice encode as []; allOf
// embeds; unions keep the raw JSON and offer As<Variant>/From<Variant>.
package schema

//go:generate go run ../cmd/gen -schema 2025-11-25/schema.json -out types_gen.go -validation validation_gen.json -package schema
