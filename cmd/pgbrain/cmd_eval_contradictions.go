package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/atomicfile"
	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/budget"
	"github.com/pgbrain/pgbrain/internal/contradictions"
	"github.com/pgbrain/pgbrain/internal/openai"
	"github.com/pgbrain/pgbrain/internal/progress"
	"github.com/pgbrain/pgbrain/internal/search"
)

// probeChat is the chat model of PGBRAIN_CHAT_*, metered, with replies
// bounded to maxTokens, and the price table of the home's config.json.
func probeChat(c *cli.Context, what string, maxTokens int) (*budget.Chat, *budget.Meter, budget.Prices, error) {
	prices, err := loadPrices(c)
	if err != nil {
		return nil, nil, nil, err
	}
	cfg, err := openai.ChatFromEnv()
	if errors.Is(err, openai.ErrNoChatModel) {
		return nil, nil, nil, usageError("%s needs a chat model: %v", what, err)
	}
	if err != nil {
		return nil, nil, nil, usageError("%s: %v", what, err)
	}
	cfg.MaxTokens = maxTokens
	chat, err := openai.NewChat(cfg)
	if err != nil {
		return nil, nil, nil, usageError("%s: %v", what, err)
	}
	m := budget.NewMeter(prices)
	return m.Wrap(chat), m, prices, nil
}

func evalContradictionsCommand() *cli.Command {
	return &cli.Command{
		Name:  "suspected-contradictions",
		Usage: "ask a chat model (PGBRAIN_CHAT_*) whether the top results of real queries contradict each other",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "queries-file", Usage: `JSON Lines, one {"query": "..."} per line (an 'eval export' file works too)`},
			&cli.IntFlag{Name: "from-captured", Usage: "probe the N most frequent captured queries instead"},
			&cli.IntFlag{Name: "top-k", Value: contradictions.DefaultTopK, Usage: "results retrieved per query"},
			&cli.IntFlag{Name: "per-page", Value: contradictions.DefaultPerPage, Usage: "chunks of a page's other section (compiled truth / timeline) each result is compared with"},
			&cli.Float64Flag{Name: "budget-usd", Usage: "refuse to start when the estimated cost exceeds this many US dollars"},
			&cli.StringFlag{Name: "output", Usage: "also write the run as JSON to this file"},
			&cli.BoolFlag{Name: "json", Usage: "print the run as JSON"},
		},
		Action: evalContradictions,
		Subcommands: []*cli.Command{
			{
				Name:  "trend",
				Usage: "flagged pairs per day, as a text bar chart",
				Flags: []cli.Flag{
					&cli.IntFlag{Name: "days", Value: 30, Usage: "how many days, ending today (UTC)"},
					&cli.BoolFlag{Name: "json", Usage: "print the days as JSON"},
				},
				Action: evalContradictionsTrend,
			},
			{
				Name:      "dismiss",
				Usage:     "mark a flagged pair as not a contradiction (the probe then never flags or asks about it again)",
				ArgsUsage: "HASH_A HASH_B",
				Flags:     []cli.Flag{&cli.StringFlag{Name: "note", Usage: "why (kept with the mark)"}},
				Action: func(c *cli.Context) error {
					if c.NArg() != 2 {
						return usageError("eval suspected-contradictions dismiss: give the pair's two hashes, as 'pgbrain doctor' prints them")
					}
					return withBrain(c, connectingRole, func(ctx context.Context, b *brain.Brain) error {
						added, err := contradictions.Dismiss(ctx, b.Pool, c.Args().Get(0), c.Args().Get(1), c.String("note"))
						if err != nil {
							return err
						}
						if added {
							fmt.Fprintln(c.App.Writer, "marked as not a contradiction")
						} else {
							fmt.Fprintln(c.App.Writer, "already marked as not a contradiction")
						}
						return nil
					})
				},
			},
		},
	}
}

