package sqlite

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
)

// ms renders t as Unix milliseconds, the unit every time column uses.
func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

// scanner is a *sql.Row or *sql.Rows.
type scanner interface {
	Scan(dest ...any) error
}

// scanRecord reads the columns (and, with withOutcome, outcomeColumns).
func scanRecord(sc scanner, withOutcome bool) (tasks.Record, error) {
	var (
		r                      tasks.Record
		owner, status          string
		created, updated, poll int64
		ttl, exp               sql.NullInt64
		vars                   []byte
		result, errData        []byte
		errCode                sql.NullInt64
		errMsg                 sql.NullString
	)
	dest := []any{&r.ID, &owner, &r.Method, &status, &r.StatusMessage, &created, &updated,
		&ttl, &poll, &exp, &r.Version, &vars}
	if withOutcome {
		dest = append(dest, &result, &errCode, &errMsg, &errData)
	}
	if err := sc.Scan(dest...); err != nil {
		return tasks.Record{}, err
	}
	r.Owner = tasks.Owner(owner)
	r.Status = tasks.Status(status)
	r.CreatedAt = fromMS(created)
	r.LastUpdatedAt = fromMS(updated)
	r.PollInterval = time.Duration(poll) * time.Millisecond
	if ttl.Valid {
		d := time.Duration(ttl.Int64) * time.Millisecond
		r.TTL = &d
	}
	if exp.Valid {
		r.ExpiresAt = fromMS(exp.Int64)
	}
	v, err := decodeVariables(vars)
	if err != nil {
		return tasks.Record{}, fmt.Errorf("task %s: stored variables: %w", r.ID, err)
	}
	r.Variables = v
	if withOutcome && r.Status.Terminal() {
		o := &tasks.Outcome{}
		if len(result) > 0 {
			o.Result = json.RawMessage(result)
		}
		if errCode.Valid {
			o.Error = &tasks.RPCError{Code: errCode.Int64, Message: errMsg.String}
			if len(errData) > 0 {
				o.Error.Data = json.RawMessage(errData)
			}
		}
		r.Outcome = o
	}
	return r, nil
}

// encodeVariables writes vars as a JSON object keeping every value's bytes
// exactly as given (json.Marshal would re-indent them). nil stays NULL.
func encodeVariables(vars map[string]json.RawMessage) any {
	if len(vars) == 0 {
		return nil
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
	return append(b, '}')
}

// decodeVariables reverses encodeVariables; values come back byte for byte.
func decodeVariables(b []byte) (map[string]json.RawMessage, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}
