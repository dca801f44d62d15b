package protocol

import (
	"encoding/json"
	"unicode/utf8"
)

// plainCallParams reads tools/call params made only of "name" (a string
// without escapes), "arguments" and "task" (an object with at most
// "ttl"), each at most once, the form task-creating clients send, without
// the reflection of encoding/json. ok is false for anything else (_meta,
// other or repeated members, escapes, other types), which then takes the
// general decoder; for what it accepts the result equals the general
// decoder's (TestPlainCallParamsAgreesWithTheDecoder).
func plainCallParams(params []byte) (p callParams, ok bool) {
	if !json.Valid(params) {
		return p, false
	}
	var seenName, seenArgs, seenTask bool
	ok = ScanObject(params, func(key string, value []byte) bool {
		switch key {
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
			p.Arguments = append(json.RawMessage(nil), value...)
			return true
		case "task":
			if seenTask || value[0] != '{' {
				return false
			}
			seenTask = true
			p.Task = &struct {
				TTL json.RawMessage `json:"ttl"`
			}{}
			seenTTL := false
			return ScanObject(value, func(k string, v []byte) bool {
				if k != "ttl" || seenTTL {
					return false
				}
				seenTTL = true
				p.Task.TTL = append(json.RawMessage(nil), v...)
				return true
			})
		}
		return false
	})
	if !ok {
		return callParams{}, false
	}
	return p, true
}

// PlainString returns the content of a JSON string value that has no
// escapes and is valid UTF-8.
func PlainString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	s := v[1 : len(v)-1]
	for _, b := range s {
		if b == '\\' {
			return "", false
		}
	}
	if !utf8.Valid(s) {
		return "", false
	}
	return string(s), true
}

// ScanObject calls member for each member of obj with its key and raw
// value, in order, until member returns false; it returns false then, or
// when obj is not an object or a key has escapes or is not valid UTF-8.
// obj must already be known to be valid JSON (json.Valid): the scan does
// not check it. Transports use it to read plain messages without the
// reflection of encoding/json.
func ScanObject(obj []byte, member func(key string, value []byte) bool) bool {
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
		key, ok := PlainString(obj[i:end])
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
