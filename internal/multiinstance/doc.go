// Package multiinstance holds end-to-end tests of several reference server
// processes sharing one durable store (PostgreSQL, Redis): a task created
// through one instance is readable, listable, cancellable and awaitable
// through another, and work lost with a killed instance is ended as failed
// by a surviving one once its lease lapses. The package has no code of its
// own; see its tests.
package multiinstance
