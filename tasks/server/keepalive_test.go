package server

import (
	"bufio"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/tasks"
)

// A tasks/result that waits longer than the keep-alive period switches to
// an SSE stream with a priming event and keep-alive comments, then ends
// with the response.
func TestLongResultWaitKeepsStreamAlive(t *testing.T) {
	cfg := tasks.Config{PollInterval: 20 * time.Millisecond}.WithDefaults()
	st := memory.New(cfg)
	defer st.Close()
	log := slog.New(slog.DiscardHandler)
	eng := tasks.NewEngine(st, cfg, tasks.WithLogger(log))
	defer eng.Close(context.Background())
	srv, err := New(eng, WithFixtures(), WithLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	srv.keepAliveEvery = 30 * time.Millisecond
	ln, err := Listen(srv, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close(context.Background())

	post := func(sid, body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, ln.URL, strings.NewReader(body))
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set(HeaderSessionID, sid)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"k","version":"1"}}}`)
	resp.Body.Close()
	sid := resp.Header.Get(HeaderSessionID)
	resp = post(sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fixture_sleep","arguments":{"ms":200},"task":{}}}`)
	sc := bufio.NewScanner(resp.Body)
	sc.Scan()
	resp.Body.Close()
	id := strings.SplitN(strings.SplitN(sc.Text(), `"taskId":"`, 2)[1], `"`, 2)[0]

	resp = post(sid, `{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"`+id+`"}}`)
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("long tasks/result answered as %q", ct)
	}
	var lines []string
	sc = bufio.NewScanner(resp.Body)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	text := strings.Join(lines, "\n")
	if !strings.HasPrefix(text, "id: p") || !strings.Contains(text, ": keep-alive") || !strings.Contains(text, `"id":3,"result"`) {
		t.Errorf("stream:\n%s", text)
	}
}
