package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/client/migrate"
	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/search"
)

// benchScale is the growth curve: for each size in -scale (pages), a fresh
// brain imports a generated corpus of that size with the local embedder
// (tools/corpusgen: sentences of the sample brain's prose, so common English
// words dominate every posting list as they do in real notes), and then
// keyword-only and hybrid search are timed over known-item queries, one
// connection, interleaved per query. It prints one row per size, so the
// cost's growth and where it stops being interactive can be read off.
//
// With -keep the brains are left in place (database pgbrain_bench_scale_N,
// pgbrain_bench_scale_N_keyword with -keyword-only),
// and a later run with -reuse times a kept brain again without importing it
// (after migrating it, so changed search functions are installed): that is
// how a change to the search SQL is measured at 200,000 pages without
// another half-hour import. With -keyword-only the brains are imported
// without embeddings and only keyword search is timed: the keyword goal's
// 1,000,000-page point takes minutes that way, where building the HNSW
// index over its four million chunks takes hours on this machine.
func benchScale(ctx context.Context, env *benchEnv) error {
	sizes := env.scale
	if env.quick {
		sizes = []int{2000, 20000}
	}
	nq := 300
	fmt.Fprintf(env.out, "## scale: import and search time as the brain grows\n\n")
	fmt.Fprintln(env.out, "| pages | chunks | import s | import pages/s | keyword p50 ms | keyword p99 ms | hybrid p50 ms | hybrid p99 ms | keyword recall@10 | hybrid recall@10 |")
	fmt.Fprintln(env.out, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, n := range sizes {
		r, err := scalePoint(ctx, env, n, nq)
		if err != nil {
			return fmt.Errorf("%d pages: %w", n, err)
		}
		imp := "kept"
		rate := "-"
		if r.importTime > 0 {
			imp = fmt.Sprintf("%.1f", r.importTime.Seconds())
			rate = fmt.Sprintf("%.0f", float64(n)/r.importTime.Seconds())
		}
		hyP50, hyP99, hyRecall := fmt.Sprintf("%.2f", r.hy.p50), fmt.Sprintf("%.2f", r.hy.p99), fmt.Sprintf("%.3f", r.hyRecall)
		if env.keywordOnly {
			hyP50, hyP99, hyRecall = "-", "-", "-"
			imp += " (no embeddings)"
		}
		fmt.Fprintf(env.out, "| %d | %d | %s | %s | %.2f | %.2f | %s | %s | %.3f | %s |\n",
			n, r.chunks, imp, rate, r.kw.p50, r.kw.p99, hyP50, hyP99, r.kwRecall, hyRecall)
	}
	fmt.Fprintln(env.out)
	return nil
}

type scaleResult struct {
	chunks             int
	importTime         time.Duration // 0 when a kept brain was reused
	kw, hy             latency
	kwRecall, hyRecall float64
}

func scalePoint(ctx context.Context, env *benchEnv, pages, nq int) (scaleResult, error) {
	var r scaleResult
	dir, err := os.MkdirTemp("", "pgbrain-bench-scale-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	qpath := filepath.Join(dir, "queries.json")
	corpus := filepath.Join(dir, "corpus")
	name := scaleDatabase(pages, env.keywordOnly)
	var b *brain.Brain
	if env.reuse {
		if b, err = openKept(ctx, env, name); err != nil {
			return r, err
		}
	}
	// The same seed gives the same pages and queries, so a reused brain is
	// queried with the queries its corpus was generated with.
	args := []string{"run", "./tools/corpusgen", "-pages", fmt.Sprint(pages), "-out", corpus, "-queries", qpath, "-nqueries", fmt.Sprint(nq)}
	gen := exec.CommandContext(ctx, "go", args...)
	gen.Stderr = os.Stderr
	if err := gen.Run(); err != nil {
		if b != nil {
			b.Close()
		}
		return r, fmt.Errorf("generating the corpus (run from the repository root): %w", err)
	}
	if b == nil {
		u, err := env.newDatabase(ctx, name)
		if err != nil {
			return r, err
		}
		if env.keep {
			env.forget(name)
		}
		if b, err = brain.Open(ctx, u); err != nil {
			return r, err
		}
		start := time.Now()
		sum, err := ingest.ImportDir(ctx, b, corpus, ingest.Options{NoEmbed: env.keywordOnly})
		if err != nil {
			b.Close()
			return r, err
		}
		r.importTime = time.Since(start)
		if sum.Added != pages {
			b.Close()
			return r, fmt.Errorf("import added %d pages, want %d", sum.Added, pages)
		}
		if _, err := b.Pool.Exec(ctx, `VACUUM ANALYZE brain.chunks`); err != nil {
			b.Close()
			return r, err
		}
	}
	defer b.Close()
	if err := b.Pool.QueryRow(ctx, `SELECT count(*) FROM brain.chunks`).Scan(&r.chunks); err != nil {
		return r, err
	}
	qs, err := readKnownItems(qpath)
	if err != nil {
		return r, err
	}
	var kwLat, hyLat []time.Duration
	var kwHit, hyHit int
	for round := 0; round < 2; round++ { // round 0 warms caches and plans
		for _, q := range qs {
			t0 := time.Now()
			kr, err := search.Keyword(ctx, b.Pool, q.query, search.Options{}, search.Tuning{})
			if err != nil {
				return r, fmt.Errorf("keyword %q: %w", q.query, err)
			}
			t1 := time.Now()
			if round == 1 {
				kwLat = append(kwLat, t1.Sub(t0))
				if q.found(kr) {
					kwHit++
				}
			}
			if env.keywordOnly {
				continue
			}
			hr, err := search.Hybrid(ctx, b.Pool, q.query, nil, search.Options{}, search.Tuning{})
			if err != nil {
				return r, fmt.Errorf("hybrid %q: %w", q.query, err)
			}
			t2 := time.Now()
			if round == 1 {
				hyLat = append(hyLat, t2.Sub(t1))
				if q.found(hr) {
					hyHit++
				}
			}
		}
	}
	r.kw, r.hy = summarize(kwLat), summarize(hyLat)
	r.kwRecall = float64(kwHit) / float64(max(len(qs), 1))
	r.hyRecall = float64(hyHit) / float64(max(len(qs), 1))
	return r, nil
}

// openKept opens the brain a -keep run left, migrated to this tree's schema
// and functions.
func openKept(ctx context.Context, env *benchEnv, name string) (*brain.Brain, error) {
	conn, err := pgx.Connect(ctx, env.admin)
	if err != nil {
		return nil, err
	}
	var exists bool
	err = conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists)
	conn.Close(ctx)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, nil
	}
	u, err := withDB(env.admin, name)
	if err != nil {
		return nil, err
	}
	if err := migrate.Migrate(ctx, u); err != nil {
		return nil, fmt.Errorf("migrating the kept brain %s: %w", name, err)
	}
	return brain.Open(ctx, u)
}

