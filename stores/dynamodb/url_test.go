package dynamodb_test

import (
	"context"
	"strings"
	"testing"

	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/mcptasks/mcptasks/stores/dynamodb"
	"github.com/mcptasks/mcptasks/tasks"
)

func TestOpenURLRejectsBadSpecs(t *testing.T) {
	cases := []struct{ spec, want string }{
		{"dynamodb://", "want dynamodb://TABLE"},
		{"dynamodb://ab", "table name"},
		{"dynamodb://t%20x", ""},
		{"dynamodb://tasks/extra", "want dynamodb://TABLE"},
		{"dynamodb://tasks?endpoint=localhost:8000", "endpoint"},
		{"dynamodb://tasks?create=maybe", "create"},
		{"dynamodb://tasks?regoin=us-east-1", "unknown parameter"},
		{"redis://tasks", "scheme"},
	}
	for _, c := range cases {
		t.Run(c.spec, func(t *testing.T) {
			_, err := dynamodb.OpenURL(context.Background(), c.spec, tasks.Config{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("OpenURL(%q) = %v, want an error mentioning %q", c.spec, err, c.want)
			}
		})
	}
}

func TestOpenURL(t *testing.T) {
	c, _ := client(t)
	ep, _ := clientEndpoint(t)
	ctx := ctxT(t)
	table := tableName(t)
	t.Cleanup(func() { _, _ = c.DeleteTable(context.Background(), &ddb.DeleteTableInput{TableName: &table}) })
	base := "dynamodb://" + table + "?endpoint=" + ep + "&region=us-east-1"
	if _, err := dynamodb.OpenURL(ctx, base, tasks.Config{}); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("open of a missing table without create: %v", err)
	}
	a, err := dynamodb.OpenURL(ctx, base+"&create=1", tasks.Config{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := dynamodb.OpenURL(ctx, base, tasks.Config{})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	// Two stores on one table behave as one.
	r, err := a.Create(ctx, "o", tasks.CreateParams{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Cancel(ctx, "o", r.ID, "from b"); err != nil {
		t.Fatal(err)
	}
	got, err := a.Result(ctx, "o", r.ID)
	if err != nil || got.Status != tasks.StatusCancelled || got.StatusMessage != "from b" {
		t.Fatalf("a sees %+v, %v", got, err)
	}
}
