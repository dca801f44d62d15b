package storekit_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

// versioned is a task whose version a test moves; reads count how often
// the poller looked.
type versioned struct {
	version atomic.Int64
	reads   atomic.Int64
}

func (v *versioned) read(context.Context) (tasks.Record, error) {
	v.reads.Add(1)
	return tasks.Record{ID: "t", Version: v.version.Load()}, nil
}

func TestPollerReturnsAtOnceWhenAlreadyChanged(t *testing.T) {
	v := &versioned{}
	v.version.Store(3)
	rec, err := storekit.Poller{Interval: time.Hour, Read: v.read}.Wait(context.Background(), 2)
	if err != nil || rec.Version != 3 || v.reads.Load() != 1 {
		t.Fatalf("Wait = v%d, %v after %d reads; want v3 after one read", rec.Version, err, v.reads.Load())
	}
}

func TestPollerSeesAChangeByPolling(t *testing.T) {
	v := &versioned{}
	v.version.Store(1)
	go func() {
		time.Sleep(30 * time.Millisecond)
		v.version.Store(2)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rec, err := storekit.Poller{Interval: 5 * time.Millisecond, Read: v.read}.Wait(ctx, 1)
	if err != nil || rec.Version != 2 {
		t.Fatalf("Wait = v%d, %v; want v2", rec.Version, err)
	}
}

func TestPollerWakesOnWatchBeforeThePoll(t *testing.T) {
	v := &versioned{}
	v.version.Store(1)
	wake := make(chan struct{}, 1)
	var armed, released atomic.Int64
	p := storekit.Poller{
		Interval: time.Hour, // only the wake-up can end this wait in time
		Read:     v.read,
		Watch: func() (<-chan struct{}, func()) {
			armed.Add(1)
			return wake, func() { released.Add(1) }
		},
	}
	go func() {
		for v.reads.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		v.version.Store(2)
		wake <- struct{}{}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rec, err := p.Wait(ctx, 1)
	if err != nil || rec.Version != 2 {
		t.Fatalf("Wait = v%d, %v; want v2", rec.Version, err)
	}
	if armed.Load() != released.Load() || armed.Load() < 1 {
		t.Fatalf("watch armed %d times, released %d times", armed.Load(), released.Load())
	}
}

func TestPollerEnds(t *testing.T) {
	boom := errors.New("boom")
	closed := errors.New("closed")
	done := make(chan struct{})
	close(done)
	var stopped atomic.Bool
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	unchanged := func(context.Context) (tasks.Record, error) { return tasks.Record{Version: 1}, nil }
	tests := []struct {
		name string
		ctx  context.Context
		p    storekit.Poller
		want error
	}{
		{"read fails", context.Background(), storekit.Poller{Read: func(context.Context) (tasks.Record, error) {
			return tasks.Record{}, boom
		}}, boom},
		{"check fails", context.Background(), storekit.Poller{Read: unchanged,
			Check: func(context.Context) error { return closed }}, closed},
		{"context done", cancelled, storekit.Poller{Read: unchanged}, context.Canceled},
		{"store closes", context.Background(), storekit.Poller{Interval: time.Hour, Read: unchanged, Done: done,
			Check: func(context.Context) error {
				if stopped.Swap(true) {
					return closed
				}
				return nil
			}}, closed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(tt.ctx, 10*time.Second)
			defer cancel()
			if _, err := tt.p.Wait(ctx, 1); !errors.Is(err, tt.want) {
				t.Fatalf("Wait err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestPollerStopsWhenContextEndsMidWait(t *testing.T) {
	v := &versioned{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := (storekit.Poller{Interval: time.Hour, Read: v.read}).Wait(ctx, 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait err = %v, want the context's deadline", err)
	}
}
