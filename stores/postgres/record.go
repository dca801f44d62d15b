package postgres

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

// viewColumns are the columns of a Record as Get and List return it,
// without the outcome.
const viewColumns = "id, owner, method, status, status_message, created_at, updated_at, ttl_ms, poll_ms, expires_at, version, variables"

// fullColumns add the outcome, for Result.
const fullColumns = viewColumns + ", result, error_code, error_message, error_data"

// row is a task row as scanned.
type row struct {
	id, owner, method, status, message string
	created, updated                   time.Time
	ttlMS                              *int64
	pollMS                             int64
	expires                            *time.Time
	version                            int64
	variables                          []byte
	result                             []byte
	errCode                            *int64
	errMessage                         *string
	errData                            []byte
}

func (r *row) viewDest() []any {
	return []any{&r.id, &r.owner, &r.method, &r.status, &r.message, &r.created, &r.updated,
		&r.ttlMS, &r.pollMS, &r.expires, &r.version, &r.variables}
}

func (r *row) fullDest() []any {
	return append(r.viewDest(), &r.result, &r.errCode, &r.errMessage, &r.errData)
}

// record converts the row; withOutcome fills Outcome for terminal tasks.
func (r *row) record(withOutcome bool) (tasks.Record, error) {
	rec := tasks.Record{
		ID:            r.id,
		Owner:         tasks.Owner(r.owner),
		Method:        r.method,
		Status:        tasks.Status(r.status),
		StatusMessage: r.message,
		CreatedAt:     r.created.UTC(),
		LastUpdatedAt: r.updated.UTC(),
		PollInterval:  time.Duration(r.pollMS) * time.Millisecond,
		Version:       r.version,
	}
	if r.ttlMS != nil {
		ttl := time.Duration(*r.ttlMS) * time.Millisecond
		rec.TTL = &ttl
	}
	if r.expires != nil {
		rec.ExpiresAt = r.expires.UTC()
	}
	vars, err := storekit.DecodeVariables(r.variables)
	if err != nil {
		return tasks.Record{}, fmt.Errorf("task %s: stored variables are corrupt: %w", r.id, err)
	}
	rec.Variables = vars
	if withOutcome && rec.Status.Terminal() {
		o := &tasks.Outcome{}
		if len(r.result) > 0 {
			o.Result = json.RawMessage(r.result)
		}
		if r.errCode != nil {
			e := &tasks.RPCError{Code: *r.errCode}
			if r.errMessage != nil {
				e.Message = *r.errMessage
			}
			if len(r.errData) > 0 {
				e.Data = json.RawMessage(r.errData)
			}
			o.Error = e
		}
		rec.Outcome = o
	}
	return rec, nil
}

// scanView reads one row of viewColumns.
func scanView(rows pgx.Row) (tasks.Record, error) {
	var r row
	if err := rows.Scan(r.viewDest()...); err != nil {
		return tasks.Record{}, err
	}
	return r.record(false)
}

// nullableMS converts an optional duration to milliseconds.
func nullableMS(d *time.Duration) *int64 {
	if d == nil {
		return nil
	}
	ms := d.Milliseconds()
	return &ms
}

// nullableTime maps the zero time to SQL NULL.
func nullableTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// outcomeArgs splits an outcome into its four columns, normalised the
// way the memory store keeps it (empty result or data: absent).
func outcomeArgs(o tasks.Outcome) (result []byte, code *int64, msg *string, data []byte) {
	if len(o.Result) > 0 {
		result = o.Result
	}
	if o.Error != nil {
		c, m := o.Error.Code, clean(o.Error.Message)
		code, msg = &c, &m
		if len(o.Error.Data) > 0 {
			data = o.Error.Data
		}
	}
	return result, code, msg, data
}

// fromStatuses lists the statuses a task may move to `to` from.
func fromStatuses(to tasks.Status) []string {
	var out []string
	for _, s := range tasks.Statuses {
		if tasks.CanTransition(s, to) {
			out = append(out, string(s))
		}
	}
	return out
}
