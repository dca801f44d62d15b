// Package v20260728 holds the wire types of the MCP 2026-07-28 core,
// generated from its official schema.json by cmd/gen (configuration
// "2026-07-28"), and a Validator over that schema.
//
// The mapping rules are those of package schema. Hand-written parts
// (hand.go): Meta, RequestID and ProgressToken, shared with package schema,
// the raw-JSON types JSONValue, JSONArray and JSONObject, the _meta keys of
// the stateless core, and Validate.
package v20260728

//go:generate go run ../../cmd/gen -config 2026-07-28 -schema schema.json -out types_gen.go -validation validation_gen.json -package v20260728
