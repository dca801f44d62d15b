package server

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/tasks"
)

type discardSender struct{}

func (discardSender) send([]byte) error { return nil }

// FuzzDecodeDispatch feeds arbitrary bytes through message decoding and
// dispatch on an initialized session. Whatever the input, the server must
// not panic, must answer every request with one valid JSON-RPC response
// carrying the request's id, and must leave every task in a valid state.
func FuzzDecodeDispatch(f *testing.F) {
	seeds := []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fixture_sleep","arguments":{"ms":0},"task":{"ttl":1000}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fixture_sleep","arguments":{"ms":1},"task":{"ttl":-1}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fixture_progress","arguments":{"ms":1,"steps":2},"_meta":{"progressToken":7}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"taskId":"x"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tasks/list","params":{"cursor":"c1.MTIzfGFi"}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tasks/cancel","params":{"taskId":7}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tasks/result","params":{"taskId":"x","_meta":{"io.modelcontextprotocol/related-task":{"taskId":"y"}}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`,
		`{"jsonrpc":"2.0","id":"srv-1","result":{"action":"accept"}}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`,
		"\xff\xfe",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fixture_sleep","task":{"ttl":1e308}}}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	cfg := tasks.Config{PollInterval: 10 * time.Millisecond, MaxTasksPerOwner: 50}.WithDefaults()
	st := memory.New(cfg)
	log := slog.New(slog.DiscardHandler)
	eng := tasks.NewEngine(st, cfg, tasks.WithLogger(log))
	srv, err := New(eng, WithFixtures(), WithLogger(log))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = eng.Close(ctx)
		_ = st.Close()
	})
	sess := newSession("")
	sess.owner = "session:" + tasks.Owner(sess.id)
	sess.setVersion(ProtocolVersion)
	srv.addSession(sess)

	f.Fuzz(func(t *testing.T, data []byte) {
		msg, k, err := decode(data)
		if err != nil {
			de, ok := err.(*decodeError)
			if !ok || de.err == nil || de.err.Code == 0 || de.err.Message == "" {
				t.Fatalf("decode error without a JSON-RPC error: %v", err)
			}
			if !json.Valid(appendError(nil, de.id, de.err)) {
				t.Fatalf("error response is not JSON")
			}
			return
		}
		switch k {
		case kindNotification:
			srv.onNotification(sess, msg)
		case kindResponse:
			_ = srv.core.Respond(sess.owner, msg.ID, msg.Result, msg.Error)
		case kindRequest:
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			resp := srv.dispatch(&call{ctx: ctx, sess: sess, id: msg.ID, method: msg.Method, params: msg.Params, out: discardSender{}})
			if resp == nil {
				t.Fatalf("no response to %s", data)
			}
			var env struct {
				ID     json.RawMessage `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(resp, &env); err != nil {
				t.Fatalf("response %q is not JSON: %v", resp, err)
			}
			if !bytes.Equal(env.ID, msg.ID) || (env.Result == nil) == (env.Error == nil) {
				t.Fatalf("response %s does not answer %s", resp, data)
			}
		}
		page, err := st.List(context.Background(), sess.owner, tasks.ListOptions{Limit: tasks.MaxPageSize})
		if err != nil {
			t.Fatalf("list after input: %v", err)
		}
		for _, r := range page.Tasks {
			if !r.Status.Valid() || r.Owner != sess.owner {
				t.Fatalf("task in a bad state: %+v", r)
			}
		}
	})
}
