package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

// notifyChannel is the channel the migration's trigger notifies on; the
// payload is the task id, or notifyAll for "recheck every task".
const (
	notifyChannel = "mcptasks_task_changed"
	notifyAll     = "*"
)

// Wait blocks until the task's Version exceeds after. It registers for the
// task's notifications before reading it, so a change between the read and
// the wait is never missed; notifications cover changes into
// input_required or a terminal status, and a poll at Config.PollInterval
// covers every other change, expiry, and any time the listening
// connection is down.
func (s *Store) Wait(ctx context.Context, owner tasks.Owner, id string, after int64) (tasks.Record, error) {
	if err := s.checkTask(ctx, "wait", owner, id); err != nil {
		return tasks.Record{}, err
	}
	l := s.startListener()
	if l == nil {
		return tasks.Record{}, &tasks.Error{Op: "wait", TaskID: id, Err: ErrClosed}
	}
	// Registered once for the whole wait: the channel keeps one pending
	// wake-up, so nothing is lost between two reads.
	ch, unregister := l.register(id)
	defer unregister()
	return storekit.Poller{
		Interval: s.cfg.PollInterval,
		Check:    func(ctx context.Context) error { return s.check(ctx, "wait") },
		Read: func(ctx context.Context) (tasks.Record, error) {
			return s.read(ctx, "wait", owner, id, s.cfg.Now(), false)
		},
		Watch: func() (<-chan struct{}, func()) { return ch, func() {} },
		Done:  l.done,
	}.Wait(ctx, after)
}

// startListener returns the store's listener, starting it on first use;
// nil once the store is closed.
func (s *Store) startListener() *listener {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	if s.closed.Load() {
		return nil
	}
	if s.listener == nil {
		s.listener = newListener(s)
	}
	return s.listener
}

// listener holds one dedicated connection that LISTENs on notifyChannel
// and wakes the waiters of the task each notification names. When the
// connection fails it reconnects with backoff, waking every waiter after
// reconnecting because notifications may have been lost meanwhile.
type listener struct {
	s      *Store
	cancel context.CancelFunc
	done   chan struct{} // closed when the listener has stopped for good
	exited chan struct{}

	mu      sync.Mutex
	waiters map[string]map[chan struct{}]struct{}
}

func newListener(s *Store) *listener {
	ctx, cancel := context.WithCancel(context.Background())
	l := &listener{s: s, cancel: cancel, done: make(chan struct{}), exited: make(chan struct{}),
		waiters: make(map[string]map[chan struct{}]struct{})}
	go l.run(ctx)
	return l
}

// register subscribes to id's notifications. The channel has room for one
// pending wake-up, so a notification is never lost between two reads.
func (l *listener) register(id string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	l.mu.Lock()
	set := l.waiters[id]
	if set == nil {
		set = make(map[chan struct{}]struct{})
		l.waiters[id] = set
	}
	set[ch] = struct{}{}
	l.mu.Unlock()
	return ch, func() {
		l.mu.Lock()
		delete(set, ch)
		if len(set) == 0 {
			// set is still l.waiters[id]: entries are removed only here,
			// when they become empty, under the same lock.
			delete(l.waiters, id)
		}
		l.mu.Unlock()
	}
}

// wake signals the waiters of id, or of every task for notifyAll.
func (l *listener) wake(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	signal := func(set map[chan struct{}]struct{}) {
		for ch := range set {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
	if id == notifyAll {
		for _, set := range l.waiters {
			signal(set)
		}
		return
	}
	signal(l.waiters[id])
}

func (l *listener) run(ctx context.Context) {
	defer close(l.exited)
	backoff := 50 * time.Millisecond
	for ctx.Err() == nil {
		err := l.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		l.s.log.Warn("postgres store: LISTEN connection lost; waiters fall back to polling until it is back",
			"error", err, "retry_in", backoff)
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

// listenOnce connects, LISTENs and dispatches until the connection fails.
func (l *listener) listenOnce(ctx context.Context) error {
	cfg := l.s.pool.Config().ConnConfig.Copy()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		return err
	}
	// Anything may have changed while we were not listening.
	l.wake(notifyAll)
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		l.wake(n.Payload)
	}
}

// stop ends the listener and wakes every waiter (they then see ErrClosed).
func (l *listener) stop() {
	l.cancel()
	<-l.exited
	close(l.done)
}
