package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mcptasks/mcptasks/schema/v20260728"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/server"
	"github.com/mcptasks/mcptasks/tasks/server/reference"
)

// legacyInitialize is a 2025-11-25 initialize request.
const legacyInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// TestModernOnlyHTTP: a server that speaks only 2026-07-28 refuses every
// 2025-11-25 message, answers GET and DELETE with 405, mints no session
// and ignores session and Last-Event-ID headers on 2026-07-28 requests.
func TestModernOnlyHTTP(t *testing.T) {
	inst := start(t, reference.Options{ServerOptions: []server.Option{server.WithModernOnly()}})

	st, _, body := post(t, http.DefaultClient, inst.URL, legacyInitialize)
	if st != http.StatusBadRequest {
		t.Errorf("initialize: HTTP %d %s, want 400", st, body)
	}
	var e struct {
		Error struct {
			Code int64 `json:"code"`
			Data struct {
				Supported []string `json:"supported"`
				Requested string   `json:"requested"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Error.Code != v20260728.CodeUnsupportedProtocolVersion ||
		strings.Join(e.Error.Data.Supported, ",") != "2026-07-28" || e.Error.Data.Requested != "2025-11-25" {
		t.Errorf("initialize: %s, want -32022 naming 2026-07-28 and echoing 2025-11-25", body)
	}
	if err := v20260728.Validate("UnsupportedProtocolVersionError", body); err != nil {
		t.Errorf("initialize refusal %s: %v", body, err)
	}
	for _, tc := range []struct{ body, hdr string }{
		{`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`, "a-session"},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "a-session"},
	} {
		if st, h, body := post(t, http.DefaultClient, inst.URL, tc.body, server.HeaderSessionID, tc.hdr, pv, "2025-11-25"); st != http.StatusBadRequest || h.Get(server.HeaderSessionID) != "" {
			t.Errorf("%s: HTTP %d %s (session %q), want 400 and no session", tc.body, st, body, h.Get(server.HeaderSessionID))
		}
	}
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		req, _ := http.NewRequest(method, inst.URL, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set(server.HeaderSessionID, "a-session")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
			t.Errorf("%s: HTTP %d (Allow %q), want 405 with Allow: POST", method, resp.StatusCode, resp.Header.Get("Allow"))
		}
	}
	st, h, body := post(t, http.DefaultClient, inst.URL, `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{`+modernMeta+`}}`,
		pv, "2026-07-28", "Mcp-Method", "tools/list", server.HeaderSessionID, "a-session", "Last-Event-ID", "1")
	if st != http.StatusOK || !strings.Contains(string(body), `"tools"`) || h.Get(server.HeaderSessionID) != "" {
		t.Errorf("tools/list with session and Last-Event-ID headers: HTTP %d %s (session %q)", st, body, h.Get(server.HeaderSessionID))
	}
	if _, err := client.NewModern(inst.URL).Discover(testCtx(t)); err != nil {
		t.Errorf("discover: %v", err)
	}
}

// TestModernOnlyStdio: over stdio too, initialize is refused with an
// error naming 2026-07-28, and 2026-07-28 requests are served.
func TestModernOnlyStdio(t *testing.T) {
	p := newStdioPeer(t, newStdioServer(t, server.WithModernOnly()))
	if code := p.errCode("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`); code != v20260728.CodeUnsupportedProtocolVersion {
		t.Errorf("initialize: %d, want -32022", code)
	}
	if code := p.errCode("tools/list", `{}`); code != -32602 {
		t.Errorf("tools/list without _meta: %d, want -32602", code)
	}
	p.ok("server/discover", `{`+modernMeta+`}`)
}
