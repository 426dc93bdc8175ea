package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/search"
)

// benchRowSecurity measures what row security and bounded queries cost on
// text nobody here wrote (Debian package descriptions, as search-real):
//   - `query` (brain.search, hybrid with the brain's defaults) as
//     pgbrain_agent, under the row-security policies, against the same
//     call as the owner, which row security does not apply to; interleaved
//     per query. Goal: p50 ratio <= 1.10.
//   - a 50,000-character query of the corpus's words against a short one,
//     as the agent: the query is cut to 32 distinct words before any
//     tsquery work, so it must answer within 1 s.
func benchRowSecurity(ctx context.Context, env *benchEnv) error {
	pages, nq := env.pages, 300
	if env.quick {
		pages, nq = min(env.pages, 2000), 50
	}
	dir, err := os.MkdirTemp("", "pgbrain-bench-rowsecurity-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	owner, chunks, _, qs, err := loadCorpus(ctx, env, dir, "pgbrain_bench_rowsecurity",
		"generating the Debian corpus (run from the repository root; see tools/realtext)",
		"./tools/realtext", "-source", "debian", "-pages", fmt.Sprint(pages), "-out", filepath.Join(dir, "corpus"),
		"-qrels", filepath.Join(dir, "queries.json"), "-queries", fmt.Sprint(nq))
	if err != nil {
		return err
	}
	defer owner.Close()
	agent, err := brain.OpenAs(ctx, owner.Pool.Config().ConnString(), brain.Access{Role: brain.RoleAgent})
	if err != nil {
		return err
	}
	defer agent.Close()

	var onRLS, offRLS []time.Duration
	hidden := 0
	for round := 0; round < 2; round++ { // round 0 warms caches and plans
		for i, q := range qs {
			order := []*brain.Brain{agent, owner}
			if i%2 == 1 {
				order = []*brain.Brain{owner, agent}
			}
			for _, b := range order {
				t0 := time.Now()
				r, err := search.Hybrid(ctx, b.Pool, q, nil, search.Options{}, search.Tuning{})
				if err != nil {
					return fmt.Errorf("query %q: %w", q, err)
				}
				d := time.Since(t0)
				if round == 0 {
					continue
				}
				if b == agent {
					onRLS = append(onRLS, d)
					if r.Meta.Withheld != nil {
						hidden += r.Meta.Withheld.Pages
					}
				} else {
					offRLS = append(offRLS, d)
				}
			}
		}
	}
	printAB(env, fmt.Sprintf("rowsecurity: `query` as pgbrain_agent (row security on) vs as the owner (off), %d chunks (%d Debian pages), %d queries interleaved (%d pages withheld from the agent)",
		chunks, pages, len(qs), hidden), "row security", onRLS, offRLS, 1.10)

	// A 50,000-character query of the corpus's own words.
	var sb strings.Builder
	for sb.Len() < 50000 {
		for _, q := range qs {
			sb.WriteString(q)
			sb.WriteByte(' ')
		}
	}
	huge := sb.String()[:50000]
	var long, short []time.Duration
	for i := 0; i < 21; i++ {
		for _, q := range []string{huge, qs[i%len(qs)]} {
			t0 := time.Now()
			if _, err := search.Hybrid(ctx, agent.Pool, q, nil, search.Options{}, search.Tuning{}); err != nil {
				return fmt.Errorf("a %d-character query: %w", len(q), err)
			}
			if i == 0 {
				continue
			}
			if len(q) == len(huge) {
				long = append(long, time.Since(t0))
			} else {
				short = append(short, time.Since(t0))
			}
		}
	}
	l, s := summarize(long), summarize(short)
	fmt.Fprintf(env.out, "## bounded queries: a 50,000-character query of corpus words vs short queries, as pgbrain_agent, 20 each interleaved\n\n")
	fmt.Fprintln(env.out, "| query | p50 ms | p99 ms |")
	fmt.Fprintln(env.out, "|---|---:|---:|")
	fmt.Fprintf(env.out, "| 50,000 characters | %.1f | %.1f |\n| short | %.1f | %.1f |\n\n", l.p50, l.p99, s.p50, s.p99)
	verdict := "met"
	if l.p99 >= 1000 {
		verdict = "NOT met"
	}
	fmt.Fprintf(env.out, "50,000-character / short p50 ratio %.2f; p99 of the long query %.0f ms, goal < 1000 ms: %s.\n\n", l.p50/s.p50, l.p99, verdict)
	return nil
}
