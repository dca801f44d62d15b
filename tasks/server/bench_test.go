package server_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/server"
	"github.com/mcptasks/mcptasks/tasks/server/reference"
)

// benchSession initializes a session over raw HTTP and creates one task.
func benchSession(b *testing.B, hc *http.Client, url string) (http.Header, []byte) {
	b.Helper()
	post := func(h http.Header, body string) (*http.Response, []byte) {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(body)))
		req.Header = h.Clone()
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp, out
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	resp, _ := post(h, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	h.Set(server.HeaderSessionID, resp.Header.Get(server.HeaderSessionID))
	h.Set(server.HeaderProtocolVersion, "2025-11-25")
	_, out := post(h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fixture_sleep","arguments":{"ms":0},"task":{}}}`)
	m := regexp.MustCompile(`"taskId":"([^"]+)"`).FindSubmatch(out)
	if m == nil {
		b.Fatalf("no task: %s", out)
	}
	return h, []byte(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"` + string(m[1]) + `"}}`)
}

// BenchmarkTasksGetHTTP measures tasks/get over loopback HTTP from 8
// concurrent sessions (RunParallel with 8 goroutines on this machine's
// cores) and reports the 50th and 99th latency percentiles.
func BenchmarkTasksGetHTTP(b *testing.B) {
	inst, err := reference.Start(context.Background(), reference.Options{Config: tasks.Config{MaxTasksPerOwner: -1}})
	if err != nil {
		b.Fatal(err)
	}
	defer inst.Close(context.Background())
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	defer hc.CloseIdleConnections()
	const clients = 8
	type sess struct {
		h    http.Header
		body []byte
	}
	pool := make(chan sess, clients*4)
	for range cap(pool) {
		h, body := benchSession(b, hc, inst.URL)
		pool <- sess{h, body}
	}
	var mu sync.Mutex
	var lat []time.Duration
	procs := max(1, clients/max(1, runtimeProcs()))
	b.SetParallelism(procs)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		s := <-pool
		local := make([]time.Duration, 0, 1024)
		for pb.Next() {
			t0 := time.Now()
			req, _ := http.NewRequest(http.MethodPost, inst.URL, bytes.NewReader(s.body))
			req.Header = s.h.Clone()
			resp, err := hc.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("HTTP %d", resp.StatusCode)
				return
			}
			local = append(local, time.Since(t0))
		}
		mu.Lock()
		lat = append(lat, local...)
		mu.Unlock()
	})
	b.StopTimer()
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds()), "p99-µs")
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	}
}

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }

// BenchmarkTasksGetHandler measures the server's own cost of a tasks/get,
// without the network: ServeHTTP on a recorded request.
func BenchmarkTasksGetHandler(b *testing.B) {
	inst, err := reference.Start(context.Background(), reference.Options{Config: tasks.Config{MaxTasksPerOwner: -1}})
	if err != nil {
		b.Fatal(err)
	}
	defer inst.Close(context.Background())
	h, body := benchSession(b, http.DefaultClient, inst.URL)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
		req.Header = h
		w := httptest.NewRecorder()
		inst.Server.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("HTTP %d %s", w.Code, w.Body)
		}
	}
}

// BenchmarkCreateTaskIdleSessions measures task creation (a task-augmented
// tools/call whose work ends at once, so every task also sends a status
// notification) on one session while n other sessions sit idle, each its
// own owner. With notifications indexed by owner the rate must not depend
// on n: compare idle=8 with idle=10000.
func BenchmarkCreateTaskIdleSessions(b *testing.B) {
	for _, idle := range []int{8, 10_000} {
		b.Run(fmt.Sprintf("idle=%d", idle), func(b *testing.B) {
			benchCreateTasks(b, idle, "{}", nil)
		})
	}
}

// BenchmarkCreateTaskTTL is task creation as cmd/taskload measures it:
// every task asks for a ttl of 1 s and the engine deletes expired tasks
// every 10 s (the taskserver default), so in steady state the cost of
// retaining, expiring and deleting tasks counts too. Run it for several
// seconds (-benchtime 20s) for that steady state to dominate.
func BenchmarkCreateTaskTTL(b *testing.B) {
	benchCreateTasks(b, 8, `{"ttl":1000}`, []tasks.EngineOption{tasks.WithReapInterval(10 * time.Second)})
}

// benchCreateTasks creates tasks (task member taskJSON) on one session
// while idle other sessions sit idle, and reports CPU per task.
func benchCreateTasks(b *testing.B, idle int, taskJSON string, eopts []tasks.EngineOption) {
	inst, err := reference.Start(context.Background(), reference.Options{
		EngineOptions: eopts,
		Config:        tasks.Config{MaxTasksPerOwner: -1},
		ServerOptions: []server.Option{
			server.WithMaxSessions(-1), server.WithMaxSessionsPerIdentity(-1),
			server.WithMaxActiveTasks(-1), server.WithMaxRetainedTasks(-1, -1),
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer inst.Close(context.Background())
	serve := func(h http.Header, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		req.Header = h
		w := httptest.NewRecorder()
		inst.Server.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("HTTP %d %s", w.Code, w.Body)
		}
		return w
	}
	base := http.Header{}
	base.Set("Content-Type", "application/json")
	base.Set("Accept", "application/json, text/event-stream")
	const initBody = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`
	for range idle {
		serve(base.Clone(), initBody)
	}
	h := base.Clone()
	h.Set(server.HeaderSessionID, serve(base.Clone(), initBody).Header().Get(server.HeaderSessionID))
	h.Set(server.HeaderProtocolVersion, "2025-11-25")
	if n := inst.Server.SessionCount(); n != idle+1 {
		b.Fatalf("%d sessions open, want %d", n, idle+1)
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fixture_sleep","arguments":{"ms":0},"task":` + taskJSON + `}}`
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for b.Loop() {
		w := serve(h, call)
		if !bytes.Contains(w.Body.Bytes(), []byte(`"taskId"`)) {
			b.Fatalf("no task: %s", w.Body)
		}
	}
	// Let the last tasks finish, so that the CPU of their
	// completion counts, before the engine closes.
	deadline := time.Now().Add(30 * time.Second)
	for inst.Engine.Running() > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	b.StopTimer()
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
}
