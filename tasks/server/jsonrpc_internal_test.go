package server

import (
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

var envelopeSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fixture_sleep","arguments":{"ms":0},"task":{}}}`,
	`{"jsonrpc":"2.0","id":"a-1","method":"tasks/get","params":{"taskId":"x"}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":"srv-1","result":{"action":"accept"}}`,
	`{"jsonrpc":"2.0","id":7,"error":{"code":-1,"message":"m"}}`,
	` { "id" : 1 , "jsonrpc" : "2.0" , "method" : "ping" } `,
	`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`,
	`{"jsonrpc":"2.0","id":1,"method":"p\u0069ng"}`,
	`{"jsonrpc":"2.0","id":1,"Method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","extra":1}`,
	`{"jsonrpc":2,"id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":[1],"method":5}`,
	`{}`,
	`{"jsonrpc":"2.0","id":1,"method":"é✓"}`,
}

// The fast reading of a JSON-RPC envelope gives exactly what the general
// decoder gives, for every message it accepts.
func TestPlainEnvelopeAgreesWithTheDecoder(t *testing.T) {
	fast := 0
	for _, in := range envelopeSeeds {
		if checkEnvelope(t, []byte(in)) {
			fast++
		}
	}
	if fast < 7 {
		t.Errorf("the fast path took only %d of the plain messages", fast)
	}
}

func FuzzPlainEnvelope(f *testing.F) {
	for _, s := range envelopeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if utf8.Valid(in) {
			checkEnvelope(t, in)
		}
	})
}

func checkEnvelope(t *testing.T, in []byte) bool {
	t.Helper()
	got, ok := plainEnvelope(in)
	if !ok {
		return false
	}
	var want envelope
	if err := json.Unmarshal(in, &want); err != nil {
		t.Errorf("%s: the fast path accepted what the decoder refuses: %v", in, err)
		return true
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n fast    %+v\n decoder %+v", in, got, want)
	}
	return true
}
