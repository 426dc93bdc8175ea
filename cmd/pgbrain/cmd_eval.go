package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/baseline"
	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/budget"
	"github.com/pgbrain/pgbrain/internal/eval"
	"github.com/pgbrain/pgbrain/internal/expand"
	"github.com/pgbrain/pgbrain/internal/progress"
	"github.com/pgbrain/pgbrain/internal/replay"
	"github.com/pgbrain/pgbrain/internal/search"
)

func evalCommand() *cli.Command {
	return &cli.Command{
		Name:  "eval",
		Usage: "work with captured queries: export, prune, replay, gate, qrels, longmemeval, suspected-contradictions, cross-modal, nightly",
		// The retrieval-quality dev loop (docs/eval-loop.md), then the
		// model-judged quality probes; each has its cmd_eval_*.go file.
		Subcommands: []*cli.Command{
			evalExportCommand(),
			evalPruneCommand(),
			evalReplayCommand(),
			evalGateCommand(),
			evalQrelsCommand(),
			evalLongMemEvalCommand(),
			evalContradictionsCommand(),
			evalCrossModalCommand(),
			evalNightlyCommand(),
		},
	}
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

// readArg returns s, or the contents of file F when s is "@F".
func readArg(flag, s string) (string, error) {
	if !strings.HasPrefix(s, "@") {
		return s, nil
	}
	data, err := os.ReadFile(s[1:])
	if err != nil {
		return "", usageError("--%s %s: %v", flag, s, err)
	}
	return string(data), nil
}
