package dynamodb_test

import (
	"testing"

	"github.com/mcptasks/mcptasks/suites"
	"github.com/mcptasks/mcptasks/tasks"
)

// TestConformance runs the whole store suite, each spec on a fresh table of
// the server testenv started (dynalite, or DynamoDB Local with
// MCPTASKS_DYNAMODB=local).
func TestConformance(t *testing.T) {
	_, kind := client(t)
	suites.RunStore(t, func(tb testing.TB, cfg tasks.Config) (tasks.Store, error) {
		return newStore(tb, cfg), nil
	}, suites.WithImplementation("dynamodb ("+string(kind)+")", "dev"))
}
