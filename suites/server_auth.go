package suites

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/mcptasks/mcptasks/tasks/client"
)

// AuthContexts says whether identities A and B (ServerConfig.Headers and
// HeadersB) are two authorization contexts, which the requirements that
// bind tasks to an authorization context need.
type AuthContexts string

// The three settings.
const (
	// AuthContextsAuto decides by asking the server: a server that refuses
	// a request carrying no credentials with HTTP 401 or 403 has
	// authorization, so the two identities are two contexts; one that
	// serves it has none, so identity B is only another client. The zero
	// value means the same.
	AuthContextsAuto AuthContexts = "auto"
	// AuthContextsYes says the identities are two authorization contexts
	// (for a server that lets anonymous requests in but binds tasks to
	// the credentials it is given).
	AuthContextsYes AuthContexts = "yes"
	// AuthContextsNo says they are not.
	AuthContextsNo AuthContexts = "no"
)

// ParseAuthContexts reads an AuthContexts setting ("" is auto).
func ParseAuthContexts(s string) (AuthContexts, error) {
	switch a := AuthContexts(strings.ToLower(strings.TrimSpace(s))); a {
	case "", AuthContextsAuto:
		return AuthContextsAuto, nil
	case AuthContextsYes, AuthContextsNo:
		return a, nil
	}
	return "", fmt.Errorf("unknown setting %q (want auto, yes or no)", s)
}

// Authorization is what the harness knows about the server's
// authorization.
type Authorization struct {
	// Contexts is true when identities A and B are two authorization
	// contexts, so the requirements binding tasks to such a context can
	// be judged.
	Contexts bool
	// Anonymous is true when the server served a request that carried no
	// credentials at all: it cannot tell requestors apart by
	// authorization.
	Anonymous bool
	// Reason says how this was decided, in words for a report.
	Reason string
}

// DetectAuthorization finds out whether the two identities of cfg are two
// authorization contexts (see AuthContexts). In auto mode it sends one
// initialize without any of the configured headers to the first URL and
// ends the session it may have opened. It never fails: when it cannot
// tell, it says so in Reason and reports no contexts, so that no
// authorization requirement is judged on a guess.
func DetectAuthorization(ctx context.Context, cfg ServerConfig) Authorization {
	cfg = cfg.withDefaults()
	if cfg.Stdio() {
		return stdioAuthorization(cfg)
	}
	var a Authorization
	probe := probeUnknown
	if len(cfg.URLs) > 0 {
		probe, a.Reason = probeAnonymous(ctx, cfg)
	}
	a.Anonymous = probe == probeServed
	switch {
	case cfg.AuthContexts == AuthContextsYes:
		a.Contexts, a.Reason = true, "the operator declared the two identities to be authorization contexts"
	case cfg.AuthContexts == AuthContextsNo:
		a.Contexts, a.Reason = false, "the operator declared the two identities not to be authorization contexts"
	case len(cfg.HeadersB) == 0:
		a.Contexts, a.Reason = false, "no second identity is configured (headers for identity B)"
	case sameHeaders(cfg.Headers, cfg.HeadersB):
		a.Contexts, a.Reason = false, "identity B sends the same headers as identity A"
	case a.Anonymous:
		a.Contexts = false
	default:
		a.Contexts = probe == probeRefused
	}
	return a
}

// Outcomes of the anonymous probe.
const (
	probeUnknown = iota
	probeRefused
	probeServed
)

// probeAnonymous posts an initialize without credentials. It returns
// whether the server refused or served it, and what happened in words.
func probeAnonymous(ctx context.Context, cfg ServerConfig) (int, string) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + client.ProtocolVersion +
		`","capabilities":{},"clientInfo":{"name":"mcptasks-conformance","version":"auth-probe"}}}`
	u := cfg.URLs[0]
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader([]byte(body)))
	if err != nil {
		return probeUnknown, "could not tell whether the server has authorization: " + err.Error()
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := cfg.HTTPClient.Do(req)
	if err != nil {
		return probeUnknown, "could not tell whether the server has authorization: an initialize without credentials got no answer: " + err.Error()
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return probeRefused, fmt.Sprintf("the server refused an initialize without credentials with HTTP %d", resp.StatusCode)
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		if sid := resp.Header.Get(client.HeaderSessionID); sid != "" {
			if del, err := http.NewRequestWithContext(ctx, http.MethodDelete, u, nil); err == nil {
				del.Header.Set(client.HeaderSessionID, sid)
				if r, err := cfg.HTTPClient.Do(del); err == nil {
					r.Body.Close()
				}
			}
		}
		return probeServed, fmt.Sprintf("the server has no authorization: an initialize carrying no credentials was served with HTTP %d, "+
			"so the headers of identity B only make another client, not another authorization context", resp.StatusCode)
	}
	return probeUnknown, fmt.Sprintf("could not tell whether the server has authorization: an initialize without credentials got HTTP %d "+
		"(neither 401/403 nor a success; say --auth-contexts yes if the two identities are authorization contexts)", resp.StatusCode)
}

// sameHeaders reports whether two header sets are equal.
func sameHeaders(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, va := range a {
		vb := b.Values(k)
		if strings.Join(va, "\n") != strings.Join(vb, "\n") {
			return false
		}
	}
	return true
}

// authorization returns what DetectAuthorization found, asking the server
// once per run.
func (env *ServerEnv) authorization(ctx context.Context) Authorization {
	env.authOnce.Do(func() { env.auth = DetectAuthorization(ctx, env.Config) })
	return env.auth
}

// AuthB connects identity B for a spec of a requirement that binds tasks
// to an authorization context. When B is not another authorization
// context (no identity B, or a server without authorization) the spec is
// not-supported with the reason: such a requirement cannot be judged, and
// isolation between sessions is judged by its own requirements.
func (env *ServerEnv) AuthB(ctx context.Context) *client.Client {
	ginkgo.GinkgoHelper()
	if len(env.Config.HeadersB) == 0 {
		env.noIdentityB()
	}
	if !env.Has(FeatureAuthorization) {
		a := env.authorization(ctx)
		NotSupported("identity B is not a second authorization context: %s. This requirement binds tasks to authorization contexts; "+
			"isolation between sessions of a server without authorization is judged by TASKS-SEC-005 and MCPT-SESSION-001", a.Reason)
	}
	return env.B(ctx)
}
