package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/urfave/cli/v2"
	"golang.org/x/text/unicode/norm"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/embed"
	"github.com/pgbrain/pgbrain/internal/ingest"
)

func importCommand() *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "import a directory of markdown files",
		ArgsUsage: "DIR",
		Flags: []cli.Flag{
			sourceFlag,
			&cli.BoolFlag{Name: "no-embed", Usage: "skip embeddings now (fill later with 'pgbrain embed --stale')"},
			&cli.BoolFlag{Name: "prune", Usage: "delete pages of the source whose files are gone (never after an incomplete walk; at most half of the source unless --force)"},
			&cli.BoolFlag{Name: "force", Usage: "with --prune: prune even when that deletes more than half of the source's imported pages"},
			&cli.BoolFlag{Name: "nested", Usage: "import DIR even though it lies inside (or holds) a folder this source was imported from; its files then get second pages under new slugs"},
			&cli.IntFlag{Name: "writers", Usage: "connections writing batches at once", DefaultText: "one per core, at most 4"},
			noNiceFlag,
			&cli.BoolFlag{Name: "json", Usage: "print the summary as JSON"},
		},
		Action: func(c *cli.Context) error {
			if !oneArgument(c) {
				return usageError("import: give exactly one directory (pgbrain import DIR)")
			}
			if w := c.Int("writers"); w < 0 || w > maxImportWriters {
				return usageError("import: --writers %d is out of range; use 1 to %d (or leave it out for the default)", w, maxImportWriters)
			}
			if c.Bool("force") && !c.Bool("prune") {
				return usageError("import: --force only applies to --prune; add --prune or drop --force")
			}
			return withEmbedder(c, connectingRole, func(ctx context.Context, b *brain.Brain, emb embed.Embedder) error {
				sum, err := withProgress(c, "importing", func(update func(done, total int)) (ingest.Summary, error) {
					return ingest.ImportDir(ctx, b, c.Args().First(), ingest.Options{
						Source: c.String("source"), NoEmbed: c.Bool("no-embed"), Embedder: emb,
						Prune: c.Bool("prune"), Force: c.Bool("force"), Nested: c.Bool("nested"), Writers: c.Int("writers"), Progress: update,
						KeepPriority: c.Bool("no-nice"),
					})
				})
				var embErr *ingest.EmbedError
				if errors.As(err, &embErr) {
					// What was written before the failure, then the way on.
					printWarnings(c.App.ErrWriter, sum)
					return fmt.Errorf("%w\nthe embedder did not answer: %s of %d were stored before it (the rest keep what they held); check its settings (PGBRAIN_OPENAI_BASE_URL, OPENAI_API_KEY, PGBRAIN_EMBED_MODEL), or import with --no-embed and fill the vectors later with 'pgbrain embed --stale'", err, count(sum.Added+sum.Updated, "page", "pages"), sum.Files)
				}
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
					printSummary(c.App.Writer, c.App.ErrWriter, sum)
				}
				if sum.Failed > 0 || sum.PruneSkipped != "" {
					return cli.Exit("", 1)
				}
				return nil
			})
		},
	}
}

// noNiceFlag keeps a bulk command's server processes at their usual CPU
// priority; by default they run at nice 10 when the server is on this
// machine (internal/nice).
var noNiceFlag = &cli.BoolFlag{Name: "no-nice", Usage: "keep the server processes doing this work at their usual CPU priority (by default they run at nice 10 when the server is on this machine, so queries of other sessions go first)"}

// maxImportWriters bounds --writers: past a few writers they mostly wait on
// each other's term statistics, and each holds a connection.
const maxImportWriters = 16

