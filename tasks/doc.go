// Package tasks is the engine behind MCP 2025-11-25 tasks: the status
// machine, the Record a backend persists, the Store interface every backend
// implements, the limits in Config, owner resolution, and the helpers that
// keep all backends behaving the same way (TTL policy, variable merging,
// list cursors, error codes).
//
// The package knows nothing about transports or databases. Backends live in
// stores/..., the MCP server in tasks/server, and the conformance suites that
// certify a Store in suites.
package tasks
