package bite_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

// Deliberately broken stores. Each wraps the memory store and breaks one
// promise of the tasks.Store contract; the suite must notice every one.

// reopen allows moves out of a terminal status back to working or
// input_required: the refusal of the real store is turned into a success.
type reopen struct {
	*memory.Store
	mu        sync.Mutex
	overrides map[string]tasks.Status
}

func newReopen(cfg tasks.Config) tasks.Store {
	return &reopen{Store: memory.New(cfg), overrides: map[string]tasks.Status{}}
}

func (s *reopen) Transition(ctx context.Context, owner tasks.Owner, id string, to tasks.Status, msg string) (tasks.Record, error) {
	r, err := s.Store.Transition(ctx, owner, id, to, msg)
	if err != nil && errors.Is(err, tasks.ErrInvalidTransition) && !to.Terminal() {
		cur, gerr := s.Store.Get(ctx, owner, id)
		if gerr == nil && cur.Status.Terminal() {
			s.mu.Lock()
			s.overrides[id] = to
			s.mu.Unlock()
			cur.Status = to
			cur.Version++
			return cur, nil
		}
	}
	return r, err
}

func (s *reopen) Get(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	r, err := s.Store.Get(ctx, owner, id)
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.overrides[id]; ok && err == nil {
		r.Status = st
	}
	return r, err
}

// ownerBlindGet answers Get for any owner's task.
type ownerBlindGet struct {
	*memory.Store
	mu     sync.Mutex
	owners map[string]tasks.Owner
}

func newOwnerBlindGet(cfg tasks.Config) tasks.Store {
	return &ownerBlindGet{Store: memory.New(cfg), owners: map[string]tasks.Owner{}}
}

func (s *ownerBlindGet) Create(ctx context.Context, owner tasks.Owner, p tasks.CreateParams) (tasks.Record, error) {
	r, err := s.Store.Create(ctx, owner, p)
	if err == nil {
		s.mu.Lock()
		s.owners[r.ID] = owner
		s.mu.Unlock()
	}
	return r, err
}

func (s *ownerBlindGet) Get(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	s.mu.Lock()
	real, ok := s.owners[id]
	s.mu.Unlock()
	if ok {
		owner = real
	}
	return s.Store.Get(ctx, owner, id)
}

// frozenClock never moves, so the store it drives never sees a task expire.
type frozenClock struct{ at time.Time }

func (c frozenClock) Now() time.Time { return c.at }

// neverExpires keeps every task forever: its clock stands still.
func newNeverExpires(cfg tasks.Config) tasks.Store {
	cfg.Clock = frozenClock{at: cfg.Clock.Now()}
	return memory.New(cfg)
}

// leakyList shows, in every listing, the first page of every other owner.
type leakyList struct {
	*memory.Store
	mu     sync.Mutex
	owners map[tasks.Owner]bool
}

func newLeakyList(cfg tasks.Config) tasks.Store {
	return &leakyList{Store: memory.New(cfg), owners: map[tasks.Owner]bool{}}
}

func (s *leakyList) Create(ctx context.Context, owner tasks.Owner, p tasks.CreateParams) (tasks.Record, error) {
	s.mu.Lock()
	s.owners[owner] = true
	s.mu.Unlock()
	return s.Store.Create(ctx, owner, p)
}

func (s *leakyList) List(ctx context.Context, owner tasks.Owner, opts tasks.ListOptions) (tasks.Page, error) {
	page, err := s.Store.List(ctx, owner, opts)
	if err != nil || opts.Cursor != "" {
		return page, err
	}
	s.mu.Lock()
	var others []tasks.Owner
	for o := range s.owners {
		if o != owner {
			others = append(others, o)
		}
	}
	s.mu.Unlock()
	for _, o := range others {
		p, err := s.Store.List(ctx, o, tasks.ListOptions{})
		if err == nil {
			page.Tasks = append(page.Tasks, p.Tasks...)
		}
	}
	return page, nil
}

// splitComplete writes the terminal status first and the outcome a moment
// later, in two steps, so readers can see a terminal task without outcome.
type splitComplete struct {
	*memory.Store
	mu      sync.Mutex
	pending map[string]tasks.Status
}

func newSplitComplete(cfg tasks.Config) tasks.Store {
	return &splitComplete{Store: memory.New(cfg), pending: map[string]tasks.Status{}}
}

func (s *splitComplete) Complete(ctx context.Context, owner tasks.Owner, id string, st tasks.Status, msg string, o tasks.Outcome) (tasks.Record, error) {
	cur, err := s.Store.Get(ctx, owner, id)
	if err != nil {
		return cur, err
	}
	if !cur.Status.Terminal() {
		// Step one: the status.
		s.mu.Lock()
		s.pending[id] = st
		s.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		defer func() {
			s.mu.Lock()
			delete(s.pending, id)
			s.mu.Unlock()
		}()
	}
	// Step two: the outcome.
	return s.Store.Complete(ctx, owner, id, st, msg, o)
}

func (s *splitComplete) Get(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	r, err := s.Store.Get(ctx, owner, id)
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.pending[id]; ok && err == nil {
		r.Status = st
	}
	return r, err
}

// lostUpdate merges variables by read, modify, write without holding
// anything across the steps, so concurrent writers erase each other's keys.
type lostUpdate struct{ *memory.Store }

func newLostUpdate(cfg tasks.Config) tasks.Store { return &lostUpdate{memory.New(cfg)} }

func (s *lostUpdate) SetVariables(ctx context.Context, owner tasks.Owner, id string, patch map[string]json.RawMessage) (tasks.Record, error) {
	cur, err := s.Store.Get(ctx, owner, id)
	if err != nil {
		return cur, err
	}
	merged, err := storekit.MergeVariables(cur.Variables, patch, 0)
	if err != nil {
		return s.Store.SetVariables(ctx, owner, id, patch) // let the real store word the error
	}
	time.Sleep(5 * time.Millisecond)
	// Write the whole map back: keys others added meanwhile are dropped.
	now, err := s.Store.Get(ctx, owner, id)
	if err != nil {
		return now, err
	}
	write := map[string]json.RawMessage{}
	for k := range now.Variables {
		if _, ok := merged[k]; !ok {
			write[k] = json.RawMessage(`null`)
		}
	}
	for k, v := range merged {
		write[k] = v
	}
	for k, v := range patch {
		if string(v) == "null" {
			write[k] = v
		}
	}
	return s.Store.SetVariables(ctx, owner, id, write)
}

// checkThenAct checks the status, then ends the task in a second step; a
// racer that loses the second step is still told it won.
type checkThenAct struct{ *memory.Store }

func newCheckThenAct(cfg tasks.Config) tasks.Store { return &checkThenAct{memory.New(cfg)} }

func (s *checkThenAct) Complete(ctx context.Context, owner tasks.Owner, id string, st tasks.Status, msg string, o tasks.Outcome) (tasks.Record, error) {
	cur, err := s.Store.Get(ctx, owner, id)
	if err != nil || cur.Status.Terminal() {
		return s.Store.Complete(ctx, owner, id, st, msg, o)
	}
	time.Sleep(5 * time.Millisecond)
	r, err := s.Store.Complete(ctx, owner, id, st, msg, o)
	if errors.Is(err, tasks.ErrInvalidTransition) {
		cur.Status = st
		return cur, nil
	}
	return r, err
}
