package redis

import goredis "github.com/redis/go-redis/v9"

// A task is one hash. The fields that never change after Create (owner,
// method, created, ttl, poll interval, expiry) are also kept packed
// together in "fix", in the reply format below, so the hot scripts read
// and return them as one value. The hash fields:
//
//	own, exp              owner and expiry (ms, "" = never): checked by scripts
//	st, msg, up, ver      status, status message, lastUpdatedAt (ms), version
//	vars                  variables as a JSON object ("" = none)
//	fix                   packed own, mth, cr, ttl, poll, exp
//	res, ecode, emsg, edata  the outcome once terminal ("" = unset)
//	mem                   the task's member in its owner's index
//
// Times are Unix milliseconds as decimal strings, taken from the Store's
// clock, never from Redis.

// getFields are what Get reads with HMGET; outcomeFields follow them for
// Result.
var (
	getFields     = []string{"fix", "st", "msg", "up", "ver", "vars"}
	outcomeFields = []string{"res", "ecode", "emsg", "edata"}
)

// luaLoad is shared by the scripts that act on tasks. load reads a task
// and tells a missing (or foreign) task from an expired one: expired means
// exp <= now. reply packs a tag and a task into one string, "tag\n"
// followed by "<len>:<bytes>" for own, mth, cr, ttl, poll, exp (that is,
// fix as stored), st, msg, up, ver, vars, so the client reads one bulk
// reply. string.format is the cheapest way to build it, but Lua 5.1
// formats short strings with C sprintf, which stops at a NUL byte, so
// tasks holding one (only the message and fix can: the rest are numbers,
// statuses and JSON) take the slower table path. bump moves lastUpdatedAt
// forward (never back) and the version up by one, in h only.
const luaLoad = `
local FIELDS = {'own','exp','st','msg','up','ver','vars','fix'}
local function load(key, owner, now)
  local h = redis.call('HMGET', key, unpack(FIELDS))
  if not h[1] or h[1] ~= owner then return nil, 'nf' end
  if h[2] ~= '' and tonumber(h[2]) <= now then return nil, 'exp' end
  return h, nil
end
local function reply(tag, h)
  if not (string.find(h[4], '\0', 1, true) or string.find(h[8], '\0', 1, true)) then
    return string.format('%s\n%s%d:%s%d:%s%d:%s%d:%s%d:%s', tag, h[8],
      #h[3], h[3], #h[4], h[4], #h[5], h[5], #h[6], h[6], #h[7], h[7])
  end
  local p, n = {tag, '\n', h[8]}, 3
  for i = 3, 7 do
    p[n + 1], p[n + 2], p[n + 3] = tostring(#h[i]), ':', h[i]
    n = n + 3
  end
  return table.concat(p)
end
local function bump(h, nowstr)
  if tonumber(nowstr) > tonumber(h[5]) then h[5] = nowstr end
  h[6] = string.format('%d', tonumber(h[6]) + 1)
end
`

// createScript inserts a task, enforcing the per-owner active limit.
//
// KEYS: task hash, owner index, owner active set, expiry set.
// ARGV: limit, now, index member, id, expiry ms or "", then the hash's
// field/value pairs.
//
// The active set holds the owner's non-terminal tasks scored by expiry
// (+inf: never), so expired ones are dropped by score before counting.
var createScript = goredis.NewScript(`
local limit = tonumber(ARGV[1])
if limit > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[2])
  if redis.call('ZCARD', KEYS[3]) >= limit then return 'limit' end
end
if redis.call('EXISTS', KEYS[1]) == 1 then return 'dup' end
redis.call('HSET', KEYS[1], unpack(ARGV, 6))
redis.call('ZADD', KEYS[2], 0, ARGV[3])
if ARGV[5] == '' then
  redis.call('ZADD', KEYS[3], '+inf', ARGV[4])
else
  redis.call('ZADD', KEYS[3], ARGV[5], ARGV[4])
  redis.call('ZADD', KEYS[4], ARGV[5], ARGV[4])
end
return 'ok'
`)

