package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/budget"
	"github.com/pgbrain/pgbrain/internal/crossmodal"
	"github.com/pgbrain/pgbrain/internal/openai"
	"github.com/pgbrain/pgbrain/internal/progress"
)

func evalCrossModalCommand() *cli.Command {
	return &cli.Command{
		Name:  "cross-modal",
		Usage: "score outputs with up to 3 independent chat models; exit 0 pass, 1 fail, 2 error or inconclusive",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "task", Usage: "the task (question) to score one output against; @FILE reads it from a file"},
			&cli.StringFlag{Name: "output", Usage: "the output (answer) to score, with --task; @FILE reads it from a file"},
			&cli.StringFlag{Name: "batch", Usage: "score every question of a LongMemEval output file ('pgbrain eval longmemeval --output'); summary lines are skipped"},
			&cli.IntFlag{Name: "limit", Usage: "with --batch: score at most the first N questions"},
			&cli.StringSliceFlag{Name: "slot", Usage: "a scoring model as MODEL@BASE_URL (up to 3; default: PGBRAIN_CROSSMODAL_N_BASE_URL/_MODEL, else PGBRAIN_CHAT_*)"},
			&cli.IntFlag{Name: "cycles", Usage: "times each model scores each output (default 3 for --task, 1 for --batch)"},
			&cli.IntFlag{Name: "concurrent", Value: 3, Usage: "outputs scored at once (each asks every slot)"},
			&cli.Float64Flag{Name: "max-usd", Value: 5, Usage: "refuse to start when the estimated cost exceeds this many US dollars (0: no cap)"},
			&cli.BoolFlag{Name: "yes", Usage: "start even when the estimate exceeds --max-usd or a model has no price"},
			&cli.BoolFlag{Name: "json", Usage: "print the summary as JSON"},
		},
		Action: evalCrossModal,
	}
}

func evalCrossModal(c *cli.Context) error {
	const name = "eval cross-modal"
	if c.NArg() > 0 {
		return usageError("%s: unexpected argument %q", name, c.Args().First())
	}
	batch, task, output := c.String("batch"), c.String("task"), c.String("output")
	switch {
	case batch != "" && (c.IsSet("task") || c.IsSet("output")):
		return usageError("%s: --batch and --task/--output are mutually exclusive: score one task, or a whole LongMemEval output", name)
	case batch == "" && (task == "" || !c.IsSet("output")):
		return usageError("%s: give --task TEXT --output TEXT (one output), or --batch run.jsonl", name)
	case c.IsSet("limit") && batch == "":
		return usageError("%s: --limit applies to --batch only", name)
	case c.Int("limit") < 0:
		return usageError("%s: --limit must not be negative", name)
	case c.Float64("max-usd") < 0:
		return usageError("%s: --max-usd must not be negative", name)
	}
	cycles := c.Int("cycles")
	if !c.IsSet("cycles") {
		cycles = 3
		if batch != "" {
			cycles = 1
		}
	}
	if cycles < 1 || cycles > 10 {
		return usageError("%s: --cycles %d is out of range; use 1 to 10", name, cycles)
	}
	if n := c.Int("concurrent"); n < 1 || n > 32 {
		return usageError("%s: --concurrent %d is out of range; use 1 to 32", name, n)
	}
	var items []crossmodal.Item
	if batch != "" {
		var err error
		if items, err = crossmodal.ReadBatch(batch); err != nil {
			return err
		}
		if l := c.Int("limit"); l > 0 && l < len(items) {
			items = items[:l]
		}
		if len(items) == 0 {
			return cli.Exit(fmt.Sprintf("%s: %s holds no question rows to score", name, batch), 2)
		}
	} else {
		t, err := readArg("task", task)
		if err != nil {
			return err
		}
		o, err := readArg("output", output)
		if err != nil {
			return err
		}
		items = []crossmodal.Item{{ID: "task", Task: t, Output: o}}
	}
	prices, err := loadPrices(c)
	if err != nil {
		return err
	}
	meter := budget.NewMeter(prices)
	slots, err := crossModalSlots(c.StringSlice("slot"), meter)
	if err != nil {
		return usageError("%s: %v", name, err)
	}
	est := crossmodal.Estimate(items, slots, cycles)
	usd, err := crossmodal.Preflight(prices, est, c.Float64("max-usd"))
	switch {
	case err != nil && !c.Bool("yes"):
		return cli.Exit(fmt.Sprintf("%s: refusing to start: %v; pass --yes to start anyway", name, err), 2)
	case err != nil:
		fmt.Fprintf(c.App.ErrWriter, "pgbrain: %s: %v; starting anyway (--yes)\n", name, err)
	default:
		fmt.Fprintf(c.App.ErrWriter, "pgbrain: %s: %d output(s) × %d slot(s) × %d cycle(s), estimated $%.4f\n", name, len(items), len(slots), cycles, usd)
	}
	receipts, err := os.MkdirTemp("", "pgbrain-crossmodal-")
	if err != nil {
		return fmt.Errorf("%s: creating the receipts folder: %w", name, err)
	}
	defer os.RemoveAll(receipts)
	asJSON := c.Bool("json")
	var prog func(int, int)
	if !asJSON && progress.IsTerminal(c.App.ErrWriter) {
		prog = func(done, total int) { fmt.Fprintf(c.App.ErrWriter, "...%d/%d\n", done, total) }
	}
	rep, err := crossmodal.Run(c.Context, items, slots, crossmodal.Options{Cycles: cycles, Concurrent: c.Int("concurrent"), ReceiptDir: receipts, Progress: prog})
	meter.Report(c.App.ErrWriter)
	if err != nil {
		return cli.Exit(fmt.Sprintf("%s: %v", name, err), 2)
	}
	if asJSON {
		err = writeJSON(c.App.Writer, struct {
			*crossmodal.Report
			EstimatedUSD float64        `json:"estimated_usd"`
			Usage        budget.Summary `json:"usage"`
		}{rep, usd, meter.Summary()})
	} else {
		err = printCrossModal(c.App.Writer, rep)
	}
	if err != nil {
		return err
	}
	if code := crossmodal.ExitCode(rep.Verdict); code != 0 {
		return cli.Exit("", code)
	}
	return nil
}

