// Package storeurl opens any of the project's stores from one string, as
// cmd/taskserver's --store flag takes it:
//
//	memory
//	sqlite:PATH
//	postgres://USER@HOST:PORT/DB?sslmode=disable
//	redis://HOST:PORT/DB
//	dynamodb://TABLE?endpoint=URL&region=REGION
package storeurl

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcptasks/mcptasks/tasks"
)

// Open opens the store that spec names, configured with cfg. Its errors
// never show the credentials spec holds (see Redact).
func Open(ctx context.Context, spec string, cfg tasks.Config) (tasks.Store, error) {
	st, err := open(ctx, spec, cfg)
	if err != nil {
		return nil, redactErr(err, spec)
	}
	return st, nil
}

func open(ctx context.Context, spec string, cfg tasks.Config) (tasks.Store, error) {
	scheme, _, _ := strings.Cut(spec, ":")
	switch scheme {
	case "memory":
		return openMemory(ctx, spec, cfg)
	case "sqlite":
		return openSQLite(ctx, spec, cfg)
	case "postgres", "postgresql":
		return openPostgres(ctx, spec, cfg)
	case "redis", "rediss":
		return openRedis(ctx, spec, cfg)
	case "dynamodb":
		return openDynamoDB(ctx, spec, cfg)
	}
	return nil, fmt.Errorf("storeurl: unknown store %q: want memory, sqlite:PATH, postgres://…, redis://… or dynamodb://TABLE?…", Redact(spec))
}
