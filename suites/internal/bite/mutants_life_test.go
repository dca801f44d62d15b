package bite_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// Mutants that get statuses, messages, outcomes or atomicity wrong.
var lifecycleMutants = []mutant{
	{"terminal tasks move back to working", "TASKS-LIFE-005", newReopen},
	{"a transition to the current status succeeds", "TASKS-LIFE-002", func(cfg tasks.Config) tasks.Store { return sameStatus{track(cfg)} }},
	{"Transition reaches terminal statuses", "MCPT-LIFE-004", func(cfg tasks.Config) tasks.Store { return terminalTransition{track(cfg)} }},
	{"Transition keeps the old status message", "MCPT-LIFE-006", func(cfg tasks.Config) tasks.Store { return keepMessage{track(cfg), "Transition"} }},
	{"Complete keeps the old status message", "MCPT-LIFE-009", func(cfg tasks.Config) tasks.Store { return keepMessage{track(cfg), "Complete"} }},
	{"Cancel drops the status message", "MCPT-CANCEL-001", func(cfg tasks.Config) tasks.Store { return keepMessage{track(cfg), "Cancel"} }},
	{"Transition accepts unknown statuses", "TASKS-LIFE-002", func(cfg tasks.Config) tasks.Store { return newStatusOverlay(cfg, overlayUnknown) }},
	{"Complete accepts cancelled", "MCPT-LIFE-005", func(cfg tasks.Config) tasks.Store { return lenientComplete{track(cfg)} }},
	{"Complete accepts an outcome with neither result nor error", "MCPT-LIFE-005", func(cfg tasks.Config) tasks.Store {
		return outcomeRewrite{track(cfg), func(o *tasks.Outcome) {
			if o.Result == nil && o.Error == nil {
				o.Result = json.RawMessage(`null`)
			}
		}}
	}},
	{"Complete returns the task as it was before", "MCPT-LIFE-008", func(cfg tasks.Config) tasks.Store { return preImage{track(cfg), "Complete"} }},
	{"Transition returns the task as it was before", "MCPT-LIFE-008", func(cfg tasks.Config) tasks.Store { return preImage{track(cfg), "Transition"} }},
	{"Cancel returns the task as it was before", "TASKS-CANCEL-003", func(cfg tasks.Config) tasks.Store { return preImage{track(cfg), "Cancel"} }},
	{"Complete writes status and outcome in two steps", "MCPT-RES-001", newSplitComplete},
	{"Complete checks then acts", "MCPT-CONC-001", newCheckThenAct},
	{"variable writes overwrite each other", "MCPT-CONC-002", newLostUpdate},
	{"versions computed outside the write", "MCPT-CONC-004", func(cfg tasks.Config) tasks.Store { return racyVersion{track(cfg)} }},
	{"the cap is counted before inserting, without a lock", "MCPT-CONC-003", func(cfg tasks.Config) tasks.Store {
		return newCounter(cfg, countRacy)
	}},
	{"a late Transition overwrites an ending", "MCPT-CONC-001", func(cfg tasks.Config) tasks.Store { return newStatusOverlay(cfg, overlayClobber) }},
	{"Result of a running task gives an empty outcome", "MCPT-RES-003", func(cfg tasks.Config) tasks.Store { return eagerResult{track(cfg)} }},
	{"cancelled tasks hold an internal-error outcome", "MCPT-CANCEL-001", withOut(func(_ tasks.Config, r *tasks.Record) {
		if r.Status == tasks.StatusCancelled && r.Outcome != nil && r.Outcome.Error != nil {
			e := *r.Outcome.Error
			e.Code = wire.CodeInternalError
			r.Outcome.Error = &e
		}
	})},
	{"Cancel of an ended task succeeds quietly", "TASKS-CANCEL-001", func(cfg tasks.Config) tasks.Store { return idempotentCancel{track(cfg)} }},
}

// sameStatus accepts a move to the status the task already has.
type sameStatus struct{ *tracker }

func (s sameStatus) Transition(ctx context.Context, owner tasks.Owner, id string, to tasks.Status, msg string) (tasks.Record, error) {
	r, err := s.tracker.Transition(ctx, owner, id, to, msg)
	if errors.Is(err, tasks.ErrInvalidTransition) {
		if cur, gerr := s.inner.Get(ctx, owner, id); gerr == nil && cur.Status == to {
			return s.seen(s.inner.SetVariables(ctx, owner, id, map[string]json.RawMessage{}))
		}
	}
	return r, err
}

