package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/atomicfile"
	"github.com/pgbrain/pgbrain/internal/expand"
	"github.com/pgbrain/pgbrain/internal/longmemeval"
	"github.com/pgbrain/pgbrain/internal/openai"
	"github.com/pgbrain/pgbrain/internal/progress"
	"github.com/pgbrain/pgbrain/internal/search"
)

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
			&cli.BoolFlag{Name: "force", Usage: "replace an --output file that exists (without --resume-from naming it)"},
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
			cacheBrain, err := openBrain(c, connectingRole)
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
	if outPath != "" && !c.Bool("force") && !(resume != "" && sameFile(outPath, resume)) {
		// Earlier results (answers a model was paid for) are not replaced
		// by accident.
		if fi, err := os.Stat(outPath); err == nil && fi.Size() > 0 {
			return usageError("eval longmemeval: --output %s exists (%d bytes): pass --resume-from %s to continue it, --force to replace it, or name another file", outPath, fi.Size(), outPath)
		}
	}
	var prior []longmemeval.Row
	if resume != "" {
		if prior, err = longmemeval.ReadResults(resume); err != nil {
			return err
		}
		// Rows of other questions (another dataset's file) would be
		// counted in the summary: left out, and said.
		ids := make(map[string]bool, qs.Len())
		for i := 0; i < qs.Len(); i++ {
			ids[qs.ID(i)] = true
		}
		kept := prior[:0]
		var foreign []string
		for _, r := range prior {
			if ids[r.QuestionID] {
				kept = append(kept, r)
			} else {
				foreign = append(foreign, r.QuestionID)
			}
		}
		if len(foreign) > 0 && outPath != "" && sameFile(outPath, resume) && !c.Bool("force") {
			// Resuming into the same file rewrites it: those rows (answers
			// a model was paid for, perhaps of another dataset named by
			// mistake) would be gone.
			return usageError("eval longmemeval: %d row(s) of %s are not questions of %s (first: %q); resuming into it would remove them: check the dataset, or pass --force to drop them", len(foreign), resume, dataset, foreign[0])
		}
		prior = kept
		if len(foreign) > 0 {
			fmt.Fprintf(c.App.ErrWriter, "pgbrain: note: %d row(s) of %s are not questions of %s (first: %q): left out of the output and the summary\n", len(foreign), resume, dataset, foreign[0])
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
	b, err := openBrain(c, connectingRole)
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