func evalContradictions(c *cli.Context) error {
	const name = "eval suspected-contradictions"
	if c.NArg() > 0 {
		return usageError("%s: unexpected argument %q", name, c.Args().First())
	}
	file, captured := c.String("queries-file"), c.Int("from-captured")
	switch {
	case file != "" && c.IsSet("from-captured"):
		return usageError("%s: give --queries-file or --from-captured, not both", name)
	case file == "" && !c.IsSet("from-captured"):
		return usageError("%s: give --queries-file FILE (JSON Lines of {\"query\": ...}) or --from-captured N", name)
	case c.IsSet("from-captured") && captured < 1:
		return usageError("%s: --from-captured %d: give a positive number of queries", name, captured)
	}
	if k := c.Int("top-k"); k < 2 || k > search.MaxLimit {
		return usageError("%s: --top-k %d is out of range; use 2 to %d (pairs need two results)", name, k, search.MaxLimit)
	}
	if n := c.Int("per-page"); n < 0 || n > 20 {
		return usageError("%s: --per-page %d is out of range; use 0 to 20", name, n)
	}
	if v := c.Float64("budget-usd"); v < 0 {
		return usageError("%s: --budget-usd %v must not be negative", name, v)
	}
	var queries []string
	if file != "" {
		var err error
		if queries, err = contradictions.ReadQueries(file); err != nil {
			return err
		}
	}
	model, meter, prices, err := probeChat(c, name, 400)
	if err != nil {
		return err
	}
	return withBrain(c, connectingRole, func(ctx context.Context, b *brain.Brain) error {
		if file == "" {
			if queries, err = contradictions.TopCaptured(ctx, b.Pool, captured); err != nil {
				return err
			}
			if len(queries) == 0 {
				return fmt.Errorf("%s: no captured queries to probe: turn capture on (PGBRAIN_CONTRIBUTOR_MODE=1) and query the brain, or give --queries-file", name)
			}
		}
		s, err := searcherFor(b)
		if err != nil {
			return err
		}
		asJSON := c.Bool("json")
		var prog func(int, int)
		if !asJSON && progress.IsTerminal(c.App.ErrWriter) {
			prog = func(done, total int) {
				if done%10 == 0 || done == total {
					fmt.Fprintf(c.App.ErrWriter, "...judged %d/%d pairs\n", done, total)
				}
			}
		}
		rep, err := contradictions.Run(ctx, b.Pool, contradictions.FromSearch(s), queries, contradictions.Options{
			TopK: c.Int("top-k"), PerPage: c.Int("per-page"), Model: model, Prices: prices, BudgetUSD: c.Float64("budget-usd"), Progress: prog,
		})
		meter.Report(c.App.ErrWriter)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		out := struct {
			*contradictions.Report
			Usage budget.Summary `json:"usage"`
		}{rep, meter.Summary()}
		if path := c.String("output"); path != "" {
			if err := writeJSONFile(path, out); err != nil {
				return err
			}
		}
		if asJSON {
			return writeJSON(c.App.Writer, out)
		}
		return printContradictions(c.App.Writer, rep)
	})
}

func printContradictions(w io.Writer, r *contradictions.Report) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Probed %d queries (top %d results each): %d surfaced a suspected contradiction\n", r.Queries, r.TopK, r.QueriesFlagged)
	fmt.Fprintf(&b, "Headline: %.1f%% (95%% Wilson interval %.1f%%–%.1f%%)\n", 100*r.Headline.Rate, 100*r.Headline.Low, 100*r.Headline.High)
	fmt.Fprintf(&b, "Pairs: %d compared, %d flagged, %d dismissed; %d from the cache, %d model calls (prompt %s)\n",
		r.Pairs, r.PairsFlagged, r.Dismissed, r.CacheHits, r.ModelCalls, r.PromptVersion)
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "  [%s] %s: %s vs %s (%s)\n", f.Severity, clip(f.Query, 60), f.SlugA, f.SlugB, f.Kind)
		if f.Explanation != "" {
			fmt.Fprintf(&b, "      %s\n", f.Explanation)
		}
		fmt.Fprintf(&b, "      A: %q\n      B: %q\n", clip(f.EvidenceA, 200), clip(f.EvidenceB, 200))
	}
	fmt.Fprintf(&b, "Run %d recorded; 'pgbrain doctor' shows how to resolve high-severity findings\n", r.RunID)
	_, err := w.Write(b.Bytes())
	return err
}

func evalContradictionsTrend(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("eval suspected-contradictions trend: unexpected argument %q", c.Args().First())
	}
	days := c.Int("days")
	if days < 1 || days > 3660 {
		return usageError("eval suspected-contradictions trend: --days %d is out of range; use 1 to 3660", days)
	}
	return withBrain(c, connectingRole, func(ctx context.Context, b *brain.Brain) error {
		ds, err := contradictions.Trend(ctx, b.Pool, days)
		if err != nil {
			return err
		}
		if c.Bool("json") {
			return writeJSON(c.App.Writer, struct {
				SchemaVersion int                  `json:"schema_version"`
				Days          []contradictions.Day `json:"days"`
			}{1, ds})
		}
		return contradictions.DrawTrend(c.App.Writer, ds, 40)
	})
}

// writeJSONFile writes v, indented, to path through a file beside it moved
// into place, so a reader never sees half a run.
func writeJSONFile(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	return atomicfile.Write(path, append(data, '\n'), 0o600)
}
