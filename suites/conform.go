package suites

import (
	"encoding/json"
	"fmt"

	"github.com/onsi/gomega/types"
)

// ConformTo is a Gomega matcher that succeeds when the actual value — raw
// JSON as json.RawMessage, []byte or string — validates against the given
// $def of the MCP 2025-11-25 schema with the generated validator. Its
// failure message is the validator's own.
//
//	Expect(raw).To(suites.ConformTo("GetTaskResult"))
func ConformTo(def string) types.GomegaMatcher {
	return &conformMatcher{def: def}
}

type conformMatcher struct {
	def string
	err error
}

// Match validates actual.
func (m *conformMatcher) Match(actual any) (bool, error) {
	var raw []byte
	switch v := actual.(type) {
	case json.RawMessage:
		raw = v
	case []byte:
		raw = v
	case string:
		raw = []byte(v)
	default:
		return false, fmt.Errorf("ConformTo expects raw JSON (json.RawMessage, []byte or string), got %T", actual)
	}
	m.err = validateDef(m.def, raw)
	return m.err == nil, nil
}

// FailureMessage is the validator's message.
func (m *conformMatcher) FailureMessage(actual any) string {
	return fmt.Sprintf("does not conform to %s: %v", m.def, m.err)
}

// NegatedFailureMessage is used with NotTo.
func (m *conformMatcher) NegatedFailureMessage(actual any) string {
	return fmt.Sprintf("conforms to %s, expected it not to", m.def)
}
