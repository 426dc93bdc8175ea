package main

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/pgbrain/pgbrain/internal/columns"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/baseline"
	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/budget"
	"github.com/pgbrain/pgbrain/internal/replay"
)

func evalReplayCommand() *cli.Command {
	return &cli.Command{
		Name:  "replay",
		Usage: "re-run captured queries (an export or a baseline) and compare with what was captured",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "against", Usage: "the export or baseline file to replay"},
			&cli.IntFlag{Name: "limit", Usage: "replay only the N most recent rows (default: all)"},
			&cli.BoolFlag{Name: "json", Usage: "print the summary as JSON"},
			&cli.BoolFlag{Name: "verbose", Usage: "include every row's result"},
			&cli.IntFlag{Name: "top-regressions", Value: 5, Usage: "how many of the most moved queries to list"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError("eval replay: unexpected argument %q", c.Args().First())
			}
			if c.String("against") == "" {
				return usageError("eval replay: --against FILE is required (an 'eval export' or 'bench publish' file)")
			}
			if c.Int("limit") < 0 || c.Int("top-regressions") < 0 {
				return usageError("eval replay: --limit and --top-regressions must not be negative")
			}
			f, err := baseline.ReadFile(c.String("against"))
			if err != nil {
				return err
			}
			if len(f.Rows) == 0 {
				return fmt.Errorf("eval replay: %s holds no captured rows: replay an 'eval export' of captured traffic (capture must be on) or a 'bench publish' baseline", c.String("against"))
			}
			return withBrain(c, brain.RoleReader, func(ctx context.Context, b *brain.Brain) error {
				s, err := searcherFor(b)
				if err != nil {
					return err
				}
				meter, err := replayExpansion(c, b, &s, replay.Select(f.Rows, c.Int("limit")), "eval replay")
				if err != nil {
					return err
				}
				asJSON := c.Bool("json")
				prog := progressLine(c, !asJSON)
				if prog != nil {
					n := len(f.Rows)
					if l := c.Int("limit"); l > 0 && l < n {
						n = l
					}
					fmt.Fprintf(c.App.ErrWriter, "Replaying %d captured queries...\n", n)
				}
				if err := noteForeignBaseline(ctx, c.App.ErrWriter, b, c.String("against"), replay.Select(f.Rows, c.Int("limit"))); err != nil {
					return err
				}
				rep, err := replay.Run(ctx, s, f.Rows, replay.Options{Limit: c.Int("limit"), Progress: prog})
				if err != nil {
					return fmt.Errorf("eval replay: %w", err)
				}
				reportUsage(c.App.ErrWriter, meter)
				// Rows that cannot be searched today (a query the search
				// refuses) are listed as errored and the rest compared; when
				// no row was compared (all skipped or errored), the report
				// is printed as usual, then a failure. (A database that
				// stops answering ends the replay above.)
				incomplete := func() error {
					if rep.Summary.RowsReplayed > 0 {
						return nil
					}
					return cli.Exit(fmt.Sprintf("eval replay: nothing was compared: of %d rows, %d were skipped and %d errored (see the reasons listed)",
						rep.Summary.RowsTotal, rep.Summary.RowsSkipped, rep.Summary.RowsErrored), 1)
				}
				if asJSON {
					out := struct {
						SchemaVersion int             `json:"schema_version"`
						Summary       replay.Summary  `json:"summary"`
						Results       []replay.Result `json:"results,omitempty"`
						Usage         *budget.Summary `json:"usage,omitempty"`
					}{SchemaVersion: 1, Summary: rep.Summary, Usage: usageOf(meter)}
					if c.Bool("verbose") {
						out.Results = rep.Results
						if out.Results == nil {
							out.Results = []replay.Result{}
						}
					}
					if err := writeJSON(c.App.Writer, out); err != nil {
						return err
					}
					return incomplete()
				}
				if err := printReplay(c.App.Writer, rep, c.Int("top-regressions"), c.Bool("verbose")); err != nil {
					return err
				}
				return incomplete()
			})
		},
	}
}

func printReplay(w io.Writer, rep replay.Report, top int, verbose bool) error {
	s := rep.Summary
	var b bytes.Buffer
	fmt.Fprintf(&b, "Replayed %d of %d captured queries (%d skipped, %d errored)\n", s.RowsReplayed, s.RowsTotal, s.RowsSkipped, s.RowsErrored)
	fmt.Fprintf(&b, "Mean Jaccard@k:   %.3f\n", s.MeanJaccard)
	fmt.Fprintf(&b, "Top-1 stability:  %.1f%%\n", 100*s.Top1StabilityRate)
	fmt.Fprintf(&b, "Mean latency Δ:   %+.0fms (current vs captured)\n", s.MeanLatencyDeltaMS)
	fmt.Fprintf(&b, "Rows over 2× latency: %d\n", s.RowsOver2xLatency)
	regs := replay.TopRegressions(rep.Results, top)
	if top > 0 {
		switch {
		case s.RowsReplayed == 0:
			fmt.Fprintln(&b, "Nothing was replayed, so nothing was compared.")
		case len(regs) == 0 && s.RowsErrored > 0:
			fmt.Fprintf(&b, "No regressions among the %d replayed queries; %d errored and were not compared.\n", s.RowsReplayed, s.RowsErrored)
		case len(regs) == 0:
			fmt.Fprintln(&b, "No regressions: every replayed query returned the same set and top result.")
		default:
			fmt.Fprintf(&b, "Top %d regression(s):\n", len(regs))
			for _, r := range regs {
				fmt.Fprintf(&b, "  jaccard=%.2f captured=%d current=%d %q\n", *r.Jaccard, r.CapturedCount, r.CurrentCount, clip(r.Query, 80))
			}
		}
	}
	shown := 0
	for _, r := range rep.Results {
		if r.Status == replay.Errored && (verbose || shown < 3) {
			if shown == 0 {
				fmt.Fprintln(&b, "Errored rows:")
			}
			shown++
			fmt.Fprintf(&b, "  line %d %q: %s\n", r.Line, clip(r.Query, 60), r.ErrorMessage)
		}
	}
	if !verbose && s.RowsErrored > shown {
		fmt.Fprintf(&b, "  ... and %d more (use --verbose or --json --verbose)\n", s.RowsErrored-shown)
	}
	skipped := map[string]int{}
	for _, r := range rep.Results {
		if r.Status == replay.Skipped {
			skipped[r.Reason]++
		}
	}
	for reason, n := range skipped {
		fmt.Fprintf(&b, "Skipped %d row(s): %s\n", n, reason)
	}
	if verbose {
		tw := columns.New(&b, 2)
		fmt.Fprintln(tw, "LINE\tSTATUS\tJACCARD\tTOP1\tCAPTURED\tCURRENT\tΔMS\tQUERY")
		for _, r := range rep.Results {
			j, t1 := "-", "-"
			if r.Jaccard != nil {
				j = fmt.Sprintf("%.2f", *r.Jaccard)
				t1 = fmt.Sprint(*r.Top1Match)
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%d\t%+.1f\t%s\n", r.Line, r.Status, j, t1, r.CapturedCount, r.CurrentCount, r.LatencyDeltaMS, clip(r.Query, 60))
		}
		tw.Flush()
	}
	_, err := w.Write(b.Bytes())
	return err
}
