package dynamodb_test

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/internal/testenv"
)

// TestOnDynamoDBLocal runs this package's tests a second time, in a child
// process of the same test binary, against Amazon DynamoDB Local (the
// default run uses dynalite). That covers what only DynamoDB Local can
// show: native TTL deletion and ReturnValuesOnConditionCheckFailure. It is
// skipped with -short, and when the environment already chose a server.
func TestOnDynamoDBLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the DynamoDB Local run takes about a minute")
	}
	if v := os.Getenv(testenv.EnvDynamoDB); v != "" {
		t.Skipf("%s=%s: this run is already on its chosen server", testenv.EnvDynamoDB, v)
	}
	if os.Getenv(testenv.EnvDynamoDBEndpoint) != "" {
		t.Skipf("%s is set: tests use that server only", testenv.EnvDynamoDBEndpoint)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run", "^Test", "-test.v", "-test.count=1", "-test.timeout=14m")
	cmd.Env = append(os.Environ(), testenv.EnvDynamoDB+"=local")
	out, err := cmd.CombinedOutput()
	log := string(out)
	if err != nil {
		t.Fatalf("the DynamoDB Local run failed: %v\n%s", err, tail(log, 120))
	}
	// A server that could not start makes the child skip (or fail when
	// services are required); say so instead of passing.
	if strings.Contains(log, "is not available") {
		t.Skipf("DynamoDB Local could not be used:\n%s", tail(log, 20))
	}
	for _, must := range []string{"--- PASS: TestConformance", "--- PASS: TestNativeTTL", "--- PASS: TestConditionFailureClassification"} {
		if !strings.Contains(log, must) {
			t.Fatalf("the DynamoDB Local run lacks %q:\n%s", must, tail(log, 120))
		}
	}
	specs := regexp.MustCompile(`Ran \d+ of \d+ Specs`).FindString(log)
	t.Logf("DynamoDB Local: %s; native TTL deletion and ReturnValuesOnConditionCheckFailure verified", specs)
}

func tail(s string, lines int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > lines {
		l = l[len(l)-lines:]
	}
	return strings.Join(l, "\n")
}
