// Command gosdk-server is an MCP server built on the official Go SDK with
// tasks from mcptasks (adapters/gosdk), on any task store: a prompt, a
// resource, a plain tool and task tools (optional, required, one that asks
// for input, one that reports progress). It serves Streamable HTTP on
// /mcp, or stdio.
//
//	gosdk-server --addr 127.0.0.1:8080 --store memory
//	gosdk-server --store redis://127.0.0.1:6379/0 --tokens tokens.txt
//	gosdk-server --stdio --store sqlite:/var/lib/tasks.db
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcptasks/mcptasks/examples/gosdk-server/app"
	"github.com/mcptasks/mcptasks/tasks"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, nil))
}

// options are the command-line settings.
type options struct {
	addr, store, tokens, logLevel string
	stdio                         bool
	poll, lease, reap, grace      time.Duration
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("gosdk-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "listen address (loopback); the MCP endpoint is /mcp")
	fs.StringVar(&o.store, "store", "memory", "task store: memory, sqlite:PATH, postgres://…, redis://…, dynamodb://TABLE?…")
	fs.StringVar(&o.tokens, "tokens", "", "file of \"TOKEN SUBJECT\" lines: bearer tokens are then required and identify requestors")
	fs.BoolVar(&o.stdio, "stdio", false, "serve one client over stdin/stdout instead of HTTP")
	fs.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.DurationVar(&o.poll, "poll-interval", tasks.DefaultPollInterval, "pollInterval suggested to requestors")
	fs.DurationVar(&o.lease, "lease", tasks.DefaultLeaseDuration, "work lease on shared stores; a lost instance's tasks fail after it lapses")
	fs.DurationVar(&o.reap, "reap-interval", 10*time.Second, "how often expired tasks and lapsed leases are cleaned up")
	fs.DurationVar(&o.grace, "shutdown-grace", 10*time.Second, "how long shutdown waits for requests and tasks")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	return o, nil
}

// run serves until ctx ends or, with --stdio, stdin ends. ready, if set,
// gets the MCP endpoint URL once the HTTP server listens.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, ready func(url string)) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "gosdk-server:", err)
		return 2
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		fmt.Fprintln(stderr, "gosdk-server: --log-level:", err)
		return 2
	}
	// Logs go to stderr: with --stdio, stdout carries only MCP messages.
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	err = app.Serve(ctx, app.Options{
		Addr: o.addr, Store: o.store, Tokens: o.tokens, Stdio: o.stdio,
		PollInterval: o.poll, Lease: o.lease, ReapInterval: o.reap, ShutdownGrace: o.grace,
		Logger: log, Stdin: stdin, Stdout: stdout, Ready: ready,
	})
	if err != nil {
		log.Error("gosdk-server stopped", "err", err)
		return 1
	}
	return 0
}
