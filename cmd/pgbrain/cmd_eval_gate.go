package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/baseline"
	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/eval"
	"github.com/pgbrain/pgbrain/internal/replay"
	"github.com/pgbrain/pgbrain/internal/search"
)

// thresholdFlags maps each --threshold-NAME flag to its threshold name.
var thresholdFlags = map[string]string{
	"threshold-jaccard":        "jaccard",
	"threshold-top1":           "top1",
	"threshold-latency":        "latency",
	"threshold-recall":         "recall",
	"threshold-first-relevant": "first_relevant",
	"threshold-expected-top1":  "expected_top1",
}

func evalGateCommand() *cli.Command {
	d := eval.DefaultThresholds()
	return &cli.Command{
		Name:  "gate",
		Usage: "fail when retrieval regressed against a baseline or misses known-right answers (qrels)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "baseline", Usage: "regression gate: replay this 'bench publish' file"},
			&cli.StringFlag{Name: "qrels", Usage: "correctness gate: score this qrels file with bare hybrid search"},
			&cli.BoolFlag{Name: "json", Usage: "print the verdict as JSON"},
			&cli.IntFlag{Name: "k", Value: 10, Usage: "retrieval depth for recall@k"},
			&cli.StringFlag{Name: "junit", Usage: "also write a JUnit XML report to this file"},
			&cli.Float64Flag{Name: "threshold-jaccard", Usage: fmt.Sprintf("minimum mean Jaccard (default %.2f)", *d.Jaccard)},
			&cli.Float64Flag{Name: "threshold-top1", Usage: fmt.Sprintf("minimum top-1 stability (default %.2f)", *d.Top1)},
			&cli.Float64Flag{Name: "threshold-latency", Usage: fmt.Sprintf("maximum mean latency multiplier vs captured (default %.1f)", *d.Latency)},
			&cli.Float64Flag{Name: "threshold-recall", Usage: fmt.Sprintf("minimum recall@k (default %.2f)", *d.Recall)},
			&cli.Float64Flag{Name: "threshold-first-relevant", Usage: fmt.Sprintf("minimum first-relevant-hit rate (default %.2f)", *d.FirstRelevant)},
			&cli.Float64Flag{Name: "threshold-expected-top1", Usage: fmt.Sprintf("minimum expected-top1 hit rate (default %.2f)", *d.ExpectedTop1)},
		},
		Action: evalGate,
	}
}

func evalGate(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("eval gate: unexpected argument %q", c.Args().First())
	}
	basePath, qrelsPath := c.String("baseline"), c.String("qrels")
	if basePath == "" && qrelsPath == "" {
		return usageError("eval gate: give --baseline FILE (regression gate), --qrels FILE (correctness gate), or both")
	}
	k := c.Int("k")
	if k < 1 || k > search.MaxLimit {
		return usageError("eval gate: -k %d is out of range; use 1 to %d", k, search.MaxLimit)
	}
	var cliTh eval.Thresholds
	for flag, name := range thresholdFlags {
		if c.IsSet(flag) {
			v := c.Float64(flag)
			*cliTh.Field(name) = &v
		}
	}
	if err := cliTh.Check(); err != nil {
		return usageError("eval gate: %v", err)
	}
	var base *baseline.File
	var baseTh eval.Thresholds
	if basePath != "" {
		f, err := baseline.ReadFile(basePath)
		if err != nil {
			return err
		}
		if f.Meta == nil {
			return fmt.Errorf("%s:1: not a baseline (no baseline_metadata line): publish it first with 'pgbrain bench publish --from %s --to FILE'", basePath, basePath)
		}
		if th := bytes.TrimSpace(f.Meta.Thresholds); len(th) > 0 && !bytes.Equal(th, []byte("null")) {
			dec := json.NewDecoder(bytes.NewReader(th))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&baseTh); err != nil {
				return fmt.Errorf("%s:1: \"thresholds\": %v (known names: %s)", basePath, err, strings.Join(eval.ThresholdNames, ", "))
			}
			if err := baseTh.Check(); err != nil {
				return fmt.Errorf("%s:1: \"thresholds\": %w", basePath, err)
			}
		}
		base = f
	}
	var qrels *eval.Qrels
	if qrelsPath != "" {
		q, err := eval.ReadQrelsFile(qrelsPath)
		if err != nil {
			return err
		}
		qrels = q
	}
	th := eval.Merge(cliTh, baseTh).Resolve()

	return withBrain(c, brain.RoleReader, func(ctx context.Context, b *brain.Brain) error {
		s, err := searcherFor(b)
		if err != nil {
			return err
		}
		asJSON := c.Bool("json")
		var reg *eval.RegressionGate
		if base != nil {
			meter, err := replayExpansion(c, b, &s, base.Rows, "eval gate")
			if err != nil {
				return err
			}
			if err := noteForeignBaseline(ctx, c.App.ErrWriter, b, basePath, base.Rows); err != nil {
				return err
			}
			rep, err := replay.Run(ctx, s, base.Rows, replay.Options{Progress: progressLine(c, !asJSON)})
			if err != nil {
				return err
			}
			reportUsage(c.App.ErrWriter, meter)
			g := eval.EvaluateRegression(eval.RegressionInput{
				Baseline: basePath, RowsTotal: rep.Summary.RowsTotal, RowsReplayed: rep.Summary.RowsReplayed,
				RowsErrored: rep.Summary.RowsErrored, MeanJaccard: rep.Summary.MeanJaccard, Top1Rate: rep.Summary.Top1StabilityRate,
				CapturedMeanLatencyMS: rep.CapturedMeanLatencyMS, CurrentMeanLatencyMS: rep.CurrentMeanLatencyMS,
			}, th)
			reg = &g
		}
		var cor *eval.CorrectnessGate
		if qrels != nil {
			if err := noteMissingJudged(ctx, c.App.ErrWriter, b, qrels); err != nil {
				return err
			}
			rep, err := eval.Run(ctx, dbSearcher{s}, qrels, k, progressLine(c, !asJSON))
			if err != nil {
				return err
			}
			g := eval.EvaluateCorrectness(rep, th)
			cor = &g
		}
		v := eval.Decide(reg, cor)
		// The verdict first: a JUnit file that cannot be written (a full
		// disk) must not take the report with it.
		if asJSON {
			if err := writeJSON(c.App.Writer, v); err != nil {
				return err
			}
		} else if err := printGate(c.App.Writer, v); err != nil {
			return err
		}
		if path := c.String("junit"); path != "" {
			var buf bytes.Buffer
			if err := eval.WriteJUnit(&buf, v); err != nil {
				return err
			}
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				return fmt.Errorf("writing the JUnit report: %w", err)
			}
		}
		if !v.Passed() {
			return cli.Exit("", 1)
		}
		return nil
	})
}

