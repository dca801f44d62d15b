// Package bite_test proves the store suite catches broken stores: each
// deliberately broken store (a mutant) wraps a real store, breaks one
// promise of the tasks.Store contract the way a real implementer
// plausibly would, and must fail the requirement that promise belongs to,
// while the controls (the memory store, and the memory store with a lease
// layer) pass every spec.
//
// Ginkgo runs one suite per process, so every store runs in a child
// process (this test binary again, TestOneStore) and several children run
// at once.
package bite_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/suites"
	"github.com/mcptasks/mcptasks/suites/internal/suitetest"
	"github.com/mcptasks/mcptasks/tasks"
)

// mutant is one store the suite runs against.
type mutant struct {
	name string
	// want is the requirement the suite must fail; empty for a control,
	// which must fail nothing.
	want string
	open func(cfg tasks.Config) tasks.Store
}

// controls pass every spec; they prove the failures of the mutants come
// from what the mutants break.
var controls = []mutant{
	{"control: the memory store", "", func(cfg tasks.Config) tasks.Store { return memory.New(cfg) }},
	{"control: the memory store with leases", "", func(cfg tasks.Config) tasks.Store { return newLeased(cfg) }},
}

// allStores is every control and mutant, by name.
func allStores() []mutant { return slices.Concat(controls, mutants) }

// outcome is what one child process reports.
type outcome struct {
	Failed map[string][]string `json:"failed"`
	// First is the requirement of the failed spec that ran first.
	First   string  `json:"first"`
	Specs   int     `json:"specs"`
	Seconds float64 `json:"seconds"`
	Error   string  `json:"error,omitempty"`
}

const (
	envStore = "BITE_STORE"
	envOut   = "BITE_OUT"
	envProcs = "BITE_PROCS"
)

