package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// TaskContext is what a task's work sees. It is a context.Context that is
// cancelled when the task is cancelled (or the engine closes), plus the
// operations the work may perform on its own task. All methods are safe to
// call from several goroutines.
type TaskContext interface {
	context.Context
	// TaskID is the task's id.
	TaskID() string
	// Owner is the requestor the task belongs to.
	Owner() Owner
	// Variables returns the task's current variables.
	Variables() (map[string]json.RawMessage, error)
	// SetVariables merges patch into the task's variables (a JSON null
	// deletes a key).
	SetVariables(patch map[string]json.RawMessage) error
	// Progress reports progress to the requestor. Values must grow
	// strictly; reports after the task ended fail with ErrTaskFinished.
	Progress(p Progress) error
	// RequireInput moves the task to input_required, hands req to the
	// requestor and waits for the answer, then moves the task back to
	// working. It ends early when ctx or the task's context is done.
	RequireInput(ctx context.Context, req InputRequest) (json.RawMessage, error)
	// Complete ends the task successfully with result (a tool result with
	// isError true ends it as failed). Later outcomes are ignored.
	Complete(result json.RawMessage) error
	// Fail ends the task as failed; an *RPCError in err's chain is stored
	// verbatim, anything else as an internal error.
	Fail(err error) error
}

// run is the engine's bookkeeping for one task whose work runs here.
type run struct {
	e        *Engine
	ctx      context.Context
	cancel   context.CancelCauseFunc
	owner    Owner
	id       string
	method   string
	progress ProgressFunc
	input    InputFunc
	done     chan struct{}

	mu           sync.Mutex
	current      Record
	finished     bool
	lastProgress float64
	hasProgress  bool
}

// errEndedElsewhere cancels work whose task was ended by another instance.
var errEndedElsewhere = errors.New("task ended elsewhere")

// storeTimeout bounds the store calls made after the work's context is
// gone (recording an outcome, cancelling).
const storeTimeout = 30 * time.Second

func (r *run) bg() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(r.ctx), storeTimeout)
}

// execute runs the work and records its outcome.
func (r *run) execute(work Work) {
	defer r.e.wg.Done()
	defer r.e.forget(r.id)
	defer close(r.done)
	defer r.cancel(nil)
	tc := &taskContext{Context: r.ctx, r: r}
	res, err := safeRun(work, tc)
	if r.isFinished() {
		return
	}
	if err != nil {
		err = r.fail(err)
	} else {
		err = r.complete(res)
	}
	// A task ended elsewhere (cancelled, reaped) or expired meanwhile is
	// no failure of ours.
	if err != nil && !errors.Is(err, ErrTaskFinished) && !errors.Is(err, ErrInvalidTransition) && !errors.Is(err, ErrNotFound) {
		r.e.log.Error("recording task outcome failed", "owner", r.owner, "task", r.id, "err", err)
	}
}

func safeRun(work Work, tc TaskContext) (res json.RawMessage, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("task work panicked: %v", p)
		}
	}()
	return work(tc)
}

func (r *run) isFinished() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.finished
}

// finish ends the task with an outcome unless it already ended.
func (r *run) finish(ctx context.Context, status Status, message string, o Outcome) (Record, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished {
		return Record{}, &Error{Op: "complete", TaskID: r.id, Status: r.current.Status, Err: ErrTaskFinished}
	}
	rec, err := r.e.store.Complete(ctx, r.owner, r.id, status, message, o)
	if err != nil {
		if errors.Is(err, ErrInvalidTransition) || errors.Is(err, ErrNotFound) {
			r.finished = true
		}
		return Record{}, err
	}
	r.finished = true
	r.current = rec
	r.e.log.Info("task finished", "owner", r.owner, "task", r.id, "status", rec.Status)
	r.e.notify(rec)
	return rec, nil
}

func (r *run) complete(result json.RawMessage) error {
	if len(result) == 0 || !json.Valid(result) {
		return r.fail(errors.New("task work produced no valid result"))
	}
	status, msg := StatusCompleted, ""
	if r.method == "tools/call" {
		if failed, text := toolResultFailed(result); failed {
			status, msg = StatusFailed, text
			if msg == "" {
				msg = "the tool reported an error"
			}
		}
	}
	ctx, cancel := r.bg()
	defer cancel()
	_, err := r.finish(ctx, status, msg, Outcome{Result: append(json.RawMessage(nil), result...)})
	return err
}

func (r *run) fail(err error) error {
	var rpc *RPCError
	o := Outcome{}
	if errors.As(err, &rpc) {
		cp := *rpc
		if cp.Data != nil {
			cp.Data = append(json.RawMessage(nil), cp.Data...)
		}
		o.Error = &cp
	} else {
		o.Error = &RPCError{Code: CodeInternalError, Message: err.Error()}
	}
	ctx, cancel := r.bg()
	defer cancel()
	_, ferr := r.finish(ctx, StatusFailed, o.Error.Message, o)
	return ferr
}

// cancelTask cancels the task in the store, then stops the work.
func (r *run) cancelTask(ctx context.Context, message string) (Record, error) {
	r.mu.Lock()
	rec, err := r.e.store.Cancel(ctx, r.owner, r.id, message)
	if err != nil {
		r.mu.Unlock()
		r.e.log.Warn("task cancel refused", "owner", r.owner, "task", r.id, "err", err)
		return Record{}, err
	}
	r.finished = true
	r.current = rec
	r.e.log.Info("task cancelled", "owner", r.owner, "task", r.id)
	r.e.notify(rec)
	r.mu.Unlock()
	r.cancel(context.Canceled)
	return rec, nil
}

