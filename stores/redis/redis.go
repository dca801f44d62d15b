// Package redis is a tasks.Store on Redis (go-redis/v9) that several server
// instances can share.
//
// Each task is a hash. Every status change is one Lua script that checks
// the owner, the expiry and the current status, writes, bumps the version
// and PUBLISHes it on the task's channel, so it is atomic and exactly one
// of several racing terminal changes wins. Each owner has a sorted-set
// index whose members are "<zero-padded created ms>:<id>" with equal
// scores: ZRANGEBYLEX walks them in (CreatedAt, ID) order and a list
// cursor is simply a position in it, so a page costs O(page). The per-owner
// active-task limit is enforced in the Create script from a sorted set of
// the owner's non-terminal tasks scored by expiry.
//
// Time always comes from Config's clock and is passed to the scripts;
// Redis key expiry is not used, expired tasks are filtered out of every
// read and removed by DeleteExpired (which also prunes every index).
// Wait subscribes to the task's channel and also polls at
// Config.PollInterval.
//
// All keys of a store share a prefix (WithPrefix). The list, delete and
// reap scripts derive task keys from it, so on Redis Cluster the prefix
// must contain a hash tag (e.g. "{tasks}:") to keep every key in one slot.
package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

// DefaultPrefix is the key prefix used when none is given.
const DefaultPrefix = "mcptasks:"

// Store is the Redis tasks.Store; it also implements tasks.LeaseStore.
// Create it with Open.
type Store struct {
	cfg    tasks.Config
	client *goredis.Client
	prefix string
	owns   bool // Close closes the client
	hub    *hub
}

var (
	_ tasks.Store      = (*Store)(nil)
	_ tasks.LeaseStore = (*Store)(nil)
)

// Option configures Open.
type Option func(*options)

type options struct {
	prefix string
	client *goredis.Client
}

// WithPrefix sets the prefix of every key and channel the store uses, so
// several stores can share one Redis database. It overrides a prefix
// given in the URL.
func WithPrefix(p string) Option { return func(o *options) { o.prefix = p } }

// WithClient makes the store use an existing client (url is then
// ignored); Close leaves the client open.
func WithClient(c *goredis.Client) Option { return func(o *options) { o.client = c } }

// Open connects to the Redis server at rawURL (redis://[user:pass@]host:port/db,
// rediss:// for TLS; a "prefix" query parameter sets the key prefix),
// checks it answers, loads the scripts and returns a Store enforcing cfg
// (defaults applied).
func Open(ctx context.Context, rawURL string, cfg tasks.Config, opts ...Option) (*Store, error) {
	o := options{}
	for _, opt := range opts {
		opt(&o)
	}
	client, owns := o.client, false
	prefix := DefaultPrefix
	if client == nil {
		u, err := url.Parse(rawURL)
		if err != nil {
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err // without the URL, which may hold a password
			}
			return nil, fmt.Errorf("redis: bad url: %w", err)
		}
		q := u.Query()
		if q.Has("prefix") {
			prefix = q.Get("prefix")
			q.Del("prefix")
			u.RawQuery = q.Encode()
		}
		ro, err := goredis.ParseURL(u.String())
		if err != nil {
			return nil, fmt.Errorf("redis: bad url: %w", err)
		}
		client, owns = goredis.NewClient(ro), true
	}
	if o.prefix != "" {
		prefix = o.prefix
	}
	s := &Store{cfg: cfg.WithDefaults(), client: client, prefix: prefix, owns: owns, hub: newHub(client)}
	if err := s.load(ctx); err != nil {
		if owns {
			client.Close()
		}
		return nil, err
	}
	return s, nil
}

// load checks the server answers and caches every script on it.
func (s *Store) load(ctx context.Context) error {
	if err := s.client.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("redis: %w", err)
	}
	for _, sc := range []*goredis.Script{createScript, changeScript, varsScript, listScript,
		deleteExpiredScript, renewScript, reapScript} {
		if err := sc.Load(ctx, s.client).Err(); err != nil {
			return fmt.Errorf("redis: load script: %w", err)
		}
	}
	return nil
}

// Prefix returns the key prefix the store uses.
func (s *Store) Prefix() string { return s.prefix }

// Client returns the underlying client.
func (s *Store) Client() *goredis.Client { return s.client }

