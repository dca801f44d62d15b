package bite_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

// Mutants that get variables wrong.
var variableMutants = []mutant{
	{"null is stored instead of deleting", "MCPT-VAR-002", newNullKeeper(false)},
	{"null with spaces around it is stored", "MCPT-VAR-002", newNullKeeper(true)},
	{"the size limit is checked on the patch, not the merge", "MCPT-VAR-003", newSizer(sizePatch)},
	{"the size limit is checked on old plus patch, before the merge", "MCPT-VAR-003", newSizer(sizeSum)},
	{"the size limit is not checked on Create", "MCPT-VAR-003", newSizer(sizeNotOnCreate)},
	{"the size limit counts only the values", "MCPT-VAR-003", newSizer(sizeValuesOnly)},
	{"a patch is applied key by key", "MCPT-VAR-005", func(cfg tasks.Config) tasks.Store { return keyByKey{track(cfg)} }},
	{"Complete drops the variables", "MCPT-VAR-001", withOut(func(_ tasks.Config, r *tasks.Record) {
		if r.Status.Terminal() {
			r.Variables = nil
		}
	})},
	{"SetVariables returns the patch instead of the merge", "MCPT-LIFE-008", func(cfg tasks.Config) tasks.Store { return patchEcho{track(cfg)} }},
	{"an empty variable name is dropped silently", "MCPT-VAR-005", func(cfg tasks.Config) tasks.Store {
		return patchHook{track(cfg), func(p map[string]json.RawMessage) { delete(p, "") }}
	}},
	{"a value that is not JSON is stored as a string", "MCPT-VAR-005", func(cfg tasks.Config) tasks.Store {
		return patchHook{track(cfg), func(p map[string]json.RawMessage) {
			for k, v := range p {
				if !json.Valid(v) {
					p[k], _ = json.Marshal(string(v))
				}
			}
		}}
	}},
	{"tasks created without variables share one map", "MCPT-VAR-004", func(cfg tasks.Config) tasks.Store {
		return &sharedDefault{tracker: track(cfg), empty: map[string]bool{}}
	}},
}

// nullKeeper stores JSON null as a value instead of deleting the key;
// spaced only does so for nulls with spaces around them (a store that
// compares the raw bytes with "null").
type nullKeeper struct {
	*tracker
	spaced bool
	mu     sync.Mutex
	nulls  map[string]map[string]bool
}

func newNullKeeper(spaced bool) func(tasks.Config) tasks.Store {
	return func(cfg tasks.Config) tasks.Store {
		s := &nullKeeper{tracker: track(cfg), spaced: spaced, nulls: map[string]map[string]bool{}}
		s.out = func(r *tasks.Record) {
			s.mu.Lock()
			defer s.mu.Unlock()
			for k := range s.nulls[r.ID] {
				if r.Variables == nil {
					r.Variables = map[string]json.RawMessage{}
				}
				r.Variables[k] = json.RawMessage(`null`)
			}
		}
		return s
	}
}

func (s *nullKeeper) SetVariables(ctx context.Context, owner tasks.Owner, id string, patch map[string]json.RawMessage) (tasks.Record, error) {
	r, err := s.inner.SetVariables(ctx, owner, id, patch)
	if err == nil {
		s.mu.Lock()
		for k, v := range patch {
			isNull := bytes.Equal(bytes.TrimSpace(v), []byte("null"))
			if isNull && (!s.spaced || !bytes.Equal(v, []byte("null"))) {
				if s.nulls[id] == nil {
					s.nulls[id] = map[string]bool{}
				}
				s.nulls[id][k] = true
			} else {
				delete(s.nulls[id], k)
			}
		}
		s.mu.Unlock()
	}
	return s.seen(r, err)
}

// How a broken store measures variables against the limit.
const (
	sizePatch = iota
	sizeSum
	sizeNotOnCreate
	sizeValuesOnly
)

// sizer lets the memory store merge without a limit and checks the limit
// itself, the wrong way.
type sizer struct {
	*tracker
	mode int
}

func newSizer(mode int) func(tasks.Config) tasks.Store {
	return func(cfg tasks.Config) tasks.Store {
		inner := cfg.WithDefaults()
		inner.MaxVariablesBytes = 1 << 30
		return sizer{newTracker(cfg, inner), mode}
	}
}

func (s sizer) tooLarge(op string, n int) error {
	return &tasks.Error{Op: op, Err: fmt.Errorf("%w: %d bytes, limit %d", tasks.ErrVariablesTooLarge, n, s.cfg.MaxVariablesBytes)}
}

func valuesSize(m map[string]json.RawMessage) int {
	n := 0
	for _, v := range m {
		n += len(v)
	}
	return n
}

