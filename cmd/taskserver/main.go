// Command taskserver runs the reference MCP 2025-11-25 tasks server over
// Streamable HTTP (default) or stdio, on any store the project offers.
//
//	taskserver --addr 127.0.0.1:8080 --store memory --fixtures
//	taskserver --store sqlite:/var/lib/tasks.db --tokens tokens.txt
//	taskserver --stdio --fixtures
package main

import (
	"context"
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
	fs.DurationVar(&o.shutdownGrace, "shutdown-grace", 10*time.Second, "how long shutdown waits for requests and tasks")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %v", fs.Args())
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
	if !o.stdio && !o.allowRemote {
		if err := checkLoopback(o.addr); err != nil {
			return err
		}
	}
	cfg := tasks.Config{
		MaxTasksPerOwner: o.maxTasks,
		DefaultTTL:       o.defaultTTL,
		MaxTTL:           o.maxTTL,
		PollInterval:     o.poll,
		AllowAnonymous:   o.allowAnonymous,
	}.WithDefaults()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	store, err := storeurl.Open(ctx, o.store, cfg)
	if err != nil {
		return fmt.Errorf("opening store %q: %w", o.store, err)
	}
	defer store.Close()
	engine := tasks.NewEngine(store, cfg, tasks.WithLogger(log),
		tasks.WithLeaseDuration(o.leaseDuration), tasks.WithReapInterval(o.reapInterval))
	sopts := []server.Option{server.WithLogger(log), server.WithMaxBodyBytes(o.maxBody), server.WithAllowAnonymous(o.allowAnonymous),
		server.WithSessionIdleTimeout(o.sessionIdle)}
	if o.fixtures {
		sopts = append(sopts, server.WithFixtures())
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
		log.Info("serving MCP over stdio", "store", o.store, "fixtures", o.fixtures)
		err := srv.ServeStdio(ctx, stdin, stdout)
		return errors.Join(err, closeEngine())
	}
	ln, err := server.Listen(srv, o.addr)
	if err != nil {
		return err
	}
	log.Info("serving MCP over Streamable HTTP", "url", ln.URL, "store", o.store, "fixtures", o.fixtures,
		"tokens", o.tokens != "", "max_tasks_per_owner", cfg.MaxTasksPerOwner, "max_ttl", cfg.MaxTTL, "default_ttl", cfg.DefaultTTL)
	<-ctx.Done()
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), o.shutdownGrace)
	defer cancel()
	return errors.Join(ln.Close(sctx), closeEngine())
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
