package main

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/embed"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/markdown"
)

func putCommand() *cli.Command {
	return &cli.Command{
		Name:      "put",
		Usage:     "store one page from markdown on stdin",
		ArgsUsage: "SLUG",
		Flags: []cli.Flag{sourceFlag, &cli.BoolFlag{Name: "no-embed", Usage: "skip the embedding for now"},
			&cli.BoolFlag{Name: "allow-empty", Usage: "store the page even when stdin is empty or blank"}},
		Action: func(c *cli.Context) error {
			if !oneArgument(c) {
				return usageError("put: give exactly one slug (pgbrain put SLUG < page.md)")
			}
			data, err := io.ReadAll(c.App.Reader)
			if err != nil {
				return fmt.Errorf("reading the page from stdin: %w", err)
			}
			// An empty stdin is far more often a failed pipe (cat of a
			// missing file) than a wish to blank the page it would replace.
			if len(bytes.TrimSpace(data)) == 0 && !c.Bool("allow-empty") {
				return usageError("put: stdin is empty, so %s was not written: pipe the page in (pgbrain put SLUG < page.md), or pass --allow-empty to store an empty page", c.Args().First())
			}
			return withEmbedder(c, connectingRole, func(ctx context.Context, b *brain.Brain, emb embed.Embedder) error {
				if err := restoreIndex(c, b); err != nil {
					return err
				}
				sum, err := ingest.PutPage(ctx, b, markdown.NormalizeSlug(c.Args().First()), data, ingest.Options{
					Source: c.String("source"), NoEmbed: c.Bool("no-embed"), Embedder: emb,
				})
				if err != nil {
					return hideTypedSlug(err, c.Args().First())
				}
				state := "unchanged"
				switch {
				case sum.Added > 0:
					state = "added"
				case sum.Updated > 0:
					state = "updated"
				}
				fmt.Fprintf(c.App.ErrWriter, "pgbrain: %s %s (%s)", state, c.Args().First(), count(sum.Chunks, "chunk", "chunks"))
				if sum.MarkedPut > 0 {
					fmt.Fprint(c.App.ErrWriter, "; it was imported from a file and is now a page written by name, which import --prune keeps")
				}
				fmt.Fprintln(c.App.ErrWriter)
				return nil
			})
		},
	}
}
