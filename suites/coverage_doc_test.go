package suites

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestServerCoverageDocMatchesTheSpecs keeps docs/server-coverage.md
// honest: a requirement listed as guarded by a spec of its own has one in
// suites/server_*.go or suites/shared_*.go, and a requirement that has a server spec and appears
// in the table is listed as such.
func TestServerCoverageDocMatchesTheSpecs(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "server-coverage.md"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("server_*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no server spec files: %v", err)
	}
	// The invariants both profiles share carry 2025-11-25 requirements too.
	shared, err := filepath.Glob("shared_*.go")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, shared...)
	itCall := regexp.MustCompile(`env\.It\("[^"]+", "([A-Z0-9-]+)"`)
	withSpec := map[string]bool{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range itCall.FindAllStringSubmatch(string(src), -1) {
			withSpec[m[1]] = true
		}
	}
	rows := 0
	for _, line := range strings.Split(string(doc), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "TASKS-") {
			continue
		}
		rows++
		id, guard := strings.TrimSpace(cells[1]), strings.TrimSpace(cells[3])
		switch {
		case guard == "spec" && !withSpec[id]:
			t.Errorf("%s is listed with a spec of its own, but no server spec carries it", id)
		case guard != "spec" && withSpec[id]:
			t.Errorf("%s has a server spec, but the table says %q", id, guard)
		}
	}
	if rows < 100 {
		t.Errorf("only %d requirement rows in docs/server-coverage.md", rows)
	}
}
