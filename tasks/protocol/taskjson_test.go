package protocol

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks"
)

// The hand-written encoders give byte for byte what encoding/json gives
// for the same values.
func TestTaskJSONMatchesEncodingJSON(t *testing.T) {
	ttl := 90 * time.Second
	sub := 1500*time.Microsecond + 7
	zone := time.FixedZone("x", -7*3600)
	base := tasks.Record{
		ID:            "3f1c6a1e-0000-4000-8000-000000000001",
		Owner:         "alice",
		Status:        tasks.StatusWorking,
		CreatedAt:     time.Date(2026, 11, 28, 4, 30, 0, 123456789, time.UTC),
		LastUpdatedAt: time.Date(2026, 11, 28, 4, 30, 1, 0, zone),
	}
	tests := []struct {
		name string
		edit func(r *tasks.Record)
	}{
		{"plain", func(*tasks.Record) {}},
		{"ttl and poll interval", func(r *tasks.Record) { r.TTL, r.PollInterval = &ttl, time.Second }},
		{"sub-millisecond durations", func(r *tasks.Record) { r.TTL, r.PollInterval = &sub, sub }},
		{"zero ttl", func(r *tasks.Record) { z := time.Duration(0); r.TTL = &z }},
		{"status message", func(r *tasks.Record) { r.Status, r.StatusMessage = tasks.StatusFailed, "the tool reported an error" }},
		{"message needing escapes", func(r *tasks.Record) {
			r.StatusMessage = "a \"quoted\" <b>&</b> \\ tab\t nl\n é ✓ \u2028 \x7f \xff"
		}},
		{"odd id", func(r *tasks.Record) { r.ID = "id with <html> & \"quotes\"" }},
		{"zero times", func(r *tasks.Record) { r.CreatedAt, r.LastUpdatedAt = time.Time{}, time.Time{} }},
		{"not updated since creation", func(r *tasks.Record) { r.LastUpdatedAt = r.CreatedAt }},
		{"same instant in another zone", func(r *tasks.Record) { r.LastUpdatedAt = r.CreatedAt.In(zone) }},
		{"a nanosecond apart", func(r *tasks.Record) { r.LastUpdatedAt = r.CreatedAt.Add(time.Nanosecond) }},
		{"reserved variables only", func(r *tasks.Record) {
			r.Variables = map[string]json.RawMessage{"io.modelcontextprotocol/x": json.RawMessage(`1`)}
		}},
		{"variables", func(r *tasks.Record) {
			r.Variables = map[string]json.RawMessage{"client.a": json.RawMessage(`{"b":[1,2]}`), "server.z": json.RawMessage(`"s"`)}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := base
			tt.edit(&r)
			want, err := json.Marshal(WireTask(r))
			if err != nil {
				t.Fatal(err)
			}
			if got := appendTask(nil, r); !bytes.Equal(got, want) {
				t.Errorf("task:\n got %s\nwant %s", got, want)
			}
			want, _ = json.Marshal(schema.CreateTaskResult{Task: WireTask(r)})
			if got := createTaskResultJSON(r); !bytes.Equal(got, want) {
				t.Errorf("CreateTaskResult:\n got %s\nwant %s", got, want)
			}
			for _, msg := range []string{"started; I will report back", "needs <escapes> & \"quotes\" é \u2028"} {
				var meta schema.Meta
				if err := meta.SetModelImmediateResponse(msg); err != nil {
					t.Fatal(err)
				}
				want, _ = json.Marshal(schema.CreateTaskResult{Meta: meta, Task: WireTask(r)})
				if got := createTaskResultImmediateJSON(r, msg); !bytes.Equal(got, want) {
					t.Errorf("CreateTaskResult with model-immediate-response:\n got %s\nwant %s", got, want)
				}
			}
			want, _ = json.Marshal(WireGetResult(r))
			if got, err := getTaskResultJSON(r); err != nil || !bytes.Equal(got, want) {
				t.Errorf("GetTaskResult:\n got %s (%v)\nwant %s", got, err, want)
			}
			want, _ = EncodeRequest("", "notifications/tasks/status", WireTask(r))
			if got := statusNotificationJSON(r); !bytes.Equal(got, want) {
				t.Errorf("status notification:\n got %s\nwant %s", got, want)
			}
		})
	}
}

// TestAppendTimeMatchesAppendFormat compares the direct writer with the
// layout for times across the whole range, odd zones and the edges of
// the years it writes itself.
func TestAppendTimeMatchesAppendFormat(t *testing.T) {
	zones := []*time.Location{time.UTC, time.FixedZone("plus", 5*3600+1800), time.FixedZone("minus", -11*3600)}
	times := []time.Time{
		{},
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 6, 1, 12, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 28, 13, 5, 9, 1_500_000, time.UTC),
		time.Date(2026, 2, 28, 23, 59, 59, 999_500_000, time.UTC),
		time.Now(),
	}
	seed := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 2000 {
		// A spread of instants from 1970 to about 2100, nanoseconds included.
		times = append(times, seed.Add(time.Duration(i)*(2*time.Hour*24*23+time.Hour*7+time.Minute*13+time.Second*17+time.Nanosecond*987_654_321)))
	}
	for _, tm := range times {
		for _, z := range zones {
			in := tm.In(z)
			want := in.UTC().AppendFormat([]byte("x"), TimeLayout)
			if got := appendTime([]byte("x"), in); !bytes.Equal(got, want) {
				t.Fatalf("appendTime(%v) = %s, want %s", in, got, want)
			}
		}
	}
}

// TestTaskJSONLenIsExact checks that the size the encoders allocate for
// is the length they write when nothing needs escaping, so their buffers
// never grow nor waste room in the common case.
func TestTaskJSONLenIsExact(t *testing.T) {
	ttl, long := 1000*time.Millisecond, time.Duration(math.MaxInt64)
	at := time.Date(2026, 11, 28, 4, 30, 0, 123456789, time.UTC)
	recs := []tasks.Record{
		{ID: "3f1c6a1e-0000-4000-8000-000000000001", Status: tasks.StatusWorking, CreatedAt: at, LastUpdatedAt: at, TTL: &ttl, PollInterval: time.Second},
		{ID: "x", Status: tasks.StatusCompleted, CreatedAt: at, LastUpdatedAt: at.Add(time.Hour), StatusMessage: "done"},
		{ID: "y", Status: tasks.StatusFailed, TTL: &long, PollInterval: 1},
		{ID: "z", Status: tasks.StatusWorking, PollInterval: 999 * time.Millisecond},
	}
	for _, r := range recs {
		if got, want := len(appendTask(nil, r)), taskJSONLen(r); got != want {
			t.Errorf("%+v: appendTask wrote %d bytes, taskJSONLen says %d", r, got, want)
		}
		if b := statusNotificationJSON(r); len(b) != cap(b) {
			t.Errorf("status notification: %d bytes in a buffer of %d", len(b), cap(b))
		}
		if b := createTaskResultJSON(r); len(b) != cap(b) {
			t.Errorf("CreateTaskResult: %d bytes in a buffer of %d", len(b), cap(b))
		}
	}
	for _, v := range []int64{0, 1, 9, 10, 99, 100, 12345, math.MaxInt64, -1, -10, math.MinInt64 + 1, math.MinInt64} {
		if got, want := decimalLen(v), len(strconv.FormatInt(v, 10)); got != want {
			t.Errorf("decimalLen(%d) = %d, want %d", v, got, want)
		}
	}
}
