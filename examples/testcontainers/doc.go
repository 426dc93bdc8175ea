// Package example holds a build-tagged integration test that shows how to
// set up pgbrain in a testcontainers PostgreSQL (see example_test.go).
package example
