// Package storekit is the toolkit for writing a tasks.Store. It holds what
// every backend must do the same way: building the record of a new task,
// the checks a status change, a completion or a cancellation must pass,
// the outcomes stores write on their own (cancelled, lost worker),
// merging and encoding task variables, the opaque list cursor, and a
// polling loop for Wait.
//
// A store built on this package imports neither the generated wire types
// nor the JSON Schema validator: the wire belongs to package
// tasks/protocol.
package storekit