// Close ends the Store's pub/sub connection and closes the client if Open
// created it.
func (s *Store) Close() error {
	s.hub.close()
	if !s.owns {
		return nil
	}
	err := s.client.Close()
	if errors.Is(err, goredis.ErrClosed) {
		return nil
	}
	return err
}

// Key names.
func (s *Store) taskKey(id string) string           { return s.prefix + "t:" + id }
func (s *Store) indexKey(o tasks.Owner) string      { return s.prefix + "o:" + string(o) }
func (s *Store) activeKey(o tasks.Owner) string     { return s.prefix + "a:" + string(o) }
func (s *Store) channel(id string) string           { return s.prefix + "c:" + id }
func (s *Store) expiryKey() string                  { return s.prefix + "exp" }
func (s *Store) leaseKey() string                   { return s.prefix + "leases" }
func indexMember(createdMS int64, id string) string { return fmt.Sprintf("%016d:%s", createdMS, id) }

func notFound(op, id string) error { return &tasks.Error{Op: op, TaskID: id, Err: tasks.ErrNotFound} }
func expired(op, id string) error  { return &tasks.Error{Op: op, TaskID: id, Err: tasks.ErrExpired} }

// engineErr wraps a Redis error; it maps to JSON-RPC -32603.
func engineErr(op, id string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if errors.Is(err, goredis.ErrClosed) {
		// This Store's client was closed: final, unlike a lost connection.
		return &tasks.Error{Op: op, TaskID: id, Err: fmt.Errorf("redis: %w: %w", tasks.ErrStoreClosed, err)}
	}
	return &tasks.Error{Op: op, TaskID: id, Err: fmt.Errorf("redis: %w", err)}
}

func msStr(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

// Create stores a new working task for owner.
func (s *Store) Create(ctx context.Context, owner tasks.Owner, p tasks.CreateParams) (tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return tasks.Record{}, err
	}
	rec, err := storekit.NewRecord(s.cfg, owner, p)
	if err != nil {
		return tasks.Record{}, err
	}
	keys, args := s.createCall(rec)
	res, err := createScript.Run(ctx, s.client, keys, args...).Text()
	if err != nil {
		return tasks.Record{}, engineErr("create", rec.ID, err)
	}
	switch res {
	case "ok":
		return rec, nil
	case "limit":
		return tasks.Record{}, &tasks.Error{Op: "create", Err: tasks.ErrLimit,
			Detail: "the owner already has the maximum number of active tasks"}
	}
	return tasks.Record{}, &tasks.Error{Op: "create", TaskID: rec.ID, Err: fmt.Errorf("redis: create script answered %q", res)}
}

// createCall returns the keys and arguments of createScript for rec.
func (s *Store) createCall(rec tasks.Record) ([]string, []any) {
	ttl, exp := "", ""
	if rec.TTL != nil {
		ttl, exp = strconv.FormatInt(rec.TTL.Milliseconds(), 10), msStr(rec.ExpiresAt)
	}
	mem := indexMember(rec.CreatedAt.UnixMilli(), rec.ID)
	limit := s.cfg.MaxTasksPerOwner
	if limit < 0 {
		limit = 0
	}
	created := msStr(rec.CreatedAt)
	poll := strconv.FormatInt(rec.PollInterval.Milliseconds(), 10)
	args := []any{limit, created, mem, rec.ID, exp,
		"own", string(rec.Owner), "exp", exp,
		"st", string(rec.Status), "msg", rec.StatusMessage, "up", msStr(rec.LastUpdatedAt),
		"ver", strconv.FormatInt(rec.Version, 10), "vars", string(storekit.EncodeVariables(rec.Variables)),
		"fix", packFields(string(rec.Owner), rec.Method, created, ttl, poll, exp),
		"res", "", "ecode", "", "emsg", "", "edata", "", "mem", mem}
	return []string{s.taskKey(rec.ID), s.indexKey(rec.Owner), s.activeKey(rec.Owner), s.expiryKey()}, args
}

// Get returns the task.
func (s *Store) Get(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return tasks.Record{}, err
	}
	return s.get(ctx, "get", owner, id, false)
}

