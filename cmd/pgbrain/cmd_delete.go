package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/client/markdown"
)

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
			b, err := openBrain(c, connectingRole)
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
