package suites

import "slices"

// HTTPOnly reports whether requirement id is a rule of the Streamable HTTP
// transport (its server specs need FeatureHTTP), not-applicable to a
// server spoken to over stdio.
func HTTPOnly(id string) bool {
	return slices.Contains(serverFeatureTable()[id].Needs, FeatureHTTP)
}