// get reads a visible task of owner with one HMGET.
func (s *Store) get(ctx context.Context, op string, owner tasks.Owner, id string, withOutcome bool) (tasks.Record, error) {
	fields := getFields
	if withOutcome {
		fields = append(append([]string{}, getFields...), outcomeFields...)
	}
	vals, err := s.client.HMGet(ctx, s.taskKey(id), fields...).Result()
	if err != nil {
		return tasks.Record{}, engineErr(op, id, err)
	}
	strs := make([]string, len(vals))
	for i, v := range vals {
		strs[i], _ = v.(string)
	}
	if strs[0] == "" {
		return tasks.Record{}, notFound(op, id)
	}
	f, err := unpackFields(strs[0], make([]string, 0, numFields))
	if err != nil || len(f) != iStatus {
		return tasks.Record{}, engineErr(op, id, fmt.Errorf("task %s: malformed fix field", id))
	}
	if f[iOwner] != string(owner) {
		return tasks.Record{}, notFound(op, id)
	}
	rec, err := parseRecord(id, append(f, strs[1:len(getFields)]...))
	if err != nil {
		return tasks.Record{}, engineErr(op, id, err)
	}
	if rec.Expired(s.cfg.Now()) {
		return tasks.Record{}, expired(op, id)
	}
	if withOutcome && rec.Status.Terminal() {
		rec.Outcome, err = parseOutcome(strs[len(getFields):])
		if err != nil {
			return tasks.Record{}, engineErr(op, id, err)
		}
	}
	return rec, nil
}

// allowedFrom renders the statuses a task may leave for to as ",a,b,".
func allowedFrom(to tasks.Status) string {
	if a, ok := allowedCache[to]; ok {
		return a
	}
	return renderAllowed(to)
}

// allowedCache holds allowedFrom for the five statuses.
var allowedCache = func() map[tasks.Status]string {
	m := make(map[tasks.Status]string, len(tasks.Statuses))
	for _, st := range tasks.Statuses {
		m[st] = renderAllowed(st)
	}
	return m
}()

func renderAllowed(to tasks.Status) string {
	var b strings.Builder
	b.WriteByte(',')
	for _, st := range tasks.Statuses {
		if tasks.CanTransition(st, to) {
			b.WriteString(string(st))
			b.WriteByte(',')
		}
	}
	return b.String()
}

// change runs changeScript; on a status mismatch it returns the current
// record with ok=false so the caller can word the error exactly. outcome
// is nil for a non-terminal change.
func (s *Store) change(ctx context.Context, op string, owner tasks.Owner, id, allowed string, to tasks.Status, message string, outcome *tasks.Outcome) (tasks.Record, bool, error) {
	args := make([]any, 0, 11)
	args = append(args, string(owner), msStr(s.cfg.Now()), allowed, s.prefix, id, string(to), message)
	if o := outcome; o != nil {
		code, msg, data := "", "", ""
		if o.Error != nil {
			code, msg, data = strconv.FormatInt(o.Error.Code, 10), o.Error.Message, string(o.Error.Data)
		}
		args = append(args, string(o.Result), code, msg, data)
	}
	keys := []string{s.taskKey(id)}
	if outcome != nil {
		keys = append(keys, s.activeKey(owner), s.leaseKey())
	}
	reply, err := changeScript.Run(ctx, s.client, keys, args...).Text()
	if err != nil {
		return tasks.Record{}, false, engineErr(op, id, err)
	}
	return s.scriptRecord(op, id, reply)
}

// scriptRecord interprets a reply of the change and variables scripts:
// "nf", "exp", or a tag ("ok", "st") packed with the record fields.
func (s *Store) scriptRecord(op, id, reply string) (tasks.Record, bool, error) {
	switch reply {
	case "nf":
		return tasks.Record{}, false, notFound(op, id)
	case "exp":
		return tasks.Record{}, false, expired(op, id)
	}
	tag, fields, err := unpackReply(reply)
	if err != nil {
		return tasks.Record{}, false, engineErr(op, id, err)
	}
	if tag != "ok" && tag != "st" {
		return tasks.Record{}, false, engineErr(op, id, fmt.Errorf("unexpected script reply %q", tag))
	}
	rec, err := parseRecord(id, fields)
	if err != nil {
		return tasks.Record{}, false, engineErr(op, id, err)
	}
	return rec, tag == "ok", nil
}

// Transition moves a task between working and input_required.
func (s *Store) Transition(ctx context.Context, owner tasks.Owner, id string, to tasks.Status, message string) (tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return tasks.Record{}, err
	}
	allowed := allowedFrom(to)
	if to.Terminal() {
		allowed = ","
	}
	rec, ok, err := s.change(ctx, "transition", owner, id, allowed, to, message, nil)
	if err != nil || ok {
		return rec, err
	}
	if err := storekit.CheckTransition(rec, to); err != nil {
		return tasks.Record{}, err
	}
	return tasks.Record{}, engineErr("transition", id, errors.New("status check disagrees with the engine"))
}

