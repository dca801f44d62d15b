package storekit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/mcptasks/mcptasks/internal/jsonvalid"
	"github.com/mcptasks/mcptasks/tasks"
)

// MergeVariables applies patch to current and returns the new map (current
// is not modified): keys in patch are added or replaced, a JSON null
// deletes the key. Every name must follow the _meta key grammar
// (tasks.ValidVariableName, an error wrapping tasks.ErrInvalidVariableName
// otherwise). Every value must be valid JSON and the merged map, as
// JSON, must fit in limit bytes (limit <= 0: no limit). An empty result is
// nil.
func MergeVariables(current, patch map[string]json.RawMessage, limit int) (map[string]json.RawMessage, error) {
	out := maps.Clone(current)
	for k, v := range patch {
		if err := tasks.ValidVariableName(k); err != nil {
			return nil, err
		}
		v = bytes.TrimSpace(v)
		if !validJSON(v) {
			return nil, fmt.Errorf("%w: variable %q is not valid JSON", tasks.ErrInvalidParams, k)
		}
		if bytes.Equal(v, []byte("null")) {
			delete(out, k)
			continue
		}
		if out == nil {
			out = make(map[string]json.RawMessage, len(patch))
		}
		out[k] = append(json.RawMessage(nil), v...)
	}
	if len(out) == 0 {
		return nil, nil
	}
	if limit > 0 {
		if n := VariablesSize(out); n > limit {
			return nil, fmt.Errorf("%w: %d bytes, limit %d", tasks.ErrVariablesTooLarge, n, limit)
		}
	}
	return out, nil
}

// VariablesSize is the length of vars encoded as a JSON object: the
// measure the size limit applies to.
func VariablesSize(vars map[string]json.RawMessage) int {
	if len(vars) == 0 {
		return 2
	}
	n := 1 // {
	for k, v := range vars {
		kb, _ := json.Marshal(k)
		n += len(kb) + 1 + len(v) + 1 // "k":v,
	}
	return n // the last comma stands for }
}

func validJSON(b []byte) bool { return len(b) > 0 && jsonvalid.Valid(b) }

// EncodeVariables renders vars as one JSON object for storage. Values keep
// their exact bytes (json.Marshal would compact them) and keys are sorted,
// so equal maps always encode the same. An empty map encodes as nil.
func EncodeVariables(vars map[string]json.RawMessage) []byte {
	if len(vars) == 0 {
		return nil
	}
	b := []byte{'{'}
	for i, k := range slices.Sorted(maps.Keys(vars)) {
		if i > 0 {
			b = append(b, ',')
		}
		kb, _ := json.Marshal(k)
		b = append(b, kb...)
		b = append(b, ':')
		b = append(b, vars[k]...)
	}
	return append(b, '}')
}

// DecodeVariables reverses EncodeVariables; every value comes back byte
// for byte. Empty input and an empty object both give nil.
func DecodeVariables(b []byte) (map[string]json.RawMessage, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("stored variables are not a JSON object: %w", err)
	}
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}
