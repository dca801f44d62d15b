package suites

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/mcptasks/mcptasks/tasks/client"
)

// It registers a spec that tests exactly one requirement, with the
// requirement's labels (req, level, and a feature label for every
// feature the registry names for it in server mode) and the suite's
// spec timeout. Before the body runs, the spec is skipped when a feature
// the requirement needs is off (see Needs); then identity A is
// connected. The spec is reported at the line that called It.
func (env *ServerEnv) It(text, reqID string, body func(ctx ginkgo.SpecContext)) bool {
	return env.it(text, reqID, nil, body)
}

// ItNeeding is It for a spec that, beyond what its requirement needs,
// needs some of the features the requirement only uses (Needs.Uses):
// for example one of two specs of a requirement that can only be judged
// with tasks/cancel. It panics while the spec tree is built if a feature
// is not among the requirement's, which the registry test catches.
func (env *ServerEnv) ItNeeding(text, reqID string, features []Feature, body func(ctx ginkgo.SpecContext)) bool {
	return env.it(text, reqID, features, body)
}

func (env *ServerEnv) it(text, reqID string, extra []Feature, body func(ctx ginkgo.SpecContext)) bool {
	r, ok := Lookup(reqID)
	if !ok {
		panic(fmt.Sprintf("suites: unknown requirement id %q", reqID))
	}
	n := r.FeaturesIn(ModeServer)
	for _, f := range extra {
		if !n.Names(f) {
			panic(fmt.Sprintf("suites: a spec of %s needs the feature %s, which the registry does not name for it", reqID, f))
		}
	}
	// Every spec belongs to one protocol profile: the EXT- catalog's to
	// 2026-07-28, every other requirement to 2025-11-25.
	profile := FeatureProtocol2025
	if r.Ext() {
		profile = FeatureExtTasks
	}
	gate := Needs{Needs: slices.Concat([]Feature{profile}, n.Needs, extra), Without: n.Without}
	return ginkgo.It(text, reqLabels(r, ModeServer), ginkgo.SpecTimeout(env.opts.specTimeout), ginkgo.Offset(2),
		func(ctx ginkgo.SpecContext) {
			env.gate(ctx, n, gate)
			if r.Ext() {
				env.extSetup(ctx)
			} else {
				env.setup(ctx)
			}
			body(ctx)
		})
}

// gate skips the running spec, before anything is started for it, when
// the run's features do not let its requirement apply.
func (env *ServerEnv) gate(ctx context.Context, named, gate Needs) {
	ginkgo.GinkgoHelper()
	fs := env.featureSet(ctx)
	env.featMu.Lock()
	env.named = named
	env.featMu.Unlock()
	reason, notSupported := fs.skipReason(gate)
	switch {
	case reason == "":
	case notSupported:
		NotSupported("%s", reason)
	default:
		NotApplicable("%s", reason)
	}
}

// featureSet returns the run's feature decision, probing the server once
// when CertifyServer did not hand one over. A failed probe is a harness
// error of the spec at hand and is retried by the next one.
func (env *ServerEnv) featureSet(ctx context.Context) FeatureSet {
	ginkgo.GinkgoHelper()
	env.featMu.Lock()
	defer env.featMu.Unlock()
	if env.features != nil {
		return env.features
	}
	if err := env.Config.Validate(); err != nil {
		HarnessError("invalid server configuration: %v", err)
	}
	pctx, cancel := context.WithTimeout(ctx, env.scaled(15*time.Second))
	defer cancel()
	_, fs, err := probeFeatures(pctx, env.Config, env.opts.overrides, env.opts.protocols)
	if err != nil {
		HarnessError("cannot probe %s for its features: %v", env.Config.Target(), err)
	}
	env.features = fs
	return fs
}

// Feature returns the run's decision about f (zero when the run has not
// decided yet).
func (env *ServerEnv) Feature(f Feature) FeatureDecision {
	env.featMu.Lock()
	defer env.featMu.Unlock()
	return env.features[f]
}

// Has reports whether feature f is on, for a spec whose requirement uses
// f when it can (Needs.Uses). Asking about a feature the registry does
// not name for the running requirement is a harness error: the labels
// and the outcome would disagree.
func (env *ServerEnv) Has(f Feature) bool {
	ginkgo.GinkgoHelper()
	env.use(f)
	return env.Feature(f).State == StateOn
}

// use makes the running spec a harness error when its body relies on a
// feature its requirement does not name.
func (env *ServerEnv) use(f Feature) {
	ginkgo.GinkgoHelper()
	env.featMu.Lock()
	named := env.named.Names(f)
	env.featMu.Unlock()
	if named {
		return
	}
	HarnessError("the spec relies on the feature %s, which the registry does not name for %s (add it to the requirement's Needs)",
		f, orUnknown(currentRequirement()))
}

// checkUndeclaredUse looks, after the body, for answers of tasks/list and
// tasks/cancel the spec obtained although its requirement names neither
// list nor cancel.
func (env *ServerEnv) checkUndeclaredUse(msgs []*client.Message) {
	ginkgo.GinkgoHelper()
	for _, m := range msgs {
		if m.Kind != client.KindResult {
			continue
		}
		switch m.Method {
		case "tasks/list":
			env.use(FeatureList)
		case "tasks/cancel":
			env.use(FeatureCancel)
		}
	}
}

// reqLabels are the labels of a spec of r in mode: req, level, and one
// feature label per feature the registry names for r in that mode.
func reqLabels(r Requirement, mode Mode) ginkgo.Labels {
	labels := ginkgo.Labels{LabelReq + ":" + r.ID, LabelLevel + ":" + strings.ToLower(string(r.Level))}
	for _, f := range r.FeaturesIn(mode).All() {
		labels = append(labels, LabelFeature+":"+string(f))
	}
	return labels
}

// scaled multiplies a fixed wait of a spec body by the run's timeout
// scale (WithTimeoutScale), so servers with slow fixtures get the same
// margins everywhere.
func (env *ServerEnv) scaled(d time.Duration) time.Duration {
	if f := env.opts.timeoutScale; f > 0 && f != 1 {
		return time.Duration(float64(d) * f)
	}
	return d
}

func orUnknown(id string) string {
	if id == "" {
		return "the spec's requirement"
	}
	return id
}
