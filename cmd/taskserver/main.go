// Command taskserver runs the reference MCP tasks server over Streamable
// HTTP (default) or stdio, on any store the project offers. It serves MCP
// 2025-11-25 (initialize-based sessions) and MCP 2026-07-28 with the tasks
// extension (per-request _meta) on the same endpoint; see docs/ext-tasks.md.
//
//	taskserver --addr 127.0.0.1:8080 --store memory --fixtures
//	taskserver --store sqlite:/var/lib/tasks.db --tokens tokens.txt
//	taskserver --stdio --fixtures
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcptasks/mcptasks/stores/storeurl"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/server"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// protocolModern is the --protocol value that serves 2026-07-28 only.
const protocolModern = "2026-07-28"

// options are the command-line settings.
type options struct {
	addr, store, tokens, logLevel string
	allowAnonymous, fixtures      bool
	stdio, allowRemote            bool
	maxTasks                      int
	defaultTTL, maxTTL, poll      time.Duration
	leaseDuration, reapInterval   time.Duration
	maxBody                       int64
	origins                       string
	shutdownGrace                 time.Duration
	sessionIdle                   time.Duration

	anonymousRemote                          bool
	maxSessions, maxSessionsPerIdent         int
	maxConns                                 int
	headerTimeout, bodyTimeout, connIdle     time.Duration
	maxActive, maxRetained, maxRetainedTotal int
	maxWaiting                               int
	cursorKeyFile                            string
	protocol                                 string
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("taskserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "listen address; the MCP endpoint is /mcp")
	fs.StringVar(&o.store, "store", "memory", "task store: memory, sqlite:PATH, postgres://…, redis://…, dynamodb://TABLE?…")
	fs.StringVar(&o.tokens, "tokens", "", "file of \"TOKEN SUBJECT\" lines; bearer tokens then identify requestors")
	fs.BoolVar(&o.allowAnonymous, "allow-anonymous", false, "with --tokens, accept requests without a token (their session owns their tasks)")
	fs.BoolVar(&o.fixtures, "fixtures", false, "expose the fixture_* tools used by the conformance suite")
	fs.StringVar(&o.protocol, "protocol", "both", "MCP protocol revisions served: both (2025-11-25 through initialize and 2026-07-28 through per-request _meta, on one endpoint) or 2026-07-28 (that one only: initialize is refused, GET and DELETE get 405)")
	fs.BoolVar(&o.stdio, "stdio", false, "serve one client over stdin/stdout instead of HTTP")
	fs.BoolVar(&o.allowRemote, "allow-remote", false, "allow --addr on a non-loopback interface")
	fs.IntVar(&o.maxTasks, "max-tasks", tasks.DefaultMaxTasksPerOwner, "maximum active tasks per requestor (negative: no cap)")
	fs.DurationVar(&o.defaultTTL, "default-ttl", tasks.DefaultDefaultTTL, "ttl of tasks whose requestor asks for none (-1ns: unlimited)")
	fs.DurationVar(&o.maxTTL, "max-ttl", tasks.DefaultMaxTTL, "largest ttl granted; larger requests are clamped (-1ns: no maximum)")
	fs.DurationVar(&o.poll, "poll-interval", tasks.DefaultPollInterval, "pollInterval suggested to requestors")
	fs.DurationVar(&o.leaseDuration, "lease", tasks.DefaultLeaseDuration, "work lease (shared stores and SQLite); a lost instance's tasks fail after it lapses")
	fs.DurationVar(&o.reapInterval, "reap-interval", 10*time.Second, "how often expired tasks and lapsed leases are cleaned up")
	fs.Int64Var(&o.maxBody, "max-body", server.DefaultMaxBodyBytes, "largest accepted message, in bytes")
	fs.StringVar(&o.origins, "allow-origin", "", "comma-separated extra Origin values to accept (loopback origins always are)")
	fs.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.DurationVar(&o.sessionIdle, "session-idle", 30*time.Minute, "forget HTTP sessions idle this long (no request, stream or request in flight)")
	fs.BoolVar(&o.anonymousRemote, "allow-anonymous-remote", false, "with --allow-remote, allow serving without --tokens: anyone who reaches the port may use the server")
	fs.IntVar(&o.maxSessions, "max-sessions", server.DefaultMaxSessions, "maximum open HTTP sessions (negative: no cap)")
	fs.IntVar(&o.maxSessionsPerIdent, "max-sessions-per-identity", server.DefaultMaxSessionsPerIdentity, "maximum open HTTP sessions per bearer subject, or per client IP address without a token (negative: no cap)")
	fs.IntVar(&o.maxConns, "max-conns", server.DefaultMaxConns, "maximum open client connections; lowered to fit the open-file limit (negative: no cap)")
	fs.DurationVar(&o.headerTimeout, "header-timeout", server.DefaultReadHeaderTimeout, "how long a client may take to send request headers")
	fs.DurationVar(&o.bodyTimeout, "body-timeout", server.DefaultBodyTimeout, "how long a client may take to send a request body (negative: no limit)")
	fs.DurationVar(&o.connIdle, "conn-idle", server.DefaultConnIdleTimeout, "close kept-alive connections idle this long")
	fs.IntVar(&o.maxWaiting, "max-waiting-per-identity", server.DefaultMaxWaitingPerIdentity, "maximum waiting HTTP requests (tools/call, tasks/result, GET streams) per bearer subject or client IP (negative: no cap)")
	fs.IntVar(&o.maxActive, "max-active-tasks", server.DefaultMaxActiveTasks, "maximum tasks running on this instance, all requestors together (negative: no cap)")
	fs.IntVar(&o.maxRetained, "max-retained-tasks", server.DefaultMaxRetainedTasksPerOwner, "maximum unexpired tasks, finished ones included, per requestor on this instance (negative: no cap)")
	fs.IntVar(&o.maxRetainedTotal, "max-retained-tasks-total", server.DefaultMaxRetainedTasks, "maximum unexpired tasks on this instance, all requestors together (negative: no cap)")
	fs.DurationVar(&o.shutdownGrace, "shutdown-grace", 10*time.Second, "how long shutdown waits for requests and tasks")
	fs.StringVar(&o.cursorKeyFile, "cursor-key-file", os.Getenv(cursorKeyEnv),
		"file holding the secret that signs tasks/list cursors; give every instance sharing a store the same one (default $"+cursorKeyEnv+"; none: a key derived from the whole store URL, random per process on memory)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if o.protocol != "both" && o.protocol != protocolModern {
		return o, fmt.Errorf("--protocol %q: want both or %s", o.protocol, protocolModern)
	}
	return o, nil
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "taskserver:", err)
		return 2
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		fmt.Fprintln(stderr, "taskserver: --log-level:", err)
		return 2
	}
	// Logs go to stderr: with --stdio, stdout carries only MCP messages.
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if err := serve(o, log, stdin, stdout); err != nil {
		log.Error("taskserver stopped", "err", err)
		return 1
	}
	return 0
}