// crossModalSlots builds the metered scoring models.
func crossModalSlots(flags []string, meter *budget.Meter) ([]crossmodal.Slot, error) {
	cfgs, err := crossmodal.Slots(flags, os.Getenv)
	if err != nil {
		return nil, err
	}
	slots := make([]crossmodal.Slot, 0, len(cfgs))
	for _, sc := range cfgs {
		sc.MaxTokens = crossmodal.MaxReplyTokens
		chat, err := openai.NewChat(sc.ChatConfig)
		if err != nil {
			return nil, fmt.Errorf("slot %s: %w", sc.Name, err)
		}
		slots = append(slots, crossmodal.Slot{Name: sc.Name, Model: meter.Wrap(chat)})
	}
	return slots, nil
}

func printCrossModal(w io.Writer, r *crossmodal.Report) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Scored %d output(s) with %s, %d cycle(s)\n", r.Items, strings.Join(r.Slots, ", "), r.Cycles)
	for _, it := range r.Results {
		var js []string
		for _, j := range it.Judgements {
			js = append(js, fmt.Sprintf("%s#%d %s", j.Slot, j.Cycle, j.Verdict))
		}
		fmt.Fprintf(&b, "  %-12s %-13s %s\n", it.ID, it.Verdict, strings.Join(js, ", "))
		if it.Verdict != crossmodal.Pass {
			for _, j := range it.Judgements {
				if j.Verdict != crossmodal.Pass && j.Reason != "" {
					fmt.Fprintf(&b, "      slot %s (%s): %s\n", j.Slot, j.Model, clip(j.Reason, 300))
					break
				}
			}
		}
	}
	fmt.Fprintf(&b, "PASS %d, FAIL %d, INCONCLUSIVE %d, ERROR %d\nVerdict: %s\n", r.Counts.Pass, r.Counts.Fail, r.Counts.Inconclusive, r.Counts.Error, r.Verdict)
	_, err := w.Write(b.Bytes())
	return err
}
