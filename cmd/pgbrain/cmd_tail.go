package main

import (
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/events"
	"github.com/pgbrain/pgbrain/internal/tail"
)

func tailCommand() *cli.Command {
	return &cli.Command{
		Name:  "tail",
		Usage: "show the events of 'pgbrain serve' as they happen",
		Description: "Prints the events file since --since, then follows it (across rotations)\n" +
			"until interrupted. --no-follow stops at the end. See docs/events.md.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "since", Usage: "start this far back (90s, 5m, 24h, 7d) or at an RFC 3339 time; default: the whole file"},
			&cli.BoolFlag{Name: "follow", Value: true, Usage: "keep printing new events (the default)"},
			&cli.BoolFlag{Name: "no-follow", Usage: "stop at the end of the file"},
			&cli.BoolFlag{Name: "json", Usage: "print the raw JSON lines"},
			eventsPathFlag,
		},
		Action: runTail,
	}
}

func runTail(c *cli.Context) error {
	if c.NArg() != 0 {
		return usageError("tail: takes no arguments")
	}
	if c.IsSet("follow") && c.Bool("follow") && c.Bool("no-follow") {
		return usageError("tail: --follow and --no-follow contradict each other; drop one")
	}
	var since time.Time
	if c.IsSet("since") {
		t, err := tail.ParseSince(c.String("since"), time.Now())
		if err != nil {
			return usageError("tail: --since: %v", err)
		}
		since = t
	}
	path := c.String("events-path")
	if path == "" {
		if path = os.Getenv(events.EnvPath); path == "" {
			home, err := homeDir(c)
			if err != nil {
				return err
			}
			path = events.DefaultPath(home)
		}
	}
	out := c.App.Writer
	color := false
	if f, ok := out.(*os.File); ok {
		color = tail.ColorEnabled(f, os.Getenv)
	}
	asJSON := c.Bool("json")
	follow := c.Bool("follow") && !c.Bool("no-follow")
	if follow && !exists(path) && !exists(events.RotatedPath(path)) {
		// Following waits for the file; say so rather than sit silent.
		fmt.Fprintf(c.App.ErrWriter, "pgbrain: note: no events file at %s yet; waiting for it (pgbrain serve writes it when events are on, see docs/events.md; --events-path names another; Ctrl-C stops)\n", path)
	}
	t := tail.New(tail.Options{Path: path, Since: since, Follow: follow})
	err := t.Run(c.Context, func(line []byte, ev events.Event) error {
		var err error
		if asJSON {
			_, err = fmt.Fprintf(out, "%s\n", line)
		} else {
			_, err = fmt.Fprintln(out, tail.Format(ev, color))
		}
		return err
	})
	if n := t.Malformed(); n > 0 {
		fmt.Fprintf(c.App.ErrWriter, "pgbrain: tail: skipped %d malformed line(s) in %s\n", n, path)
	}
	return err
}

// exists reports whether something is at path.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
