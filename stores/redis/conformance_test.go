package redis_test

import (
	"context"
	"testing"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/stores/redis"
	"github.com/mcptasks/mcptasks/suites"
	"github.com/mcptasks/mcptasks/tasks"
)

func TestConformance(t *testing.T) {
	suites.RunStore(t, func(tb testing.TB, cfg tasks.Config) (tasks.Store, error) {
		url, prefix := testenv.Redis(tb)
		return redis.Open(context.Background(), url, cfg, redis.WithPrefix(prefix))
	}, suites.WithImplementation("redis", "dev"))
}
