package main

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestLoadAgainstInProcessServer(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"--clients", "2", "--tasks", "2", "--duration", "200ms", "--warmup", "0s", "--baseline", "--json"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var results []Result
	if err := json.Unmarshal(out.Bytes(), &results); err != nil {
		t.Fatalf("output %s: %v", out.String(), err)
	}
	if len(results) != 3 || results[0].Name != "tasks/get" || results[1].Name != "create" || results[2].Name != "baseline" {
		t.Fatalf("results %+v", results)
	}
	for _, r := range results {
		if r.Requests == 0 || r.Errors != 0 || r.P99Micros < r.P50Micros || r.BodyBytes == 0 {
			t.Errorf("implausible result %+v", r)
		}
	}
	if results[0].BodyBytes != results[2].BodyBytes {
		t.Errorf("baseline body %d B, tasks/get body %d B", results[2].BodyBytes, results[0].BodyBytes)
	}
	if code := run([]string{"--clients", "0"}, &out, &errOut); code != 2 {
		t.Errorf("--clients 0: exit %d", code)
	}
}
