package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/audit"
	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/capture"
	"github.com/pgbrain/pgbrain/internal/doctor"
	"github.com/pgbrain/pgbrain/internal/embed/refresh"
	"github.com/pgbrain/pgbrain/internal/evalconfig"
)

func doctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "check the brain: schema, embedder, embeddings, eval capture and its failures, PII counts",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			&cli.BoolFlag{Name: "strict", Usage: "exit with status 1 when the report holds a warning (for cron and CI checks)"},
			&cli.BoolFlag{Name: "fix", Usage: "first complete what interrupted commands left: rebuild a missing or invalid vector index, finish an interrupted 'embed --all', fill stale embeddings"},
		},
		Action: func(c *cli.Context) error {
			home, err := homeDir(c)
			if err != nil {
				return err
			}
			cfg, cfgErr := evalconfig.Load(home, os.Getenv)
			return withBrain(c, connectingRole, func(ctx context.Context, b *brain.Brain) error {
				var fixed []string
				if c.Bool("fix") {
					emb, err := clientEmbedder(b)
					if err != nil {
						return err
					}
					fixed, err = withProgress(c, "embedding", func(update func(done, total int)) ([]string, error) {
						return doctor.Fix(ctx, b, refresh.Options{Embedder: emb, Progress: update})
					})
					if err != nil {
						return fmt.Errorf("doctor --fix: %w", err)
					}
				}
				r, err := doctor.Run(ctx, b, cfg, cfgErr, capture.NewSpool(home), audit.NewSpool(home))
				if err != nil {
					return err
				}
				r.Fixed = fixed
				if c.Bool("json") {
					if err := json.NewEncoder(c.App.Writer).Encode(r); err != nil {
						return err
					}
				} else {
					printDoctor(c.App.Writer, r)
					for _, w := range r.Warnings {
						fmt.Fprintln(c.App.ErrWriter, "pgbrain: warning:", w)
					}
				}
				if c.Bool("strict") && len(r.Warnings) > 0 {
					return cli.Exit("", 1)
				}
				return nil
			})
		},
	}
}

func printDoctor(w io.Writer, r *doctor.Report) {
	for _, f := range r.Fixed {
		fmt.Fprintf(w, "fixed            %s\n", f)
	}
	fmt.Fprintf(w, "schema           %d (this pgbrain: %d)\n", r.DatabaseSchema, r.LatestSchema)
	fmt.Fprintf(w, "embedder         %s, model %s, dimension %d\n", r.Embedder, r.EmbedModel, r.Dim)
	fmt.Fprintf(w, "pages            %d\n", r.Pages)
	fmt.Fprintf(w, "chunks           %d (%d without embedding)\n", r.Chunks, r.StaleEmbeddings)
	busy := ""
	if r.VectorIndexBusy {
		busy = " (a running command owns it)"
	}
	fmt.Fprintf(w, "vector index     %s%s\n", r.VectorIndex, busy)
	if e := r.EmbedRun; e != nil {
		state := "interrupted"
		if e.Running {
			state = "running"
		}
		fmt.Fprintf(w, "embed --all      %s: %d of %d pages done (%s)\n", state, e.PagesDone, e.Pages, count(int(e.ChunksDone), "chunk", "chunks"))
	}
	state := "off"
	if r.Capture.Capture {
		state = "on"
	}
	fmt.Fprintf(w, "eval capture     %s (%s); scrub_pii %v (%s)\n", state, settingSource(r.Capture.CaptureSource), r.Capture.ScrubPII, settingSource(r.Capture.ScrubSource))
	fmt.Fprintf(w, "capture failures last 24h:")
	for _, reason := range capture.Reasons {
		fmt.Fprintf(w, " %s %d", reason, r.CaptureFailures24h[reason])
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "spooled failures %d (%s)\n", r.SpooledFailures, r.SpoolPath)
	if r.PIICategories == nil {
		fmt.Fprintln(w, "pii              not classified (brain.page_pii not installed)")
	} else {
		fmt.Fprintf(w, "pii pages        ")
		if len(r.PIICategories) == 0 {
			fmt.Fprint(w, "none")
		}
		for i, k := range doctor.SortedKeys(r.PIICategories) {
			if i > 0 {
				fmt.Fprint(w, ", ")
			}
			fmt.Fprintf(w, "%s %d", k, r.PIICategories[k])
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "pii pending      %d unclassified, %d stale (hidden from agents until 'pgbrain pii scan')\n", r.Unclassified, r.StaleClassified)
	}
	if l := r.Contradictions; l == nil {
		fmt.Fprintln(w, "contradictions   no probe run yet ('pgbrain eval suspected-contradictions')")
	} else {
		fmt.Fprintf(w, "contradictions   %.1f%% of %d queries surfaced one (95%% CI %.1f–%.1f%%), run %d at %s, %d high-severity open\n",
			100*l.Headline.Rate, l.Queries, 100*l.Headline.Low, 100*l.Headline.High, l.RunID, l.StartedAt.UTC().Format(time.RFC3339), len(l.High))
		for _, h := range l.High {
			fmt.Fprintf(w, "  high: %s vs %s: %s\n", h.SlugA, h.SlugB, h.Explanation)
			fmt.Fprintf(w, "    open:    %s\n", h.Open)
			fmt.Fprintf(w, "    dismiss: %s\n", h.Dismiss)
		}
	}
	if n := r.Nightly; n != nil {
		fmt.Fprintf(w, "nightly probe    %s: %s\n", n.State, n.Message)
	}
	if r.Roles != "" {
		fmt.Fprintf(w, "roles            %s\n", r.Roles)
	}
	fmt.Fprintf(w, "pending chunks   %d pages ('pgbrain embed --stale')\n", r.PendingChunks)
	if len(r.Warnings) == 0 {
		fmt.Fprintln(w, "ok")
	} else {
		fmt.Fprintf(w, "%d warning(s)\n", len(r.Warnings))
	}
}

// settingSource is where a setting came from, for the text report: the
// JSON's "default (off)" would read "off (default (off))" after the value.
func settingSource(s string) string {
	if strings.HasPrefix(s, "default (") {
		return "default"
	}
	return s
}
