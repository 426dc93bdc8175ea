package doctor

import (
	"context"
	"strings"
	"testing"

	"github.com/pgbrain/pgbrain/internal/capture"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/embed/refresh"
	"github.com/pgbrain/pgbrain/internal/evalconfig"
)

// TestDoctorReportsAndFixesTheVectorIndex: each way the index can be lost
// is reported with the fix, and Fix brings it back to ready.
func TestDoctorReportsAndFixesTheVectorIndex(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		break_ []string
		want   string
		warn   string
	}{
		{"dropped by hand", []string{`DROP INDEX brain.chunks_embedding_hnsw`}, "missing", "missing"},
		{"suspension left by a dead import", []string{
			`INSERT INTO brain.vector_index_state (index_name, state, reason) VALUES ('chunks_embedding_hnsw', 'suspended', 'bulk import into source "x"')`,
			`DROP INDEX brain.chunks_embedding_hnsw`}, "suspended", "left suspended by an interrupted command"},
		// What a killed CREATE INDEX CONCURRENTLY leaves (the CLI test
		// kills a real one): the index in the catalog, not valid.
		{"invalid", []string{`UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'brain.chunks_embedding_hnsw'::regclass`}, "invalid", "INVALID"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			b := dbtest.Open(t)
			for _, stmt := range tc.break_ {
				if _, err := b.Pool.Exec(ctx, stmt); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
			report := func() *Report {
				r, err := Run(ctx, b, evalconfig.Resolve(evalconfig.File{}, ""), nil, capture.NewSpool(t.TempDir()), nil)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			r := report()
			w := strings.Join(r.Warnings, "\n")
			if r.VectorIndex != tc.want || r.VectorIndexBusy || !strings.Contains(w, tc.warn) || !strings.Contains(w, "doctor --fix") {
				t.Fatalf("report: index %q busy %v warnings %q; want %q and a warning with %q and the fix", r.VectorIndex, r.VectorIndexBusy, w, tc.want, tc.warn)
			}
			fixed, err := Fix(ctx, b, refresh.Options{})
			if err != nil || len(fixed) != 1 || fixed[0] != "vector index: rebuilt" {
				t.Fatalf("Fix = %q, %v", fixed, err)
			}
			if r := report(); r.VectorIndex != "ready" || len(r.Warnings) != 0 {
				t.Fatalf("after Fix: index %q, warnings %q", r.VectorIndex, r.Warnings)
			}
			if fixed, err := Fix(ctx, b, refresh.Options{}); err != nil || len(fixed) != 0 {
				t.Fatalf("a second Fix did %q (%v), want nothing", fixed, err)
			}
		})
	}
}