func withDB(admin, db string) (string, error) {
	u, err := url.Parse(admin)
	if err != nil {
		return "", fmt.Errorf("parsing the admin URL: %w", err)
	}
	u.Path = "/" + db
	return u.String(), nil
}

type knownItem struct {
	query string
	slugs []string
}

func (k knownItem) found(r *search.Response) bool {
	for _, res := range r.Results {
		if slices.Contains(k.slugs, res.Slug) {
			return true
		}
	}
	return false
}

func readKnownItems(path string) ([]knownItem, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var qf struct {
		Queries []struct {
			Query         string   `json:"query"`
			RelevantSlugs []string `json:"relevant_slugs"`
		} `json:"queries"`
	}
	if err := json.Unmarshal(data, &qf); err != nil {
		return nil, fmt.Errorf("reading queries %s: %w", path, err)
	}
	out := make([]knownItem, len(qf.Queries))
	for i, q := range qf.Queries {
		out[i] = knownItem{query: q.Query, slugs: q.RelevantSlugs}
	}
	return out, nil
}

// scaleDatabase names the brain of one scale point. A -keyword-only brain
// has no embeddings, so it has a name of its own: a later -reuse run
// without -keyword-only would otherwise time hybrid search on a brain whose
// vector arm finds nothing.
func scaleDatabase(pages int, keywordOnly bool) string {
	if keywordOnly {
		return fmt.Sprintf("pgbrain_bench_scale_%d_keyword", pages)
	}
	return fmt.Sprintf("pgbrain_bench_scale_%d", pages)
}
