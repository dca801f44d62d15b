package gen

import (
	"strings"
	"unicode"
)

// initialisms maps a lower-case word to the spelling Go style wants for it.
var initialisms = map[string]string{
	"id":      "ID",
	"ids":     "IDs",
	"uris":    "URIs",
	"urls":    "URLs",
	"uri":     "URI",
	"url":     "URL",
	"ttl":     "TTL",
	"json":    "JSON",
	"rpc":     "RPC",
	"jsonrpc": "JSONRPC",
	"mime":    "MIME",
	"http":    "HTTP",
	"api":     "API",
}

// splitWords breaks a JSON or schema identifier into words: separators
// (_ - / . $ space) split, and so do case changes ("taskId" → task Id,
// "JSONRPCRequest" → JSONRPC Request).
func splitWords(s string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r):
			prevLower := i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]))
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			prevUpper := i > 0 && unicode.IsUpper(rs[i-1])
			if prevLower || (prevUpper && nextLower) {
				flush()
			}
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return words
}

// goName turns an identifier from the schema into an exported Go name with
// the usual initialisms fixed.
func goName(s string) string {
	var b strings.Builder
	for _, w := range splitWords(s) {
		if fixed, ok := initialisms[strings.ToLower(w)]; ok {
			b.WriteString(fixed)
			continue
		}
		rs := []rune(w)
		rs[0] = unicode.ToUpper(rs[0])
		b.WriteString(string(rs))
	}
	return b.String()
}

// escapePointer escapes one JSON pointer reference token (RFC 6901).
func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
