package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/events"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/search"
)

// benchSearch measures keyword-only, vector-only and hybrid search through
// the SQL API on a generated corpus (about 100,000 chunks at full size),
// interleaving the three per query so they see the same machine state.
func benchSearch(ctx context.Context, env *benchEnv) error {
	pages := env.pages + env.pages/4 // corpusgen pages average ~4 chunks: 20,000 -> ~100,000 chunks
	nq := 300
	if env.quick {
		pages, nq = min(env.pages, 2000), 50
	}
	dir, err := os.MkdirTemp("", "pgbrain-bench-search-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	qpath := filepath.Join(dir, "queries.json")
	b, chunks, importTime, qs, err := loadCorpus(ctx, env, dir, "pgbrain_bench_search",
		"generating the corpus (run from the repository root)",
		"./tools/corpusgen", "-pages", fmt.Sprint(pages), "-out", filepath.Join(dir, "corpus"), "-queries", qpath, "-nqueries", fmt.Sprint(nq))
	if err != nil {
		return err
	}
	defer b.Close()
	fmt.Fprintf(env.out, "## search\n\n%d chunks (%d generated pages, imported in %.1fs), %d known-item queries, limit 10, one connection at a time\n\n",
		chunks, pages, importTime.Seconds(), len(qs))
	return timeArms(ctx, env, b, qs)
}

// loadCorpus runs a corpus generator (`go run` with args, writing pages to
// dir/corpus and queries to dir/queries.json), imports the pages into a
// fresh database called dbName, and returns the open brain, its chunk
// count, the import's time and the queries.
func loadCorpus(ctx context.Context, env *benchEnv, dir, dbName, what string, args ...string) (*brain.Brain, int, time.Duration, []string, error) {
	gen := exec.CommandContext(ctx, "go", append([]string{"run"}, args...)...)
	gen.Stderr = os.Stderr
	if err := gen.Run(); err != nil {
		return nil, 0, 0, nil, fmt.Errorf("%s: %w", what, err)
	}
	url, err := env.newDatabase(ctx, dbName)
	if err != nil {
		return nil, 0, 0, nil, err
	}
	b, err := brain.Open(ctx, url)
	if err != nil {
		return nil, 0, 0, nil, err
	}
	start := time.Now()
	if _, err := ingest.ImportDir(ctx, b, filepath.Join(dir, "corpus"), ingest.Options{}); err != nil {
		b.Close()
		return nil, 0, 0, nil, err
	}
	importTime := time.Since(start)
	var chunks int
	if _, err := b.Pool.Exec(ctx, `VACUUM ANALYZE brain.chunks`); err == nil {
		err = b.Pool.QueryRow(ctx, `SELECT count(*) FROM brain.chunks`).Scan(&chunks)
	}
	if err != nil {
		b.Close()
		return nil, 0, 0, nil, err
	}
	qs, err := readQueries(filepath.Join(dir, "queries.json"))
	if err != nil {
		b.Close()
		return nil, 0, 0, nil, err
	}
	return b, chunks, importTime, qs, nil
}

func readQueries(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var qf struct {
		Queries []struct {
			Query string `json:"query"`
		} `json:"queries"`
	}
	if err := json.Unmarshal(data, &qf); err != nil {
		return nil, fmt.Errorf("reading queries %s: %w", path, err)
	}
	qs := make([]string, len(qf.Queries))
	for i, q := range qf.Queries {
		qs[i] = q.Query
	}
	return qs, nil
}

// timeArms times keyword-only (`search`), vector-only, hybrid with the
// brain's defaults (`query`), hybrid with the vector arm fused into every
// query and the keyword arm alone in SQL, interleaved per query so that
// all see the same machine.
func timeArms(ctx context.Context, env *benchEnv, b *brain.Brain, qs []string) error {
	zero, always := 0.0, false
	arms := []struct {
		name string
		run  func(q string) error
	}{
		{"keyword-only (`search`)", func(q string) error {
			_, err := search.Keyword(ctx, b.Pool, q, search.Options{}, search.Tuning{})
			return err
		}},
		{"vector-only", func(q string) error {
			_, err := search.Hybrid(ctx, b.Pool, q, nil, search.Options{}, search.Tuning{KeywordWeight: &zero})
			return err
		}},
		{"hybrid, defaults (`query`)", func(q string) error {
			_, err := search.Hybrid(ctx, b.Pool, q, nil, search.Options{}, search.Tuning{})
			return err
		}},
		{"hybrid, vector arm always fused", func(q string) error {
			_, err := search.Hybrid(ctx, b.Pool, q, nil, search.Options{}, search.Tuning{VectorFillOnly: &always})
			return err
		}},
		// A fixed, mostly C workload on the same index: PostgreSQL's
		// ts_rank over the OR of the query's words. Dividing by it tells
		// a slower design from a busier machine.
		{"reference: ts_rank OR, no BM25", func(q string) error {
			var n int
			return b.Pool.QueryRow(ctx, `
				SELECT count(*) FROM (
					SELECT c.id FROM brain.chunks c,
					       (SELECT string_agg(brain.lexeme_tsquery(t)::text, ' | ')::tsquery AS q FROM unnest((brain.parse_query($1)).terms) t) o
					WHERE o.q IS NOT NULL AND c.tsv @@ o.q
					ORDER BY ts_rank(c.tsv, o.q) DESC, c.id LIMIT 10) s`, q).Scan(&n)
		}},
		// The keyword arm alone, as psql calls it: ranked chunk ids and
		// scores, without the pages' slugs, titles and snippets that
		// `search` adds.
		{"keyword arm in SQL (`brain.keyword_search`)", func(q string) error {
			var n int
			return b.Pool.QueryRow(ctx, `SELECT count(*) FROM brain.keyword_search($1, 10)`, q).Scan(&n)
		}},
	}
	lat := make([][]time.Duration, len(arms))
	for round := 0; round < 2; round++ { // round 0 warms caches and plans
		for qi, q := range qs {
			// The first arm to run a query reads its pages into the
			// caches for the others; each arm goes first as often.
			for k := range arms {
				i := (qi + k) % len(arms)
				a := arms[i]
				t0 := time.Now()
				if err := a.run(q); err != nil {
					return fmt.Errorf("%s %q: %w", a.name, q, err)
				}
				if round == 1 {
					lat[i] = append(lat[i], time.Since(t0))
				}
			}
		}
	}
	fmt.Fprintln(env.out, "| arm | p50 ms | p95 ms | p99 ms |")
	fmt.Fprintln(env.out, "|---|---|---|---|")
	p := make([][3]float64, len(arms))
	for i, a := range arms {
		slices.Sort(lat[i])
		p[i] = [3]float64{pct(lat[i], 50), pct(lat[i], 95), pct(lat[i], 99)}
		fmt.Fprintf(env.out, "| %s | %.2f | %.2f | %.2f |\n", a.name, p[i][0], p[i][1], p[i][2])
	}
	fmt.Fprintf(env.out, "\nhybrid (defaults) / keyword-only: p50 %.2f, p95 %.2f, p99 %.2f (goal p50 <= 1.3)\n",
		p[2][0]/p[0][0], p[2][1]/p[0][1], p[2][2]/p[0][2])
	fmt.Fprintf(env.out, "hybrid (always fused) / keyword-only: p50 %.2f, p95 %.2f, p99 %.2f\n",
		p[3][0]/p[0][0], p[3][1]/p[0][1], p[3][2]/p[0][2])
	fmt.Fprintf(env.out, "keyword-only / reference: p50 %.2f, p95 %.2f, p99 %.2f\n",
		p[0][0]/p[4][0], p[0][1]/p[4][1], p[0][2]/p[4][2])
	fmt.Fprintf(env.out, "keyword arm in SQL / reference: p50 %.2f, p95 %.2f, p99 %.2f\n\n",
		p[5][0]/p[4][0], p[5][1]/p[4][1], p[5][2]/p[4][2])
	return nil
}

// benchSearchReal is the search suite on text nobody here wrote: 20,000
// Debian package descriptions (tools/realtext), the short descriptions as
// queries.
func benchSearchReal(ctx context.Context, env *benchEnv) error {
	pages, nq := env.pages, 300
	if env.quick {
		pages, nq = min(env.pages, 2000), 50
	}
	dir, err := os.MkdirTemp("", "pgbrain-bench-search-real-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	qpath := filepath.Join(dir, "queries.json")
	b, chunks, importTime, qs, err := loadCorpus(ctx, env, dir, "pgbrain_bench_search_real",
		"generating the Debian corpus (run from the repository root; see tools/realtext)",
		"./tools/realtext", "-source", "debian", "-pages", fmt.Sprint(pages), "-out", filepath.Join(dir, "corpus"), "-qrels", qpath, "-queries", fmt.Sprint(nq))
	if err != nil {
		return err
	}
	defer b.Close()
	fmt.Fprintf(env.out, "## search-real\n\n%d chunks (%d Debian package pages, imported in %.1fs), %d short descriptions as queries, limit 10, one connection at a time\n\n",
		chunks, pages, importTime.Seconds(), len(qs))
	if err := timeArms(ctx, env, b, qs); err != nil {
		return err
	}
	return timeCLI(ctx, env, dir, b.Pool.Config().ConnString(), qs[:min(len(qs), 50)])
}

// timeCLI times `pgbrain query` as a user runs it: a process started per
// query, connecting, searching and printing its table, until it exits.
func timeCLI(ctx context.Context, env *benchEnv, dir, url string, qs []string) error {
	if len(qs) == 0 {
		return nil
	}
	bin, err := buildPgbrain(ctx, dir)
	if err != nil {
		return err
	}
	home := filepath.Join(dir, "home")
	run := func(q string) (time.Duration, error) {
		cmd := exec.CommandContext(ctx, bin, "--database-url", url, "--home", home, "query", q)
		// capture off and no exporter, as in a user's shell by default;
		// events go to the home folder's own file
		cmd.Env = append(os.Environ(), "PGBRAIN_CONTRIBUTOR_MODE=", "PGBRAIN_HOME="+home,
			"OTEL_EXPORTER_OTLP_ENDPOINT=", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=", events.EnvPath+"=")
		t0 := time.Now()
		out, err := cmd.CombinedOutput()
		if err != nil {
			return 0, fmt.Errorf("pgbrain query %q: %w\n%s", q, err, out)
		}
		return time.Since(t0), nil
	}
	if _, err := run(qs[0]); err != nil { // the first run creates the home folder
		return err
	}
	lat := make([]time.Duration, 0, len(qs))
	for _, q := range qs {
		d, err := run(q)
		if err != nil {
			return err
		}
		lat = append(lat, d)
	}
	slices.Sort(lat)
	fmt.Fprintf(env.out, "`pgbrain query` CLI end to end (a process per query, start to exit, capture off, %d queries): p50 %.1f ms, p95 %.1f ms, max %.1f ms (goal p50 <= 150 ms)\n\n",
		len(lat), pct(lat, 50), pct(lat, 95), float64(lat[len(lat)-1])/float64(time.Millisecond))
	return nil
}
