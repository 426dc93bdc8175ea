package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/client/brain"
	"github.com/pgbrain/pgbrain/client/ingest"
	"github.com/pgbrain/pgbrain/client/markdown"
	"github.com/pgbrain/pgbrain/client/progress"
)

var sourceFlag = &cli.StringFlag{Name: "source", Value: "default", Usage: "source id"}

func importCommand() *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "import a directory of markdown files",
		ArgsUsage: "DIR",
		Flags: []cli.Flag{
			sourceFlag,
			&cli.BoolFlag{Name: "no-embed", Usage: "skip embeddings now (fill later with 'pgbrain embed --stale')"},
			&cli.BoolFlag{Name: "prune", Usage: "delete pages of the source whose files are gone (never after an incomplete walk; at most half of the source unless --force)"},
			&cli.BoolFlag{Name: "force", Usage: "with --prune: prune even when that deletes more than half of the source's pages"},
			&cli.IntFlag{Name: "writers", Usage: "connections writing batches at once (default: one per core, at most 4)"},
			&cli.BoolFlag{Name: "json", Usage: "print the summary as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("import: give exactly one directory (pgbrain import DIR)")
			}
			if w := c.Int("writers"); w < 0 || w > maxImportWriters {
				return usageError("import: --writers %d is out of range; use 1 to %d (or leave it out for the default)", w, maxImportWriters)
			}
			if c.Bool("force") && !c.Bool("prune") {
				return usageError("import: --force only applies to --prune; add --prune or drop --force")
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
			bar := progress.New(c.App.ErrWriter, "importing", !c.Bool("json"))
			sum, err := ingest.ImportDir(c.Context, b, c.Args().First(), ingest.Options{
				Source: c.String("source"), NoEmbed: c.Bool("no-embed"), Embedder: emb,
				Prune: c.Bool("prune"), Force: c.Bool("force"), Writers: c.Int("writers"), Progress: bar.Update,
			})
			bar.Done()
			if err != nil {
				return err
			}
			printWarnings(c.App.ErrWriter, sum)
			if c.Bool("json") {
				if sum.Failures == nil {
					sum.Failures = []ingest.Failure{}
				}
				if sum.Skipped == nil {
					sum.Skipped = []ingest.Skipped{}
				}
				if sum.Collisions == nil {
					sum.Collisions = []ingest.Collision{}
				}
				if err := json.NewEncoder(c.App.Writer).Encode(sum); err != nil {
					return err
				}
			} else {
				printSummary(c.App.Writer, sum)
			}
			if sum.Failed > 0 || sum.PruneSkipped != "" {
				return cli.Exit("", 1)
			}
			return nil
		},
	}
}

// maxImportWriters bounds --writers: past a few writers they mostly wait on
// each other's term statistics, and each holds a connection.
const maxImportWriters = 16

// printWarnings names, on stderr, what an import did not do as asked: each
// skipped entry, each file stored under a suffixed slug, a prune not done.
func printWarnings(w io.Writer, s ingest.Summary) {
	for _, k := range s.Skipped {
		fmt.Fprintf(w, "pgbrain: skipped %s: %s\n", k.Path, k.Reason)
	}
	for _, c := range s.Collisions {
		if c.KeptBy != "" {
			fmt.Fprintf(w, "pgbrain: %s is stored as %s: %s already maps to %s\n", c.Path, c.Slug, c.KeptBy, c.PlainSlug)
		} else {
			fmt.Fprintf(w, "pgbrain: %s is stored as %s, the slug an earlier import gave it when another file mapped to %s\n", c.Path, c.Slug, c.PlainSlug)
		}
	}
	if s.PruneSkipped != "" {
		fmt.Fprintf(w, "pgbrain: not pruned: %s\n", s.PruneSkipped)
	}
}

func printSummary(w io.Writer, s ingest.Summary) {
	fmt.Fprintf(w, "imported %d files in %.1fs: %d added, %d updated, %d unchanged, %d failed",
		s.Files, s.Elapsed.Seconds(), s.Added, s.Updated, s.Unchanged, s.Failed)
	if s.Pruned > 0 {
		fmt.Fprintf(w, ", %d pruned", s.Pruned)
	}
	if len(s.Skipped) > 0 {
		fmt.Fprintf(w, ", %d skipped", len(s.Skipped))
	}
	if len(s.Collisions) > 0 {
		fmt.Fprintf(w, ", %d renamed for slug collisions", len(s.Collisions))
	}
	fmt.Fprintln(w)
	for _, f := range s.Failures {
		fmt.Fprintf(w, "  failed: %s: %s\n", f.Path, f.Reason)
	}
}

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
			sum, err := ingest.PutPage(c.Context, b, markdown.NormalizeSlug(c.Args().First()), data, ingest.Options{
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
		},
	}
}

