package multiinstance_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/internal/taskserverproc"
	"github.com/mcptasks/mcptasks/internal/testenv"
)

// Test identities: every instance accepts the same bearer tokens, so a
// requestor is the same owner whichever instance it talks to.
const (
	tokenAlice = "tok-alice-3f9d"
	tokenBob   = "tok-bob-81c2"
)

// Lease settings the instances run with: a lost worker's task is failed
// within about leaseDuration + reapInterval of the instance dying.
const (
	leaseDuration = time.Second
	reapInterval  = 250 * time.Millisecond
)

// startInstance starts a server process on store spec and waits until it
// listens. It runs the fixture tools, accepts the test tokens, has no
// cursor key file (instances on one store URL derive the same key) and
// short leases so a lost instance's work fails quickly. extra flags come
// last and win. It is stopped (SIGTERM, then SIGKILL) when t ends.
func startInstance(t *testing.T, name, spec string, extra ...string) *taskserverproc.Proc {
	t.Helper()
	tokens := taskserverproc.TokenFile(t, tokenAlice+" alice", tokenBob+" bob")
	args := taskserverproc.Flags(spec, tokens, leaseDuration, reapInterval)
	return taskserverproc.Start(t, "instance "+name, append(args, extra...)...)
}

// storeSpecs are the shared stores the tests run on, by name.
func postgresSpec(t *testing.T) string { return testenv.Postgres(t) }

func redisSpec(t *testing.T) string {
	url, prefix := testenv.Redis(t)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	return url + sep + "prefix=" + prefix
}

// cursorKeyFile writes key to a fresh file and returns its path.
func cursorKeyFile(t *testing.T, key string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "cursor-key")
	if err := os.WriteFile(p, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
