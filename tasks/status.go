package tasks

import "github.com/mcptasks/mcptasks/tasks/wire"

// Status is the lifecycle state of a task, spelled as on the wire.
type Status string

// The five task statuses of MCP 2025-11-25.
const (
	StatusWorking       Status = wire.StatusWorking
	StatusInputRequired Status = wire.StatusInputRequired
	StatusCompleted     Status = wire.StatusCompleted
	StatusFailed        Status = wire.StatusFailed
	StatusCancelled     Status = wire.StatusCancelled
)

// Statuses lists every status in a fixed order, handy for table tests.
var Statuses = []Status{StatusWorking, StatusInputRequired, StatusCompleted, StatusFailed, StatusCancelled}

// Valid reports whether s is one of the five known statuses.
func (s Status) Valid() bool {
	switch s {
	case StatusWorking, StatusInputRequired, StatusCompleted, StatusFailed, StatusCancelled:
		return true
	}
	return false
}

// Terminal reports whether s is final: completed, failed or cancelled.
func (s Status) Terminal() bool {
	return s == StatusCompleted || s == StatusFailed || s == StatusCancelled
}

// CanTransition reports whether a task may move from one status to another.
// Working and input_required may move to each other or to any terminal
// status; terminal statuses never move; no status moves to itself.
func CanTransition(from, to Status) bool {
	if !from.Valid() || !to.Valid() || from == to || from.Terminal() {
		return false
	}
	return true
}