func serve(o options, log *slog.Logger, stdin io.Reader, stdout io.Writer) error {
	if !o.stdio {
		if err := checkExposure(o, log); err != nil {
			return err
		}
	}
	cursorKey, err := loadCursorKey(o.cursorKeyFile)
	if err != nil {
		return err
	}
	if cursorKey == "" {
		cursorKey = derivedCursorKey(o.store)
	}
	cfg := tasks.Config{
		MaxTasksPerOwner: o.maxTasks,
		DefaultTTL:       o.defaultTTL,
		MaxTTL:           o.maxTTL,
		PollInterval:     o.poll,
		AllowAnonymous:   o.allowAnonymous,
		CursorKey:        cursorKey,
	}.WithDefaults()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// The store URL may hold a password: only its redacted form is ever
	// logged or shown (storeurl's errors are redacted too).
	storeName := storeurl.Redact(o.store)
	store, err := storeurl.Open(ctx, o.store, cfg)
	if err != nil {
		return fmt.Errorf("opening store %q: %w", storeName, err)
	}
	defer store.Close()
	logCursorKey(log, o)
	engine := tasks.NewEngine(store, cfg, tasks.WithLogger(log),
		tasks.WithLeaseDuration(o.leaseDuration), tasks.WithReapInterval(o.reapInterval))
	sopts := []server.Option{server.WithLogger(log), server.WithMaxBodyBytes(o.maxBody), server.WithAllowAnonymous(o.allowAnonymous),
		server.WithSessionIdleTimeout(o.sessionIdle), server.WithMaxSessions(o.maxSessions),
		server.WithMaxSessionsPerIdentity(o.maxSessionsPerIdent), server.WithBodyTimeout(o.bodyTimeout),
		server.WithMaxWaitingPerIdentity(o.maxWaiting), server.WithMaxActiveTasks(o.maxActive), server.WithMaxRetainedTasks(o.maxRetained, o.maxRetainedTotal)}
	if o.fixtures {
		sopts = append(sopts, server.WithFixtures())
	}
	if o.protocol == protocolModern {
		sopts = append(sopts, server.WithModernOnly())
	}
	if o.tokens != "" {
		v, err := server.LoadTokenFile(o.tokens)
		if err != nil {
			return err
		}
		sopts = append(sopts, server.WithTokenVerifier(v))
	}
	if o.origins != "" {
		sopts = append(sopts, server.WithAllowedOrigins(strings.Split(o.origins, ",")...))
	}
	srv, err := server.New(engine, sopts...)
	if err != nil {
		return err
	}
	closeEngine := func() error {
		cctx, cancel := context.WithTimeout(context.Background(), o.shutdownGrace)
		defer cancel()
		return engine.Close(cctx)
	}

	if o.stdio {
		log.Info("serving MCP over stdio", "store", storeName, "fixtures", o.fixtures)
		err := srv.ServeStdio(ctx, stdin, stdout)
		return errors.Join(err, closeEngine())
	}
	ln, err := server.Listen(srv, o.addr, server.WithMaxConns(o.maxConns),
		server.WithReadHeaderTimeout(o.headerTimeout), server.WithConnIdleTimeout(o.connIdle))
	if err != nil {
		return err
	}
	log.Info("serving MCP over Streamable HTTP", "url", ln.URL, "store", storeName, "fixtures", o.fixtures,
		"tokens", o.tokens != "", "max_tasks_per_owner", cfg.MaxTasksPerOwner, "max_active_tasks", o.maxActive,
		"max_retained_tasks", o.maxRetained, "max_sessions", o.maxSessions, "max_sessions_per_identity", o.maxSessionsPerIdent,
		"max_ttl", cfg.MaxTTL, "default_ttl", cfg.DefaultTTL)
	<-ctx.Done()
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), o.shutdownGrace)
	defer cancel()
	return errors.Join(ln.Close(sctx), closeEngine())
}

