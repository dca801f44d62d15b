package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// scalarID is the shared representation of the string-or-integer scalars of
// MCP. It keeps the JSON text of the value, canonicalised, so two IDs are ==
// exactly when they are the same JSON string or the same JSON number.
type scalarID struct {
	text string // canonical JSON text; "" when unset
}

func stringScalar(s string) scalarID {
	b, _ := json.Marshal(s) // marshalling a string cannot fail
	return scalarID{text: string(b)}
}

func intScalar(n int64) scalarID { return scalarID{text: strconv.FormatInt(n, 10)} }

func (s scalarID) isZero() bool { return s.text == "" }

func (s scalarID) isString() bool { return len(s.text) > 0 && s.text[0] == '"' }

func (s scalarID) asString() (string, bool) {
	if !s.isString() {
		return "", false
	}
	var out string
	if err := json.Unmarshal([]byte(s.text), &out); err != nil {
		return "", false
	}
	return out, true
}

func (s scalarID) asInt() (int64, bool) {
	if s.text == "" || s.isString() {
		return 0, false
	}
	n, err := strconv.ParseInt(s.text, 10, 64)
	return n, err == nil
}

func (s scalarID) marshal() []byte {
	if s.text == "" {
		return []byte("null")
	}
	return []byte(s.text)
}

// unmarshal accepts any JSON value leniently: null leaves the value unset,
// strings are canonicalised, everything else is kept as its compact text.
// Whether the value is a valid ID is for the Validator to judge.
func (s *scalarID) unmarshal(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		*s = scalarID{}
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return err
		}
		*s = stringScalar(str)
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return err
	}
	s.text = buf.String()
	return nil
}

// String renders the value for logs: the string itself or the number's text.
func (s scalarID) String() string {
	if str, ok := s.asString(); ok {
		return str
	}
	return s.text
}

// RequestID is #/$defs/RequestId of MCP 2025-11-25: a JSON-RPC request id,
// either a string or an integer. It is comparable, so it can key a map, and
// it remembers which of the two forms was sent ("1" and 1 differ). The zero
// value is unset and encodes as null.
type RequestID struct{ v scalarID }

// StringRequestID returns the request id that is the JSON string s.
func StringRequestID(s string) RequestID { return RequestID{stringScalar(s)} }

// IntRequestID returns the request id that is the JSON integer n.
func IntRequestID(n int64) RequestID { return RequestID{intScalar(n)} }

// IsZero reports whether the id is unset.
func (id RequestID) IsZero() bool { return id.v.isZero() }

// IsString reports whether the id was a JSON string.
func (id RequestID) IsString() bool { return id.v.isString() }

// AsString returns the id as a string when it is a JSON string.
func (id RequestID) AsString() (string, bool) { return id.v.asString() }

// AsInt returns the id as an integer when it is a JSON integer.
func (id RequestID) AsInt() (int64, bool) { return id.v.asInt() }

// String renders the id for logs: the string itself or the number's text.
func (id RequestID) String() string { return id.v.String() }

// MarshalJSON encodes the id as sent; an unset id encodes as null.
func (id RequestID) MarshalJSON() ([]byte, error) { return id.v.marshal(), nil }

// UnmarshalJSON accepts any JSON value without judging it.
func (id *RequestID) UnmarshalJSON(b []byte) error {
	if err := id.v.unmarshal(b); err != nil {
		return fmt.Errorf("schema: request id: %w", err)
	}
	return nil
}

// SchemaDef returns "RequestId", the $defs entry of this type.
func (RequestID) SchemaDef() string { return "RequestId" }

// ProgressToken is #/$defs/ProgressToken of MCP 2025-11-25: a string or an
// integer chosen by the requestor. Like RequestID it is comparable and keeps
// which form was sent. The zero value is unset and encodes as null.
type ProgressToken struct{ v scalarID }

// StringProgressToken returns the token that is the JSON string s.
func StringProgressToken(s string) ProgressToken { return ProgressToken{stringScalar(s)} }

// IntProgressToken returns the token that is the JSON integer n.
func IntProgressToken(n int64) ProgressToken { return ProgressToken{intScalar(n)} }

// IsZero reports whether the token is unset.
func (t ProgressToken) IsZero() bool { return t.v.isZero() }

// IsString reports whether the token was a JSON string.
func (t ProgressToken) IsString() bool { return t.v.isString() }

// AsString returns the token as a string when it is a JSON string.
func (t ProgressToken) AsString() (string, bool) { return t.v.asString() }

// AsInt returns the token as an integer when it is a JSON integer.
func (t ProgressToken) AsInt() (int64, bool) { return t.v.asInt() }

// String renders the token for logs.
func (t ProgressToken) String() string { return t.v.String() }

// MarshalJSON encodes the token as sent; an unset token encodes as null.
func (t ProgressToken) MarshalJSON() ([]byte, error) { return t.v.marshal(), nil }

// UnmarshalJSON accepts any JSON value without judging it.
func (t *ProgressToken) UnmarshalJSON(b []byte) error {
	if err := t.v.unmarshal(b); err != nil {
		return fmt.Errorf("schema: progress token: %w", err)
	}
	return nil
}

// SchemaDef returns "ProgressToken", the $defs entry of this type.
func (ProgressToken) SchemaDef() string { return "ProgressToken" }
