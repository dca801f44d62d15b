package suites

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/wire"
	"github.com/onsi/ginkgo/v2"
)

// ServerEnv is what a server spec sees: a connected client for identity A
// on the first URL, the server's declared capabilities and tools, and
// helpers to create tasks with fixtures. Fields are reset before every
// spec; read them only inside setup and subject nodes.
type ServerEnv struct {
	// Config is the server configuration (defaults applied).
	Config ServerConfig
	// A is a connected client of identity A on the first URL.
	A *client.Client
	// Init is A's initialize result.
	Init *client.InitializeResult
	// Caps are the task capabilities the server declared to A.
	Caps Capabilities
	// Tools are the server's tools by name, from tools/list.
	Tools map[string]schema.Tool

	opts     *options
	children stdioChildren

	authOnce sync.Once
	auth     Authorization

	// features is the run's feature decision, made once (see gate).
	featMu   sync.Mutex
	features FeatureSet
	// named is what the registry names for the running spec's
	// requirement: a body may use only these features.
	named Needs

	// ext is the running EXT- spec's state (see extSetup).
	ext *extState
	// wireTasks and wireAll are the run's complete wire tours (see
	// walkTasks and walkAll), shared by the ext-wire specs.
	wireMu    sync.Mutex
	wireTasks *wireTour
	wireAll   *wireTour

	mu       sync.Mutex
	messages []*client.Message
	created  []createdTask
	last     *client.Exchange
}

type createdTask struct {
	c  *client.Client
	id string
}

// setup connects identity A and discovers capabilities and tools.
func (env *ServerEnv) setup(ctx context.Context) {
	env.mu.Lock()
	env.messages = nil
	env.created = nil
	env.last = nil
	env.mu.Unlock()
	env.children = stdioChildren{}
	env.A, env.Init, env.Caps, env.Tools = nil, nil, Capabilities{}, nil
	if err := env.Config.Validate(); err != nil {
		HarnessError("invalid server configuration: %v", err)
	}

	c := env.NewClient(env.Config.URLs[0], env.Config.Headers)
	init, err := c.Connect(ctx)
	// A server restarting after a crash (its own, reported by the spec
	// that caused it) refuses connections for a moment: give it a few
	// seconds before calling every later spec an error.
	for deadline := time.Now().Add(env.scaled(5 * time.Second)); err != nil && connectionLost(err) && time.Now().Before(deadline); {
		select {
		case <-ctx.Done():
		case <-time.After(env.scaled(250 * time.Millisecond)):
		}
		c = env.NewClient(env.Config.URLs[0], env.Config.Headers)
		init, err = c.Connect(ctx)
	}
	if err != nil {
		HarnessError("cannot initialize a session with %s: %v", env.Config.URLs[0], err)
	}
	env.A, env.Init = c, init
	env.Caps = parseCapabilities(c.InitializeResult())
	tools, err := c.ListTools(ctx)
	if err != nil {
		HarnessError("tools/list failed on %s: %v", env.Config.URLs[0], err)
	}
	env.Tools = map[string]schema.Tool{}
	for _, t := range tools {
		env.Tools[t.Name] = t
	}
	ginkgo.DeferCleanup(env.teardown)
}

// teardown cancels the tasks the spec left running and validates every
// message the spec received against its schema definition. A violation is
// reported as context only: each kind of answer is judged once, by the
// spec of its own requirement (see wireRequirement), so one malformed
// answer type fails that requirement and not every spec that happened to
// receive it.
func (env *ServerEnv) teardown(ctx ginkgo.SpecContext) {
	env.mu.Lock()
	created := env.created
	msgs := env.messages
	env.mu.Unlock()
	env.checkUndeclaredUse(msgs)
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), env.scaled(5*time.Second))
	defer cancel()
	if env.features.On(FeatureCancel) {
		for _, t := range created {
			if got, err := t.c.GetTask(bg, t.id); err == nil && !got.Terminal() {
				_, _ = t.c.CancelTask(bg, t.id)
			}
		}
	}
	if violations := validateMessages(msgs); len(violations) > 0 {
		ginkgo.AddReportEntry("wire: messages that do not conform (each judged by the spec of its own requirement)",
			strings.Join(violations, "\n"), ginkgo.ReportEntryVisibilityFailureOrVerbose)
	}
}

