// Package jsonvalid reports whether bytes are one valid JSON value, with
// exactly the verdicts of encoding/json's Valid but a few times faster:
// the messages, params and results of every request are checked, and the
// general scanner spends a function call per byte.
package jsonvalid

import "encoding/json"

// maxStack is the nesting the fast path tracks; deeper documents (rare,
// and bounded by encoding/json's own limit) are left to encoding/json.
const maxStack = 64

// Valid reports whether b is a single JSON value, optionally surrounded by
// whitespace, as encoding/json.Valid does (TestValidAgreesWithEncodingJSON
// and FuzzValid compare them). Like encoding/json it accepts any bytes at
// or above 0x20 inside strings, valid UTF-8 or not.
func Valid(b []byte) bool {
	var stack [maxStack]byte // '{' or '[' of each open container
	depth := 0
	i := skipSpace(b, 0)
	const (
		wantValue = iota
		wantKey
		afterValue
	)
	state := wantValue
	for {
		switch state {
		case wantValue:
			if i >= len(b) {
				return false
			}
			switch c := b[i]; c {
			case '{', '[':
				if depth == maxStack {
					return json.Valid(b)
				}
				stack[depth] = c
				depth++
				i = skipSpace(b, i+1)
				if i < len(b) && b[i] == c+2 { // '}' is '{'+2, ']' is '['+2
					depth--
					i++
					state = afterValue
				} else if c == '{' {
					state = wantKey
				}
				continue
			case '"':
				i = skipString(b, i)
			case 't':
				i = skipLiteral(b, i, "true")
			case 'f':
				i = skipLiteral(b, i, "false")
			case 'n':
				i = skipLiteral(b, i, "null")
			default:
				i = skipNumber(b, i)
			}
			if i < 0 {
				return false
			}
			state = afterValue
		case wantKey:
			if i >= len(b) || b[i] != '"' {
				return false
			}
			if i = skipString(b, i); i < 0 {
				return false
			}
			i = skipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return false
			}
			i = skipSpace(b, i+1)
			state = wantValue
		case afterValue:
			i = skipSpace(b, i)
			if depth == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			switch b[i] {
			case ',':
				i = skipSpace(b, i+1)
				if stack[depth-1] == '{' {
					state = wantKey
				} else {
					state = wantValue
				}
			case '}', ']':
				if b[i] != stack[depth-1]+2 {
					return false
				}
				depth--
				i++
			default:
				return false
			}
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] (a
// quote), or -1 when it is not a valid JSON string.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c == '\\':
			i++
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return -1
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return -1
					}
				}
				i += 4
			default:
				return -1
			}
		case c < 0x20:
			return -1
		}
	}
	return -1
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// skipLiteral returns the index after lit at b[i], or -1.
func skipLiteral(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// skipNumber returns the index after the number starting at b[i], or -1
// when none starts there: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
func skipNumber(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return -1
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i = skipDigits(b, i+1)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := skipDigits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}
