package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/embed"
	"github.com/pgbrain/pgbrain/internal/embed/refresh"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/nice"
)

func embedCommand() *cli.Command {
	return &cli.Command{
		Name:  "embed",
		Usage: "compute missing embeddings (--stale, the default) or all of them (--all)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "stale", Usage: "embed chunks that have no embedding (default)"},
			&cli.BoolFlag{Name: "all", Usage: "recompute every embedding, swapping page batches in place (resumes an interrupted run)"},
			noNiceFlag,
			&cli.BoolFlag{Name: "json", Usage: "print the result as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.Bool("stale") && c.Bool("all") {
				return usageError("embed: choose one of --stale and --all")
			}
			return withEmbedder(c, connectingRole, func(ctx context.Context, b *brain.Brain, emb embed.Embedder) error {
				if err := restoreIndex(c, b); err != nil {
					return err
				}
				// Pages written from psql first get the chunks put would have
				// written; their vectors follow below (or from the local
				// embedder's trigger).
				pending, err := ingest.ChunkPending(ctx, b, ingest.Options{Embedder: emb})
				if err != nil {
					return err
				}
				// The embedding (in the server, for the local embedder) yields
				// the CPU to other sessions' queries (internal/nice).
				rb := b
				if !c.Bool("no-nice") {
					low, err := nice.Brain(ctx, b, nil)
					if err != nil {
						return err
					}
					defer low.Pool.Close()
					rb = low
				}
				n, err := withProgress(c, "embedding", func(update func(done, total int)) (int64, error) {
					return refresh.Run(ctx, rb, refresh.Options{All: c.Bool("all"), Embedder: emb, Progress: update})
				})
				if err != nil {
					return err
				}
				if c.Bool("json") {
					if err := json.NewEncoder(c.App.Writer).Encode(map[string]any{"embedded": n, "rechunked": pending}); err != nil {
						return err
					}
				} else {
					if pending.Pages > 0 || len(pending.Failures) > 0 {
						fmt.Fprintf(c.App.Writer, "rechunked %s written outside pgbrain (%s)\n", count(pending.Pages, "page", "pages"), count(pending.Chunks, "chunk", "chunks"))
					}
					for _, f := range pending.Failures {
						fmt.Fprintf(c.App.ErrWriter, "pgbrain: %s is still pending: %s\n", f.Path, f.Reason)
					}
					fmt.Fprintf(c.App.Writer, "embedded %s\n", count(int(n), "chunk", "chunks"))
				}
				if len(pending.Failures) > 0 {
					return cli.Exit("", 1)
				}
				return nil
			})
		},
	}
}
