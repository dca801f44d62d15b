package suites

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fixedWaits are the waits in the server specs that keep a raw duration
// on purpose, with the reason; every other wait must go through
// ServerEnv.scaled or a configured limit, so that --timeout-scale reaches
// it.
var fixedWaits = map[string]string{
	"server_auth.go:probeAnonymous":   "the authorization probe runs outside any spec, under the caller's own deadline",
	"shared_invariants.go:cancelRace": "TASKS-NCANCEL-008 and its 2026-07-28 twin race a cancel against a 20 ms task on purpose",
	"server_transport.go:spec":        "TASKS-XPORT-021 drops a pending tasks/result after 150 ms, while the 600 ms task runs, on purpose",
	"server_poll.go:spec clockDrift":  "a tolerance between two clocks in an assertion, not a wait",
}

// TestTimeoutScaleReachesEveryWait parses the server spec files and finds
// every wait (time.Sleep, time.After, time.NewTimer, context.WithTimeout,
// context.WithDeadline, time.Now().Add): its duration must not be a raw
// literal or a package constant unless it is wrapped in env.scaled, or
// listed in fixedWaits with a reason.
func TestTimeoutScaleReachesEveryWait(t *testing.T) {
	files, err := filepath.Glob("server_*.go")
	if err != nil {
		t.Fatal(err)
	}
	shared, err := filepath.Glob("shared_*.go")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, shared...)
	fset := token.NewFileSet()
	consts := map[string]bool{}
	parsed := map[string]*ast.File{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed[name] = f
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
				for _, s := range g.Specs {
					for _, n := range s.(*ast.ValueSpec).Names {
						consts[n.Name] = true
					}
				}
			}
		}
	}
	waits, raw := 0, 0
	for name, f := range parsed {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			where := "spec" // package-level spec registrations
			if ok {
				where = fn.Name.Name
			}
			ast.Inspect(d, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				arg := waitArgument(call)
				if arg == nil {
					return true
				}
				waits++
				if scaledCall(arg) {
					return true
				}
				if lit := rawDuration(arg, consts); lit != "" {
					key := name + ":" + where
					if _, ok := fixedWaits[key]; ok && fixedWaits[key] != "" {
						return true
					}
					if _, ok := fixedWaits[key+" "+lit]; ok {
						return true
					}
					raw++
					t.Errorf("%s: %s waits a fixed %s that --timeout-scale does not reach; wrap it in env.scaled",
						fset.Position(call.Pos()), where, lit)
				}
				return true
			})
		}
	}
	if waits < 20 {
		t.Errorf("found only %d waits: the parser missed the spec files", waits)
	}
	t.Logf("%d waits checked, %d unscaled", waits, raw)
}

// waitArgument returns the duration a call waits for, or nil if the call
// is not a wait.
func waitArgument(call *ast.CallExpr) ast.Expr {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	pkg, _ := sel.X.(*ast.Ident)
	switch {
	case pkg != nil && pkg.Name == "time" && (sel.Sel.Name == "Sleep" || sel.Sel.Name == "After" || sel.Sel.Name == "NewTimer") && len(call.Args) == 1:
		return call.Args[0]
	case pkg != nil && pkg.Name == "context" && (sel.Sel.Name == "WithTimeout" || sel.Sel.Name == "WithDeadline") && len(call.Args) == 2:
		return call.Args[1]
	case sel.Sel.Name == "Add" && len(call.Args) == 1:
		if inner, ok := sel.X.(*ast.CallExpr); ok {
			if s, ok := inner.Fun.(*ast.SelectorExpr); ok && s.Sel.Name == "Now" {
				return call.Args[0]
			}
		}
	}
	return nil
}

// scaledCall reports whether e is env.scaled(...).
func scaledCall(e ast.Expr) bool {
	c, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	s, ok := c.Fun.(*ast.SelectorExpr)
	return ok && s.Sel.Name == "scaled"
}

// rawDuration returns the first literal or package constant in e ("" if
// none): a duration fixed in the source.
func rawDuration(e ast.Expr, consts map[string]bool) string {
	found := ""
	ast.Inspect(e, func(n ast.Node) bool {
		if found != "" {
			return false
		}
		switch x := n.(type) {
		case *ast.BasicLit:
			found = x.Value
		case *ast.Ident:
			if consts[x.Name] {
				found = x.Name
			}
		case *ast.SelectorExpr:
			// time.Millisecond alone is a unit; a field (env.Config.X)
			// is a configured, scaled limit.
			return false
		}
		return true
	})
	return found
}

func TestScaledMultipliesWaits(t *testing.T) {
	for _, tc := range []struct {
		scale float64
		in    time.Duration
		want  time.Duration
	}{{0, time.Second, time.Second}, {1, time.Second, time.Second}, {2.5, 200 * time.Millisecond, 500 * time.Millisecond}} {
		env := &ServerEnv{opts: newOptions([]Option{WithTimeoutScale(tc.scale)})}
		if got := env.scaled(tc.in); got != tc.want {
			t.Errorf("scale %v: scaled(%v) = %v, want %v", tc.scale, tc.in, got, tc.want)
		}
	}
	if got := fmt.Sprint(newOptions([]Option{WithTimeoutScale(3)}).timeoutScale); got != "3" {
		t.Errorf("timeout scale %s", got)
	}
}
