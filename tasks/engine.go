package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptasks/mcptasks/tasks/wire"
)

// Work is the body of a task. It runs on its own goroutine with a context
// (the TaskContext itself) that is detached from the request that created
// the task and is cancelled when the task is cancelled or the engine
// closes. The returned result or error becomes the task's outcome unless
// the work already ended the task through TaskContext.Complete or Fail:
// a nil error stores result (see Engine for how tool results with isError
// are treated), an error that is, or wraps, an *RPCError is stored exactly
// as that JSON-RPC error, and any other error is stored as an internal
// error whose message is the error's text.
type Work func(tc TaskContext) (json.RawMessage, error)

// ProgressFunc receives the progress a task's work reports, in the order
// reported, only while the task is not terminal and only with strictly
// increasing progress values.
type ProgressFunc func(rec Record, p Progress)

// InputFunc delivers a request for input (typically an elicitation) to the
// requestor of the task rec and blocks until the answer arrives or ctx is
// done. It returns the answer's JSON result or the error the requestor
// sent back.
type InputFunc func(ctx context.Context, rec Record, req InputRequest) (json.RawMessage, error)

// Observer is told about every status change the engine makes (creation
// included), after the store has accepted it.
type Observer func(rec Record)

// Progress is one progress report of a task's work.
type Progress struct {
	// Progress grows with every report.
	Progress float64
	// Total is the expected final value; nil when unknown.
	Total *float64
	// Message optionally describes the current step.
	Message string
}

// InputRequest is what a task needs from its requestor: a JSON-RPC method
// (for MCP tasks "elicitation/create") and its params, already encoded.
type InputRequest struct {
	Method string
	Params json.RawMessage
}

// Errors specific to the engine.
var (
	// ErrTaskFinished: the task already reached a terminal status, so the
	// work can no longer report progress, ask for input or set an outcome.
	ErrTaskFinished = errors.New("task already finished")
	// ErrNoInputChannel: the engine has no way to reach the requestor for
	// input (no InputFunc was given when the task started).
	ErrNoInputChannel = errors.New("no channel to ask the requestor for input")
	// ErrEngineClosed: the engine is shutting down and takes no new work.
	ErrEngineClosed = errors.New("task engine is closed")
)

// EngineOption configures an Engine.
type EngineOption func(*Engine)

// WithLeaseDuration sets how long a work lease lasts without renewal on a
// LeaseStore; the engine renews every third of it. Default
// DefaultLeaseDuration.
func WithLeaseDuration(d time.Duration) EngineOption {
	return func(e *Engine) {
		if d > 0 {
			e.leaseDuration = d
		}
	}
}

// WithReapInterval sets how often the engine removes expired tasks
// (DeleteExpired) and, on a LeaseStore, ends tasks whose worker was lost
// (ReapExpiredLeases). Default 10 s; a negative value disables the loop.
func WithReapInterval(d time.Duration) EngineOption {
	return func(e *Engine) {
		if d != 0 {
			e.reapInterval = d
		}
	}
}

// WithRetryBackoff sets the pauses between attempts when the store fails
// a write the engine must not lose (an outcome, a lease renewal, a status
// change, variables): the first pause is about base, each next one
// doubles, up to max, with random jitter. Defaults DefaultRetryBase and
// DefaultRetryMax. Lease renewals never pause longer than a sixth of the
// lease.
func WithRetryBackoff(base, max time.Duration) EngineOption {
	return func(e *Engine) {
		if base > 0 {
			e.retryBase = base
		}
		if max > 0 {
			e.retryMax = max
		}
		e.retryMax = maxDur(e.retryMax, e.retryBase)
	}
}

// WithAttemptTimeout bounds each store call of a retried write, so a store
// that hangs instead of failing is tried again. Default
// DefaultAttemptTimeout.
func WithAttemptTimeout(d time.Duration) EngineOption {
	return func(e *Engine) {
		if d > 0 {
			e.attemptTimeout = d
		}
	}
}

func maxDur(a, b time.Duration) time.Duration {
	if a > b {
		return a
	}
	return b
}

// WithLogger sets the logger for task events; default slog.Default().
func WithLogger(l *slog.Logger) EngineOption {
	return func(e *Engine) {
		if l != nil {
			e.log = l
		}
	}
}

