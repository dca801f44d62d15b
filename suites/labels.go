package suites

import "github.com/onsi/ginkgo/v2"

// Area returns the container label "area:<name>" that groups specs by the
// behaviour they exercise (lifecycle, isolation, ttl, ...).
func Area(name string) ginkgo.Labels {
	return ginkgo.Label(LabelArea + ":" + name)
}

// ModeLabel returns the label "mode:store" or "mode:server" put on the
// top-level container of a suite.
func ModeLabel(m Mode) ginkgo.Labels {
	return ginkgo.Label(LabelMode + ":" + string(m))
}
