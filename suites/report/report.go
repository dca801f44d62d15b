package report

import (
	"fmt"
	"net/url"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

// APIVersion and Kind identify the report format; APIVersion changes
// whenever the shape changes. v2 added profile, recommendations,
// summary.recommendations and each entry's origin. v3 added
// features.overridden and features.decisions, the vendor origin, and
// turned each entry's feature into the list features, read from the
// labels of its specs.
const (
	APIVersion = "conformance.mcptasks.dev/v3"
	Kind       = "ConformanceReport"
	// DefaultSpecVersion is the MCP revision the suites test.
	DefaultSpecVersion = "2025-11-25"
	// ToolName is the name the report gives the tool when Meta leaves it empty.
	ToolName = "mcptasks-conformance"
)

// Profiles say which rules decide the verdict.
const (
	// ProfileMCP: only rules of the MCP specification decide the verdict;
	// the toolkit's own rules are reported apart as recommendations. The
	// default for servers someone else wrote.
	ProfileMCP = "mcp"
	// ProfileToolkit: the toolkit's own rules (MCPT-…) decide the verdict
	// too. The default for stores (they implement the toolkit's Store
	// contract) and for the toolkit's reference server.
	ProfileToolkit = "mcptasks"
)

// Origins of a requirement.
const (
	// OriginSpec marks a rule of the MCP specification (TASKS-… ids).
	OriginSpec = "spec"
	// OriginToolkit marks a rule of this toolkit (MCPT-… ids).
	OriginToolkit = "toolkit"
	// OriginVendor marks a rule a vendor registered (X-… ids). Like the
	// toolkit's rules, it is a recommendation unless the profile or
	// strict mode binds it.
	OriginVendor = "vendor"
)

// Requirement is the registry data the report needs about one requirement.
type Requirement struct {
	ID      string
	Level   string // MUST, SHOULD or MAY
	Section string
	Summary string
	// Toolkit marks a rule of this toolkit rather than of the MCP
	// specification. Unless the profile or strict mode binds them, such
	// rules are reported as recommendations and never decide the verdict.
	Toolkit bool
	// Vendor marks a rule a vendor registered; it is treated like a
	// toolkit rule.
	Vendor bool
}

// Meta describes the run; the caller fills what it knows.
type Meta struct {
	// Mode is "store" or "server".
	Mode string
	// Tool overrides the tool information read from the build.
	Tool Tool
	// SpecVersion defaults to DefaultSpecVersion.
	SpecVersion string
	// SchemaSHA256 is the sha256 of the schema.json the suite was built from.
	SchemaSHA256 string
	// Targets are what was certified (store URL, server URLs). Credentials
	// are redacted by FromGinkgo.
	Targets []string
	// Features declared by the caller and inferred from the subject.
	Features Features
	// Implementation under test, if named.
	Implementation *Implementation
	// LabelFilter is the label filter the run used, if any.
	LabelFilter string
	// Strict makes SHOULD requirements count like MUST ones and binds the
	// toolkit's own rules whatever the profile.
	Strict bool
	// Profile is ProfileMCP or ProfileToolkit; empty means ProfileMCP.
	Profile string
	// Protocols are the MCP protocol revisions whose specs the run
	// certified ("2025-11-25", "2026-07-28"); empty for a store run.
	Protocols []string
}

// bindsToolkit reports whether the toolkit's own rules decide the verdict.
func (m Meta) bindsToolkit() bool { return m.Strict || m.Profile == ProfileToolkit }

// Tool names the program that produced the report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Commit  string `json:"commit,omitempty"`
	// Modified says the build had uncommitted changes.
	Modified bool `json:"modified,omitempty"`
}

// Features says what the subject offers: what it declared, what the
// harness inferred, what the operator overrode, and the resulting
// decision for every feature of the suite.
type Features struct {
	// Declared are the capabilities the server declared, by their wire
	// names (tasks.list, ...).
	Declared []string `json:"declared"`
	// Inferred are facts the harness found (fixture tools, identities,
	// instances, transport).
	Inferred []string `json:"inferred"`
	// Overridden are the operator's settings, "feature=on|off".
	Overridden []string `json:"overridden"`
	// Decisions are the state of every feature of the suite for the run,
	// which decided which requirements applied.
	Decisions []FeatureDecision `json:"decisions"`
}

