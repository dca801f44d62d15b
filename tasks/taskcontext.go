package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mcptasks/mcptasks/internal/jsonvalid"
	"github.com/mcptasks/mcptasks/tasks/wire"
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
	// deletes a key). Every name must follow the _meta key grammar and
	// must not start with ClientVariablePrefix (see ValidVariableName);
	// otherwise it fails with ErrInvalidVariableName and changes nothing.
	SetVariables(patch map[string]json.RawMessage) error
	// ExtendTTL lengthens the task's ttl to ttl, counted from the task's
	// creation, and returns the task as it then is (see TTLExtender for
	// the rules: at most Config.MaxTTL, never shorter, not once the task
	// ended). It fails with ErrTTLNotExtendable when the store cannot
	// extend ttls.
	ExtendTTL(ttl time.Duration) (Record, error)
	// Progress reports progress to the requestor. Values must grow
	// strictly; reports after the task ended fail with ErrTaskFinished.
	Progress(p Progress) error
	// RequireInput hands req to the requestor and waits for the answer.
	// Several calls may wait at once on one task: the first moves the task
	// to input_required, and the task stays there until the last one
	// outstanding is answered (or given up), which moves it back to
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
	e *Engine
	// parent is the request's context without its cancellation; ctx,
	// the work's context, is its only child.
	parent detached
	ctx    context.Context
	// tc is the TaskContext handed to the work.
	tc       taskContext
	cancel   context.CancelCauseFunc
	owner    Owner
	id       string
	method   string
	progress ProgressFunc
	input    InputFunc
	done     chan struct{} // closed when the work returns; only with leases

	mu      sync.Mutex
	current Record
	// finished: the task is terminal (or gone) and nothing more will be
	// written. ending: an outcome is being recorded; no other may start.
	finished     bool
	ending       bool
	lastProgress float64
	hasProgress  bool
	// inputs counts the RequireInput calls waiting for an answer.
	inputs int

	// inputTurn serializes the status writes of RequireInput (a buffered
	// channel of one, so a wait for it can end with a context): the move
	// to input_required of the first outstanding request and the move back
	// to working of the last one never overlap, so a late move back can
	// never overtake the move of a newer request.
	inputTurn chan struct{}
}

// errEndedElsewhere cancels work whose task was ended by another instance.
var errEndedElsewhere = errors.New("task ended elsewhere")

// errTTLEnded ends retries of a write for a task whose ttl has passed: the
// task is gone, so there is nothing left to record.
var errTTLEnded = errors.New("the task's ttl ended")

// abandonedError is what a retried store write returns when it gives up
// while the store still fails: Cause says why it stopped (the engine was
// closed, the caller gave up, the ttl ended), Last is the store's last
// error.
type abandonedError struct {
	What  string
	Cause error
	Last  error
}

func (e *abandonedError) Error() string {
	return fmt.Sprintf("%s not recorded (%v): %v", e.What, e.Cause, e.Last)
}

// isAbandoned reports whether err is or wraps an *abandonedError, without
// the heap variable errors.As would need on every outcome.
func isAbandoned(err error) bool {
	_, ok := errors.AsType[*abandonedError](err)
	return ok
}

func (e *abandonedError) Unwrap() []error { return []error{e.Cause, e.Last} }

// watchDelay is how long a task's work runs before the engine starts
// watching the store for an end decided elsewhere (a cancel through
// another instance, the reaper). Most tool calls end sooner, and then no
// watching goroutine and store wait are spent on them; a longer one is
// stopped at most this much later than it would be otherwise.
const watchDelay = 10 * time.Millisecond

// execute runs the work and records its outcome.
func (r *run) execute(work Work, w *watcher) {
	defer r.e.wg.Done()
	defer r.e.forget(r.id)
	if r.done != nil {
		defer close(r.done)
	}
	defer r.cancel(nil)
	// Armed here, not at Start, so that a worker slow to be scheduled
	// does not count against the delay.
	w.arm(r)
	defer w.disarm()
	// The work's TaskContext lives inside the run (it needs no more
	// than the run's own lifetime), not in an allocation of its own.
	r.tc = taskContext{Context: r.ctx, r: r}
	tc := &r.tc
	res, err := safeRun(work, tc)
	if r.isFinished() {
		return
	}
	if err != nil {
		_ = r.fail(err)
	} else {
		_ = r.complete(res)
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

// isFinished reports whether the task has, or is getting, its outcome.
func (r *run) isFinished() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.finished || r.ending
}

// isTerminal reports whether the task is known to be terminal or gone.
func (r *run) isTerminal() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.finished
}

