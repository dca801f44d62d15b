package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks"
)

// pendingRequest is a server-to-client request (an elicitation) waiting
// for the client's response.
type pendingRequest struct {
	id     string
	owner  tasks.Owner
	taskID string
	msg    []byte
	answer chan *envelope
	// deliveredBy is the tasks/result stream that carried it, 0 while
	// undelivered; if that stream ends unanswered it is delivered again.
	deliveredBy uint64
}

// inbox holds the input requests of one task until a tasks/result stream
// of the task's owner carries them.
type inbox struct {
	items []*pendingRequest
	wake  chan struct{} // closed when items change
}

func (b *inbox) signal() {
	close(b.wake)
	b.wake = make(chan struct{})
}

var errUnknownResponse = errors.New("no pending request has this id")

// inputFor returns the InputFunc of a task created by sess: it refuses at
// once when the requestor did not declare form elicitation, since such a
// request could never be answered.
func (s *Server) inputFor(sess *session) tasks.InputFunc {
	return func(ctx context.Context, rec tasks.Record, req tasks.InputRequest) (json.RawMessage, error) {
		if req.Method == "elicitation/create" && !sess.elicitForm.Load() {
			return nil, &tasks.RPCError{Code: tasks.CodeInvalidRequest,
				Message: "the requestor did not declare the elicitation capability (form mode), so the task cannot ask for input"}
		}
		return s.inputFunc(ctx, rec, req)
	}
}

// inputFunc is the engine's InputFunc: it queues req, with related-task
// metadata, for the task's tasks/result stream and waits for the answer.
func (s *Server) inputFunc(ctx context.Context, rec tasks.Record, req tasks.InputRequest) (json.RawMessage, error) {
	params, err := setMeta(req.Params, schema.RelatedTaskMetaKey, schema.RelatedTaskMetadata{TaskID: rec.ID})
	if err != nil {
		return nil, fmt.Errorf("input request params: %w", err)
	}
	id := "srv-" + uuid.NewString()
	msg, err := encodeRequest(id, req.Method, params)
	if err != nil {
		return nil, err
	}
	p := &pendingRequest{id: id, owner: rec.Owner, taskID: rec.ID, msg: msg, answer: make(chan *envelope, 1)}
	s.pmu.Lock()
	s.pending[id] = p
	b := s.inboxes[rec.ID]
	if b == nil {
		b = &inbox{wake: make(chan struct{})}
		s.inboxes[rec.ID] = b
	}
	b.items = append(b.items, p)
	b.signal()
	s.pmu.Unlock()
	defer func() {
		s.pmu.Lock()
		delete(s.pending, id)
		if b := s.inboxes[rec.ID]; b != nil {
			b.items = slices.DeleteFunc(b.items, func(q *pendingRequest) bool { return q == p })
			if len(b.items) == 0 {
				delete(s.inboxes, rec.ID)
			}
			b.signal()
		}
		s.pmu.Unlock()
	}()
	select {
	case m := <-p.answer:
		if m.Error != nil {
			var rpc tasks.RPCError
			if err := json.Unmarshal(m.Error, &rpc); err != nil {
				return nil, fmt.Errorf("the requestor answered with a malformed error: %w", err)
			}
			return nil, &rpc
		}
		return m.Result, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// takeInput returns the undelivered input requests of a task for owner,
// marking them as carried by stream, and a channel closed when the task's
// input requests change.
func (s *Server) takeInput(taskID string, owner tasks.Owner, stream uint64) ([]*pendingRequest, <-chan struct{}) {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	b := s.inboxes[taskID]
	if b == nil {
		b = &inbox{wake: make(chan struct{})}
		s.inboxes[taskID] = b
	}
	var out []*pendingRequest
	for _, p := range b.items {
		if p.owner == owner && p.deliveredBy == 0 {
			p.deliveredBy = stream
			out = append(out, p)
		}
	}
	return out, b.wake
}

// releaseInput makes the requests a closing stream carried, and that are
// still unanswered, deliverable again; it drops an empty inbox.
func (s *Server) releaseInput(taskID string, stream uint64) {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	b := s.inboxes[taskID]
	if b == nil {
		return
	}
	for _, p := range b.items {
		if p.deliveredBy == stream {
			p.deliveredBy = 0
		}
	}
	if len(b.items) == 0 {
		delete(s.inboxes, taskID)
	}
}

// onResponse routes a client's JSON-RPC response to the pending request
// it answers.
func (s *Server) onResponse(owner tasks.Owner, m *envelope) error {
	var id string
	if json.Unmarshal(m.ID, &id) != nil {
		return errUnknownResponse
	}
	s.pmu.Lock()
	p := s.pending[id]
	s.pmu.Unlock()
	if p == nil || p.owner != owner {
		return errUnknownResponse
	}
	select {
	case p.answer <- m:
	default: // already answered; the first answer counts
	}
	return nil
}

// setMeta returns the JSON object obj with _meta[key] set to val.
func setMeta(obj json.RawMessage, key string, val any) (json.RawMessage, error) {
	fields := map[string]json.RawMessage{}
	if len(obj) > 0 && string(obj) != "null" {
		if err := json.Unmarshal(obj, &fields); err != nil {
			return nil, fmt.Errorf("not a JSON object: %w", err)
		}
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := fields["_meta"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, fmt.Errorf("_meta is not an object: %w", err)
		}
	}
	v, err := json.Marshal(val)
	if err != nil {
		return nil, err
	}
	meta[key] = v
	mb, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	fields["_meta"] = mb
	return json.Marshal(fields)
}
