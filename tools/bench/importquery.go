package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/pgbrain/pgbrain/client/brain"
	"github.com/pgbrain/pgbrain/client/ingest"
)

// benchImportQuery measures brain.query on an existing source while a bulk
// import ten times its size runs into another source, beside its idle
// latency in the same run: the bulk import suspends the brain's vector index
// and rebuilds it at the end, and queries must stay interactive throughout
// (goal: p50 during the import <= 3x idle p50). It is the slowest suite: at
// -pages 20000 it imports 200,000 pages, and the HNSW rebuild over their
// ~900,000 vectors alone ran for more than 45 minutes on a loaded 2-core
// machine with maintenance_work_mem 256MB; -quick takes about 2 minutes.
func benchImportQuery(ctx context.Context, env *benchEnv) error {
	existing, incoming, nq := env.pages, 10*env.pages, 300
	if env.quick {
		existing, incoming, nq = min(env.pages, 2000), min(10*env.pages, 20000), 50
	}
	dir, err := os.MkdirTemp("", "pgbrain-bench-importquery-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	qpath := filepath.Join(dir, "queries.json")
	for _, g := range []struct {
		pages int
		out   string
		seed  string
		extra []string
	}{
		{existing, "existing", "1", []string{"-queries", qpath, "-nqueries", fmt.Sprint(nq)}},
		{incoming, "incoming", "2", nil},
	} {
		args := append([]string{"run", "./tools/corpusgen", "-pages", fmt.Sprint(g.pages), "-seed", g.seed,
			"-out", filepath.Join(dir, g.out)}, g.extra...)
		gen := exec.CommandContext(ctx, "go", args...)
		gen.Stderr = os.Stderr
		if err := gen.Run(); err != nil {
			return fmt.Errorf("generating the %s corpus (run from the repository root): %w", g.out, err)
		}
	}
	queries, err := readQueries(qpath)
	if err != nil {
		return err
	}
	url, err := env.newDatabase(ctx, "pgbrain_bench_importquery")
	if err != nil {
		return err
	}
	b, err := brain.Open(ctx, url)
	if err != nil {
		return err
	}
	defer b.Close()
	for _, src := range []string{"existing", "incoming"} {
		if _, err := b.Pool.Exec(ctx, `INSERT INTO brain.sources (id, name) VALUES ($1, $1)`, src); err != nil {
			return fmt.Errorf("adding source %s: %w", src, err)
		}
	}
	if _, err := ingest.ImportDir(ctx, b, filepath.Join(dir, "existing"), ingest.Options{Source: "existing"}); err != nil {
		return err
	}
	if _, err := b.Pool.Exec(ctx, `VACUUM ANALYZE brain.chunks`); err != nil {
		return err
	}

	// One connection, one query at a time, as a user at a prompt would.
	conn, err := b.Pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	type sample struct {
		d      time.Duration
		vector bool // the vector index served this query
	}
	ask := func(q string) (sample, error) {
		t0 := time.Now()
		var n int
		var ready bool
		err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM brain.query($1, 10)), brain.vector_index_ready()`, q).Scan(&n, &ready)
		return sample{time.Since(t0), ready}, err
	}
	var idle []time.Duration
	for round := 0; round < 2; round++ { // round 0 warms caches and plans
		for _, q := range queries {
			s, err := ask(q)
			if err != nil {
				return fmt.Errorf("idle query %q: %w", q, err)
			}
			if round == 1 {
				idle = append(idle, s.d)
			}
		}
	}

	type result struct {
		sum ingest.Summary
		err error
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		sum, err := ingest.ImportDir(ctx, b, filepath.Join(dir, "incoming"), ingest.Options{Source: "incoming"})
		done <- result{sum, err}
	}()
	var during []sample
	var res result
loop:
	for i := 0; ; i++ {
		select {
		case res = <-done:
			break loop
		default:
		}
		s, err := ask(queries[i%len(queries)])
		if err != nil {
			return fmt.Errorf("query during the import: %w", err)
		}
		during = append(during, s)
	}
	importTime := time.Since(start)
	if res.err != nil {
		return fmt.Errorf("importing %d pages: %w", incoming, res.err)
	}
	if res.sum.Added != incoming {
		return fmt.Errorf("the import added %d pages, want %d (failures: %v)", res.sum.Added, incoming, res.sum.Failures)
	}

	var all, keywordOnly []time.Duration
	over1s := 0
	for _, s := range during {
		all = append(all, s.d)
		if !s.vector {
			keywordOnly = append(keywordOnly, s.d)
		}
		if s.d > time.Second {
			over1s++
		}
	}
	slices.Sort(idle)
	slices.Sort(all)
	slices.Sort(keywordOnly)
	fmt.Fprintf(env.out, "## brain.query during a bulk import\n\n%d pages in source existing, %d known-item queries; "+
		"importing %d pages into source incoming took %.0fs; one connection, one query at a time\n\n",
		existing, len(queries), incoming, importTime.Seconds())
	fmt.Fprintln(env.out, "| when | queries | p50 ms | p99 ms | over 1 s |")
	fmt.Fprintln(env.out, "|---|---:|---:|---:|---:|")
	fmt.Fprintf(env.out, "| idle | %d | %.2f | %.2f | 0 |\n", len(idle), pct(idle, 50), pct(idle, 99))
	fmt.Fprintf(env.out, "| during the import | %d | %.2f | %.2f | %d |\n", len(all), pct(all, 50), pct(all, 99), over1s)
	fmt.Fprintf(env.out, "| of which keyword-only (index suspended or rebuilding) | %d | %.2f | %.2f | |\n",
		len(keywordOnly), pct(keywordOnly, 50), pct(keywordOnly, 99))
	fmt.Fprintf(env.out, "\nduring / idle: p50 %.2f, p99 %.2f (goal: p50 <= 3)\n\n",
		pct(all, 50)/pct(idle, 50), pct(all, 99)/pct(idle, 99))
	return nil
}
