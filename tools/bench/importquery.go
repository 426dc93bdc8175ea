package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/ingest"
)

// benchImportQuery measures brain.query on an existing source while a bulk
// import ten times its size runs into another source, beside its idle
// latency in the same run: the bulk import suspends the brain's vector index
// and rebuilds it at the end, and queries must stay interactive throughout
// (goal: p50 during the import <= 3x idle p50). It is the slowest suite: at
// -pages 20000 it imports 200,000 pages, and the HNSW rebuild over their
// ~900,000 vectors alone ran for more than 45 minutes on a loaded 2-core
// machine with maintenance_work_mem 256MB; -quick takes about 2 minutes.
// -nice both runs it twice, the import's server processes at their usual
// priority and then lowered (internal/nice), each in a database of its own.
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
	modes := []bool{true} // lowered priority, the default
	switch env.nice {
	case "off":
		modes = []bool{false}
	case "both":
		modes = []bool{false, true}
	}
	var runs []importQueryRun
	for _, lowered := range modes {
		name := "pgbrain_bench_importquery"
		if len(modes) > 1 && lowered {
			name += "_nice"
		}
		r, err := importQuery(ctx, env, dir, name, queries, lowered, incoming)
		if err != nil {
			return err
		}
		runs = append(runs, r)
	}
	fmt.Fprintf(env.out, "## brain.query during a bulk import\n\n%d pages in source existing, %d known-item queries, "+
		"then %d pages imported into source incoming; one connection, one query at a time. "+
		"Import priority: nice 10 = the import's server processes lowered (the default), nice 0 = --no-nice.\n\n",
		existing, len(queries), incoming)
	fmt.Fprintln(env.out, "| import priority | import s | idle p50 / p99 ms | during p50 / p99 ms | after p50 / p99 ms | queries during (keyword-only) | over 1 s | p50 during / idle | p50 during / after |")
	fmt.Fprintln(env.out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range runs {
		prio := "nice 0 (--no-nice)"
		if r.lowered {
			prio = "nice 10"
		}
		fmt.Fprintf(env.out, "| %s | %.0f | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %d (%d) | %d | %.2f | %.2f |\n", prio, r.importTime.Seconds(),
			pct(r.idle, 50), pct(r.idle, 99), pct(r.during, 50), pct(r.during, 99), pct(r.after, 50), pct(r.after, 99),
			len(r.during), r.keywordOnly, r.over1s, pct(r.during, 50)/pct(r.idle, 50), pct(r.during, 50)/pct(r.after, 50))
	}
	if len(runs) == 2 {
		off, on := runs[0], runs[1]
		fmt.Fprintf(env.out, "\nnice 10 against nice 0: p50 ratio %.2f against %.2f; import time %.2fx (goal: p50 ratio <= 3)\n",
			pct(on.during, 50)/pct(on.idle, 50), pct(off.during, 50)/pct(off.idle, 50), on.importTime.Seconds()/off.importTime.Seconds())
	}
	fmt.Fprintln(env.out)
	return nil
}

// importQueryRun is one measured import, at lowered priority or not.
type importQueryRun struct {
	lowered    bool
	importTime time.Duration
	// idle: before the import; during it; after: the same queries on the
	// settled brain ten times larger, which tells the import's cost to a
	// query from the cost of searching the larger brain.
	idle, during, after []time.Duration // sorted
	keywordOnly, over1s int
}

// importQuery imports the existing corpus into a fresh database name, times
// the queries idle, then again while the incoming corpus is imported with
// its server processes at lowered priority or not.
func importQuery(ctx context.Context, env *benchEnv, dir, name string, queries []string, lowered bool, incoming int) (importQueryRun, error) {
	r := importQueryRun{lowered: lowered}
	url, err := env.newDatabase(ctx, name)
	if err != nil {
		return r, err
	}
	b, err := brain.Open(ctx, url)
	if err != nil {
		return r, err
	}
	defer b.Close()
	for _, src := range []string{"existing", "incoming"} {
		if _, err := b.Pool.Exec(ctx, `INSERT INTO brain.sources (id, name) VALUES ($1, $1)`, src); err != nil {
			return r, fmt.Errorf("adding source %s: %w", src, err)
		}
	}
	if _, err := ingest.ImportDir(ctx, b, filepath.Join(dir, "existing"), ingest.Options{Source: "existing", KeepPriority: !lowered}); err != nil {
		return r, err
	}
	if _, err := b.Pool.Exec(ctx, `VACUUM ANALYZE brain.chunks`); err != nil {
		return r, err
	}

	// One connection, one query at a time, as a user at a prompt would.
	conn, err := b.Pool.Acquire(ctx)
	if err != nil {
		return r, err
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
	for round := 0; round < 2; round++ { // round 0 warms caches and plans
		for _, q := range queries {
			s, err := ask(q)
			if err != nil {
				return r, fmt.Errorf("idle query %q: %w", q, err)
			}
			if round == 1 {
				r.idle = append(r.idle, s.d)
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
		sum, err := ingest.ImportDir(ctx, b, filepath.Join(dir, "incoming"), ingest.Options{Source: "incoming", KeepPriority: !lowered})
		done <- result{sum, err}
	}()
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
			return r, fmt.Errorf("query during the import: %w", err)
		}
		r.during = append(r.during, s.d)
		if !s.vector {
			r.keywordOnly++
		}
		if s.d > time.Second {
			r.over1s++
		}
	}
	r.importTime = time.Since(start)
	if res.err != nil {
		return r, fmt.Errorf("importing %d pages: %w", incoming, res.err)
	}
	if res.sum.Added != incoming {
		return r, fmt.Errorf("the import added %d pages, want %d (failures: %v)", res.sum.Added, incoming, res.sum.Failures)
	}
	if _, err := b.Pool.Exec(ctx, `VACUUM ANALYZE brain.chunks`); err != nil {
		return r, err
	}
	for round := 0; round < 2; round++ {
		for _, q := range queries {
			s, err := ask(q)
			if err != nil {
				return r, fmt.Errorf("query after the import %q: %w", q, err)
			}
			if round == 1 {
				r.after = append(r.after, s.d)
			}
		}
	}
	slices.Sort(r.idle)
	slices.Sort(r.during)
	slices.Sort(r.after)
	return r, nil
}
