package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/pgbrain/pgbrain/internal/columns"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/tokens"
)

func tokenCommand() *cli.Command {
	jsonFlag := &cli.BoolFlag{Name: "json", Usage: "print as JSON"}
	oneName := func(c *cli.Context) (string, error) {
		if c.NArg() != 1 {
			return "", usageError("token %s: give one token NAME", c.Command.Name)
		}
		name := c.Args().First()
		if err := tokens.CheckName(name); err != nil {
			return "", usageError("token %s: %v", c.Command.Name, err)
		}
		return name, nil
	}
	return &cli.Command{
		Name:  "token",
		Usage: "create, list and revoke the bearer tokens of 'serve --http'",
		Subcommands: []*cli.Command{
			{
				Name:      "create",
				Usage:     "create a token and print its secret (shown once; only its sha256 is stored)",
				ArgsUsage: "NAME",
				Flags: []cli.Flag{jsonFlag,
					&cli.StringFlag{Name: "role", Usage: "database role the token's calls are to run as (recorded; not enforced yet, see docs/mcp.md)"}},
				Action: func(c *cli.Context) error {
					name, err := oneName(c)
					if err != nil {
						return err
					}
					return withBrain(c, connectingRole, func(ctx context.Context, b *brain.Brain) error {
						secret, err := tokens.Create(ctx, b.Pool, name, c.String("role"))
						if err != nil {
							return err
						}
						if c.Bool("json") {
							return json.NewEncoder(c.App.Writer).Encode(map[string]string{"name": name, "token": secret})
						}
						fmt.Fprintln(c.App.Writer, secret)
						fmt.Fprintf(c.App.ErrWriter, "pgbrain: token %q created; it is shown only now: give it to the client as 'Authorization: Bearer <token>'\n", name)
						return nil
					})
				},
			},
			{
				Name:  "list",
				Usage: "list tokens (names, roles, dates; never secrets)",
				Flags: []cli.Flag{jsonFlag},
				Action: func(c *cli.Context) error {
					if c.NArg() != 0 {
						return usageError("token list: takes no arguments")
					}
					return withBrain(c, connectingRole, func(ctx context.Context, b *brain.Brain) error {
						list, err := tokens.List(ctx, b.Pool)
						if err != nil {
							return err
						}
						if c.Bool("json") {
							if list == nil {
								list = []tokens.Token{}
							}
							return json.NewEncoder(c.App.Writer).Encode(list)
						}
						w := columns.New(c.App.Writer, 2)
						fmt.Fprintln(w, "NAME\tROLE\tCREATED\tREVOKED")
						for _, t := range list {
							revoked := "-"
							if t.RevokedAt != nil {
								revoked = t.RevokedAt.UTC().Format(time.RFC3339)
							}
							role := t.Role
							if role == "" {
								role = "-"
							}
							fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", t.Name, role, t.CreatedAt.UTC().Format(time.RFC3339), revoked)
						}
						return w.Flush()
					})
				},
			},
			{
				Name:      "revoke",
				Usage:     "revoke a token: requests bearing it get 401 from then on",
				ArgsUsage: "NAME",
				Action: func(c *cli.Context) error {
					name, err := oneName(c)
					if err != nil {
						return err
					}
					return withBrain(c, connectingRole, func(ctx context.Context, b *brain.Brain) error {
						if err := tokens.Revoke(ctx, b.Pool, name); err != nil {
							return err
						}
						fmt.Fprintf(c.App.ErrWriter, "pgbrain: token %q revoked\n", name)
						return nil
					})
				},
			},
		},
	}
}
