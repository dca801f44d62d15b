package suites

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcptasks/mcptasks/schema/exttasks"
	"github.com/mcptasks/mcptasks/tasks/client"
)

// Protocol is an MCP protocol revision the server suite certifies.
type Protocol string

// The two revisions: 2025-11-25 with its tasks utility (initialize,
// sessions), and 2026-07-28 with the tasks extension (server/discover,
// per-request _meta).
const (
	Protocol2025 Protocol = "2025-11-25"
	Protocol2026 Protocol = "2026-07-28"
)

// ProtocolSelection is the operator's choice of revisions to certify.
type ProtocolSelection string

// The choices. ProtocolsAuto certifies every revision the server turns
// out to speak (initialize answered: 2025-11-25; server/discover answered
// and advertising the tasks extension: 2026-07-28). ProtocolsBoth
// certifies both whatever the probe says, so a revision the server does
// not speak fails. The two single revisions certify only that one.
const (
	ProtocolsAuto ProtocolSelection = "auto"
	ProtocolsBoth ProtocolSelection = "both"
	Protocols2025 ProtocolSelection = ProtocolSelection(Protocol2025)
	Protocols2026 ProtocolSelection = ProtocolSelection(Protocol2026)
)

// ParseProtocolSelection reads a --protocol value.
func ParseProtocolSelection(s string) (ProtocolSelection, error) {
	switch p := ProtocolSelection(strings.TrimSpace(s)); p {
	case "":
		return ProtocolsAuto, nil
	case ProtocolsAuto, ProtocolsBoth, Protocols2025, Protocols2026:
		return p, nil
	}
	return "", fmt.Errorf("unknown protocol %q (want %s, %s, %s or %s)", s, Protocols2025, Protocols2026, ProtocolsBoth, ProtocolsAuto)
}

// WithProtocols chooses which protocol revisions a server run certifies
// (default ProtocolsAuto).
func WithProtocols(sel ProtocolSelection) Option { return func(o *options) { o.protocols = sel } }

// wants reports whether the selection may certify p.
func (s ProtocolSelection) wants(p Protocol) bool {
	switch s {
	case "", ProtocolsAuto, ProtocolsBoth:
		return true
	}
	return Protocol(s) == p
}

var errNotSelected = errors.New("the 2025-11-25 profile was not selected (--protocol)")

// modernProbe is what one server/discover told, outside any spec.
type modernProbe struct {
	// ok: server/discover answered with a result naming 2026-07-28.
	ok bool
	// advertised: its capabilities.extensions holds the tasks extension.
	advertised bool
	// reason explains a negative outcome, for the report.
	reason     string
	err        error // the transport or JSON-RPC error of server/discover
	serverName string
	version    string
}

// probeModern sends server/discover (with the 2026-07-28 _meta and
// headers of identity A) to the first URL.
func probeModern(ctx context.Context, cfg ServerConfig) modernProbe {
	cfg = cfg.withDefaults()
	var raw json.RawMessage
	switch {
	case cfg.Stdio():
		r, err := discoverOverStdio(ctx, cfg.Command)
		if err != nil {
			return modernProbe{reason: fmt.Sprintf("server/discover over stdio failed: %v", err), err: err}
		}
		raw = r
	case len(cfg.URLs) == 0:
		return modernProbe{reason: "no server URL"}
	default:
		m := client.NewModern(cfg.URLs[0], client.WithHeaders(cfg.Headers), client.WithHTTPClient(cfg.HTTPClient),
			client.WithClientInfo("mcptasks-conformance", "probe"))
		r, err := m.Call(ctx, "server/discover", nil)
		if err != nil {
			return modernProbe{reason: fmt.Sprintf("server/discover failed: %v", err), err: err}
		}
		raw = r
	}
	var d struct {
		SupportedVersions []string `json:"supportedVersions"`
		Capabilities      struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
		} `json:"capabilities"`
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return modernProbe{reason: fmt.Sprintf("server/discover answered something that is not a DiscoverResult: %v", err)}
	}
	if !slices.Contains(d.SupportedVersions, string(Protocol2026)) {
		return modernProbe{reason: fmt.Sprintf("server/discover lists %v, not 2026-07-28", d.SupportedVersions)}
	}
	mp := modernProbe{ok: true}
	var info struct{ Name, Version string }
	if json.Unmarshal(d.Meta["io.modelcontextprotocol/serverInfo"], &info) == nil {
		mp.serverName, mp.version = info.Name, info.Version
	}
	if _, ok := d.Capabilities.Extensions[exttasks.ExtensionID]; ok {
		mp.advertised = true
	} else {
		mp.reason = "server/discover does not advertise capabilities.extensions[\"" + exttasks.ExtensionID + "\"]"
	}
	return mp
}

