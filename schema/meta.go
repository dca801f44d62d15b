package schema

import (
	"encoding/json"
	"fmt"

	"github.com/mcptasks/mcptasks/tasks/wire"
)

// Meta is every "_meta" member of MCP 2025-11-25: an open object kept as raw
// JSON per key, so entries the program does not know survive a round trip.
// A nil Meta is absent on the wire (fields use omitzero); a non-nil empty
// Meta encodes as {}.
type Meta map[string]json.RawMessage

// SchemaDef returns "NotificationParams/properties/_meta", one of the many
// identical _meta schemas, for use with Validate.
func (Meta) SchemaDef() string { return "NotificationParams/properties/_meta" }

// MarshalJSON encodes the entries; a nil Meta encodes as {}.
func (m Meta) MarshalJSON() ([]byte, error) {
	if m == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(map[string]json.RawMessage(m))
}

// Get decodes the entry key into out and reports whether it was present.
func (m Meta) Get(key string, out any) (bool, error) {
	raw, ok := m[key]
	if !ok {
		return false, nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return true, fmt.Errorf("schema: _meta %q: %w", key, err)
	}
	return true, nil
}

// Set encodes v as the entry key, creating the map when it is nil.
func (m *Meta) Set(key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("schema: _meta %q: %w", key, err)
	}
	if *m == nil {
		*m = Meta{}
	}
	(*m)[key] = raw
	return nil
}

// RelatedTask returns the related-task entry, if present.
func (m Meta) RelatedTask() (RelatedTaskMetadata, bool, error) {
	var v RelatedTaskMetadata
	ok, err := m.Get(wire.MetaRelatedTask, &v)
	return v, ok, err
}

// SetRelatedTask sets the related-task entry to taskID.
func (m *Meta) SetRelatedTask(taskID string) error {
	return m.Set(wire.MetaRelatedTask, RelatedTaskMetadata{TaskID: taskID})
}

// ProgressToken returns the progressToken entry, if present.
func (m Meta) ProgressToken() (ProgressToken, bool, error) {
	var v ProgressToken
	ok, err := m.Get(wire.MetaProgressToken, &v)
	return v, ok, err
}

// SetProgressToken sets the progressToken entry.
func (m *Meta) SetProgressToken(t ProgressToken) error {
	return m.Set(wire.MetaProgressToken, t)
}

// ModelImmediateResponse returns the model-immediate-response entry, if
// present.
func (m Meta) ModelImmediateResponse() (string, bool, error) {
	var v string
	ok, err := m.Get(wire.MetaModelImmediateResponse, &v)
	return v, ok, err
}

// SetModelImmediateResponse sets the model-immediate-response entry.
func (m *Meta) SetModelImmediateResponse(s string) error {
	return m.Set(wire.MetaModelImmediateResponse, s)
}

// WithRelatedTask returns a new Meta holding only the related-task entry.
func WithRelatedTask(taskID string) Meta {
	m := Meta{}
	_ = m.SetRelatedTask(taskID) // a struct of one string always marshals
	return m
}
