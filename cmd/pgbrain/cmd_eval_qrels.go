package main

import (
	"context"
	"fmt"
	"io"

	"github.com/pgbrain/pgbrain/internal/columns"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/eval"
	"github.com/pgbrain/pgbrain/internal/search"
)

func evalQrelsCommand() *cli.Command {
	return &cli.Command{
		Name:      "qrels",
		Usage:     "score hybrid search against a qrels file: P@k, recall@k, MRR, nDCG@k",
		ArgsUsage: "FILE",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "k", Value: 10, Usage: "retrieval depth"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("eval qrels: give exactly one qrels file (pgbrain eval qrels FILE)")
			}
			k := c.Int("k")
			if k < 1 || k > search.MaxLimit {
				return usageError("eval qrels: -k %d is out of range; use 1 to %d", k, search.MaxLimit)
			}
			q, err := eval.ReadQrelsFile(c.Args().First())
			if err != nil {
				return err
			}
			return withBrain(c, brain.RoleReader, func(ctx context.Context, b *brain.Brain) error {
				s, err := searcherFor(b)
				if err != nil {
					return err
				}
				if err := noteMissingJudged(ctx, c.App.ErrWriter, b, q); err != nil {
					return err
				}
				rep, err := eval.Run(ctx, dbSearcher{s}, q, k, progressLine(c, !c.Bool("json")))
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return writeJSON(c.App.Writer, rep)
				}
				return printQrels(c.App.Writer, rep)
			})
		},
	}
}

func printQrels(w io.Writer, r eval.Report) error {
	tw := columns.New(w, 2)
	gain := "binary"
	if r.Graded {
		gain = "graded"
	}
	fmt.Fprintf(tw, "%s: %d queries, k=%d, %s relevance\n", r.Qrels, r.Queries, r.K, gain)
	fmt.Fprintf(tw, "P@%d\t%.3f\n", r.K, r.PrecisionAtK)
	fmt.Fprintf(tw, "recall@%d\t%.3f\n", r.K, r.RecallAtK)
	fmt.Fprintf(tw, "MRR\t%.3f\n", r.MRR)
	fmt.Fprintf(tw, "nDCG@%d\t%.3f\n", r.K, r.NDCGAtK)
	fmt.Fprintf(tw, "first-relevant hit rate\t%.3f\n", r.FirstRelevantHitRate)
	if r.ExpectedTop1HitRate != nil {
		fmt.Fprintf(tw, "expected-top1 hit rate\t%.3f\t(%d queries)\n", *r.ExpectedTop1HitRate, r.ExpectedTop1Queries)
	}
	fmt.Fprintln(tw)
	fmt.Fprintf(tw, "QUERY_ID\tP@%d\tRECALL\tRR\tNDCG\tTOP1\tQUERY\n", r.K)
	for _, s := range r.PerQuery {
		top := "-"
		if len(s.Retrieved) > 0 {
			top = s.Retrieved[0]
		}
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t%s\n", s.QueryID, s.PrecisionAtK, s.RecallAtK, s.ReciprocalRank, s.NDCGAtK, top, clip(s.Query, 50))
	}
	return tw.Flush()
}
