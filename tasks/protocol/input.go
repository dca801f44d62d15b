package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// onStandalone marks an input request handed to a session's standalone
// stream; it is never carried by a tasks/result stream afterwards, so each
// request goes out on one stream only.
const onStandalone = math.MaxUint64

// pendingRequest is a server-to-client request (an elicitation) waiting
// for the client's response.
type pendingRequest struct {
	id      string
	owner   tasks.Owner
	taskID  string
	msg     []byte
	creator Session // the session that created the task
	to      Session // the session whose standalone stream got it, if any
	answer  chan response
	// answered: a response was accepted; later ones are refused.
	answered bool
	// shown: a tasks/get of the owner has reported the task
	// input_required. Only then may the request go out on a standalone
	// stream: a client that learns of it there before it has read the
	// CreateTaskResult cannot tell which of its calls it belongs to, and
	// the official TypeScript client refuses such a request.
	shown bool
	// deliveredBy is the tasks/result stream that carried it, 0 while
	// undelivered, onStandalone once given to a standalone stream. A
	// request a tasks/result stream carried is delivered again if that
	// stream ends unanswered.
	deliveredBy uint64
}

type response struct{ result, err json.RawMessage }

// inbox holds the input requests of one task until a tasks/result stream
// of the task's owner carries them.
type inbox struct {
	items    []*pendingRequest
	wake     chan struct{} // closed when items change
	watchers int           // tasks/result requests waiting on the task
}

func (b *inbox) signal() {
	close(b.wake)
	b.wake = make(chan struct{})
}

// ErrUnknownResponse is returned by Respond for a response whose id
// answers no pending server request of its sender, or answers one that
// was already answered.
var ErrUnknownResponse = errors.New("protocol: no pending request has this id")

// inputFor returns the InputFunc of a task created by caller: it refuses
// at once when the requestor did not declare form elicitation, since such
// a request could never be answered.
func (c *Core) inputFor(creator Session) tasks.InputFunc {
	return func(ctx context.Context, rec tasks.Record, req tasks.InputRequest) (json.RawMessage, error) {
		if req.Method == wire.MethodElicitationCreate && !creator.ElicitForm() {
			return nil, &tasks.RPCError{Code: wire.CodeInvalidRequest,
				Message: "the requestor did not declare the elicitation capability (form mode), so the task cannot ask for input"}
		}
		return c.input(ctx, rec, req, creator)
	}
}

// inboxLocked returns the inbox of a task, creating it.
func (c *Core) inboxLocked(taskID string) *inbox {
	b := c.inboxes[taskID]
	if b == nil {
		b = &inbox{wake: make(chan struct{})}
		c.inboxes[taskID] = b
	}
	return b
}

// dropIfEmptyLocked forgets an inbox nobody needs.
func (c *Core) dropIfEmptyLocked(taskID string, b *inbox) {
	if len(b.items) == 0 && b.watchers == 0 && c.inboxes[taskID] == b {
		delete(c.inboxes, taskID)
	}
}

