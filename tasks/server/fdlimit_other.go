//go:build !unix

package server

// fdBudget is unknown outside Unix: the connection cap stays as set.
func fdBudget() int { return 0 }
