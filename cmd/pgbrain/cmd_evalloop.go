package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/client/atomicfile"
	"github.com/pgbrain/pgbrain/client/baseline"
	"github.com/pgbrain/pgbrain/client/brain"
	"github.com/pgbrain/pgbrain/client/budget"
	"github.com/pgbrain/pgbrain/client/eval"
	"github.com/pgbrain/pgbrain/client/expand"
	"github.com/pgbrain/pgbrain/client/longmemeval"
	"github.com/pgbrain/pgbrain/client/openai"
	"github.com/pgbrain/pgbrain/client/progress"
	"github.com/pgbrain/pgbrain/client/replay"
	"github.com/pgbrain/pgbrain/client/search"
)

// evalLoopSubcommands are the retrieval-quality dev loop under `pgbrain eval`
// (see docs/eval-loop.md).
func evalLoopSubcommands() []*cli.Command {
	return []*cli.Command{
		evalReplayCommand(),
		evalGateCommand(),
		evalQrelsCommand(),
		evalLongMemEvalCommand(),
	}
}

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

// dbSearcher is bare hybrid search for the correctness gate and qrels.
type dbSearcher struct{ r replay.DB }

func (s dbSearcher) Search(ctx context.Context, q string, k int) ([]eval.Doc, error) {
	resp, err := s.r.Hybrid(ctx, q, search.Options{Limit: min(k, search.MaxLimit)}, search.Tuning{})
	if err != nil {
		return nil, err
	}
	out := make([]eval.Doc, len(resp.Results))
	for i, r := range resp.Results {
		out[i] = eval.Doc{SourceID: r.SourceID, Slug: r.Slug}
	}
	return out, nil
}

// searcherFor wires the brain's embedder (remote ones run in the client).
func searcherFor(b *brain.Brain) (replay.DB, error) {
	d := replay.DB{Q: b.Pool}
	emb, err := clientEmbedder(b)
	if err != nil {
		return d, err
	}
	if emb != nil {
		dim := b.Settings.Dim
		d.Embed = func(ctx context.Context, q string) ([]float32, error) {
			vs, err := emb.Embed(ctx, []string{q})
			if err != nil {
				return nil, err
			}
			if len(vs) != 1 || len(vs[0]) != dim {
				return nil, fmt.Errorf("the embedder returned %d vectors, expected one of dimension %d", len(vs), dim)
			}
			return vs[0], nil
		}
	}
	return d, nil
}

// replayExpansion gives s an expander when any of rows was captured with
// expand_enabled, so those rows replay expanded: from the brain's expansion
// cache, else by the configured chat model. The meter is nil when no row
// asks for expansion.
func replayExpansion(c *cli.Context, b *brain.Brain, s *replay.DB, rows []baseline.Row, cmd string) (*budget.Meter, error) {
	for _, r := range rows {
		if r.ExpandEnabled != nil && *r.ExpandEnabled {
			meter, err := newMeter(c)
			if err != nil {
				return nil, err
			}
			if s.Expander, err = newExpander(b.Pool, meter, expand.DefaultVariants); err != nil {
				return nil, usageError("%s: expanding the rows captured with expand_enabled: %v", cmd, err)
			}
			return meter, nil
		}
	}
	return nil, nil
}

