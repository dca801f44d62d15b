package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// The hand-written fixture_sleep result is byte for byte what
// encoding/json makes of the same result.
func TestSleptResultMatchesEncodingJSON(t *testing.T) {
	for _, ms := range []int64{0, 1, 9, 10, 250, 599999, maxFixtureMillis} {
		want := textResult(fmt.Sprintf("slept %d ms", ms), map[string]int64{"ms": ms}, false)
		if got := sleptResult(ms); !bytes.Equal(got, want) {
			t.Errorf("ms=%d:\n got %s\nwant %s", ms, got, want)
		}
	}
}

// The fast reading of {"ms":N} agrees with the general decoder on every
// input it accepts and leaves everything else to it.
func TestPlainMsAgreesWithTheDecoder(t *testing.T) {
	tests := []struct {
		args string
		fast bool
	}{
		{`{}`, true},
		{`{"ms":0}`, true},
		{`{"ms":7}`, true},
		{`{"ms":600000}`, true},
		{`{"ms":600001}`, false}, // out of range: the general path's error
		{`{"ms":007}`, false},    // not JSON
		{`{"ms":-1}`, false},
		{`{"ms":1.5}`, false},
		{`{"ms":1e3}`, false},
		{`{"ms": 5}`, false},
		{`{"ms":5,"x":1}`, false},
		{`{"ms":"5"}`, false},
		{`{"ms":}`, false},
		{`{"ms":99999999999999999999}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			got, ok := plainMs(json.RawMessage(tt.args))
			if ok != tt.fast {
				t.Fatalf("fast path taken = %v, want %v", ok, tt.fast)
			}
			a, err := decodeFixture(json.RawMessage(tt.args))
			var want int64
			if err == nil {
				want, err = intArg(a.MS, "ms", 0, 0, maxFixtureMillis)
			}
			if ok && (err != nil || got != want) {
				t.Errorf("fast path read %d, the decoder %d (err %v)", got, want, err)
			}
		})
	}
}
