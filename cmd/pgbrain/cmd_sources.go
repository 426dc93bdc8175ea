package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pgbrain/pgbrain/internal/columns"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/urfave/cli/v2"
)

func sourcesCommand() *cli.Command {
	return &cli.Command{
		Name:  "sources",
		Usage: "manage sources (separate namespaces of pages)",
		Subcommands: []*cli.Command{
			{
				Name:      "add",
				ArgsUsage: "ID [NAME]",
				Usage:     "add a source (ID: a-z, 0-9, '_' and '-', at most 63, starting with a letter or digit; NAME: any text)",
				Action: func(c *cli.Context) error {
					if c.NArg() < 1 || c.NArg() > 2 {
						return usageError("sources add: give ID and optionally NAME")
					}
					return withBrain(c, brain.RoleWriter, func(ctx context.Context, b *brain.Brain) error {
						if err := b.AddSource(ctx, c.Args().Get(0), c.Args().Get(1)); err != nil {
							return err
						}
						fmt.Fprintf(c.App.ErrWriter, "pgbrain: added source %s\n", c.Args().Get(0))
						return nil
					})
				},
			},
			{
				Name:  "list",
				Usage: "list sources with their page counts",
				Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print JSON"}},
				Action: func(c *cli.Context) error {
					return withBrain(c, brain.RoleReader, func(ctx context.Context, b *brain.Brain) error {
						srcs, err := b.Sources(ctx)
						if err != nil {
							return err
						}
						if c.Bool("json") {
							return json.NewEncoder(c.App.Writer).Encode(srcs)
						}
						tw := columns.New(c.App.Writer, 2)
						fmt.Fprintln(tw, "ID\tPAGES\tNAME")
						for _, s := range srcs {
							fmt.Fprintf(tw, "%s\t%d\t%s\n", s.ID, s.Pages, s.Name)
						}
						return tw.Flush()
					})
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
					return withBrain(c, brain.RoleWriter, func(ctx context.Context, b *brain.Brain) error {
						n, err := b.RemoveSource(ctx, c.Args().First(), c.Bool("with-pages"), func() {
							fmt.Fprintf(c.App.ErrWriter, "pgbrain: waiting for a write into source %s (an import?) to finish first\n", c.Args().First())
						})
						if err != nil {
							return err
						}
						fmt.Fprintf(c.App.ErrWriter, "pgbrain: removed source %s and its %s\n", c.Args().First(), count(int(n), "page", "pages"))
						return nil
					})
				},
			},
		},
	}
}
