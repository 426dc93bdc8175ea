// Package replay re-runs captured queries (an export or a baseline) against
// the current brain and measures how far retrieval moved: set Jaccard of the
// slugs, top-1 stability and latency against what was captured.
package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgbrain/pgbrain/internal/baseline"
	"github.com/pgbrain/pgbrain/internal/eval"
	"github.com/pgbrain/pgbrain/internal/expand"
	"github.com/pgbrain/pgbrain/internal/scrub"
	"github.com/pgbrain/pgbrain/internal/search"
)

// Searcher runs the two captured operations.
type Searcher interface {
	Keyword(ctx context.Context, q string, o search.Options, t search.Tuning) (*search.Response, error)
	Hybrid(ctx context.Context, q string, o search.Options, t search.Tuning) (*search.Response, error)
}

// DB searches a brain directly. Embed, when set, embeds hybrid queries in the
// client (a remote embedder); a failing embedding degrades to keyword-only,
// as the query command does. Nil means the brain embeds in SQL. Expander
// expands the rows captured with expand_enabled (its cache answers a query
// expanded before without a model call); nil runs them unexpanded, with a
// note.
type DB struct {
	Q        search.Querier
	Embed    func(ctx context.Context, q string) ([]float32, error)
	Expander *expand.Expander
}

// Keyword runs search.Keyword.
func (d DB) Keyword(ctx context.Context, q string, o search.Options, t search.Tuning) (*search.Response, error) {
	return search.Keyword(ctx, d.Q, q, o, t)
}

// Hybrid runs search.Hybrid.
func (d DB) Hybrid(ctx context.Context, q string, o search.Options, t search.Tuning) (*search.Response, error) {
	var qvec []float32
	vectorOff := t.VectorWeight != nil && *t.VectorWeight == 0
	if d.Embed != nil && !vectorOff {
		if v, err := d.Embed(ctx, q); err == nil {
			qvec = v
		}
	}
	var embed expand.Embedder
	if qvec != nil {
		embed = func(ctx context.Context, texts []string) ([][]float32, error) {
			out := make([][]float32, len(texts))
			for i, x := range texts {
				v, err := d.Embed(ctx, x)
				if err != nil {
					return nil, err
				}
				out[i] = v
			}
			return out, nil
		}
	}
	return expand.Search(ctx, d.Q, d.Expander, q, qvec, embed, o, t)
}

// RedactedReason is why a row whose captured query was scrubbed is skipped.
const RedactedReason = "query redacted at capture"

// DuplicateReason is the skip reason of a second row with an id already
// replayed.
const DuplicateReason = "a second copy of an earlier row (same id)"

// Row outcomes.
const (
	Replayed = "replayed"
	Skipped  = "skipped"
	Errored  = "errored"
)

// Result is one row's replay.
type Result struct {
	ID                int64    `json:"id"`
	Line              int      `json:"line"`
	ToolName          string   `json:"tool_name"`
	Query             string   `json:"query"`
	Status            string   `json:"status"`
	Reason            string   `json:"reason,omitempty"`
	ErrorMessage      string   `json:"error_message,omitempty"`
	Jaccard           *float64 `json:"jaccard,omitempty"`
	Top1Match         *bool    `json:"top1_match,omitempty"`
	CapturedCount     int      `json:"captured_count"`
	CurrentCount      int      `json:"current_count"`
	CapturedSlugs     []string `json:"captured_slugs"`
	CurrentSlugs      []string `json:"current_slugs"`
	CapturedLatencyMS float64  `json:"captured_latency_ms"`
	CurrentLatencyMS  float64  `json:"current_latency_ms"`
	LatencyDeltaMS    float64  `json:"latency_delta_ms"`
	Over2xLatency     bool     `json:"over_2x_latency"`
	// ExpansionApplied is whether this replay fused variants (the captured
	// row's is CapturedExpansionApplied); ExpansionNote says why not, when
	// expansion was asked for.
	CapturedExpansionApplied bool   `json:"captured_expansion_applied"`
	ExpansionApplied         bool   `json:"expansion_applied"`
	ExpansionNote            string `json:"expansion_note,omitempty"`
}

