// Command workflow is an MCP server on the official Go SDK whose prompt
// plan_trip starts a workflow that runs as a task: two server steps, a
// step handed to the client, and a server step that needs the client's
// answer. It also serves the conformance suite's fixture tools. It serves
// Streamable HTTP on /mcp, on any task store.
//
//	workflow --addr 127.0.0.1:8080 --store memory
//	workflow --store postgres://localhost/tasks --tokens tokens.txt
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

	"github.com/mcptasks/mcptasks/examples/workflow/app"
	"github.com/mcptasks/mcptasks/tasks"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stderr))
}

// run parses the flags and serves until ctx ends.
func run(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("workflow", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address (loopback); the MCP endpoint is /mcp")
	store := fs.String("store", "memory", "task store: memory, sqlite:PATH, postgres://…, redis://…, dynamodb://TABLE?…")
	tokens := fs.String("tokens", "", "file of \"TOKEN SUBJECT\" lines: bearer tokens are then required and identify requestors")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	poll := fs.Duration("poll-interval", tasks.DefaultPollInterval, "pollInterval suggested to requestors")
	lease := fs.Duration("lease", tasks.DefaultLeaseDuration, "work lease of task tools on shared stores")
	reap := fs.Duration("reap-interval", 10*time.Second, "how often expired tasks and lapsed leases are cleaned up")
	grace := fs.Duration("shutdown-grace", 10*time.Second, "how long shutdown waits for requests and tasks")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "workflow: unexpected arguments:", fs.Args())
		return 2
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintln(stderr, "workflow: --log-level:", err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	err := app.Serve(ctx, app.Options{Addr: *addr, Store: *store, Tokens: *tokens, PollInterval: *poll,
		Lease: *lease, ReapInterval: *reap, ShutdownGrace: *grace, Logger: log})
	if err != nil {
		log.Error("workflow server stopped", "err", err)
		return 1
	}
	return 0
}
