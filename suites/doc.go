// Package suites holds the MCP 2025-11-25 tasks conformance suites, written
// with Ginkgo v2 and Gomega. One spec set certifies any tasks.Store
// (RunStore, DescribeStore) and any live server (RunServer, DescribeServer).
//
// Every spec carries exactly one requirement id from the registry in this
// package (label "req:<ID>") plus level, feature, area and mode labels, so
// runs can be filtered with Ginkgo label filters and reported per
// requirement by package suites/report.
package suites
