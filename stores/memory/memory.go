// Package memory is the reference tasks.Store: every task lives in process
// memory behind one RWMutex. Each owner has an ordered index so List costs
// O(page) whatever the number of tasks; expired tasks vanish from every
// read at once and are freed by DeleteExpired (or when their owner's task
// limit is reached). Wait is push based: each task has a change channel
// that is closed and replaced whenever its Version grows.
package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

// ErrClosed is returned by every method of a Store after Close.
var ErrClosed = fmt.Errorf("memory: %w", tasks.ErrStoreClosed)

// Store is the in-memory tasks.Store. The zero value is not usable; call New.
type Store struct {
	cfg tasks.Config

	mu     sync.RWMutex
	byID   map[taskKey]*entry
	owners map[tasks.Owner]*ownerState
	closed bool
}

// entry is one task. changed is created only while someone waits, so idle
// tasks carry no channel.
type entry struct {
	rec     tasks.Record
	ttl     time.Duration // rec.TTL points here when the task has one
	outcome tasks.Outcome // rec.Outcome points here once the task ended
	changed chan struct{}
}

// taskKey is a task id in binary form: the map key, so a lookup compares
// 16 bytes in place instead of following a string.
type taskKey [16]byte

// parseKey reads an id in the canonical form storekit.NewID produces (36
// characters, lower-case hex, hyphens at 8, 13, 18 and 23). Anything else
// cannot name a task of this store.
func parseKey(id string) (taskKey, bool) {
	var k taskKey
	if len(id) != 36 || id[8] != '-' || id[13] != '-' || id[18] != '-' || id[23] != '-' {
		return k, false
	}
	// One table lookup per digit and a single check at the end: this runs
	// on every create, read and write of a task.
	var bad byte
	for n, at := range keyDigitPairs {
		hi, lo := hexValue[id[at]], hexValue[id[at+1]]
		bad |= hi | lo
		k[n] = hi<<4 | lo
	}
	return k, bad&0xf0 == 0
}

// keyDigitPairs are the offsets of the 16 two-digit bytes of a canonical
// id.
var keyDigitPairs = [16]uint8{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

// hexValue maps a lower-case hex digit to its value and any other byte to
// 0xff.
var hexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := byte('0'); c <= '9'; c++ {
		t[c] = c - '0'
	}
	for c := byte('a'); c <= 'f'; c++ {
		t[c] = c - 'a' + 10
	}
	return t
}()

// ownerState holds one owner's ordered tasks and how many are active.
type ownerState struct {
	idx    index
	active int
}

var _ tasks.ImmediateStore = (*Store)(nil)

// New returns an empty store enforcing cfg (defaults applied).
func New(cfg tasks.Config) *Store {
	return &Store{
		cfg:    cfg.WithDefaults(),
		byID:   make(map[taskKey]*entry),
		owners: make(map[tasks.Owner]*ownerState),
	}
}

func notFound(op, id string) error {
	return &tasks.Error{Op: op, TaskID: id, Err: tasks.ErrNotFound}
}

func expired(op, id string) error {
	return &tasks.Error{Op: op, TaskID: id, Err: tasks.ErrExpired}
}

func closedErr(op string) error {
	return &tasks.Error{Op: op, Err: ErrClosed}
}

// lookup finds a visible task of owner; the caller holds s.mu.
func (s *Store) lookup(op string, owner tasks.Owner, id string, now time.Time) (*entry, error) {
	if s.closed {
		return nil, closedErr(op)
	}
	k, ok := parseKey(id)
	if !ok {
		return nil, notFound(op, id)
	}
	e, ok := s.byID[k]
	if !ok || e.rec.Owner != owner {
		return nil, notFound(op, id)
	}
	if e.rec.Expired(now) {
		return nil, expired(op, id)
	}
	return e, nil
}

// touch records a change of e: a new Version and LastUpdatedAt, and a
// wake-up for every waiter. The caller holds s.mu for writing.
func touch(e *entry, now time.Time) {
	e.rec.Version++
	if now.After(e.rec.LastUpdatedAt) {
		e.rec.LastUpdatedAt = now
	}
	if e.changed != nil {
		close(e.changed)
		e.changed = nil
	}
}

// view is the copy of a record handed to callers of Get, List and the
// mutating methods: the outcome is left out, Result fills it.
func view(e *entry) tasks.Record {
	r := e.rec
	r.Outcome = nil
	return r.Clone()
}

// cloneVars copies a variables map and every value's bytes, so a caller
// writing into a listed record's values cannot reach the stored ones.
func cloneVars(vars map[string]json.RawMessage) map[string]json.RawMessage {
	if vars == nil {
		return nil
	}
	out := make(map[string]json.RawMessage, len(vars))
	for k, v := range vars {
		out[k] = append(make(json.RawMessage, 0, len(v)), v...)
	}
	return out
}