// checkExposure refuses listen addresses outside loopback unless
// --allow-remote is given, and refuses serving them to anyone without a
// token unless --allow-anonymous-remote says so, with a loud warning.
func checkExposure(o options, log *slog.Logger) error {
	if err := checkLoopback(o.addr); err == nil {
		return nil
	} else if !o.allowRemote {
		return err
	}
	open := o.tokens == "" || o.allowAnonymous
	switch {
	case open && !o.anonymousRemote && o.tokens == "":
		return fmt.Errorf("--allow-remote without --tokens would let anyone who reaches %s use this server; "+
			"pass --tokens FILE, or --allow-anonymous-remote if that is really wanted", o.addr)
	case open && !o.anonymousRemote:
		return fmt.Errorf("--allow-remote with --allow-anonymous lets anyone who reaches %s use this server without a token; "+
			"add --allow-anonymous-remote if that is really wanted", o.addr)
	case open:
		log.Warn("SERVING WITHOUT AUTHENTICATION ON A NON-LOOPBACK ADDRESS: anyone who can reach it can create tasks; only the session, connection and task caps protect it",
			"addr", o.addr)
	}
	return nil
}

// cursorKeyEnv names the environment variable that gives --cursor-key-file
// its default.
const cursorKeyEnv = "MCPTASKS_CURSOR_KEY_FILE"

// loadCursorKey reads the cursor signing key from path ("" = none). White
// space around the key is dropped, so the file may end with a newline; what
// is left must have at least tasks.MinCursorKeyBytes bytes.
func loadCursorKey(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("--cursor-key-file: %w", err)
	}
	key := strings.TrimSpace(string(b))
	if len(key) < tasks.MinCursorKeyBytes {
		return "", fmt.Errorf("--cursor-key-file %s: the key has %d bytes, want at least %d (for example: head -c 32 /dev/urandom | base64 > %s)",
			path, len(key), tasks.MinCursorKeyBytes, path)
	}
	return key, nil
}

// logCursorKey says at startup where the cursor key comes from, and warns
// when instances sharing a store would reject each other's cursors.
func logCursorKey(log *slog.Logger, o options) {
	switch {
	case o.cursorKeyFile != "":
		log.Info("tasks/list cursors are signed with the key from --cursor-key-file", "file", o.cursorKeyFile)
	case derivedCursorKey(o.store) != "":
		log.Info("no --cursor-key-file: tasks/list cursors are signed with a key derived from the store URL, so instances given the same URL accept each other's cursors; " +
			"a store URL without a password makes that key guessable (cursors still never reach another requestor's tasks): use --cursor-key-file for a secret one")
	}
}

// derivedCursorKey is the cursor key of an instance on a store that other
// instances may share when no key file is given: a hash of the whole store
// URL, password included, so that instances started with the same URL
// agree without further configuration and a requestor who does not know
// the URL cannot compute it. Stores only one process uses (memory) get ""
// and so a random key per process.
func derivedCursorKey(store string) string {
	if store == "" || store == "memory" {
		return ""
	}
	sum := sha256.Sum256([]byte("mcptasks cursor key v1\x00" + store))
	return hex.EncodeToString(sum[:])
}

// checkLoopback refuses listen addresses outside loopback.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("--addr %q is not a loopback address; pass --allow-remote to listen on it (and protect it with --tokens)", addr)
}
