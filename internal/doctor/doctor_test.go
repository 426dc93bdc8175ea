package doctor

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pgbrain/pgbrain/internal/capture"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/embed/refresh"
	"github.com/pgbrain/pgbrain/internal/evalconfig"
	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

func TestDoctorReportsFailuresAndSpool(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	for _, stmt := range []string{
		`INSERT INTO brain.eval_capture_failures (reason) VALUES ('db_down'), ('db_down'), ('check_violation')`,
		// Older than 24h: not counted.
		`INSERT INTO brain.eval_capture_failures (reason, occurred_at) VALUES ('other', now() - interval '2 days')`,
	} {
		if _, err := b.Pool.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	spool := capture.NewSpool(home)
	if err := spool.Append(capture.Failure{SpoolID: "0123456789abcdef0123456789abcdef", Reason: capture.ReasonDBDown}); err != nil {
		t.Fatal(err)
	}
	cfg := evalconfig.Resolve(evalconfig.File{}, "1")
	r, err := Run(ctx, b, cfg, nil, spool, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"db_down": 2, "check_violation": 1, "rls_reject": 0, "scrubber_exception": 0, "other": 0}
	if fmt.Sprint(r.CaptureFailures24h) != fmt.Sprint(want) {
		t.Errorf("failures = %v, want %v", r.CaptureFailures24h, want)
	}
	if r.SpooledFailures != 1 || !r.Capture.Capture || r.Capture.CaptureSource != evalconfig.FromEnv {
		t.Errorf("spooled %d, capture %+v", r.SpooledFailures, r.Capture)
	}
	if r.DatabaseSchema != r.LatestSchema || r.Embedder != "local" || r.Dim == 0 {
		t.Errorf("schema %d/%d embedder %s dim %d", r.DatabaseSchema, r.LatestSchema, r.Embedder, r.Dim)
	}
	if len(r.Warnings) != 2 {
		t.Errorf("warnings = %q, want failures and spool", r.Warnings)
	}
}

func TestDoctorQuietBrain(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	r, err := Run(context.Background(), b, evalconfig.Resolve(evalconfig.File{}, ""), nil, capture.NewSpool(t.TempDir()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) != 0 || r.Capture.Capture || r.Pages != 0 {
		t.Fatalf("report %+v", r)
	}
}

// TestDoctorCountsPIIWhenClassified: no counts without brain.page_pii
// (before migration 004), pages per category with it. The table is replaced
// by a minimal one so the test does not depend on the classifier.
func TestDoctorCountsPIIWhenClassified(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	if _, err := b.Pool.Exec(ctx, `DROP TABLE IF EXISTS brain.page_pii CASCADE`); err != nil {
		t.Fatal(err)
	}
	r1, err := Run(ctx, b, evalconfig.Settings{}, nil, capture.NewSpool(t.TempDir()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r1.PIICategories != nil {
		t.Fatalf("no page_pii table but counts %v", r1.PIICategories)
	}
	for _, stmt := range []string{
		`CREATE TABLE brain.page_pii (page_id bigint PRIMARY KEY, categories text[] NOT NULL)`,
		`INSERT INTO brain.page_pii VALUES (1, '{contact,health}'), (2, '{contact}'), (3, '{}')`,
	} {
		if _, err := b.Pool.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	r2, err := Run(ctx, b, evalconfig.Settings{}, nil, capture.NewSpool(t.TempDir()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(r2.PIICategories) != fmt.Sprint(map[string]int64{"contact": 2, "health": 1}) {
		t.Fatalf("pii counts %v", r2.PIICategories)
	}
}

// A page written from psql is counted as unclassified and pending
// chunking, with warnings naming the commands; doctor --fix does what put
// would have done, after which nothing is pending.
func TestDoctorReportsPsqlWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	if _, err := b.Pool.Exec(ctx, `INSERT INTO brain.pages (slug, title, body, content_hash)
		VALUES ('notes/psql', 'Psql', E'# Psql\n\nWritten by a DBA.\n', repeat('a', 64))`); err != nil {
		t.Fatal(err)
	}
	r, err := Run(ctx, b, evalconfig.Settings{}, nil, capture.NewSpool(t.TempDir()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Unclassified != 1 || r.StaleClassified != 0 || r.PendingChunks != 1 || r.Roles != "ready" {
		t.Fatalf("report %+v, want 1 unclassified, 1 pending, roles ready", r)
	}
	joined := strings.Join(r.Warnings, "\n")
	for _, want := range []string{"pgbrain pii scan", "pgbrain embed --stale"} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings %q do not name %q", joined, want)
		}
	}
	fixed, err := Fix(ctx, b, refresh.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(fixed, "pages written outside pgbrain: 1 rechunked") {
		t.Errorf("fix did %v", fixed)
	}
	if r, err = Run(ctx, b, evalconfig.Settings{}, nil, capture.NewSpool(t.TempDir()), nil); err != nil {
		t.Fatal(err)
	}
	if r.Unclassified != 0 || r.PendingChunks != 0 || len(r.Warnings) != 0 {
		t.Errorf("after fix: %+v", r)
	}
	// A later edit from psql makes the classification stale.
	if _, err := b.Pool.Exec(ctx, `UPDATE brain.pages SET title = 'Psql edited' WHERE slug = 'notes/psql'`); err != nil {
		t.Fatal(err)
	}
	if r, err = Run(ctx, b, evalconfig.Settings{}, nil, capture.NewSpool(t.TempDir()), nil); err != nil {
		t.Fatal(err)
	}
	if r.StaleClassified != 1 || r.Unclassified != 0 {
		t.Errorf("after a psql title edit: %d stale, %d unclassified; want 1, 0", r.StaleClassified, r.Unclassified)
	}
}

// A search setting that fails every search, and a key that names no
// setting, are both reported with the fix; a fixed brain is quiet again.
func TestDoctorReportsSearchSettings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	run := func() []string {
		t.Helper()
		r, err := Run(ctx, b, evalconfig.Resolve(evalconfig.File{}, ""), nil, capture.NewSpool(t.TempDir()), nil)
		if err != nil {
			t.Fatal(err)
		}
		return r.Warnings
	}
	if _, err := b.Pool.Exec(ctx, `INSERT INTO brain.config (key, value) VALUES ('search.bm25_k1', 'abc'), ('search.bm25k1', '0.9')`); err != nil {
		t.Fatal(err)
	}
	w := strings.Join(run(), "\n")
	if !strings.Contains(w, "every search fails") || !strings.Contains(w, "search.bm25_k1 holds 'abc'") || !strings.Contains(w, "DELETE FROM brain.config WHERE key = 'search.bm25_k1'") {
		t.Errorf("warnings with a bad search.bm25_k1:\n%s\nwant the failure, the key and the fix", w)
	}
	if _, err := b.Pool.Exec(ctx, `DELETE FROM brain.config WHERE key = 'search.bm25_k1'`); err != nil {
		t.Fatal(err)
	}
	w = strings.Join(run(), "\n")
	if !strings.Contains(w, "search.bm25k1 names no search setting") || strings.Contains(w, "every search fails") {
		t.Errorf("warnings with the unknown key search.bm25k1:\n%s\nwant it named, and searches working", w)
	}
	if _, err := b.Pool.Exec(ctx, `DELETE FROM brain.config WHERE key = 'search.bm25k1'`); err != nil {
		t.Fatal(err)
	}
	if w := run(); len(w) != 0 {
		t.Errorf("warnings of a fixed brain: %v", w)
	}
}
