package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/export"
)

func evalPruneCommand() *cli.Command {
	return &cli.Command{
		Name:  "prune",
		Usage: "delete captured queries older than a duration (0d deletes all)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "older-than", Usage: "a duration: 90s, 15m, 24h, 7d, 2w; 0d removes everything"},
			&cli.BoolFlag{Name: "dry-run", Usage: "only count what would be removed"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError("eval prune: unexpected argument %q", c.Args().First())
			}
			if c.String("older-than") == "" {
				return usageError("eval prune: --older-than is required (e.g. --older-than 30d; 0d removes everything)")
			}
			d, err := export.ParseDuration(c.String("older-than"))
			if err != nil {
				return usageError("eval prune: --older-than: %v", err)
			}
			return withBrain(c, connectingRole, func(ctx context.Context, b *brain.Brain) error {
				n, err := export.Prune(ctx, b.Pool, d, c.Bool("dry-run"))
				if err != nil {
					return err
				}
				verb := "removed"
				if c.Bool("dry-run") {
					verb = "would remove"
				}
				fmt.Fprintf(c.App.Writer, "%s %d eval candidates older than %s\n", verb, n, c.String("older-than"))
				return nil
			})
		},
	}
}
