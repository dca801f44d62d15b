package suites

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/suites/report"
	"github.com/mcptasks/mcptasks/tasks/client"
)

// Feature is an optional part of the tasks utility or of a deployment
// that some requirements depend on. The registry names, per requirement
// and mode, the features its specs need or use (see Needs); whether a
// feature is on is decided once per run, before any spec body runs, from
// what the server declared, what the harness inferred, and what the
// operator overrode (WithFeature, conformance --feature).
type Feature string

// The features of the server suite (and the store suite's leases).
const (
	// FeatureCore is task-augmented tools/call, the base every task spec
	// builds on: declared under capabilities.tasks.requests.tools.call,
	// or inferred from a listed tool with taskSupport optional or
	// required.
	FeatureCore Feature = "core"
	// FeatureList is tasks/list (capabilities.tasks.list).
	FeatureList Feature = "list"
	// FeatureCancel is tasks/cancel (capabilities.tasks.cancel).
	FeatureCancel Feature = "cancel"
	// FeatureInput is a task asking its requestor for input (the input
	// fixture role).
	FeatureInput Feature = "input"
	// FeatureProgress is progress reported for a task (the progress
	// fixture role).
	FeatureProgress Feature = "progress"
	// FeatureNotifications is notifications/tasks/status. They are
	// optional, so the feature is on unless switched off: its specs judge
	// the notifications the server does send.
	FeatureNotifications Feature = "notifications"
	// FeatureMultiInstance is a second instance sharing the task store
	// (a second URL).
	FeatureMultiInstance Feature = "multi-instance"
	// FeatureAuthorization is authorization: identities A and B are two
	// authorization contexts. Requirements for servers without
	// authorization name it in Needs.Without.
	FeatureAuthorization Feature = "authorization"
	// FeatureHTTP is the Streamable HTTP transport.
	FeatureHTTP Feature = "http"
	// FeatureStdio is the stdio transport.
	FeatureStdio Feature = "stdio"
	// FeatureLeases is the store contract's lease operations (store mode
	// only).
	FeatureLeases Feature = "leases"
	// FeatureTTLExtension is the optional tasks.TTLExtender of a store
	// (store mode only).
	FeatureTTLExtension Feature = "ttl-extension"
	// FeatureProtocol2025 is the MCP 2025-11-25 profile: an initialize
	// handshake and the tasks utility of that revision. Every server
	// spec of a requirement outside the EXT- catalog needs it.
	FeatureProtocol2025 Feature = "protocol-2025-11-25"
	// FeatureExtTasks is the MCP 2026-07-28 profile with the
	// io.modelcontextprotocol/tasks extension: server/discover answers
	// and advertises the extension. Every EXT- requirement needs it.
	FeatureExtTasks Feature = "ext-tasks"
)

// ServerFeatures lists the features of the server suite, in report order.
func ServerFeatures() []Feature {
	return []Feature{FeatureCore, FeatureList, FeatureCancel, FeatureInput, FeatureProgress, FeatureNotifications,
		FeatureMultiInstance, FeatureAuthorization, FeatureHTTP, FeatureStdio, FeatureProtocol2025, FeatureExtTasks}
}

// ParseFeature reads a feature name.
func ParseFeature(s string) (Feature, error) {
	f := Feature(strings.TrimSpace(s))
	if slices.Contains(ServerFeatures(), f) {
		return f, nil
	}
	names := make([]string, 0, 10)
	for _, k := range ServerFeatures() {
		names = append(names, string(k))
	}
	return "", fmt.Errorf("unknown feature %q (known: %s)", s, strings.Join(names, ", "))
}

// ParseFeatureSetting reads "feature=on" or "feature=off" (also
// true/false, yes/no, 1/0).
func ParseFeatureSetting(s string) (Feature, bool, error) {
	name, val, ok := strings.Cut(s, "=")
	if !ok {
		return "", false, fmt.Errorf("feature setting %q: want feature=on or feature=off", s)
	}
	f, err := ParseFeature(name)
	if err != nil {
		return "", false, err
	}
	switch strings.ToLower(strings.TrimSpace(val)) {
	case "on", "true", "yes", "1":
		return f, true, nil
	case "off", "false", "no", "0":
		return f, false, nil
	}
	return "", false, fmt.Errorf("feature setting %q: want on or off after =", s)
}

