package contradictions

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/shellquote"
)

// Day is one day of the trend.
type Day struct {
	Day     time.Time `json:"day"`
	Ran     bool      `json:"ran"`
	Flagged int64     `json:"flagged"`
	High    int64     `json:"high"`
	Medium  int64     `json:"medium"`
	Low     int64     `json:"low"`
}

// Trend returns flagged pairs per UTC day for the last days days
// (brain.contradiction_trend).
func Trend(ctx context.Context, db DB, days int) ([]Day, error) {
	rows, err := db.Query(ctx, `SELECT day, ran, flagged, high, medium, low FROM brain.contradiction_trend($1)`, days)
	if err != nil {
		return nil, fmt.Errorf("reading the contradiction trend: %w", err)
	}
	var out []Day
	var d Day
	if _, err := pgx.ForEachRow(rows, []any{&d.Day, &d.Ran, &d.Flagged, &d.High, &d.Medium, &d.Low}, func() error {
		out = append(out, d)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("reading the contradiction trend: %w", err)
	}
	return out, nil
}

// DrawTrend writes days as a text bar chart, one line per day, bars scaled
// to width characters for the busiest day; days without a run say so.
func DrawTrend(w io.Writer, days []Day, width int) error {
	if width < 1 {
		width = 40
	}
	var most, total int64
	for _, d := range days {
		most = max(most, d.Flagged)
		total += d.Flagged
	}
	var b bytes.Buffer
	for _, d := range days {
		n := 0
		if most > 0 {
			n = int((d.Flagged*int64(width) + most - 1) / most)
		}
		label := fmt.Sprint(d.Flagged)
		if !d.Ran {
			label = "no run"
		} else if d.Flagged > 0 {
			label = fmt.Sprintf("%d (high %d, medium %d, low %d)", d.Flagged, d.High, d.Medium, d.Low)
		}
		fmt.Fprintf(&b, "%s %-*s %s\n", d.Day.Format("2006-01-02"), width, strings.Repeat("#", n), label)
	}
	fmt.Fprintf(&b, "%d pair(s) flagged over %d day(s)\n", total, len(days))
	_, err := w.Write(b.Bytes())
	return err
}

// Latest is the most recent run, for `pgbrain doctor`.
type Latest struct {
	RunID          int64     `json:"run_id"`
	StartedAt      time.Time `json:"started_at"`
	Model          string    `json:"model"`
	Queries        int       `json:"queries"`
	QueriesFlagged int       `json:"queries_flagged"`
	Headline       Interval  `json:"headline"`
	// High lists the run's high-severity findings not dismissed since,
	// each with commands that resolve it.
	High []Resolvable `json:"high_severity"`
}

// Resolvable is a high-severity finding with paste-ready commands.
type Resolvable struct {
	Query       string `json:"query"`
	SlugA       string `json:"slug_a"`
	SourceA     string `json:"source_a"`
	SlugB       string `json:"slug_b"`
	SourceB     string `json:"source_b"`
	Explanation string `json:"explanation"`
	HashA       string `json:"hash_a"`
	HashB       string `json:"hash_b"`
	// Open shows both pages; Dismiss marks the pair as not a
	// contradiction (the cache remembers it).
	Open    string `json:"open"`
	Dismiss string `json:"dismiss"`
}

// LatestRun reads the latest run, or nil when the probe never ran.
func LatestRun(ctx context.Context, db DB) (*Latest, error) {
	l := &Latest{High: []Resolvable{}}
	err := db.QueryRow(ctx, `SELECT id, started_at, model, queries, queries_flagged
		FROM brain.eval_contradiction_runs ORDER BY started_at DESC, id DESC LIMIT 1`).
		Scan(&l.RunID, &l.StartedAt, &l.Model, &l.Queries, &l.QueriesFlagged)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the latest contradiction probe run: %w", err)
	}
	l.Headline = Wilson(l.QueriesFlagged, l.Queries)
	rows, err := db.Query(ctx, `SELECT DISTINCT ON (f.hash_a, f.hash_b) f.query, f.source_a, f.slug_a, f.source_b, f.slug_b,
			f.explanation, f.hash_a, f.hash_b
		FROM brain.eval_contradiction_findings f
		WHERE f.run_id = $1 AND f.severity = 'high'
		  AND NOT EXISTS (SELECT 1 FROM brain.eval_contradictions_dismissed d WHERE d.hash_a = f.hash_a AND d.hash_b = f.hash_b)
		ORDER BY f.hash_a, f.hash_b, f.slug_a, f.slug_b`, l.RunID)
	if err != nil {
		return nil, fmt.Errorf("reading the latest run's findings: %w", err)
	}
	var r Resolvable
	if _, err := pgx.ForEachRow(rows, []any{&r.Query, &r.SourceA, &r.SlugA, &r.SourceB, &r.SlugB, &r.Explanation, &r.HashA, &r.HashB}, func() error {
		r.Open = fmt.Sprintf("pgbrain get %s --source %s", shellquote.Quote(r.SlugA), shellquote.Quote(r.SourceA))
		if r.SlugA != r.SlugB || r.SourceA != r.SourceB {
			r.Open += fmt.Sprintf("; pgbrain get %s --source %s", shellquote.Quote(r.SlugB), shellquote.Quote(r.SourceB))
		}
		r.Dismiss = fmt.Sprintf("pgbrain eval suspected-contradictions dismiss %s %s", r.HashA, r.HashB)
		l.High = append(l.High, r)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("reading the latest run's findings: %w", err)
	}
	return l, nil
}

// Dismiss marks the pair of texts with hashes a and b as not a
// contradiction; it reports whether the mark is new.
func Dismiss(ctx context.Context, db DB, a, b, note string) (bool, error) {
	var added bool
	if err := db.QueryRow(ctx, `SELECT brain.contradiction_dismiss($1, $2, $3)`, a, b, note).Scan(&added); err != nil {
		return false, fmt.Errorf("marking the pair as not a contradiction: %w", err)
	}
	return added, nil
}

// MaxQueryChars bounds a query read from a file, as captured queries are.
const MaxQueryChars = 51200

// ReadQueries reads a --queries-file: JSON Lines, one object per line with
// a non-empty string "query" (other keys, such as those of an 'eval export'
// row, are ignored); blank lines are skipped. A repeated query is kept
// once. Errors name the file and line.
func ReadQueries(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening the queries file: %w", err)
	}
	defer f.Close()
	return ParseQueries(path, f)
}

