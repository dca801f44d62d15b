//go:build race

package server_test

// raceEnabled: the race detector slows requests about tenfold, so the
// flood tests send fewer of them.
const raceEnabled = true
