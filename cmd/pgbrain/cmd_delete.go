package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/markdown"
)

func deleteCommand() *cli.Command {
	return &cli.Command{
		Name:      "delete",
		Usage:     "delete a page and its chunks",
		ArgsUsage: "SLUG",
		Flags:     []cli.Flag{sourceFlag},
		Action: func(c *cli.Context) error {
			if !oneArgument(c) {
				return usageError("delete: give exactly one slug")
			}
			return withBrain(c, brain.RoleWriter, func(ctx context.Context, b *brain.Brain) error {
				if err := b.DeletePage(ctx, c.String("source"), markdown.NormalizeSlug(c.Args().First())); err != nil {
					return err
				}
				fmt.Fprintf(c.App.ErrWriter, "pgbrain: deleted %s\n", c.Args().First())
				return nil
			})
		},
	}
}
