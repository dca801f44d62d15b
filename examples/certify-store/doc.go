// Package certifystore shows how a third party certifies its tasks.Store
// with the mcptasks conformance suite; see store_test.go and README.md.
// The in-memory store stands in for "your store".
package certifystore
