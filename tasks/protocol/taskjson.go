package protocol

import (
	"encoding/json"
	"math"
	"strconv"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// The encoders below write the JSON of the messages every task creation
// and every poll produce, without the reflection of encoding/json; each
// gives exactly the bytes encoding/json gives for the same value
// (TestTaskJSONMatchesEncodingJSON).

// appendTime appends t in UTC as t.UTC().AppendFormat(b, TimeLayout)
// does, writing the digits directly for years 0 to 9999 instead of
// interpreting the layout (TestAppendTimeMatchesAppendFormat).
func appendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, TimeLayout)
	}
	hour, minute, sec := t.Clock()
	ms := t.Nanosecond() / int(time.Millisecond)
	return append(b,
		byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+int(month)/10), byte('0'+int(month)%10), '-',
		byte('0'+day/10), byte('0'+day%10), 'T',
		byte('0'+hour/10), byte('0'+hour%10), ':',
		byte('0'+minute/10), byte('0'+minute%10), ':',
		byte('0'+sec/10), byte('0'+sec%10), '.',
		byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z')
}

// appendTask appends the JSON of WireTask(r): the members in the
// order of schema.Task's fields.
func appendTask(b []byte, r tasks.Record) []byte {
	b = append(b, `{"createdAt":"`...)
	start := len(b)
	b = appendTime(b, r.CreatedAt)
	created := b[start:]
	b = append(b, `","lastUpdatedAt":"`...)
	if r.LastUpdatedAt.Equal(r.CreatedAt) {
		// A task not updated since its creation: the same instant, so
		// the same text (appendTime writes it in UTC).
		b = append(b, created...)
	} else {
		b = appendTime(b, r.LastUpdatedAt)
	}
	b = append(b, '"')
	if r.PollInterval > 0 {
		b = append(b, `,"pollInterval":`...)
		b = strconv.AppendInt(b, r.PollInterval.Milliseconds(), 10)
	}
	b = append(b, `,"status":`...)
	b = appendString(b, string(r.Status))
	if r.StatusMessage != "" {
		b = append(b, `,"statusMessage":`...)
		b = appendString(b, r.StatusMessage)
	}
	b = append(b, `,"taskId":`...)
	b = appendString(b, r.ID)
	b = append(b, `,"ttl":`...)
	if r.TTL == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, r.TTL.Milliseconds(), 10)
	}
	return append(b, '}')
}

// taskJSONLen is the length appendTask writes for r when its strings
// need no escapes and its times fall in years 0 to 9999, so the buffers
// below are made at their final size (a longer text still fits: append
// grows the buffer).
func taskJSONLen(r tasks.Record) int {
	n := len(`{"createdAt":"","lastUpdatedAt":""`) + 2*len("2006-01-02T15:04:05.000Z") +
		len(`,"status":""`) + len(r.Status) + len(`,"taskId":""`) + len(r.ID) + len(`,"ttl":}`)
	if r.PollInterval > 0 {
		n += len(`,"pollInterval":`) + decimalLen(r.PollInterval.Milliseconds())
	}
	if r.StatusMessage != "" {
		n += len(`,"statusMessage":""`) + len(r.StatusMessage)
	}
	if r.TTL == nil {
		n += len("null")
	} else {
		n += decimalLen(r.TTL.Milliseconds())
	}
	return n
}

// decimalLen is the length of strconv.AppendInt(nil, v, 10).
func decimalLen(v int64) int {
	n := 1
	if v < 0 {
		n++
		if v == math.MinInt64 {
			return 20
		}
		v = -v
	}
	for ; v >= 10; v /= 10 {
		n++
	}
	return n
}

// appendString appends s as a JSON string. Strings of printable ASCII
// that encoding/json leaves alone are copied; anything else (escapes,
// HTML characters, non-ASCII) is left to encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// createTaskResultJSON is the JSON of schema.CreateTaskResult{Task:
// WireTask(r)}.
func createTaskResultJSON(r tasks.Record) json.RawMessage {
	return appendCreateTaskResult(nil, r)
}

// appendCreateTaskResult appends createTaskResultJSON(r) to dst (nil: a
// buffer of the exact length).
func appendCreateTaskResult(dst []byte, r tasks.Record) json.RawMessage {
	b := dst
	if b == nil {
		b = make([]byte, 0, len(`{"task":}`)+taskJSONLen(r))
	}
	b = append(b, `{"task":`...)
	b = appendTask(b, r)
	return append(b, '}')
}

// createTaskResultImmediateJSON is the JSON of schema.CreateTaskResult
// with msg as the model-immediate-response entry of its _meta.
func createTaskResultImmediateJSON(r tasks.Record, msg string) json.RawMessage {
	b := make([]byte, 0, 320+len(msg))
	b = append(b, `{"_meta":{`...)
	b = appendString(b, wire.MetaModelImmediateResponse)
	b = append(b, ':')
	b = appendString(b, msg)
	b = append(b, `},"task":`...)
	b = appendTask(b, r)
	return append(b, '}')
}

// getTaskResultJSON is the JSON of WireGetResult(r).
func getTaskResultJSON(r tasks.Record) (json.RawMessage, error) {
	for k := range r.Variables {
		if !ReservedMetaKey(k) {
			// Variables go into _meta: the general encoder.
			return json.Marshal(WireGetResult(r))
		}
	}
	return appendTask(make([]byte, 0, taskJSONLen(r)), r), nil
}

// statusNotificationJSON is EncodeRequest("", "notifications/tasks/status",
// WireTask(r)).
func statusNotificationJSON(r tasks.Record) []byte {
	const prefix = `{"jsonrpc":"2.0","method":"notifications/tasks/status","params":`
	b := make([]byte, 0, len(prefix)+taskJSONLen(r)+1)
	b = append(b, prefix...)
	b = appendTask(b, r)
	return append(b, '}')
}
