package server

import (
	"container/heap"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/mcptasks/mcptasks/tasks"
)

// Task limits of one server instance applied when no option sets them.
// They come on top of the store's per-owner cap on active tasks
// (tasks.Config.MaxTasksPerOwner), which anonymous requestors could
// otherwise multiply by opening sessions.
const (
	// DefaultMaxActiveTasks caps the tasks whose work runs on this
	// server at the same time, for all requestors together.
	DefaultMaxActiveTasks = 1_000
	// DefaultMaxRetainedTasksPerOwner caps the tasks, finished or not,
	// that one owner created through this server and that have not
	// expired yet.
	DefaultMaxRetainedTasksPerOwner = 1_000
	// DefaultMaxRetainedTasks caps the unexpired tasks created through
	// this server, for all owners together.
	DefaultMaxRetainedTasks = 100_000
)

// WithMaxActiveTasks caps the tasks whose work runs on this server at the
// same time, whoever created them. A tools/call past the cap fails with
// CodeLimitExceeded. Zero keeps DefaultMaxActiveTasks; negative: no cap.
func WithMaxActiveTasks(n int) Option {
	return func(s *Server) {
		if n != 0 {
			s.maxActive = n
		}
	}
}

// WithMaxRetainedTasks caps the tasks created through this server that
// have not expired yet, finished ones included: perOwner for one owner,
// total for all owners. A task-augmented tools/call past a cap fails with
// CodeLimitExceeded; finished tasks are never dropped to make room, so a
// result stays fetchable until its ttl ends. Zero keeps the default
// (DefaultMaxRetainedTasksPerOwner, DefaultMaxRetainedTasks); negative: no
// cap. Tasks with an unlimited ttl count for ever.
func WithMaxRetainedTasks(perOwner, total int) Option {
	return func(s *Server) {
		if perOwner != 0 {
			s.retained.perOwner = perOwner
		}
		if total != 0 {
			s.retained.total = total
		}
	}
}

// CodeLimitExceeded is the JSON-RPC error code of a refusal for a limit:
// too many tasks or too many sessions. See tasks.CodeLimitExceeded.
const CodeLimitExceeded = tasks.CodeLimitExceeded

func limitErr(msg string) *tasks.RPCError { return rpcErr(CodeLimitExceeded, msg) }

// logRefusal logs a limit refusal: at warning level for the first one and
// every 1000th (with the running count), at debug level otherwise, so a
// flood of refused requests cannot flood the log too.
func (s *Server) logRefusal(msg string, attrs ...any) {
	n := s.refusals.Add(1)
	attrs = append(attrs, "refusals_so_far", n)
	if n == 1 || n%1000 == 0 {
		s.log.Warn(msg, attrs...)
		return
	}
	s.log.Debug(msg, attrs...)
}

// activeSlots counts the tasks whose work runs on this server.
type activeSlots struct {
	n atomic.Int64
}

// acquire takes a slot unless max (> 0) are taken.
func (a *activeSlots) acquire(max int) bool {
	if max <= 0 {
		a.n.Add(1)
		return true
	}
	for {
		cur := a.n.Load()
		if cur >= int64(max) {
			return false
		}
		if a.n.CompareAndSwap(cur, cur+1) {
			return true
		}
	}
}

func (a *activeSlots) release() { a.n.Add(-1) }

// expiry is one retained task: when it expires (unix ms) and whose it is.
type expiry struct {
	at    int64
	owner tasks.Owner
}

// expiryHeap is a min-heap of expiries, soonest first.
type expiryHeap []expiry

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].at < h[j].at }
func (h expiryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap) Push(x any)        { *h = append(*h, x.(expiry)) }
func (h *expiryHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// retainedTasks counts, per owner and in total, the tasks created through
// this server that have not expired. It keeps only each task's expiry time
// and owner, in one heap, so forgetting expired tasks costs O(log n) each
// and owners without unexpired tasks take no memory.
type retainedTasks struct {
	perOwner, total int

	mu     sync.Mutex
	all    expiryHeap
	owners map[tasks.Owner]int
}

// pruneLocked forgets the tasks expired at now (unix ms).
func (r *retainedTasks) pruneLocked(now int64) {
	for len(r.all) > 0 && r.all[0].at <= now {
		e := heap.Pop(&r.all).(expiry)
		if n := r.owners[e.owner] - 1; n > 0 {
			r.owners[e.owner] = n
		} else {
			delete(r.owners, e.owner)
		}
	}
}

// check returns a limit error when owner may not create one more task at
// time now (unix ms).
func (r *retainedTasks) check(owner tasks.Owner, now int64) error {
	if r.perOwner <= 0 && r.total <= 0 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pruneLocked(now)
	if r.total > 0 && len(r.all) >= r.total {
		return limitErr(fmt.Sprintf("task limit reached: this server keeps %d unexpired tasks, its limit for all requestors; retry when some expire", r.total))
	}
	if r.perOwner > 0 && r.owners[owner] >= r.perOwner {
		return limitErr(fmt.Sprintf("task limit reached: you already have %d unexpired tasks (finished ones included), the limit per requestor; retry when some expire", r.perOwner))
	}
	return nil
}

// add records a created task.
func (r *retainedTasks) add(rec tasks.Record) {
	if r.perOwner <= 0 && r.total <= 0 {
		return
	}
	at := int64(math.MaxInt64)
	if rec.TTL != nil {
		at = rec.ExpiresAt.UnixMilli()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	heap.Push(&r.all, expiry{at: at, owner: rec.Owner})
	r.owners[rec.Owner]++
}

// count reports the unexpired tasks recorded (for tests and metrics).
func (r *retainedTasks) count(now int64) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pruneLocked(now)
	return len(r.all)
}

// DefaultMaxWaitingPerIdentity caps the HTTP requests of one identity that
// may wait at the same time: tools/call and tasks/result in progress and
// open GET streams. Each holds a connection, so without it one client
// could occupy every connection the listener allows.
const DefaultMaxWaitingPerIdentity = 256

// WithMaxWaitingPerIdentity caps the HTTP requests one identity (bearer
// subject, or client IP without a token) may have waiting at once:
// tools/call and tasks/result calls in progress and open GET streams. A
// call past the cap fails with CodeLimitExceeded, a GET with HTTP 429.
// Zero keeps DefaultMaxWaitingPerIdentity; negative removes the cap.
// Stdio is not affected.
func WithMaxWaitingPerIdentity(n int) Option {
	return func(s *Server) {
		if n != 0 {
			s.waiting.max = n
		}
	}
}

// identSlots counts waiting requests per identity.
type identSlots struct {
	max int

	mu sync.Mutex
	n  map[string]int
}

// acquire takes a slot for ident ("" is never counted); the returned
// release must be called once. ok is false at the cap.
func (w *identSlots) acquire(ident string) (release func(), ok bool) {
	if ident == "" || w.max <= 0 {
		return func() {}, true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n[ident] >= w.max {
		return nil, false
	}
	w.n[ident]++
	var once sync.Once
	return func() {
		once.Do(func() {
			w.mu.Lock()
			defer w.mu.Unlock()
			if v := w.n[ident] - 1; v > 0 {
				w.n[ident] = v
			} else {
				delete(w.n, ident)
			}
		})
	}, true
}

func waitingLimitErr(max int) *tasks.RPCError {
	return limitErr(fmt.Sprintf("request limit reached: you already have %d requests waiting (tools/call, tasks/result, GET streams); let some finish first", max))
}
