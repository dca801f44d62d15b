package mcpgo_test

import (
	"bytes"
	"testing"
	"time"
)

// BenchmarkTasksGetVsPing measures tasks/get answered by the adapter
// against mcp-go's own ping, on the same server, session and connections
// over loopback HTTP, in the same run. The sub-benchmarks give each rate;
// Interleaved alternates short rounds of both, so machine load hits them
// alike, and reports tasks/get throughput as a percentage of ping's.
func BenchmarkTasksGetVsPing(b *testing.B) {
	f := start(b)
	c := f.connect(b)
	id, _ := taskOf(b, c.call("tools/call", `{"name":"wait","task":{"ttl":600000}}`))
	ping := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	get := []byte(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"` + id + `"}}`)
	if body, _ := c.post(string(get)); !bytes.Contains(body, []byte(`"status":"working"`)) {
		b.Fatalf("tasks/get: %s", body)
	}
	run := func(b *testing.B, msg []byte) {
		b.SetParallelism(4)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				c.post(string(msg))
			}
		})
	}
	b.Run("Ping", func(b *testing.B) { run(b, ping) })
	b.Run("TasksGet", func(b *testing.B) { run(b, get) })
	b.Run("Interleaved", func(b *testing.B) {
		var tPing, tGet time.Duration
		const round = 200
		rounds := max(b.N/round, 1)
		for i := 0; i < rounds; i++ {
			for _, m := range []struct {
				msg []byte
				d   *time.Duration
			}{{ping, &tPing}, {get, &tGet}} {
				t0 := time.Now()
				for j := 0; j < round; j++ {
					c.post(string(m.msg))
				}
				*m.d += time.Since(t0)
			}
		}
		b.ReportMetric(100*float64(tPing)/float64(tGet), "get_vs_ping_%")
	})
	close(f.release)
}
