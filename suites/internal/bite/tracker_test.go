package bite_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"

	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

// tracker is the base of most broken stores: a tasks.Store that forwards
// every call to a real memory store and remembers the last record it saw
// of each task (its shadow). A broken store embeds it, overrides the one
// method it breaks, and uses the shadow to fake the wrong answer a real
// implementer's bug would give. With no hooks set, a tracker behaves
// exactly like the memory store.
type tracker struct {
	inner *memory.Store
	cfg   tasks.Config // what the suite asked for, defaults applied

	// out, when set, rewrites every record the tracker hands out.
	out func(r *tasks.Record)

	mu     sync.Mutex
	shadow map[string]tasks.Record // the latest record seen, outcome included once known
	hidden map[string]bool         // tasks a broken DeleteExpired removed early
}

// newTracker opens the memory store with inner (a changed copy of cfg, or
// cfg itself) and tracks it; cfg is kept as the configuration the suite
// asked for.
func newTracker(cfg, inner tasks.Config) *tracker {
	return &tracker{inner: memory.New(inner), cfg: cfg.WithDefaults(), shadow: map[string]tasks.Record{}, hidden: map[string]bool{}}
}

var _ tasks.Store = (*tracker)(nil)

// track is newTracker with the suite's configuration unchanged.
func track(cfg tasks.Config) *tracker { return newTracker(cfg, cfg) }

// seen records r as the latest state of its task and returns what the
// caller should get.
func (t *tracker) seen(r tasks.Record, err error) (tasks.Record, error) {
	if err != nil {
		return r, err
	}
	t.mu.Lock()
	if prev, ok := t.shadow[r.ID]; ok && r.Outcome == nil {
		r2 := r.Clone()
		r2.Outcome = prev.Outcome
		t.shadow[r.ID] = r2
	} else {
		t.shadow[r.ID] = r.Clone()
	}
	t.mu.Unlock()
	if t.out != nil {
		t.out(&r)
	}
	return r, nil
}

// snapshot returns the shadow of id.
func (t *tracker) snapshot(id string) (tasks.Record, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r, ok := t.shadow[id]
	return r.Clone(), ok
}

// shadows returns the shadow records matching keep, in list order.
func (t *tracker) shadows(keep func(tasks.Record) bool) []tasks.Record {
	t.mu.Lock()
	all := make([]tasks.Record, 0, len(t.shadow))
	for _, r := range t.shadow {
		all = append(all, r.Clone())
	}
	t.mu.Unlock()
	var out []tasks.Record
	for _, r := range all { // keep may call back into the tracker
		if keep(r) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b tasks.Record) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	return out
}

// forget drops ids from the shadow.
func (t *tracker) forget(ids ...string) {
	t.mu.Lock()
	for _, id := range ids {
		delete(t.shadow, id)
	}
	t.mu.Unlock()
}

// hide makes id look deleted to every method.
func (t *tracker) hide(id string) {
	t.mu.Lock()
	t.hidden[id] = true
	t.mu.Unlock()
}

// gone reports whether id was hidden.
func (t *tracker) gone(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.hidden[id]
}

func (t *tracker) Create(ctx context.Context, owner tasks.Owner, p tasks.CreateParams) (tasks.Record, error) {
	return t.seen(t.inner.Create(ctx, owner, p))
}

func (t *tracker) Get(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	if t.gone(id) {
		return tasks.Record{}, notFound("get", id)
	}
	return t.seen(t.inner.Get(ctx, owner, id))
}

func (t *tracker) Transition(ctx context.Context, owner tasks.Owner, id string, to tasks.Status, msg string) (tasks.Record, error) {
	if t.gone(id) {
		return tasks.Record{}, notFound("transition", id)
	}
	return t.seen(t.inner.Transition(ctx, owner, id, to, msg))
}

func (t *tracker) SetVariables(ctx context.Context, owner tasks.Owner, id string, patch map[string]json.RawMessage) (tasks.Record, error) {
	if t.gone(id) {
		return tasks.Record{}, notFound("set variables", id)
	}
	return t.seen(t.inner.SetVariables(ctx, owner, id, patch))
}

func (t *tracker) Complete(ctx context.Context, owner tasks.Owner, id string, st tasks.Status, msg string, o tasks.Outcome) (tasks.Record, error) {
	if t.gone(id) {
		return tasks.Record{}, notFound("complete", id)
	}
	r, err := t.inner.Complete(ctx, owner, id, st, msg, o)
	if err == nil {
		oc := o.Clone()
		t.mu.Lock()
		s := r.Clone()
		s.Outcome = &oc
		t.shadow[id] = s
		t.mu.Unlock()
	}
	if err == nil && t.out != nil {
		t.out(&r)
	}
	return r, err
}

func (t *tracker) Result(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	if t.gone(id) {
		return tasks.Record{}, notFound("result", id)
	}
	return t.seen(t.inner.Result(ctx, owner, id))
}

func (t *tracker) List(ctx context.Context, owner tasks.Owner, opts tasks.ListOptions) (tasks.Page, error) {
	page, err := t.inner.List(ctx, owner, opts)
	if err != nil {
		return page, err
	}
	kept := page.Tasks[:0]
	for _, r := range page.Tasks {
		if !t.gone(r.ID) {
			r, _ = t.seen(r, nil)
			kept = append(kept, r)
		}
	}
	page.Tasks = kept
	return page, nil
}

func (t *tracker) Cancel(ctx context.Context, owner tasks.Owner, id string, msg string) (tasks.Record, error) {
	if t.gone(id) {
		return tasks.Record{}, notFound("cancel", id)
	}
	r, err := t.inner.Cancel(ctx, owner, id, msg)
	if err == nil {
		o := storekit.CancelledOutcome(msg)
		t.mu.Lock()
		s := r.Clone()
		s.Outcome = &o
		t.shadow[id] = s
		t.mu.Unlock()
		if t.out != nil {
			t.out(&r)
		}
	}
	return r, err
}

func (t *tracker) DeleteExpired(ctx context.Context) (int, error) {
	n, err := t.inner.DeleteExpired(ctx)
	if err == nil {
		now := t.cfg.Now()
		var gone []string
		for _, r := range t.shadows(func(r tasks.Record) bool { return r.Expired(now) }) {
			gone = append(gone, r.ID)
		}
		t.forget(gone...)
	}
	return n, err
}

func (t *tracker) Wait(ctx context.Context, owner tasks.Owner, id string, after int64) (tasks.Record, error) {
	if t.gone(id) {
		return tasks.Record{}, notFound("wait", id)
	}
	return t.seen(t.inner.Wait(ctx, owner, id, after))
}

func (t *tracker) Close() error { return t.inner.Close() }

// notFound is the error a store gives for a task it does not show.
func notFound(op, id string) error {
	return &tasks.Error{Op: op, TaskID: id, Err: tasks.ErrNotFound}
}

// isExpired reports whether err says the task expired.
func isExpired(err error) bool { return errors.Is(err, tasks.ErrExpired) }

// blockUntilDone waits for ctx and returns its error: what a store that
// never notices anything does.
func blockUntilDone(ctx context.Context) (tasks.Record, error) {
	<-ctx.Done()
	return tasks.Record{}, ctx.Err()
}
