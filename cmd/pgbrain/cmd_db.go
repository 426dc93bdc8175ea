package main

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"
)

func dbCommand() *cli.Command {
	return &cli.Command{
		Name:  "db",
		Usage: "manage the embedded PostgreSQL cluster",
		Subcommands: []*cli.Command{
			{
				Name:  "start",
				Usage: "create (on first use) and start the embedded cluster",
				Action: func(c *cli.Context) error {
					cl, err := embeddedCluster(c)
					if err != nil {
						return err
					}
					if err := cl.Start(c.Context); err != nil {
						return err
					}
					fmt.Fprintf(c.App.ErrWriter, "pgbrain: embedded PostgreSQL running (%s)\n", cl.Dir())
					return nil
				},
			},
			{
				Name:  "stop",
				Usage: "stop the embedded cluster",
				Action: func(c *cli.Context) error {
					cl, err := embeddedCluster(c)
					if err != nil {
						return err
					}
					was, err := cl.StopRunning(c.Context)
					if err != nil {
						return err
					}
					if !was {
						fmt.Fprintf(c.App.ErrWriter, "pgbrain: embedded PostgreSQL was not running (%s)\n", cl.Dir())
						return nil
					}
					fmt.Fprintf(c.App.ErrWriter, "pgbrain: embedded PostgreSQL stopped (%s)\n", cl.Dir())
					return nil
				},
			},
			{
				Name:  "status",
				Usage: "show whether the embedded cluster exists and runs",
				Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print JSON"}},
				Action: func(c *cli.Context) error {
					cl, err := embeddedCluster(c)
					if err != nil {
						return err
					}
					st := cl.Status(c.Context)
					if c.Bool("json") {
						return json.NewEncoder(c.App.Writer).Encode(st)
					}
					state := "stopped"
					switch {
					case !st.Initialized:
						state = "not created yet (created on first use)"
					case st.Running:
						state = fmt.Sprintf("running (pid %d)", st.PID)
					}
					w := c.App.Writer
					fmt.Fprintf(w, "state:    %s\ndir:      %s\nurl:      %s\nlog:      %s\nbinaries: %s\n", state, st.Dir, st.URL, st.LogFile, st.BinDir)
					if st.Owner != "" {
						fmt.Fprintf(w, "owner:    %s (the server runs as this user because pgbrain runs as root)\n", st.Owner)
					}
					return nil
				},
			},
			{
				Name:  "url",
				Usage: "print the embedded cluster's connection URL (starting it if needed)",
				Action: func(c *cli.Context) error {
					cl, err := embeddedCluster(c)
					if err != nil {
						return err
					}
					u, err := cl.Ensure(c.Context)
					if err != nil {
						return err
					}
					fmt.Fprintln(c.App.Writer, u)
					return nil
				},
			},
		},
	}
}