// changeScript is the one conditional status change behind Transition,
// Complete and Cancel: it checks owner, expiry and the current status,
// writes, bumps the version and publishes it, all atomically.
//
// KEYS: task hash, and for a terminal change the owner's active set and
// the lease set.
// ARGV: owner, now, allowed current statuses as ",a,b,", key prefix, id,
// new status, message, and for a terminal change the outcome: result,
// error code, error message, error data.
//
// Replies like reply('ok', …) in luaLoad on success (the record as
// written, built from what was read, without reading it again), like
// reply('st', …) when the status does not allow the change, "nf" or
// "exp". It is the hottest script, so it inlines luaLoad instead of
// defining its helpers on every call.
var changeScript = goredis.NewScript(`
local h = redis.call('HMGET', KEYS[1], 'own', 'exp', 'st', 'msg', 'up', 'ver', 'vars', 'fix')
if not h[1] or h[1] ~= ARGV[1] then return 'nf' end
local nowstr = ARGV[2]
local now = tonumber(nowstr)
if h[2] ~= '' and tonumber(h[2]) <= now then return 'exp' end
local tag = 'ok'
if not string.find(ARGV[3], ',' .. h[3] .. ',', 1, true) then
  tag = 'st'
else
  if now > tonumber(h[5]) then h[5] = nowstr end
  h[6] = string.format('%d', tonumber(h[6]) + 1)
  h[3], h[4] = ARGV[6], ARGV[7]
  if #ARGV > 7 then
    redis.call('HSET', KEYS[1], 'st', h[3], 'msg', h[4], 'up', h[5], 'ver', h[6],
      'res', ARGV[8], 'ecode', ARGV[9], 'emsg', ARGV[10], 'edata', ARGV[11])
    redis.call('ZREM', KEYS[2], ARGV[5])
    redis.call('ZREM', KEYS[3], ARGV[5])
  else
    redis.call('HSET', KEYS[1], 'st', h[3], 'msg', h[4], 'up', h[5], 'ver', h[6])
  end
  redis.call('PUBLISH', ARGV[4] .. 'c:' .. ARGV[5], h[6])
end
if not (string.find(h[4], '\0', 1, true) or string.find(h[8], '\0', 1, true)) then
  return string.format('%s\n%s%d:%s%d:%s%d:%s%d:%s%d:%s', tag, h[8],
    #h[3], h[3], #h[4], h[4], #h[5], h[5], #h[6], h[6], #h[7], h[7])
end
return table.concat({tag, '\n', h[8], tostring(#h[3]), ':', h[3], tostring(#h[4]), ':', h[4],
  tostring(#h[5]), ':', h[5], tostring(#h[6]), ':', h[6], tostring(#h[7]), ':', h[7]})
`)

// varsScript stores merged variables if the task is still at the version
// they were merged from (the merge itself runs in Go with
// storekit.MergeVariables, so sizes and results match every other store).
//
// KEYS: task hash. ARGV: owner, now, expected version, variables JSON
// ("" for none), channel.
var varsScript = goredis.NewScript(luaLoad + `
local h, why = load(KEYS[1], ARGV[1], tonumber(ARGV[2]))
if not h then return why end
if h[6] ~= ARGV[3] then return 'conflict' end
bump(h, ARGV[2])
h[7] = ARGV[4]
redis.call('HSET', KEYS[1], 'vars', h[7], 'up', h[5], 'ver', h[6])
redis.call('PUBLISH', ARGV[5], h[6])
return reply('ok', h)
`)

