package protocol

import (
	"container/heap"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/mcptasks/mcptasks/tasks"
)

// Task limits of one Core applied when no option sets them.
// They come on top of the store's per-owner cap on active tasks
// (tasks.Config.MaxTasksPerOwner), which anonymous requestors could
// otherwise multiply by opening sessions.
const (
	// DefaultMaxActiveTasks caps the tasks whose work runs on this
	// server at the same time, for all requestors together.
	DefaultMaxActiveTasks = 1_000
	// DefaultMaxRetainedTasksPerOwner caps the tasks, finished or not,
	// that one owner created through this Core and that have not
	// expired yet.
	DefaultMaxRetainedTasksPerOwner = 1_000
	// DefaultMaxRetainedTasks caps the unexpired tasks created through
	// this process, for all owners together.
	DefaultMaxRetainedTasks = 100_000
)

// WithMaxActiveTasks caps the tasks whose work runs in this process at the
// same time, whoever created them. A task-augmented tools/call past the cap
// fails with CodeLimitExceeded. Zero keeps DefaultMaxActiveTasks;
// negative: no cap.
func WithMaxActiveTasks(n int) Option {
	return func(c *Core) {
		if n != 0 {
			c.maxActive = n
		}
	}
}

// WithMaxRetainedTasks caps the tasks created through this Core that
// have not expired yet, finished ones included: perOwner for one owner,
// total for all owners. A task-augmented tools/call past a cap fails with
// CodeLimitExceeded; finished tasks are never dropped to make room, so a
// result stays fetchable until its ttl ends. Zero keeps the default
// (DefaultMaxRetainedTasksPerOwner, DefaultMaxRetainedTasks); negative: no
// cap. Tasks with an unlimited ttl count for ever.
func WithMaxRetainedTasks(perOwner, total int) Option {
	return func(c *Core) {
		if perOwner != 0 {
			c.retained.perOwner = perOwner
		}
		if total != 0 {
			c.retained.total = total
		}
	}
}

// LimitError returns the JSON-RPC error of a refusal for a limit, with
// code CodeLimitExceeded and msg as its message.
func LimitError(msg string) *tasks.RPCError { return rpcErr(CodeLimitExceeded, msg) }

// LogRefusal logs a limit refusal: at warning level for the first one and
// every 1000th (with the running count), at debug level otherwise, so a
// flood of refused requests cannot flood the log too. Transports log their
// own refusals (sessions, connections) through it so that one count and
// one sampling cover them all.
func (c *Core) LogRefusal(msg string, attrs ...any) {
	n := c.refusals.Add(1)
	attrs = append(attrs, "refusals_so_far", n)
	if n == 1 || n%1000 == 0 {
		c.log.Warn(msg, attrs...)
		return
	}
	c.log.Debug(msg, attrs...)
}

// activeSlots counts the tasks whose work runs on this process.
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
// this process that have not expired. It keeps only each task's expiry time
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
		return LimitError(fmt.Sprintf("task limit reached: this process keeps %d unexpired tasks, its limit for all requestors; retry when some expire", r.total))
	}
	if r.perOwner > 0 && r.owners[owner] >= r.perOwner {
		return LimitError(fmt.Sprintf("task limit reached: you already have %d unexpired tasks (finished ones included), the limit per requestor; retry when some expire", r.perOwner))
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
