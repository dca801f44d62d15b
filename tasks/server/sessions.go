package server

import (
	"fmt"
	"net"
	"net/http"
	"time"
)

// Session limits applied when no option sets them.
const (
	// DefaultMaxSessions caps the HTTP sessions one server keeps open.
	DefaultMaxSessions = 10_000
	// DefaultMaxSessionsPerIdentity caps the HTTP sessions of one
	// identity: a bearer subject, or the client's IP address for requests
	// without a token.
	DefaultMaxSessionsPerIdentity = 500
	// DefaultSessionIdleTimeout is how long an HTTP session may stay
	// unused before it is forgotten.
	DefaultSessionIdleTimeout = 30 * time.Minute
)

// WithMaxSessions caps the number of open HTTP sessions. An initialize past
// the cap is refused with HTTP 503 and JSON-RPC error CodeLimitExceeded.
// Zero keeps DefaultMaxSessions; a negative value removes the cap.
func WithMaxSessions(n int) Option {
	return func(s *Server) {
		if n != 0 {
			s.maxSessions = n
		}
	}
}

// WithMaxSessionsPerIdentity caps the open HTTP sessions of one identity:
// the verified bearer subject, or for requests without a token the
// client's IP address (behind a reverse proxy all clients share the
// proxy's address). An initialize past the cap is refused with HTTP 429
// and JSON-RPC error CodeLimitExceeded. Zero keeps
// DefaultMaxSessionsPerIdentity; a negative value removes the cap.
func WithMaxSessionsPerIdentity(n int) Option {
	return func(s *Server) {
		if n != 0 {
			s.maxPerIdentity = n
		}
	}
}

// sessionLimitError is the refusal of a new session, with the HTTP status to
// answer it with.
type sessionLimitError struct {
	status int
	msg    string
}

func (e *sessionLimitError) Error() string { return e.msg }

// identityKey is what the per-identity session cap counts by: the bearer
// subject, else the client's IP address.
func identityKey(r *http.Request, subject string) string {
	if subject != "" {
		return "sub:" + subject
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "ip:" + host
}

// admitSession registers an HTTP session unless a session cap is reached;
// the refusal says which, with its HTTP status.
func (s *Server) admitSession(sess *session) *sessionLimitError {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.maxSessions > 0 && s.httpSessions >= s.maxSessions {
		return &sessionLimitError{status: http.StatusServiceUnavailable,
			msg: fmt.Sprintf("session limit reached: this server already holds %d sessions; end unused ones (HTTP DELETE) or retry later", s.maxSessions)}
	}
	if s.maxPerIdentity > 0 && s.perIdentity[sess.ident] >= s.maxPerIdentity {
		return &sessionLimitError{status: http.StatusTooManyRequests,
			msg: fmt.Sprintf("session limit reached: this identity already holds %d sessions; end unused ones (HTTP DELETE) or reuse one", s.maxPerIdentity)}
	}
	s.perIdentity[sess.ident]++
	s.httpSessions++
	sess.capped = true
	s.insertLocked(sess)
	return nil
}

// addSession registers a session that no cap applies to (stdio).
func (s *Server) addSession(sess *session) {
	s.mu.Lock()
	s.insertLocked(sess)
	s.mu.Unlock()
}

func (s *Server) insertLocked(sess *session) {
	s.sessions[sess.id] = sess
	s.core.AddSession(sess)
	if s.sweepTimer == nil && !sess.pinned {
		s.sweepTimer = time.AfterFunc(s.sweepEvery(), s.sweepIdle)
	}
}

// removeLocked forgets a session; it reports whether it was registered.
func (s *Server) removeLocked(sess *session) bool {
	if s.sessions[sess.id] != sess {
		return false
	}
	delete(s.sessions, sess.id)
	s.core.RemoveSession(sess)
	if sess.capped {
		sess.capped = false
		s.httpSessions--
		if n := s.perIdentity[sess.ident] - 1; n > 0 {
			s.perIdentity[sess.ident] = n
		} else {
			delete(s.perIdentity, sess.ident)
		}
	}
	return true
}

func (s *Server) session(id string) *session {
	s.mu.RLock()
	sess := s.sessions[id]
	s.mu.RUnlock()
	return sess
}

func (s *Server) dropSession(id string) *session {
	s.mu.Lock()
	sess := s.sessions[id]
	if sess != nil {
		s.removeLocked(sess)
	}
	s.mu.Unlock()
	if sess != nil {
		sess.close()
	}
	return sess
}

// SessionCount reports how many sessions the server holds (HTTP and stdio).
func (s *Server) SessionCount() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.sessions)
}

// CloseSessions ends every session: open streams close and blocked
// requests return. Tasks keep running on the engine.
func (s *Server) CloseSessions() {
	s.mu.Lock()
	all := make([]*session, 0, len(s.sessions))
	for _, sess := range s.sessions {
		all = append(all, sess)
	}
	for _, sess := range all {
		s.removeLocked(sess)
	}
	if s.sweepTimer != nil {
		s.sweepTimer.Stop()
		s.sweepTimer = nil
	}
	s.mu.Unlock()
	for _, sess := range all {
		sess.close()
	}
}

// sweepEvery is the period of the idle-session sweep: a quarter of the
// idle timeout, between 25 ms and one minute, so a session is forgotten
// at most 25 % (or a minute) after its timeout.
func (s *Server) sweepEvery() time.Duration {
	return min(max(s.idleTimeout/4, 25*time.Millisecond), time.Minute)
}

// sweepIdle forgets idle HTTP sessions. It runs on a timer that exists
// only while HTTP sessions do, so an idle server does no work.
func (s *Server) sweepIdle() {
	cutoff := time.Now().Add(-s.idleTimeout)
	var idle []*session
	s.mu.Lock()
	if s.sweepTimer == nil {
		s.mu.Unlock()
		return // CloseSessions ran meanwhile
	}
	for _, sess := range s.sessions {
		if sess.idleSince(cutoff) {
			idle = append(idle, sess)
		}
	}
	for _, sess := range idle {
		s.removeLocked(sess)
	}
	if s.httpSessions > 0 {
		s.sweepTimer = time.AfterFunc(s.sweepEvery(), s.sweepIdle)
	} else {
		s.sweepTimer = nil
	}
	s.mu.Unlock()
	for _, sess := range idle {
		sess.close()
	}
	if len(idle) > 0 {
		s.log.Debug("idle sessions forgotten", "count", len(idle))
	}
}
