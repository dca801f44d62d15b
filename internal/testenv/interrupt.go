package testenv

import (
	"os"
	"time"
)

// Interrupt asks process p to end by sending sig, and waits until exited
// is closed (whoever waits for p closes it). If p is still running after
// grace it is killed and waited for. It reports whether the kill was
// needed.
func Interrupt(p *os.Process, exited <-chan struct{}, sig os.Signal, grace time.Duration) (killed bool) {
	_ = p.Signal(sig)
	select {
	case <-exited:
		return false
	case <-time.After(grace):
		_ = p.Kill()
		<-exited
		return true
	}
}
