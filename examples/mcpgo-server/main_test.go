package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestStdioInitialize runs the command as --stdio on a memory store: the
// initialize answer declares tasks, tools/list shows taskSupport, and the
// command ends cleanly when stdin does.
func TestStdioInitialize(t *testing.T) {
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`)
	var out, errs bytes.Buffer
	if code := run([]string{"--stdio", "--store", "memory", "--owner", "alice"}, in, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	for _, want := range []string{`"tasks":{`, `"taskSupport":"required"`, `"name":"echo"`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %s:\n%s", want, out.String())
		}
	}
}

func TestBadFlags(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"--no-such-flag"}, strings.NewReader(""), &out, &errs); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
}
