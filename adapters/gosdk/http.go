package gosdk

import (
	"bytes"
	"io"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionHeader is the Streamable HTTP session header.
const sessionHeader = "Mcp-Session-Id"

// Handler wraps next, normally the SDK's mcp.NewStreamableHTTPHandler
// serving the adapter's server (behind any auth middleware such as
// auth.RequireBearerToken). It carries params.task of tools/call past the
// SDK, and watches each session's standalone GET stream so that input
// requests of tasks reach clients that only poll tasks/get.
//
// Request bodies larger than maxBody bytes (0: the SDK's default limit)
// are passed on untouched, for the SDK to refuse.
func (a *Adapter) Handler(next http.Handler, maxBody int64) http.Handler {
	if maxBody <= 0 {
		maxBody = mcp.DefaultMaxRequestBodyBytes
	}
	return &handler{a: a, next: next, maxBody: maxBody}
}

type handler struct {
	a       *Adapter
	next    http.Handler
	maxBody int64
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// ServeHTTP rewrites POST bodies and tracks GET streams.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		if r.Body == nil || r.Body == http.NoBody {
			break
		}
		buf := bufPool.Get().(*bytes.Buffer)
		buf.Reset()
		defer bufPool.Put(buf)
		n, err := buf.ReadFrom(io.LimitReader(r.Body, h.maxBody+1))
		if err != nil || n > h.maxBody {
			// Too large, or the read failed: let the SDK see (and refuse)
			// what was read followed by the rest.
			r.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(bytes.Clone(buf.Bytes())), r.Body), r.Body}
			break
		}
		_ = r.Body.Close()
		body := carryTask(buf.Bytes())
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
	case http.MethodGet:
		if st := h.a.lookupID(r.Header.Get(sessionHeader)); st != nil {
			lw := &listenWriter{ResponseWriter: w, st: st}
			defer lw.closed()
			w = lw
		}
	}
	h.next.ServeHTTP(w, r)
}

// listenWriter watches the response of a GET stream: once the SDK answers
// it with 200 the session's standalone stream is open, until the handler
// returns.
type listenWriter struct {
	http.ResponseWriter
	st     *sessionState
	opened bool
}

// WriteHeader marks the stream open on success.
func (w *listenWriter) WriteHeader(code int) {
	w.ResponseWriter.WriteHeader(code)
	if code == http.StatusOK && !w.opened {
		w.opened = true
		// The SDK registers the stream under a lock it holds until the
		// stream is ready, so what the core sends from here on waits for
		// it rather than getting lost.
		w.st.streamOpened()
	}
}

// Flush passes flushes on.
func (w *listenWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *listenWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *listenWriter) closed() {
	if w.opened {
		w.st.listening.Store(false)
	}
}