// listScript reads one page from an owner's index in (createdAt, id)
// order: members are "<16-digit ms>:<id>" with equal scores, so
// ZRANGEBYLEX walks them in exactly that order and a cursor is a member.
// Expired tasks are skipped (DeleteExpired removes them); index members
// whose hash is gone are pruned on the way.
//
// KEYS: owner index. ARGV: owner, now, exclusive start member or "",
// how many tasks to return at most, key prefix.
// Replies one reply(id, fields) string per task.
var listScript = goredis.NewScript(luaLoad + `
local now = tonumber(ARGV[2])
local want = tonumber(ARGV[4])
local start = '-'
if ARGV[3] ~= '' then start = '(' .. ARGV[3] end
local out, n = {}, 0
local batch = want + 16
while n < want do
  local ms = redis.call('ZRANGEBYLEX', KEYS[1], start, '+', 'LIMIT', 0, batch)
  for _, m in ipairs(ms) do
    local id = string.sub(m, string.find(m, ':', 1, true) + 1)
    local key = ARGV[5] .. 't:' .. id
    local h = redis.call('HMGET', key, unpack(FIELDS))
    if not h[1] then
      redis.call('ZREM', KEYS[1], m)
    elseif h[1] == ARGV[1] and not (h[2] ~= '' and tonumber(h[2]) <= now) then
      n = n + 1
      out[n] = reply(id, h)
      if n == want then break end
    end
  end
  if #ms < batch then break end
  start = '(' .. ms[#ms]
end
return out
`)

// deleteExpiredScript removes up to a batch of expired tasks, everywhere
// they are indexed, and wakes their waiters.
//
// KEYS: expiry set, lease set. ARGV: now, key prefix, batch size.
// Replies {removed, examined}.
var deleteExpiredScript = goredis.NewScript(`
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local n = 0
for _, id in ipairs(ids) do
  local key = ARGV[2] .. 't:' .. id
  local h = redis.call('HMGET', key, 'own', 'mem', 'exp')
  if h[1] and h[3] ~= '' and tonumber(h[3]) <= tonumber(ARGV[1]) then
    redis.call('DEL', key)
    redis.call('ZREM', ARGV[2] .. 'o:' .. h[1], h[2])
    redis.call('ZREM', ARGV[2] .. 'a:' .. h[1], id)
    redis.call('PUBLISH', ARGV[2] .. 'c:' .. id, 'gone')
    n = n + 1
  end
  redis.call('ZREM', KEYS[1], id)
  redis.call('ZREM', KEYS[2], id)
end
return {n, #ids}
`)

// renewScript records a lease deadline for a live, non-terminal task.
//
// KEYS: task hash, lease set. ARGV: owner, now, deadline ms, id.
var renewScript = goredis.NewScript(luaLoad + `
local h, why = load(KEYS[1], ARGV[1], tonumber(ARGV[2]))
if not h then return why end
if h[3] == 'working' or h[3] == 'input_required' then
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
end
return 'ok'
`)

// reapScript fails up to a batch of tasks whose lease deadline is at or
// before now.
//
// KEYS: lease set. ARGV: now, key prefix, batch size, status message,
// error code, error message.
// Replies {ended, examined}.
var reapScript = goredis.NewScript(luaLoad + `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local n = 0
for _, id in ipairs(ids) do
  local key = ARGV[2] .. 't:' .. id
  local own = redis.call('HGET', key, 'own')
  if own then
    local h = load(key, own, tonumber(ARGV[1]))
    if h and (h[3] == 'working' or h[3] == 'input_required') then
      bump(h, ARGV[1])
      redis.call('HSET', key, 'st', 'failed', 'msg', ARGV[4], 'up', h[5], 'ver', h[6],
        'res', '', 'ecode', ARGV[5], 'emsg', ARGV[6], 'edata', '')
      redis.call('ZREM', ARGV[2] .. 'a:' .. own, id)
      redis.call('PUBLISH', ARGV[2] .. 'c:' .. id, h[6])
      n = n + 1
    end
  end
  redis.call('ZREM', KEYS[1], id)
end
return {n, #ids}
`)
