package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/evalconfig"
	"github.com/pgbrain/pgbrain/internal/export"
)

func evalExportCommand() *cli.Command {
	return &cli.Command{
		Name:  "export",
		Usage: "stream captured queries to stdout as NDJSON v1 (see docs/eval-export.md)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "since", Usage: "a duration (90s, 15m, 24h, 7d, 2w) or an RFC 3339 time, e.g. the previous run's window end (inclusive)"},
			&cli.StringFlag{Name: "until", Usage: "an RFC 3339 time (exclusive); default: the latest safe window end"},
			&cli.Int64Flag{Name: "limit", Usage: "at most N rows, newest first (0: all rows)"},
			&cli.StringFlag{Name: "tool", Usage: "only rows captured from query or search"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError("eval export: unexpected argument %q", c.Args().First())
			}
			opts := export.Options{Limit: c.Int64("limit"), Tool: c.String("tool")}
			if s := c.String("since"); s != "" {
				since, err := export.ParseSince(s)
				if err != nil {
					return usageError("eval export: %v", err)
				}
				opts.Since = since
			}
			if s := c.String("until"); s != "" {
				t, err := export.ParseTime(s)
				if err != nil {
					return usageError("eval export: --until: %v", err)
				}
				opts.Until = t
			}
			if opts.Tool != "" && opts.Tool != "query" && opts.Tool != "search" {
				return usageError("eval export: --tool %q: choose query or search", opts.Tool)
			}
			if opts.Limit < 0 {
				return usageError("eval export: --limit %d: give a positive number of rows", opts.Limit)
			}
			return withBrain(c, brain.RoleReader, func(ctx context.Context, b *brain.Brain) error {
				stderr := c.App.ErrWriter
				// Heartbeats come from a ticker, so they continue while the
				// window end waits for in-flight transactions, before any row.
				var written atomic.Int64
				opts.Progress = written.Store
				done := make(chan struct{})
				go func() {
					t := time.NewTicker(2 * time.Second)
					defer t.Stop()
					for {
						select {
						case <-done:
							return
						case <-t.C:
							fmt.Fprintf(stderr, "pgbrain: eval export: %d rows so far\n", written.Load())
						}
					}
				}()
				sum, err := export.Export(ctx, b.Pool, c.App.Writer, opts)
				close(done)
				if errors.Is(err, export.ErrWindow) {
					return usageError("eval export: %s", strings.TrimPrefix(err.Error(), export.ErrWindow.Error()+": "))
				}
				if err != nil {
					return err
				}
				fmt.Fprintf(stderr, "exported %s; window end %s\n", count(int(sum.Rows), "row", "rows"), sum.WindowEnd.UTC().Format(export.TimeLayout))
				if sum.Rows == 0 {
					captureOffHint(c)
				}
				if sum.Left > 0 {
					fmt.Fprintf(stderr, "pgbrain: eval export: --limit %d left %d older rows of this window unexported; a run chained from this window end would skip them: export again with a larger --limit\n",
						opts.Limit, sum.Left)
				}
				return nil
			})
		},
	}
}

// captureOffHint says, after an empty export, that this home captures no
// queries, when that is so: otherwise an empty export looks like a fault.
func captureOffHint(c *cli.Context) {
	home, err := homeDir(c)
	if err != nil {
		return
	}
	cfg, err := evalconfig.Load(home, os.Getenv)
	if err != nil || cfg.Capture {
		return
	}
	fmt.Fprintf(c.App.ErrWriter, "pgbrain: eval export: capture is off here (%s), so this home records no queries: turn it on with PGBRAIN_CONTRIBUTOR_MODE=1 or {\"eval\": {\"capture\": true}} in %s (README, \"Capturing real queries\")\n",
		settingSource(cfg.CaptureSource), filepath.Join(home, "config.json"))
}
