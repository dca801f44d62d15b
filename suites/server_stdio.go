package suites

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks/client"
)

// stdioIdentityHeader marks, inside the harness only, which command a
// client of a stdio run is started from; it never reaches the server.
const stdioIdentityHeader = "X-Mcptasks-Stdio-Identity"

// Stdio reports whether the server under test is a child process spoken
// to over stdio (Command set) rather than a URL.
func (c ServerConfig) Stdio() bool { return len(c.Command) > 0 }

// stdioDefaults gives a stdio configuration the one placeholder URL and
// the identity markers the specs address clients by.
func (c ServerConfig) stdioDefaults() ServerConfig {
	if !c.Stdio() {
		return c
	}
	if len(c.URLs) == 0 {
		c.URLs = []string{client.StdioURL}
	}
	c.Headers = http.Header{stdioIdentityHeader: {"a"}}
	c.HeadersB = nil
	if len(c.CommandB) > 0 {
		c.HeadersB = http.Header{stdioIdentityHeader: {"b"}}
	}
	return c
}

// validateStdio checks the command part of a configuration.
func (c ServerConfig) validateStdio() error {
	if len(c.URLs) > 1 || (len(c.URLs) == 1 && c.URLs[0] != client.StdioURL) {
		return errors.New("give either server URLs or a command, not both")
	}
	if strings.TrimSpace(c.Command[0]) == "" {
		return errors.New("the command is empty")
	}
	if len(c.CommandB) > 0 && strings.TrimSpace(c.CommandB[0]) == "" {
		return errors.New("the command of identity B is empty")
	}
	return nil
}

var envAssignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// startCommand starts argv as a stdio server. Leading NAME=value words are
// taken as environment variables for the child, as a shell would.
func startCommand(ctx context.Context, argv []string, opts ...client.ProcessOption) (*client.Process, error) {
	var env []string
	for len(argv) > 0 && envAssignment.MatchString(argv[0]) {
		env, argv = append(env, argv[0]), argv[1:]
	}
	if len(argv) == 0 {
		return nil, errors.New("the command has only environment assignments")
	}
	return client.StartProcess(ctx, argv, env, opts...)
}

// ParseCommand splits a command line into words the way a POSIX shell
// does for simple commands: blanks separate words, single quotes keep
// everything, double quotes keep all but backslash escapes of " \ $ `,
// and a backslash outside quotes escapes the next character. Variables,
// globs and operators are not interpreted.
func ParseCommand(line string) ([]string, error) {
	var (
		words  []string
		cur    strings.Builder
		inWord bool
	)
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\'':
			inWord = true
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				cur.WriteRune(rs[j])
				j++
			}
			if j == len(rs) {
				return nil, errors.New("unterminated single quote")
			}
			i = j
		case r == '"':
			inWord = true
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				if rs[j] == '\\' && j+1 < len(rs) && strings.ContainsRune("\"\\$`", rs[j+1]) {
					j++
				}
				cur.WriteRune(rs[j])
			}
			if j == len(rs) {
				return nil, errors.New("unterminated double quote")
			}
			i = j
		case r == '\\':
			if i+1 == len(rs) {
				return nil, errors.New("trailing backslash")
			}
			inWord = true
			i++
			cur.WriteRune(rs[i])
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			inWord = true
			cur.WriteRune(r)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("empty command")
	}
	return words, nil
}

// stdioChildren are the server processes one spec started.
type stdioChildren struct {
	mu    sync.Mutex
	procs []*client.Process
}

func (s *stdioChildren) add(p *client.Process) {
	s.mu.Lock()
	s.procs = append(s.procs, p)
	s.mu.Unlock()
}

// stderr is what the spec's server processes wrote on stderr, for the
// evidence of a failure ("" if nothing).
func (s *stdioChildren) stderr(limit int) string {
	s.mu.Lock()
	procs := append([]*client.Process(nil), s.procs...)
	s.mu.Unlock()
	var b strings.Builder
	for i, p := range procs {
		out := strings.TrimSpace(p.Stderr())
		if out == "" {
			continue
		}
		if len(out) > limit {
			out = "…" + out[len(out)-limit:]
		}
		fmt.Fprintf(&b, "\nstderr of server process %d:\n%s", i+1, out)
	}
	return b.String()
}