// WithObserver registers a function told about every status change the
// engine makes. It is called synchronously and must not block.
func WithObserver(o Observer) EngineOption {
	return func(e *Engine) {
		e.Observe(o)
	}
}

// StartOption configures one task started with Engine.Start.
type StartOption func(*run)

// WithProgress routes the work's progress reports to f.
func WithProgress(f ProgressFunc) StartOption { return func(r *run) { r.progress = f } }

// WithInput lets the work ask its requestor for input through f.
func WithInput(f InputFunc) StartOption { return func(r *run) { r.input = f } }

// Engine runs the work behind tasks and records its outcome in a Store.
// It is safe for concurrent use. Tasks whose wrapped request is
// "tools/call" and whose result carries "isError": true end as failed,
// with the result still stored as the outcome and the result's first text
// content as the status message.
type Engine struct {
	store         Store
	lease         LeaseStore // nil when the store has no leases
	cfg           Config
	log           *slog.Logger
	observers     atomic.Pointer[[]Observer]
	obsMu         sync.Mutex
	leaseDuration time.Duration
	reapInterval  time.Duration
	cursors       cursorSealer // seals and opens tasks/list cursors

	retryBase      time.Duration
	retryMax       time.Duration
	attemptTimeout time.Duration
	immediate      bool // the store never blocks: writes get no attempt timeout

	// hard is cancelled when Close's context ends: retries of store writes
	// give up then.
	hard       context.Context
	abandon    context.CancelFunc
	epoch      time.Time    // engine start, for monotonic health times
	lastFailed atomic.Int64 // time since epoch of the last transient store failure

	// jobs hands work to an idle worker goroutine (see runWork); quit
	// ends the idle workers when the engine closes.
	jobs        chan job
	quit        chan struct{}
	idleWorkers atomic.Int32

	mu      sync.Mutex
	runs    map[string]*run
	closed  bool
	wg      sync.WaitGroup
	stopBg  context.CancelFunc
	bgDone  chan struct{}
	closeMu sync.Once
}

