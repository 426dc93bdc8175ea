package ingest

import (
	"context"
	"testing"
	"time"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/testdb"
)

// TestRaiseBuildMemory: the index build's session gets the memory the
// graph needs, (dim*4 + 600) * 5/4 bytes a vector, when the server's
// maintenance_work_mem is smaller, and keeps a larger setting as it is.
func TestRaiseBuildMemory(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := dbtest.Open(t, testdb.Options{Dim: 8})
	if _, err := b.Pool.Exec(ctx, `
		WITH p AS (
			INSERT INTO brain.pages (slug, title, body, content_hash)
			SELECT 'p' || i, 'Page ' || i, 'x', repeat('0', 64) FROM generate_series(1, 2000) i
			RETURNING id)
		INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text)
		SELECT p.id, 0, 'compiled_truth', 'word' || p.id || ' other words' FROM p`); err != nil {
		t.Fatalf("adding chunks: %v", err)
	}
	var vectors int64 // a few short chunks hash to no vector at dimension 8
	if err := b.Pool.QueryRow(ctx, `SELECT count(*) FROM brain.chunks WHERE embedding IS NOT NULL`).Scan(&vectors); err != nil {
		t.Fatal(err)
	}
	if vectors < 1700 {
		t.Fatalf("only %d of 2000 chunks have a vector; the fixture needs more than 1MB of graph", vectors)
	}
	wantBytes := vectors * (8*4 + 600) * 5 / 4
	for _, tc := range []struct {
		setting string
		raised  bool
		want    int64 // bytes after
	}{
		{"1MB", true, wantBytes / 1024 * 1024},
		{"64MB", false, 64 << 20},
	} {
		conn, err := b.Pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, `SELECT set_config('maintenance_work_mem', $1, false)`, tc.setting); err != nil {
			t.Fatal(err)
		}
		raised, err := raiseBuildMemory(ctx, conn.Conn())
		if err != nil {
			t.Fatalf("%s: %v", tc.setting, err)
		}
		var got int64
		if err := conn.QueryRow(ctx, `SELECT pg_size_bytes(current_setting('maintenance_work_mem'))`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		conn.Exec(ctx, `RESET maintenance_work_mem`)
		conn.Release()
		if raised != tc.raised || got != tc.want {
			t.Errorf("maintenance_work_mem %s: raised %v to %d bytes, want raised %v to %d", tc.setting, raised, got, tc.raised, tc.want)
		}
	}
}
