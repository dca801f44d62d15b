package suites

// storeRequirements are the requirements the store specs test. Owned by the
// store half of the suite; server specs may reuse these ids.
var storeRequirements = []Requirement{}
