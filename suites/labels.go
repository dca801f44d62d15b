package suites

import "github.com/onsi/ginkgo/v2"

// areaLabel returns the container label "area:<name>" that groups specs by the
// behaviour they exercise (lifecycle, isolation, ttl, ...).
func areaLabel(name string) ginkgo.Labels {
	return ginkgo.Label(LabelArea + ":" + name)
}

// modeLabel returns the label "mode:store" or "mode:server" put on the
// top-level container of a suite.
func modeLabel(m Mode) ginkgo.Labels {
	return ginkgo.Label(LabelMode + ":" + string(m))
}
