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

// sharedOverrides are the hand-written types every configuration uses.
func sharedOverrides() []Override {
	return []Override{
		{Def: "ProgressToken", GoType: "ProgressToken", Reason: "string-or-integer scalar; the hand-written type keeps which of the two was sent and is comparable"},
		{Def: "RequestId", GoType: "RequestID", Reason: "string-or-integer scalar; the hand-written type keeps which of the two was sent and is comparable, so it can key a map of pending requests"},
	}
}

// jsonValueOverrides map the arbitrary-JSON $defs of the 2026 schemas to
// raw JSON, since a Go type for "any JSON value" adds nothing over it.
func jsonValueOverrides() []Override {
	return []Override{
		{Def: "JSONValue", GoType: "JSONValue", Reason: "any JSON value; kept as raw JSON"},
		{Def: "JSONArray", GoType: "JSONArray", Reason: "array of any JSON values; kept as raw JSON"},
		{Def: "JSONObject", GoType: "JSONObject", Reason: "object of any JSON values; kept as raw JSON per member"},
	}
}

// openResultUnions are the unions whose first member is the open Result.
func openResultUnions(defs ...string) []Exclusion {
	out := make([]Exclusion, 0, len(defs))
	for _, d := range defs {
		out = append(out, Exclusion{Def: d, Reason: "union whose first member is the open Result, which accepts every object, so a value cannot be decoded as one variant; callers decode the concrete result type they expect"})
	}
	return out
}

// Core20260728Config is the configuration for the MCP 2026-07-28 core
// schema in package v20260728.
func Core20260728Config() Config {
	return Config{
		Package:       "v20260728",
		SchemaVersion: "2026-07-28",
		SchemaFile:    "schema.json",
		Generator:     "mcptasks/cmd/gen",
		MetaType:      "Meta",
		Exclusions:    openResultUnions("ClientResult", "ServerResult"),
		Overrides:     append(sharedOverrides(), jsonValueOverrides()...),
	}
}

// ExtTasksConfig is the configuration for the schema of the tasks
// extension (io.modelcontextprotocol/tasks) in package exttasks.
func ExtTasksConfig() Config {
	return Config{
		Package:       "exttasks",
		SchemaVersion: "io.modelcontextprotocol/tasks draft",
		SchemaFile:    "schema.json",
		Generator:     "mcptasks/cmd/gen",
		MetaType:      "Meta",
		// The extension schema has no ProgressToken: tasks carry no progress.
		Overrides: []Override{sharedOverrides()[1], jsonValueOverrides()[0], jsonValueOverrides()[2],
			{Def: "GetTaskResult", GoType: "GetTaskResult", Reason: "Result joined (allOf) with a union of the five task shapes; the hand-written struct holds every member of every shape, with the status-specific ones optional"},
			{Def: "TaskStatusNotificationParams", GoType: "TaskStatusNotificationParams", Reason: "NotificationParams joined (allOf) with a union of the five task shapes; hand-written like GetTaskResult"},
			{Def: "TaskStatusNotification", GoType: "TaskStatusNotification", Reason: "its params repeat TaskStatusNotificationParams inline; hand-written over the hand-written params"},
		},
	}
}

// Configs returns the named configurations cmd/gen -config selects.
func Configs() map[string]func() Config {
	return map[string]func() Config{
		"2025-11-25": MCPConfig,
		"2026-07-28": Core20260728Config,
		"ext-tasks":  ExtTasksConfig,
	}
}
