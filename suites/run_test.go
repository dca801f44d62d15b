package suites

import (
	"testing"

	"github.com/onsi/ginkgo/v2"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/suites/report"
)

func TestBuildReportFillsWhatTheRunEngineFills(t *testing.T) {
	r := BuildReport(ginkgo.Report{}, ModeStore)
	if r.SchemaSHA256 != schema.SchemaSHA256 || r.SchemaSHA256 == "" {
		t.Errorf("schema hash %q, want the generated %q", r.SchemaSHA256, schema.SchemaSHA256)
	}
	if r.Mode != string(ModeStore) || r.Profile != report.ProfileToolkit || r.Strict {
		t.Errorf("mode %q profile %q strict %v", r.Mode, r.Profile, r.Strict)
	}
	r = BuildReport(ginkgo.Report{}, ModeServer, WithStrict(true), WithTarget("stdio: srv"),
		WithImplementation("srv", "1"), WithSchemaSHA256("abc"))
	if !r.Strict || r.Profile != report.ProfileMCP || r.SchemaSHA256 != "abc" {
		t.Errorf("strict %v profile %q hash %q", r.Strict, r.Profile, r.SchemaSHA256)
	}
	if len(r.Targets) != 1 || r.Targets[0] != "stdio: srv" || r.Implementation == nil || r.Implementation.Version != "1" {
		t.Errorf("targets %q implementation %+v", r.Targets, r.Implementation)
	}
}

func TestTimeoutScale(t *testing.T) {
	o := newOptions([]Option{WithTimeoutScale(3)})
	cfg := o.scale(ServerConfig{URLs: []string{"http://x/mcp"}})
	d := ServerConfig{}.withDefaults()
	if cfg.TaskTimeout != 3*d.TaskTimeout || cfg.ExpiryBudget != 3*d.ExpiryBudget || cfg.MaxPoll != 3*d.MaxPoll {
		t.Errorf("scaled config %v %v %v", cfg.TaskTimeout, cfg.ExpiryBudget, cfg.MaxPoll)
	}
	if o.specTimeout != 3*defaultSpecTimeout {
		t.Errorf("spec timeout %v", o.specTimeout)
	}
	same := newOptions([]Option{WithTimeoutScale(0)})
	if got := same.scale(ServerConfig{TaskTimeout: 7}); got.TaskTimeout != 7 || same.specTimeout != defaultSpecTimeout {
		t.Errorf("scale 0 changed the limits: %v %v", got.TaskTimeout, same.specTimeout)
	}
}
