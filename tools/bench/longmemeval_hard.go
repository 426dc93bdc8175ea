package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/pgbrain/pgbrain/internal/aptfolder"
	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/longmemeval"
	"github.com/pgbrain/pgbrain/internal/memsets"
)

// benchLongMemEvalHard compares the session retrieval methods on question
// sets of the hard kinds (parts, updates, dates) built at run time from the
// machine's Debian package records (tools/memsets): 50 sessions a question,
// distractors sharing the question's words. Each set is run by each method
// in turn, top 5: recall_any@5 and recall_all@5 by question type, and the
// p50 of a question's time (reset, import, search) and of its search alone,
// side by side in one run.
func benchLongMemEvalHard(ctx context.Context, env *benchEnv) error {
	recs, err := aptfolder.Load(ctx)
	if err != nil {
		return fmt.Errorf("the hard LongMemEval sets are built from Debian package records: %w", err)
	}
	pool, err := memsets.NewPool(recs)
	if err != nil {
		return err
	}
	perType := 20
	if env.quick {
		perType = 4
	}
	u, err := env.newDatabase(ctx, "bench_longmemeval_hard")
	if err != nil {
		return err
	}
	b, err := brain.Open(ctx, u)
	if err != nil {
		return err
	}
	settings := b.Settings
	b.Close()
	sets := []struct {
		name string
		o    memsets.Options
	}{
		{"tuning phrasings, seed 1", memsets.Options{Seed: 1, PerType: perType}},
		{"tuning phrasings, seed 2", memsets.Options{Seed: 2, PerType: perType}},
		{"held-back phrasings, seed 9", memsets.Options{Seed: 9, PerType: perType, Variant: memsets.HeldBack}},
	}
	fmt.Fprintf(env.out, "## longmemeval-hard: session retrieval on question sets built from Debian package records (top 5)\n\n")
	fmt.Fprintf(env.out, "recall_all@5 by type (recall_any@5 in brackets); ms are p50 per question.\n\n")
	fmt.Fprintf(env.out, "| set | method | %s | all types | question ms | search ms |\n", strings.Join(memsets.Types, " | "))
	fmt.Fprintf(env.out, "|---|---|%s---:|---:|---:|\n", strings.Repeat("---:|", len(memsets.Types)))
	for _, set := range sets {
		qs := memsets.Build(pool, set.o)
		for _, m := range longmemeval.Methods {
			st, err := longmemeval.NewScratch(ctx, u, longmemeval.ScratchOptions{Settings: settings, Method: m})
			if err != nil {
				return err
			}
			var tms []longmemeval.Timing
			sum, err := longmemeval.Run(ctx, st, longmemeval.QuestionList(qs), nil, io.Discard, longmemeval.Options{
				TopK: 5, RetrievalOnly: true,
				Timing: func(t longmemeval.Timing) { tms = append(tms, t) },
			})
			if derr := st.Drop(ctx); err == nil {
				err = derr
			}
			if err != nil {
				return fmt.Errorf("%s, %s: %w", set.name, m, err)
			}
			total := make([]time.Duration, len(tms))
			search := make([]time.Duration, len(tms))
			for i, t := range tms {
				total[i], search[i] = t.Total(), t.Search
			}
			slices.Sort(total)
			slices.Sort(search)
			var cells []string
			for _, typ := range memsets.Types {
				cells = append(cells, fmt.Sprintf("%.2f (%.2f)", sum.RecallByType[typ].AllRate, sum.RecallByType[typ].Rate))
			}
			fmt.Fprintf(env.out, "| %s | %s | %s | %.2f (%.2f) | %.1f | %.1f |\n", set.name, m, strings.Join(cells, " | "),
				sum.Aggregate.AllRate, sum.Aggregate.Rate, pct(total, 50), pct(search, 50))
		}
	}
	fmt.Fprintln(env.out)
	return nil
}
