package server_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/server/reference"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// brokenGet is a real memory store whose Get fails the way a database
// driver does, with backend details in the error text.
type brokenGet struct{ *memory.Store }

var errBackend = errors.New(`ERROR: invalid byte sequence for encoding "UTF8": 0x00 (SQLSTATE 22021) host=db.internal.example user=tasks`)

func (s brokenGet) Get(context.Context, tasks.Owner, string) (tasks.Record, error) {
	return tasks.Record{}, errBackend
}

func TestInternalErrorsKeepBackendDetailsInTheLog(t *testing.T) {
	var logs testenv.SyncBuffer
	store := brokenGet{memory.New(tasks.Config{})}
	inst := start(t, reference.Options{Store: store, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	c := connect(t, inst.URL)

	_, err := c.GetTask(testCtx(t), "6f1c2f8e-4c1a-4a57-9d53-2d1f1f7f0b11")
	wantCode(t, err, wire.CodeInternalError, "internal error (reference ")
	for _, secret := range []string{"SQLSTATE", "db.internal.example", "user=tasks"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the answer leaks %q: %v", secret, err)
		}
	}
	ref := err.Error()[strings.Index(err.Error(), "reference ")+len("reference "):]
	ref = ref[:strings.IndexByte(ref, ')')]
	if !strings.Contains(logs.String(), "ref="+ref) || !strings.Contains(logs.String(), "SQLSTATE 22021") {
		t.Errorf("the log has no line with reference %s and the cause:\n%s", ref, logs.String())
	}
}