// progressLine prints "...N/TOTAL" on stderr about every 25 rows, only on a
// terminal and never with --json.
func progressLine(c *cli.Context, enabled bool) func(done, total int) {
	w := c.App.ErrWriter
	if !enabled || !progress.IsTerminal(w) {
		return nil
	}
	return func(done, total int) {
		if done%25 == 0 || done == total {
			fmt.Fprintf(w, "...%d/%d\n", done, total)
		}
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func evalReplayCommand() *cli.Command {
	return &cli.Command{
		Name:  "replay",
		Usage: "re-run captured queries (an export or a baseline) and compare with what was captured",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "against", Usage: "the export or baseline file to replay"},
			&cli.IntFlag{Name: "limit", Usage: "replay only the N most recent rows (default: all)"},
			&cli.BoolFlag{Name: "json", Usage: "print the summary as JSON"},
			&cli.BoolFlag{Name: "verbose", Usage: "include every row's result"},
			&cli.IntFlag{Name: "top-regressions", Value: 5, Usage: "how many of the most moved queries to list"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError("eval replay: unexpected argument %q", c.Args().First())
			}
			if c.String("against") == "" {
				return usageError("eval replay: --against FILE is required (an 'eval export' or 'bench publish' file)")
			}
			if c.Int("limit") < 0 || c.Int("top-regressions") < 0 {
				return usageError("eval replay: --limit and --top-regressions must not be negative")
			}
			f, err := baseline.ReadFile(c.String("against"))
			if err != nil {
				return err
			}
			b, err := openBrain(c)
			if err != nil {
				return err
			}
			defer b.Close()
			s, err := searcherFor(b)
			if err != nil {
				return err
			}
			meter, err := replayExpansion(c, b, &s, replay.Select(f.Rows, c.Int("limit")), "eval replay")
			if err != nil {
				return err
			}
			asJSON := c.Bool("json")
			prog := progressLine(c, !asJSON)
			if prog != nil {
				n := len(f.Rows)
				if l := c.Int("limit"); l > 0 && l < n {
					n = l
				}
				fmt.Fprintf(c.App.ErrWriter, "Replaying %d captured queries...\n", n)
			}
			rep, err := replay.Run(c.Context, s, f.Rows, replay.Options{Limit: c.Int("limit"), Progress: prog})
			if err != nil {
				return err
			}
			reportUsage(c.App.ErrWriter, meter)
			if asJSON {
				out := struct {
					SchemaVersion int             `json:"schema_version"`
					Summary       replay.Summary  `json:"summary"`
					Results       []replay.Result `json:"results,omitempty"`
					Usage         *budget.Summary `json:"usage,omitempty"`
				}{SchemaVersion: 1, Summary: rep.Summary, Usage: usageOf(meter)}
				if c.Bool("verbose") {
					out.Results = rep.Results
					if out.Results == nil {
						out.Results = []replay.Result{}
					}
				}
				return writeJSON(c.App.Writer, out)
			}
			return printReplay(c.App.Writer, rep, c.Int("top-regressions"), c.Bool("verbose"))
		},
	}
}

func printReplay(w io.Writer, rep replay.Report, top int, verbose bool) error {
	s := rep.Summary
	var b bytes.Buffer
	fmt.Fprintf(&b, "Replayed %d of %d captured queries (%d skipped, %d errored)\n", s.RowsReplayed, s.RowsTotal, s.RowsSkipped, s.RowsErrored)
	fmt.Fprintf(&b, "Mean Jaccard@k:   %.3f\n", s.MeanJaccard)
	fmt.Fprintf(&b, "Top-1 stability:  %.1f%%\n", 100*s.Top1StabilityRate)
	fmt.Fprintf(&b, "Mean latency Δ:   %+.0fms (current vs captured)\n", s.MeanLatencyDeltaMS)
	fmt.Fprintf(&b, "Rows over 2× latency: %d\n", s.RowsOver2xLatency)
	regs := replay.TopRegressions(rep.Results, top)
	if top > 0 {
		if len(regs) == 0 {
			fmt.Fprintln(&b, "No regressions: every replayed query returned the same set and top result.")
		} else {
			fmt.Fprintf(&b, "Top %d regression(s):\n", len(regs))
			for _, r := range regs {
				fmt.Fprintf(&b, "  jaccard=%.2f captured=%d current=%d %q\n", *r.Jaccard, r.CapturedCount, r.CurrentCount, clip(r.Query, 80))
			}
		}
	}
	shown := 0
	for _, r := range rep.Results {
		if r.Status == replay.Errored && (verbose || shown < 3) {
			if shown == 0 {
				fmt.Fprintln(&b, "Errored rows:")
			}
			shown++
			fmt.Fprintf(&b, "  line %d %q: %s\n", r.Line, clip(r.Query, 60), r.ErrorMessage)
		}
	}
	if !verbose && s.RowsErrored > shown {
		fmt.Fprintf(&b, "  ... and %d more (use --verbose or --json --verbose)\n", s.RowsErrored-shown)
	}
	skipped := map[string]int{}
	for _, r := range rep.Results {
		if r.Status == replay.Skipped {
			skipped[r.Reason]++
		}
	}
	for reason, n := range skipped {
		fmt.Fprintf(&b, "Skipped %d row(s): %s\n", n, reason)
	}
	if verbose {
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "LINE\tSTATUS\tJACCARD\tTOP1\tCAPTURED\tCURRENT\tΔMS\tQUERY")
		for _, r := range rep.Results {
			j, t1 := "-", "-"
			if r.Jaccard != nil {
				j = fmt.Sprintf("%.2f", *r.Jaccard)
				t1 = fmt.Sprint(*r.Top1Match)
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%d\t%+.1f\t%s\n", r.Line, r.Status, j, t1, r.CapturedCount, r.CurrentCount, r.LatencyDeltaMS, clip(r.Query, 60))
		}
		tw.Flush()
	}
	_, err := w.Write(b.Bytes())
	return err
}

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

	b, err := openBrain(c)
	if err != nil {
		return err
	}
	defer b.Close()
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
		rep, err := replay.Run(c.Context, s, base.Rows, replay.Options{Progress: progressLine(c, !asJSON)})
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
		rep, err := eval.Run(c.Context, dbSearcher{s}, qrels, k, progressLine(c, !asJSON))
		if err != nil {
			return err
		}
		g := eval.EvaluateCorrectness(rep, th)
		cor = &g
	}
	v := eval.Decide(reg, cor)
	if path := c.String("junit"); path != "" {
		var buf bytes.Buffer
		if err := eval.WriteJUnit(&buf, v); err != nil {
			return err
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("writing the JUnit report: %w", err)
		}
	}
	if asJSON {
		if err := writeJSON(c.App.Writer, v); err != nil {
			return err
		}
	} else if err := printGate(c.App.Writer, v); err != nil {
		return err
	}
	if !v.Passed() {
		return cli.Exit("", 1)
	}
	return nil
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

