// Command taskload measures the throughput and latency of an MCP tasks
// server over Streamable HTTP. N concurrent sessions each create a few
// tasks, then issue tasks/get on them for a fixed time; with --create
// (the default) they also create tasks for a fixed time, each a
// task-augmented tools/call of a tool that returns at once. With
// --baseline it also measures, in the same run, a bare net/http handler
// that answers every POST with a JSON body of the tasks/get size, so the
// server's cost can be read as a fraction of what plain HTTP allows.
//
//	taskload --url http://127.0.0.1:8080/mcp --clients 8 --duration 10s --baseline
//	taskload --clients 8 --duration 5s --baseline     # starts the reference server in-process
//
// Created tasks get a short ttl (--create-ttl) so that the server's caps
// on unexpired tasks are not reached; against a taskserver, also start
// it with --max-retained-tasks -1 --max-retained-tasks-total -1.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/server"
	"github.com/mcptasks/mcptasks/tasks/server/reference"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type config struct {
	url            string
	clients        int
	tasksPerClient int
	duration       time.Duration
	warmup         time.Duration
	tool, args     string
	headers        []string
	baseline       bool
	create         bool
	createTTL      time.Duration
	jsonOut        bool
	rounds         int
	external       bool // the server runs in another process
}

type headerList []string

func (h *headerList) String() string     { return strings.Join(*h, ", ") }
func (h *headerList) Set(v string) error { *h = append(*h, v); return nil }

// Result is one measured run.
type Result struct {
	Name      string  `json:"name"`
	Requests  int     `json:"requests"`
	Errors    int     `json:"errors"`
	Seconds   float64 `json:"seconds"`
	ReqPerSec float64 `json:"req_per_sec"`
	P50Micros float64 `json:"p50_us"`
	P99Micros float64 `json:"p99_us"`
	BodyBytes int     `json:"body_bytes"`
}

func run(args []string, stdout, stderr io.Writer) int {
	var c config
	var hdrs headerList
	fs := flag.NewFlagSet("taskload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.url, "url", "", "MCP endpoint; empty starts the reference server in-process on loopback")
	fs.IntVar(&c.clients, "clients", 8, "concurrent sessions")
	fs.IntVar(&c.tasksPerClient, "tasks", 4, "tasks each session creates and then polls")
	fs.DurationVar(&c.duration, "duration", 5*time.Second, "measuring time per run")
	fs.DurationVar(&c.warmup, "warmup", time.Second, "unmeasured time before each run")
	fs.StringVar(&c.tool, "tool", "fixture_sleep", "task-capable tool used to create the tasks")
	fs.StringVar(&c.args, "args", `{"ms":0}`, "arguments of that tool, as JSON")
	fs.Var(&hdrs, "header", "extra HTTP header \"Key: Value\" on every request (repeatable), e.g. Authorization")
	fs.BoolVar(&c.baseline, "baseline", false, "also measure a bare net/http handler returning a same-size JSON body")
	fs.BoolVar(&c.create, "create", true, "also measure task creation (task-augmented tools/call of --tool)")
	fs.DurationVar(&c.createTTL, "create-ttl", time.Second, "ttl requested for the tasks created by the creation run")
	fs.BoolVar(&c.jsonOut, "json", false, "print results as JSON")
	fs.IntVar(&c.rounds, "rounds", 3, "alternating rounds of each run; the median round is reported")
	serveSize := fs.Int("serve-baseline", 0, "internal: serve the bare baseline handler with a body of this many bytes and print its address")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	c.headers = hdrs
	if *serveSize > 0 {
		return serveBaseline(*serveSize, stdout, stderr)
	}
	if c.clients < 1 || c.tasksPerClient < 1 || c.duration <= 0 || c.rounds < 1 {
		fmt.Fprintln(stderr, "taskload: --clients, --tasks, --duration and --rounds must be positive")
		return 2
	}
	results, err := measure(context.Background(), c)
	if err != nil {
		fmt.Fprintln(stderr, "taskload:", err)
		return 1
	}
	report(stdout, c, results)
	return 0
}

func report(w io.Writer, c config, results []Result) {
	if c.jsonOut {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(results)
		return
	}
	fmt.Fprintf(w, "%d clients, %d alternating rounds of %s, median round shown\n", c.clients, c.rounds, c.duration)
	for _, r := range results {
		fmt.Fprintf(w, "%-10s %9.0f req/s  p50 %7.0f µs  p99 %7.0f µs  %d requests, %d errors, body %d B\n",
			r.Name, r.ReqPerSec, r.P50Micros, r.P99Micros, r.Requests, r.Errors, r.BodyBytes)
	}
	if base := results[len(results)-1]; base.Name == "baseline" && base.ReqPerSec > 0 {
		for _, r := range results[:len(results)-1] {
			fmt.Fprintf(w, "%s reaches %.0f%% of the bare HTTP baseline\n", r.Name, 100*r.ReqPerSec/base.ReqPerSec)
		}
	}
}

// measure runs the tasks/get load and, if asked, the baseline.
func measure(ctx context.Context, c config) ([]Result, error) {
	c.external = c.url != ""
	if c.url == "" {
		inst, err := reference.Start(ctx, reference.Options{
			Config: tasks.Config{MaxTasksPerOwner: -1},
			// The creation run makes tasks faster than a short ttl ends
			// them; the retained-task caps are not what is measured.
			ServerOptions: []server.Option{server.WithMaxRetainedTasks(-1, -1), server.WithMaxActiveTasks(-1)},
		})
		if err != nil {
			return nil, err
		}
		defer inst.Close(context.Background())
		c.url = inst.URL
	}
	hc := &http.Client{Transport: &http.Transport{
		MaxIdleConns:        c.clients * 2,
		MaxIdleConnsPerHost: c.clients * 2,
		IdleConnTimeout:     time.Minute,
	}}
	defer hc.CloseIdleConnections()
	workers := make([]*worker, c.clients)
	for i := range workers {
		w, err := newWorker(ctx, hc, c)
		if err != nil {
			return nil, fmt.Errorf("session %d: %w", i, err)
		}
		workers[i] = w
	}
	sample, err := workers[0].get(ctx, 0)
	if err != nil {
		return nil, fmt.Errorf("first tasks/get: %w", err)
	}
	var base []*worker
	if c.baseline {
		var stop func()
		base, stop, err = baselineWorkers(ctx, hc, c, sample)
		if err != nil {
			return nil, err
		}
		defer stop()
	}
	// Alternate the runs so both see the same machine load, then keep
	// each side's median round.
	var createSample []byte
	if c.create {
		if createSample, err = workers[0].createTask(ctx, 0); err != nil {
			return nil, fmt.Errorf("first task creation: %w", err)
		}
	}
	var got, created, bare []Result
	for range c.rounds {
		r := load(ctx, wire.MethodTasksGet, workers, c, (*worker).get)
		r.BodyBytes = len(sample)
		got = append(got, r)
		if c.create {
			r := load(ctx, "create", workers, c, (*worker).createTask)
			r.BodyBytes = len(createSample)
			created = append(created, r)
		}
		if c.baseline {
			b := load(ctx, "baseline", base, c, (*worker).get)
			b.BodyBytes = len(sample)
			bare = append(bare, b)
		}
	}
	out := []Result{median(got)}
	if c.create {
		out = append(out, median(created))
	}
	if c.baseline {
		out = append(out, median(bare))
	}
	return out, nil
}

// median returns the round with the median throughput.
func median(rs []Result) Result {
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b Result) int { return cmp.Compare(a.ReqPerSec, b.ReqPerSec) })
	return rs[len(rs)/2]
}