// FeatureDecision is the state of one feature for a run.
type FeatureDecision struct {
	Name string `json:"name"`
	// State is on, off or unknown.
	State string `json:"state"`
	// Source is declared, inferred or overridden.
	Source string `json:"source"`
	Reason string `json:"reason"`
}

// Implementation names the subject.
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	URL     string `json:"url,omitempty"`
}

// Report is the canonical conformance report.
type Report struct {
	APIVersion     string          `json:"apiVersion"`
	Kind           string          `json:"kind"`
	GeneratedAt    time.Time       `json:"generatedAt"`
	Tool           Tool            `json:"tool"`
	SpecVersion    string          `json:"specVersion"`
	SchemaSHA256   string          `json:"schemaSha256"`
	Mode           string          `json:"mode"`
	Targets        []string        `json:"targets"`
	Features       Features        `json:"features"`
	Implementation *Implementation `json:"implementation,omitempty"`
	LabelFilter    string          `json:"labelFilter,omitempty"`
	Strict         bool            `json:"strict"`
	// Profile says which rules decide the verdict (ProfileMCP or
	// ProfileToolkit).
	Profile string `json:"profile"`
	// Protocols are the MCP protocol revisions certified by a server run
	// (2025-11-25 through initialize, 2026-07-28 through server/discover
	// and the tasks extension).
	Protocols []string `json:"protocols,omitempty"`
	Summary   Summary  `json:"summary"`
	// HarnessErrors are problems outside any requirement: a failed suite
	// node, an interrupted run, specs without a known requirement.
	HarnessErrors []string `json:"harnessErrors"`
	// Requirements are the rules that decide the verdict.
	Requirements []Entry `json:"requirements"`
	// Recommendations are the toolkit's own rules when the profile does
	// not bind them: judged and reported like requirements, but never
	// part of the verdict, the counts or the exit code.
	Recommendations []Entry `json:"recommendations"`
}

// Summary is the verdict and the counts of requirements per level and
// status.
type Summary struct {
	Verdict Verdict                   `json:"verdict"`
	Counts  map[string]map[Status]int `json:"counts"`
	Totals  map[Status]int            `json:"totals"`
	// Recommendations counts the recommendations per status.
	Recommendations map[Status]int `json:"recommendations"`
	// Specs is how many specs the run held, Ran how many actually ran.
	Specs int `json:"specs"`
	Ran   int `json:"ran"`
	// DurationSeconds is the wall time of the run.
	DurationSeconds float64 `json:"durationSeconds"`
}

// Entry is the result of one requirement.
type Entry struct {
	ID      string `json:"id"`
	Level   string `json:"level"`
	Section string `json:"section"`
	// Features are the features the requirement's specs depend on, from
	// their feature labels.
	Features []string `json:"features,omitempty"`
	Summary  string   `json:"summary"`
	// Origin is OriginSpec, OriginToolkit or OriginVendor.
	Origin string `json:"origin"`
	Status Status `json:"status"`
	// Message explains a status other than pass.
	Message         string  `json:"message,omitempty"`
	DurationSeconds float64 `json:"durationSeconds"`
	Specs           []Spec  `json:"specs"`
}

// Spec is one spec that tested a requirement.
type Spec struct {
	Name            string  `json:"name"`
	Status          Status  `json:"status"`
	Message         string  `json:"message,omitempty"`
	Location        string  `json:"location,omitempty"`
	DurationSeconds float64 `json:"durationSeconds"`
}

// ReqLabelPrefix is the label prefix carrying a spec's requirement id.
const ReqLabelPrefix = "req:"

// FeatureLabelPrefix is the label prefix naming a feature a spec depends on.
const FeatureLabelPrefix = "feature:"

