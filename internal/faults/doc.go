// Package faults holds end-to-end fault tests: the reference server
// (cmd/taskserver, built and run as a real process) on a real store engine
// that the tests stop, freeze or kill while tasks run. They check that no
// finished work is lost to a store outage (PostgreSQL stopped, Redis and
// the DynamoDB-compatible server frozen) and that tasks left running by a
// killed SQLite server end as failed, with an answer and their slots
// freed, when it restarts. The package has no code of its own; see its
// tests and docs/reliability.md.
package faults
