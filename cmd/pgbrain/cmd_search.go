package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/client/budget"
	"github.com/pgbrain/pgbrain/client/capture"
	"github.com/pgbrain/pgbrain/client/expand"
	"github.com/pgbrain/pgbrain/client/scrub"
	"github.com/pgbrain/pgbrain/client/search"
)

func searchFlags(withDetail bool) []cli.Flag {
	fs := []cli.Flag{
		&cli.IntFlag{Name: "limit", Value: 10, Usage: fmt.Sprintf("number of results (1-%d)", search.MaxLimit)},
		&cli.StringSliceFlag{Name: "source", Usage: "only search this source id (repeatable)"},
		&cli.BoolFlag{Name: "json", Usage: "print every result field and meta as JSON"},
	}
	if withDetail {
		fs = append(fs, &cli.StringFlag{Name: "detail", Usage: "low (compiled truth only), medium (with source boosts) or high (everything, no boost); default: detected from the query"},
			&cli.BoolFlag{Name: "expand", Usage: "query expansion: the chat model (PGBRAIN_CHAT_*) proposes rephrasings, searched and fused with the query; cached in the brain"},
			&cli.IntFlag{Name: "variants", Value: expand.DefaultVariants, Usage: fmt.Sprintf("with --expand, how many rephrasings to search (1-%d)", expand.AskVariants)})
	}
	return fs
}

func searchCommand() *cli.Command {
	return &cli.Command{
		Name:      "search",
		Usage:     "keyword search (BM25 over the full-text index)",
		ArgsUsage: "QUERY",
		Flags:     searchFlags(false),
		Action: func(c *cli.Context) error {
			q, o, err := searchArgs(c, "search")
			if err != nil {
				return err
			}
			b, err := openBrain(c)
			if err != nil {
				return err
			}
			defer b.Close()
			// Drained before the pool closes (defers run in reverse).
			rec := captureRecorder(c, b)
			defer rec.Close(context.WithoutCancel(c.Context))
			r, err := search.Keyword(c.Context, b.Pool, q, o, search.Tuning{})
			if err != nil {
				return err
			}
			rec.Record(c.Context, r, capture.Caller{})
			noWordsNote(c.App.ErrWriter, r)
			return printResponse(c.App.Writer, r, c.Bool("json"))
		},
	}
}

func queryCommand() *cli.Command {
	return &cli.Command{
		Name:      "query",
		Usage:     "hybrid search: keyword and vector results fused",
		ArgsUsage: "QUERY",
		Flags:     searchFlags(true),
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
			b, err := openBrain(c)
			if err != nil {
				return err
			}
			defer b.Close()
			// Drained before the pool closes (defers run in reverse).
			rec := captureRecorder(c, b)
			defer rec.Close(context.WithoutCancel(c.Context))
			emb, err := clientEmbedder(b)
			if err != nil {
				return err
			}
			var qvec []float32
			if emb != nil {
				// A failing remote embedder degrades to keyword-only search.
				vs, err := emb.Embed(c.Context, []string{q})
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
			r, err := expand.Search(c.Context, b.Pool, ex, q, qvec, variantEmbedder(emb, b), o, search.Tuning{})
			if err != nil {
				return err
			}
			rec.Record(c.Context, r, capture.Caller{})
			if r.Meta.VectorIndex != "ready" {
				fmt.Fprintf(c.App.ErrWriter, "pgbrain: note: the vector index is %s: searched by keyword only (see 'pgbrain doctor')\n", r.Meta.VectorIndex)
			}
			if x := r.Meta.Expansion; x != nil && x.Note != "" {
				// The note may quote the model's error or answer, which may
				// echo the query: scrubbed like every other stderr line.
				fmt.Fprintf(c.App.ErrWriter, "pgbrain: note: %s\n", scrub.Scrub(x.Note))
			}
			noWordsNote(c.App.ErrWriter, r)
			reportUsage(c.App.ErrWriter, meter)
			if c.Bool("json") && meter != nil {
				return json.NewEncoder(c.App.Writer).Encode(struct {
					*search.Response
					Usage *budget.Summary `json:"usage"`
				}{r, usageOf(meter)})
			}
			return printResponse(c.App.Writer, r, c.Bool("json"))
		},
	}
}

// noWordsNote says why an answer is empty when the query held no word to
// search for (only punctuation, symbols or stop words), so "no results" is
// not read as "nothing in the brain matches".
func noWordsNote(w io.Writer, r *search.Response) {
	terms, ok := r.Meta.Parser["terms"].([]any)
	if len(r.Results) == 0 && ok && len(terms) == 0 {
		fmt.Fprintln(w, "pgbrain: note: the query holds no word to search for (only punctuation, symbols or stop words such as 'the'); see docs/retrieval.md, \"Query grammar\"")
	}
}

// searchArgs validates what both commands share, before any database work.
func searchArgs(c *cli.Context, name string) (string, search.Options, error) {
	var o search.Options
	if c.NArg() != 1 {
		return "", o, usageError("%s: give exactly one query, quoted (pgbrain %s \"QUERY\")", name, name)
	}
	q := c.Args().First()
	if err := search.CheckQuery(q); err != nil {
		return "", o, usageError("%s: %v", name, err)
	}
	o.Limit = c.Int("limit")
	if o.Limit < 1 || o.Limit > search.MaxLimit {
		return "", o, usageError("%s: --limit %d is out of range; use 1 to %d", name, o.Limit, search.MaxLimit)
	}
	o.SourceIDs = c.StringSlice("source")
	return q, o, nil
}

func printResponse(w io.Writer, r *search.Response, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(r)
	}
	if len(r.Results) == 0 {
		_, err := fmt.Fprintln(w, "no results")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RANK\tSLUG\tSCORE\tSNIPPET")
	for i, x := range r.Results {
		slug := x.Slug
		if x.SourceID != "default" {
			slug = x.SourceID + ":" + slug
		}
		fmt.Fprintf(tw, "%d\t%s\t%.4f\t%s\n", i+1, slug, x.Score, clip(x.Snippet, 90))
	}
	return tw.Flush()
}

// clip shortens s to n characters on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-3]) + "..."
}
