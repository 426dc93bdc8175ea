package main

import (
	"context"
	"encoding/json"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/markdown"
)

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
			return withBrain(c, brain.RoleReader, func(ctx context.Context, b *brain.Brain) error {
				p, err := b.GetPage(ctx, c.String("source"), markdown.NormalizeSlug(c.Args().First()))
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return json.NewEncoder(c.App.Writer).Encode(p)
				}
				_, err = io.WriteString(c.App.Writer, p.Body)
				return err
			})
		},
	}
}