// Summary is the stable headline of a replay.
type Summary struct {
	RowsTotal          int     `json:"rows_total"`
	RowsReplayed       int     `json:"rows_replayed"`
	RowsSkipped        int     `json:"rows_skipped"`
	RowsErrored        int     `json:"rows_errored"`
	MeanJaccard        float64 `json:"mean_jaccard"`
	Top1StabilityRate  float64 `json:"top1_stability_rate"`
	MeanLatencyDeltaMS float64 `json:"mean_latency_delta_ms"`
	RowsOver2xLatency  int     `json:"rows_over_2x_latency"`
}

// Report is a whole replay.
type Report struct {
	Summary Summary
	Results []Result
	// Mean latencies over the replayed rows, for the gate's multiplier.
	CapturedMeanLatencyMS float64
	CurrentMeanLatencyMS  float64
}

// Options control a replay.
type Options struct {
	// Limit replays only the N most recent rows (created_at, then id,
	// descending); 0 replays all.
	Limit int
	// Progress, when set, is told after each row.
	Progress func(done, total int)
}

// DefaultK is how many results a row is replayed with when it captured none.
const DefaultK = 10

// Select orders rows most recent first and applies the limit.
func Select(rows []baseline.Row, limit int) []baseline.Row {
	out := append([]baseline.Row(nil), rows...)
	sort.SliceStable(out, func(i, j int) bool {
		ti, tj := out[i].Created(), out[j].Created()
		if !ti.Equal(tj) {
			return ti.After(tj)
		}
		return out[i].ID > out[j].ID
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// Run replays rows. A row with an empty query is skipped with a reason; a
// row whose search fails is counted as errored with its message, and the
// run goes on, unless the database cannot be reached: then the rows after
// it would only fail the same way, and Run stops with an error naming the
// line (what was replayed so far is in the report). A cancelled context
// stops it too.
func Run(ctx context.Context, s Searcher, rows []baseline.Row, o Options) (Report, error) {
	rows = Select(rows, o.Limit)
	rep := Report{Results: make([]Result, 0, len(rows))}
	rep.Summary.RowsTotal = len(rows)
	var jac, delta, captured, current float64
	var stable int
	seen := map[int64]bool{} // row ids replayed (or tried) already
	for i, row := range rows {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		var res Result
		var rerr error
		if row.ID != 0 && seen[row.ID] {
			// An export holds each captured row once: a second copy (a file
			// concatenated twice) would be counted twice.
			res = Result{ID: row.ID, Line: row.Line, ToolName: row.ToolName, Query: row.Query, CurrentSlugs: []string{},
				Status: Skipped, Reason: DuplicateReason}
		} else {
			seen[row.ID] = true
			res, rerr = replayRow(ctx, s, row)
		}
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if unreachable(rerr) {
			return rep, fmt.Errorf("replaying line %d: the database cannot be reached (%w): start it, or check --database-url, and replay again", row.Line, rerr)
		}
		switch res.Status {
		case Skipped:
			rep.Summary.RowsSkipped++
		case Errored:
			rep.Summary.RowsErrored++
		case Replayed:
			rep.Summary.RowsReplayed++
			jac += *res.Jaccard
			if *res.Top1Match {
				stable++
			}
			delta += res.LatencyDeltaMS
			captured += res.CapturedLatencyMS
			current += res.CurrentLatencyMS
			if res.Over2xLatency {
				rep.Summary.RowsOver2xLatency++
			}
		}
		rep.Results = append(rep.Results, res)
		if o.Progress != nil {
			o.Progress(i+1, len(rows))
		}
	}
	if n := float64(rep.Summary.RowsReplayed); n > 0 {
		rep.Summary.MeanJaccard = jac / n
		rep.Summary.Top1StabilityRate = float64(stable) / n
		rep.Summary.MeanLatencyDeltaMS = delta / n
		rep.CapturedMeanLatencyMS = captured / n
		rep.CurrentMeanLatencyMS = current / n
	}
	return rep, nil
}

// unreachable reports an error that says the database is gone, not that
// one query failed.
func unreachable(err error) bool {
	var ce *pgconn.ConnectError
	return err != nil && (errors.As(err, &ce) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.ErrUnexpectedEOF))
}

func replayRow(ctx context.Context, s Searcher, row baseline.Row) (Result, error) {
	captured := dedup(row.RetrievedSlugs)
	res := Result{
		ID: row.ID, Line: row.Line, ToolName: row.ToolName, Query: row.Query,
		CapturedSlugs: captured, CapturedCount: len(captured), CurrentSlugs: []string{},
		CapturedLatencyMS: row.LatencyMS, CapturedExpansionApplied: row.ExpansionApplied,
	}
	if strings.TrimSpace(row.Query) == "" {
		res.Status, res.Reason = Skipped, "empty query"
		return res, nil
	}
	// Capture scrubbed personal data out of the query: the text left is not
	// what was searched, so its results cannot be compared with the row's.
	if strings.Contains(row.Query, scrub.Redacted) {
		res.Status, res.Reason = Skipped, RedactedReason
		return res, nil
	}
	k := max(len(row.RetrievedChunkIDs), len(captured))
	if k == 0 {
		k = DefaultK
	}
	o := search.Options{Limit: min(k, search.MaxLimit)}
	var t search.Tuning
	var resp *search.Response
	var err error
	if row.ToolName == "search" {
		resp, err = s.Keyword(ctx, row.Query, o, t)
	} else {
		if row.Detail != nil {
			o.Detail = *row.Detail
		}
		if row.ExpandEnabled != nil {
			o.Expand = *row.ExpandEnabled
		}
		if row.VectorEnabled != nil && !*row.VectorEnabled {
			// The captured run only used the keyword path.
			zero := 0.0
			t.VectorWeight = &zero
		}
		resp, err = s.Hybrid(ctx, row.Query, o, t)
	}
	if err != nil {
		res.Status, res.ErrorMessage = Errored, err.Error()
		return res, err
	}
	for _, r := range resp.Results {
		res.CurrentSlugs = append(res.CurrentSlugs, r.Slug)
	}
	res.CurrentSlugs = dedup(res.CurrentSlugs)
	res.ExpansionApplied = resp.Meta.ExpansionApplied
	if x := resp.Meta.Expansion; x != nil {
		res.ExpansionNote = x.Note
	}
	res.CurrentCount = len(res.CurrentSlugs)
	j := eval.Jaccard(captured, res.CurrentSlugs)
	top1 := first(captured) == first(res.CurrentSlugs)
	res.Status, res.Jaccard, res.Top1Match = Replayed, &j, &top1
	res.CurrentLatencyMS = resp.Meta.LatencyMS
	res.LatencyDeltaMS = res.CurrentLatencyMS - res.CapturedLatencyMS
	res.Over2xLatency = res.CapturedLatencyMS > 0 && res.CurrentLatencyMS > 2*res.CapturedLatencyMS
	return res, nil
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// dedup keeps the first occurrence of each slug, in order; never nil.
func dedup(in []string) []string {
	out := make([]string, 0, len(in))
	seen := make(map[string]bool, len(in))
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// TopRegressions returns up to n replayed rows that moved most: lowest
// Jaccard first, then a changed top result, then the larger captured set.
// Rows that did not move at all (Jaccard 1 and same top result) are left out.
func TopRegressions(results []Result, n int) []Result {
	var out []Result
	for _, r := range results {
		if r.Status == Replayed && (*r.Jaccard < 1 || !*r.Top1Match) {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if *a.Jaccard != *b.Jaccard {
			return *a.Jaccard < *b.Jaccard
		}
		if *a.Top1Match != *b.Top1Match {
			return !*a.Top1Match
		}
		return a.CapturedCount > b.CapturedCount
	})
	if n >= 0 && len(out) > n {
		out = out[:n]
	}
	return out
}