// FromGinkgo builds the report of a finished Ginkgo run. lookup finds the
// registry data of a requirement id. Every requirement that has at least
// one spec in the run (run, skipped or filtered out) gets an entry.
func FromGinkgo(gr types.Report, lookup func(id string) (Requirement, bool), meta Meta) *Report {
	r := &Report{
		APIVersion:      APIVersion,
		Kind:            Kind,
		GeneratedAt:     time.Now().UTC().Truncate(time.Second),
		Tool:            buildTool(meta.Tool),
		SpecVersion:     meta.SpecVersion,
		SchemaSHA256:    meta.SchemaSHA256,
		Mode:            meta.Mode,
		Targets:         make([]string, 0, len(meta.Targets)),
		Features:        meta.Features,
		Implementation:  meta.Implementation,
		LabelFilter:     meta.LabelFilter,
		Strict:          meta.Strict,
		Profile:         meta.Profile,
		Protocols:       meta.Protocols,
		HarnessErrors:   []string{},
		Requirements:    []Entry{},
		Recommendations: []Entry{},
	}
	if r.Profile == "" {
		r.Profile = ProfileMCP
	}
	if r.SpecVersion == "" {
		r.SpecVersion = DefaultSpecVersion
	}
	if r.Features.Declared == nil {
		r.Features.Declared = []string{}
	}
	if r.Features.Inferred == nil {
		r.Features.Inferred = []string{}
	}
	if r.Features.Overridden == nil {
		r.Features.Overridden = []string{}
	}
	if r.Features.Decisions == nil {
		r.Features.Decisions = []FeatureDecision{}
	}
	for _, t := range meta.Targets {
		r.Targets = append(r.Targets, Redact(t))
	}
	if !gr.StartTime.IsZero() && !gr.EndTime.IsZero() {
		r.Summary.DurationSeconds = seconds(gr.EndTime.Sub(gr.StartTime))
	}
	for _, reason := range gr.SpecialSuiteFailureReasons {
		r.HarnessErrors = append(r.HarnessErrors, "the run ended early: "+reason)
	}

	byID := map[string]*Entry{}
	recommendation := map[string]bool{}
	var order []string
	for _, sr := range gr.SpecReports {
		if !sr.LeafNodeType.Is(types.NodeTypeIt) {
			if sr.State.Is(types.SpecStateFailureStates) {
				r.HarnessErrors = append(r.HarnessErrors,
					fmt.Sprintf("%s %q failed: %s", sr.LeafNodeType, sr.LeafNodeText, trimPrefixes(sr.Failure.Message)))
			}
			continue
		}
		r.Summary.Specs++
		if sr.State.Is(types.SpecStatePassed | types.SpecStateFailureStates) {
			r.Summary.Ran++
		}
		ids := reqIDs(sr.Labels())
		if len(ids) != 1 {
			r.HarnessErrors = append(r.HarnessErrors,
				fmt.Sprintf("spec %q carries %d requirement labels, want exactly one", sr.FullText(), len(ids)))
			continue
		}
		id := ids[0]
		e := byID[id]
		if e == nil {
			req, ok := lookup(id)
			if !ok {
				req = Requirement{ID: id, Level: "MUST", Summary: "unknown requirement"}
				r.HarnessErrors = append(r.HarnessErrors, fmt.Sprintf("spec %q names the unknown requirement %s", sr.FullText(), id))
			}
			e = &Entry{ID: id, Level: strings.ToUpper(req.Level), Section: req.Section, Summary: req.Summary, Origin: OriginSpec}
			switch {
			case req.Vendor:
				e.Origin = OriginVendor
				recommendation[id] = !meta.bindsToolkit()
			case req.Toolkit:
				e.Origin = OriginToolkit
				recommendation[id] = !meta.bindsToolkit()
			}
			byID[id] = e
			order = append(order, id)
		}
		e.Specs = append(e.Specs, specOf(sr))
		for _, l := range sr.Labels() {
			if f, ok := strings.CutPrefix(l, FeatureLabelPrefix); ok && !slices.Contains(e.Features, f) {
				e.Features = append(e.Features, f)
			}
		}
	}
	slices.Sort(order)
	for _, id := range order {
		e := byID[id]
		settle(e)
		if recommendation[id] {
			r.Recommendations = append(r.Recommendations, *e)
		} else {
			r.Requirements = append(r.Requirements, *e)
		}
	}
	r.Summary.Counts, r.Summary.Totals = count(r.Requirements)
	_, r.Summary.Recommendations = count(r.Recommendations)
	r.Summary.Verdict = verdict(r.Requirements, r.Strict)
	return r
}

