package jsonvalid

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// corpus holds valid and invalid documents around every rule: literals,
// numbers, strings and escapes, nesting, separators, whitespace.
var corpus = []string{
	``, ` `, `null`, `true`, `false`, `nul`, `nulll`, `tru`, `fals`, `True`, `NULL`,
	`0`, `-0`, `01`, `-01`, `1`, `-`, `+1`, `.5`, `1.`, `1.5`, `1.5e`, `1e5`, `1E+5`, `1e-5`, `1e+`, `-1.0e-0`,
	`123456789012345678901234567890`, `1.2.3`, `1ee5`, `0x10`, `Infinity`, `NaN`, `--1`, `1-`,
	`""`, `"a"`, `"\""`, `"\\"`, `"\/"`, `"\b\f\n\r\t"`, `"\u00e9"`, `"\u00E9"`, `"\u00g9"`, `"\u00e"`, `"\u"`,
	`"\x"`, `"\'"`, "\"\x01\"", "\"\x1f\"", "\"\x7f\"", "\"\xff\xfe\"", "\"é\"", `"abc`, `"`, `"\`, `"\"`,
	`{}`, `[]`, `{ }`, `[ ]`, `{"a":1}`, `{"a":1,}`, `{"a":1,"b":2}`, `{"a" : 1 , "b" : [ 1 , 2 ] }`,
	`{a:1}`, `{"a"}`, `{"a":}`, `{"a" 1}`, `{,}`, `[,]`, `[1,]`, `[1,,2]`, `[1 2]`, `[1,2]`, `[[[]]]`,
	`[[]`, `[]]`, `{]`, `[}`, `{"a":[}]}`, `{"a":{"b":{"c":[1,{"d":null}]}}}`, `[1]x`, `[1] [2]`, `{} {}`,
	" \t\r\n[1]\n", "\v1", "\f1", "[1\v]", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fixture_sleep","arguments":{"ms":0},"task":{"ttl":1000}}}`,
	strings.Repeat("[", 63) + strings.Repeat("]", 63), strings.Repeat("[", 64) + strings.Repeat("]", 64),
	strings.Repeat("[", 65) + strings.Repeat("]", 65), strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001), strings.Repeat(`{"a":`, 70) + `1` + strings.Repeat("}", 70),
	strings.Repeat("[", 70) + strings.Repeat("]", 69),
}

func TestValidAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range corpus {
		if got, want := Valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("Valid(%.80q) = %v, encoding/json says %v", s, got, want)
		}
	}
}

// TestValidAgreesOnRandomDocuments builds documents from JSON's tokens and
// a few stray bytes, then mutates them, so that most are nearly valid.
func TestValidAgreesOnRandomDocuments(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tokens := []string{"{", "}", "[", "]", ",", ":", " ", "\n", `"k"`, `"\u00e9"`, `"\n"`, `"\q"`, "0", "-1", "1.5", "2e3",
		"true", "false", "null", "tru", "-", ".", "e", `"`, `\`, "\x00", "\xff", "x"}
	for range 200_000 {
		var sb strings.Builder
		for range rng.IntN(12) {
			sb.WriteString(tokens[rng.IntN(len(tokens))])
		}
		doc := []byte(sb.String())
		if len(doc) > 0 && rng.IntN(3) == 0 {
			doc[rng.IntN(len(doc))] = byte(rng.IntN(256))
		}
		if got, want := Valid(doc), json.Valid(doc); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", doc, got, want)
		}
	}
}

func FuzzValid(f *testing.F) {
	for _, s := range corpus {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Errorf("Valid(%q) = %v, encoding/json says %v", b, got, want)
		}
	})
}

func BenchmarkValid(b *testing.B) {
	doc := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fixture_sleep","arguments":{"ms":0},"task":{"ttl":1000}}}`)
	b.Run("jsonvalid", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			Valid(doc)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			json.Valid(doc)
		}
	})
}
