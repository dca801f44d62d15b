package storekit_test

import (
	"os/exec"
	"strings"
	"testing"
)

// forbiddenForStores are the packages a store must be able to do
// without: the generated wire types and the JSON Schema validator. Both
// belong to the protocol side.
var forbiddenForStores = []string{
	"github.com/mcptasks/mcptasks/schema",
	"github.com/santhosh-tekuri/jsonschema",
}

// TestStoresImportNoWireTypes proves, from the build's own dependency
// graph, that the store kit and every store link neither the generated
// types nor the validator, so a third-party store built the same way
// doesn't either.
func TestStoresImportNoWireTypes(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	pkgs := []string{
		"github.com/mcptasks/mcptasks/tasks/storekit",
		"github.com/mcptasks/mcptasks/stores/memory",
		"github.com/mcptasks/mcptasks/stores/sqlite",
		"github.com/mcptasks/mcptasks/stores/postgres",
		"github.com/mcptasks/mcptasks/stores/redis",
		"github.com/mcptasks/mcptasks/stores/dynamodb",
	}
	for _, pkg := range pkgs {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 2 {
			t.Fatalf("go list -deps %s listed %d packages; the check would prove nothing", pkg, len(deps))
		}
		for _, dep := range deps {
			for _, bad := range forbiddenForStores {
				if dep == bad || strings.HasPrefix(dep, bad+"/") {
					t.Errorf("%s depends on %s; stores must build without the wire types and the validator", pkg, dep)
				}
			}
		}
	}
}
