package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcptasks/mcptasks/internal/taskserverproc"
	"github.com/mcptasks/mcptasks/suites/report"
)

// stdioExtIDs are the 2026-07-28 requirements judged over stdio only.
var stdioExtIDs = []string{"EXT-BASE-015", "EXT-XPORT-023", "EXT-XPORT-024"}

// brokenStdioEnv makes the test binary a filter around a stdio server
// command that breaks one rule; its value names the rule.
const brokenStdioEnv = "MCPTASKS_TEST_BROKEN_STDIO"

// brokenStdioFilter runs argv as a child and passes its stdin and stdout
// through, except: "junk" writes a line that is no JSON first, "code"
// turns -32022 into -32600, "listen" answers a cancelled request with a
// result line.
func brokenStdioFilter(mode string, argv []string) int {
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "filter: no command")
		return 2
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return 2
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 2
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "filter:", err)
		return 2
	}
	var mu sync.Mutex
	emit := func(line string) {
		mu.Lock()
		defer mu.Unlock()
		_, _ = io.WriteString(os.Stdout, line+"\n")
	}
	if mode == "junk" {
		emit("server starting (not JSON)")
	}
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 64*1024), 16<<20)
		for sc.Scan() {
			line := sc.Text()
			_, _ = io.WriteString(in, line+"\n")
			var m struct {
				Method string `json:"method"`
				Params struct {
					RequestID json.RawMessage `json:"requestId"`
				} `json:"params"`
			}
			if mode == "listen" && json.Unmarshal([]byte(line), &m) == nil && m.Method == "notifications/cancelled" {
				emit(`{"jsonrpc":"2.0","id":` + string(m.Params.RequestID) + `,"result":{}}`)
			}
		}
		_ = in.Close()
	}()
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if mode == "code" {
			line = strings.ReplaceAll(line, `"code":-32022`, `"code":-32600`)
		}
		emit(line)
	}
	_ = cmd.Wait()
	return 0
}

// TestStdioExtSpecs runs the three 2026-07-28 stdio specs against
// `taskserver --stdio --fixtures`, which passes them, and against the
// same server behind a filter that breaks one rule each, which fails
// exactly the rule it breaks.
func TestStdioExtSpecs(t *testing.T) {
	bin := taskserverproc.Binary(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ids := stdioExtIDs
	cases := []struct {
		mode  string
		fails string
	}{
		{"", ""},
		{"junk", "EXT-XPORT-024"},
		{"code", "EXT-BASE-015"},
		{"listen", "EXT-XPORT-023"},
	}
	for _, c := range cases {
		t.Run("broken="+c.mode, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "tasks.db")
			cmd := bin + " --stdio --fixtures --store 'sqlite:" + db + "'"
			if c.mode != "" {
				cmd = brokenStdioEnv + "=" + c.mode + " " + self + " " + cmd
			}
			dir := t.TempDir()
			code, stdout, stderr := runCLI(t, "--command", cmd, "--protocol", "2026-07-28", "--focus", "over stdio", "--report-dir", dir)
			if _, err := os.Stat(filepath.Join(dir, report.FileJSON)); err != nil {
				t.Fatalf("no report: exit %d\n%s\n%s", code, stdout, stderr)
			}
			r := readReport(t, dir)
			for _, id := range ids {
				want := report.StatusPass
				if id == c.fails {
					want = report.StatusFail
				}
				if got := statusOf(r, id); got != want {
					t.Errorf("%s: %s, want %s (%s)\nexit %d\n%s\n%s", id, got, want, messageOf(r, id), code, stdout, stderr)
				}
			}
		})
	}
}
