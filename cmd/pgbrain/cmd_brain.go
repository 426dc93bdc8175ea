package main

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/client/brain"
	"github.com/pgbrain/pgbrain/client/embed/refresh"
	"github.com/pgbrain/pgbrain/client/ingest"
	"github.com/pgbrain/pgbrain/client/migrate"
	"github.com/pgbrain/pgbrain/client/progress"
)

func initCommand() *cli.Command {
	return &cli.Command{
		Name:  "init",
		Usage: "create the brain schema (choose the embedder and dimension once)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "embedder", Value: migrate.DefaultEmbedder, Usage: "local (offline, in SQL) or openai (any OpenAI-compatible /v1/embeddings)"},
			&cli.IntFlag{Name: "dim", Usage: fmt.Sprintf("embedding dimension (default %d for local, 1536 for openai)", migrate.DefaultDim)},
			&cli.StringFlag{Name: "model", Usage: "embedding model name (openai: default text-embedding-3-small)"},
		},
		Action: func(c *cli.Context) error {
			opts := migrate.Options{Embedder: c.String("embedder"), Dim: c.Int("dim"), EmbedModel: c.String("model")}
			switch opts.Embedder {
			case "local":
			case "openai":
				if opts.Dim == 0 {
					opts.Dim = 1536
				}
				if opts.EmbedModel == "" {
					opts.EmbedModel = "text-embedding-3-small"
				}
			default:
				return usageError("--embedder %q: choose local or openai", opts.Embedder)
			}
			return migrateAndReport(c, opts)
		},
	}
}

func migrateCommand() *cli.Command {
	return &cli.Command{
		Name:  "migrate",
		Usage: "apply pending schema migrations",
		Action: func(c *cli.Context) error {
			return migrateAndReport(c, migrate.Options{})
		},
	}
}

func migrateAndReport(c *cli.Context, opts migrate.Options) error {
	u, _, err := databaseURL(c)
	if err != nil {
		return err
	}
	opts.OnStart = func(seq int32, name string) {
		fmt.Fprintf(c.App.ErrWriter, "pgbrain: applying migration %d %s\n", seq, name)
	}
	if err := migrate.Migrate(c.Context, u, opts); err != nil {
		return err
	}
	b, err := brain.Open(c.Context, u)
	if err != nil {
		return err
	}
	defer b.Close()
	if err := restoreIndex(c, b); err != nil {
		return err
	}
	s := b.Settings
	fmt.Fprintf(c.App.Writer, "brain ready: embedder %s, model %s, dimension %d\n", s.Embedder, s.EmbedModel, s.Dim)
	if opts.Embedder != "" && (opts.Embedder != s.Embedder || (opts.Dim != 0 && opts.Dim != s.Dim)) {
		fmt.Fprintf(c.App.ErrWriter, "pgbrain: note: this brain already existed; its embedder and dimension were kept (%s, %d)\n", s.Embedder, s.Dim)
	}
	return nil
}

func embedCommand() *cli.Command {
	return &cli.Command{
		Name:  "embed",
		Usage: "compute missing embeddings (--stale, the default) or all of them (--all)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "stale", Usage: "embed chunks that have no embedding (default)"},
			&cli.BoolFlag{Name: "all", Usage: "recompute every embedding, swapping page batches in place (resumes an interrupted run)"},
			&cli.BoolFlag{Name: "json", Usage: "print the result as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.Bool("stale") && c.Bool("all") {
				return usageError("embed: choose one of --stale and --all")
			}
			b, err := openBrain(c)
			if err != nil {
				return err
			}
			defer b.Close()
			emb, err := clientEmbedder(b)
			if err != nil {
				return err
			}
			if err := restoreIndex(c, b); err != nil {
				return err
			}
			// Pages written from psql first get the chunks put would have
			// written; their vectors follow below (or from the local
			// embedder's trigger).
			pending, err := ingest.ChunkPending(c.Context, b, ingest.Options{Embedder: emb})
			if err != nil {
				return err
			}
			bar := progress.New(c.App.ErrWriter, "embedding", !c.Bool("json"))
			n, err := refresh.Run(c.Context, b, refresh.Options{All: c.Bool("all"), Embedder: emb, Progress: bar.Update})
			bar.Done()
			if err != nil {
				return err
			}
			if c.Bool("json") {
				if err := json.NewEncoder(c.App.Writer).Encode(map[string]any{"embedded": n, "rechunked": pending}); err != nil {
					return err
				}
			} else {
				if pending.Pages > 0 || len(pending.Failures) > 0 {
					fmt.Fprintf(c.App.Writer, "rechunked %d pages written outside pgbrain (%d chunks)\n", pending.Pages, pending.Chunks)
				}
				for _, f := range pending.Failures {
					fmt.Fprintf(c.App.ErrWriter, "pgbrain: %s is still pending: %s\n", f.Path, f.Reason)
				}
				fmt.Fprintf(c.App.Writer, "embedded %d chunks\n", n)
			}
			if len(pending.Failures) > 0 {
				return cli.Exit("", 1)
			}
			return nil
		},
	}
}