// worker is one session with its tasks and prepared request bodies.
type worker struct {
	hc      *http.Client
	url     string
	headers http.Header
	bodies  [][]byte
	create  []byte // a task-augmented tools/call
}

func (w *worker) post(ctx context.Context, body []byte) ([]byte, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header = w.headers.Clone()
	resp, err := w.hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
	}
	return b, resp.Header, nil
}

var taskIDRe = regexp.MustCompile(`"taskId":"([^"]+)"`)

func newWorker(ctx context.Context, hc *http.Client, c config) (*worker, error) {
	w := &worker{hc: hc, url: c.url, headers: http.Header{}}
	w.headers.Set("Content-Type", "application/json")
	w.headers.Set("Accept", "application/json, text/event-stream")
	for _, h := range c.headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok {
			return nil, fmt.Errorf("--header %q: want \"Key: Value\"", h)
		}
		w.headers.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	_, hdr, err := w.post(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"taskload","version":"1"}}}`))
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if sid := hdr.Get("Mcp-Session-Id"); sid != "" {
		w.headers.Set("Mcp-Session-Id", sid)
	}
	w.headers.Set("Mcp-Protocol-Version", "2025-11-25")
	if _, _, err := w.post(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		return nil, fmt.Errorf("notifications/initialized: %w", err)
	}
	for i := range c.tasksPerClient {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s,"task":{}}}`, i+1, c.tool, c.args)
		b, _, err := w.post(ctx, []byte(body))
		if err != nil {
			return nil, fmt.Errorf("tools/call: %w", err)
		}
		m := taskIDRe.FindSubmatch(b)
		if m == nil {
			return nil, fmt.Errorf("tools/call did not create a task: %s", b)
		}
		w.bodies = append(w.bodies, []byte(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"`+string(m[1])+`"}}`))
	}
	w.create = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":%s,"task":{"ttl":%d}}}`,
		c.tool, c.args, c.createTTL.Milliseconds())
	return w, nil
}

