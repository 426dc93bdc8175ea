package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/classify"
	"github.com/pgbrain/pgbrain/internal/pii"
)

func piiCommand() *cli.Command {
	return &cli.Command{
		Name:  "pii",
		Usage: "show and override the PII categories of pages",
		Subcommands: []*cli.Command{
			{
				Name:      "show",
				Usage:     "print a page's PII categories, sensitivity and origin",
				ArgsUsage: "SLUG",
				Flags:     []cli.Flag{sourceFlag, &cli.BoolFlag{Name: "json", Usage: "print as JSON"}},
				Action: func(c *cli.Context) error {
					slug, err := oneSlug(c)
					if err != nil {
						return err
					}
					return withBrain(c, brain.RoleReader, func(ctx context.Context, b *brain.Brain) error {
						tag, err := classify.Show(ctx, b.Pool, c.String("source"), slug)
						if err != nil {
							return err
						}
						return printTag(c, tag)
					})
				},
			},
			{
				Name:      "set",
				Usage:     "set a page's PII categories by hand; imports and puts keep them",
				ArgsUsage: "SLUG",
				Flags: []cli.Flag{sourceFlag,
					&cli.StringFlag{Name: "categories", Usage: "comma-separated categories (empty: the page holds none): " + strings.Join(pii.Categories(), ", ")},
					&cli.BoolFlag{Name: "json", Usage: "print the result as JSON"}},
				Action: func(c *cli.Context) error {
					slug, err := oneSlug(c)
					if err != nil {
						return err
					}
					if !c.IsSet("categories") {
						return usageError("pii set: give --categories a,b (or --categories '' for none)")
					}
					cats, err := pii.ParseList(c.String("categories"))
					if err != nil {
						return usageError("pii set: --categories: %v", err)
					}
					return withBrain(c, brain.RoleWriter, func(ctx context.Context, b *brain.Brain) error {
						tag, err := classify.Set(ctx, b.Pool, c.String("source"), slug, cats)
						if err != nil {
							return err
						}
						return printTag(c, tag)
					})
				},
			},
			{
				Name:      "clear",
				Usage:     "drop a page's hand-set categories and classify its content again",
				ArgsUsage: "SLUG",
				Flags:     []cli.Flag{sourceFlag, &cli.BoolFlag{Name: "json", Usage: "print the result as JSON"}},
				Action: func(c *cli.Context) error {
					slug, err := oneSlug(c)
					if err != nil {
						return err
					}
					return withBrain(c, brain.RoleWriter, func(ctx context.Context, b *brain.Brain) error {
						tag, err := classify.Clear(ctx, b.Pool, pii.Classify, c.String("source"), slug)
						if err != nil {
							return err
						}
						return printTag(c, tag)
					})
				},
			},
			{
				Name:  "scan",
				Usage: "classify pages that have no PII categories yet (--all: every page; hand-set ones are kept)",
				Flags: []cli.Flag{&cli.BoolFlag{Name: "all", Usage: "classify every page again, not only unclassified ones"}},
				Action: func(c *cli.Context) error {
					if c.NArg() != 0 {
						return usageError("pii scan: takes no arguments")
					}
					return withBrain(c, brain.RoleWriter, func(ctx context.Context, b *brain.Brain) error {
						seen, changed, err := classify.All(ctx, b.Pool, pii.Classify, !c.Bool("all"))
						if err != nil {
							return err
						}
						fmt.Fprintf(c.App.ErrWriter, "pgbrain: classified %s, %s changed\n", count(seen, "page", "pages"), count(int(changed), "tag", "tags"))
						return nil
					})
				},
			},
		},
	}
}

// oneSlug returns the command's single SLUG argument. Flags written after
// it (pgbrain pii set SLUG --categories a,b), which the flag parser leaves
// among the arguments, are applied first.
func oneSlug(c *cli.Context) (string, error) {
	args := c.Args().Slice()
	if len(args) != 1 {
		return "", usageError("%s: give exactly one slug (pgbrain %s SLUG)", "pii "+c.Command.Name, "pii "+c.Command.Name)
	}
	return args[0], nil
}

func printTag(c *cli.Context, t classify.Tag) error {
	if c.Bool("json") {
		return json.NewEncoder(c.App.Writer).Encode(t)
	}
	cats := strings.Join(t.Categories, ",")
	if cats == "" {
		cats = "-"
	}
	origin := t.Origin
	switch {
	case origin == "":
		origin = "unclassified (run 'pgbrain pii scan')"
	case t.Stale:
		origin += ", stale: the page changed since (run 'pgbrain pii scan')"
	}
	fmt.Fprintf(c.App.Writer, "%s\tcategories=%s\tsensitivity=%s\torigin=%s\n", t.Slug, cats, t.Sensitivity, origin)
	return nil
}
