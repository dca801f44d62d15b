package protocol

import (
	"errors"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

func TestRetainedTasksCountsUntilExpiry(t *testing.T) {
	r := retainedTasks{perOwner: 2, total: 3, owners: map[tasks.Owner]int{}}
	t0 := time.UnixMilli(1_000_000)
	rec := func(owner tasks.Owner, ttl time.Duration) tasks.Record {
		d := ttl
		return tasks.Record{Owner: owner, CreatedAt: t0, TTL: &d, ExpiresAt: t0.Add(ttl)}
	}
	now := t0.UnixMilli()
	tests := []struct {
		name  string
		owner tasks.Owner
		ttl   time.Duration
		at    int64
		ok    bool
	}{
		{"a first", "a", time.Second, now, true},
		{"a second", "a", 2 * time.Second, now, true},
		{"a third over per-owner", "a", time.Second, now, false},
		{"b first", "b", 10 * time.Second, now, true},
		{"c over total", "c", time.Second, now, false},
		{"a after its first expired", "a", time.Second, now + 1000, true},
	}
	for _, tt := range tests {
		err := r.check(tt.owner, tt.at)
		var rpc *tasks.RPCError
		switch {
		case tt.ok && err != nil:
			t.Fatalf("%s: %v", tt.name, err)
		case !tt.ok && (!errors.As(err, &rpc) || rpc.Code != wire.CodeLimitExceeded):
			t.Fatalf("%s: %v, want a limit error", tt.name, err)
		case tt.ok:
			r.add(rec(tt.owner, tt.ttl))
		}
	}
	// Everything expired: nothing is left, not even the owners' entries.
	if n := r.count(now + 60_000); n != 0 || len(r.owners) != 0 {
		t.Errorf("after expiry: %d tasks, %d owners remembered", n, len(r.owners))
	}
	// Unlimited ttl counts for ever.
	r.add(tasks.Record{Owner: "d"})
	if n := r.count(now + int64(365*24*time.Hour/time.Millisecond)); n != 1 {
		t.Errorf("a task without ttl: %d counted", n)
	}
}

func TestActiveSlots(t *testing.T) {
	var a activeSlots
	for i := range 3 {
		if !a.acquire(3) {
			t.Fatalf("slot %d refused", i)
		}
	}
	if a.acquire(3) {
		t.Fatal("a fourth slot of three")
	}
	a.release()
	if !a.acquire(3) {
		t.Fatal("a freed slot is not reusable")
	}
	if !a.acquire(-1) {
		t.Fatal("no cap refused")
	}
}
