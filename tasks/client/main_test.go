package client_test

import (
	"os"
	"testing"

	"github.com/mcptasks/mcptasks/internal/taskserverproc"
)

// TestMain removes the taskserver binary the stdio tests build.
func TestMain(m *testing.M) { os.Exit(taskserverproc.Main(m)) }