func getCommand() *cli.Command {
	return &cli.Command{
		Name:      "get",
		Usage:     "print a page's markdown exactly as stored",
		ArgsUsage: "SLUG",
		Flags:     []cli.Flag{sourceFlag, &cli.BoolFlag{Name: "json", Usage: "print the page with its metadata as JSON"}},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("get: give exactly one slug")
			}
			b, err := openBrain(c)
			if err != nil {
				return err
			}
			defer b.Close()
			p, err := b.GetPage(c.Context, c.String("source"), markdown.NormalizeSlug(c.Args().First()))
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return json.NewEncoder(c.App.Writer).Encode(p)
			}
			_, err = io.WriteString(c.App.Writer, p.Body)
			return err
		},
	}
}

func listCommand() *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "list pages",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "source", Usage: "only this source"},
			&cli.StringFlag{Name: "type", Usage: "only pages of this type"},
			&cli.IntFlag{Name: "limit", Usage: "at most N pages (0: all)"},
			&cli.BoolFlag{Name: "json", Usage: "one JSON object per line"},
		},
		Action: func(c *cli.Context) error {
			if c.Int("limit") < 0 {
				return usageError("list: --limit must be 0 or more")
			}
			b, err := openBrain(c)
			if err != nil {
				return err
			}
			defer b.Close()
			f := brain.ListFilter{Source: c.String("source"), Type: c.String("type"), Limit: c.Int("limit")}
			if c.Bool("json") {
				enc := json.NewEncoder(c.App.Writer)
				return b.ListPages(c.Context, f, func(p brain.PageSummary) error { return enc.Encode(p) })
			}
			tw := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SOURCE\tSLUG\tTYPE\tTITLE")
			err = b.ListPages(c.Context, f, func(p brain.PageSummary) error {
				_, err := fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.SourceID, p.Slug, p.Type, p.Title)
				return err
			})
			if err != nil {
				return err
			}
			return tw.Flush()
		},
	}
}

func deleteCommand() *cli.Command {
	return &cli.Command{
		Name:      "delete",
		Usage:     "delete a page and its chunks",
		ArgsUsage: "SLUG",
		Flags:     []cli.Flag{sourceFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("delete: give exactly one slug")
			}
			b, err := openBrain(c)
			if err != nil {
				return err
			}
			defer b.Close()
			if err := b.DeletePage(c.Context, c.String("source"), markdown.NormalizeSlug(c.Args().First())); err != nil {
				return err
			}
			fmt.Fprintf(c.App.ErrWriter, "pgbrain: deleted %s\n", c.Args().First())
			return nil
		},
	}
}

func sourcesCommand() *cli.Command {
	return &cli.Command{
		Name:  "sources",
		Usage: "manage sources (separate namespaces of pages)",
		Subcommands: []*cli.Command{
			{
				Name:      "add",
				ArgsUsage: "ID [NAME]",
				Usage:     "add a source",
				Action: func(c *cli.Context) error {
					if c.NArg() < 1 || c.NArg() > 2 {
						return usageError("sources add: give ID and optionally NAME")
					}
					b, err := openBrain(c)
					if err != nil {
						return err
					}
					defer b.Close()
					return b.AddSource(c.Context, c.Args().Get(0), c.Args().Get(1))
				},
			},
			{
				Name:  "list",
				Usage: "list sources with their page counts",
				Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print JSON"}},
				Action: func(c *cli.Context) error {
					b, err := openBrain(c)
					if err != nil {
						return err
					}
					defer b.Close()
					srcs, err := b.Sources(c.Context)
					if err != nil {
						return err
					}
					if c.Bool("json") {
						return json.NewEncoder(c.App.Writer).Encode(srcs)
					}
					tw := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
					fmt.Fprintln(tw, "ID\tPAGES\tNAME")
					for _, s := range srcs {
						fmt.Fprintf(tw, "%s\t%d\t%s\n", s.ID, s.Pages, s.Name)
					}
					return tw.Flush()
				},
			},
			{
				Name:      "remove",
				ArgsUsage: "ID",
				Usage:     "remove a source (refused while it has pages, unless --with-pages)",
				Flags:     []cli.Flag{&cli.BoolFlag{Name: "with-pages", Usage: "also delete the source's pages"}},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usageError("sources remove: give exactly one ID")
					}
					b, err := openBrain(c)
					if err != nil {
						return err
					}
					defer b.Close()
					return b.RemoveSource(c.Context, c.Args().First(), c.Bool("with-pages"))
				},
			},
		},
	}
}

// restoreIndex rebuilds a vector index that a crashed command left
// suspended, before a command writes vectors (see client/ingest/index.go).
// A running import that owns the index is left to rebuild it itself.
func restoreIndex(c *cli.Context, b *brain.Brain) error {
	rebuilt, err := ingest.RestoreIndex(c.Context, b)
	if errors.Is(err, ingest.ErrIndexBusy) {
		return nil
	}
	if err != nil {
		return err
	}
	if rebuilt {
		fmt.Fprintln(c.App.ErrWriter, "pgbrain: rebuilt the vector index, which an interrupted command had left suspended")
	}
	return nil
}