func printGate(w io.Writer, v eval.Verdict) error {
	var b bytes.Buffer
	mark := func(pass bool) string {
		if pass {
			return "PASS"
		}
		return "FAIL"
	}
	if g := v.Regression; g != nil {
		fmt.Fprintf(&b, "Regression gate (%s): %s\n", g.Baseline, mark(g.Pass))
		fmt.Fprintf(&b, "  replayed %d of %d rows (%d errored)\n", g.RowsReplayed, g.RowsTotal, g.RowsErrored)
		fmt.Fprintf(&b, "  mean Jaccard        %.3f  (floor %.3f)\n", g.MeanJaccard, g.Thresholds.Jaccard)
		fmt.Fprintf(&b, "  top-1 stability     %.3f  (floor %.3f)\n", g.Top1StabilityRate, g.Thresholds.Top1)
		if g.LatencyMultiplier != nil {
			fmt.Fprintf(&b, "  latency multiplier  %.2f×  (ceiling %.2f×)\n", *g.LatencyMultiplier, g.Thresholds.Latency)
		} else {
			fmt.Fprintln(&b, "  latency multiplier  not checked (the baseline captured no latency)")
		}
		for _, x := range g.Breaches {
			fmt.Fprintf(&b, "  breach: %s\n", x.Message)
		}
	}
	if g := v.Correctness; g != nil {
		fmt.Fprintf(&b, "Correctness gate (%s, %d queries, k=%d): %s\n", g.Qrels, g.Queries, g.K, mark(g.Pass))
		fmt.Fprintf(&b, "  recall@%d            %.3f  (floor %.3f)\n", g.K, g.RecallAtK, g.Thresholds.Recall)
		fmt.Fprintf(&b, "  first-relevant hit  %.3f  (floor %.3f)\n", g.FirstRelevantHitRate, g.Thresholds.FirstRelevant)
		if g.ExpectedTop1HitRate != nil {
			fmt.Fprintf(&b, "  expected-top1 hit   %.3f  (floor %.3f)\n", *g.ExpectedTop1HitRate, g.Thresholds.ExpectedTop1)
		} else {
			fmt.Fprintln(&b, "  expected-top1 hit   not checked (no entry names an expected top result)")
		}
		fmt.Fprintf(&b, "  (P@%d %.3f, MRR %.3f, nDCG@%d %.3f)\n", g.K, g.PrecisionAtK, g.MRR, g.K, g.NDCGAtK)
		for _, x := range g.Breaches {
			fmt.Fprintf(&b, "  breach: %s\n", x.Message)
		}
	}
	fmt.Fprintf(&b, "Verdict: %s\n", strings.ToUpper(v.Verdict))
	_, err := w.Write(b.Bytes())
	return err
}
