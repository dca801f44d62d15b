package dynamodb_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/stores/dynamodb"
	"github.com/mcptasks/mcptasks/tasks"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

var (
	clientOnce sync.Mutex
	clients    = map[string]*ddb.Client{}
)

// client returns a client for the test server, shared by the binary.
func client(tb testing.TB) (*ddb.Client, testenv.DynamoDBKind) {
	tb.Helper()
	ep, kind := testenv.DynamoDBServer(tb)
	clientOnce.Lock()
	defer clientOnce.Unlock()
	if c := clients[ep]; c != nil {
		return c, kind
	}
	c, err := dynamodb.NewClient(context.Background(), dynamodb.ClientConfig{Endpoint: ep})
	if err != nil {
		tb.Fatal(err)
	}
	clients[ep] = c
	return c, kind
}

// clientEndpoint returns the test server's endpoint and kind.
func clientEndpoint(tb testing.TB) (string, testenv.DynamoDBKind) {
	tb.Helper()
	return testenv.DynamoDBServer(tb)
}

// tableName returns a table name no other test uses (the servers refuse to
// re-create a deleted name quickly, so names are never reused).
func tableName(tb testing.TB) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "mcptasks_test_" + hex.EncodeToString(b)
}

// newStore opens a store on a fresh table, deleted when the test ends.
// A fake clock turns native TTL off, since the server deletes by real time.
func newStore(tb testing.TB, cfg tasks.Config, opts ...dynamodb.Option) *dynamodb.Store {
	tb.Helper()
	c, _ := client(tb)
	if _, fake := cfg.Clock.(*tasks.FakeClock); fake {
		opts = append([]dynamodb.Option{dynamodb.WithNativeTTL(false)}, opts...)
	}
	if cfg.PollInterval == 0 {
		cfg.PollInterval = 20 * time.Millisecond
	}
	ctx := context.Background()
	table := tableName(tb)
	s, err := dynamodb.Open(ctx, c, table, cfg, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.EnsureTable(ctx); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = s.Close()
		_, _ = c.DeleteTable(context.Background(), &ddb.DeleteTableInput{TableName: &table})
	})
	return s
}

func fakeClock() *tasks.FakeClock {
	return tasks.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
}

func ctxT(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	tb.Cleanup(cancel)
	return ctx
}

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }
