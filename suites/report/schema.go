package report

import _ "embed"

// Schema is the JSON Schema (draft 2020-12) of conformance-report.json.
//
//go:embed report.schema.json
var Schema []byte

// SchemaID is the $id of Schema.
const SchemaID = "https://mcptasks.dev/schemas/conformance-report/v1.json"
