package protocol

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/mcptasks/mcptasks/internal/jsonvalid"
)

// plainCallParams reads tools/call params made only of "name" (a string
// without escapes), "arguments" and "task" (an object with at most
// "ttl"), each at most once, the form task-creating clients send, without
// the reflection of encoding/json. ok is false for anything else (_meta,
// other or repeated members, escapes, other types), which then takes the
// general decoder; for what it accepts the result equals the general
// decoder's (TestPlainCallParamsAgreesWithTheDecoder).
func plainCallParams(params []byte) (p callParams, ok bool) {
	if !jsonvalid.Valid(params) {
		return p, false
	}
	var seenName, seenArgs, seenTask bool
	var args, ttl []byte
	ok = ScanMembers(params, func(key, value []byte) bool {
		switch string(key) {
		case "name":
			if seenName {
				return false
			}
			seenName = true
			name, ok := PlainString(value)
			p.Name = name
			return ok
		case "arguments":
			if seenArgs {
				return false
			}
			seenArgs = true
			args = value
			return true
		case "task":
			if seenTask || value[0] != '{' {
				return false
			}
			seenTask = true
			seenTTL := false
			return ScanMembers(value, func(k, v []byte) bool {
				if string(k) != "ttl" || seenTTL {
					return false
				}
				seenTTL = true
				ttl = v
				return true
			})
		}
		return false
	})
	if !ok {
		return callParams{}, false
	}
	if seenArgs {
		// The arguments outlive the request (a task's work keeps them):
		// they get their own copy, as the general decoder makes.
		p.Arguments = append(json.RawMessage(nil), args...)
	}
	if seenTask {
		// The ttl is only read while the request is served; it stays a
		// view of params.
		p.Task = &struct {
			TTL json.RawMessage `json:"ttl"`
		}{TTL: ttl}
	}
	return p, true
}

// PlainString returns the content of a JSON string value that has no
// escapes and is valid UTF-8.
func PlainString(v []byte) (string, bool) {
	s, ok := plainStringBytes(v)
	if !ok {
		return "", false
	}
	return string(s), true
}

// plainStringBytes is PlainString without the copy: the content is a
// view of v.
func plainStringBytes(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' {
		return nil, false
	}
	s := v[1 : len(v)-1]
	for _, b := range s {
		if b == '\\' {
			return nil, false
		}
	}
	if !utf8.Valid(s) {
		return nil, false
	}
	return s, true
}

// ScanObject calls member for each member of obj with its key and raw
// value, in order, until member returns false; it returns false then, or
// when obj is not an object or a key has escapes or is not valid UTF-8.
// obj must already be known to be valid JSON (json.Valid): the scan does
// not check it. Transports use it to read plain messages without the
// reflection of encoding/json.
func ScanObject(obj []byte, member func(key string, value []byte) bool) bool {
	return ScanMembers(obj, func(key, value []byte) bool { return member(string(key), value) })
}

// ScanMembers is ScanObject with each key given as the bytes between its
// quotes (a view of obj, valid only during the call), so that a caller
// which only compares keys allocates nothing for them.
func ScanMembers(obj []byte, member func(key, value []byte) bool) bool {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return true
	}
	for i < len(obj) {
		end := skipValue(obj, i)
		key, ok := plainStringBytes(obj[i:end])
		if !ok {
			return false
		}
		i = skipSpace(obj, end)
		i = skipSpace(obj, i+1) // the colon
		end = skipValue(obj, i)
		if !member(key, obj[i:end]) {
			return false
		}
		i = skipSpace(obj, end)
		if obj[i] == '}' {
			return true
		}
		i = skipSpace(obj, i+1) // the comma
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the valid JSON value starting at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		for i++; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return i
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipValue(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	default: // number, true, false, null
		for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
			i++
		}
		return i
	}
}