// reqIDs extracts requirement ids from labels.
func reqIDs(labels []string) []string {
	var ids []string
	for _, l := range labels {
		if id, ok := strings.CutPrefix(l, ReqLabelPrefix); ok {
			ids = append(ids, id)
		}
	}
	return slices.Compact(ids)
}

// specOf classifies one spec.
func specOf(sr types.SpecReport) Spec {
	s := Spec{Name: sr.FullText(), DurationSeconds: seconds(sr.RunTime)}
	msg := sr.Failure.Message
	switch {
	case sr.State == types.SpecStatePassed:
		s.Status = StatusPass
		return s
	case sr.State == types.SpecStatePending:
		s.Status, s.Message = StatusSkipped, "the spec is pending"
		return s
	case sr.State == types.SpecStateSkipped:
		switch {
		case strings.HasPrefix(msg, PrefixNotSupported):
			s.Status = StatusNotSupported
		case strings.HasPrefix(msg, PrefixNotApplicable):
			s.Status = StatusNotApplicable
		default:
			s.Status = StatusSkipped
			if msg == "" {
				msg = "not selected by the label filter or focus"
			}
		}
		s.Message = trimPrefixes(msg)
		return s
	case sr.State.Is(types.SpecStateAborted | types.SpecStateInterrupted):
		s.Status = StatusError
	case strings.HasPrefix(msg, PrefixHarnessError) || hasEntry(sr, EntryHarnessError):
		s.Status = StatusError
	default:
		s.Status = StatusFail
	}
	if sr.State == types.SpecStatePanicked && sr.Failure.ForwardedPanic != "" {
		msg = strings.TrimSpace(msg + ": " + sr.Failure.ForwardedPanic)
	}
	if msg == "" {
		msg = sr.State.String()
	}
	s.Message = trimPrefixes(msg)
	if loc := sr.Failure.Location; loc.FileName != "" {
		s.Location = fmt.Sprintf("%s:%d", loc.FileName, loc.LineNumber)
	}
	return s
}

func hasEntry(sr types.SpecReport, name string) bool {
	for _, e := range sr.ReportEntries {
		if e.Name == name {
			return true
		}
	}
	return false
}

// settle gives an entry the most severe status among its specs, with that
// spec's message. A requirement whose only other specs do not apply
// still passes.
func settle(e *Entry) {
	e.Status = StatusNotApplicable
	var worst *Spec
	for i := range e.Specs {
		s := &e.Specs[i]
		e.DurationSeconds += s.DurationSeconds
		if worst == nil || severity(s.Status) > severity(worst.Status) {
			worst = s
		}
	}
	if worst == nil {
		e.Status, e.Message = StatusSkipped, "no spec tests this requirement"
		return
	}
	e.Status = worst.Status
	e.DurationSeconds = round3(e.DurationSeconds)
	if e.Status == StatusPass || e.Status == StatusNotApplicable && worst.Message == "" {
		return
	}
	e.Message = worst.Message
	if len(e.Specs) > 1 {
		n, same := 0, true
		for _, s := range e.Specs {
			if s.Status == worst.Status {
				n++
				same = same && s.Message == worst.Message
			}
		}
		if n == len(e.Specs) && same {
			e.Message = fmt.Sprintf("all %d specs %s: %s", n, e.Status, worst.Message)
		} else {
			e.Message = fmt.Sprintf("%d of %d specs %s; first: %s: %s", n, len(e.Specs), e.Status, worst.Name, worst.Message)
		}
	}
}