// Create stores a new working task for owner.
func (s *Store) Create(ctx context.Context, owner tasks.Owner, p tasks.CreateParams) (tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return tasks.Record{}, err
	}
	rec, err := storekit.NewRecord(s.cfg, owner, p)
	if err != nil {
		return tasks.Record{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return tasks.Record{}, closedErr("create")
	}
	os := s.owners[owner]
	if os == nil {
		os = &ownerState{}
		s.owners[owner] = os
	}
	if limit := s.cfg.MaxTasksPerOwner; limit > 0 && os.active >= limit {
		s.purgeOwner(owner, os, s.cfg.Now())
		if os.active >= limit {
			return tasks.Record{}, &tasks.Error{Op: "create", Err: tasks.ErrLimit,
				Detail: "the owner already has the maximum number of active tasks"}
		}
	}
	k, ok := parseKey(rec.ID)
	if !ok {
		return tasks.Record{}, &tasks.Error{Op: "create", TaskID: rec.ID, Err: errors.New("task id is not a canonical UUID")}
	}
	e := &entry{rec: rec}
	if rec.TTL != nil {
		// Keep the TTL inside the entry: one allocation less per task and
		// no extra pointer to chase on reads.
		e.ttl = *rec.TTL
		e.rec.TTL = &e.ttl
	}
	s.byID[k] = e
	os.idx.insert(e)
	os.active++
	return view(e), nil
}

// purgeOwner removes the owner's expired tasks in one pass over its
// index. The caller holds s.mu for writing.
func (s *Store) purgeOwner(_ tasks.Owner, os *ownerState, now time.Time) int {
	n := 0
	os.idx.removeWhere(func(e *entry) bool {
		if !e.rec.Expired(now) {
			return false
		}
		s.dropLocked(os, e)
		n++
		return true
	})
	return n
}

// dropLocked deletes e from the id map and its owner's counts and wakes
// its waiters; the caller removes it from the index.
func (s *Store) dropLocked(os *ownerState, e *entry) {
	if k, ok := parseKey(e.rec.ID); ok {
		delete(s.byID, k)
	}
	if !e.rec.Status.Terminal() {
		os.active--
	}
	if e.changed != nil {
		close(e.changed)
		e.changed = nil
	}
}

// Get returns the task.
func (s *Store) Get(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return tasks.Record{}, err
	}
	now := s.cfg.Now()
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, err := s.lookup("get", owner, id, now)
	if err != nil {
		return tasks.Record{}, err
	}
	return view(e), nil
}

// Transition moves a task between working and input_required.
func (s *Store) Transition(ctx context.Context, owner tasks.Owner, id string, to tasks.Status, message string) (tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return tasks.Record{}, err
	}
	now := s.cfg.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.lookup("transition", owner, id, now)
	if err != nil {
		return tasks.Record{}, err
	}
	if err := storekit.CheckTransition(e.rec, to); err != nil {
		return tasks.Record{}, err
	}
	e.rec.Status = to
	e.rec.StatusMessage = message
	touch(e, now)
	return view(e), nil
}

// SetVariables merges patch into the task's variables.
func (s *Store) SetVariables(ctx context.Context, owner tasks.Owner, id string, patch map[string]json.RawMessage) (tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return tasks.Record{}, err
	}
	now := s.cfg.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.lookup("set variables", owner, id, now)
	if err != nil {
		return tasks.Record{}, err
	}
	vars, err := storekit.MergeVariables(e.rec.Variables, patch, s.cfg.MaxVariablesBytes)
	if err != nil {
		return tasks.Record{}, &tasks.Error{Op: "set variables", TaskID: id, Status: e.rec.Status, Err: err}
	}
	e.rec.Variables = vars
	touch(e, now)
	return view(e), nil
}

// Complete ends the task as completed or failed with its outcome, in one
// step under the lock.
func (s *Store) Complete(ctx context.Context, owner tasks.Owner, id string, status tasks.Status, message string, outcome tasks.Outcome) (tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return tasks.Record{}, err
	}
	now := s.cfg.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.lookup("complete", owner, id, now)
	if err != nil {
		return tasks.Record{}, err
	}
	if err := storekit.CheckComplete(e.rec, status, outcome); err != nil {
		return tasks.Record{}, err
	}
	s.finish(e, status, message, outcome, now)
	return view(e), nil
}

// finish moves e to a terminal status with its outcome.
func (s *Store) finish(e *entry, status tasks.Status, message string, o tasks.Outcome, now time.Time) {
	o.Result = append(json.RawMessage(nil), o.Result...)
	if o.Error != nil {
		cp := *o.Error
		cp.Data = append(json.RawMessage(nil), cp.Data...)
		o.Error = &cp
	}
	if len(o.Result) == 0 {
		o.Result = nil
	}
	if o.Error != nil && len(o.Error.Data) == 0 {
		o.Error.Data = nil
	}
	e.rec.Status = status
	e.rec.StatusMessage = message
	// Kept inside the entry, like the TTL: one allocation less per task.
	// Readers only ever get a deep copy (Result clones it).
	e.outcome = o
	e.rec.Outcome = &e.outcome
	if os := s.owners[e.rec.Owner]; os != nil {
		os.active--
	}
	touch(e, now)
}