func (s sizer) Create(ctx context.Context, owner tasks.Owner, p tasks.CreateParams) (tasks.Record, error) {
	limit := s.cfg.MaxVariablesBytes
	switch s.mode {
	case sizePatch, sizeSum:
		if n := storekit.VariablesSize(p.Variables); n > limit {
			return tasks.Record{}, s.tooLarge("create", n)
		}
	case sizeValuesOnly:
		if n := valuesSize(p.Variables); n > limit {
			return tasks.Record{}, s.tooLarge("create", n)
		}
	}
	return s.tracker.Create(ctx, owner, p)
}

func (s sizer) SetVariables(ctx context.Context, owner tasks.Owner, id string, patch map[string]json.RawMessage) (tasks.Record, error) {
	limit := s.cfg.MaxVariablesBytes
	cur, _ := s.snapshot(id)
	n := 0
	switch s.mode {
	case sizePatch:
		n = storekit.VariablesSize(patch)
	case sizeSum:
		n = storekit.VariablesSize(cur.Variables) + storekit.VariablesSize(patch) - 2
	case sizeNotOnCreate:
		if merged, err := storekit.MergeVariables(cur.Variables, patch, 0); err == nil {
			n = storekit.VariablesSize(merged)
		}
	case sizeValuesOnly:
		if merged, err := storekit.MergeVariables(cur.Variables, patch, 0); err == nil {
			n = valuesSize(merged)
		}
	}
	if n > limit {
		if _, err := s.tracker.Get(ctx, owner, id); err != nil {
			return tasks.Record{}, err
		}
		return tasks.Record{}, s.tooLarge("set variables", n)
	}
	return s.tracker.SetVariables(ctx, owner, id, patch)
}

// keyByKey applies a patch one key at a time, in key order, and stops at
// the first bad one: the keys before it stay applied.
type keyByKey struct{ *tracker }

func (s keyByKey) SetVariables(ctx context.Context, owner tasks.Owner, id string, patch map[string]json.RawMessage) (tasks.Record, error) {
	if len(patch) == 0 {
		return s.tracker.SetVariables(ctx, owner, id, patch)
	}
	var r tasks.Record
	for _, k := range slices.Sorted(maps.Keys(patch)) {
		var err error
		if r, err = s.tracker.SetVariables(ctx, owner, id, map[string]json.RawMessage{k: patch[k]}); err != nil {
			return tasks.Record{}, err
		}
	}
	return r, nil
}

// patchEcho answers SetVariables with the patch it was given instead of
// the merged variables.
type patchEcho struct{ *tracker }

func (s patchEcho) SetVariables(ctx context.Context, owner tasks.Owner, id string, patch map[string]json.RawMessage) (tasks.Record, error) {
	r, err := s.tracker.SetVariables(ctx, owner, id, patch)
	if err == nil {
		r.Variables = map[string]json.RawMessage{}
		for k, v := range patch {
			if !bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
				r.Variables[k] = bytes.TrimSpace(v)
			}
		}
	}
	return r, err
}

// patchHook rewrites a patch (and initial variables) before validating.
type patchHook struct {
	*tracker
	f func(map[string]json.RawMessage)
}

func (s patchHook) Create(ctx context.Context, owner tasks.Owner, p tasks.CreateParams) (tasks.Record, error) {
	if p.Variables != nil {
		p.Variables = maps.Clone(p.Variables)
		s.f(p.Variables)
	}
	return s.tracker.Create(ctx, owner, p)
}

func (s patchHook) SetVariables(ctx context.Context, owner tasks.Owner, id string, patch map[string]json.RawMessage) (tasks.Record, error) {
	patch = maps.Clone(patch)
	s.f(patch)
	return s.tracker.SetVariables(ctx, owner, id, patch)
}

// sharedDefault gives every task created without variables the same
// default map: a write to one shows in all of them.
type sharedDefault struct {
	*tracker
	mu    sync.Mutex
	empty map[string]bool
}

func (s *sharedDefault) Create(ctx context.Context, owner tasks.Owner, p tasks.CreateParams) (tasks.Record, error) {
	r, err := s.tracker.Create(ctx, owner, p)
	if err == nil && len(p.Variables) == 0 {
		s.mu.Lock()
		s.empty[r.ID] = true
		s.mu.Unlock()
	}
	return r, err
}

func (s *sharedDefault) SetVariables(ctx context.Context, owner tasks.Owner, id string, patch map[string]json.RawMessage) (tasks.Record, error) {
	r, err := s.tracker.SetVariables(ctx, owner, id, patch)
	s.mu.Lock()
	shared := s.empty[id]
	var others []string
	for o := range s.empty {
		if o != id {
			others = append(others, o)
		}
	}
	s.mu.Unlock()
	if err != nil || !shared {
		return r, err
	}
	for _, o := range others {
		if snap, ok := s.snapshot(o); ok {
			_, _ = s.tracker.SetVariables(ctx, snap.Owner, o, patch)
		}
	}
	return r, nil
}
