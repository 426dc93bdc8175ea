package dbtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/testdb"
)

// Fixture is a database built once per test binary and cloned for each test
// that asks for it (CREATE DATABASE ... TEMPLATE copies files, so a clone of
// a 20,000-page brain costs a fraction of building it again). Declare one as
// a package variable next to the tests that share it; Build runs on a fresh
// migrated database on first use and must leave no connection open.
type Fixture struct {
	Name    string         // short label for the database name: [a-z0-9_]
	Options testdb.Options // the migrated brain Build starts from
	Build   func(ctx context.Context, url string) error

	once            sync.Once
	admin, template string
	err             error
}

// Clone returns the URL of a fresh copy of the fixture for t, dropped at
// cleanup unless t failed.
func (f *Fixture) Clone(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	f.once.Do(func() { f.admin, f.template, f.err = f.build(ctx) })
	if f.err != nil {
		t.Fatalf("dbtest: building fixture %s: %v", f.Name, f.err)
	}
	return testdb.Clone(t, f.template)
}

func (f *Fixture) build(ctx context.Context) (admin, template string, err error) {
	if admin, err = testdb.Server(ctx); err != nil {
		return "", "", fmt.Errorf("no PostgreSQL server for tests (run 'make setup', or set TEST_DATABASE_URL): %w", err)
	}
	template = "pgbrain_fixture_" + f.Name + "_" + randomHex()
	u, err := testdb.CreateMigrated(ctx, admin, template, f.Options)
	if err != nil {
		return "", "", fmt.Errorf("creating %s: %w", template, err)
	}
	if err := f.Build(ctx, u); err != nil {
		return "", "", err
	}
	// A clone starts with its activity counters at zero, so autovacuum never
	// visits it: vacuum the template once, or every clone keeps the dead
	// rows and missing visibility map of the build (searches on an
	// unvacuumed sample brain took twice as long).
	if err := vacuum(ctx, u); err != nil {
		return "", "", fmt.Errorf("vacuuming %s: %w", template, err)
	}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "", "", err
	}
	defer conn.Close(ctx)
	// A clone needs the template to have no sessions; the pool Build used
	// may still be closing its connections.
	if _, err := conn.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, template); err != nil {
		return "", "", err
	}
	if _, err := conn.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s IS_TEMPLATE true", template)); err != nil {
		return "", "", err
	}
	testdb.AtExit(func(ctx context.Context) error { return dropTemplate(ctx, admin, template) })
	return admin, template, nil
}

// dropTemplate removes a fixture's template: its name is random, so
// nothing else ever would on a server that outlives the test binary.
func dropTemplate(ctx context.Context, admin, template string) error {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return fmt.Errorf("dropping fixture template %s: %w", template, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s IS_TEMPLATE false", template)); err != nil {
		return fmt.Errorf("dropping fixture template %s: %w", template, err)
	}
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+template+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("dropping fixture template %s: %w", template, err)
	}
	return nil
}

func vacuum(ctx context.Context, url string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `VACUUM (ANALYZE)`)
	return err
}

func randomHex() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
