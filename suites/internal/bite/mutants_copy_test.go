package bite_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"math"
	"sync"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
)

// Mutants that share memory with their callers.
var copyMutants = []mutant{
	{"Get hands out its cached variables map", "MCPT-LIFE-003", newSharing(shareMap)},
	{"Get copies the variables map but not the values' bytes", "MCPT-LIFE-003", newSharing(shareValueBytes)},
	{"Get hands out its cached ttl pointer", "MCPT-LIFE-003", newSharing(shareTTL)},
	{"List copies the variables map but not the values' bytes", "MCPT-LIFE-003", newSharing(shareListBytes)},
	{"Result copies the outcome but not the result bytes", "MCPT-LIFE-003", newSharing(shareResultBytes)},
	{"Result copies the error but not its data bytes", "MCPT-LIFE-003", newSharing(shareErrorData)},
	{"Result copies the outcome but not the error", "MCPT-LIFE-003", newSharing(shareErrorStruct)},
	{"Create keeps the caller's variables map", "MCPT-LIFE-007", newRetaining(retainCreateVars)},
	{"SetVariables keeps the caller's value bytes", "MCPT-LIFE-007", newRetaining(retainPatch)},
	{"Complete keeps the caller's result bytes", "MCPT-LIFE-007", newRetaining(retainResult)},
	{"Complete keeps the caller's error", "MCPT-LIFE-007", newRetaining(retainError)},
	{"Create keeps the caller's ttl pointer", "MCPT-LIFE-007", newRetaining(retainTTL)},
}

// Mutants that change outcome or variable bytes on the way through.
var exactMutants = []mutant{
	{"outcomes decoded into any (float64 numbers)", "MCPT-RES-004", func(cfg tasks.Config) tasks.Store {
		return outcomeRewrite{track(cfg), func(o *tasks.Outcome) {
			o.Result = reencode(o.Result, false)
			if o.Error != nil {
				o.Error.Data = reencode(o.Error.Data, false)
			}
		}}
	}},
	{"outcomes re-encoded with exact numbers but sorted keys", "MCPT-RES-004", func(cfg tasks.Config) tasks.Store {
		return outcomeRewrite{track(cfg), func(o *tasks.Outcome) { o.Result = reencode(o.Result, true) }}
	}},
	{"error data compacted", "MCPT-RES-004", func(cfg tasks.Config) tasks.Store {
		return outcomeRewrite{track(cfg), func(o *tasks.Outcome) {
			if o.Error != nil && o.Error.Data != nil {
				var b bytes.Buffer
				if json.Compact(&b, o.Error.Data) == nil {
					o.Error.Data = b.Bytes()
				}
			}
		}}
	}},
	{"error codes stored in 32 bits", "MCPT-RES-004", func(cfg tasks.Config) tasks.Store {
		return outcomeRewrite{track(cfg), func(o *tasks.Outcome) {
			if o.Error != nil && (o.Error.Code > math.MaxInt32 || o.Error.Code < math.MinInt32) {
				o.Error.Code = int64(int32(o.Error.Code))
			}
		}}
	}},
	{"error data dropped", "MCPT-RES-002", func(cfg tasks.Config) tasks.Store {
		return outcomeRewrite{track(cfg), func(o *tasks.Outcome) {
			if o.Error != nil {
				o.Error.Data = nil
			}
		}}
	}},
	{"variable values decoded into any (float64 numbers)", "MCPT-VAR-006", func(cfg tasks.Config) tasks.Store {
		return varRewrite{track(cfg), func(v json.RawMessage) json.RawMessage { return reencode(v, false) }}
	}},
}

// Kinds of sharing a caching store gets wrong.
const (
	shareMap = iota
	shareValueBytes
	shareTTL
	shareListBytes
	shareResultBytes
	shareErrorData
	shareErrorStruct
)

// sharing keeps the last record it handed out per task and, while the
// task has not changed, hands it out again with too shallow a copy.
type sharing struct {
	*tracker
	mode  int
	mu    sync.Mutex
	cache map[string]tasks.Record
}

func newSharing(mode int) func(tasks.Config) tasks.Store {
	return func(cfg tasks.Config) tasks.Store {
		return &sharing{tracker: track(cfg), mode: mode, cache: map[string]tasks.Record{}}
	}
}

// cached returns r, or the cached record of the same version, shallowly
// copied as the mode says.
func (s *sharing) cached(r tasks.Record) tasks.Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.cache[r.ID]
	if !ok || c.Version != r.Version || (c.Outcome == nil) != (r.Outcome == nil) {
		s.cache[r.ID] = r
		c = r
	}
	switch s.mode {
	case shareValueBytes, shareListBytes:
		c.Variables = maps.Clone(c.Variables)
		c.TTL = cloneTTL(c.TTL)
	case shareTTL:
		c.Variables = r.Clone().Variables
	case shareResultBytes:
		if c.Outcome != nil {
			o := *c.Outcome
			o.Error = r.Clone().Outcome.Error
			c.Outcome = &o
		}
	case shareErrorData:
		if c.Outcome != nil && c.Outcome.Error != nil {
			o := *c.Outcome
			e := *o.Error
			o.Error = &e
			c.Outcome = &o
		}
	case shareErrorStruct:
		if c.Outcome != nil {
			o := *c.Outcome
			o.Result = r.Clone().Outcome.Result
			c.Outcome = &o
		}
	}
	return c
}

func cloneTTL(d *time.Duration) *time.Duration {
	if d == nil {
		return nil
	}
	v := *d
	return &v
}

