package redis

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

// numFields is how many task fields a packed reply carries, in this
// order: own, mth, cr, ttl, poll, exp (the stored fix), st, msg, up, ver,
// vars.
const numFields = 11

// Positions of the task fields in a packed reply.
const (
	iOwner = iota
	iMethod
	iCreated
	iTTL
	iPoll
	iExpires
	iStatus
	iMessage
	iUpdated
	iVersion
	iVars
)

// packFields renders values as "<len>:<bytes>" each, the format of the
// fix field and of script replies.
func packFields(values ...string) string {
	n := 0
	for _, v := range values {
		n += len(v) + 4
	}
	b := make([]byte, 0, n)
	for _, v := range values {
		b = strconv.AppendInt(b, int64(len(v)), 10)
		b = append(b, ':')
		b = append(b, v...)
	}
	return string(b)
}

// unpackFields splits a packed string into its values, which share its
// memory.
func unpackFields(s string, into []string) ([]string, error) {
	for len(s) > 0 {
		n, after, ok := strings.Cut(s, ":")
		size, err := strconv.Atoi(n)
		if !ok || err != nil || size < 0 || size > len(after) {
			return nil, fmt.Errorf("malformed packed field %d", len(into)+1)
		}
		into = append(into, after[:size])
		s = after[size:]
	}
	return into, nil
}

// parseRecord builds a Record from the numFields task fields.
func parseRecord(id string, f []string) (tasks.Record, error) {
	if len(f) != numFields {
		return tasks.Record{}, fmt.Errorf("task %s: %d fields, want %d", id, len(f), numFields)
	}
	num := func(i int, name string) (int64, error) {
		v, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("task %s: field %s: %w", id, name, err)
		}
		return v, nil
	}
	r := tasks.Record{
		ID:            id,
		Owner:         tasks.Owner(f[iOwner]),
		Method:        f[iMethod],
		Status:        tasks.Status(f[iStatus]),
		StatusMessage: f[iMessage],
	}
	cr, err := num(iCreated, "cr")
	if err != nil {
		return tasks.Record{}, err
	}
	up, err := num(iUpdated, "up")
	if err != nil {
		return tasks.Record{}, err
	}
	poll, err := num(iPoll, "poll")
	if err != nil {
		return tasks.Record{}, err
	}
	if r.Version, err = num(iVersion, "ver"); err != nil {
		return tasks.Record{}, err
	}
	r.CreatedAt = time.UnixMilli(cr).UTC()
	r.LastUpdatedAt = time.UnixMilli(up).UTC()
	r.PollInterval = time.Duration(poll) * time.Millisecond
	if f[iTTL] != "" {
		ttl, err := num(iTTL, "ttl")
		if err != nil {
			return tasks.Record{}, err
		}
		d := time.Duration(ttl) * time.Millisecond
		r.TTL = &d
	}
	if f[iExpires] != "" {
		exp, err := num(iExpires, "exp")
		if err != nil {
			return tasks.Record{}, err
		}
		r.ExpiresAt = time.UnixMilli(exp).UTC()
	}
	if f[iVars] != "" {
		vars, err := storekit.DecodeVariables([]byte(f[iVars]))
		if err != nil {
			return tasks.Record{}, fmt.Errorf("task %s: stored variables: %w", id, err)
		}
		r.Variables = vars
	}
	return r, nil
}

// parseOutcome builds the Outcome from the values of outcomeFields.
func parseOutcome(f []string) (*tasks.Outcome, error) {
	o := &tasks.Outcome{}
	if f[0] != "" {
		o.Result = json.RawMessage(f[0])
	}
	if f[1] != "" {
		code, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("stored error code: %w", err)
		}
		o.Error = &tasks.RPCError{Code: code, Message: f[2]}
		if f[3] != "" {
			o.Error.Data = json.RawMessage(f[3])
		}
	}
	return o, nil
}

// unpackReply splits a packed script reply, "tag\n" followed by the
// numFields packed task fields (see reply in luaLoad).
func unpackReply(s string) (tag string, fields []string, err error) {
	tag, rest, ok := strings.Cut(s, "\n")
	if !ok {
		return "", nil, fmt.Errorf("malformed script reply %.40q", s)
	}
	fields, err = unpackFields(rest, make([]string, 0, numFields))
	if err != nil {
		return "", nil, fmt.Errorf("script reply: %w", err)
	}
	if len(fields) != numFields {
		return "", nil, fmt.Errorf("script reply has %d fields, want %d", len(fields), numFields)
	}
	return tag, fields, nil
}
