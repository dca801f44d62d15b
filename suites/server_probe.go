package suites

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks/client"
)

// Capabilities is what a server declared about tasks in initialize.
type Capabilities struct {
	Tasks     bool // capabilities.tasks present
	List      bool // tasks.list
	Cancel    bool // tasks.cancel
	ToolsCall bool // tasks.requests.tools.call
	Tools     bool // capabilities.tools
}

// Names lists the declared task features, for reports.
func (c Capabilities) Names() []string {
	var out []string
	if c.Tasks {
		out = append(out, "tasks")
	}
	if c.ToolsCall {
		out = append(out, "tasks.requests.tools.call")
	}
	if c.List {
		out = append(out, "tasks.list")
	}
	if c.Cancel {
		out = append(out, "tasks.cancel")
	}
	return out
}

// parseCapabilities reads the task capabilities of an initialize result.
// A member counts as declared when present and not null or false (a
// boolean true is a wire violation the wire specs report, but still
// counts as support).
func parseCapabilities(initResult json.RawMessage) Capabilities {
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	_ = json.Unmarshal(initResult, &res)
	present := func(raw json.RawMessage) bool {
		s := strings.TrimSpace(string(raw))
		return s != "" && s != "null" && s != "false"
	}
	var c Capabilities
	c.Tools = present(res.Capabilities["tools"])
	tasksRaw, ok := res.Capabilities["tasks"]
	if !ok || !present(tasksRaw) {
		return c
	}
	c.Tasks = true
	var t map[string]json.RawMessage
	if json.Unmarshal(tasksRaw, &t) != nil {
		return c
	}
	c.List = present(t["list"])
	c.Cancel = present(t["cancel"])
	var req map[string]map[string]json.RawMessage
	if json.Unmarshal(t["requests"], &req) == nil {
		c.ToolsCall = present(req["tools"]["call"])
	}
	return c
}

// probeServer connects to the first URL once, outside any spec, and returns the
// server's capabilities and tool list. cmd/conformance uses it to tell an
// unreachable server (a harness error) from a failing one.
func probeServer(ctx context.Context, cfg ServerConfig) (*client.InitializeResult, Capabilities, []schema.Tool, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, Capabilities{}, nil, err
	}
	if cfg.Stdio() {
		return probeStdio(ctx, cfg)
	}
	c := client.New(cfg.URLs[0], client.WithHeaders(cfg.Headers), client.WithHTTPClient(cfg.HTTPClient),
		client.WithClientInfo("mcptasks-conformance", "probe"))
	init, err := c.Connect(ctx)
	if err != nil {
		return nil, Capabilities{}, nil, err
	}
	defer c.Close(context.WithoutCancel(ctx))
	caps := parseCapabilities(c.InitializeResult())
	tools, err := c.ListTools(ctx)
	if err != nil {
		return init, caps, nil, fmt.Errorf("tools/list: %w", err)
	}
	return init, caps, tools, nil
}

// Unreachable reports whether err means the server could not be contacted
// at all (connection refused, DNS failure, timeout before any answer).
func Unreachable(err error) bool {
	var ne net.Error
	var oe *net.OpError
	var de *net.DNSError
	return errors.As(err, &oe) || errors.As(err, &de) || (errors.As(err, &ne) && ne.Timeout())
}
