package search

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// chunk is one hand-made chunk; vec is set as is (Dim 8) so tests control
// the vector arm's order exactly.
type chunk struct {
	source string // compiled_truth or timeline
	text   string
	vec    string // pgvector text, e.g. "[1,0,0,0,0,0,0,0]"
}

type page struct {
	slug, title, typ string
	chunks           []chunk
}

// ctx only guards against a hang: the 20,000-chunk fixtures take two
// minutes on a loaded machine.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel)
	return c
}

// seed inserts pages in order, so chunk ids follow the listing.
func seed(t *testing.T, db *pgxpool.Pool, pages []page) {
	t.Helper()
	c := ctx(t)
	for _, p := range pages {
		typ := p.typ
		if typ == "" {
			typ = "note"
		}
		h := sha256.Sum256([]byte(p.slug + p.title))
		var id int64
		if err := db.QueryRow(c, `INSERT INTO brain.pages (slug, title, type, body, content_hash)
			VALUES ($1, $2, $3, $4, $5) RETURNING id`, p.slug, p.title, typ, p.title, hex.EncodeToString(h[:])).Scan(&id); err != nil {
			t.Fatalf("seeding page %s: %v", p.slug, err)
		}
		for i, ch := range p.chunks {
			if _, err := db.Exec(c, `INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text, embedding)
				VALUES ($1, $2, $3, $4, $5::text::vector)`, id, i, ch.source, ch.text, ch.vec); err != nil {
				t.Fatalf("seeding chunk %d of %s: %v", i, p.slug, err)
			}
		}
	}
}

const (
	ct = "compiled_truth"
	tl = "timeline"
)

// fixture is a small brain whose keyword and vector orders are known.
var fixture = []page{
	{slug: "a/alpha", title: "Alpha", chunks: []chunk{
		{ct, "zebra zebra quartz lantern", "[1,0,0,0,0,0,0,0]"},
		{tl, "2020-01-02: zebra lantern history recorded", "[0,1,0,0,0,0,0,0]"},
	}},
	{slug: "b/bravo", title: "Bravo", chunks: []chunk{
		{ct, "zebra meadow grass", "[0.9,0.1,0,0,0,0,0,0]"},
	}},
	{slug: "c/charlie", title: "Charlie", typ: "person", chunks: []chunk{
		{ct, "quartz meadow river", "[0,0,1,0,0,0,0,0]"},
	}},
	{slug: "d/delta", title: "Delta", chunks: []chunk{
		{ct, "lantern river stones", "[0,0,0,1,0,0,0,0]"},
	}},
	{slug: "e/echo", title: "Echo", chunks: []chunk{
		{ct, "orchid violet", "[0,0,0,0,1,0,0,0]"},
	}},
	{slug: "f/foxtrot", title: "Foxtrot", chunks: []chunk{
		{ct, "orchid violet", "[0,0,0,0,1,0,0,0]"},
	}},
	{slug: "g/golf", title: "Golf", chunks: []chunk{
		{ct, "saffron tulip saffron", "[0,0,0,0,0,1,0,0]"},
		{ct, "Saffron  tulip\nsaffron", "[0,0,0,0,0,1,0,0.01]"},
		{ct, "saffron daisy", "[0,0,0,0,0,0,1,0]"},
	}},
}

func fixtureBrain(t *testing.T) *pgxpool.Pool {
	t.Helper()
	b := dbtest.Open(t, testdb.Options{Dim: 8})
	seed(t, b.Pool, fixture)
	return b.Pool
}

// row is what the SQL-level tests read back from brain.hybrid_search.
type row struct {
	Slug        string
	ChunkIndex  int
	ChunkSource string
	Score       float64
	KR, VR      *int
}

func hybridRows(t *testing.T, db *pgxpool.Pool, sql string, args ...any) []row {
	t.Helper()
	rows, err := db.Query(ctx(t), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	var out []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.Slug, &r.ChunkIndex, &r.ChunkSource, &r.Score, &r.KR, &r.VR); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

func slugs(rs []row) []string {
	var s []string
	for _, r := range rs {
		s = append(s, r.Slug)
	}
	return s
}
