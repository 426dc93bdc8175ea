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
			// SOURCE:SLUG as search prints it, like get.
			source, typed, err := sourceAndSlug(c, c.Args().First())
			if err != nil {
				return err
			}
			slug := markdown.NormalizeSlug(typed)
			return hideTypedSlug(withBrain(c, brain.RoleWriter, func(ctx context.Context, b *brain.Brain) error {
				if err := b.DeletePage(ctx, source, slug); err != nil {
					return err
				}
				// The slug deleted, which is what list and search show.
				fmt.Fprintf(c.App.ErrWriter, "pgbrain: deleted %s\n", pageName(source, slug))
				return nil
			}), c.Args().First())
		},
	}
}
