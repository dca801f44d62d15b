// Package tasks is the engine behind MCP 2025-11-25 tasks: the status
// machine, the Record a backend persists, the Store interface every backend
// implements, the limits in Config, owner resolution, and the Engine that
// runs task work.
//
// The package knows nothing about transports, databases or the generated
// wire types. What a backend author needs beyond the Store interface (record
// building, transition checks, variables, cursors, a polling Wait) is in
// tasks/storekit; the conversion to the wire and the JSON-RPC error codes
// are in tasks/protocol; the protocol's constant spellings are in
// tasks/wire. Backends live in stores/..., the MCP server in tasks/server,
// and the conformance suites that certify a Store in suites.
package tasks
