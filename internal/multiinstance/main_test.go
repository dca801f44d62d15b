package multiinstance_test

import (
	"os"
	"testing"

	"github.com/mcptasks/mcptasks/internal/taskserverproc"
)

// TestMain stops testenv's engines and removes the built taskserver.
func TestMain(m *testing.M) { os.Exit(taskserverproc.Main(m)) }
