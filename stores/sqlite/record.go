package sqlite

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
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
	v, err := storekit.DecodeVariables(vars)
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

// variablesValue is the column value of vars: its JSON, or NULL when empty.
func variablesValue(vars map[string]json.RawMessage) any {
	if b := storekit.EncodeVariables(vars); b != nil {
		return b
	}
	return nil
}
