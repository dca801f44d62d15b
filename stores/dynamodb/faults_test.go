package dynamodb_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcptasks/mcptasks/stores/dynamodb"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// lossyProxy forwards requests to the test server and, while armed,
// replaces the response of an applied UpdateItem by a 500: the write
// happened but the client cannot know.
type lossyProxy struct {
	armed   atomic.Bool
	updates atomic.Int64
}

func (p *lossyProxy) start(t *testing.T, target string) string {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(resp *http.Response) error {
		if !strings.HasSuffix(resp.Request.Header.Get("X-Amz-Target"), ".UpdateItem") {
			return nil
		}
		p.updates.Add(1)
		if !p.armed.Load() {
			return nil
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		body := []byte(`{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"injected: response lost"}`)
		resp.StatusCode = http.StatusInternalServerError
		resp.Status = "500 Internal Server Error"
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
		resp.Header.Del("X-Amz-Crc32")
		return nil
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestLostResponseIsNotRetried: when a Complete was applied but its
// response is lost, the store reports an internal error and does not
// retry; a retry would fail its own condition and report the task as
// already terminal, i.e. as a lost race that was actually won.
func TestLostResponseIsNotRetried(t *testing.T) {
	ep, _ := clientEndpoint(t)
	var p lossyProxy
	c, err := dynamodb.NewClient(t.Context(), dynamodb.ClientConfig{Endpoint: p.start(t, ep)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)
	s, err := dynamodb.Open(ctx, c, tableName(t), tasks.Config{MaxTasksPerOwner: -1}, dynamodb.WithNativeTTL(false))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := s.Create(ctx, "o", tasks.CreateParams{})
	if err != nil {
		t.Fatal(err)
	}
	p.armed.Store(true)
	before := p.updates.Load()
	_, err = s.Complete(ctx, "o", r.ID, tasks.StatusCompleted, "", tasks.Outcome{Result: json.RawMessage(`{"ok":true}`)})
	p.armed.Store(false)
	if err == nil || errors.Is(err, tasks.ErrInvalidTransition) || protocol.RPCCode(err) != wire.CodeInternalError {
		t.Fatalf("complete with a lost response: %v; want an internal error", err)
	}
	if n := p.updates.Load() - before; n != 1 {
		t.Fatalf("%d UpdateItem requests sent, want exactly 1 (no retry)", n)
	}
	got, err := s.Result(ctx, "o", r.ID)
	if err != nil || got.Status != tasks.StatusCompleted || string(got.Outcome.Result) != `{"ok":true}` {
		t.Fatalf("after the lost response the task is %+v, %v; the write must have applied once", got, err)
	}
}
