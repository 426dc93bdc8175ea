// Package dbtest opens a brain on a fresh test database: the in-module
// companion of the public testdb package, for tests that call the brain's
// Go API rather than a URL.
package dbtest

import (
	"context"
	"testing"
	"time"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/testdb"
)

// Open returns an open brain on a fresh database for t, closed at cleanup.
func Open(t testing.TB, opts ...testdb.Options) *brain.Brain {
	t.Helper()
	u := testdb.New(t, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := brain.Open(ctx, u)
	if err != nil {
		t.Fatalf("testdb: opening brain: %v", err)
	}
	t.Cleanup(b.Close)
	return b
}
