package storeurl_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/stores/storeurl"
	"github.com/mcptasks/mcptasks/tasks"
)

const secret = "Pw-S3cr3t.x"

func TestRedact(t *testing.T) {
	tests := []struct{ spec, want string }{
		{"memory", "memory"},
		{"sqlite:/var/lib/tasks.db", "sqlite:/var/lib/tasks.db"},
		{"postgres://app:" + secret + "@db:5432/tasks?sslmode=disable", "postgres://app:xxxxx@db:5432/tasks?sslmode=disable"},
		{"postgres://app@db/tasks?password=" + secret, "postgres://app@db/tasks?password=xxxxx"},
		{"redis://:" + secret + "@cache:6379/0", "redis://:xxxxx@cache:6379/0"},
		{"dynamodb://tbl?endpoint=http://k:" + secret + "@127.0.0.1:8000", "dynamodb://tbl?endpoint=http://k:xxxxx@127.0.0.1:8000"},
		{"host=db user=app password=" + secret + " dbname=tasks", "host=db user=app password=xxxxx dbname=tasks"},
		// Not a valid URL (bad port), still masked.
		{"postgres://app:" + secret + "@db:port/tasks", "postgres://app:xxxxx@db:port/tasks"},
		// Characters that are escaped in a URL.
		{"postgres://app:p%40ss%2Fw@db/tasks", "postgres://app:xxxxx@db/tasks"},
	}
	for _, tt := range tests {
		if got := storeurl.Redact(tt.spec); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.spec, got, tt.want)
		}
	}
}

// Open's errors never carry the password of the spec, whatever the store
// and whatever goes wrong.
func TestOpenErrorsAreRedacted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	specs := []string{
		"postgres://app:" + secret + "@127.0.0.1:1/tasks?sslmode=disable&connect_timeout=2",
		"postgres://app:" + secret + "@db:port/tasks",
		"postgres://app@127.0.0.1:1/tasks?sslmode=disable&connect_timeout=2&password=" + secret,
		"redis://:" + secret + "@127.0.0.1:1/0",
		"redis://:" + secret + "@cache:port/0",
		"dynamodb://tbl?endpoint=http://k:" + secret + "@127.0.0.1:port",
		"dynamodb://t?nosuch=1&token=" + secret,
		"nosuch://u:" + secret + "@x",
	}
	for _, spec := range specs {
		st, err := storeurl.Open(ctx, spec, tasks.Config{})
		if err == nil {
			st.Close()
			t.Errorf("%s: opened", storeurl.Redact(spec))
			continue
		}
		if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "S3cr3t") {
			t.Errorf("error shows the password: %v", err)
		}
	}
}
