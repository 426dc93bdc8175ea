package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/export"
)

// benchExport measures the streaming eval export (what `pgbrain eval export`
// runs) to io.Discard: throughput and this process's memory, at N/4, N/2
// and N rows of brain.eval_candidates, to show memory stays flat as rows
// grow.
func benchExport(ctx context.Context, env *benchEnv) error {
	n := 1_000_000
	if env.quick {
		n = 50_000
	}
	b, err := env.openBrain(ctx, "bench_export")
	if err != nil {
		return err
	}
	defer b.Close()

	type result struct {
		rows      int64
		elapsed   time.Duration
		heapPeak  uint64
		hwm       int64 // VmHWM in bytes; -1 when unknown
		hwmReset  bool
		insertDur time.Duration
	}
	var results []result
	have := 0
	for _, target := range []int{n / 4, n / 2, n} {
		t0 := time.Now()
		if err := exportSeed(ctx, b, have, target-have); err != nil {
			return err
		}
		insertDur := time.Since(t0)
		have = target
		if _, err := b.Pool.Exec(ctx, `VACUUM ANALYZE brain.eval_candidates`); err != nil {
			return err
		}

		runtime.GC()
		reset := resetPeakRSS()
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var heapPeak uint64
		wg.Add(1)
		go func() { // sample the Go heap every 10 ms
			defer wg.Done()
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			var ms runtime.MemStats
			for {
				runtime.ReadMemStats(&ms)
				heapPeak = max(heapPeak, ms.HeapInuse)
				select {
				case <-stop:
					return
				case <-tick.C:
				}
			}
		}()
		start := time.Now()
		sum, err := export.Export(ctx, b.Pool, io.Discard, export.Options{})
		elapsed := time.Since(start)
		close(stop)
		wg.Wait()
		if err != nil {
			return err
		}
		if sum.Rows != int64(target) {
			return fmt.Errorf("exported %d rows, want %d", sum.Rows, target)
		}
		results = append(results, result{rows: sum.Rows, elapsed: elapsed, heapPeak: heapPeak,
			hwm: vmHWM(), hwmReset: reset, insertDur: insertDur})
	}

	const mib = 1 << 20
	fmt.Fprintf(env.out, "## export: streaming NDJSON v1 export of brain.eval_candidates to io.Discard\n\n")
	fmt.Fprintln(env.out, "| rows | seconds | rows/s | peak Go heap in use MiB | process max RSS MiB |")
	fmt.Fprintln(env.out, "|---:|---:|---:|---:|---:|")
	var minRate float64
	var maxHeap uint64
	var maxRSS int64
	for i, r := range results {
		rate := float64(r.rows) / r.elapsed.Seconds()
		if i == 0 || rate < minRate {
			minRate = rate
		}
		maxHeap = max(maxHeap, r.heapPeak)
		maxRSS = max(maxRSS, r.hwm)
		rss := "n/a"
		if r.hwm >= 0 {
			rss = fmt.Sprintf("%.1f", float64(r.hwm)/mib)
			if !r.hwmReset {
				rss += " (since start)"
			}
		}
		fmt.Fprintf(env.out, "| %d | %.2f | %.0f | %.1f | %s |\n", r.rows, r.elapsed.Seconds(), rate, float64(r.heapPeak)/mib, rss)
	}
	first, last := results[0], results[len(results)-1]
	fmt.Fprintf(env.out, "\nslowest %.0f rows/s (goal >= 250,000); peak heap %.1f MiB, max RSS %.1f MiB (goal <= 64 MiB); heap at N / heap at N/4 = %.2f (flat ~ 1)\n",
		minRate, float64(maxHeap)/mib, float64(maxRSS)/mib, float64(last.heapPeak)/float64(max(first.heapPeak, 1)))
	var ins time.Duration
	for _, r := range results {
		ins += r.insertDur
	}
	fmt.Fprintf(env.out, "(seeding %d rows with INSERT ... SELECT generate_series took %.1fs)\n\n", n, ins.Seconds())
	return nil
}

// exportSeed inserts count capture rows numbered from offset+1, valid for
// every CHECK of brain.eval_candidates, mixing query and search rows.
func exportSeed(ctx context.Context, b *brain.Brain, offset, count int) error {
	if count <= 0 {
		return nil
	}
	_, err := b.Pool.Exec(ctx, `
		INSERT INTO brain.eval_candidates (tool_name, query, retrieved_slugs, retrieved_chunk_ids, source_ids,
			expand_enabled, detail, detail_resolved, vector_enabled, expansion_applied, latency_ms, remote)
		SELECT CASE WHEN g % 2 = 0 THEN 'query' ELSE 'search' END,
		       'who did alice meet about project ' || (g % 97) || ' in week ' || (g % 52),
		       ARRAY['people/alice', 'projects/p' || (g % 97), 'notes/week-' || (g % 52)],
		       ARRAY[g * 3, g * 3 + 1, g * 3 + 2]::bigint[],
		       ARRAY['default'],
		       CASE WHEN g % 2 = 0 THEN g % 3 = 0 END,
		       (ARRAY['low', 'medium', 'high'])[1 + g % 3],
		       (ARRAY['low', 'medium', 'high'])[1 + (g + 1) % 3],
		       g % 5 <> 0,
		       g % 2 = 0 AND g % 3 = 0,
		       round((g % 1000)::numeric / 7, 3),
		       g % 11 = 0
		FROM generate_series($1::bigint + 1, $1::bigint + $2::bigint) g`, offset, count)
	if err != nil {
		return fmt.Errorf("seeding eval candidates: %w", err)
	}
	return nil
}

// resetPeakRSS resets this process's VmHWM (Linux: "5" to clear_refs).
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// vmHWM is this process's peak resident set size in bytes, or -1.
func vmHWM() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}
