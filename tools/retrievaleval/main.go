// Command retrievaleval scores pgbrain's retrieval on a qrels file and prints
// a markdown table, one row per configuration: keyword-only, vector-only,
// hybrid at several fusion settings, and a ts_rank OR baseline. It is how the
// defaults in docs/retrieval.md were tuned:
//
//	go run ./tools/retrievaleval -db URL -qrels sample/qrels.json [-grid]
//
// Recall@k is the share of a query's relevant pages in the top k, averaged;
// MRR@k the mean reciprocal rank of the first relevant page (0 beyond k);
// hit@k the share of queries with any relevant page in the top k; top-1 the
// share whose first result is relevant.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgbrain/pgbrain/internal/eval"
	"github.com/pgbrain/pgbrain/internal/search"
)

func main() {
	db := flag.String("db", os.Getenv("PGBRAIN_DATABASE_URL"), "database URL of the brain to score")
	qrelsPath := flag.String("qrels", "sample/qrels.json", "qrels file (schema_version 1)")
	k := flag.Int("k", 10, "cut-off for recall, MRR and hit rate")
	grid := flag.Bool("grid", false, "also score a grid of fusion weights and k")
	only := flag.String("only", "", "score only the configurations whose name contains one of these comma-separated texts")
	flag.Parse()
	if *db == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: retrievaleval -db URL [-qrels FILE] [-k N] [-grid] [-only TEXT]")
		os.Exit(2)
	}
	if err := run(context.Background(), os.Stdout, *db, *qrelsPath, *k, *grid, *only); err != nil {
		fmt.Fprintln(os.Stderr, "retrievaleval:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer, dbURL, qrelsPath string, k int, grid bool, only string) error {
	qrels, err := eval.ReadQrelsFile(qrelsPath)
	if err != nil {
		return err
	}
	qs := qrels.Queries
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", dbURL, err)
	}
	defer pool.Close()
	var cfgs []config
	for _, c := range configs(grid) {
		for _, o := range strings.Split(only, ",") {
			if strings.Contains(c.name, o) {
				cfgs = append(cfgs, c)
				break
			}
		}
	}
	fmt.Fprintf(out, "%d queries from %s, k=%d\n\n", len(qs), qrelsPath, k)
	fmt.Fprintln(out, "| configuration | recall@k | MRR@k | hit@k | top-1 | empty answers | mean ms |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|")
	for _, c := range cfgs {
		var m metrics
		empty := 0
		start := time.Now()
		for _, q := range qs {
			got, err := c.run(ctx, pool, q.Text, k)
			if err != nil {
				return fmt.Errorf("%s, query %s: %w", c.name, q.ID, err)
			}
			if len(got) == 0 {
				empty++
			}
			m.add(score(q.Grades, got, k))
		}
		ms := float64(time.Since(start).Microseconds()) / 1000 / float64(len(qs))
		m.div(len(qs))
		fmt.Fprintf(out, "| %s | %.3f | %.3f | %.3f | %.3f | %d | %.1f |\n", c.name, m.Recall, m.MRR, m.Hit, m.Top1, empty, ms)
	}
	return nil
}

type config struct {
	name string
	run  func(ctx context.Context, db *pgxpool.Pool, q string, k int) ([]string, error)
}

func f(v float64) *float64 { return &v }

// always turns off search.vector_fill_only, to measure what the vector arm
// adds when it is fused into every query.
var always = false

func hybrid(name string, t search.Tuning) config {
	return config{name, func(ctx context.Context, db *pgxpool.Pool, q string, k int) ([]string, error) {
		r, err := search.Hybrid(ctx, db, q, nil, search.Options{Limit: k}, t)
		return keys(r, err)
	}}
}

