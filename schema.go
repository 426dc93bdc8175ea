// Package pgbrain holds the brain's SQL: numbered tern migrations in sql/,
// functions and views in functions/, triggers in triggers/. The Go client in
// client/ installs them; see client/migrate.
package pgbrain

import "embed"

// SQLFiles is the SQL source tree exactly as it is laid out in the repository.
//
//go:embed sql/*.sql functions/*.sql triggers/*.sql
var SQLFiles embed.FS
