// Package app is the example mcp-go server: a prompt, a resource, a plain
// tool and task tools (optional, required, one that asks for input, one
// that reports progress), with tasks served by adapters/mcpgo on any task
// store, or, for comparison, by mcp-go's own built-in tasks.
package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptasks/mcptasks/adapters/mcpgo"
	"github.com/mcptasks/mcptasks/stores/storeurl"
	"github.com/mcptasks/mcptasks/tasks"
)

// Options configure the example.
type Options struct {
	// Store is a task store URL (storeurl.Open): memory, sqlite:PATH,
	// postgres://…, redis://…, dynamodb://…. Default memory.
	Store string
	// Tokens maps bearer tokens to subjects; when set, HTTP requests need
	// one and tasks belong to its subject.
	Tokens map[string]string
	// StdioOwner names the requestor of a stdio connection.
	StdioOwner string
	// PollInterval is the pollInterval suggested to requestors.
	PollInterval time.Duration
	// BuiltinTasks serves tasks with mcp-go's own implementation instead of
	// the adapter (Store is then unused): the comparison the conformance
	// tests make.
	BuiltinTasks bool
	// Log receives the server's logs; default slog.Default().
	Log *slog.Logger
}

// App is a running example server.
type App struct {
	srv     *server.MCPServer
	adapter *mcpgo.Adapter
	engine  *tasks.Engine
	store   tasks.Store
	tokens  map[string]string
}

// New builds the example server.
func New(ctx context.Context, o Options) (*App, error) {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Store == "" {
		o.Store = "memory"
	}
	a := &App{tokens: o.Tokens}
	hooks := &server.Hooks{}
	sopts := []server.ServerOption{
		server.WithToolCapabilities(false),
		server.WithPromptCapabilities(false),
		server.WithResourceCapabilities(false, false),
		server.WithHooks(hooks),
	}
	if o.BuiltinTasks {
		sopts = append(sopts, server.WithTaskCapabilities(true, true, true))
	}
	a.srv = server.NewMCPServer("mcpgo-example", "0.1.0", sopts...)
	addPromptAndResource(a.srv)
	if o.BuiltinTasks {
		for _, t := range tools(a.srv) {
			if t.support != "" {
				t.tool.Execution = &mcp.ToolExecution{TaskSupport: t.support}
			}
			a.srv.AddTool(t.tool, t.handler)
		}
		return a, nil
	}

	cfg := tasks.Config{PollInterval: o.PollInterval, CursorKey: cursorKey(o.Store)}.WithDefaults()
	store, err := storeurl.Open(ctx, o.Store, cfg)
	if err != nil {
		return nil, fmt.Errorf("opening store %q: %w", storeurl.Redact(o.Store), err)
	}
	a.store = store
	a.engine = tasks.NewEngine(store, cfg, tasks.WithLogger(o.Log))
	aopts := []mcpgo.Option{mcpgo.WithLogger(o.Log)}
	if len(o.Tokens) > 0 {
		aopts = append(aopts, mcpgo.WithTokenVerifier(a.verify))
	}
	if o.StdioOwner != "" {
		aopts = append(aopts, mcpgo.WithStdioOwner(o.StdioOwner))
	}
	a.adapter, err = mcpgo.New(a.srv, hooks, a.engine, aopts...)
	if err != nil {
		_ = a.Close(ctx)
		return nil, err
	}
	for _, t := range tools(a.srv) {
		if t.support == "" {
			a.srv.AddTool(t.tool, t.handler)
			continue
		}
		if err := a.adapter.AddTaskTool(t.tool, mcpgo.TaskSupport(t.support), t.handler); err != nil {
			_ = a.Close(ctx)
			return nil, err
		}
	}
	return a, nil
}

// cursorKey derives the tasks/list cursor key from a shared store's URL,
// so every instance on that store accepts the others' cursors (memory:
// none, a random key per process).
func cursorKey(store string) string {
	if store == "" || store == "memory" {
		return ""
	}
	sum := sha256.Sum256([]byte("mcptasks cursor key v1\x00" + store))
	return hex.EncodeToString(sum[:])
}

func (a *App) verify(_ context.Context, token string) (string, error) {
	if sub, ok := a.tokens[token]; ok {
		return sub, nil
	}
	return "", errors.New("unknown token")
}

// MCPServer returns the mcp-go server.
func (a *App) MCPServer() *server.MCPServer { return a.srv }

// Handler returns the Streamable HTTP endpoint (mount it at /mcp).
func (a *App) Handler() http.Handler {
	h := server.NewStreamableHTTPServer(a.srv)
	if a.adapter != nil {
		return a.adapter.Handler(h)
	}
	if len(a.tokens) == 0 {
		return h
	}
	// Built-in tasks know no identities; the tokens are still checked.
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if _, known := a.tokens[tok]; !ok || !known {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			http.Error(w, "a valid bearer token is required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// ServeStdio serves one client on in and out until in ends or ctx is done.
func (a *App) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	stdio := server.NewStdioServer(a.srv)
	if a.adapter == nil {
		return stdio.Listen(ctx, in, out)
	}
	return a.adapter.ServeStdio(ctx, stdio, in, out)
}

// Close stops the task engine (running tasks fail over to other instances
// once their leases lapse) and closes the store.
func (a *App) Close(ctx context.Context) error {
	var errs []error
	if a.engine != nil {
		errs = append(errs, a.engine.Close(ctx))
	}
	if a.store != nil {
		errs = append(errs, a.store.Close())
	}
	return errors.Join(errs...)
}

func addPromptAndResource(srv *server.MCPServer) {
	srv.AddPrompt(mcp.NewPrompt("summarize",
		mcp.WithPromptDescription("Asks the model to summarize a text."),
		mcp.WithArgument("text", mcp.RequiredArgument(), mcp.ArgumentDescription("the text to summarize"))),
		func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("Summarize a text", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Summarize this text:\n\n"+req.Params.Arguments["text"])),
			}), nil
		})
	srv.AddResource(mcp.NewResource("example://about", "about",
		mcp.WithResourceDescription("What this server is."), mcp.WithMIMEType("text/plain")),
		func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain",
				Text: "An mcp-go server whose tasks live in an mcptasks store."}}, nil
		})
}