func evalQrelsCommand() *cli.Command {
	return &cli.Command{
		Name:      "qrels",
		Usage:     "score hybrid search against a qrels file: P@k, recall@k, MRR, nDCG@k",
		ArgsUsage: "FILE",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "k", Value: 10, Usage: "retrieval depth"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("eval qrels: give exactly one qrels file (pgbrain eval qrels FILE)")
			}
			k := c.Int("k")
			if k < 1 || k > search.MaxLimit {
				return usageError("eval qrels: -k %d is out of range; use 1 to %d", k, search.MaxLimit)
			}
			q, err := eval.ReadQrelsFile(c.Args().First())
			if err != nil {
				return err
			}
			b, err := openBrain(c)
			if err != nil {
				return err
			}
			defer b.Close()
			s, err := searcherFor(b)
			if err != nil {
				return err
			}
			rep, err := eval.Run(c.Context, dbSearcher{s}, q, k, progressLine(c, !c.Bool("json")))
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(c.App.Writer, rep)
			}
			return printQrels(c.App.Writer, rep)
		},
	}
}

func printQrels(w io.Writer, r eval.Report) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	gain := "binary"
	if r.Graded {
		gain = "graded"
	}
	fmt.Fprintf(tw, "%s: %d queries, k=%d, %s relevance\n", r.Qrels, r.Queries, r.K, gain)
	fmt.Fprintf(tw, "P@%d\t%.3f\n", r.K, r.PrecisionAtK)
	fmt.Fprintf(tw, "recall@%d\t%.3f\n", r.K, r.RecallAtK)
	fmt.Fprintf(tw, "MRR\t%.3f\n", r.MRR)
	fmt.Fprintf(tw, "nDCG@%d\t%.3f\n", r.K, r.NDCGAtK)
	fmt.Fprintf(tw, "first-relevant hit rate\t%.3f\n", r.FirstRelevantHitRate)
	if r.ExpectedTop1HitRate != nil {
		fmt.Fprintf(tw, "expected-top1 hit rate\t%.3f\t(%d queries)\n", *r.ExpectedTop1HitRate, r.ExpectedTop1Queries)
	}
	fmt.Fprintln(tw)
	fmt.Fprintf(tw, "QUERY_ID\tP@%d\tRECALL\tRR\tNDCG\tTOP1\tQUERY\n", r.K)
	for _, s := range r.PerQuery {
		top := "-"
		if len(s.Retrieved) > 0 {
			top = s.Retrieved[0]
		}
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t%s\n", s.QueryID, s.PrecisionAtK, s.RecallAtK, s.ReciprocalRank, s.NDCGAtK, top, clip(s.Query, 50))
	}
	return tw.Flush()
}

