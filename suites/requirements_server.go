package suites

// serverRequirements are the requirements only live-server specs test.
// An id defined in storeRequirements is never repeated here.
var serverRequirements = []Requirement{}
