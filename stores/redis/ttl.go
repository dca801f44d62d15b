package redis

import (
	"context"
	"errors"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

var _ tasks.TTLExtender = (*Store)(nil)

// ttlScript stores a new ttl if the task is still at the version it was
// checked at: the expiry field, the packed fields and the task's scores
// in its owner's active set and in the expiry set.
//
// KEYS: task hash, owner active set, expiry set. ARGV: owner, now,
// expected version, new expiry ms, new packed fields, id, channel.
var ttlScript = goredis.NewScript(luaLoad + `
local h, why = load(KEYS[1], ARGV[1], tonumber(ARGV[2]))
if not h then return why end
if h[6] ~= ARGV[3] then return 'conflict' end
bump(h, ARGV[2])
h[2] = ARGV[4]
h[8] = ARGV[5]
redis.call('HSET', KEYS[1], 'exp', h[2], 'fix', h[8], 'up', h[5], 'ver', h[6])
redis.call('ZADD', KEYS[2], 'XX', ARGV[4], ARGV[6])
redis.call('ZADD', KEYS[3], 'XX', ARGV[4], ARGV[6])
redis.call('PUBLISH', ARGV[7], h[6])
return reply('ok', h)
`)

// ExtendTTL lengthens a task's ttl (see tasks.TTLExtender): checked in Go
// on the task as read, stored by a script only if the task has not
// changed since, retried otherwise.
func (s *Store) ExtendTTL(ctx context.Context, owner tasks.Owner, id string, ttl time.Duration) (tasks.Record, error) {
	const op = "extend ttl"
	if err := ctx.Err(); err != nil {
		return tasks.Record{}, err
	}
	for range maxVarRetries {
		cur, err := s.get(ctx, op, owner, id, false)
		if err != nil {
			return tasks.Record{}, err
		}
		newTTL, change, err := storekit.CheckExtendTTL(s.cfg, cur, ttl)
		if err != nil {
			return tasks.Record{}, err
		}
		if !change {
			return cur, nil
		}
		exp := msStr(cur.CreatedAt.Add(newTTL))
		fix := packFields(string(cur.Owner), cur.Method, msStr(cur.CreatedAt), strconv.FormatInt(newTTL.Milliseconds(), 10),
			strconv.FormatInt(cur.PollInterval.Milliseconds(), 10), exp)
		reply, err := ttlScript.Run(ctx, s.client, []string{s.taskKey(id), s.activeKey(owner), s.expiryKey()}, string(owner), msStr(s.cfg.Now()),
			strconv.FormatInt(cur.Version, 10), exp, fix, id, s.channel(id)).Text()
		if err != nil {
			return tasks.Record{}, engineErr(op, id, err)
		}
		if reply == "conflict" {
			continue
		}
		rec, _, err := s.scriptRecord(op, id, reply)
		return rec, err
	}
	return tasks.Record{}, &tasks.Error{Op: op, TaskID: id, Err: errors.New("redis: task kept changing; try again")}
}
