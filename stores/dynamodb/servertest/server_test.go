package servertest_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/stores/dynamodb"
	"github.com/mcptasks/mcptasks/suites"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/server"
	"github.com/mcptasks/mcptasks/tasks/server/reference"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// TestTwoInstancesOnOneTable starts two reference servers, each opening the
// table through the store URL the way cmd/taskserver --store does, and runs
// the server suite with both URLs.
func TestTwoInstancesOnOneTable(t *testing.T) {
	ep := testenv.DynamoDB(t)
	ctx := context.Background()
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	table := "mcptasks_srv_" + hex.EncodeToString(b)
	spec := "dynamodb://" + table + "?endpoint=" + ep + "&region=us-east-1&create=1"
	// Both instances share the cursor key, as a real deployment must.
	cfg := tasks.Config{PollInterval: 50 * time.Millisecond, CursorKey: "dynamodb-servertest-cursor-key"}
	tokens := map[string]string{"tok-alice": "alice", "tok-bob": "bob"}
	var urls []string
	for range 2 {
		st, err := dynamodb.OpenURL(ctx, spec, cfg)
		if err != nil {
			t.Fatal(err)
		}
		inst, err := reference.Start(ctx, reference.Options{
			Config:        cfg,
			Store:         st,
			EngineOptions: []tasks.EngineOption{tasks.WithLeaseDuration(3 * time.Second), tasks.WithReapInterval(time.Second)},
			ServerOptions: []server.Option{server.WithTokenVerifier(server.NewStaticTokens(tokens))},
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = inst.Close(context.Background())
			_ = st.Close()
		})
		urls = append(urls, inst.URL)
	}
	suites.RunServer(t, suites.ServerConfig{
		URLs:     urls,
		Headers:  http.Header{"Authorization": {"Bearer tok-alice"}},
		HeadersB: http.Header{"Authorization": {"Bearer tok-bob"}},
	}, suites.WithImplementation("mcptasks reference on dynamodb (2 instances)", "test"))
}