// NewClient returns an unconnected client for url with the given headers,
// whose messages are validated at the end of the spec.
func (env *ServerEnv) NewClient(u string, headers http.Header, opts ...client.Option) *client.Client {
	base := []client.Option{
		client.WithHeaders(headers),
		client.WithHTTPClient(env.Config.HTTPClient),
		client.WithClientInfo("mcptasks-conformance", "suite"),
		client.WithObserver(env.record),
		client.WithExchangeObserver(env.recordExchange),
		client.WithRequestHandler(answerElicitation),
	}
	var c *client.Client
	if env.Config.Stdio() {
		c = env.newStdioClient(headers, append(base, opts...))
	} else {
		c = client.New(u, append(base, opts...)...)
	}
	ginkgo.DeferCleanup(func(ctx ginkgo.SpecContext) {
		bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), env.scaled(2*time.Second))
		defer cancel()
		_ = c.Close(bg)
	})
	return c
}

// Connect makes and connects a client, failing the spec as a harness
// error when the server cannot be reached.
func (env *ServerEnv) Connect(ctx context.Context, u string, headers http.Header, opts ...client.Option) *client.Client {
	ginkgo.GinkgoHelper()
	c := env.NewClient(u, headers, opts...)
	if _, err := c.Connect(ctx); err != nil {
		HarnessError("cannot initialize a session with %s: %v", u, err)
	}
	return c
}

// B connects identity B on the first URL, or reports the spec as
// not-supported when no second identity is configured.
func (env *ServerEnv) B(ctx context.Context) *client.Client {
	ginkgo.GinkgoHelper()
	if len(env.Config.HeadersB) == 0 {
		env.noIdentityB()
	}
	return env.Connect(ctx, env.Config.URLs[0], env.Config.HeadersB)
}

// answerElicitation is the default handler for server requests: it accepts
// every form elicitation with a value for each requested property.
func answerElicitation(_ context.Context, req *client.Message) (any, error) {
	switch req.Method {
	case wire.MethodPing:
		return struct{}{}, nil
	case wire.MethodElicitationCreate:
		return map[string]any{"action": "accept", "content": formAnswer(req.Params())}, nil
	}
	return nil, &client.RPCError{Code: -32601, Message: "the conformance harness does not handle " + req.Method}
}

// formAnswer fills every property of a requested schema with a value of
// its type.
func formAnswer(params json.RawMessage) map[string]any {
	var p struct {
		RequestedSchema struct {
			Properties map[string]struct {
				Type string   `json:"type"`
				Enum []string `json:"enum"`
			} `json:"properties"`
		} `json:"requestedSchema"`
	}
	_ = json.Unmarshal(params, &p)
	out := map[string]any{}
	for name, prop := range p.RequestedSchema.Properties {
		switch {
		case len(prop.Enum) > 0:
			out[name] = prop.Enum[0]
		case prop.Type == "number" || prop.Type == "integer":
			out[name] = 1
		case prop.Type == "boolean":
			out[name] = true
		default:
			out[name] = "conformance answer"
		}
	}
	return out
}

// undeclaredRefusal makes the spec not-applicable when a task-augmented
// call failed on a server that never declared task-augmented tools/call:
// it may refuse what it did not promise.
func (env *ServerEnv) undeclaredRefusal(err error, tool string) {
	ginkgo.GinkgoHelper()
	if err != nil && !env.Caps.ToolsCall && !connectionLost(err) {
		NotApplicable("the server does not declare capabilities.tasks.requests.tools.call and refused a task-augmented call of %q: %v", tool, err)
	}
}
