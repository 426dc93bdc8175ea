// Package pgbrain holds the brain's SQL: numbered tern migrations in sql/,
// functions and views in functions/, triggers in triggers/. The Go client in
// client/ installs them; see client/migrate. longmemeval/ holds the SQL that
// turns a LongMemEval scratch brain into its benchmark shape
// (internal/longmemeval); it never runs in a user's brain.
package pgbrain

import "embed"

// SQLFiles is the SQL source tree exactly as it is laid out in the repository.
//
//go:embed sql/*.sql functions/*.sql triggers/*.sql longmemeval/*.sql
var SQLFiles embed.FS
