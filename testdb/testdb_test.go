package testdb_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// Parallel tests clone the template at the same moment: every clone is a
// database of its own (what one test writes, no other sees), each is fully
// migrated, and empty databases made meanwhile stay empty.
func TestConcurrentClonesAreIsolated(t *testing.T) {
	t.Parallel()
	const n = 8
	var (
		mu   sync.Mutex
		urls = map[string]string{}
	)
	t.Run("clones", func(t *testing.T) {
		for i := range n {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				var url string
				if i%4 == 3 {
					url = testdb.EmptyDatabase(t)
				} else {
					url = testdb.New(t)
				}
				conn, err := pgx.Connect(ctx, url)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close(ctx)
				var db string
				if err := conn.QueryRow(ctx, `SELECT current_database()`).Scan(&db); err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				if other, ok := urls[db]; ok {
					t.Errorf("database %s handed out twice (%s)", db, other)
				}
				urls[db] = url
				mu.Unlock()
				var schema bool
				if err := conn.QueryRow(ctx, `SELECT to_regclass('brain.pages') IS NOT NULL`).Scan(&schema); err != nil {
					t.Fatal(err)
				}
				if empty := i%4 == 3; schema == empty {
					t.Fatalf("database %d: brain schema present = %v, want %v", i, schema, !empty)
				}
				if !schema {
					return
				}
				slug := fmt.Sprintf("clone-%d", i)
				if _, err := conn.Exec(ctx, `INSERT INTO brain.pages (slug, title, body, content_hash)
					VALUES ($1, $1, 'body', repeat('0', 64))`, slug); err != nil {
					t.Fatal(err)
				}
				var slugs []string
				if err := conn.QueryRow(ctx, `SELECT array_agg(slug ORDER BY slug) FROM brain.pages`).Scan(&slugs); err != nil {
					t.Fatal(err)
				}
				if len(slugs) != 1 || slugs[0] != slug {
					t.Errorf("database %d holds pages %v, want only its own %s", i, slugs, slug)
				}
			})
		}
	})
	if len(urls) != n {
		t.Errorf("%d distinct databases for %d tests", len(urls), n)
	}
}
