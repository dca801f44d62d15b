// Package tsclient holds the interoperability test that drives the
// reference server with the official MCP TypeScript client
// (@modelcontextprotocol/client 2.x with @modelcontextprotocol/ext-tasks
// 0.2.x) over real HTTP on loopback.
//
// Only small scripts and a pinned package.json with its lockfile live in
// js/; the test installs the packages with npm ci into the npm cache of
// internal/testenv (outside the repository), and Node itself from npm when
// the machine has none recent enough. Installing needs
// MCPTASKS_INSTALL_SERVICES=1; without an installed client the test skips
// and says why, or fails under MCPTASKS_REQUIRE_SERVICES=1.
package tsclient
