package redis

import (
	"context"
	"sync"

	goredis "github.com/redis/go-redis/v9"
)

// hub shares one Redis pub/sub connection among every Wait of a Store:
// it subscribes to a task's channel while at least one Wait watches it and
// turns each message into the closing of a Go channel.
type hub struct {
	client *goredis.Client

	mu     sync.Mutex
	ps     *goredis.PubSub // nil until the first watch, and after close
	subs   map[string]*sub
	closed bool
}

// sub is one subscribed channel.
type sub struct {
	waiters   int
	ready     chan struct{} // closed once Redis confirmed the subscription
	readyDone bool
	changed   chan struct{} // closed and replaced on every message
}

func newHub(c *goredis.Client) *hub {
	return &hub{client: c, subs: make(map[string]*sub)}
}

// watch subscribes to channel (once for all its watchers) and returns the
// subscription; call unwatch when done. The subscription may not be
// confirmed yet: wait on ready.
func (h *hub) watch(ctx context.Context, channel string) (*sub, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, goredis.ErrClosed
	}
	if s := h.subs[channel]; s != nil {
		s.waiters++
		return s, nil
	}
	s := &sub{waiters: 1, ready: make(chan struct{}), changed: make(chan struct{})}
	if h.ps == nil {
		h.ps = h.client.Subscribe(ctx)
		go h.receive(h.ps.ChannelWithSubscriptions())
	}
	if err := h.ps.Subscribe(ctx, channel); err != nil {
		// go-redis remembers the channel even when the command failed;
		// forget it so a reconnect does not subscribe to it again.
		_ = h.ps.Unsubscribe(context.WithoutCancel(ctx), channel)
		return nil, err
	}
	h.subs[channel] = s
	return s, nil
}

// unwatch drops one watcher of channel, unsubscribing after the last.
func (h *hub) unwatch(channel string, s *sub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s.waiters--
	if s.waiters > 0 || h.subs[channel] != s {
		return
	}
	delete(h.subs, channel)
	if h.ps != nil && !h.closed {
		_ = h.ps.Unsubscribe(context.Background(), channel)
	}
}

// current returns the channel closed by the next message.
func (h *hub) current(s *sub) <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return s.changed
}

// receive dispatches pub/sub traffic until the connection is closed.
// go-redis reconnects on its own and subscribes again to every channel;
// those confirmations wake the channel's waiters, who reread the task.
func (h *hub) receive(msgs <-chan any) {
	for m := range msgs {
		h.mu.Lock()
		switch m := m.(type) {
		case *goredis.Subscription:
			s := h.subs[m.Channel]
			switch {
			case s == nil || m.Kind != "subscribe":
			case !s.readyDone:
				s.readyDone = true
				close(s.ready)
			default:
				// Subscribed again after a reconnect: a change made while
				// the connection was down was not delivered, so make the
				// waiters read the task again.
				close(s.changed)
				s.changed = make(chan struct{})
			}
		case *goredis.Message:
			if s := h.subs[m.Channel]; s != nil {
				close(s.changed)
				s.changed = make(chan struct{})
			}
		}
		h.mu.Unlock()
	}
}

// close ends the shared connection; waiters fall back to polling and see
// the closed client's errors.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	if h.ps != nil {
		_ = h.ps.Close()
		h.ps = nil
	}
}