// terminalTransition lets Transition end a task.
type terminalTransition struct{ *tracker }

func (s terminalTransition) Transition(ctx context.Context, owner tasks.Owner, id string, to tasks.Status, msg string) (tasks.Record, error) {
	switch to {
	case tasks.StatusCompleted, tasks.StatusFailed:
		return s.tracker.Complete(ctx, owner, id, to, msg, tasks.Outcome{Result: json.RawMessage(`{}`)})
	case tasks.StatusCancelled:
		return s.tracker.Cancel(ctx, owner, id, msg)
	}
	return s.tracker.Transition(ctx, owner, id, to, msg)
}

// keepMessage ignores the message given to one method.
type keepMessage struct {
	*tracker
	method string
}

func (s keepMessage) current(ctx context.Context, owner tasks.Owner, id string) string {
	r, _ := s.inner.Get(ctx, owner, id)
	return r.StatusMessage
}

func (s keepMessage) Transition(ctx context.Context, owner tasks.Owner, id string, to tasks.Status, msg string) (tasks.Record, error) {
	if s.method == "Transition" {
		msg = s.current(ctx, owner, id)
	}
	return s.tracker.Transition(ctx, owner, id, to, msg)
}

func (s keepMessage) Complete(ctx context.Context, owner tasks.Owner, id string, st tasks.Status, msg string, o tasks.Outcome) (tasks.Record, error) {
	if s.method == "Complete" {
		msg = s.current(ctx, owner, id)
	}
	return s.tracker.Complete(ctx, owner, id, st, msg, o)
}

func (s keepMessage) Cancel(ctx context.Context, owner tasks.Owner, id string, msg string) (tasks.Record, error) {
	if s.method == "Cancel" {
		msg = ""
	}
	return s.tracker.Cancel(ctx, owner, id, msg)
}

// Ways a status overlay misbehaves.
const (
	overlayUnknown = iota // Transition stores any status it is given
	overlayClobber        // Transition checks, then writes over an ending that came in between
)

// statusOverlay shows a status the memory store refused to take.
type statusOverlay struct {
	*tracker
	mode int
	mu   sync.Mutex
	over map[string]tasks.Status
}

func newStatusOverlay(cfg tasks.Config, mode int) tasks.Store {
	s := &statusOverlay{tracker: track(cfg), mode: mode, over: map[string]tasks.Status{}}
	s.out = func(r *tasks.Record) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if st, ok := s.over[r.ID]; ok {
			r.Status = st
			r.Outcome = nil
		}
	}
	return s
}

func (s *statusOverlay) Transition(ctx context.Context, owner tasks.Owner, id string, to tasks.Status, msg string) (tasks.Record, error) {
	cur, err := s.inner.Get(ctx, owner, id)
	if err != nil {
		return cur, err
	}
	switch s.mode {
	case overlayUnknown:
		if to.Valid() || cur.Status.Terminal() {
			return s.tracker.Transition(ctx, owner, id, to, msg)
		}
	case overlayClobber:
		if cur.Status.Terminal() {
			return s.tracker.Transition(ctx, owner, id, to, msg)
		}
		time.Sleep(5 * time.Millisecond)
		r, err := s.tracker.Transition(ctx, owner, id, to, msg)
		if !errors.Is(err, tasks.ErrInvalidTransition) {
			return r, err
		}
	}
	s.mu.Lock()
	s.over[id] = to
	s.mu.Unlock()
	return s.seen(s.inner.SetVariables(ctx, owner, id, map[string]json.RawMessage{}))
}

func (s *statusOverlay) Result(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	s.mu.Lock()
	st, ok := s.over[id]
	s.mu.Unlock()
	if ok {
		if _, err := s.inner.Get(ctx, owner, id); err != nil {
			return tasks.Record{}, err
		}
		return tasks.Record{}, &tasks.Error{Op: "result", TaskID: id, Status: st, Err: tasks.ErrNotReady}
	}
	return s.tracker.Result(ctx, owner, id)
}

// lenientComplete lets Complete cancel.
type lenientComplete struct{ *tracker }

func (s lenientComplete) Complete(ctx context.Context, owner tasks.Owner, id string, st tasks.Status, msg string, o tasks.Outcome) (tasks.Record, error) {
	if st == tasks.StatusCancelled {
		return s.tracker.Cancel(ctx, owner, id, msg)
	}
	return s.tracker.Complete(ctx, owner, id, st, msg, o)
}

