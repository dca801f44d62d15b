package suites

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// TestExtStdioDriver runs the driver against a shell child that echoes
// one line back and prints a log line: both are kept as evidence, and a
// read after stdout closes reports no line.
func TestExtStdioDriver(t *testing.T) {
	s, err := startExtStdio(context.Background(), []string{"X=1", "sh", "-c", `read l; echo "$l"; echo "log $X"`})
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if err := s.send("a", "tools/list", "", nil); err != nil {
		t.Fatal(err)
	}
	line, ok := s.next(5 * time.Second)
	if !ok {
		t.Fatal("no echo")
	}
	var m struct {
		Params map[string]json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil || m.Params["_meta"] == nil {
		t.Fatalf("echo %q lacks _meta: %v", line, err)
	}
	if l, _ := s.next(5 * time.Second); l != "log 1" {
		t.Errorf("second line %q, want the log line", l)
	}
	if _, ok := s.next(2 * time.Second); ok {
		t.Error("a line after stdout closed")
	}
	if got := len(s.evidence()); got != 2 {
		t.Errorf("%d evidence lines, want 2", got)
	}
}