// createTask creates one task and checks that the answer is a task.
func (w *worker) createTask(ctx context.Context, _ int) ([]byte, error) {
	b, _, err := w.post(ctx, w.create)
	if err == nil && !bytes.Contains(b, []byte(`"taskId"`)) {
		err = fmt.Errorf("tools/call did not create a task: %s", b)
	}
	return b, err
}

func (w *worker) get(ctx context.Context, i int) ([]byte, error) {
	b, _, err := w.post(ctx, w.bodies[i%len(w.bodies)])
	if err == nil && !bytes.Contains(b, []byte(`"result"`)) {
		err = fmt.Errorf("tasks/get failed: %s", b)
	}
	return b, err
}

// load runs op on every worker for warmup+duration and measures the
// second part.
func load(ctx context.Context, name string, workers []*worker, c config, op func(*worker, context.Context, int) ([]byte, error)) Result {
	type stats struct {
		lat  []time.Duration
		errs int
	}
	all := make([]stats, len(workers))
	start := time.Now()
	measureFrom := start.Add(c.warmup)
	end := measureFrom.Add(c.duration)
	var wg sync.WaitGroup
	for i, w := range workers {
		wg.Go(func() {
			st := &all[i]
			st.lat = make([]time.Duration, 0, 1<<16)
			for n := 0; ; n++ {
				t0 := time.Now()
				if !t0.Before(end) {
					return
				}
				_, err := op(w, ctx, n)
				d := time.Since(t0)
				if t0.Before(measureFrom) {
					continue
				}
				if err != nil {
					st.errs++
					continue
				}
				st.lat = append(st.lat, d)
			}
		})
	}
	wg.Wait()
	var lat []time.Duration
	errs := 0
	for _, s := range all {
		lat = append(lat, s.lat...)
		errs += s.errs
	}
	slices.Sort(lat)
	r := Result{Name: name, Requests: len(lat), Errors: errs, Seconds: c.duration.Seconds()}
	r.ReqPerSec = float64(len(lat)) / c.duration.Seconds()
	if len(lat) > 0 {
		r.P50Micros = float64(lat[len(lat)/2].Microseconds())
		r.P99Micros = float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())
	}
	return r
}

// bareHandler answers every request with body, as cheaply as net/http allows.
func bareHandler(body []byte) http.Handler {
	size := strconv.Itoa(len(body))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", size)
		_, _ = w.Write(body)
	})
}

// serveBaseline runs the bare handler in this (child) process until stdin
// closes; the first line on stdout is its URL.
func serveBaseline(size int, stdout, stderr io.Writer) int {
	body := append(append([]byte(`{"jsonrpc":"2.0","id":1,"result":{"pad":"`), bytes.Repeat([]byte("x"), max(0, size-44))...), `"}}`...)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(stderr, "taskload:", err)
		return 1
	}
	srv := &http.Server{Handler: bareHandler(body), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	fmt.Fprintf(stdout, "http://%s/\n", ln.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin)
	_ = srv.Close()
	return 0
}

// startBaseline starts the bare handler answering with a body of the
// given size: in a child process when the measured server is external (so
// both sides pay for crossing processes), else in this process like the
// in-process reference server. It returns the URL and a stop function.
func startBaseline(c config, body []byte) (string, func(), error) {
	if !c.external {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", nil, err
		}
		srv := &http.Server{Handler: bareHandler(body), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		return "http://" + ln.Addr().String() + "/", func() { _ = srv.Close() }, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(exe, "--serve-baseline", strconv.Itoa(len(body)))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return "", nil, fmt.Errorf("baseline process: %w", err)
	}
	return strings.TrimSpace(line), func() { _ = stdin.Close(); _ = cmd.Wait() }, nil
}

// baselineWorkers starts the bare handler and prepares clients for it.
func baselineWorkers(ctx context.Context, hc *http.Client, c config, body []byte) ([]*worker, func(), error) {
	url, stop, err := startBaseline(c, body)
	if err != nil {
		return nil, nil, err
	}
	workers := make([]*worker, c.clients)
	for i := range workers {
		h := http.Header{}
		h.Set("Content-Type", "application/json")
		h.Set("Accept", "application/json, text/event-stream")
		h.Set("Mcp-Session-Id", "0123456789abcdef0123456789abcdef0123")
		h.Set("Mcp-Protocol-Version", "2025-11-25")
		workers[i] = &worker{hc: hc, url: url, headers: h,
			bodies: [][]byte{[]byte(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"00000000-0000-4000-8000-000000000000"}}`)}}
	}
	for _, w := range workers {
		if _, err := w.get(ctx, 0); err != nil {
			stop()
			return nil, nil, fmt.Errorf("baseline: %w", err)
		}
	}
	return workers, stop, nil
}