// input queues req, with related-task metadata, for the task's
// tasks/result stream, or hands it to a standalone stream of the owner
// when no tasks/result waits, and waits for the answer.
func (c *Core) input(ctx context.Context, rec tasks.Record, req tasks.InputRequest, creator Session) (json.RawMessage, error) {
	params, err := setMeta(req.Params, wire.MetaRelatedTask, schema.RelatedTaskMetadata{TaskID: rec.ID})
	if err != nil {
		return nil, fmt.Errorf("input request params: %w", err)
	}
	id := "srv-" + uuid.NewString()
	msg, err := EncodeRequest(id, req.Method, params)
	if err != nil {
		return nil, err
	}
	p := &pendingRequest{id: id, owner: rec.Owner, taskID: rec.ID, msg: msg, creator: creator, answer: make(chan response, 1)}
	c.pmu.Lock()
	p.shown = c.shown.take(rec.ID, rec.Owner, time.Now())
	c.pending[id] = p
	b := c.inboxLocked(rec.ID)
	// Another request of the task already shown: the task is
	// input_required for the owner to see, so this one is as well (the
	// status does not change again for a second outstanding request).
	p.shown = p.shown || slices.ContainsFunc(b.items, func(q *pendingRequest) bool { return q.owner == rec.Owner && q.shown && !q.answered })
	b.items = append(b.items, p)
	b.signal()
	to := c.standaloneLocked(b, p)
	c.pmu.Unlock()
	if to != nil {
		to.Notify(msg)
	}
	defer func() {
		c.pmu.Lock()
		delete(c.pending, id)
		if b := c.inboxes[rec.ID]; b != nil {
			b.items = slices.DeleteFunc(b.items, func(q *pendingRequest) bool { return q == p })
			c.dropIfEmptyLocked(rec.ID, b)
			b.signal()
		}
		c.pmu.Unlock()
	}()
	select {
	case m := <-p.answer:
		if m.err != nil {
			var rpc tasks.RPCError
			if err := json.Unmarshal(m.err, &rpc); err != nil {
				return nil, fmt.Errorf("the requestor answered with a malformed error: %w", err)
			}
			return nil, &rpc
		}
		return m.result, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// standaloneLocked picks the standalone stream for p when no tasks/result
// request waits on its task: the creating session's if it is listening,
// else another listening session of the owner that accepts form
// elicitation. It marks p delivered and returns the session to notify, or
// nil when p must wait for a tasks/result stream.
func (c *Core) standaloneLocked(b *inbox, p *pendingRequest) Session {
	if b.watchers > 0 || p.deliveredBy != 0 || !p.shown {
		return nil
	}
	var to Session
	if p.creator != nil && p.creator.Listening() {
		to = p.creator
	} else {
		for _, s := range c.sessionsOf(p.owner) {
			if s.Listening() && s.ElicitForm() {
				to = s
				break
			}
		}
	}
	if to != nil {
		p.deliveredBy = onStandalone
		p.to = to
	}
	return to
}

// sessionGone makes the unanswered input requests handed to a removed
// session's standalone stream deliverable again: to another listening
// session of the owner, else to the next tasks/result stream.
func (c *Core) sessionGone(sess Session) {
	type note struct {
		to  Session
		msg []byte
	}
	var notes []note
	c.pmu.Lock()
	for _, b := range c.inboxes {
		changed := false
		for _, p := range b.items {
			if p.to != sess || p.answered {
				continue
			}
			p.to, p.deliveredBy, changed = nil, 0, true
			if p.creator == sess {
				p.creator = nil
			}
			if to := c.standaloneLocked(b, p); to != nil {
				notes = append(notes, note{to, p.msg})
			}
		}
		if changed {
			b.signal()
		}
	}
	c.pmu.Unlock()
	for _, n := range notes {
		n.to.Notify(n.msg)
	}
}

// watchInput registers a tasks/result request waiting on a task.
func (c *Core) watchInput(taskID string, _ uint64) {
	c.pmu.Lock()
	c.inboxLocked(taskID).watchers++
	c.pmu.Unlock()
}

// unwatchInput ends a tasks/result request's wait: the requests it
// carried that are still unanswered become deliverable again, on a
// standalone stream when no other tasks/result waits.
func (c *Core) unwatchInput(taskID string, stream uint64) {
	type note struct {
		to  Session
		msg []byte
	}
	var notes []note
	c.pmu.Lock()
	b := c.inboxes[taskID]
	if b == nil {
		c.pmu.Unlock()
		return
	}
	b.watchers--
	for _, p := range b.items {
		if p.deliveredBy == stream {
			p.deliveredBy = 0
		}
		if p.deliveredBy == 0 && !p.answered {
			if to := c.standaloneLocked(b, p); to != nil {
				notes = append(notes, note{to, p.msg})
			}
		}
	}
	c.dropIfEmptyLocked(taskID, b)
	c.pmu.Unlock()
	for _, n := range notes {
		n.to.Notify(n.msg)
	}
}

// takeInput returns the undelivered input requests of a task for owner,
// marking them as carried by stream, and a channel closed when the task's
// input requests change.
func (c *Core) takeInput(taskID string, owner tasks.Owner, stream uint64) ([]*pendingRequest, <-chan struct{}) {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	b := c.inboxLocked(taskID)
	var out []*pendingRequest
	for _, p := range b.items {
		if p.owner == owner && p.deliveredBy == 0 {
			p.deliveredBy = stream
			out = append(out, p)
		}
	}
	return out, b.wake
}

// releaseInput makes the requests a failing stream carried, and that are
// still unanswered, deliverable again.
func (c *Core) releaseInput(taskID string, stream uint64) {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	b := c.inboxes[taskID]
	if b == nil {
		return
	}
	for _, p := range b.items {
		if p.deliveredBy == stream {
			p.deliveredBy = 0
		}
	}
}

// Respond routes a client's JSON-RPC response (its id, and its result or
// error member as raw JSON) to the pending server request it answers.
// Only the owner of the task that asked may answer, and only once: a
// second response to the same request is refused with ErrUnknownResponse
// and changes nothing.
func (c *Core) Respond(owner tasks.Owner, id, result, rpcError json.RawMessage) error {
	var key string
	if json.Unmarshal(id, &key) != nil {
		return ErrUnknownResponse
	}
	c.pmu.Lock()
	defer c.pmu.Unlock()
	p := c.pending[key]
	if p == nil || p.owner != owner || p.answered {
		return ErrUnknownResponse
	}
	p.answered = true
	p.answer <- response{result: result, err: rpcError}
	return nil
}

// StreamOpened tells the core that sess just opened its standalone
// stream: the input requests of its owner's tasks that no tasks/result
// request waits on, and that no stream carries yet, are handed to it.
// Without this, a client that only polls tasks/get and opened its stream
// after the task asked would never see the request.
func (c *Core) StreamOpened(sess Session) {
	if !sess.ElicitForm() {
		return
	}
	owner := sess.Owner()
	var msgs [][]byte
	c.pmu.Lock()
	for _, b := range c.inboxes {
		if b.watchers > 0 {
			continue
		}
		for _, p := range b.items {
			if p.owner == owner && p.deliveredBy == 0 && !p.answered && p.shown {
				p.deliveredBy, p.to = onStandalone, sess
				msgs = append(msgs, p.msg)
			}
		}
	}
	c.pmu.Unlock()
	for _, m := range msgs {
		sess.Notify(m)
	}
}

// inputShown is called when a tasks/get of owner has just reported task
// taskID as input_required: the task's pending input requests may now go
// out on a standalone stream of the owner, since the client knows the
// task. When none is queued yet (the status is stored just before the
// request is), a short-lived mark makes the request deliverable as soon
// as it is queued; a client that polled once and then only listens would
// otherwise never get it.
func (c *Core) inputShown(taskID string, owner tasks.Owner) {
	type note struct {
		to  Session
		msg []byte
	}
	var notes []note
	c.pmu.Lock()
	queued := false
	if b := c.inboxes[taskID]; b != nil {
		for _, p := range b.items {
			if p.owner != owner || p.answered {
				continue
			}
			queued = true
			if p.shown {
				continue
			}
			p.shown = true
			if to := c.standaloneLocked(b, p); to != nil {
				notes = append(notes, note{to, p.msg})
			}
		}
	}
	if !queued {
		c.shown.put(taskID, owner, time.Now())
	}
	c.pmu.Unlock()
	for _, n := range notes {
		n.to.Notify(n.msg)
	}
}

// shownMarkTTL is how long a mark left by inputShown waits for its
// request; the gap it covers lasts microseconds.
const shownMarkTTL = 10 * time.Second

// maxShownMarks caps the marks kept at once, so that polling many
// input_required tasks whose requests were already answered cannot grow
// memory without bound.
const maxShownMarks = 4096

// shownMark records that owner saw a task input_required before its input
// request was queued.
type shownMark struct {
	owner tasks.Owner
	at    time.Time
}

// shownMarks are the marks of inputShown, guarded by Core.pmu.
type shownMarks map[string]shownMark

// put records a mark, first dropping expired ones when the map is full;
// when it is still full the mark is not kept (the request then waits for
// the next poll or a tasks/result stream).
func (m *shownMarks) put(taskID string, owner tasks.Owner, now time.Time) {
	if *m == nil {
		*m = make(shownMarks)
	}
	if len(*m) >= maxShownMarks {
		for id, k := range *m {
			if now.Sub(k.at) > shownMarkTTL {
				delete(*m, id)
			}
		}
		if len(*m) >= maxShownMarks {
			return
		}
	}
	(*m)[taskID] = shownMark{owner: owner, at: now}
}

// take consumes the mark of taskID and reports whether it was left by
// owner within shownMarkTTL.
func (m shownMarks) take(taskID string, owner tasks.Owner, now time.Time) bool {
	k, ok := m[taskID]
	if !ok {
		return false
	}
	delete(m, taskID)
	return k.owner == owner && now.Sub(k.at) <= shownMarkTTL
}