// TestOneStore runs the suite against the store named in BITE_STORE and
// writes its outcome to BITE_OUT. Without them it does nothing: it is the
// child half of TestSuiteBites.
func TestOneStore(t *testing.T) {
	name, out := os.Getenv(envStore), os.Getenv(envOut)
	if name == "" || out == "" {
		t.Skip("run by TestSuiteBites")
	}
	var res outcome
	i := slices.IndexFunc(allStores(), func(m mutant) bool { return m.name == name })
	if i < 0 {
		res.Error = "no store named " + name
	} else {
		m := allStores()[i]
		start := time.Now()
		rep := suitetest.Run(func() {
			suites.DescribeStore(func(_ testing.TB, cfg tasks.Config) (tasks.Store, error) { return m.open(cfg), nil },
				suites.WithWaitLatency(time.Second), suites.WithSpecTimeout(10*time.Second))
		}, nil)
		res.Seconds = time.Since(start).Seconds()
		res.Failed = suitetest.Failed(rep)
		res.First = firstFailed(rep)
		for _, sr := range rep.SpecReports {
			if sr.LeafNodeType.Is(types.NodeTypeIt) && !sr.State.Is(types.SpecStateSkipped) {
				res.Specs++
			}
		}
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// firstFailed returns the requirement of the earliest failed spec.
func firstFailed(rep types.Report) string {
	var first types.SpecReport
	for _, sr := range rep.SpecReports {
		if !sr.LeafNodeType.Is(types.NodeTypeIt) || !sr.State.Is(types.SpecStateFailureStates) {
			continue
		}
		if first.StartTime.IsZero() || sr.StartTime.Before(first.StartTime) {
			first = sr
		}
	}
	for _, l := range first.Labels() {
		if id, ok := strings.CutPrefix(l, "req:"); ok {
			return id
		}
	}
	return ""
}

// runChild runs one store in a child process.
func runChild(dir string, i int, m mutant) outcome {
	out := filepath.Join(dir, strconv.Itoa(i)+".json")
	cmd := exec.Command(os.Args[0], "-test.run=^TestOneStore$", "-test.count=1", "-test.timeout=10m")
	cmd.Env = append(os.Environ(), envStore+"="+m.name, envOut+"="+out)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		return outcome{Error: fmt.Sprintf("child process: %v\n%s", err, tail(stderr.String(), 6000))}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return outcome{Error: fmt.Sprintf("reading the child's outcome: %v\n%s", err, tail(stderr.String(), 2000))}
	}
	var res outcome
	if err := json.Unmarshal(b, &res); err != nil {
		return outcome{Error: fmt.Sprintf("decoding the child's outcome: %v", err)}
	}
	return res
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// procs is how many children run at once: BITE_PROCS, or twice the CPUs
// (the suite spends much of its time waiting on purpose), at least two.
func procs() int {
	if n, err := strconv.Atoi(os.Getenv(envProcs)); err == nil && n > 0 {
		return n
	}
	return max(2, 2*runtime.NumCPU())
}

func TestSuiteBites(t *testing.T) {
	if os.Getenv(envStore) != "" {
		t.Skip("inside a child process")
	}
	stores := allStores()
	names := map[string]bool{}
	for _, m := range stores {
		if names[m.name] {
			t.Fatalf("two stores are named %q", m.name)
		}
		names[m.name] = true
		if _, ok := suites.Lookup(m.want); m.want != "" && !ok {
			t.Fatalf("%s: unknown requirement %s", m.name, m.want)
		}
	}
	if len(mutants) < 60 {
		t.Errorf("only %d broken stores, want at least 60", len(mutants))
	}

	// Start every child at once behind a semaphore; the subtests below
	// only wait for their own child's outcome.
	dir := t.TempDir()
	start := time.Now()
	results := make([]chan outcome, len(stores))
	sem := make(chan struct{}, procs())
	for i, m := range stores {
		results[i] = make(chan outcome, 1)
		go func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] <- runChild(dir, i, m)
		}()
	}

	got := make([]outcome, len(stores))
	t.Run("stores", func(t *testing.T) {
		for i, m := range stores {
			t.Run(m.name, func(t *testing.T) {
				t.Parallel()
				res := <-results[i]
				got[i] = res
				if res.Error != "" {
					t.Fatal(res.Error)
				}
				if res.Specs < 200 {
					t.Errorf("only %d specs ran", res.Specs)
				}
				if m.want == "" {
					for id, msgs := range res.Failed {
						t.Errorf("the control fails %s: %s", id, strings.Join(msgs, "\n"))
					}
					return
				}
				if _, ok := res.Failed[m.want]; !ok {
					t.Errorf("the suite did not fail %s; it failed %v", m.want, keys(res.Failed))
				}
			})
		}
	})

	var b strings.Builder
	fmt.Fprintf(&b, "%d stores (%d broken) in %.1f s, %d at a time\n", len(stores), len(mutants), time.Since(start).Seconds(), procs())
	fmt.Fprintf(&b, "%-62s %-16s %-16s %6s  %s\n", "store", "expected", "first failure", "secs", "all failed requirements")
	for i, m := range stores {
		want := m.want
		if want == "" {
			want = "(none)"
		}
		first := got[i].First
		if first == "" {
			first = "-"
		}
		fmt.Fprintf(&b, "%-62s %-16s %-16s %6.1f  %s\n", m.name, want, first, got[i].Seconds, strings.Join(keys(got[i].Failed), " "))
	}
	t.Log("\n" + b.String())
}

// TestSpecsReportTheirOwnLocation checks that every store spec names the
// file that declares it, not the helper that registers it.
func TestSpecsReportTheirOwnLocation(t *testing.T) {
	if os.Getenv(envStore) != "" {
		t.Skip("inside a child process")
	}
	rep := suitetest.Run(func() {
		suites.DescribeStore(func(_ testing.TB, cfg tasks.Config) (tasks.Store, error) { return memory.New(cfg), nil })
	}, func(sc *types.SuiteConfig) { sc.DryRun = true })
	n := 0
	for _, sr := range rep.SpecReports {
		if !sr.LeafNodeType.Is(types.NodeTypeIt) {
			continue
		}
		n++
		file := filepath.Base(sr.LeafNodeLocation.FileName)
		if file == "store.go" || !strings.HasPrefix(file, "store_") {
			t.Errorf("%s is reported at %s", sr.FullText(), sr.LeafNodeLocation)
		}
	}
	if n < 200 {
		t.Errorf("only %d specs in the dry run", n)
	}
}

// keys returns the map's keys, sorted.
func keys(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
