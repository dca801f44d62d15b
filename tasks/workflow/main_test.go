package workflow_test

import (
	"os"
	"testing"

	"github.com/mcptasks/mcptasks/internal/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
