package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/client/migrate"
	"github.com/pgbrain/pgbrain/internal/brain"
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
			// 0 means "the default" to migrate: given explicitly it is a
			// mistake, like any dimension pgvector cannot index.
			if c.IsSet("dim") && (opts.Dim < 1 || opts.Dim > migrate.MaxDim) {
				return usageError("--dim %d is out of range: choose 1..%d (pgvector's HNSW index holds at most %d dimensions), or leave it out for the embedder's default", opts.Dim, migrate.MaxDim, migrate.MaxDim)
			}
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
	applied := 0
	names, namesErr := migrate.Names()
	latest := int32(len(names))
	opts.OnStart = func(seq int32, name string) {
		applied++
		// One line for the whole run: a new brain takes every migration,
		// and a line each said nothing a user acts on.
		if applied > 1 {
			return
		}
		if namesErr == nil && latest > seq {
			fmt.Fprintf(c.App.ErrWriter, "pgbrain: applying migrations %d to %d (%s to %s)\n", seq, latest, name, names[latest-1])
			return
		}
		fmt.Fprintf(c.App.ErrWriter, "pgbrain: applying migration %d %s\n", seq, name)
	}
	if err := migrate.Migrate(c.Context, u, opts); err != nil {
		return err
	}
	if applied == 0 && c.Command.Name == "migrate" && namesErr == nil {
		fmt.Fprintf(c.App.ErrWriter, "pgbrain: the schema is at version %d already: no migration to apply\n", latest)
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
		var asked []string
		if c.IsSet("embedder") && opts.Embedder != s.Embedder {
			asked = append(asked, "--embedder "+opts.Embedder)
		}
		if c.IsSet("dim") && opts.Dim != s.Dim {
			asked = append(asked, fmt.Sprintf("--dim %d", opts.Dim))
		}
		if len(asked) > 0 {
			// Asked for explicitly and not done: a failure, not a note.
			return fmt.Errorf("this brain already exists with embedder %s and dimension %d, which are chosen once, when a brain is created; %s was not applied (for another embedder or dimension, init a new brain: another --home or --database-url)",
				s.Embedder, s.Dim, strings.Join(asked, " "))
		}
		fmt.Fprintf(c.App.ErrWriter, "pgbrain: note: this brain already existed; its embedder and dimension were kept (%s, %d)\n", s.Embedder, s.Dim)
	}
	return nil
}