func evalLongMemEvalCommand() *cli.Command {
	return &cli.Command{
		Name:      "longmemeval",
		Usage:     "run the LongMemEval benchmark: retrieval in a scratch database beside the brain, emptied for each question, and answers from a chat model (PGBRAIN_CHAT_BASE_URL, PGBRAIN_CHAT_MODEL, PGBRAIN_CHAT_API_KEY, PGBRAIN_CHAT_TEMPERATURE) unless --retrieval-only",
		ArgsUsage: "DATASET",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "limit", Usage: "run at most N questions (default: all)"},
			&cli.BoolFlag{Name: "retrieval-only", Usage: "leave the hypothesis empty: retrieval metrics only, no chat model"},
			&cli.IntFlag{Name: "context-chars", Value: longmemeval.DefaultContextChars, Usage: "most characters of retrieved sessions shown to the chat model per question"},
			&cli.IntFlag{Name: "answer-workers", Value: longmemeval.DefaultAnswerWorkers, Usage: "questions waiting for the chat model at once"},
			&cli.BoolFlag{Name: "keyword-only", Usage: "keyword search only: no embeddings, no vector path (for --method hybrid)"},
			&cli.StringFlag{Name: "method", Value: longmemeval.MethodFused, Usage: "session retrieval: fused (session BM25 with date words, question parts and feedback), bm25 (session-level BM25 baseline) or hybrid (the brain's own search)"},
			&cli.IntFlag{Name: "top-k", Value: 10, Usage: "retrieval depth"},
			&cli.StringFlag{Name: "output", Usage: "write the JSONL here instead of stdout"},
			&cli.StringFlag{Name: "resume-from", Usage: "skip questions already in this earlier output (may be the --output file)"},
			&cli.BoolFlag{Name: "by-type", Usage: "end with a by_type_summary line of recall per question_type"},
			&cli.Float64Flag{Name: "by-type-floor", Usage: "exit 1 when any question_type's recall_any rate is below F (implies --by-type)"},
			&cli.BoolFlag{Name: "expansion", Usage: "query expansion: the chat model proposes rephrasings of each question, searched and fused with it (cached in the brain; off by default, see docs/retrieval.md)"},
			&cli.IntFlag{Name: "variants", Value: expand.DefaultVariants, Usage: fmt.Sprintf("with --expansion, how many rephrasings to search (1-%d)", expand.AskVariants)},
			&cli.BoolFlag{Name: "judge", Usage: "grade each hypothesis with a judge model by LongMemEval's per-type rules: rows gain judged_correct, the summary accuracy per type"},
			&cli.StringFlag{Name: "model", Usage: "the chat model that answers (and expands), instead of PGBRAIN_CHAT_MODEL"},
			&cli.StringFlag{Name: "judge-model", Usage: "the judge model, instead of " + envJudgeModel + " (default: the answering model)"},
		},
		Action: evalLongMemEval,
	}
}

