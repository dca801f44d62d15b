// Command mcpgo-server is an example MCP server on github.com/mark3labs/mcp-go
// whose tasks are served by adapters/mcpgo on any mcptasks store:
//
//	mcpgo-server --addr 127.0.0.1:8080 --store redis://127.0.0.1:6379/0
//	mcpgo-server --stdio --store sqlite:/tmp/tasks.db
//
// It offers a prompt, a resource, a plain tool and task tools whose names
// the conformance suite maps to its fixture roles (see app.Fixtures).
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcptasks/mcptasks/examples/mcpgo-server/app"
)

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcpgo-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address; the MCP endpoint is /mcp")
	store := fs.String("store", "memory", "task store URL: memory, sqlite:PATH, postgres://…, redis://…, dynamodb://…")
	tokens := fs.String("tokens", "", `file of "TOKEN SUBJECT" lines; HTTP requests then need a bearer token`)
	stdio := fs.Bool("stdio", false, "serve one client on stdin/stdout instead of HTTP")
	owner := fs.String("owner", "", "with --stdio, the requestor the connection's tasks belong to")
	builtin := fs.Bool("builtin-tasks", false, "serve tasks with mcp-go's own implementation instead of the adapter (for comparison)")
	poll := fs.Duration("poll-interval", time.Second, "pollInterval suggested to requestors")
	level := fs.String("log-level", "info", "debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*level)); err != nil {
		fmt.Fprintln(stderr, "mcpgo-server: --log-level:", err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lvl}))
	o := app.Options{Store: *store, StdioOwner: *owner, PollInterval: *poll, BuiltinTasks: *builtin, Log: log}
	if *tokens != "" {
		t, err := readTokens(*tokens)
		if err != nil {
			fmt.Fprintln(stderr, "mcpgo-server:", err)
			return 2
		}
		o.Tokens = t
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, o, *addr, *stdio, stdin, stdout, log); err != nil {
		log.Error("mcpgo-server stopped", "err", err)
		return 1
	}
	return 0
}

func serve(ctx context.Context, o app.Options, addr string, stdio bool, stdin io.Reader, stdout io.Writer, log *slog.Logger) error {
	a, err := app.New(ctx, o)
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.Close(cctx)
	}()
	if stdio {
		return a.ServeStdio(ctx, stdin, stdout)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", a.Handler())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Info("serving MCP over Streamable HTTP", "url", "http://"+ln.Addr().String()+"/mcp", "builtin_tasks", o.BuiltinTasks)
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// readTokens reads "TOKEN SUBJECT" lines; blank lines and # comments are skipped.
func readTokens(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("token file: %w", err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 {
			return nil, fmt.Errorf("token file %s line %d: want \"TOKEN SUBJECT\"", path, n)
		}
		out[fields[0]] = fields[1]
	}
	return out, sc.Err()
}
