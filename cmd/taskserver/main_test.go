package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/tasks/client"
)

func TestStdioMode(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr testenv.SyncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"--stdio", "--fixtures", "--log-level", "debug"}, inR, outW, &stderr)
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	send := func(s string) string {
		t.Helper()
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
		if !lines.Scan() {
			t.Fatalf("no answer to %s", s)
		}
		return lines.Text()
	}
	if got := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`); !strings.Contains(got, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %s", got)
	}
	got := send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fixture_sleep","arguments":{"ms":1},"task":{}}}`)
	id := regexp.MustCompile(`"taskId":"([^"]+)"`).FindStringSubmatch(got)
	if id == nil {
		t.Fatalf("tools/call: %s", got)
	}
	line := send(`{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"` + id[1] + `"}}`)
	for {
		if strings.Contains(line, `"id":3`) {
			if !strings.Contains(line, `"slept 1 ms"`) {
				t.Errorf("tasks/result: %s", line)
			}
			break
		}
		if !lines.Scan() {
			t.Fatal("no tasks/result answer")
		}
		line = lines.Text()
	}
	inW.Close()
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("exit code %d; stderr:\n%s", c, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("taskserver --stdio did not exit after stdin closed")
	}
	for _, want := range []string{"task created", "task finished", "task result retrieved", "owner=session:"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("logs lack %q:\n%s", want, stderr.String())
		}
	}
}

func TestHTTPModeAndGracefulShutdown(t *testing.T) {
	dir := t.TempDir()
	tokens := dir + "/tokens"
	if err := os.WriteFile(tokens, []byte("# test tokens\nsecret-a alice\n\nsecret-b bob\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr testenv.SyncBuffer
	url, stop := startServer(t, &stderr, "--addr", "127.0.0.1:0", "--fixtures", "--tokens", tokens, "--shutdown-grace", "3s")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := client.New(url, client.WithHeader("Authorization", "Bearer secret-a"))
	runFixtureTask(ctx, t, c)
	if _, err := c.GetTask(ctx, "00000000-0000-4000-8000-000000000000"); err == nil {
		t.Error("unknown task found")
	}
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: HTTP %d", resp.StatusCode)
	}
	if c := stop(); c != 0 {
		t.Errorf("exit code %d:\n%s", c, stderr.String())
	}
	logs := stderr.String()
	for _, want := range []string{"owner=sub:alice", "task lookup failed", "shutting down"} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %q:\n%s", want, logs)
		}
	}
}

func TestRefusesNonLoopbackWithoutFlag(t *testing.T) {
	var stderr bytes.Buffer
	if c := run([]string{"--addr", "0.0.0.0:0"}, strings.NewReader(""), io.Discard, &stderr); c != 1 || !strings.Contains(stderr.String(), "allow-remote") {
		t.Errorf("exit %d: %s", c, stderr.String())
	}
	if c := run([]string{"--bogus"}, strings.NewReader(""), io.Discard, &stderr); c != 2 {
		t.Errorf("bad flag: exit %d", c)
	}
	if c := run([]string{"--store", "nosuch:x", "--stdio"}, strings.NewReader(""), io.Discard, &stderr); c != 1 {
		t.Errorf("bad store: exit %d", c)
	}
}

// TestProtocolFlag: --protocol accepts both and 2026-07-28 only, and
// 2026-07-28 makes the server refuse initialize with -32022.
func TestProtocolFlag(t *testing.T) {
	for _, tc := range []struct {
		value string
		ok    bool
	}{{"both", true}, {"2026-07-28", true}, {"2025-11-25", false}, {"auto", false}} {
		_, err := parseFlags([]string{"--protocol", tc.value}, io.Discard)
		if (err == nil) != tc.ok {
			t.Errorf("--protocol %s: error %v, want ok %v", tc.value, err, tc.ok)
		}
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr testenv.SyncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"--stdio", "--fixtures", "--protocol", "2026-07-28"}, inR, outW, &stderr)
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if !lines.Scan() || !strings.Contains(lines.Text(), `"code":-32022`) || !strings.Contains(lines.Text(), "2026-07-28") {
		t.Errorf("initialize on a 2026-07-28-only server: %s", lines.Text())
	}
	inW.Close()
	if c := <-code; c != 0 {
		t.Errorf("exit %d: %s", c, stderr.String())
	}
}
