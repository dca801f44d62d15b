package tasks

import (
	"encoding/json"
	"time"
)

// Owner identifies the authorization context a task is bound to. Values are
// opaque to stores; ResolveOwner builds them from a request's identity.
type Owner string

// Record is what a Store keeps for one task: the fields the wire Task shows,
// plus the owner, the request that created it, variables, the outcome and
// the expiry. Wire conversion happens at the server boundary.
type Record struct {
	ID            string
	Owner         Owner
	Method        string // the request that was augmented, e.g. "tools/call"
	Status        Status
	StatusMessage string
	CreatedAt     time.Time
	LastUpdatedAt time.Time
	// TTL is the effective retention from creation; nil means unlimited.
	TTL *time.Duration
	// PollInterval is the suggested polling period; zero means none.
	PollInterval time.Duration
	// ExpiresAt is CreatedAt+TTL; zero when TTL is nil.
	ExpiresAt time.Time
	// Version grows by at least one on every change of the record. Wait
	// uses it to detect changes without losing any.
	Version int64
	// Variables are free-form key/value pairs attached to the task.
	Variables map[string]json.RawMessage
	// Outcome is set once the task is terminal. Get and List may leave it
	// nil; Result always fills it.
	Outcome *Outcome
}

// Outcome is the final answer of the augmented request: exactly one of
// Result (the JSON of a successful result) or Error (a JSON-RPC error).
type Outcome struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  *RPCError       `json:"error,omitempty"`
}

// RPCError is a JSON-RPC error object, kept verbatim so tasks/result can
// return exactly what the underlying request produced.
type RPCError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error makes RPCError usable as a Go error.
func (e *RPCError) Error() string { return e.Message }

// Expired reports whether r has a TTL and it has elapsed at now.
func (r *Record) Expired(now time.Time) bool {
	return !r.ExpiresAt.IsZero() && !now.Before(r.ExpiresAt)
}

// Clone returns a deep copy of r, so callers can't mutate a store's state:
// the TTL, the variables map and every value's bytes, the outcome, its
// result bytes, its error and the error's data are all copied.
func (r Record) Clone() Record {
	if r.TTL != nil {
		ttl := *r.TTL
		r.TTL = &ttl
	}
	if r.Variables != nil {
		vars := make(map[string]json.RawMessage, len(r.Variables))
		for k, v := range r.Variables {
			vars[k] = cloneBytes(v)
		}
		r.Variables = vars
	}
	if r.Outcome != nil {
		o := r.Outcome.Clone()
		r.Outcome = &o
	}
	return r
}

// Clone returns a deep copy of o: the result bytes, the error and its data
// share nothing with o.
func (o Outcome) Clone() Outcome {
	o.Result = cloneBytes(o.Result)
	if o.Error != nil {
		e := *o.Error
		e.Data = cloneBytes(e.Data)
		o.Error = &e
	}
	return o
}

// cloneBytes copies b, keeping nil as nil and empty as empty.
func cloneBytes(b json.RawMessage) json.RawMessage {
	if b == nil {
		return nil
	}
	return append(make(json.RawMessage, 0, len(b)), b...)
}