func evalLongMemEval(c *cli.Context) (err error) {
	if c.NArg() != 1 {
		return usageError("eval longmemeval: give exactly one dataset file (JSON array or JSONL)")
	}
	if c.Int("limit") < 0 {
		return usageError("eval longmemeval: --limit must not be negative")
	}
	if k := c.Int("top-k"); k < 1 || k > search.MaxLimit {
		return usageError("eval longmemeval: --top-k %d is out of range; use 1 to %d", k, search.MaxLimit)
	}
	if m := c.String("method"); !slices.Contains(longmemeval.Methods, m) {
		return usageError("eval longmemeval: --method %q is not known; use one of %s", m, strings.Join(longmemeval.Methods, ", "))
	}
	floorSet := c.IsSet("by-type-floor")
	floor := c.Float64("by-type-floor")
	if floorSet && !(floor >= 0 && floor <= 1) {
		return usageError("eval longmemeval: --by-type-floor %v must be between 0 and 1", floor)
	}
	if c.Int("context-chars") < 1 {
		return usageError("eval longmemeval: --context-chars must be positive")
	}
	if n := c.Int("answer-workers"); n < 1 || n > 64 {
		return usageError("eval longmemeval: --answer-workers %d is out of range; use 1 to 64", n)
	}
	if n := c.Int("variants"); n < 1 || n > expand.AskVariants {
		return usageError("eval longmemeval: --variants %d is out of range; use 1 to %d", n, expand.AskVariants)
	}
	if c.Bool("judge") && c.Bool("retrieval-only") {
		return usageError("eval longmemeval: --judge grades hypotheses, which --retrieval-only does not write; drop one")
	}
	if c.Bool("expansion") && c.Bool("keyword-only") {
		return usageError("eval longmemeval: --expansion fuses hybrid searches; drop --keyword-only")
	}
	if c.Bool("expansion") && lmeMethod(c) != longmemeval.MethodHybrid {
		return usageError("eval longmemeval: --expansion fuses the brain's hybrid searches; use it with --method hybrid (the default with --expansion), not --method %s", c.String("method"))
	}
	// Answers (and expansions, and judgements) come from chat models named
	// by the environment and the flags; without one, only --retrieval-only
	// can run, and the run stops before it starts. Every call is metered.
	meter, err := newMeter(c)
	if err != nil {
		return err
	}
	var model, judgeModel longmemeval.Model
	var expander *expand.Expander
	if !c.Bool("retrieval-only") || c.Bool("expansion") {
		cfg, err := chatConfig(c.String("model"))
		if errors.Is(err, openai.ErrNoChatModel) {
			return usageError("eval longmemeval: writing answers (or expanding questions) needs a chat model: %v; or pass --retrieval-only to measure recall alone", err)
		}
		if err != nil {
			return usageError("eval longmemeval: %v", err)
		}
		chat, err := openai.NewChat(cfg)
		if err != nil {
			return usageError("eval longmemeval: %v", err)
		}
		if !c.Bool("retrieval-only") {
			model = meter.Wrap(chat)
		}
		if c.Bool("judge") {
			jcfg := cfg
			if m := judgeModelName(c); m != "" {
				jcfg.Model = m
			}
			jchat, err := openai.NewChat(jcfg)
			if err != nil {
				return usageError("eval longmemeval: the judge model: %v", err)
			}
			judgeModel = meter.Wrap(jchat)
		}
		if c.Bool("expansion") {
			ecfg := cfg
			ecfg.Patience = expansionPatience
			echat, err := openai.NewChat(ecfg)
			if err != nil {
				return usageError("eval longmemeval: %v", err)
			}
			// The cache is the user's brain's, so a rerun asks nothing.
			cacheBrain, err := openBrain(c)
			if err != nil {
				return err
			}
			defer cacheBrain.Close()
			expander = &expand.Expander{DB: cacheBrain.Pool, Model: meter.Wrap(echat), Variants: c.Int("variants"), Hits: meter}
		}
	}
	defer reportUsage(c.App.ErrWriter, meter)
	dataset := c.Args().First()
	// The public files are large (LongMemEval_S is 265 MB, LongMemEval_M
	// 2.7 GB) and checked whole before the run starts, which takes seconds,
	// so a terminal is told what is happening. Only one question at a time
	// is then held in memory.
	if progress.IsTerminal(c.App.ErrWriter) {
		if fi, err := os.Stat(dataset); err == nil && fi.Size() > 16<<20 {
			fmt.Fprintf(c.App.ErrWriter, "pgbrain: checking %s (%d MB)\n", dataset, fi.Size()>>20)
		}
	}
	qs, err := longmemeval.Open(dataset)
	if err != nil {
		return err
	}
	defer qs.Close()
	if n := qs.Repeated(); n > 0 {
		fmt.Fprintf(c.App.ErrWriter, "pgbrain: %d question(s) in %s list a session more than once with the same turns (LongMemEval_S has 13); each such session is imported once, with its first date\n", n, dataset)
	}
	outPath, resume := c.String("output"), c.String("resume-from")
	var prior []longmemeval.Row
	if resume != "" {
		if prior, err = longmemeval.ReadResults(resume); err != nil {
			return err
		}
	}
	st, err := openLongMemEvalScratch(c, expander)
	if err != nil {
		return err
	}
	defer func() {
		if derr := st.Drop(c.Context); derr != nil {
			if err == nil {
				err = derr
			} else {
				fmt.Fprintln(c.App.ErrWriter, "pgbrain:", derr)
			}
		}
	}()

	// The output holds every row once: the resumed rows, then this run's.
	w := c.App.Writer
	if outPath != "" {
		same := resume != "" && sameFile(outPath, resume)
		var f *os.File
		if same {
			// Drop the old summary now, then append as questions finish.
			if err := rewriteRows(outPath, prior); err != nil {
				return err
			}
			f, err = os.OpenFile(outPath, os.O_WRONLY|os.O_APPEND, 0)
		} else {
			f, err = os.Create(outPath)
		}
		if err != nil {
			return fmt.Errorf("opening --output: %w", err)
		}
		defer f.Close()
		w = f
		if !same {
			for _, r := range prior {
				if err := longmemeval.WriteRow(w, r); err != nil {
					return fmt.Errorf("writing %s: %w", outPath, err)
				}
			}
		}
	} else {
		for _, r := range prior {
			if err := longmemeval.WriteRow(w, r); err != nil {
				return err
			}
		}
	}
	sum, err := longmemeval.Run(c.Context, st, qs, prior, w, longmemeval.Options{
		Limit: c.Int("limit"), TopK: c.Int("top-k"), RetrievalOnly: c.Bool("retrieval-only"),
		Model: model, Judge: judgeModel, ContextChars: c.Int("context-chars"), AnswerWorkers: c.Int("answer-workers"),
		ByType: c.Bool("by-type") || floorSet, Progress: progressLine(c, true),
		Usage: func() any {
			if u := meter.Summary(); u.Calls > 0 || u.CacheHits > 0 {
				return u
			}
			return nil
		},
	})
	if err != nil {
		return err
	}
	if f, ok := w.(*os.File); ok && outPath != "" {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("writing %s: %w", outPath, err)
		}
	}
	if floorSet {
		if low := sum.BelowFloor(floor); len(low) > 0 {
			parts := make([]string, len(low))
			for i, t := range low {
				parts[i] = fmt.Sprintf("%s %.3f", t, sum.RecallByType[t].Rate)
			}
			return cli.Exit(fmt.Sprintf("eval longmemeval: recall_any below the floor %.3f for: %s", floor, strings.Join(parts, ", ")), 1)
		}
	}
	return nil
}

