package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pgbrain/pgbrain/internal/columns"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/brain"
)

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
			return withBrain(c, brain.RoleReader, func(ctx context.Context, b *brain.Brain) error {
				f := brain.ListFilter{Source: c.String("source"), Type: c.String("type"), Limit: c.Int("limit")}
				if f.Source != "" {
					if err := knownSources(ctx, b, []string{f.Source}); err != nil {
						return err
					}
				}
				if c.Bool("json") {
					enc := json.NewEncoder(c.App.Writer)
					return b.ListPages(ctx, f, func(p brain.PageSummary) error { return enc.Encode(p) })
				}
				tw := columns.New(c.App.Writer, 2)
				fmt.Fprintln(tw, "SOURCE\tSLUG\tTYPE\tTITLE")
				err := b.ListPages(ctx, f, func(p brain.PageSummary) error {
					_, err := fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.SourceID, p.Slug, p.Type, p.Title)
					return err
				})
				if err != nil {
					return err
				}
				return tw.Flush()
			})
		},
	}
}
