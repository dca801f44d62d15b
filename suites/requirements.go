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
	// Feature is the feature the rule belongs to in the MCP catalog's
	// grouping ("core" if always in scope); in store mode a feature other
	// than core is also what its specs need. What the server specs of a
	// rule depend on is in the server feature table (FeaturesIn).
	Feature Feature
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

// ExtPrefix starts the id of every requirement of the 2026-07-28 tasks
// extension catalog (ext-tasks-requirements.yaml); their specs run in the
// 2026-07-28 profile.
const ExtPrefix = "EXT-"

// Ext reports whether r belongs to the 2026-07-28 tasks extension.
func (r Requirement) Ext() bool { return strings.HasPrefix(r.ID, ExtPrefix) }

// VendorPrefix starts the id of every requirement a vendor registers with
// RegisterRequirement, so it can never collide with a rule of the MCP
// specification or of this toolkit.
const VendorPrefix = "X-"

// Vendor reports whether r was registered by a vendor (RegisterRequirement).
// Like the toolkit's rules, vendor rules are recommendations unless strict
// mode or the toolkit profile binds them.
func (r Requirement) Vendor() bool { return strings.HasPrefix(r.ID, VendorPrefix) }

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

// Requirements returns every registered requirement, vendors' included,
// sorted by id.
func Requirements() []Requirement {
	all := slices.Concat(storeRequirements, serverRequirements, extRequirements, vendorRequirements)
	slices.SortFunc(all, func(a, b Requirement) int { return strings.Compare(a.ID, b.ID) })
	return all
}

// Lookup finds a requirement by id.
func Lookup(id string) (Requirement, bool) {
	for _, list := range [][]Requirement{storeRequirements, serverRequirements, extRequirements, vendorRequirements} {
		for _, r := range list {
			if r.ID == id {
				return r, true
			}
		}
	}
	return Requirement{}, false
}

// Registered by vendors (RegisterRequirement), at init.
var (
	vendorRequirements []Requirement
	vendorFeatures     = map[string]Needs{}
)

// RegisterRequirement adds a vendor's own server requirement to the
// registry, with the features its specs depend on in server mode, so that
// specs added with DescribeServerSpecs can name it. The id must start
// with VendorPrefix ("X-ACME-001"), be new, and have a level and a
// summary. Call it at init, before the suite is described (it is not safe
// to call while a suite runs).
func RegisterRequirement(r Requirement, n Needs) error {
	switch {
	case !r.Vendor() || len(r.ID) <= len(VendorPrefix):
		return fmt.Errorf("suites: vendor requirement id %q must start with %q", r.ID, VendorPrefix)
	case r.Level != LevelMust && r.Level != LevelShould && r.Level != LevelMay:
		return fmt.Errorf("suites: vendor requirement %s: level %q is none of MUST, SHOULD, MAY", r.ID, r.Level)
	case strings.TrimSpace(r.Summary) == "":
		return fmt.Errorf("suites: vendor requirement %s has no summary", r.ID)
	}
	if _, dup := Lookup(r.ID); dup {
		return fmt.Errorf("suites: requirement %s is already registered", r.ID)
	}
	for _, f := range n.All() {
		if _, err := ParseFeature(string(f)); err != nil {
			return fmt.Errorf("suites: vendor requirement %s: %w", r.ID, err)
		}
	}
	vendorRequirements = append(vendorRequirements, r)
	vendorFeatures[r.ID] = n
	return nil
}

// Label keys used on every spec.
const (
	LabelReq     = "req"
	LabelLevel   = "level"
	LabelFeature = "feature"
	LabelArea    = "area"
	LabelMode    = "mode"
)

// storeReq returns the labels for a store spec that tests requirement id:
// req, level and the features it needs in store mode. It panics while the
// spec tree is built if id is unknown, which the registry test catches
// before release.
func storeReq(id string) ginkgo.Labels {
	r, ok := Lookup(id)
	if !ok {
		panic(fmt.Sprintf("suites: unknown requirement id %q", id))
	}
	return reqLabels(r, ModeStore)
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