// Complete ends the task as completed or failed with its outcome, in the
// same script run.
func (s *Store) Complete(ctx context.Context, owner tasks.Owner, id string, status tasks.Status, message string, outcome tasks.Outcome) (tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return tasks.Record{}, err
	}
	allowed := allowedFrom(status)
	// Errors independent of the current status still come after the
	// not-found check, worded by CheckComplete on the current record.
	if storekit.CheckComplete(tasks.Record{Status: tasks.StatusWorking}, status, outcome) != nil {
		allowed = ","
	}
	rec, ok, err := s.change(ctx, "complete", owner, id, allowed, status, message, &outcome)
	if err != nil || ok {
		return rec, err
	}
	if err := storekit.CheckComplete(rec, status, outcome); err != nil {
		return tasks.Record{}, err
	}
	return tasks.Record{}, engineErr("complete", id, errors.New("status check disagrees with the engine"))
}

// Cancel moves a non-terminal task to cancelled.
func (s *Store) Cancel(ctx context.Context, owner tasks.Owner, id string, message string) (tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return tasks.Record{}, err
	}
	o := storekit.CancelledOutcome(message)
	rec, ok, err := s.change(ctx, "cancel", owner, id, allowedFrom(tasks.StatusCancelled), tasks.StatusCancelled, message, &o)
	if err != nil || ok {
		return rec, err
	}
	return tasks.Record{}, &tasks.Error{Op: "cancel", TaskID: id, Status: rec.Status,
		Target: tasks.StatusCancelled, Err: tasks.ErrInvalidTransition}
}

// maxVarRetries bounds the read-merge-write loop of SetVariables under
// contention.
const maxVarRetries = 64

