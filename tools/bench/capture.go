package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/capture"
	"github.com/pgbrain/pgbrain/internal/evalconfig"
	"github.com/pgbrain/pgbrain/internal/search"
)

// benchCapture measures what eval capture adds to an operation's visible
// latency: the same keyword query is timed, including the Record call, with
// capture off and on, alternating run by run so both modes see the same
// cache and load. The drain at exit is timed separately.
func benchCapture(ctx context.Context, env *benchEnv) error {
	b, err := env.openBrain(ctx, "bench_capture")
	if err != nil {
		return err
	}
	defer b.Close()
	pages := min(env.pages, 2000)
	iters := 2000
	if env.quick {
		pages, iters = min(pages, 200), 200
	}
	if _, err := b.Pool.Exec(ctx, `
		INSERT INTO brain.pages (slug, title, body, content_hash)
		SELECT 'bench/p' || g, 'Page ' || g, 'alpha beta gamma ' || g, encode(sha256(g::text::bytea), 'hex')
		FROM generate_series(1, $1) g`, pages); err != nil {
		return fmt.Errorf("seeding pages: %w", err)
	}
	if _, err := b.Pool.Exec(ctx, `
		INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text)
		SELECT id, 0, 'compiled_truth', 'alice met bob about project ' || (id % 50) || ' in week ' || (id % 7)
		FROM brain.pages`); err != nil {
		return fmt.Errorf("seeding chunks: %w", err)
	}

	// The operation: brain.keyword_search when this build has it, else an
	// equivalent full-text query.
	op := `SELECT p.slug, p.source_id, c.id FROM brain.chunks c JOIN brain.pages p ON p.id = c.page_id
		WHERE c.tsv @@ websearch_to_tsquery('english', $1)
		ORDER BY ts_rank(c.tsv, websearch_to_tsquery('english', $1)) DESC, c.id LIMIT 10`
	opName := "full-text SQL query"
	var hasKeyword bool
	if err := b.Pool.QueryRow(ctx, `SELECT to_regproc('brain.keyword_search') IS NOT NULL`).Scan(&hasKeyword); err == nil && hasKeyword {
		op = `SELECT p.slug, p.source_id, k.chunk_id FROM brain.keyword_search($1, 10) k JOIN brain.pages p ON p.id = k.page_id`
		opName = "brain.keyword_search"
	}

	home, err := os.MkdirTemp("", "pgbrain-bench-capture-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	recorders := map[bool]*capture.Recorder{
		false: capture.New(b.Pool, evalconfig.Settings{Capture: false, ScrubPII: true}, home, os.Stderr),
		true:  capture.New(b.Pool, evalconfig.Settings{Capture: true, ScrubPII: true}, home, os.Stderr),
	}
	timings := map[bool][]time.Duration{}
	queries := []string{"alice project 7", "bob week 3", "call alice at 415-555-0199", "project alice bob"}
	for i := 0; i < iters; i++ {
		// Alternate which mode goes first so neither always runs warm.
		for _, on := range []bool{i%2 == 0, i%2 != 0} {
			q := queries[i%len(queries)]
			start := time.Now()
			resp, err := captureRunOp(ctx, b, op, q)
			if err != nil {
				return fmt.Errorf("running %s: %w", opName, err)
			}
			recorders[on].Record(ctx, resp, capture.Caller{})
			timings[on] = append(timings[on], time.Since(start))
		}
	}
	drainStart := time.Now()
	closeCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for _, r := range recorders {
		if err := r.Close(closeCtx); err != nil {
			return err
		}
	}
	drain := time.Since(drainStart)
	var captured int
	if err := b.Pool.QueryRow(ctx, `SELECT count(*) FROM brain.eval_candidates`).Scan(&captured); err != nil {
		return err
	}
	if captured != iters {
		return fmt.Errorf("capture on recorded %d rows, want %d", captured, iters)
	}

	off, on := summarize(timings[false]), summarize(timings[true])
	fmt.Fprintf(env.out, "## capture: %s over %d pages, %d runs per mode\n\n", opName, pages, iters)
	fmt.Fprintln(env.out, "| capture | mean ms | p50 ms | p95 ms |")
	fmt.Fprintln(env.out, "|---|---:|---:|---:|")
	fmt.Fprintf(env.out, "| off | %.3f | %.3f | %.3f |\n", off.mean, off.p50, off.p95)
	fmt.Fprintf(env.out, "| on | %.3f | %.3f | %.3f |\n", on.mean, on.p50, on.p95)
	fmt.Fprintf(env.out, "| on / off | %.2f | %.2f | %.2f |\n\n", on.mean/off.mean, on.p50/off.p50, on.p95/off.p95)
	fmt.Fprintf(env.out, "%d captures written; drain at exit took %.1f ms.\n\n", captured, float64(drain.Microseconds())/1000)
	return nil
}

func captureRunOp(ctx context.Context, b *brain.Brain, op, q string) (*search.Response, error) {
	start := time.Now()
	rows, err := b.Pool.Query(ctx, op, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	resp := &search.Response{Query: q, Meta: search.Meta{Tool: "search"}}
	for rows.Next() {
		var r search.Result
		if err := rows.Scan(&r.Slug, &r.SourceID, &r.ChunkID); err != nil {
			return nil, err
		}
		resp.Results = append(resp.Results, r)
	}
	resp.Meta.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
	return resp, rows.Err()
}
