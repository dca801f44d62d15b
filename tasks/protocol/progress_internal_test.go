package protocol

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks"
)

// recorder is a streamSender that keeps what it was given.
type recorder struct{ msgs []string }

func (r *recorder) Send(msg []byte) error {
	r.msgs = append(r.msgs, string(msg))
	return nil
}

// streamProgress sends rising values only, and nothing once its request
// is cancelled or has ended.
func TestStreamProgress(t *testing.T) {
	cases := []struct {
		name string
		// before runs after the first report and before the second.
		before  func(s *streamProgress, cancel context.CancelFunc)
		second  float64
		wantErr func(error) bool
	}{
		{name: "rising", before: func(*streamProgress, context.CancelFunc) {}, second: 2,
			wantErr: func(err error) bool { return err == nil }},
		{name: "equal", before: func(*streamProgress, context.CancelFunc) {}, second: 1,
			wantErr: func(err error) bool { return err != nil && strings.Contains(err.Error(), "must grow") }},
		{name: "after end", before: func(s *streamProgress, _ context.CancelFunc) { s.end() }, second: 2,
			wantErr: func(err error) bool { return errors.Is(err, errProgressEnded) }},
		{name: "after cancel", before: func(_ *streamProgress, cancel context.CancelFunc) { cancel() }, second: 2,
			wantErr: func(err error) bool { return errors.Is(err, context.Canceled) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			out := &recorder{}
			s := &streamProgress{ctx: ctx, out: out, token: schema.StringProgressToken("tok")}
			if err := s.report(tasks.Progress{Progress: 1}); err != nil {
				t.Fatal(err)
			}
			tc.before(s, cancel)
			err := s.report(tasks.Progress{Progress: tc.second})
			if !tc.wantErr(err) {
				t.Errorf("second report: %v", err)
			}
			want := 1
			if err == nil {
				want = 2
			}
			if len(out.msgs) != want {
				t.Fatalf("sent %d messages, want %d: %v", len(out.msgs), want, out.msgs)
			}
			if !strings.Contains(out.msgs[0], `"progressToken":"tok"`) || !strings.Contains(out.msgs[0], `"method":"notifications/progress"`) {
				t.Errorf("first message %s", out.msgs[0])
			}
		})
	}
}
