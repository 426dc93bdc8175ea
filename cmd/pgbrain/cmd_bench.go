package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/baseline"
	"github.com/pgbrain/pgbrain/internal/eval"
)

// benchCommand publishes baselines for the regression gate.
func benchCommand() *cli.Command {
	return &cli.Command{
		Name:  "bench",
		Usage: "publish baselines for 'pgbrain eval gate'",
		Subcommands: []*cli.Command{
			{
				Name:  "publish",
				Usage: "turn an 'eval export' file into a baseline file",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "from", Usage: "the export (NDJSON) to publish"},
					&cli.StringFlag{Name: "to", Usage: "the baseline file to write"},
					&cli.StringFlag{Name: "label", Usage: "a name for the baseline (default: the --to file name)"},
					&cli.BoolFlag{Name: "force", Usage: "replace an existing --to file"},
				},
				Action: benchPublish,
			},
		},
	}
}

func benchPublish(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("bench publish: unexpected argument %q", c.Args().First())
	}
	from, to := c.String("from"), c.String("to")
	if from == "" || to == "" {
		return usageError("bench publish: --from FILE and --to FILE are both required")
	}
	label := c.String("label")
	if label == "" {
		label = strings.TrimSuffix(filepath.Base(to), ".ndjson")
	}
	th := eval.DefaultThresholds()
	embedded := eval.Thresholds{Jaccard: th.Jaccard, Top1: th.Top1, Latency: th.Latency}
	meta, err := baseline.PublishFile(from, to, c.Bool("force"), baseline.Options{Label: label, Now: time.Now(), Thresholds: embedded})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.App.Writer, "published %d rows to %s (label %q, source %s)\n", meta.RowCount, to, meta.Label, meta.SourceHash)
	return err
}
