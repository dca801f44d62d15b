package server

import (
	"container/list"
	"context"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptasks/mcptasks/tasks/wire"
)

// connLimiter is a net.Listener that keeps at most max client connections
// open. Connections that wait (for a first request, for the next one, or
// for the rest of a request being sent) are kept in a list, longest
// waiting first; a new connection past the cap evicts the head of that
// list. Slow or idle clients therefore cannot lock out a client that
// sends its request promptly, and connections whose request is being
// answered are never cut.
type connLimiter struct {
	net.Listener
	max int
	log *slog.Logger

	mu      sync.Mutex
	open    int
	waiting list.List // of *limitedConn

	evicted atomic.Int64
	refused atomic.Int64
}

func newConnLimiter(ln net.Listener, maxConns int, log *slog.Logger) *connLimiter {
	return &connLimiter{Listener: ln, max: maxConns, log: log}
}

// limitedConn is one accepted connection.
type limitedConn struct {
	net.Conn
	l *connLimiter

	// Guarded by l.mu.
	elem    *list.Element // position in l.waiting; nil while answering
	counted bool          // still counted in l.open
}

// Accept returns the next connection, making room for it if needed.
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		var victim *limitedConn
		if l.open >= l.max {
			if front := l.waiting.Front(); front != nil {
				victim = front.Value.(*limitedConn)
				l.forgetLocked(victim)
			}
		}
		if l.open >= l.max {
			l.mu.Unlock()
			l.refuse(c)
			continue
		}
		lc := &limitedConn{Conn: c, l: l, counted: true}
		l.open++
		lc.elem = l.waiting.PushBack(lc)
		l.mu.Unlock()
		if victim != nil {
			l.evicted.Add(1)
			_ = victim.Conn.Close()
		}
		return lc, nil
	}
}

// forgetLocked stops counting c.
func (l *connLimiter) forgetLocked(c *limitedConn) {
	if c.elem != nil {
		l.waiting.Remove(c.elem)
		c.elem = nil
	}
	if c.counted {
		c.counted = false
		l.open--
	}
}

// refusal is the answer written to a connection refused at the cap.
var refusal = func() []byte {
	body := appendError(nil, nil, rpcErr(wire.CodeLimitExceeded, "connection limit reached: every connection is busy; retry shortly"))
	return []byte("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\nRetry-After: 1\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + string(body))
}()

// refuse answers 503 on a connection that cannot be kept and closes it.
func (l *connLimiter) refuse(c net.Conn) {
	if n := l.refused.Add(1); n == 1 || n%1000 == 0 {
		l.log.Warn("connection refused: every connection is busy", "max_conns", l.max, "refused_so_far", n)
	}
	_ = c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	_, _ = c.Write(refusal)
	_ = c.Close()
}

// Close closes the connection and frees its place.
func (c *limitedConn) Close() error {
	c.l.mu.Lock()
	c.l.forgetLocked(c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

// wait moves c to the back of the waiting list (it starts waiting now).
func (l *connLimiter) wait(c *limitedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !c.counted {
		return
	}
	if c.elem != nil {
		l.waiting.MoveToBack(c.elem)
		return
	}
	c.elem = l.waiting.PushBack(c)
}

// serving takes c off the waiting list: its request is being answered.
func (l *connLimiter) serving(c *limitedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.elem != nil {
		l.waiting.Remove(c.elem)
		c.elem = nil
	}
}

// connState follows net/http's view of each connection: a connection
// reading a request or idle between requests is waiting.
func (l *connLimiter) connState(nc net.Conn, state http.ConnState) {
	c, ok := nc.(*limitedConn)
	if !ok {
		return
	}
	switch state {
	case http.StateActive, http.StateIdle:
		l.wait(c)
	case http.StateHijacked, http.StateClosed:
		l.mu.Lock()
		l.forgetLocked(c)
		l.mu.Unlock()
	}
}

type connKey struct{}

// connContext lets handlers find their connection (see connServing).
func (l *connLimiter) connContext(ctx context.Context, nc net.Conn) context.Context {
	if c, ok := nc.(*limitedConn); ok {
		return context.WithValue(ctx, connKey{}, c)
	}
	return ctx
}

// connServing marks the connection of a request as answering it: its
// request arrived whole, so it is no longer a candidate for eviction. It
// does nothing outside Listen.
func connServing(ctx context.Context) {
	if c, ok := ctx.Value(connKey{}).(*limitedConn); ok {
		c.l.serving(c)
	}
}

func (l *connLimiter) stats() (open int, evicted, refused int64) {
	l.mu.Lock()
	open = l.open
	l.mu.Unlock()
	return open, l.evicted.Load(), l.refused.Load()
}
