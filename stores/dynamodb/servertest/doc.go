// Package servertest certifies the reference server running on the
// DynamoDB store, as two instances sharing one table, with the server half
// of the conformance suite (including its multi-instance specs). It holds
// tests only.
package servertest