// SetVariables merges patch into the task's variables with
// storekit.MergeVariables and stores the result only if the task has not
// changed since it was read (a version check in Lua), retrying otherwise.
func (s *Store) SetVariables(ctx context.Context, owner tasks.Owner, id string, patch map[string]json.RawMessage) (tasks.Record, error) {
	const op = "set variables"
	if err := ctx.Err(); err != nil {
		return tasks.Record{}, err
	}
	for range maxVarRetries {
		cur, err := s.get(ctx, op, owner, id, false)
		if err != nil {
			return tasks.Record{}, err
		}
		vars, err := storekit.MergeVariables(cur.Variables, patch, s.cfg.MaxVariablesBytes)
		if err != nil {
			return tasks.Record{}, &tasks.Error{Op: op, TaskID: id, Status: cur.Status, Err: err}
		}
		reply, err := varsScript.Run(ctx, s.client, []string{s.taskKey(id)}, string(owner), msStr(s.cfg.Now()),
			strconv.FormatInt(cur.Version, 10), string(storekit.EncodeVariables(vars)), s.channel(id)).Text()
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

// Result returns the task with its outcome once it is terminal.
func (s *Store) Result(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return tasks.Record{}, err
	}
	rec, err := s.get(ctx, "result", owner, id, true)
	if err != nil {
		return tasks.Record{}, err
	}
	if !rec.Status.Terminal() {
		return tasks.Record{}, &tasks.Error{Op: "result", TaskID: id, Status: rec.Status, Err: tasks.ErrNotReady}
	}
	return rec, nil
}

// List returns one page of the owner's visible tasks in (CreatedAt, ID)
// order, read by one script from the owner's index.
func (s *Store) List(ctx context.Context, owner tasks.Owner, opts tasks.ListOptions) (tasks.Page, error) {
	if err := ctx.Err(); err != nil {
		return tasks.Page{}, err
	}
	start := ""
	if opts.Cursor != "" {
		c, err := storekit.DecodeCursor(opts.Cursor)
		if err != nil {
			return tasks.Page{}, err
		}
		start = indexMember(c.CreatedAt.UnixMilli(), c.ID)
	}
	limit := s.cfg.PageLimit(opts.Limit)
	vals, err := listScript.Run(ctx, s.client, []string{s.indexKey(owner)},
		string(owner), msStr(s.cfg.Now()), start, limit+1, s.prefix).StringSlice()
	if err != nil {
		return tasks.Page{}, engineErr("list", "", err)
	}
	var page tasks.Page
	n := min(len(vals), limit)
	if n > 0 {
		page.Tasks = make([]tasks.Record, 0, n)
	}
	for _, v := range vals[:n] {
		id, fields, err := unpackReply(v)
		if err != nil {
			return tasks.Page{}, engineErr("list", "", err)
		}
		rec, err := parseRecord(id, fields)
		if err != nil {
			return tasks.Page{}, engineErr("list", id, err)
		}
		page.Tasks = append(page.Tasks, rec)
	}
	if len(vals) > limit {
		page.NextCursor = storekit.CursorOf(page.Tasks[len(page.Tasks)-1]).Encode()
	}
	return page, nil
}

// batchSize bounds the work of one DeleteExpired or ReapExpiredLeases
// script run, so Redis never blocks long.
const batchSize = 500

// DeleteExpired removes every expired task of every owner, in batches.
func (s *Store) DeleteExpired(ctx context.Context) (int, error) {
	total := 0
	for {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		res, err := deleteExpiredScript.Run(ctx, s.client, []string{s.expiryKey(), s.leaseKey()},
			msStr(s.cfg.Now()), s.prefix, batchSize).Int64Slice()
		if err != nil {
			return total, engineErr("delete expired", "", err)
		}
		total += int(res[0])
		if res[1] < batchSize {
			return total, nil
		}
	}
}

// RenewLease records that the task's work is alive until until.
func (s *Store) RenewLease(ctx context.Context, owner tasks.Owner, id string, until time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	res, err := renewScript.Run(ctx, s.client, []string{s.taskKey(id), s.leaseKey()},
		string(owner), msStr(s.cfg.Now()), msStr(until), id).Text()
	if err != nil {
		return engineErr("renew lease", id, err)
	}
	switch res {
	case "ok":
		return nil
	case "nf":
		return notFound("renew lease", id)
	case "exp":
		return expired("renew lease", id)
	}
	return engineErr("renew lease", id, fmt.Errorf("unexpected script reply %q", res))
}

// ReapExpiredLeases fails every non-terminal task whose lease deadline is
// at or before Config.Now().
func (s *Store) ReapExpiredLeases(ctx context.Context) (int, error) {
	o := storekit.LostWorkerOutcome()
	total := 0
	for {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		res, err := reapScript.Run(ctx, s.client, []string{s.leaseKey()},
			msStr(s.cfg.Now()), s.prefix, batchSize, o.Error.Message,
			strconv.FormatInt(o.Error.Code, 10), o.Error.Message).Int64Slice()
		if err != nil {
			return total, engineErr("reap leases", "", err)
		}
		total += int(res[0])
		if res[1] < batchSize {
			return total, nil
		}
	}
}

// Wait blocks until the task's Version exceeds after. It subscribes to
// the task's channel (on the connection all Waits of the Store share) and
// waits for Redis to confirm before reading the task, so a change between
// the caller's read and the Wait is never missed; it also rereads every
// Config.PollInterval, which catches expiry and covers a lost
// subscription.
func (s *Store) Wait(ctx context.Context, owner tasks.Owner, id string, after int64) (tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return tasks.Record{}, err
	}
	// Fast path: the task has already changed (or is gone).
	if rec, err := s.get(ctx, "wait", owner, id, false); err != nil || rec.Version > after {
		return rec, err
	}
	channel := s.channel(id)
	sb, err := s.hub.watch(ctx, channel)
	if err != nil {
		return tasks.Record{}, engineErr("wait", id, err)
	}
	defer s.hub.unwatch(channel, sb)
	t := time.NewTicker(s.cfg.PollInterval)
	defer t.Stop()
	// Until Redis confirms the subscription a PUBLISH could be missed, so
	// the first read below waits for the confirmation (at most one poll
	// interval; the polling covers the rest).
	select {
	case <-sb.ready:
	case <-t.C:
	case <-ctx.Done():
		return tasks.Record{}, ctx.Err()
	}
	for {
		changed := s.hub.current(sb)
		rec, err := s.get(ctx, "wait", owner, id, false)
		if err != nil || rec.Version > after {
			return rec, err
		}
		select {
		case <-changed:
		case <-t.C:
		case <-ctx.Done():
			return tasks.Record{}, ctx.Err()
		}
	}
}
