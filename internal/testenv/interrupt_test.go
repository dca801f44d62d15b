//go:build unix

package testenv

import (
	"bufio"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// startSleeper starts a process that sleeps a minute, ignoring SIGTERM if
// ignoreTerm is set, and returns it once it runs with a channel closed
// when it has exited.
func startSleeper(t *testing.T, ignoreTerm bool) (*exec.Cmd, chan struct{}) {
	t.Helper()
	script := "echo ready; exec sleep 60"
	if ignoreTerm {
		// An ignored signal stays ignored across exec.
		script = "trap '' TERM; " + script
	}
	cmd := exec.Command("sh", "-c", script)
	DieWithParent(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The trap is set once the shell has said so.
	if line, err := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		t.Fatalf("sleeper said %q: %v", line, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	return cmd, exited
}

func TestInterrupt(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ignoreTerm bool
		grace      time.Duration
		wantKilled bool
	}{
		{"ends on the signal", false, time.Minute, false},
		{"killed after the grace", true, 300 * time.Millisecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd, exited := startSleeper(t, tc.ignoreTerm)
			if got := Interrupt(cmd.Process, exited, syscall.SIGTERM, tc.grace); got != tc.wantKilled {
				t.Errorf("killed = %v, want %v", got, tc.wantKilled)
			}
			select {
			case <-exited:
			default:
				t.Fatal("Interrupt returned before the process exited")
			}
			ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !ok || !ws.Signaled() {
				t.Fatalf("process state %v, want ended by a signal", cmd.ProcessState)
			}
			wantSig := syscall.SIGTERM
			if tc.wantKilled {
				wantSig = syscall.SIGKILL
			}
			if ws.Signal() != wantSig {
				t.Errorf("ended by %v, want %v", ws.Signal(), wantSig)
			}
		})
	}
}
