package bite_test

import (
	"slices"

	"github.com/mcptasks/mcptasks/tasks"
)

// mutants is the catalogue of broken stores. Each entry names the
// requirement the suite must fail for it.
var mutants = slices.Concat(
	configMutants,
	stampMutants,
	copyMutants,
	exactMutants,
	variableMutants,
	lifecycleMutants,
	isolationMutants,
	expiryMutants,
	pagingMutants,
	waitMutants,
	leaseMutants,
	ttlExtensionMutants,
)

// withOut returns a tracker whose every handed-out record passes through f.
func withOut(f func(cfg tasks.Config, r *tasks.Record)) func(tasks.Config) tasks.Store {
	return func(cfg tasks.Config) tasks.Store {
		t := track(cfg)
		c := t.cfg
		t.out = func(r *tasks.Record) { f(c, r) }
		return t
	}
}

// withInner returns a tracker over a memory store opened with a changed
// configuration.
func withInner(change func(c *tasks.Config)) func(tasks.Config) tasks.Store {
	return func(cfg tasks.Config) tasks.Store {
		inner := cfg.WithDefaults()
		change(&inner)
		return newTracker(cfg, inner)
	}
}
