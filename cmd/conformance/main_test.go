package main

import (
	"os"
	"testing"

	"github.com/mcptasks/mcptasks/internal/taskserverproc"
)

// TestMain removes the taskserver binary the stdio tests build; started
// with brokenStdioEnv set, the test binary is instead a filter that breaks
// one rule of a stdio server (see stdio_ext_test.go).
func TestMain(m *testing.M) {
	if mode := os.Getenv(brokenStdioEnv); mode != "" {
		os.Exit(brokenStdioFilter(mode, os.Args[1:]))
	}
	os.Exit(taskserverproc.Main(m))
}