func (r *run) renewLease() {
	ctx, cancel := r.bg()
	defer cancel()
	until := r.e.cfg.Now().Add(r.e.leaseDuration)
	if err := r.e.lease.RenewLease(ctx, r.owner, r.id, until); err != nil && r.ctx.Err() == nil {
		r.e.log.Warn("renewing task lease failed", "owner", r.owner, "task", r.id, "err", err)
	}
}

// keepLease renews the lease every third of its duration while the work
// runs.
func (r *run) keepLease() {
	t := time.NewTicker(max(r.e.leaseDuration/3, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-r.done:
			return
		case <-t.C:
			if r.isFinished() {
				return
			}
			r.renewLease()
		}
	}
}

// watch stops the work when the task is ended by anyone else: a cancel
// through another engine sharing the store, or the reaper.
func (r *run) watch() {
	r.mu.Lock()
	v := r.current.Version
	r.mu.Unlock()
	for {
		rec, err := r.e.store.Wait(r.ctx, r.owner, r.id, v)
		if err != nil {
			if r.ctx.Err() != nil {
				return
			}
			if errors.Is(err, ErrNotFound) {
				r.mu.Lock()
				r.finished = true
				r.mu.Unlock()
				r.cancel(errEndedElsewhere)
				return
			}
			select {
			case <-r.ctx.Done():
				return
			case <-time.After(r.e.cfg.PollInterval):
			}
			continue
		}
		v = rec.Version
		if rec.Status.Terminal() {
			r.mu.Lock()
			mine := r.finished
			r.finished = true
			r.current = rec
			r.mu.Unlock()
			if !mine {
				r.cancel(errEndedElsewhere)
			}
			return
		}
	}
}

// toolResultFailed reports whether a tools/call result has isError true,
// and its first text content.
func toolResultFailed(result json.RawMessage) (bool, string) {
	var probe struct {
		IsError bool `json:"isError"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(result, &probe) != nil || !probe.IsError {
		return false, ""
	}
	for _, c := range probe.Content {
		if c.Type == "text" && c.Text != "" {
			return true, c.Text
		}
	}
	return true, ""
}

// taskContext is the TaskContext handed to work.
type taskContext struct {
	context.Context
	r *run
}

func (t *taskContext) TaskID() string { return t.r.id }
func (t *taskContext) Owner() Owner   { return t.r.owner }

func (t *taskContext) Variables() (map[string]json.RawMessage, error) {
	rec, err := t.r.e.store.Get(t.storeCtx(), t.r.owner, t.r.id)
	if err != nil {
		return nil, err
	}
	return rec.Variables, nil
}

func (t *taskContext) SetVariables(patch map[string]json.RawMessage) error {
	_, err := t.r.e.store.SetVariables(t.storeCtx(), t.r.owner, t.r.id, patch)
	return err
}

// storeCtx is the work's context unless it is already cancelled, so a
// handler can still read or write variables while winding down.
func (t *taskContext) storeCtx() context.Context {
	if t.Err() != nil {
		return context.WithoutCancel(t.Context)
	}
	return t.Context
}

func (t *taskContext) Progress(p Progress) error {
	r := t.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished {
		return &Error{Op: "progress", TaskID: r.id, Status: r.current.Status, Err: ErrTaskFinished}
	}
	if r.hasProgress && p.Progress <= r.lastProgress {
		return fmt.Errorf("%w: progress must grow: %v after %v", ErrInvalidParams, p.Progress, r.lastProgress)
	}
	r.hasProgress, r.lastProgress = true, p.Progress
	if r.progress != nil {
		r.progress(r.current, p)
	}
	return nil
}

func (t *taskContext) RequireInput(ctx context.Context, req InputRequest) (json.RawMessage, error) {
	r := t.r
	if r.input == nil {
		return nil, ErrNoInputChannel
	}
	r.mu.Lock()
	if r.finished {
		r.mu.Unlock()
		return nil, &Error{Op: "require input", TaskID: r.id, Status: r.current.Status, Err: ErrTaskFinished}
	}
	rec, err := r.e.store.Transition(ctx, r.owner, r.id, StatusInputRequired, "waiting for input from the requestor")
	if err != nil {
		r.mu.Unlock()
		return nil, err
	}
	r.current = rec
	r.e.notify(rec)
	r.mu.Unlock()

	ictx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	unhook := context.AfterFunc(r.ctx, func() { stop(context.Cause(r.ctx)) })
	defer unhook()
	answer, ierr := r.input(ictx, rec, req)

	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.finished && r.current.Status == StatusInputRequired {
		bctx, cancel := r.bg()
		defer cancel()
		back, err := r.e.store.Transition(bctx, r.owner, r.id, StatusWorking, "")
		if err == nil {
			r.current = back
			r.e.notify(back)
		} else if ierr == nil {
			ierr = err
		}
	}
	if ierr != nil {
		return nil, ierr
	}
	return answer, nil
}

func (t *taskContext) Complete(result json.RawMessage) error { return t.r.complete(result) }
func (t *taskContext) Fail(err error) error {
	if err == nil {
		err = errors.New("the task failed")
	}
	return t.r.fail(err)
}
