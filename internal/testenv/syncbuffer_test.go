package testenv

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// Concurrent writers lose no bytes, and reading while they write is safe
// (the race detector checks the latter).
func TestSyncBufferConcurrentWrites(t *testing.T) {
	var buf SyncBuffer
	const writers, lines = 4, 200
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				fmt.Fprintf(&buf, "w%d-%d\n", w, i)
				_ = buf.String()
			}
		}()
	}
	wg.Wait()
	got := strings.Count(buf.String(), "\n")
	if got != writers*lines {
		t.Fatalf("%d lines, want %d", got, writers*lines)
	}
	if !strings.Contains(buf.String(), "w3-199\n") {
		t.Errorf("last line of writer 3 missing")
	}
}
