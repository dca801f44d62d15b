// Package exttasks holds the wire types of the MCP tasks extension
// (io.modelcontextprotocol/tasks, on the 2026-07-28 core), generated from
// the extension's schema.json by cmd/gen (configuration "ext-tasks"), and a
// Validator over that schema.
//
// Hand-written parts (hand.go): Meta and RequestID, shared with package
// schema, the raw-JSON types, GetTaskResult and TaskStatusNotificationParams
// (a result or notification joined with the union of the five task shapes,
// which the generator does not model) and the extension's constants.
package exttasks

//go:generate go run ../../cmd/gen -config ext-tasks -schema schema.json -out types_gen.go -validation validation_gen.json -package exttasks
