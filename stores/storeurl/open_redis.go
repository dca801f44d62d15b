package storeurl

import (
	"context"
	"fmt"

	"github.com/mcptasks/mcptasks/stores/redis"
	"github.com/mcptasks/mcptasks/tasks"
)

// openRedis opens the Redis store at spec, a go-redis URL
// (redis://[user:pass@]host:port/db or rediss://…) with an optional
// "prefix" query parameter for the key prefix (default "mcptasks:").
func openRedis(ctx context.Context, spec string, cfg tasks.Config) (tasks.Store, error) {
	st, err := redis.Open(ctx, spec, cfg)
	if err != nil {
		return nil, fmt.Errorf("storeurl: %w", err)
	}
	return st, nil
}