// newStdioClient starts a server process for a client of identity A or B
// (by the harness's identity marker) and returns an unconnected client
// speaking to it. The process ends with the spec.
func (env *ServerEnv) newStdioClient(headers http.Header, opts []client.Option) *client.Client {
	ginkgo.GinkgoHelper()
	argv, who := env.Config.Command, "A"
	if headers.Get(stdioIdentityHeader) == "b" {
		argv, who = env.Config.CommandB, "B"
	}
	var popts []client.ProcessOption
	if env.Config.Stderr != nil {
		popts = append(popts, client.WithStderrCopy(env.Config.Stderr))
	}
	p, err := startCommand(context.Background(), argv, popts...)
	if err != nil {
		HarnessError("cannot start the server command of identity %s: %v", who, err)
	}
	env.children.add(p)
	ginkgo.DeferCleanup(func() {
		_ = p.Close(2 * time.Second)
		if out := strings.TrimSpace(p.Stderr()); out != "" {
			ginkgo.AddReportEntry("stderr of a server process (identity "+who+")", out, ginkgo.ReportEntryVisibilityFailureOrVerbose)
		}
	})
	return client.NewStdio(p, opts...)
}

// probeStdio is probeServer for a command: it starts one process, runs the
// handshake and tools/list, and ends the process.
func probeStdio(ctx context.Context, cfg ServerConfig) (*client.InitializeResult, Capabilities, []schema.Tool, error) {
	p, err := startCommand(ctx, cfg.Command)
	if err != nil {
		return nil, Capabilities{}, nil, err
	}
	defer p.Close(2 * time.Second)
	c := client.NewStdio(p, client.WithClientInfo("mcptasks-conformance", "probe"))
	withStderr := func(err error) error {
		if out := strings.TrimSpace(p.Stderr()); out != "" {
			if len(out) > 2000 {
				out = "…" + out[len(out)-2000:]
			}
			return fmt.Errorf("%w\nstderr of the server process:\n%s", err, out)
		}
		return err
	}
	init, err := c.Connect(ctx)
	if err != nil {
		return nil, Capabilities{}, nil, withStderr(err)
	}
	caps := parseCapabilities(c.InitializeResult())
	tools, err := c.ListTools(ctx)
	if err != nil {
		return init, caps, nil, withStderr(fmt.Errorf("tools/list: %w", err))
	}
	return init, caps, tools, nil
}

// stdioAuthorization is DetectAuthorization for a command: stdio carries
// no credentials, so identity B is another authorization context only when
// the operator says so (for example a command that runs as another user
// on a shared store).
func stdioAuthorization(cfg ServerConfig) Authorization {
	a := Authorization{Anonymous: true,
		Reason: "the server is spoken to over stdio, where requests carry no credentials"}
	switch {
	case len(cfg.CommandB) == 0:
		a.Reason += "; no command for identity B is configured"
	case cfg.AuthContexts == AuthContextsYes:
		a.Contexts, a.Anonymous = true, false
		a.Reason = "the operator declared the commands of identities A and B to be two authorization contexts"
	}
	return a
}

// Target names what a run certifies, for reports: the first URL, or the
// command line of a stdio run.
func (c ServerConfig) Target() string {
	if c.Stdio() {
		return "stdio: " + strings.Join(c.Command, " ")
	}
	if len(c.URLs) == 0 {
		return ""
	}
	return c.URLs[0]
}

// noIdentityB reports the spec not-supported for want of identity B, in
// the words of the configuration at hand.
func (env *ServerEnv) noIdentityB() {
	ginkgo.GinkgoHelper()
	if env.Config.Stdio() {
		NotSupported("no command for identity B configured (--command-b, another principal on the same backing store)")
	}
	NotSupported("no second identity configured (headers for identity B)")
}
