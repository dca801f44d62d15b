package mcpgo

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptasks/mcptasks/tasks"
)

// session is an mcp-go session as the protocol core sees it. Status
// notifications go through mcp-go (SendNotificationToSpecificClient), so
// they share its queue and streams; server-to-client requests (input a
// task needs), which mcp-go cannot send for someone else, are written on
// the session's standalone stream by the adapter: the HTTP GET stream it
// passes to mcp-go, or stdout.
type session struct {
	a          *Adapter
	id         string
	cs         server.ClientSession
	owner      tasks.Owner
	elicitForm bool
	stdio      bool
	out        *lineWriter // stdio only

	mu     sync.Mutex
	stream *sseWriter // the open GET stream (HTTP), nil when none
}

// SessionID is mcp-go's session id.
func (s *session) SessionID() string { return s.id }

// Owner is the requestor the session's tasks belong to.
func (s *session) Owner() tasks.Owner { return s.owner }

// ElicitForm reports whether the client declared form elicitation.
func (s *session) ElicitForm() bool { return s.elicitForm }

// Listening reports whether a standalone stream is open: stdout always,
// over HTTP while a GET stream of the session passes through the adapter.
func (s *session) Listening() bool {
	if s.stdio {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stream != nil
}

// Notify sends msg to the client: a notification through mcp-go's own
// delivery to this session, a request on the standalone stream. It never
// blocks; what cannot be delivered is dropped and logged.
func (s *session) Notify(msg []byte) {
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(msg, &env); err != nil {
		s.a.log.Error("mcpgo: undecodable message for the client", "err", err)
		return
	}
	if len(env.ID) == 0 {
		params := map[string]any{}
		if len(env.Params) > 0 {
			dec := json.NewDecoder(bytes.NewReader(env.Params))
			dec.UseNumber() // keep integers (ttl, progress) exact
			if err := dec.Decode(&params); err != nil {
				s.a.log.Error("mcpgo: notification params are not an object", "method", env.Method, "err", err)
				return
			}
		}
		if meta, ok := params["_meta"].(map[string]any); ok {
			// mcp-go's SendNotificationToSpecificClient drops _meta (the
			// related-task metadata of a task's progress), so such a
			// notification goes on the session's channel directly.
			delete(params, "_meta")
			n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
				Method: env.Method, Params: mcp.NotificationParams{Meta: meta, AdditionalFields: params}}}
			select {
			case s.cs.NotificationChannel() <- n:
			default:
				s.a.log.Debug("mcpgo: notification queue full", "method", env.Method, "session", s.id)
			}
			return
		}
		if err := s.a.srv.SendNotificationToSpecificClient(s.id, env.Method, params); err != nil {
			s.a.log.Debug("mcpgo: notification not delivered", "method", env.Method, "session", s.id, "err", err)
		}
		return
	}
	if s.stdio {
		if err := s.out.writeLine(msg); err != nil {
			s.a.log.Debug("mcpgo: request not delivered on stdout", "err", err)
		}
		return
	}
	s.mu.Lock()
	st := s.stream
	s.mu.Unlock()
	if st == nil {
		s.a.log.Debug("mcpgo: no standalone stream for a request", "session", s.id)
		return
	}
	st.inject(msg)
}

// attach makes w the session's standalone stream until the returned
// function is called.
func (s *session) attach(w *sseWriter) (detach func()) {
	s.mu.Lock()
	s.stream = w
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		if s.stream == w {
			s.stream = nil
		}
		s.mu.Unlock()
	}
}