// expired reports whether the task's ttl has passed.
func (r *run) expired() bool {
	r.mu.Lock()
	exp := r.current.ExpiresAt
	r.mu.Unlock()
	return !exp.IsZero() && !r.e.cfg.Now().Before(exp)
}

// bound returns ctx, also cancelled when the engine abandons its writes.
func (r *run) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(r.e.hard, func() { cancel(ErrEngineClosed) })
	return ctx, func() { stop(); cancel(nil) }
}

// retry calls fn until it succeeds, fails with an error that is not
// Transient, ctx ends, or the task's ttl passes, pausing with backoff
// between attempts. Each attempt gets at most the attempt timeout. It
// returns nil, fn's final error, or an *abandonedError.
func (r *run) retry(ctx context.Context, what string, fn func(context.Context) error) error {
	e := r.e
	b := backoff{base: e.retryBase, max: e.retryMax}
	for attempt := 1; ; attempt++ {
		var err error
		if e.immediate {
			err = fn(ctx)
		} else {
			actx, cancel := context.WithTimeout(ctx, e.attemptTimeout)
			err = fn(actx)
			cancel()
		}
		switch {
		case err == nil:
			if attempt > 1 {
				e.log.Info("store write succeeded after retrying", "what", what, "owner", r.owner, "task", r.id, "attempts", attempt)
			}
			return nil
		case ctx.Err() != nil:
			return &abandonedError{What: what, Cause: context.Cause(ctx), Last: err}
		case !Transient(err):
			return err
		}
		e.storeFailed()
		if r.expired() {
			return &abandonedError{What: what, Cause: errTTLEnded, Last: err}
		}
		if attempt == 1 || attempt%10 == 0 {
			e.log.Warn("store write failed; retrying", "what", what, "owner", r.owner, "task", r.id, "attempt", attempt, "err", err)
		}
		if !sleepCtx(ctx, b.next()) {
			return &abandonedError{What: what, Cause: context.Cause(ctx), Last: err}
		}
	}
}

// claim reserves the right to record the task's outcome: false when the
// task already ended or another outcome is being recorded.
func (r *run) claim() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished || r.ending {
		return false
	}
	r.ending = true
	return true
}

// finish ends the task with an outcome unless it already ended, retrying
// while the store fails (see record).
func (r *run) finish(status Status, message string, o Outcome) (Record, error) {
	if !r.claim() {
		r.mu.Lock()
		st := r.current.Status
		r.mu.Unlock()
		return Record{}, &Error{Op: "complete", TaskID: r.id, Status: st, Err: ErrTaskFinished}
	}
	return r.record(r.e.hard, status, message, o)
}

// record writes the outcome claimed with claim. While the store fails it
// tries again, with backoff, until the write succeeds, the task turns out
// to be terminal or gone (someone else ended it, or an earlier attempt
// whose answer was lost already wrote it), the task's ttl passes, or ctx
// ends (the engine is closed and gave up). Meanwhile the lease is still
// renewed, so no reaper takes the task for lost.
func (r *run) record(ctx context.Context, status Status, message string, o Outcome) (Record, error) {
	var rec Record
	err := r.retry(ctx, "task outcome", func(actx context.Context) error {
		var err error
		rec, err = r.e.store.Complete(actx, r.owner, r.id, status, message, o)
		return err
	})
	r.mu.Lock()
	r.finished = true
	if err == nil {
		r.current = rec
	}
	r.mu.Unlock()
	switch {
	case err == nil:
		if r.e.log.Enabled(ctx, slog.LevelInfo) { // the arguments cost allocations even when not logged
			r.e.log.Info("task finished", "owner", r.owner, "task", r.id, "status", rec.Status)
		}
		r.e.notify(rec)
	case errors.Is(err, ErrInvalidTransition), errors.Is(err, ErrNotFound):
		// Ended elsewhere (cancelled, reaped, an earlier attempt) or gone.
		r.e.log.Debug("task outcome not written: the task already ended or is gone", "owner", r.owner, "task", r.id, "err", err)
	case isAbandoned(err):
		ab, _ := errors.AsType[*abandonedError](err)
		r.e.log.Error("task outcome NOT recorded", "owner", r.owner, "task", r.id, "status", status,
			"message", message, "reason", ab.Cause, "err", ab.Last)
	default:
		r.e.log.Error("task outcome refused by the store", "owner", r.owner, "task", r.id, "status", status, "err", err)
	}
	return rec, err
}

