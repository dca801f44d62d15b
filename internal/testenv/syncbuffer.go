package testenv

import (
	"bytes"
	"sync"
)

// SyncBuffer is a byte buffer that goroutines may write to and read from
// at the same time, such as the log sink of a server under test. Its zero
// value is empty and ready to use; it must not be copied after first use.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p to the buffer; it never fails.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns a copy of everything written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
