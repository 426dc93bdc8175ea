package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/pgbrain/pgbrain/internal/columns"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/markdown"
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
				listed := 0
				if c.Bool("json") {
					enc := json.NewEncoder(c.App.Writer)
					if err := b.ListPages(ctx, f, func(p brain.PageSummary) error { listed++; return enc.Encode(p) }); err != nil {
						return err
					}
				} else {
					tw := columns.New(c.App.Writer, 2)
					fmt.Fprintln(tw, "SOURCE\tSLUG\tTYPE\tTITLE")
					err := b.ListPages(ctx, f, func(p brain.PageSummary) error {
						listed++
						_, err := fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.SourceID, p.Slug, p.Type, p.Title)
						return err
					})
					if err != nil {
						return err
					}
					if err := tw.Flush(); err != nil {
						return err
					}
				}
				if listed == 0 && f.Type != "" {
					types, err := b.PageTypes(ctx, f.Source)
					if err != nil {
						return err
					}
					inUse := strings.Join(types, ", ")
					if inUse == "" {
						inUse = "none (no page)"
					}
					if typ := markdown.TypeOf(f.Type); typ == "" {
						fmt.Fprintf(c.App.ErrWriter, "pgbrain: note: the type %q holds no letter or digit, so no page has it; the types in use: %s\n", f.Type, inUse)
					} else {
						fmt.Fprintf(c.App.ErrWriter, "pgbrain: note: no page has the type %s; the types in use: %s\n", hideDerived(strconv.Quote(typ), f.Type, typ), inUse)
					}
				}
				return nil
			})
		},
	}
}
