package testdb

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Querier is what Fingerprints reads through; *pgxpool.Pool and *pgx.Conn
// satisfy it.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Fingerprints maps every table of schema brain, and the schema version
// table, to its row count and a checksum of all its rows; with sequences,
// every sequence of schema brain to its position, which catches rows
// written and deleted again. Two equal results mean nothing was written.
func Fingerprints(t testing.TB, db Querier, sequences bool) map[string]string {
	t.Helper()
	ctx := context.Background()
	rows, err := db.Query(ctx, `
		SELECT c.oid::regclass::text, c.relkind = 'S' FROM pg_class c
		WHERE (c.relnamespace = 'brain'::regnamespace AND c.relkind IN ('r', 'p', 'S'))
		   OR c.oid = 'public.pgbrain_schema_version'::regclass
		ORDER BY 1`)
	if err != nil {
		t.Fatalf("listing brain tables: %v", err)
	}
	type rel struct {
		Name  string
		IsSeq bool
	}
	rels, err := pgx.CollectRows(rows, pgx.RowToStructByPos[rel])
	if err != nil {
		t.Fatalf("listing brain tables: %v", err)
	}
	out := map[string]string{}
	for _, r := range rels {
		if r.IsSeq && !sequences {
			continue
		}
		q := `SELECT count(*), md5(coalesce(string_agg(x::text, E'\n' ORDER BY x::text), '')) FROM %s x`
		if r.IsSeq {
			q = `SELECT 1, last_value || ' ' || is_called FROM %s`
		}
		var count int64
		var sum string
		if err := db.QueryRow(ctx, fmt.Sprintf(q, r.Name)).Scan(&count, &sum); err != nil {
			t.Fatalf("fingerprinting %s: %v", r.Name, err)
		}
		out[r.Name] = fmt.Sprintf("%d rows, %s", count, sum)
	}
	return out
}