// ParseQueries is ReadQueries over r, named name in errors.
func ParseQueries(name string, r io.Reader) ([]string, error) {
	br := bufio.NewReader(r)
	var out []string
	seen := map[string]bool{}
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if t := bytes.TrimSpace(b); len(t) > 0 {
			if !utf8.Valid(t) {
				return nil, fmt.Errorf("%s:%d: not UTF-8 text: save the file as UTF-8", name, line)
			}
			var row struct {
				Query *string `json:"query"`
			}
			if jerr := json.Unmarshal(t, &row); jerr != nil {
				return nil, fmt.Errorf(`%s:%d: not a JSON object (%v): write one {"query": "..."} per line`, name, line, jerr)
			}
			if row.Query == nil || strings.TrimSpace(*row.Query) == "" {
				return nil, fmt.Errorf(`%s:%d: no "query" text: write one {"query": "..."} per line`, name, line)
			}
			q := strings.TrimSpace(*row.Query)
			if n := utf8.RuneCountInString(q); n > MaxQueryChars {
				return nil, fmt.Errorf("%s:%d: the query is %d characters, over the limit of %d: shorten it", name, line, n, MaxQueryChars)
			}
			if !seen[q] {
				seen[q] = true
				out = append(out, q)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf(`%s: no queries: write one {"query": "..."} per line`, name)
	}
	return out, nil
}

// TopCaptured returns the n most frequent captured queries (both tools),
// ties broken by the most recent capture.
func TopCaptured(ctx context.Context, db DB, n int) ([]string, error) {
	rows, err := db.Query(ctx, `SELECT query FROM brain.eval_candidates
		WHERE btrim(query) <> ''
		GROUP BY query ORDER BY count(*) DESC, max(created_at) DESC, query LIMIT $1`, n)
	if err != nil {
		return nil, fmt.Errorf("reading the top captured queries: %w", err)
	}
	qs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("reading the top captured queries: %w", err)
	}
	return qs, nil
}
