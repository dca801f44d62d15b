//go:build !linux

package server_test

import (
	"context"
	"errors"
	"os/exec"
)

func setNoFile(uint64) error { return errors.New("not supported") }

func execCommand(ctx context.Context, name string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, name, args...)
}