// Needs says how the specs of one requirement, in one mode, depend on
// features. Every feature it names becomes a "feature:<name>" label of
// every spec of the requirement, so a label filter on a feature selects
// exactly the requirements whose outcome depends on it.
type Needs struct {
	// Needs are the features without which the requirement cannot be
	// judged: when one is off every spec of the requirement is skipped
	// (not-applicable or not-supported, with the reason) before its body
	// runs.
	Needs []Feature
	// Uses are features some specs use when they are on: checks that are
	// left out, or specs that are skipped (see ServerEnv.ItNeeding),
	// when they are off.
	Uses []Feature
	// Without are features that must be off for the requirement to
	// apply (for example rules for servers without authorization).
	Without []Feature
}

// All lists every feature named, without repeats, in a stable order.
func (n Needs) All() []Feature {
	var out []Feature
	for _, f := range slices.Concat(n.Needs, n.Uses, n.Without) {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// Names reports whether f is named in any of the lists.
func (n Needs) Names(f Feature) bool { return slices.Contains(n.All(), f) }

// FeaturesIn returns what the specs of r depend on in mode.
func (r Requirement) FeaturesIn(mode Mode) Needs {
	if mode == ModeServer {
		return serverFeatureTable()[r.ID]
	}
	if r.Feature != "" && r.Feature != FeatureCore {
		return Needs{Needs: []Feature{r.Feature}}
	}
	return Needs{}
}

// FeatureState is whether a feature is on for a run.
type FeatureState string

// The three states. A feature whose state is unknown counts as off for
// Needs and as on for Without: a requirement is judged only when the
// harness knows it applies.
const (
	StateOn      FeatureState = "on"
	StateOff     FeatureState = "off"
	StateUnknown FeatureState = "unknown"
)

// Feature sources.
const (
	SourceDeclared   = "declared"
	SourceInferred   = "inferred"
	SourceOverridden = "overridden"
)

// FeatureDecision is the state of one feature for a run, with where it
// came from and why, in words for a report and for skip reasons.
type FeatureDecision struct {
	Feature Feature
	State   FeatureState
	Source  string
	Reason  string
	// notSupported makes a missing need not-supported (the subject lacks
	// something the harness needs, such as a fixture) rather than
	// not-applicable.
	notSupported bool
}

// FeatureSet is the decision for every server feature of one run.
type FeatureSet map[Feature]FeatureDecision

// On reports whether f is on.
func (s FeatureSet) On(f Feature) bool { return s[f].State == StateOn }

// skipReason returns why a spec with needs cannot run ("" when it can),
// and whether that is not-supported rather than not-applicable.
func (s FeatureSet) skipReason(n Needs) (string, bool) {
	for _, f := range n.Needs {
		if d := s[f]; d.State != StateOn {
			what := "is off"
			if d.State == StateUnknown {
				what = "could not be established"
			}
			return fmt.Sprintf("needs the feature %s, which %s (%s: %s)", f, what, d.Source, d.Reason), d.notSupported && d.Source != SourceOverridden
		}
	}
	for _, f := range n.Without {
		if d := s[f]; d.State != StateOff {
			what := "is on"
			if d.State == StateUnknown {
				what = "may be on"
			}
			return fmt.Sprintf("applies only without the feature %s, which %s (%s: %s)", f, what, d.Source, d.Reason), false
		}
	}
	return "", false
}

// report renders the decisions for the report, in feature order.
func (s FeatureSet) report() []report.FeatureDecision {
	out := []report.FeatureDecision{}
	for _, f := range ServerFeatures() {
		if d, ok := s[f]; ok {
			out = append(out, report.FeatureDecision{Name: string(f), State: string(d.State), Source: d.Source, Reason: d.Reason})
		}
	}
	return out
}

// summary renders the decisions on one line: "core on, list off, ...".
func (s FeatureSet) summary() string {
	var parts []string
	for _, f := range ServerFeatures() {
		if d, ok := s[f]; ok {
			p := string(f) + " " + string(d.State)
			if d.Source == SourceOverridden {
				p += " (overridden)"
			}
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}

// overridden lists the operator's settings as "feature=on|off".
func (s FeatureSet) overridden() []string {
	out := []string{}
	for _, f := range ServerFeatures() {
		if d := s[f]; d.Source == SourceOverridden {
			out = append(out, string(f)+"="+string(d.State))
		}
	}
	return out
}

// WithFeature overrides what the harness decides about feature f: on
// makes every requirement that needs it run (a server that then refuses
// fails them), off skips them as not-applicable. Repeat it for several
// features; the last setting of a feature wins.
func WithFeature(f Feature, on bool) Option {
	return func(o *options) {
		if o.overrides == nil {
			o.overrides = map[Feature]bool{}
		}
		o.overrides[f] = on
	}
}

// probed is what one probe of the server found, outside any spec.
type probed struct {
	init  *client.InitializeResult
	caps  Capabilities
	tools []schema.Tool
	auth  Authorization
	// legacyErr is why initialize failed (nil when it worked).
	legacyErr error
	// modern is what server/discover told.
	modern modernProbe
	// selection is the operator's choice of protocols.
	selection ProtocolSelection
}

// resolveFeatures decides every server feature from the configuration,
// the probe and the operator's overrides. It is the one place where
// applicability is decided: CertifyServer reports what it returns and
// the specs are gated on it.
func resolveFeatures(cfg ServerConfig, p probed, overrides map[Feature]bool) FeatureSet {
	s := FeatureSet{}
	set := func(f Feature, on bool, source, reason string) {
		st := StateOff
		if on {
			st = StateOn
		}
		s[f] = FeatureDecision{Feature: f, State: st, Source: source, Reason: reason}
	}
	listed := func(role Role) (string, bool) {
		name := cfg.ToolName(role)
		for _, t := range p.tools {
			if name != "" && t.Name == name {
				ts := t.TaskSupport()
				return name, ts == "optional" || ts == "required"
			}
		}
		return name, false
	}

	// core: declared, or shown by a listed tool.
	taskTool := ""
	for _, t := range p.tools {
		if ts := t.TaskSupport(); (ts == "optional" || ts == "required") && (taskTool == "" || t.Name < taskTool) {
			taskTool = t.Name
		}
	}
	switch {
	case p.caps.ToolsCall:
		set(FeatureCore, true, SourceDeclared, "capabilities.tasks.requests.tools.call")
	case taskTool != "":
		set(FeatureCore, true, SourceInferred, fmt.Sprintf("tool %q has taskSupport %s, though capabilities.tasks.requests.tools.call is not declared", taskTool, toolSupport(p.tools, taskTool)))
	default:
		set(FeatureCore, false, SourceDeclared, "the server does not declare capabilities.tasks.requests.tools.call and lists no tool with taskSupport optional or required")
	}
	if p.caps.List {
		set(FeatureList, true, SourceDeclared, "capabilities.tasks.list")
	} else {
		set(FeatureList, false, SourceDeclared, "the server does not declare capabilities.tasks.list")
	}
	if p.caps.Cancel {
		set(FeatureCancel, true, SourceDeclared, "capabilities.tasks.cancel")
	} else {
		set(FeatureCancel, false, SourceDeclared, "the server does not declare capabilities.tasks.cancel")
	}
	for _, fx := range []struct {
		f    Feature
		role Role
	}{{FeatureInput, FixtureInput}, {FeatureProgress, FixtureProgress}} {
		if name, ok := listed(fx.role); ok {
			set(fx.f, true, SourceInferred, fmt.Sprintf("the server lists the %s fixture tool %q with task support", fx.role, name))
		} else {
			set(fx.f, false, SourceInferred, fmt.Sprintf("the server lists no %s fixture tool with task support (%q; map one with --fixture %s=<tool>)", fx.role, name, fx.role))
			d := s[fx.f]
			d.notSupported = true
			s[fx.f] = d
		}
	}
	set(FeatureNotifications, true, SourceInferred, "status notifications are optional: their specs judge the ones the server sends")
	switch {
	case cfg.Stdio():
		set(FeatureMultiInstance, false, SourceInferred, "a stdio server is one process per connection: there is no second instance to reach")
	case len(cfg.URLs) > 1:
		set(FeatureMultiInstance, true, SourceInferred, "two server URLs are configured")
	default:
		set(FeatureMultiInstance, false, SourceInferred, "only one server URL is configured (give --server twice to certify two instances sharing a store)")
	}
	authReason := func(fallback string) string {
		if p.auth.Reason != "" {
			return p.auth.Reason
		}
		return fallback
	}
	switch {
	case p.auth.Contexts:
		set(FeatureAuthorization, true, SourceInferred, authReason("identities A and B are two authorization contexts"))
	case p.auth.Anonymous:
		set(FeatureAuthorization, false, SourceInferred, authReason("the server serves requests without credentials"))
	default:
		s[FeatureAuthorization] = FeatureDecision{Feature: FeatureAuthorization, State: StateUnknown, Source: SourceInferred,
			Reason: authReason("the harness could not tell whether the server has authorization")}
	}
	d := s[FeatureAuthorization]
	d.notSupported = true // identity B is the operator's to configure
	s[FeatureAuthorization] = d
	set(FeatureHTTP, !cfg.Stdio(), SourceInferred, transportReason(cfg, FeatureHTTP))
	set(FeatureStdio, cfg.Stdio(), SourceInferred, transportReason(cfg, FeatureStdio))
	for _, d := range selectProtocols(p.selection, p.legacyErr, p.modern) {
		s[d.Feature] = d
	}

	for f, on := range overrides {
		set(f, on, SourceOverridden, "set by the operator")
	}
	return s
}

func toolSupport(tools []schema.Tool, name string) string {
	for _, t := range tools {
		if t.Name == name {
			return string(t.TaskSupport())
		}
	}
	return ""
}

func transportReason(cfg ServerConfig, f Feature) string {
	if cfg.Stdio() {
		if f == FeatureStdio {
			return "the server is spoken to over stdio"
		}
		return "the server is spoken to over stdio, not Streamable HTTP"
	}
	if f == FeatureHTTP {
		return "the server is spoken to over Streamable HTTP"
	}
	return "the server is spoken to over Streamable HTTP, not stdio"
}

// probeFeatures probes the server once (initialize and tools/list, then
// the authorization probe) and decides the features.
//
// The two protocol profiles are probed apart (initialize for
// 2025-11-25, server/discover for 2026-07-28): a server that answers
// only one of them is certified in that one; the error is returned only
// when neither answers (or the one the operator selected does not).
func probeFeatures(ctx context.Context, cfg ServerConfig, overrides map[Feature]bool, sel ProtocolSelection) (probed, FeatureSet, error) {
	var mp modernProbe
	if sel.wants(Protocol2026) {
		mp = probeModern(ctx, cfg)
	}
	var init *client.InitializeResult
	var caps Capabilities
	var tools []schema.Tool
	var err error
	if sel.wants(Protocol2025) {
		init, caps, tools, err = probeServer(ctx, cfg)
	} else {
		err = errNotSelected
	}
	switch {
	case sel == Protocols2026 && !mp.ok && mp.err != nil:
		return probed{}, nil, mp.err
	case sel == Protocols2026 && !mp.ok:
		return probed{}, nil, errors.New(mp.reason)
	case err != nil && (!mp.ok || sel == Protocols2025 || sel == ProtocolsBoth):
		return probed{}, nil, err
	}
	p := probed{init: init, caps: caps, tools: tools, legacyErr: err, modern: mp, selection: sel}
	if err == nil {
		p.auth = DetectAuthorization(ctx, cfg)
	} else {
		p.auth = detectModernAuthorization(ctx, cfg)
	}
	return p, resolveFeatures(cfg.withDefaults(), p, overrides), nil
}
