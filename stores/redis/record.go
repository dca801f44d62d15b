package redis

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
)

// parseRecord builds a Record from the values of recordFields (as strings,
// in that order).
func parseRecord(id string, f []string) (tasks.Record, error) {
	if len(f) < len(recordFields) {
		return tasks.Record{}, fmt.Errorf("task %s: %d fields, want %d", id, len(f), len(recordFields))
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
		Owner:         tasks.Owner(f[0]),
		Method:        f[1],
		Status:        tasks.Status(f[2]),
		StatusMessage: f[3],
	}
	cr, err := num(4, "cr")
	if err != nil {
		return tasks.Record{}, err
	}
	up, err := num(5, "up")
	if err != nil {
		return tasks.Record{}, err
	}
	poll, err := num(7, "poll")
	if err != nil {
		return tasks.Record{}, err
	}
	if r.Version, err = num(9, "ver"); err != nil {
		return tasks.Record{}, err
	}
	r.CreatedAt = time.UnixMilli(cr).UTC()
	r.LastUpdatedAt = time.UnixMilli(up).UTC()
	r.PollInterval = time.Duration(poll) * time.Millisecond
	if f[6] != "" {
		ttl, err := num(6, "ttl")
		if err != nil {
			return tasks.Record{}, err
		}
		d := time.Duration(ttl) * time.Millisecond
		r.TTL = &d
	}
	if f[8] != "" {
		exp, err := num(8, "exp")
		if err != nil {
			return tasks.Record{}, err
		}
		r.ExpiresAt = time.UnixMilli(exp).UTC()
	}
	if f[10] != "" {
		if err := json.Unmarshal([]byte(f[10]), &r.Variables); err != nil {
			return tasks.Record{}, fmt.Errorf("task %s: stored variables: %w", id, err)
		}
		if len(r.Variables) == 0 {
			r.Variables = nil
		}
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

// encodeVariables writes vars as a JSON object keeping every value's bytes
// exactly as given (json.Marshal would re-indent them); none is "".
func encodeVariables(vars map[string]json.RawMessage) string {
	if len(vars) == 0 {
		return ""
	}
	b := []byte{'{'}
	first := true
	for k, v := range vars {
		if !first {
			b = append(b, ',')
		}
		first = false
		kb, _ := json.Marshal(k)
		b = append(b, kb...)
		b = append(b, ':')
		b = append(b, v...)
	}
	return string(append(b, '}'))
}

// unpackReply splits a packed script reply, "tag\n" followed by
// "<len>:<bytes>" per record field (see reply in luaLoad). The fields
// share the reply's memory.
func unpackReply(s string) (tag string, fields []string, err error) {
	tag, rest, ok := strings.Cut(s, "\n")
	if !ok {
		return "", nil, fmt.Errorf("malformed script reply %.40q", s)
	}
	fields = make([]string, 0, len(recordFields))
	for len(rest) > 0 {
		n, after, ok := strings.Cut(rest, ":")
		size, err := strconv.Atoi(n)
		if !ok || err != nil || size < 0 || size > len(after) {
			return "", nil, fmt.Errorf("malformed script reply field %d", len(fields)+1)
		}
		fields = append(fields, after[:size])
		rest = after[size:]
	}
	if len(fields) != len(recordFields) {
		return "", nil, fmt.Errorf("script reply has %d fields, want %d", len(fields), len(recordFields))
	}
	return tag, fields, nil
}