// Result returns the task with its outcome once it is terminal.
func (s *Store) Result(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return tasks.Record{}, err
	}
	now := s.cfg.Now()
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, err := s.lookup("result", owner, id, now)
	if err != nil {
		return tasks.Record{}, err
	}
	if !e.rec.Status.Terminal() {
		return tasks.Record{}, &tasks.Error{Op: "result", TaskID: id, Status: e.rec.Status, Err: tasks.ErrNotReady}
	}
	return e.rec.Clone(), nil
}

// List returns one page of the owner's visible tasks in (CreatedAt, ID)
// order.
func (s *Store) List(ctx context.Context, owner tasks.Owner, opts tasks.ListOptions) (tasks.Page, error) {
	if err := ctx.Err(); err != nil {
		return tasks.Page{}, err
	}
	var from *storekit.Cursor
	if opts.Cursor != "" {
		c, err := storekit.DecodeCursor(opts.Cursor)
		if err != nil {
			return tasks.Page{}, err
		}
		from = &c
	}
	limit := s.cfg.PageLimit(opts.Limit)
	now := s.cfg.Now()
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return tasks.Page{}, closedErr("list")
	}
	var page tasks.Page
	os := s.owners[owner]
	if os == nil {
		return page, nil
	}
	more := false
	// The page's TTLs share one backing array (never grown past limit, so
	// the pointers stay valid) instead of one allocation per task.
	var ttls []time.Duration
	os.idx.after(from, func(e *entry) bool {
		if e.rec.Expired(now) {
			return true
		}
		if len(page.Tasks) == limit {
			more = true
			return false
		}
		if page.Tasks == nil {
			page.Tasks = make([]tasks.Record, 0, limit)
			ttls = make([]time.Duration, 0, limit)
		}
		r := e.rec
		r.Outcome = nil
		if r.TTL != nil {
			ttls = append(ttls, *r.TTL)
			r.TTL = &ttls[len(ttls)-1]
		}
		r.Variables = cloneVars(r.Variables)
		page.Tasks = append(page.Tasks, r)
		return true
	})
	if more {
		page.NextCursor = storekit.CursorOf(page.Tasks[len(page.Tasks)-1]).Encode()
	}
	return page, nil
}

// Cancel moves a non-terminal task to cancelled.
func (s *Store) Cancel(ctx context.Context, owner tasks.Owner, id string, message string) (tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return tasks.Record{}, err
	}
	now := s.cfg.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.lookup("cancel", owner, id, now)
	if err != nil {
		return tasks.Record{}, err
	}
	if !tasks.CanTransition(e.rec.Status, tasks.StatusCancelled) {
		return tasks.Record{}, &tasks.Error{Op: "cancel", TaskID: id, Status: e.rec.Status,
			Target: tasks.StatusCancelled, Err: tasks.ErrInvalidTransition}
	}
	s.finish(e, tasks.StatusCancelled, message, storekit.CancelledOutcome(message), now)
	return view(e), nil
}

// DeleteExpired removes every expired task and reports how many.
func (s *Store) DeleteExpired(ctx context.Context) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	now := s.cfg.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, closedErr("delete expired")
	}
	n := 0
	for owner, os := range s.owners {
		n += s.purgeOwner(owner, os, now)
		if os.idx.empty() {
			delete(s.owners, owner)
		}
	}
	return n, nil
}

// Wait blocks until the task's Version exceeds after. It wakes on every
// change through the task's change channel and, for tasks with a TTL,
// rechecks at the poll interval so an expiry ends the wait too.
func (s *Store) Wait(ctx context.Context, owner tasks.Owner, id string, after int64) (tasks.Record, error) {
	var tick <-chan time.Time
	for {
		if err := ctx.Err(); err != nil {
			return tasks.Record{}, err
		}
		now := s.cfg.Now()
		s.mu.Lock()
		e, err := s.lookup("wait", owner, id, now)
		if err != nil {
			s.mu.Unlock()
			return tasks.Record{}, err
		}
		if e.rec.Version > after {
			r := view(e)
			s.mu.Unlock()
			return r, nil
		}
		if e.changed == nil {
			e.changed = make(chan struct{})
		}
		ch := e.changed
		hasTTL := !e.rec.ExpiresAt.IsZero()
		s.mu.Unlock()
		if hasTTL && tick == nil {
			t := time.NewTicker(s.cfg.PollInterval)
			defer t.Stop()
			tick = t.C
		}
		select {
		case <-ch:
		case <-tick:
		case <-ctx.Done():
			return tasks.Record{}, ctx.Err()
		}
	}
}

// Immediate reports that the store never blocks on I/O
// (tasks.ImmediateStore), so the engine spends no timeout per write.
func (s *Store) Immediate() bool { return true }

// Close releases the store; later calls fail with ErrClosed and waiters
// wake up with ErrClosed.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	for _, e := range s.byID {
		if e.changed != nil {
			close(e.changed)
			e.changed = nil
		}
	}
	s.byID = nil
	s.owners = nil
	return nil
}
