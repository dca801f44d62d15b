package gosdk_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcptasks/mcptasks/adapters/gosdk"
)

// BenchmarkPoll compares, over HTTP on loopback and in one run, the SDK's
// own ping with tasks/get through the adapter: answered by the adapter's
// handler (the default) and through the SDK as a custom method
// (HandlerOptions.SDKPolls). Each sub-benchmark has its own server; the
// requests of all goroutines share one session. Compare ns/op: the
// adapter's target is a tasks/get at least 80 % as fast as ping.
func BenchmarkPoll(b *testing.B) {
	for _, bc := range []struct {
		name   string
		opts   *gosdk.HandlerOptions
		method string
	}{
		{"sdk-ping", nil, "ping"},
		{"tasks-get", nil, "tasks/get"},
		{"tasks-get-via-sdk", &gosdk.HandlerOptions{SDKPolls: true}, "tasks/get"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ts := newTestServer(b, bc.opts)
			c := connect(b, ts.url)
			params := `{}`
			if bc.method == "tasks/get" {
				var cr createResult
				r := c.call(b, "tools/call", `{"name":"wait","arguments":{"ms":0},"task":{}}`)
				if r.Error != nil || json.Unmarshal(r.Result, &cr) != nil || cr.Task.TaskID == "" {
					b.Fatalf("creating a task: %s %+v", r.Result, r.Error)
				}
				params = `{"taskId":"` + cr.Task.TaskID + `"}`
			}
			// Request ids must be unique among the session's requests in flight.
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%%d,"method":%q,"params":%s}`, bc.method, params)
			b.SetParallelism(4)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := poll(c, body); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// poll sends one request (body with a %d for its id) and checks that it
// succeeded.
func poll(c *rpcClient, body string) error {
	req, err := http.NewRequest(http.MethodPost, c.url, strings.NewReader(fmt.Sprintf(body, c.ids.Add(1))))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", c.session)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(out), `"result"`) {
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, out)
	}
	return nil
}
