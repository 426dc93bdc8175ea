package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/budget"
	"github.com/pgbrain/pgbrain/internal/capture"
	"github.com/pgbrain/pgbrain/internal/expand"
	"github.com/pgbrain/pgbrain/internal/scrub"
	"github.com/pgbrain/pgbrain/internal/search"
)

func queryCommand() *cli.Command {
	return &cli.Command{
		Name:        "query",
		Usage:       "hybrid search: keyword and vector results fused",
		ArgsUsage:   "QUERY",
		Description: queryGrammarHelp,
		Flags:       searchFlags(true),
		Action: func(c *cli.Context) error {
			q, o, err := searchArgs(c, "query")
			if err != nil {
				return err
			}
			switch o.Detail = c.String("detail"); o.Detail {
			case "", search.DetailLow, search.DetailMedium, search.DetailHigh:
			default:
				return usageError("query: --detail %q is not one of low, medium, high", o.Detail)
			}
			o.Expand = c.Bool("expand")
			if n := c.Int("variants"); n < 1 || n > expand.AskVariants {
				return usageError("query: --variants %d is out of range; use 1 to %d", n, expand.AskVariants)
			}
			return withBrain(c, brain.RoleReader, func(ctx context.Context, b *brain.Brain) error {
				if err := knownSources(ctx, b, o.SourceIDs); err != nil {
					return err
				}
				// Drained as this returns, before withBrain closes the pool.
				rec := captureRecorder(c, b)
				defer rec.Close(context.WithoutCancel(ctx))
				emb, err := clientEmbedder(b)
				if err != nil {
					return err
				}
				var qvec []float32
				if emb != nil {
					// A failing remote embedder degrades to keyword-only search.
					vs, err := emb.Embed(ctx, []string{q})
					if err != nil {
						// The embedder's error may echo the query back.
						fmt.Fprintf(c.App.ErrWriter, "pgbrain: embedding the query failed, searching by keyword only: %s\n", scrub.Scrub(err.Error()))
					} else if len(vs) == 1 && len(vs[0]) == b.Settings.Dim {
						qvec = vs[0]
					}
				}
				var ex *expand.Expander
				var meter *budget.Meter
				if o.Expand {
					if meter, err = newMeter(c); err != nil {
						return err
					}
					if ex, err = newExpander(b.Pool, meter, c.Int("variants")); err != nil {
						return usageError("query: --expand: %v", err)
					}
				}
				r, err := expand.Search(ctx, b.Pool, ex, q, qvec, variantEmbedder(emb, b), o, search.Tuning{})
				if err != nil {
					return err
				}
				rec.Record(ctx, r, capture.Caller{})
				if r.Meta.VectorIndex != "ready" {
					fmt.Fprintf(c.App.ErrWriter, "pgbrain: note: the vector index is %s: searched by keyword only (see 'pgbrain doctor')\n", r.Meta.VectorIndex)
				}
				if x := r.Meta.Expansion; x != nil && x.Note != "" {
					// The note may quote the model's error or answer, which may
					// echo the query: scrubbed like every other stderr line.
					fmt.Fprintf(c.App.ErrWriter, "pgbrain: note: %s\n", scrub.Message(x.Note))
				}
				answerNotes(c.App.ErrWriter, q, r)
				reportUsage(c.App.ErrWriter, meter)
				if c.Bool("json") && meter != nil {
					return json.NewEncoder(c.App.Writer).Encode(struct {
						*search.Response
						Usage *budget.Summary `json:"usage"`
					}{r, usageOf(meter)})
				}
				return printResponse(c.App.Writer, r, c.Bool("json"))
			})
		},
	}
}