// NewEngine returns an engine over store. cfg should be the Config the
// store was opened with; defaults are applied. If store implements
// LeaseStore the engine keeps leases on running work and reaps lost work.
// Whatever the store, the engine watches each task it runs, so a cancel
// made through another engine sharing the store also stops the work here.
// Call Close to stop it.
func NewEngine(store Store, cfg Config, opts ...EngineOption) *Engine {
	e := &Engine{
		store:          store,
		cfg:            cfg.WithDefaults(),
		log:            slog.Default(),
		leaseDuration:  DefaultLeaseDuration,
		reapInterval:   10 * time.Second,
		retryBase:      DefaultRetryBase,
		retryMax:       DefaultRetryMax,
		attemptTimeout: DefaultAttemptTimeout,
		epoch:          time.Now(),
		runs:           make(map[string]*run),
		bgDone:         make(chan struct{}),
		jobs:           make(chan job),
		quit:           make(chan struct{}),
	}
	e.hard, e.abandon = context.WithCancel(context.Background())
	if ls, ok := store.(LeaseStore); ok {
		e.lease = ls
	}
	if is, ok := store.(ImmediateStore); ok {
		e.immediate = is.Immediate()
	}
	for _, o := range opts {
		o(e)
	}
	var randomKey bool
	if e.cursors, randomKey = newCursorSealer(e.cfg.CursorKey); randomKey {
		e.log.Debug("list cursors are signed with a random key; engines sharing this store reject each other's cursors unless Config.CursorKey is set")
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.stopBg = cancel
	go e.maintain(ctx)
	return e
}

// Store returns the engine's store.
func (e *Engine) Store() Store { return e.store }

// Config returns the engine's limits, defaults applied.
func (e *Engine) Config() Config { return e.cfg }

// storeFailed records that a store call failed in a way that may be an
// outage.
func (e *Engine) storeFailed() {
	e.lastFailed.Store(int64(time.Since(e.epoch)))
}

// healthyFor is how long the store has answered every call this engine
// made (counting from the engine's start).
func (e *Engine) healthyFor() time.Duration {
	return time.Since(e.epoch) - time.Duration(e.lastFailed.Load())
}

// maintain periodically deletes expired tasks and reaps lost work.
//
// Reaping is held back until the store has answered this engine without a
// failure for a whole lease. A worker that is alive renews its lease
// every third of it and retries failed renewals quickly, so after an
// outage that long is enough for every live worker to have renewed: the
// reaper then only ends tasks whose worker is really gone. Leases are
// checked at least every third of a lease, so an outage long enough to
// let leases lapse is always noticed here.
func (e *Engine) maintain(ctx context.Context) {
	defer close(e.bgDone)
	if e.reapInterval < 0 {
		return
	}
	tick := e.reapInterval
	if e.lease != nil {
		tick = min(tick, max(e.leaseDuration/3, time.Millisecond))
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	lastDelete := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if e.lease != nil {
			e.reap(ctx)
		}
		if time.Since(lastDelete) < e.reapInterval-tick/2 {
			continue
		}
		lastDelete = time.Now()
		n, err := e.store.DeleteExpired(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			e.storeFailed()
			e.log.Warn("deleting expired tasks failed", "err", err)
		case n > 0:
			e.log.Debug("deleted expired tasks", "count", n)
		}
	}
}

// reap ends the tasks whose lease lapsed, unless the store failed lately.
func (e *Engine) reap(ctx context.Context) {
	if h := e.healthyFor(); h < e.leaseDuration {
		e.log.Debug("reaping lost tasks deferred: the store failed recently", "healthy_for", h)
		return
	}
	// Bounded, so a call stuck on a frozen store ends as a failure (the
	// ticks wait for it, so no reap runs before that failure is noted).
	rctx, cancel := context.WithTimeout(ctx, min(e.attemptTimeout, max(e.leaseDuration/3, time.Second)))
	defer cancel()
	n, err := e.lease.ReapExpiredLeases(rctx)
	switch {
	case err != nil && ctx.Err() == nil:
		e.storeFailed()
		e.log.Warn("reaping lost tasks failed", "err", err)
	case n > 0:
		e.log.Info("ended tasks whose worker was lost", "count", n)
	}
}

// Start creates a task for owner and runs work on it in the background.
// It returns the task as created (status working) without waiting for the
// work. ctx bounds only the creation; the work's context is detached from
// it (its values are kept).
func (e *Engine) Start(ctx context.Context, owner Owner, p CreateParams, work Work, opts ...StartOption) (Record, error) {
	e.mu.Lock()
	closed := e.closed
	e.mu.Unlock()
	if closed {
		return Record{}, ErrEngineClosed
	}
	rec, err := e.store.Create(ctx, owner, p)
	if err != nil {
		// A requestor at its cap is routine and can come in floods: the
		// transport samples those refusals; store failures stay loud.
		level := slog.LevelWarn
		if errors.Is(err, ErrLimit) {
			level = slog.LevelDebug
		}
		e.log.Log(ctx, level, "task creation refused", "owner", owner, "method", p.Method, "err", err)
		return Record{}, err
	}
	if e.log.Enabled(ctx, slog.LevelInfo) { // the arguments cost allocations even when not logged
		e.log.Info("task created", "owner", owner, "task", rec.ID, "method", rec.Method)
	}
	r := &run{
		e:       e,
		owner:   owner,
		id:      rec.ID,
		method:  rec.Method,
		current: rec,
		// inputTurn is made here, not lazily, so RequireInput needs no
		// lock to reach it.
		inputTurn: make(chan struct{}, 1),
	}
	// The work keeps the request's values but not its end; the
	// detached parent lives inside r (context.WithoutCancel would be
	// one more allocation per task).
	r.parent = detached{ctx}
	workCtx, cancel := context.WithCancelCause(&r.parent)
	r.ctx, r.cancel = workCtx, cancel
	for _, o := range opts {
		o(r)
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		cancel(ErrEngineClosed)
		_, _ = e.store.Complete(context.WithoutCancel(ctx), owner, rec.ID, StatusFailed, "server shut down before the task started",
			Outcome{Error: &RPCError{Code: wire.CodeInternalError, Message: "server shut down before the task started"}})
		return Record{}, ErrEngineClosed
	}
	e.runs[rec.ID] = r
	e.wg.Add(1)
	e.mu.Unlock()
	e.notify(rec)
	if e.lease != nil {
		r.done = make(chan struct{})
		r.renewLease()
		go r.keepLease()
	}
	e.runWork(job{r, work})
	return rec, nil
}

// maxIdleWorkers bounds the worker goroutines kept waiting for work
// after a burst of tasks (a few KiB of stack each). Under load the
// scheduler lets hundreds of handed-out tasks queue before their workers
// run, so a smaller pool would still start most goroutines afresh.
const maxIdleWorkers = 256

// job is one task's work for a worker goroutine.
type job struct {
	r    *run
	work Work
}

// runWork runs j on its own goroutine: an idle worker when one waits,
// else a new one. A worker that has run a task keeps its grown stack for
// the next, so most tasks cost neither a new goroutine nor stack copying.
func (e *Engine) runWork(j job) {
	select {
	case e.jobs <- j:
		// Counted here, not by the worker: it may wait a while to be
		// scheduled, and meanwhile it is not idle.
		e.idleWorkers.Add(-1)
	default:
		go e.worker(j)
	}
}

// worker runs j, then waits for more work while there are at most
// maxIdleWorkers idle workers, until the engine closes.
func (e *Engine) worker(j job) {
	var w watcher
	defer w.stop()
	for {
		j.r.execute(j.work, &w)
		j = job{}
		if e.idleWorkers.Add(1) > maxIdleWorkers {
			e.idleWorkers.Add(-1)
			return
		}
		select {
		case j = <-e.jobs:
		case <-e.quit:
			e.idleWorkers.Add(-1)
			return
		}
	}
}

// watcher starts the watch of the task its worker runs once the work
// has run for watchDelay (see run.watch). Each worker goroutine has one,
// so its timer is made once and reset per task instead of allocated per
// task.
type watcher struct {
	t   *time.Timer
	cur atomic.Pointer[run]
}

// arm starts r's watch after watchDelay unless disarm comes first.
func (w *watcher) arm(r *run) {
	w.cur.Store(r)
	if w.t == nil {
		w.t = time.AfterFunc(watchDelay, w.fire)
	} else {
		w.t.Reset(watchDelay)
	}
}

// disarm cancels the pending watch start, if it has not begun.
func (w *watcher) disarm() {
	w.t.Stop()
	w.cur.Store(nil)
}

// fire runs on the timer's goroutine. The task is taken with a swap, so
// it is watched at most once: a firing that raced with disarm and arm
// can only start the next task's watch early, which costs a store wait
// and changes nothing else.
func (w *watcher) fire() {
	if r := w.cur.Swap(nil); r != nil {
		r.watch()
	}
}

// stop releases the timer when the worker goroutine ends.
func (w *watcher) stop() {
	if w.t != nil {
		w.t.Stop()
	}
}

// Get returns the owner's task.
func (e *Engine) Get(ctx context.Context, owner Owner, id string) (Record, error) {
	rec, err := e.store.Get(ctx, owner, id)
	if err != nil {
		e.log.Warn("task lookup failed", "owner", owner, "task", id, "err", err)
	}
	return rec, err
}

// List returns one page of the owner's tasks. The cursors it takes and
// returns are the store's cursors sealed for owner with Config.CursorKey:
// a cursor that was not issued by an engine with the same key to the same
// owner gives ErrInvalidCursor.
func (e *Engine) List(ctx context.Context, owner Owner, opts ListOptions) (Page, error) {
	return e.cursors.listPage(owner, opts, func(o ListOptions) (Page, error) {
		return e.store.List(ctx, owner, o)
	})
}

// Result blocks until the owner's task is terminal and returns it with its
// outcome. It waits on the store's change signal, never by busy polling,
// and ends with ctx's error when ctx is done first (the task keeps
// running). While the store is unreachable it keeps waiting, asking again
// with backoff, so a requestor blocked on a result through a store outage
// gets the result rather than an error.
func (e *Engine) Result(ctx context.Context, owner Owner, id string) (Record, error) {
	b := backoff{base: e.retryBase, max: max(e.retryBase, min(e.retryMax, e.cfg.PollInterval))}
	warned := false
	for {
		rec, err := e.result(ctx, owner, id)
		switch {
		case err == nil:
			if e.log.Enabled(ctx, slog.LevelInfo) {
				e.log.Info("task result retrieved", "owner", owner, "task", id, "status", rec.Status)
			}
			return rec, nil
		case ctx.Err() != nil:
			return Record{}, err
		case !Transient(err):
			e.log.Warn("task result lookup failed", "owner", owner, "task", id, "err", err)
			return Record{}, err
		}
		e.storeFailed()
		if !warned {
			e.log.Warn("task result lookup failed; waiting for the store", "owner", owner, "task", id, "err", err)
			warned = true
		}
		if !sleepCtx(ctx, b.next()) {
			return Record{}, err
		}
	}
}

// result waits once for the task to be terminal and reads its outcome.
func (e *Engine) result(ctx context.Context, owner Owner, id string) (Record, error) {
	rec, err := e.store.Get(ctx, owner, id)
	for err == nil && !rec.Status.Terminal() {
		rec, err = e.store.Wait(ctx, owner, id, rec.Version)
	}
	if err != nil {
		return Record{}, err
	}
	return e.store.Result(ctx, owner, id)
}

// Cancel moves the owner's task to cancelled and then cancels its work's
// context, so the task is cancelled by the time Cancel returns. A task
// already terminal gives ErrInvalidTransition. The work may keep running
// briefly; whatever it produces is discarded.
func (e *Engine) Cancel(ctx context.Context, owner Owner, id, message string) (Record, error) {
	if message == "" {
		message = "the task was cancelled by its requestor"
	}
	e.mu.Lock()
	r := e.runs[id]
	e.mu.Unlock()
	if r != nil && r.owner == owner {
		return r.cancelTask(ctx, message)
	}
	rec, err := e.store.Cancel(ctx, owner, id, message)
	if err != nil {
		e.log.Warn("task cancel refused", "owner", owner, "task", id, "err", err)
		return Record{}, err
	}
	e.log.Info("task cancelled", "owner", owner, "task", id)
	e.notify(rec)
	return rec, nil
}

// Close stops the engine: it refuses new work, ends still-running tasks
// as failed (their work's context is cancelled) and waits for their work
// to return and for outcomes still being written to be recorded, or for
// ctx to end. When ctx ends first, every write still being retried is
// abandoned and logged at error level, naming the task and the outcome
// that was not recorded; on a shared store the lease then lapses and
// another instance ends the task as failed.
func (e *Engine) Close(ctx context.Context) error {
	e.closeMu.Do(func() {
		e.stopBg()
		close(e.quit)
	})
	stopAbandon := context.AfterFunc(ctx, e.abandon)
	defer stopAbandon()
	e.mu.Lock()
	e.closed = true
	runs := make([]*run, 0, len(e.runs))
	for _, r := range e.runs {
		runs = append(runs, r)
	}
	e.mu.Unlock()
	var ending sync.WaitGroup
	const msg = "the server shut down before the task finished"
	for _, r := range runs {
		if r.claim() {
			ending.Add(1)
			go func() {
				defer ending.Done()
				_, _ = r.record(e.hard, StatusFailed, msg, Outcome{Error: &RPCError{Code: wire.CodeInternalError, Message: msg}})
			}()
		}
		r.cancel(ErrEngineClosed)
	}
	done := make(chan struct{})
	go func() {
		e.wg.Wait()
		ending.Wait()
		<-e.bgDone
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		e.abandon()
		return fmt.Errorf("closing task engine: %w", ctx.Err())
	}
}

// Running reports how many tasks have work in progress on this engine.
func (e *Engine) Running() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.runs)
}

// Observe registers o to be told about every later status change the
// engine makes; see WithObserver.
func (e *Engine) Observe(o Observer) {
	if o == nil {
		return
	}
	e.obsMu.Lock()
	defer e.obsMu.Unlock()
	var list []Observer
	if cur := e.observers.Load(); cur != nil {
		list = append(list, *cur...)
	}
	list = append(list, o)
	e.observers.Store(&list)
}

func (e *Engine) notify(rec Record) {
	if list := e.observers.Load(); list != nil {
		for _, o := range *list {
			o(rec)
		}
	}
}

func (e *Engine) forget(id string) {
	e.mu.Lock()
	delete(e.runs, id)
	e.mu.Unlock()
}
