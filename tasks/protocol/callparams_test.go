package protocol

import (
	"encoding/json"
	"reflect"
	"testing"
)

var callParamsSeeds = []string{
	`{"name":"fixture_sleep","arguments":{"ms":0},"task":{}}`,
	`{"name":"t","arguments":{"a":[1,{"b":"}"}],"c":"\"{"},"task":{"ttl":60000}}`,
	` { "task" : { "ttl" : 1.5 } , "name" : "x" } `,
	`{"name":"x"}`,
	`{"name":"x","arguments":null}`,
	`{"name":"x","arguments":[1,2]}`,
	`{"name":"x","task":{"ttl":null}}`,
	`{}`,
	`{"name":"é✓"}`,
	`{"name":"a\"b"}`,
	`{"Name":"x"}`,
	`{"name":"x","_meta":{"progressToken":1}}`,
	`{"name":"x","name":"y"}`,
	`{"name":"x","task":{"ttl":1},"task":{}}`,
	`{"name":"x","task":null}`,
	`{"name":"x","task":{"TTL":5}}`,
	`{"name":"x","task":{"ttl":5,"other":1}}`,
	`{"name":5}`,
	`{"name":"x","other":true}`,
	`{"name":"x",}`,
	`[1]`,
	`"s"`,
	`{"name":"x\u0041"}`,
}

// The fast reading of tools/call params gives exactly what the general
// decoder gives, for every input it accepts.
func TestPlainCallParamsAgreesWithTheDecoder(t *testing.T) {
	fast := 0
	for _, in := range callParamsSeeds {
		if checkCallParams(t, []byte(in)) {
			fast++
		}
	}
	if fast < 8 {
		t.Errorf("the fast path took only %d of the plain inputs", fast)
	}
}

func FuzzPlainCallParams(f *testing.F) {
	for _, s := range callParamsSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) { checkCallParams(t, in) })
}

// checkCallParams compares the fast path with encoding/json on in and
// reports whether the fast path took it.
func checkCallParams(t *testing.T, in []byte) bool {
	t.Helper()
	got, ok := plainCallParams(in)
	if !ok {
		return false
	}
	var want callParams
	if err := json.Unmarshal(in, &want); err != nil {
		t.Errorf("%s: the fast path accepted what the decoder refuses: %v", in, err)
		return true
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n fast    %+v (task %+v)\n decoder %+v (task %+v)", in, got, got.Task, want, want.Task)
	}
	return true
}