func (r *run) complete(result json.RawMessage) error {
	if len(result) == 0 || !jsonvalid.Valid(result) {
		return r.fail(errors.New("task work produced no valid result"))
	}
	status, msg := StatusCompleted, ""
	if r.method == wire.MethodToolsCall {
		if failed, text := toolResultFailed(result); failed {
			status, msg = StatusFailed, text
			if msg == "" {
				msg = "the tool reported an error"
			}
		}
	}
	_, err := r.finish(status, msg, Outcome{Result: append(json.RawMessage(nil), result...)})
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
		o.Error = &RPCError{Code: wire.CodeInternalError, Message: err.Error()}
	}
	_, ferr := r.finish(StatusFailed, o.Error.Message, o)
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

// renewLease extends the lease once; each attempt is bounded by a third of
// the lease, so a hung call never outlives the lease it is renewing.
func (r *run) renewLease() error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), min(r.e.attemptTimeout, max(r.e.leaseDuration/3, 10*time.Millisecond)))
	defer cancel()
	until := r.e.cfg.Now().Add(r.e.leaseDuration)
	err := r.e.lease.RenewLease(ctx, r.owner, r.id, until)
	if err != nil && Transient(err) {
		r.e.storeFailed()
	}
	return err
}

// keepLease renews the lease every third of its duration while the work
// runs and while its outcome is being recorded. A renewal that fails
// because of the store is tried again after a short backoff (at most a
// sixth of the lease), not a full period later, so a store outage shorter
// than about two thirds of a lease never lets the lease lapse, and after a
// longer one the lease is renewed moments after the store is back.
func (r *run) keepLease() {
	period := max(r.e.leaseDuration/3, time.Millisecond)
	b := backoff{base: min(r.e.retryBase, period), max: max(min(r.e.retryMax, r.e.leaseDuration/6), time.Millisecond)}
	t := time.NewTimer(period)
	defer t.Stop()
	failing := false
	for {
		select {
		case <-r.done:
			return
		case <-t.C:
		}
		if r.isTerminal() {
			return
		}
		err := r.renewLease()
		switch {
		case err != nil && Transient(err):
			if !failing {
				r.e.log.Warn("renewing task lease failed; retrying", "owner", r.owner, "task", r.id, "err", err)
			}
			failing = true
			t.Reset(b.next())
		default:
			if failing && err == nil {
				r.e.log.Info("task lease renewed again after failures", "owner", r.owner, "task", r.id)
			}
			failing = false
			b.reset()
			t.Reset(period)
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
			if Transient(err) {
				r.e.storeFailed()
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
			mine := r.finished || r.ending
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
	// Without the member name, spelled plainly or escaped, isError is
	// absent: skip decoding the whole result.
	if !bytes.Contains(result, []byte("isError")) && !bytes.Contains(result, []byte(`\`)) {
		return false, ""
	}
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
	ctx, cancel := t.r.bound(t.storeCtx())
	defer cancel()
	var rec Record
	err := t.r.retry(ctx, "task variables read", func(actx context.Context) error {
		var err error
		rec, err = t.r.e.store.Get(actx, t.r.owner, t.r.id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return rec.Variables, nil
}

// SetVariables retries while the store fails, for as long as the work's
// context lives (or, once it is cancelled, until the engine gives up on
// its writes), so a short outage does not lose what the work saved.
func (t *taskContext) SetVariables(patch map[string]json.RawMessage) error {
	if err := checkServerVariableNames(patch); err != nil {
		return err
	}
	ctx, cancel := t.r.bound(t.storeCtx())
	defer cancel()
	return t.r.retry(ctx, "task variables", func(actx context.Context) error {
		_, err := t.r.e.store.SetVariables(actx, t.r.owner, t.r.id, patch)
		return err
	})
}

// ExtendTTL asks the store for a longer ttl. A refusal is not retried;
// a store failure is, like other writes of the work.
func (t *taskContext) ExtendTTL(ttl time.Duration) (Record, error) {
	ext, ok := t.r.e.store.(TTLExtender)
	if !ok {
		return Record{}, ErrTTLNotExtendable
	}
	ctx, cancel := t.r.bound(t.storeCtx())
	defer cancel()
	var rec Record
	err := t.r.retry(ctx, "task ttl", func(actx context.Context) error {
		var err error
		rec, err = ext.ExtendTTL(actx, t.r.owner, t.r.id, ttl)
		return err
	})
	if err != nil {
		return Record{}, err
	}
	t.r.mu.Lock()
	if rec.Version > t.r.current.Version {
		t.r.current = rec
	}
	t.r.mu.Unlock()
	return rec, nil
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
	if r.finished || r.ending {
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
	if r.isFinished() {
		r.mu.Lock()
		st := r.current.Status
		r.mu.Unlock()
		return nil, &Error{Op: "require input", TaskID: r.id, Status: st, Err: ErrTaskFinished}
	}
	ictx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	unhook := context.AfterFunc(r.ctx, func() { stop(context.Cause(r.ctx)) })
	defer unhook()
	rec, err := r.enterInput(ictx)
	if err != nil {
		return nil, err
	}
	answer, ierr := r.input(ictx, rec, req)
	if err := r.leaveInput(); err != nil && ierr == nil {
		ierr = err
	}
	if ierr != nil {
		return nil, ierr
	}
	return answer, nil
}

// enterInput counts one more outstanding input request and returns the
// task as the request is made. The first outstanding request moves the
// task to input_required, retried while the store fails until ctx ends;
// later ones find it there already.
func (r *run) enterInput(ctx context.Context) (Record, error) {
	select {
	case r.inputTurn <- struct{}{}:
	case <-ctx.Done():
		return Record{}, context.Cause(ctx)
	}
	defer func() { <-r.inputTurn }()
	r.mu.Lock()
	if r.finished || r.ending {
		defer r.mu.Unlock()
		return Record{}, &Error{Op: "require input", TaskID: r.id, Status: r.current.Status, Err: ErrTaskFinished}
	}
	if r.inputs > 0 {
		r.inputs++
		defer r.mu.Unlock()
		return r.current, nil
	}
	r.mu.Unlock()
	var rec Record
	err := r.retry(ctx, "status input_required", func(actx context.Context) error {
		var err error
		rec, err = r.e.store.Transition(actx, r.owner, r.id, StatusInputRequired, "waiting for input from the requestor")
		return err
	})
	if err != nil {
		return Record{}, err
	}
	r.mu.Lock()
	if r.finished || r.ending {
		defer r.mu.Unlock()
		return Record{}, &Error{Op: "require input", TaskID: r.id, Status: r.current.Status, Err: ErrTaskFinished}
	}
	r.inputs++
	r.current = rec
	r.mu.Unlock()
	r.e.notify(rec)
	return rec, nil
}

// leaveInput counts one outstanding input request less. When it was the
// last one, the task moves back to working, even when the work's context
// is gone, so the task never stays input_required with nobody asking;
// that write is retried until the store answers, the task ends, or the
// engine gives up.
func (r *run) leaveInput() error {
	r.inputTurn <- struct{}{}
	defer func() { <-r.inputTurn }()
	r.mu.Lock()
	r.inputs--
	back := r.inputs == 0 && !r.finished && !r.ending && r.current.Status == StatusInputRequired
	r.mu.Unlock()
	if !back {
		return nil
	}
	bctx, cancel := r.bound(context.WithoutCancel(r.ctx))
	defer cancel()
	var rec Record
	err := r.retry(bctx, "status working", func(actx context.Context) error {
		var err error
		rec, err = r.e.store.Transition(actx, r.owner, r.id, StatusWorking, "")
		return err
	})
	if err != nil {
		return err
	}
	r.mu.Lock()
	if !r.finished {
		r.current = rec
	}
	r.mu.Unlock()
	r.e.notify(rec)
	return nil
}

func (t *taskContext) Complete(result json.RawMessage) error { return t.r.complete(result) }
func (t *taskContext) Fail(err error) error {
	if err == nil {
		err = errors.New("the task failed")
	}
	return t.r.fail(err)
}

// detached is a context with the values of the one it wraps but never
// done, like context.WithoutCancel, yet a plain value that can live
// inside a run. It is only ever the parent of the run's own cancel
// context, which answers context.Cause lookups before they reach it.
type detached struct{ values context.Context }

func (*detached) Deadline() (time.Time, bool) { return time.Time{}, false }
func (*detached) Done() <-chan struct{}       { return nil }
func (*detached) Err() error                  { return nil }

// Value looks key up in the wrapped context.
func (d *detached) Value(key any) any { return d.values.Value(key) }
