package gen

// Config tells Generate what to emit and which $defs need special handling.
type Config struct {
	// Package is the Go package name of the generated file.
	Package string
	// SchemaVersion is the MCP revision the schema describes ("2025-11-25").
	SchemaVersion string
	// SchemaFile names the input in the generated header and doc comments.
	SchemaFile string
	// Generator names the program in the generated header.
	Generator string
	// MetaType is the hand-written Go type every "_meta" property maps to.
	MetaType string
	// Exclusions lists $defs that get no Go type, each with its reason.
	Exclusions []Exclusion
	// Overrides maps $defs to hand-written Go types in the same package.
	Overrides []Override
}

// Exclusion is one $def the generator deliberately skips.
type Exclusion struct {
	// Def is the $defs key.
	Def string
	// Reason says why no Go type is generated; it is printed by
	// cmd/gen -list-excluded.
	Reason string
}

// Override replaces the generated type of one $def with a hand-written one.
type Override struct {
	// Def is the $defs key.
	Def string
	// GoType is the name of the hand-written type in the target package.
	GoType string
	// Reason says why the generated mapping is not good enough.
	Reason string
}

// MCPConfig is the configuration used for MCP 2025-11-25 in package schema.
func MCPConfig() Config {
	return Config{
		Package:       "schema",
		SchemaVersion: "2025-11-25",
		SchemaFile:    "schema.json",
		Generator:     "mcptasks/cmd/gen",
		MetaType:      "Meta",
		Exclusions: []Exclusion{
			{Def: "ClientResult", Reason: "union whose first member is the open Result, which accepts every object, so a value cannot be decoded as one variant; callers decode the concrete result type they expect"},
			{Def: "ServerResult", Reason: "union whose first member is the open Result, which accepts every object, so a value cannot be decoded as one variant; callers decode the concrete result type they expect"},
		},
		Overrides: []Override{
			{Def: "ProgressToken", GoType: "ProgressToken", Reason: "string-or-integer scalar; the hand-written type keeps which of the two was sent and is comparable"},
			{Def: "RequestId", GoType: "RequestID", Reason: "string-or-integer scalar; the hand-written type keeps which of the two was sent and is comparable, so it can key a map of pending requests"},
		},
	}
}
