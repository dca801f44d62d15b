package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/server"
	"github.com/mcptasks/mcptasks/tasks/server/reference"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

const initBody = `{"jsonrpc":"2.0","id":"init-1","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// httpFrom returns an HTTP client whose connections come from the given
// loopback address (127.0.0.2, …): to the server, another client IP.
func httpFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 16}}
}

// post sends one JSON-RPC message and returns status, headers and body.
func post(t testing.TB, hc *http.Client, url, body string, hdr ...string) (int, http.Header, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// wantLimitError checks an HTTP refusal carrying CodeLimitExceeded.
func wantLimitError(t testing.TB, status int, body []byte, wantStatus int, contains string) {
	t.Helper()
	if status != wantStatus {
		t.Fatalf("HTTP %d (%s), want %d", status, body, wantStatus)
	}
	var m struct {
		Error struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("not JSON-RPC: %s", body)
	}
	if m.Error.Code != server.CodeLimitExceeded || !strings.Contains(m.Error.Message, contains) {
		t.Fatalf("error %d %q, want %d mentioning %q", m.Error.Code, m.Error.Message, server.CodeLimitExceeded, contains)
	}
}

// rssKB reads the process's resident set size (Linux), 0 if unknown.
func rssKB() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// A client opening sessions as fast as it can is refused past its cap;
// memory stays bounded and a client from another address is served.
func TestSessionFloodIsBounded(t *testing.T) {
	const perIdentity = 2000
	var logs testenv.SyncBuffer
	inst := start(t, reference.Options{
		Logger:        slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo})),
		ServerOptions: []server.Option{server.WithMaxSessionsPerIdentity(perIdentity)},
	})
	attempts := 60_000
	if raceEnabled || testing.Short() {
		attempts = 6_000 // the race detector makes each request ~10x dearer
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	rssBefore := rssKB()

	hc := httpFrom("127.0.0.1")
	defer hc.CloseIdleConnections()
	var next, admitted, refused atomic.Int64
	var failure atomic.Pointer[string]
	t0 := time.Now()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for next.Add(1) <= int64(attempts) && failure.Load() == nil {
				req, _ := http.NewRequest(http.MethodPost, inst.URL, strings.NewReader(initBody))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := hc.Do(req)
				if err != nil {
					msg := err.Error()
					failure.Store(&msg)
					return
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				switch {
				case resp.StatusCode == http.StatusOK && resp.Header.Get(server.HeaderSessionID) != "":
					admitted.Add(1)
				case resp.StatusCode == http.StatusTooManyRequests && bytes.Contains(body, []byte(`"code":-32029`)) &&
					bytes.Contains(body, []byte(`"id":"init-1"`)):
					refused.Add(1)
				default:
					msg := fmt.Sprintf("HTTP %d: %s", resp.StatusCode, body)
					failure.Store(&msg)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(t0)
	if f := failure.Load(); f != nil {
		t.Fatalf("flood: %s", *f)
	}
	if admitted.Load() != perIdentity || refused.Load() != int64(attempts-perIdentity) {
		t.Fatalf("%d sessions admitted and %d refused, want %d and %d", admitted.Load(), refused.Load(), perIdentity, attempts-perIdentity)
	}
	if n := inst.Server.SessionCount(); n != perIdentity {
		t.Fatalf("%d sessions held, want %d", n, perIdentity)
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	growth := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d initialize requests in %s (%.0f/s); heap %+d KB (%.0f B per held session), RSS %d -> %d KB",
		attempts, elapsed.Round(time.Millisecond), float64(attempts)/elapsed.Seconds(), growth>>10,
		float64(growth)/perIdentity, rssBefore, rssKB())
	// 2000 sessions must fit in a few MB; unbounded, 60 000 took 820 MB.
	if growth > 32<<20 {
		t.Errorf("heap grew by %d MB for %d sessions", growth>>20, perIdentity)
	}

	// The refusals are logged by sample, not one line each.
	if n := strings.Count(logs.String(), "session refused"); n == 0 || n > attempts/1000+1 {
		t.Errorf("%d log lines for %d refusals", n, attempts-perIdentity)
	}

	// Another client (another address) still gets a session and a task.
	good := connect(t, inst.URL, client.WithHTTPClient(httpFrom("127.0.0.2")))
	ctx := testCtx(t)
	ct, err := good.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := good.Result(ctx, ct.Task.TaskID); err != nil {
		t.Fatal(err)
	}
}

// The total session cap answers 503 with Retry-After; ending a session
// makes room again.
func TestSessionCapTotal(t *testing.T) {
	inst := start(t, reference.Options{ServerOptions: []server.Option{server.WithMaxSessions(3), server.WithMaxSessionsPerIdentity(-1)}})
	var clients []*client.Client
	for range 3 {
		clients = append(clients, connect(t, inst.URL))
	}
	status, h, body := post(t, http.DefaultClient, inst.URL, initBody)
	wantLimitError(t, status, body, http.StatusServiceUnavailable, "session limit reached")
	if h.Get("Retry-After") == "" || h.Get(server.HeaderSessionID) != "" {
		t.Errorf("refusal headers: %v", h)
	}
	if code, err := clients[0].DeleteSession(testCtx(t)); err != nil || code != http.StatusNoContent {
		t.Fatalf("DELETE: %d %v", code, err)
	}
	connect(t, inst.URL)
}

// The per-identity cap counts bearer subjects: one subject at its cap
// does not block another.
func TestSessionCapPerSubject(t *testing.T) {
	tokens := server.NewStaticTokens(map[string]string{"token-a": "alice", "token-b": "bob"})
	inst := start(t, reference.Options{ServerOptions: []server.Option{server.WithTokenVerifier(tokens), server.WithMaxSessionsPerIdentity(2)}})
	for range 2 {
		connect(t, inst.URL, client.WithHeader("Authorization", "Bearer token-a"))
	}
	status, _, body := post(t, http.DefaultClient, inst.URL, initBody, "Authorization", "Bearer token-a")
	wantLimitError(t, status, body, http.StatusTooManyRequests, "session limit reached")
	connect(t, inst.URL, client.WithHeader("Authorization", "Bearer token-b"))
}

// Many sessions (owners) cannot run more tasks together than the
// server's cap; a slot frees when a task's work ends.
func TestActiveTaskCapHoldsAcrossSessions(t *testing.T) {
	const maxActive = 6
	inst := start(t, reference.Options{ServerOptions: []server.Option{server.WithMaxActiveTasks(maxActive)}})
	ctx := testCtx(t)
	var created []string
	var owners []*client.Client
	refused := 0
	for range 4 {
		c := connect(t, inst.URL)
		for range 3 {
			ct, err := c.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 60_000}, nil)
			if err != nil {
				wantCode(t, err, server.CodeLimitExceeded, "task limit reached")
				refused++
				continue
			}
			created = append(created, ct.Task.TaskID)
			owners = append(owners, c)
		}
	}
	if len(created) != maxActive || refused != 12-maxActive {
		t.Fatalf("%d tasks created, %d refused; want %d and %d", len(created), refused, maxActive, 12-maxActive)
	}
	if _, err := owners[0].CancelTask(ctx, created[0]); err != nil {
		t.Fatal(err)
	}
	fresh := connect(t, inst.URL)
	waitFor(t, 20*time.Second, "a slot to free after a cancel", func() bool {
		_, err := fresh.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 1}, nil)
		return err == nil
	})
}

// Finished tasks count against the retained caps until they expire; none
// is dropped to make room, so every result stays fetchable.
func TestRetainedTaskCaps(t *testing.T) {
	inst := start(t, reference.Options{
		Config:        tasks.Config{MinTTL: time.Millisecond},
		ServerOptions: []server.Option{server.WithMaxRetainedTasks(3, 5)},
	})
	ctx := testCtx(t)
	a := connect(t, inst.URL)
	ttl := int64(800)
	var ids []string
	for range 3 {
		ct, err := a.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 0}, &ttl)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ct.Task.TaskID)
	}
	_, err := a.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 0}, nil)
	wantCode(t, err, server.CodeLimitExceeded, "per requestor")
	for _, id := range ids {
		if _, err := a.Result(ctx, id); err != nil {
			t.Fatalf("result of %s: %v", id, err)
		}
	}
	b := connect(t, inst.URL)
	for range 2 {
		if _, err := b.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 0}, nil); err != nil {
			t.Fatal(err)
		}
	}
	_, err = b.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 0}, nil)
	wantCode(t, err, server.CodeLimitExceeded, "all requestors")
	// Once a's tasks expire, a may create again.
	waitFor(t, 20*time.Second, "a's tasks to expire", func() bool {
		_, err := a.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 0}, nil)
		return err == nil
	})
}

// A message with invalid UTF-8 (here in its id) is refused as a parse
// error, and the reply is valid UTF-8 JSON without an id (never null).
func TestInvalidUTF8IsRefused(t *testing.T) {
	inst := start(t, reference.Options{})
	c := connect(t, inst.URL)
	for _, body := range []string{
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"ping\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":\"ok\xc3\",\"method\":\"initialize\",\"params\":{}}",
		"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tasks/get\",\"params\":{\"taskId\":\"\xfftask\"}}",
	} {
		status, _, out := post(t, http.DefaultClient, inst.URL, body,
			server.HeaderSessionID, c.SessionID(), server.HeaderProtocolVersion, "2025-11-25")
		if !utf8.Valid(out) || !json.Valid(out) {
			t.Fatalf("reply to %q is not valid UTF-8 JSON: %q", body, out)
		}
		code, _, id := rpcCode(t, out)
		if status != http.StatusBadRequest || code != wire.CodeParseError || len(id) != 0 {
			t.Errorf("reply to %q: HTTP %d %s", body, status, out)
		}
	}
	// Over stdio too.
	var out bytes.Buffer
	in := strings.NewReader("{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}\n")
	if err := inst.Server.ServeStdio(testCtx(t), in, &out); err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(out.Bytes()) || !bytes.Contains(out.Bytes(), []byte(`"code":-32700`)) {
		t.Errorf("stdio reply: %q", out.Bytes())
	}
}

// slowPost opens a connection and sends a POST whose body never
// completes: the headers and one byte of a declared 1000.
func slowPost(t testing.TB, rawURL string, hdr string) net.Conn {
	t.Helper()
	u, _ := url.Parse(rawURL)
	c, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, err = fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n%sContent-Length: 1000\r\n\r\n{", u.Path, u.Host, hdr)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// readAnswer reads an HTTP response from c within d and reports its
// status and whether the server then closed the connection.
func readAnswer(t testing.TB, c net.Conn, d time.Duration) (status int, closed bool) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(d))
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer within %s: %v", d, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	_, err = br.ReadByte()
	return resp.StatusCode, errors.Is(err, io.EOF) || (err != nil && !isTimeout(err))
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// Without a valid token a request is refused from its headers: a slow
// body does not hold the connection, whatever the body timeout.
func TestCredentialsCheckedBeforeBody(t *testing.T) {
	tokens := server.NewStaticTokens(map[string]string{"token-a": "alice"})
	inst := start(t, reference.Options{ServerOptions: []server.Option{server.WithTokenVerifier(tokens), server.WithBodyTimeout(time.Hour)}})
	for _, hdr := range []string{"", "Authorization: Bearer wrong\r\n"} {
		c := slowPost(t, inst.URL, hdr)
		status, closed := readAnswer(t, c, 10*time.Second)
		c.Close()
		if status != http.StatusUnauthorized || !closed {
			t.Errorf("header %q: HTTP %d, connection closed %v; want 401 and closed", hdr, status, closed)
		}
	}
}

// A body slower than the body timeout is cut (408, connection closed),
// while a long answer after a prompt body is not.
func TestBodyTimeout(t *testing.T) {
	inst := start(t, reference.Options{ServerOptions: []server.Option{server.WithBodyTimeout(300 * time.Millisecond)}})
	c := slowPost(t, inst.URL, "")
	defer c.Close()
	status, closed := readAnswer(t, c, 20*time.Second)
	if status != http.StatusRequestTimeout || !closed {
		t.Errorf("slow body: HTTP %d, closed %v; want 408 and closed", status, closed)
	}
	cl := connect(t, inst.URL)
	ctx := testCtx(t)
	ct, err := cl.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 1500}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Result(ctx, ct.Task.TaskID); err != nil {
		t.Errorf("tasks/result waiting longer than the body timeout: %v", err)
	}
}

// Past the connection cap, connections waiting for their request make room
// for new ones, oldest first.
func TestConnCapEvictsWaitingConnections(t *testing.T) {
	inst := start(t, reference.Options{ListenOptions: []server.ListenOption{server.WithMaxConns(8)}})
	var slow []net.Conn
	for range 20 {
		slow = append(slow, slowPost(t, inst.URL, ""))
	}
	defer func() {
		for _, c := range slow {
			c.Close()
		}
	}()
	c := connect(t, inst.URL)
	if _, err := c.Call(testCtx(t), "ping", nil); err != nil {
		t.Fatal(err)
	}
	open, evicted, _ := inst.Listener().ConnStats()
	if open > 8 || evicted < 12 {
		t.Errorf("%d connections open, %d evicted; want at most 8 and at least 12", open, evicted)
	}
}

// TestSlowBodiesUnderLowFDLimit runs a server in a child process whose
// open-file limit is 256, holds 500 connections that send bodies slowly,
// and checks that a normal client's initialize is still answered within a
// second.
func TestSlowBodiesUnderLowFDLimit(t *testing.T) {
	if os.Getenv("MCPTASKS_LOWFD_CHILD") == "1" {
		lowFDChild()
		return
	}
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url, stop := startLowFDChild(ctx, t)
	defer stop()

	var slow []net.Conn
	defer func() {
		for _, c := range slow {
			c.Close()
		}
	}()
	for range 500 {
		slow = append(slow, slowPost(t, url, ""))
	}
	best := time.Hour
	for attempt := range 3 {
		hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		t0 := time.Now()
		status, h, body := post(t, hc, url, initBody)
		d := time.Since(t0)
		t.Logf("attempt %d: initialize answered in %s", attempt+1, d.Round(time.Millisecond))
		if status != http.StatusOK || h.Get(server.HeaderSessionID) == "" {
			t.Fatalf("initialize: HTTP %d %s", status, body)
		}
		best = min(best, d)
		if d < time.Second {
			break
		}
	}
	if best >= time.Second {
		t.Errorf("initialize took %s with 500 slow connections, want under 1 s", best)
	}
	// Most slow connections were cut to make room.
	cut := 0
	for _, c := range slow {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); err != nil && !isTimeout(err) {
			cut++
		}
	}
	t.Logf("%d of 500 slow connections were cut by the server", cut)
	if cut < 500-256 {
		t.Errorf("only %d slow connections were cut; the server cannot be holding %d under a 256 file limit", cut, 500-cut)
	}
}

// startLowFDChild re-runs this test binary as a server limited to 256
// open files and returns its MCP URL.
func startLowFDChild(ctx context.Context, t *testing.T) (string, func()) {
	t.Helper()
	cmd := execCommand(ctx, os.Args[0], "-test.run=^TestSlowBodiesUnderLowFDLimit$", "-test.v=false")
	cmd.Env = append(os.Environ(), "MCPTASKS_LOWFD_CHILD=1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := func() {
		stdin.Close()
		_ = cmd.Wait()
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "URL "); ok {
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return u, stop
		}
	}
	stop()
	t.Fatal("the child server did not start")
	return "", nil
}

// lowFDChild lowers the open-file limit to 256, serves, prints its URL and
// runs until stdin closes.
func lowFDChild() {
	if err := setNoFile(256); err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	inst, err := reference.Start(context.Background(), reference.Options{})
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	fmt.Println("URL " + inst.URL)
	_, _ = io.Copy(io.Discard, os.Stdin)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = inst.Close(ctx)
	os.Exit(0)
}

// When every connection is busy answering (here two SSE streams), a new
// connection gets HTTP 503 at once instead of waiting.
func TestConnCapAllBusyAnswers503(t *testing.T) {
	inst := start(t, reference.Options{ListenOptions: []server.ListenOption{server.WithMaxConns(2)}})
	ctx := testCtx(t)
	for range 2 {
		hc := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
		t.Cleanup(hc.CloseIdleConnections)
		c := connect(t, inst.URL, client.WithHTTPClient(hc))
		if err := c.OpenStream(ctx); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 10*time.Second, "both streams to be busy", func() bool {
		open, _, _ := inst.Listener().ConnStats()
		return open == 2
	})
	u, _ := url.Parse(inst.URL)
	c, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	status, closed := readAnswer(t, c, 10*time.Second)
	if status != http.StatusServiceUnavailable || !closed {
		t.Errorf("HTTP %d, closed %v; want 503 and closed", status, closed)
	}
	if _, _, refused := inst.Listener().ConnStats(); refused != 1 {
		t.Errorf("%d refusals counted, want 1", refused)
	}
}

// GET and DELETE carry no body: one is refused without being read.
func TestBodyOnGetRefused(t *testing.T) {
	inst := start(t, reference.Options{})
	c := connect(t, inst.URL)
	req, _ := http.NewRequest(http.MethodGet, inst.URL, strings.NewReader("x"))
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(server.HeaderSessionID, c.SessionID())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("GET with a body: HTTP %d", resp.StatusCode)
	}
}

// One identity cannot hold more waiting requests (streams, tools/call,
// tasks/result) than its cap, so it cannot occupy every connection;
// other identities are not affected.
func TestWaitingRequestsCapPerIdentity(t *testing.T) {
	inst := start(t, reference.Options{ServerOptions: []server.Option{server.WithMaxWaitingPerIdentity(3)}})
	ctx := testCtx(t)
	var stops []context.CancelFunc
	for range 3 {
		c := connect(t, inst.URL)
		sctx, stop := context.WithCancel(ctx)
		t.Cleanup(stop)
		if err := c.OpenStream(sctx); err != nil {
			t.Fatal(err)
		}
		stops = append(stops, stop)
	}
	c := connect(t, inst.URL)
	var he *client.HTTPError
	if err := c.OpenStream(ctx); !errors.As(err, &he) || he.StatusCode != http.StatusTooManyRequests || !strings.Contains(he.Body, "-32029") {
		t.Fatalf("a fourth stream: %v, want HTTP 429 with -32029", err)
	}
	_, err := c.CallTool(ctx, server.FixtureSleepTool, map[string]any{"ms": 0})
	wantCode(t, err, server.CodeLimitExceeded, "request limit reached")
	if _, err := c.Call(ctx, "ping", nil); err != nil {
		t.Errorf("a quick request was refused: %v", err)
	}
	other := connect(t, inst.URL, client.WithHTTPClient(httpFrom("127.0.0.2")))
	if _, err := other.CallTool(ctx, server.FixtureSleepTool, map[string]any{"ms": 0}); err != nil {
		t.Errorf("another identity was refused: %v", err)
	}
	stops[0]()
	waitFor(t, 10*time.Second, "a slot to free after a stream ends", func() bool {
		_, err := c.CallTool(ctx, server.FixtureSleepTool, map[string]any{"ms": 0})
		return err == nil
	})
}

// Sessions forgotten for idleness free their place under the caps, with
// no other traffic needed to trigger the sweep.
func TestIdleSessionsFreeTheirPlace(t *testing.T) {
	inst := start(t, reference.Options{ServerOptions: []server.Option{
		server.WithMaxSessionsPerIdentity(2), server.WithSessionIdleTimeout(200 * time.Millisecond)}})
	connect(t, inst.URL)
	connect(t, inst.URL)
	status, _, body := post(t, http.DefaultClient, inst.URL, initBody)
	wantLimitError(t, status, body, http.StatusTooManyRequests, "session limit reached")
	waitFor(t, 10*time.Second, "idle sessions to be swept", func() bool { return inst.Server.SessionCount() == 0 })
	connect(t, inst.URL)
}
