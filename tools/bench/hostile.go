package main

import (
	"context"
	"fmt"
	"time"

	"github.com/pgbrain/pgbrain/internal/linearity"
	"github.com/pgbrain/pgbrain/internal/pii"
	"github.com/pgbrain/pgbrain/internal/scrub"
)

// hostileBudget is the bound on scrubbing or classifying 100 KB of hostile
// input: a query or a page built to stall a detector still costs a caller
// no more than this.
const hostileBudget = 100 * time.Millisecond

// benchHostile times pii.Classify and scrub.Scrub on 10 KB and 100 KB of
// each hostile input (the units the linear-work tests use), side by side:
// the ratio shows the growth (about 10 when linear) and the 100 KB time is
// held to hostileBudget. The times are CPU time of the measuring thread, so
// other processes on the machine do not inflate them.
func benchHostile(ctx context.Context, env *benchEnv) error {
	fmt.Fprintf(env.out, "## hostile input: CPU time of 10 KB and 100 KB, budget %v per 100 KB\n\n", hostileBudget)
	fmt.Fprintln(env.out, "| detector | input unit | 10 KB | 100 KB | ratio | within budget |")
	fmt.Fprintln(env.out, "|---|---|---:|---:|---:|---|")
	over := 0
	for _, d := range []struct {
		name  string
		f     func(string)
		units []string
	}{
		{"pii.Classify", func(s string) { pii.Classify(s) }, linearity.ClassifyUnits()},
		{"scrub.Scrub", func(s string) { scrub.Scrub(s) }, linearity.ScrubUnits()},
	} {
		for _, unit := range d.units {
			if err := ctx.Err(); err != nil {
				return err
			}
			g, err := linearity.Measure(d.f, linearity.Repeat(unit, 10_000), linearity.Repeat(unit, 100_000), linearity.Limit)
			if err != nil {
				return err
			}
			ok := "yes"
			if g.Big >= hostileBudget || g.Ratio >= linearity.Limit {
				ok = "**no**"
				over++
			}
			fmt.Fprintf(env.out, "| %s | %q | %v | %v | %.1f | %s |\n", d.name, unit,
				g.Small.Round(time.Microsecond), g.Big.Round(time.Microsecond), g.Ratio, ok)
		}
	}
	fmt.Fprintf(env.out, "\n%d input(s) over the budget or growing faster than linearly.\n\n", over)
	return nil
}
