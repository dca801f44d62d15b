package report

import (
	"bytes"
	_ "embed"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is the JSON Schema (draft 2020-12) of conformance-report.json.
//
//go:embed report.schema.json
var Schema []byte

// SchemaID is the $id of Schema.
const SchemaID = "https://mcptasks.dev/schemas/conformance-report/v2.json"

// Validate checks the bytes of a conformance-report.json against Schema
// (formats asserted). The error says where and why the report is off.
func Validate(raw []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema))
	if err != nil {
		return fmt.Errorf("report schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(SchemaID, doc); err != nil {
		return fmt.Errorf("report schema: %w", err)
	}
	sch, err := c.Compile(SchemaID)
	if err != nil {
		return fmt.Errorf("report schema: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("report is not JSON: %w", err)
	}
	return sch.Validate(inst)
}
