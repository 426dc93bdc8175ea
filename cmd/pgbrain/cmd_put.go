package main

import (
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
		Flags:     []cli.Flag{sourceFlag, &cli.BoolFlag{Name: "no-embed", Usage: "skip the embedding for now"}},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("put: give exactly one slug (pgbrain put SLUG < page.md)")
			}
			data, err := io.ReadAll(c.App.Reader)
			if err != nil {
				return fmt.Errorf("reading the page from stdin: %w", err)
			}
			return withEmbedder(c, connectingRole, func(ctx context.Context, b *brain.Brain, emb embed.Embedder) error {
				if err := restoreIndex(c, b); err != nil {
					return err
				}
				sum, err := ingest.PutPage(ctx, b, markdown.NormalizeSlug(c.Args().First()), data, ingest.Options{
					Source: c.String("source"), NoEmbed: c.Bool("no-embed"), Embedder: emb,
				})
				if err != nil {
					return err
				}
				state := "unchanged"
				switch {
				case sum.Added > 0:
					state = "added"
				case sum.Updated > 0:
					state = "updated"
				}
				fmt.Fprintf(c.App.ErrWriter, "pgbrain: %s %s (%d chunks)\n", state, c.Args().First(), sum.Chunks)
				return nil
			})
		},
	}
}