// preImage returns, from one method, the record it read before changing.
type preImage struct {
	*tracker
	method string
}

func (s preImage) Transition(ctx context.Context, owner tasks.Owner, id string, to tasks.Status, msg string) (tasks.Record, error) {
	before, _ := s.inner.Get(ctx, owner, id)
	r, err := s.tracker.Transition(ctx, owner, id, to, msg)
	if err == nil && s.method == "Transition" {
		return before, nil
	}
	return r, err
}

func (s preImage) Complete(ctx context.Context, owner tasks.Owner, id string, st tasks.Status, msg string, o tasks.Outcome) (tasks.Record, error) {
	before, _ := s.inner.Get(ctx, owner, id)
	r, err := s.tracker.Complete(ctx, owner, id, st, msg, o)
	if err == nil && s.method == "Complete" {
		return before, nil
	}
	return r, err
}

func (s preImage) Cancel(ctx context.Context, owner tasks.Owner, id string, msg string) (tasks.Record, error) {
	before, _ := s.inner.Get(ctx, owner, id)
	r, err := s.tracker.Cancel(ctx, owner, id, msg)
	if err == nil && s.method == "Cancel" {
		return before, nil
	}
	return r, err
}

// racyVersion reads the version, then writes, and reports the version it
// read plus one.
type racyVersion struct{ *tracker }

func (s racyVersion) Transition(ctx context.Context, owner tasks.Owner, id string, to tasks.Status, msg string) (tasks.Record, error) {
	before, err := s.inner.Get(ctx, owner, id)
	if err != nil {
		return before, err
	}
	time.Sleep(5 * time.Millisecond)
	r, err := s.tracker.Transition(ctx, owner, id, to, msg)
	if err == nil {
		r.Version = before.Version + 1
	}
	return r, err
}

// eagerResult answers Result of a running task with an empty outcome.
type eagerResult struct{ *tracker }

func (s eagerResult) Result(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	r, err := s.tracker.Result(ctx, owner, id)
	if errors.Is(err, tasks.ErrNotReady) {
		r, err = s.tracker.Get(ctx, owner, id)
		r.Outcome = &tasks.Outcome{}
	}
	return r, err
}

// idempotentCancel treats a cancel of an ended task as done.
type idempotentCancel struct{ *tracker }

func (s idempotentCancel) Cancel(ctx context.Context, owner tasks.Owner, id string, msg string) (tasks.Record, error) {
	r, err := s.tracker.Cancel(ctx, owner, id, msg)
	if errors.Is(err, tasks.ErrInvalidTransition) {
		return s.tracker.Get(ctx, owner, id)
	}
	return r, err
}

// Ways a counting store counts an owner's tasks against the cap.
const (
	countRacy        = iota // correct count, but checked before inserting without a lock
	countExpired            // expired tasks count until they are deleted
	countTerminal           // ended tasks count too
	countGlobal             // every owner's tasks count
	countWorkingOnly        // input_required tasks do not count
)

// counter lets the memory store create without a cap and enforces the
// cap itself from the shadow.
type counter struct {
	*tracker
	mode int
}

func newCounter(cfg tasks.Config, mode int) tasks.Store {
	inner := cfg.WithDefaults()
	inner.MaxTasksPerOwner = -1
	return counter{newTracker(cfg, inner), mode}
}

func (s counter) Create(ctx context.Context, owner tasks.Owner, p tasks.CreateParams) (tasks.Record, error) {
	limit := s.cfg.MaxTasksPerOwner
	if limit <= 0 {
		return s.tracker.Create(ctx, owner, p)
	}
	now := s.cfg.Now()
	n := len(s.shadows(func(r tasks.Record) bool {
		if s.gone(r.ID) {
			return false
		}
		mine := r.Owner == owner || s.mode == countGlobal
		live := !r.Expired(now) || s.mode == countExpired
		active := !r.Status.Terminal() || s.mode == countTerminal
		if s.mode == countWorkingOnly {
			active = r.Status == tasks.StatusWorking
		}
		return mine && live && active
	}))
	if n >= limit {
		return tasks.Record{}, &tasks.Error{Op: "create", Err: tasks.ErrLimit, Detail: fmt.Sprintf("%d active tasks", n)}
	}
	if s.mode == countRacy {
		time.Sleep(10 * time.Millisecond)
	}
	return s.tracker.Create(ctx, owner, p)
}