// printWarnings names, on stderr, what an import did not do as asked: each
// skipped entry, each file stored under a suffixed slug, a prune not done.
func printWarnings(w io.Writer, s ingest.Summary) {
	for _, n := range s.Notes {
		fmt.Fprintf(w, "pgbrain: note: %s: %s\n", shownPath(n.Path), n.Reason)
	}
	for _, slug := range s.OverwrotePut {
		fmt.Fprintf(w, "pgbrain: note: %s was written by name (put) and is now its file's content; it is a file page again, which --prune deletes with its file\n", slug)
	}
	for _, k := range s.Skipped {
		fmt.Fprintf(w, "pgbrain: skipped %s: %s\n", shownPath(k.Path), k.Reason)
	}
	for _, c := range s.Collisions {
		var how string // how the two names print alike, if they do
		if c.KeptBy != "" {
			how = lookAlike(c.Path, c.KeptBy)
		}
		switch {
		case c.KeptBy == "":
			fmt.Fprintf(w, "pgbrain: %s is stored as %s, the slug an earlier import gave it when another file mapped to %s\n", shownPath(c.Path), c.Slug, c.PlainSlug)
		case how != "":
			// The two names print alike, so spell out their code points.
			fmt.Fprintf(w, "pgbrain: %+q is stored as %s: %+q, the same name %s, already maps to %s\n", c.Path, c.Slug, c.KeptBy, how, c.PlainSlug)
		default:
			fmt.Fprintf(w, "pgbrain: %s is stored as %s: %s already maps to %s\n", shownPath(c.Path), c.Slug, shownPath(c.KeptBy), c.PlainSlug)
		}
	}
	if s.PruneSkipped != "" {
		fmt.Fprintf(w, "pgbrain: not pruned: %s\n", s.PruneSkipped)
	}
	const shown = 20 // --json lists every one
	for i, slug := range s.PrunedSlugs {
		if i == shown {
			fmt.Fprintf(w, "pgbrain: pruned %d more (--json lists them all: pruned_slugs)\n", len(s.PrunedSlugs)-shown)
			break
		}
		fmt.Fprintf(w, "pgbrain: pruned %s\n", slug)
	}
}

// lookAlike says how two different names print alike: "in another Unicode
// normalization" (a name typed on macOS beside the same name typed
// elsewhere), "with other invisible characters" (a soft hyphen, a
// zero-width joiner, a bidi mark, which slugs drop), or "" when they do not.
func lookAlike(a, b string) string {
	a, b = norm.NFC.String(a), norm.NFC.String(b)
	switch {
	case a == b:
		return "in another Unicode normalization"
	case dropFormat(a) == dropFormat(b):
		return "with other invisible characters"
	}
	return ""
}

// dropFormat is s without format characters (Unicode category Cf), which
// print as nothing.
func dropFormat(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, s)
}

// printSummary writes the import's report to w and each file that failed,
// an error, to errw.
func printSummary(w, errw io.Writer, s ingest.Summary) {
	fmt.Fprintf(w, "imported %s in %.1fs: %d added, %d updated, %d unchanged, %d failed",
		count(s.Files, "file", "files"), s.Elapsed.Seconds(), s.Added, s.Updated, s.Unchanged, s.Failed)
	if s.Pruned > 0 {
		fmt.Fprintf(w, ", %d pruned", s.Pruned)
	}
	if len(s.Skipped) > 0 {
		fmt.Fprintf(w, ", %d skipped", len(s.Skipped))
	}
	if len(s.Collisions) > 0 {
		fmt.Fprintf(w, ", %d renamed for slug collisions", len(s.Collisions))
	}
	if s.IndexRebuild > 0 {
		fmt.Fprintf(w, " (the vector index rebuilt in %.1fs of it)", s.IndexRebuild.Seconds())
	}
	fmt.Fprintln(w)
	for _, f := range s.Failures {
		fmt.Fprintf(errw, "pgbrain: failed: %s: %s\n", shownPath(f.Path), f.Reason)
	}
	switch {
	case s.Files == 0 && s.NotMarkdown > 0:
		fmt.Fprintf(errw, "pgbrain: no .md file found: %s left out; pgbrain imports files whose names end in .md (rename them, or add one with 'pgbrain put SLUG < FILE')\n",
			count(s.NotMarkdown, "other file was", "other files were"))
	case s.Files == 0:
		fmt.Fprintln(errw, "pgbrain: no .md file found: the folder holds none (an empty or unmounted folder?)")
	}
	if s.Files == 0 && s.Pruned > 0 {
		fmt.Fprintf(errw, "pgbrain: note: the folder holds no .md file, so --prune --force deleted %s of the source\n", count(s.Pruned, "page", "pages"))
	}
}

// shownPath is a path as stderr shows it: quoted when it holds a control
// character or invalid UTF-8, so a file named "a\npgbrain: failed: b.md"
// cannot print a line of its own.
func shownPath(p string) string {
	if !utf8.ValidString(p) || strings.ContainsFunc(p, unicode.IsControl) {
		return strconv.Quote(p)
	}
	return p
}
