package main

import (
	"os"
	"testing"

	"github.com/mcptasks/mcptasks/internal/testenv"
)

// TestMain stops the engines testenv started (PostgreSQL for the log
// redaction test) when the tests end.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