func configs(grid bool) []config {
	cs := []config{
		{"ts_rank OR baseline", tsRankOR},
		{"OR-BM25, every candidate scored (exhaustive)", exhaustiveBM25},
		{"keyword-only (BM25, `search`)", config{}.keyword()},
		hybrid("vector-only (local embedder)", search.Tuning{KeywordWeight: f(0)}),
		hybrid("hybrid, defaults (`query`)", search.Tuning{}),
		hybrid("hybrid, plain RRF (w_v=1, k=60)", search.Tuning{VectorWeight: f(1), RRFK: f(60)}),
		hybrid("hybrid, vector arm always fused (w_v=0.25, k=10)", search.Tuning{VectorFillOnly: &always}),
	}
	if grid {
		for _, k := range []float64{10, 30, 60} {
			for _, wv := range []float64{0.1, 0.25, 0.5, 0.75, 1} {
				cs = append(cs, hybrid(fmt.Sprintf("hybrid w_v=%g k=%g", wv, k), search.Tuning{VectorWeight: f(wv), RRFK: f(k)}))
			}
		}
	}
	return cs
}

func (config) keyword() func(ctx context.Context, db *pgxpool.Pool, q string, k int) ([]string, error) {
	return func(ctx context.Context, db *pgxpool.Pool, q string, k int) ([]string, error) {
		r, err := search.Keyword(ctx, db, q, search.Options{Limit: k}, search.Tuning{})
		return keys(r, err)
	}
}

func keys(r *search.Response, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	out := make([]string, len(r.Results))
	for i, x := range r.Results {
		out[i] = eval.Doc{SourceID: x.SourceID, Slug: x.Slug}.Key()
	}
	return out, nil
}

// tsRankOR is the baseline BM25 must beat: PostgreSQL's ts_rank over an OR of
// the query's terms, best chunk per page.
func tsRankOR(ctx context.Context, db *pgxpool.Pool, q string, k int) ([]string, error) {
	rows, err := db.Query(ctx, `
		WITH t AS (SELECT brain.tsquery_terms(websearch_to_tsquery('english', $1)) AS terms),
		     oq AS (SELECT string_agg(quote_literal(x), ' | ')::tsquery AS q FROM t, unnest(t.terms) x),
		     hits AS (
				SELECT DISTINCT ON (c.page_id) c.page_id, ts_rank(c.tsv, oq.q) AS r, c.id
				FROM brain.chunks c, oq WHERE oq.q IS NOT NULL AND c.tsv @@ oq.q
				ORDER BY c.page_id, ts_rank(c.tsv, oq.q) DESC, c.id)
		SELECT p.source_id || '::' || p.slug FROM hits h JOIN brain.pages p ON p.id = h.page_id
		ORDER BY h.r DESC, h.id LIMIT $2`, q, k)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// exhaustiveBM25 is BM25 over the OR of every query word with no candidate
// cut (brain.keyword_scan(..., exhaustive => true)), best chunk per page:
// the reference the keyword arm's bounded cut is measured against.
func exhaustiveBM25(ctx context.Context, db *pgxpool.Pool, q string, k int) ([]string, error) {
	rows, err := db.Query(ctx, `
		WITH hits AS (
			SELECT DISTINCT ON (s.page_id) s.page_id, s.score, s.chunk_id
			FROM brain.keyword_scan($1, 1000, exhaustive => true) s
			WHERE s.chunk_id IS NOT NULL
			ORDER BY s.page_id, s.score DESC, s.chunk_id)
		SELECT p.source_id || '::' || p.slug FROM hits h JOIN brain.pages p ON p.id = h.page_id
		ORDER BY h.score DESC, h.chunk_id LIMIT $2`, q, k)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

type metrics struct{ Recall, MRR, Hit, Top1 float64 }

func (m *metrics) add(o metrics) {
	m.Recall += o.Recall
	m.MRR += o.MRR
	m.Hit += o.Hit
	m.Top1 += o.Top1
}

func (m *metrics) div(n int) {
	d := float64(max(n, 1))
	m.Recall /= d
	m.MRR /= d
	m.Hit /= d
	m.Top1 /= d
}

// score is one query's figures; hit@k and top-1 are reciprocal ranks cut
// at k and at 1, read as "any relevant page there".
func score(rel eval.Judged, got []string, k int) metrics {
	m := metrics{Recall: eval.RecallAt(got, rel, k), MRR: eval.ReciprocalRank(got, rel, k)}
	if m.MRR > 0 {
		m.Hit = 1
	}
	if eval.ReciprocalRank(got, rel, 1) > 0 {
		m.Top1 = 1
	}
	return m
}
