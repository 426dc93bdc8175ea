package longmemeval

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/dbtest"
)

// scratchTemplate is a scratch brain made once per test binary: a migrated
// brain (the same migrations NewScratch runs, with the default settings a
// fresh user brain has) that went through installScratchSQL. Migrating a
// database costs most of a NewScratch, so the tests that need a scratch
// brain, not NewScratch itself, clone this one. TestScratchTakesTheBenchmarkShape
// checks that a clone is what NewScratch makes, row for row and setting for
// setting; the tests of NewScratch itself (settings, shape, CREATEDB, drop
// after an interrupt, the user's brain untouched) still call it.
var scratchTemplate = &dbtest.Fixture{Name: "lme_scratch", Build: buildScratchTemplate}

// scratchDBSettings are the per-database settings (ALTER DATABASE ... SET)
// NewScratch gives a scratch database. CREATE DATABASE ... TEMPLATE does not
// copy them, so each clone gets them anew. TestScratchTakesTheBenchmarkShape
// compares a clone's settings with those of a real NewScratch, so a setting
// added there and not here fails it.
var scratchDBSettings = []string{
	"brain.vector_scan=exact",
	"jit=off",
	"plan_cache_mode=force_generic_plan",
	"synchronous_commit=off",
}

func buildScratchTemplate(ctx context.Context, url string) error {
	b, err := brain.Open(ctx, url)
	if err != nil {
		return err
	}
	defer b.Close()
	s := &Scratch{B: b, Name: b.Pool.Config().ConnConfig.Database}
	return s.installScratchSQL(ctx)
}

// databaseSettings lists the ALTER DATABASE ... SET settings of database
// name, sorted.
func databaseSettings(ctx context.Context, db interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, name string) ([]string, error) {
	var out []string
	err := db.QueryRow(ctx, `SELECT coalesce((SELECT array_agg(s ORDER BY s) FROM pg_db_role_setting r, unnest(r.setconfig) s
		WHERE r.setrole = 0 AND r.setdatabase = (SELECT oid FROM pg_database WHERE datname = $1)), '{}')`, name).Scan(&out)
	if err != nil {
		return nil, fmt.Errorf("reading the settings of database %s: %w", name, err)
	}
	return out, nil
}

// cloneScratch is a scratch brain of its own for t, retrieving by method
// (MethodHybrid when empty), as NewScratch with the default settings would
// make it; it is closed and dropped at cleanup.
func cloneScratch(t testing.TB, keywordOnly bool, method string) *Scratch {
	t.Helper()
	ctx := context.Background()
	if method == "" {
		method = MethodHybrid
	}
	u := scratchTemplate.Clone(t)
	pc, err := pgx.ParseConfig(u)
	if err != nil {
		t.Fatal(err)
	}
	s := &Scratch{Name: pc.Database, admin: pc, vacuumEvery: vacuumEvery}
	// CREATE DATABASE ... TEMPLATE copies no ALTER DATABASE ... SET.
	var sets []string
	for _, set := range scratchDBSettings {
		name, value, ok := strings.Cut(set, "=")
		if !ok || name == "" {
			t.Fatalf("database setting %q is not name=value", set)
		}
		sets = append(sets, fmt.Sprintf("ALTER DATABASE %s SET %s = %s", pgx.Identifier{s.Name}.Sanitize(), name, quoteLiteral(value)))
	}
	if err := s.adminExec(ctx, strings.Join(sets, "; ")); err != nil {
		t.Fatalf("setting %v on the cloned scratch brain: %v", scratchDBSettings, err)
	}
	b, err := brain.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close) // runs before the clone's DROP, registered earlier
	s.B = b
	s.o = ScratchOptions{Settings: b.Settings, KeywordOnly: keywordOnly, Method: method}
	return s
}

// quoteLiteral quotes a setting's value as an SQL string. The names come
// from the catalog, as PostgreSQL printed them: already valid as written.
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
