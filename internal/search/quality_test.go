package search

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/testdb"
)

// TestIndexesAreUsed checks, with auto_explain inside the search functions
// themselves, that the keyword arm reads the GIN index and the vector arm the
// HNSW index on a brain large enough for the planner to prefer them.
func TestIndexesAreUsed(t *testing.T) {
	t.Parallel()
	url := testdb.New(t, testdb.Options{Dim: 8})
	c := ctx(t)
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	var plans strings.Builder
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { plans.WriteString(n.Message + "\n") }
	conn, err := pgx.ConnectConfig(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(c)
	// 20,000 chunks over a 3,000-word vocabulary, deterministic: at that
	// size the planner prefers the indexes to a scan, which is what the test
	// is about. The subqueries mention p and j so they run per row, not
	// once. They are loaded as an import loads them in bulk: without the
	// HNSW index, built afterwards over all of them by its one definition
	// (brain.vector_index_resume), which costs a fraction of inserting
	// 20,000 vectors into it one by one.
	if _, err := conn.Exec(c, `
		SELECT setseed(0.42);
		SELECT brain.vector_index_suspend();
		WITH p AS (
			INSERT INTO brain.pages (slug, title, body, content_hash)
			SELECT 'gen/p' || i, 'Page ' || i, 'x', repeat('0', 64) FROM generate_series(1, 5000) i
			RETURNING id)
		INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text, embedding)
		SELECT p.id, j, CASE WHEN j = 3 THEN 'timeline' ELSE 'compiled_truth' END,
		       (SELECT string_agg('w' || (random() * 3000)::int, ' ') FROM generate_series(1, 60 + j * 0 + (p.id % 2)) g),
		       (SELECT ('[' || string_agg((random() - 0.5)::text, ',') || ']')::vector FROM generate_series(1, 8 + j * 0 + (p.id % 1)) g)
		FROM p, generate_series(0, 3) j;
		SELECT brain.vector_index_resume();
		ANALYZE brain.chunks; ANALYZE brain.pages;
		-- The local embedder's arm only fills short keyword lists by
		-- default; this test is about the plan when it runs.
		INSERT INTO brain.config VALUES ('search.vector_fill_only', '0');`); err != nil {
		t.Fatalf("generating chunks: %v", err)
	}
	if _, err := conn.Exec(c, `LOAD 'auto_explain'`); err != nil {
		t.Fatalf("auto_explain is needed to see the plans inside the functions: %v", err)
	}
	for _, s := range []string{
		`SET auto_explain.log_min_duration = 0`, `SET auto_explain.log_nested_statements = on`,
		`SET auto_explain.log_level = notice`, `SET client_min_messages = notice`,
	} {
		if _, err := conn.Exec(c, s); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, sql string
		want      []string
	}{
		{"hybrid", `SELECT count(*) FROM brain.hybrid_search('w17 w42', '[0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8]', 10)`,
			[]string{"chunks_tsv_gin", "chunks_embedding_hnsw"}},
		{"filtered vector arm", `SELECT count(*) FROM brain.vector_search('[0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8]', 50, ARRAY['default'], true)`,
			[]string{"chunks_embedding_hnsw"}},
		{"OR fallback", `SELECT count(*) FROM brain.keyword_search('w17 w42 w99 w2000 w5', 30)`,
			[]string{"chunks_tsv_gin"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plans.Reset()
			var n int
			if err := conn.QueryRow(c, tc.sql).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				t.Fatalf("%s returned no rows", tc.sql)
			}
			for _, idx := range tc.want {
				if !strings.Contains(plans.String(), idx) {
					t.Errorf("%s: no plan used %s; plans:\n%s", tc.sql, idx, plans.String())
				}
			}
		})
	}
}

type qrelsFile struct {
	Queries []struct {
		Query         string   `json:"query"`
		RelevantSlugs []string `json:"relevant_slugs"`
	} `json:"queries"`
}

// TestSampleQrelsFloor imports the sample brain and scores its qrels. The
// floors sit a little under the measured values in docs/retrieval.md, so a
// ranking regression fails here.
func TestSampleQrelsFloor(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	c := ctx(t)
	if _, err := ingest.ImportDir(c, b, "../../sample/brain", ingest.Options{}); err != nil {
		t.Fatalf("importing the sample brain: %v", err)
	}
	data, err := os.ReadFile("../../sample/qrels.json")
	if err != nil {
		t.Fatal(err)
	}
	var qf qrelsFile
	if err := json.Unmarshal(data, &qf); err != nil {
		t.Fatal(err)
	}
	zero := 0.0
	arms := map[string]func(q string) (*Response, error){
		"keyword": func(q string) (*Response, error) { return Keyword(c, b.Pool, q, Options{}, Tuning{}) },
		"vector": func(q string) (*Response, error) {
			return Hybrid(c, b.Pool, q, nil, Options{}, Tuning{KeywordWeight: &zero})
		},
		"hybrid": func(q string) (*Response, error) { return Hybrid(c, b.Pool, q, nil, Options{}, Tuning{}) },
	}
	recall, mrr := map[string]float64{}, map[string]float64{}
	for name, arm := range arms {
		for _, q := range qf.Queries {
			r, err := arm(q.Query)
			if err != nil {
				t.Fatalf("%s %q: %v", name, q.Query, err)
			}
			found := 0
			for i, x := range r.Results {
				for _, s := range q.RelevantSlugs {
					if x.Slug == s {
						found++
						if found == 1 {
							mrr[name] += 1 / float64(i+1)
						}
					}
				}
			}
			recall[name] += float64(found) / float64(len(q.RelevantSlugs))
		}
		recall[name] /= float64(len(qf.Queries))
		mrr[name] /= float64(len(qf.Queries))
	}
	t.Logf("recall@10 %v, MRR@10 %v", recall, mrr)
	floors := map[string][2]float64{"keyword": {0.70, 0.52}, "hybrid": {0.72, 0.54}}
	for name, f := range floors {
		if recall[name] < f[0] || mrr[name] < f[1] {
			t.Errorf("%s: recall@10 %.3f MRR %.3f, floor %.2f / %.2f", name, recall[name], mrr[name], f[0], f[1])
		}
	}
	for _, arm := range []string{"keyword", "vector"} {
		if recall["hybrid"] < recall[arm] || mrr["hybrid"] < mrr[arm] {
			t.Errorf("hybrid (recall %.3f, MRR %.3f) is worse than %s alone (%.3f, %.3f)",
				recall["hybrid"], mrr["hybrid"], arm, recall[arm], mrr[arm])
		}
	}
}