// count tallies requirements per level and status.
func count(es []Entry) (map[string]map[Status]int, map[Status]int) {
	counts := map[string]map[Status]int{}
	totals := map[Status]int{}
	for _, l := range Levels {
		counts[l] = map[Status]int{}
		for _, s := range Statuses {
			counts[l][s] = 0
		}
	}
	for _, s := range Statuses {
		totals[s] = 0
	}
	for _, e := range es {
		if counts[e.Level] == nil {
			counts[e.Level] = map[Status]int{}
		}
		counts[e.Level][e.Status]++
		totals[e.Status]++
	}
	return counts, totals
}

// verdict decides conformance from the MUST (and, when strict, SHOULD)
// requirements.
func verdict(es []Entry, strict bool) Verdict {
	v := VerdictConformant
	for _, e := range es {
		binding := e.Level == "MUST" || strict && e.Level == "SHOULD"
		if !binding {
			continue
		}
		switch e.Status {
		case StatusFail:
			return VerdictNonConformant
		case StatusPass, StatusNotApplicable:
		default:
			v = VerdictPartial
		}
	}
	return v
}

// ExitCode maps a report to a process exit code: ExitNonConformant when a
// binding requirement failed, else ExitHarnessError when anything could not
// run, else ExitConformant (also for a partial run without failures).
func (r *Report) ExitCode() int {
	if r.Summary.Verdict == VerdictNonConformant {
		return ExitNonConformant
	}
	if len(r.HarnessErrors) > 0 || r.Summary.Totals[StatusError] > 0 {
		return ExitHarnessError
	}
	return ExitConformant
}

// Failing returns the requirements that did not pass, not-applicable ones
// left out, most severe and strongest level first.
func (r *Report) Failing() []Entry { return failing(r.Requirements) }

// RecommendationsNotMet returns the recommendations that did not pass,
// not-applicable ones left out, in the order of Failing.
func (r *Report) RecommendationsNotMet() []Entry { return failing(r.Recommendations) }

func failing(es []Entry) []Entry {
	var out []Entry
	for _, e := range es {
		if e.Status != StatusPass && e.Status != StatusNotApplicable {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b Entry) int {
		if d := severity(b.Status) - severity(a.Status); d != 0 {
			return d
		}
		return slices.Index(Levels, a.Level) - slices.Index(Levels, b.Level)
	})
	return out
}

// buildTool fills the tool information from the binary's build data.
func buildTool(t Tool) Tool {
	if t.Name == "" {
		t.Name = ToolName
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		if t.Version == "" {
			t.Version = "unknown"
		}
		return t
	}
	if t.Version == "" {
		t.Version = info.Main.Version
		if t.Version == "" {
			t.Version = "(devel)"
		}
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			if t.Commit == "" {
				t.Commit = s.Value
			}
		case "vcs.modified":
			t.Modified = t.Modified || s.Value == "true"
		}
	}
	return t
}

// secretParams are query parameters whose values Redact hides.
var secretParams = []string{"password", "passwd", "pass", "secret", "token", "key", "signature", "sig", "credential", "auth", "session"}

// Redact hides credentials in a target: the password of a URL's userinfo
// and the values of query parameters whose names suggest secrets.
// Anything that is not a URL is returned unchanged.
func Redact(target string) string {
	u, err := url.Parse(target)
	if err != nil || u.Scheme == "" {
		return target
	}
	changed := false
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "REDACTED")
			changed = true
		}
	}
	q := u.Query()
	for k := range q {
		lk := strings.ToLower(k)
		for _, s := range secretParams {
			if strings.Contains(lk, s) {
				q[k] = []string{"REDACTED"}
				changed = true
				break
			}
		}
	}
	if !changed {
		return target
	}
	u.RawQuery = q.Encode()
	return u.String()
}

func seconds(d time.Duration) float64 { return round3(d.Seconds()) }

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }
