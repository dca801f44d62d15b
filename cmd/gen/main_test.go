package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptasks/mcptasks/gen"
)

func TestListExcluded(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := run([]string{"-list-excluded"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ServerResult:", "ClientResult:", "open Result", "RequestId -> RequestID", "ProgressToken -> ProgressToken"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("-list-excluded output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestGenerateWritesFiles(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.json")
	schema := `{"$defs":{"RequestId":{"type":["string","integer"]},"ProgressToken":{"type":["string","integer"]},"Result":{"type":"object","additionalProperties":{}},"ServerResult":{"anyOf":[{"$ref":"#/$defs/Result"}]},"ClientResult":{"anyOf":[{"$ref":"#/$defs/Result"}]},"Task":{"type":"object","properties":{"taskId":{"type":"string"}},"required":["taskId"]}}}`
	if err := os.WriteFile(in, []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	outGo, outJSON, outReg := filepath.Join(dir, "types_gen.go"), filepath.Join(dir, "v.json"), filepath.Join(dir, "reg_test.go")
	args := []string{"-schema", in, "-out", outGo, "-validation", outJSON, "-test-registry", outReg}
	var stdout, stderr bytes.Buffer
	if err := run(args, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v (%s)", err, stderr.String())
	}
	want, err := gen.Generate([]byte(schema), gen.MCPConfig())
	if err != nil {
		t.Fatal(err)
	}
	for file, data := range map[string][]byte{outGo: want.Types, outJSON: want.Validation, outReg: want.TestRegistry} {
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s differs from gen.Generate", file)
		}
	}
	// A second run leaves the same bytes and no temporary files.
	if err := run(args, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("directory holds %v, want in.json and the three outputs", names)
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run([]string{"-schema", filepath.Join(dir, "absent.json"), "-out", filepath.Join(dir, "x.go")}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "make schema") {
		t.Fatalf("missing schema: %v", err)
	}
	bad := filepath.Join(dir, "bad.json")
	_ = os.WriteFile(bad, []byte(`{"$defs":{"A":{"type":"object","not":{}}}}`), 0o644)
	err = run([]string{"-schema", bad, "-out", filepath.Join(dir, "x.go")}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "#/$defs/A/not") {
		t.Fatalf("unsupported construct: %v", err)
	}
	if _, statErr := os.Stat(filepath.Join(dir, "x.go")); statErr == nil {
		t.Fatal("a failed generation wrote output")
	}
	if err := run([]string{"extra"}, &stdout, &stderr); err == nil {
		t.Fatal("stray argument accepted")
	}
}
