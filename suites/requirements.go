package suites

import (
	"fmt"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2"

	"github.com/mcptasks/mcptasks/suites/report"
)

// Level is the force of a requirement.
type Level string

// Requirement levels. MUST NOT and SHOULD NOT fold into MUST and SHOULD.
const (
	LevelMust   Level = "MUST"
	LevelShould Level = "SHOULD"
	LevelMay    Level = "MAY"
)

// Mode says what a spec certifies.
type Mode string

// The two kinds of subject.
const (
	ModeStore  Mode = "store"
	ModeServer Mode = "server"
)

// Requirement is one entry of the registry: a testable rule with a stable
// id. IDs from the MCP spec catalog look like TASKS-LIFE-002; product
// requirements of this toolkit (variables, limits) look like MCPT-VAR-001.
// IDs never change meaning; retired ones are kept, marked Retired.
type Requirement struct {
	ID      string
	Level   Level
	Section string // where the rule lives, e.g. "basic/utilities/tasks.mdx § Task Cancellation"
	Feature string // optional feature it belongs to, "core" if always in scope
	Summary string // our own one-line paraphrase
	Retired bool
}

// ToolkitPrefix starts the id of every rule of this toolkit (as opposed to
// a rule of the MCP specification).
const ToolkitPrefix = "MCPT-"

// Toolkit reports whether r is a rule of this toolkit rather than of the
// MCP specification. Against a server someone else wrote, such rules are
// recommendations: reported apart, never deciding the verdict, unless
// strict mode or the toolkit profile binds them.
func (r Requirement) Toolkit() bool { return strings.HasPrefix(r.ID, ToolkitPrefix) }

// Profile says which rules decide the verdict of a run.
type Profile string

// The two profiles.
const (
	// ProfileMCP binds only rules of the MCP specification; the toolkit's
	// own rules are reported as recommendations. The default for servers.
	ProfileMCP Profile = report.ProfileMCP
	// ProfileToolkit binds the toolkit's own rules too. The default for
	// stores, which implement the toolkit's Store contract, and the
	// profile the reference server is certified under.
	ProfileToolkit Profile = report.ProfileToolkit
)

// ParseProfile reads a profile name.
func ParseProfile(s string) (Profile, error) {
	switch Profile(s) {
	case ProfileMCP, ProfileToolkit:
		return Profile(s), nil
	}
	return "", fmt.Errorf("unknown profile %q (want %s or %s)", s, ProfileMCP, ProfileToolkit)
}

// Requirements returns every registered requirement, sorted by id.
func Requirements() []Requirement {
	all := slices.Concat(storeRequirements, serverRequirements)
	slices.SortFunc(all, func(a, b Requirement) int { return strings.Compare(a.ID, b.ID) })
	return all
}

// Lookup finds a requirement by id.
func Lookup(id string) (Requirement, bool) {
	for _, r := range storeRequirements {
		if r.ID == id {
			return r, true
		}
	}
	for _, r := range serverRequirements {
		if r.ID == id {
			return r, true
		}
	}
	return Requirement{}, false
}

// Label keys used on every spec.
const (
	LabelReq     = "req"
	LabelLevel   = "level"
	LabelFeature = "feature"
	LabelArea    = "area"
	LabelMode    = "mode"
)

// Req returns the labels for a spec that tests requirement id: req, level
// and feature. It panics while the spec tree is built if id is unknown,
// which the registry test catches before release.
func Req(id string) ginkgo.Labels {
	r, ok := Lookup(id)
	if !ok {
		panic(fmt.Sprintf("suites: unknown requirement id %q", id))
	}
	feature := r.Feature
	if feature == "" {
		feature = "core"
	}
	return ginkgo.Label(
		LabelReq+":"+r.ID,
		LabelLevel+":"+strings.ToLower(string(r.Level)),
		LabelFeature+":"+feature,
	)
}

// Skip reasons carry one of these prefixes so reports can tell "the subject
// lacks what the spec needs" from "the spec does not apply".
const (
	PrefixNotSupported  = report.PrefixNotSupported
	PrefixNotApplicable = report.PrefixNotApplicable
)

// NotSupported skips the running spec because the subject does not offer
// what it needs (a fixture tool, a second identity, ...). It is never a pass.
func NotSupported(format string, args ...any) {
	ginkgo.Skip(PrefixNotSupported + fmt.Sprintf(format, args...))
}

// NotApplicable skips the running spec because the requirement does not
// apply to this subject (for example a capability it does not declare).
func NotApplicable(format string, args ...any) {
	ginkgo.Skip(PrefixNotApplicable + fmt.Sprintf(format, args...))
}
