package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadCursorKey(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, path, want, errText string
	}{
		{name: "none", path: "", want: ""},
		{name: "trailing newline dropped", path: write("good", "  0123456789abcdefXYZ\n"), want: "0123456789abcdefXYZ"},
		{name: "too short", path: write("short", "short-key\n"), errText: "at least 16"},
		{name: "blank", path: write("blank", "\n\n"), errText: "at least 16"},
		{name: "missing", path: filepath.Join(dir, "nope"), errText: "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := loadCursorKey(tt.path)
			if tt.errText != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("loadCursorKey = %q, %v; want an error mentioning %q", got, err, tt.errText)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("loadCursorKey = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestCursorKeyFlagDefaultsToEnv(t *testing.T) {
	t.Setenv(cursorKeyEnv, "/etc/mcptasks/cursor.key")
	o, err := parseFlags(nil, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	if o.cursorKeyFile != "/etc/mcptasks/cursor.key" {
		t.Errorf("--cursor-key-file default = %q, want the value of $%s", o.cursorKeyFile, cursorKeyEnv)
	}
	o, err = parseFlags([]string{"--cursor-key-file", "/k"}, os.Stderr)
	if err != nil || o.cursorKeyFile != "/k" {
		t.Errorf("--cursor-key-file /k gave %q, %v", o.cursorKeyFile, err)
	}
}

func TestRefusesShortCursorKey(t *testing.T) {
	p := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(p, []byte("tiny"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	if c := run([]string{"--stdio", "--cursor-key-file", p}, strings.NewReader(""), &strings.Builder{}, &stderr); c != 1 || !strings.Contains(stderr.String(), "cursor-key-file") {
		t.Errorf("exit %d, stderr %s; want 1 and a message about --cursor-key-file", c, stderr.String())
	}
}

func TestDerivedCursorKey(t *testing.T) {
	pg := "postgres://app:s3cret@db:5432/tasks?sslmode=disable"
	if derivedCursorKey("memory") != "" || derivedCursorKey("") != "" {
		t.Error("the memory store must keep a random key per process")
	}
	k := derivedCursorKey(pg)
	if len(k) < 32 || k != derivedCursorKey(pg) {
		t.Errorf("derived key %q is not a stable 32-byte hex key", k)
	}
	if strings.Contains(k, "s3cret") {
		t.Error("the derived key shows the password")
	}
	for _, other := range []string{"postgres://app:other@db:5432/tasks?sslmode=disable", "redis://127.0.0.1:6379/0", "sqlite:/var/lib/t.db"} {
		if derivedCursorKey(other) == k {
			t.Errorf("store %q derives the same key as %q", other, pg)
		}
	}
}