// openLongMemEvalScratch creates the run's scratch database on the brain's
// server with the brain's embedder settings. The brain itself is only read
// (its brain.config) and closed before the run starts.
func openLongMemEvalScratch(c *cli.Context, ex *expand.Expander) (*longmemeval.Scratch, error) {
	u, _, err := databaseURL(c)
	if err != nil {
		return nil, err
	}
	b, err := openBrain(c)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	o := longmemeval.ScratchOptions{Settings: b.Settings, KeywordOnly: c.Bool("keyword-only"), Method: lmeMethod(c), Expander: ex}
	if !o.KeywordOnly && o.Method == longmemeval.MethodHybrid {
		if o.Embedder, err = clientEmbedder(b); err != nil {
			return nil, err
		}
	}
	return longmemeval.NewScratch(c.Context, u, o)
}

// lmeMethod is the session retrieval method: --method, except that
// --expansion, which fuses the brain's own hybrid searches, implies hybrid
// when no method was named.
func lmeMethod(c *cli.Context) string {
	if c.Bool("expansion") && !c.IsSet("method") {
		return longmemeval.MethodHybrid
	}
	return c.String("method")
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	if err1 == nil && err2 == nil {
		return os.SameFile(sa, sb)
	}
	pa, _ := filepath.Abs(a)
	pb, _ := filepath.Abs(b)
	return pa == pb
}

// rewriteRows replaces path with rows (no summary), atomically.
func rewriteRows(path string, rows []longmemeval.Row) error {
	var buf bytes.Buffer
	for _, r := range rows {
		if err := longmemeval.WriteRow(&buf, r); err != nil {
			return fmt.Errorf("rewriting %s: %w", path, err)
		}
	}
	return atomicfile.Write(path, buf.Bytes(), 0o600)
}

// envJudgeModel names the judge model of eval longmemeval --judge.
const envJudgeModel = "PGBRAIN_JUDGE_MODEL"

// judgeModelName is --judge-model, else PGBRAIN_JUDGE_MODEL; empty means
// the answering model judges.
func judgeModelName(c *cli.Context) string {
	if m := strings.TrimSpace(c.String("judge-model")); m != "" {
		return m
	}
	return strings.TrimSpace(os.Getenv(envJudgeModel))
}