// selectProtocols decides the two protocol features from the probes and
// the operator's selection: which profiles the run certifies.
func selectProtocols(sel ProtocolSelection, legacyErr error, mp modernProbe) []FeatureDecision {
	legacy := FeatureDecision{Feature: FeatureProtocol2025, State: StateOn, Source: SourceInferred, Reason: "the server completed an initialize handshake"}
	modern := FeatureDecision{Feature: FeatureExtTasks, State: StateOn, Source: SourceInferred, Reason: "server/discover lists 2026-07-28 and advertises the tasks extension"}
	switch {
	case !sel.wants(Protocol2025):
		legacy = FeatureDecision{Feature: FeatureProtocol2025, State: StateOff, Source: SourceOverridden, Reason: "--protocol selects 2026-07-28 only"}
	case sel == ProtocolsBoth:
		legacy.Source, legacy.Reason = SourceOverridden, "--protocol both"
	case legacyErr != nil:
		// With --protocol auto a revision the server does not speak is out
		// of scope (not-applicable), not missing.
		legacy = FeatureDecision{Feature: FeatureProtocol2025, State: StateOff, Source: SourceInferred,
			Reason: "initialize failed: " + legacyErr.Error()}
	}
	switch {
	case !sel.wants(Protocol2026):
		modern = FeatureDecision{Feature: FeatureExtTasks, State: StateOff, Source: SourceOverridden, Reason: "--protocol selects 2025-11-25 only"}
	case sel == ProtocolsBoth:
		modern.Source, modern.Reason = SourceOverridden, "--protocol both"
	case !mp.ok || !mp.advertised:
		// A server that does not speak 2026-07-28, or speaks it without
		// offering the tasks extension (which is optional), is out of
		// scope for the EXT- requirements, as is a stdio server for the
		// HTTP-only specs: not-applicable.
		modern = FeatureDecision{Feature: FeatureExtTasks, State: StateOff, Source: SourceInferred, Reason: mp.reason}
	}
	return []FeatureDecision{legacy, modern}
}

// Protocols lists the revisions a feature decision certifies.
func (s FeatureSet) Protocols() []string {
	var out []string
	if s.On(FeatureProtocol2025) {
		out = append(out, string(Protocol2025))
	}
	if s.On(FeatureExtTasks) {
		out = append(out, string(Protocol2026))
	}
	return out
}

// detectModernAuthorization is DetectAuthorization for a server that
// speaks only 2026-07-28: tools/list without identity A's headers
// tells whether the server serves anonymous requests.
func detectModernAuthorization(ctx context.Context, cfg ServerConfig) Authorization {
	cfg = cfg.withDefaults()
	var a Authorization
	if cfg.Stdio() || len(cfg.URLs) == 0 {
		a.Reason = "the harness could not tell whether the server has authorization"
		return a
	}
	env := &ServerEnv{Config: cfg}
	r, err := env.extSend(ctx, extRequest{Method: "tools/list", Identity: http.Header{}})
	refused := err == nil && (r.Status == http.StatusUnauthorized || r.Status == http.StatusForbidden)
	if err == nil && r.Error != nil {
		err = r.Error
	}
	a.Anonymous = err == nil
	switch {
	case len(cfg.HeadersB) == 0:
		a.Reason = "no second identity is configured (headers for identity B)"
	case sameHeaders(cfg.Headers, cfg.HeadersB):
		a.Reason = "identity B sends the same headers as identity A"
	case refused:
		a.Contexts, a.Reason = true, "tools/list without credentials is refused, so identities A and B are two authorization contexts"
	default:
		a.Reason = "tools/list without credentials was not refused"
	}
	return a
}

// discoverOverStdio starts the command once and returns the result of
// one server/discover sent with the 2026-07-28 _meta.
func discoverOverStdio(ctx context.Context, argv []string) (json.RawMessage, error) {
	s, err := startExtStdio(ctx, argv)
	if err != nil {
		return nil, err
	}
	defer s.close()
	if err := s.send("discover", "server/discover", "", nil); err != nil {
		return nil, fmt.Errorf("write: %w", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Until(deadline) > 0 {
		line, ok := s.next(time.Until(deadline))
		if !ok {
			break
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int64  `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal([]byte(line), &m) != nil || m.Method != "" || string(m.ID) != `"discover"` {
			continue
		}
		if m.Error != nil {
			return nil, fmt.Errorf("JSON-RPC error %d: %s", m.Error.Code, m.Error.Message)
		}
		return m.Result, nil
	}
	return nil, errors.New("no answer")
}
