package main

import (
	"encoding/json"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/client/markdown"
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
			b, err := openBrain(c, connectingRole)
			if err != nil {
				return err
			}
			defer b.Close()
			p, err := b.GetPage(c.Context, c.String("source"), markdown.NormalizeSlug(c.Args().First()))
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return json.NewEncoder(c.App.Writer).Encode(p)
			}
			_, err = io.WriteString(c.App.Writer, p.Body)
			return err
		},
	}
}