func (s *sharing) Get(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	r, err := s.tracker.Get(ctx, owner, id)
	if err != nil || s.mode > shareTTL {
		return r, err
	}
	return s.cached(r), nil
}

func (s *sharing) List(ctx context.Context, owner tasks.Owner, opts tasks.ListOptions) (tasks.Page, error) {
	page, err := s.tracker.List(ctx, owner, opts)
	if err != nil || s.mode != shareListBytes {
		return page, err
	}
	for i := range page.Tasks {
		page.Tasks[i] = s.cached(page.Tasks[i])
	}
	return page, nil
}

func (s *sharing) Result(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	r, err := s.tracker.Result(ctx, owner, id)
	if err != nil || s.mode < shareResultBytes {
		return r, err
	}
	return s.cached(r), nil
}

// What a retaining store keeps of its caller's arguments.
const (
	retainCreateVars = iota
	retainPatch
	retainResult
	retainError
	retainTTL
)

// retaining keeps references to its callers' arguments instead of copies
// and shows whatever they hold now.
type retaining struct {
	*tracker
	mode   int
	mu     sync.Mutex
	vars   map[string]map[string]json.RawMessage
	ttls   map[string]*time.Duration
	result map[string]json.RawMessage
	errs   map[string]*tasks.RPCError
}

func newRetaining(mode int) func(tasks.Config) tasks.Store {
	return func(cfg tasks.Config) tasks.Store {
		s := &retaining{tracker: track(cfg), mode: mode, vars: map[string]map[string]json.RawMessage{},
			ttls: map[string]*time.Duration{}, result: map[string]json.RawMessage{}, errs: map[string]*tasks.RPCError{}}
		s.out = s.show
		return s
	}
}

func (s *retaining) show(r *tasks.Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.vars[r.ID]; ok {
		if r.Variables == nil {
			r.Variables = map[string]json.RawMessage{}
		}
		for k, v := range m {
			if !bytes.Equal(v, []byte("null")) {
				r.Variables[k] = v
			}
		}
	}
	if d, ok := s.ttls[r.ID]; ok {
		r.TTL = d
	}
	if r.Outcome != nil {
		if b, ok := s.result[r.ID]; ok {
			r.Outcome.Result = b
		}
		if e, ok := s.errs[r.ID]; ok {
			r.Outcome.Error = e
		}
	}
}

func (s *retaining) Create(ctx context.Context, owner tasks.Owner, p tasks.CreateParams) (tasks.Record, error) {
	r, err := s.inner.Create(ctx, owner, p)
	if err == nil {
		s.mu.Lock()
		if s.mode == retainCreateVars && p.Variables != nil {
			s.vars[r.ID] = p.Variables
		}
		if s.mode == retainTTL && p.TTL != nil {
			s.ttls[r.ID] = p.TTL
		}
		s.mu.Unlock()
	}
	return s.seen(r, err)
}

func (s *retaining) SetVariables(ctx context.Context, owner tasks.Owner, id string, patch map[string]json.RawMessage) (tasks.Record, error) {
	r, err := s.inner.SetVariables(ctx, owner, id, patch)
	if err == nil {
		s.mu.Lock()
		delete(s.vars, id)
		if s.mode == retainPatch {
			s.vars[id] = patch
		}
		s.mu.Unlock()
	}
	return s.seen(r, err)
}

func (s *retaining) Complete(ctx context.Context, owner tasks.Owner, id string, st tasks.Status, msg string, o tasks.Outcome) (tasks.Record, error) {
	r, err := s.tracker.Complete(ctx, owner, id, st, msg, o)
	if err == nil {
		s.mu.Lock()
		if s.mode == retainResult && o.Result != nil {
			s.result[id] = o.Result
		}
		if s.mode == retainError && o.Error != nil {
			s.errs[id] = o.Error
		}
		s.mu.Unlock()
	}
	return r, err
}

// reencode decodes b and encodes it again, as a store that keeps JSON as
// Go values does; exact keeps numbers as written (json.Number).
func reencode(b json.RawMessage, exact bool) json.RawMessage {
	if b == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if exact {
		dec.UseNumber()
	}
	var v any
	if err := dec.Decode(&v); err != nil {
		return b
	}
	out, err := json.Marshal(v)
	if err != nil {
		return b
	}
	return out
}

// outcomeRewrite changes the outcome before storing it.
type outcomeRewrite struct {
	*tracker
	f func(o *tasks.Outcome)
}

func (s outcomeRewrite) Complete(ctx context.Context, owner tasks.Owner, id string, st tasks.Status, msg string, o tasks.Outcome) (tasks.Record, error) {
	o = o.Clone()
	s.f(&o)
	return s.tracker.Complete(ctx, owner, id, st, msg, o)
}

// varRewrite changes every variable value before storing it.
type varRewrite struct {
	*tracker
	f func(json.RawMessage) json.RawMessage
}

func (s varRewrite) rewrite(m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		out[k] = s.f(v)
	}
	return out
}

func (s varRewrite) Create(ctx context.Context, owner tasks.Owner, p tasks.CreateParams) (tasks.Record, error) {
	p.Variables = s.rewrite(p.Variables)
	return s.tracker.Create(ctx, owner, p)
}

func (s varRewrite) SetVariables(ctx context.Context, owner tasks.Owner, id string, patch map[string]json.RawMessage) (tasks.Record, error) {
	return s.tracker.SetVariables(ctx, owner, id, s.rewrite(patch))
}
