// Package export streams captured eval candidates as NDJSON v1 (the
// brain.eval_export view's row_json, one per line) in the view's order,
// created_at DESC, id DESC, over a half-open window [since, end).
//
// The window end comes from brain.eval_window_end(): every row dated before
// it is already committed, and no transaction still running can commit one
// dated before it. So chaining exports, each run's --since being the
// previous run's printed window end, neither repeats nor misses a row, even
// while captures are being written.
package export

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrWindow marks a --since/--until window that cannot hold rows (a start
// in the future, an end before the start): a usage mistake, not a failure.
var ErrWindow = errors.New("the export window cannot hold rows")

// Tools that capture rows.
var Tools = []string{"query", "search"}

// DB is what Export needs from a pool or connection.
type DB interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// Options select the rows.
type Options struct {
	Since Since     // zero: from the first row
	Until time.Time // zero: up to the safe window end
	Limit int64     // 0: no limit
	Tool  string    // "", query or search
	// Progress, when set, is called about once a second with the rows written.
	Progress func(rows int64)
}

// Summary reports what was exported.
type Summary struct {
	Rows        int64
	WindowStart time.Time // zero when no --since was given
	WindowEnd   time.Time
	// Left is how many rows of the window were not written because of the
	// limit; when it is above zero, the next chained window would skip them.
	Left int64
}

// Export writes the window's rows to w and returns what it wrote. Memory use
// does not depend on the number of rows: rows are written as they arrive.
func Export(ctx context.Context, db DB, w io.Writer, opts Options) (Summary, error) {
	var sum Summary
	if opts.Tool != "" && opts.Tool != "query" && opts.Tool != "search" {
		return sum, fmt.Errorf("--tool %q: choose query or search", opts.Tool)
	}
	if opts.Limit < 0 {
		return sum, fmt.Errorf("--limit %d: give a positive number of rows (or 0 for all)", opts.Limit)
	}
	var serverNow time.Time
	if err := db.QueryRow(ctx, `SELECT brain.eval_window_end(), statement_timestamp()`).Scan(&sum.WindowEnd, &serverNow); err != nil {
		return sum, fmt.Errorf("computing the export window end (is the brain migrated? run 'pgbrain migrate'): %w", err)
	}
	var since *time.Time
	if opts.Since.IsSet() {
		sum.WindowStart = opts.Since.At
		if opts.Since.IsAge() {
			sum.WindowStart = serverNow.Add(-opts.Since.Age)
		}
		since = &sum.WindowStart
		// A start the server's clock has not reached would become the end
		// printed for the next run, claiming rows not yet written.
		if sum.WindowStart.After(serverNow) {
			return sum, fmt.Errorf("%w: --since %s is later than the server's clock (%s): pass the window end a previous export printed, or an earlier time",
				ErrWindow, sum.WindowStart.UTC().Format(TimeLayout), serverNow.UTC().Format(TimeLayout))
		}
		if !opts.Until.IsZero() && opts.Until.Before(sum.WindowStart) {
			return sum, fmt.Errorf("%w: --until %s is before --since %s: the window would be empty; give an --until after --since",
				ErrWindow, opts.Until.UTC().Format(TimeLayout), sum.WindowStart.UTC().Format(TimeLayout))
		}
		// A transaction that began before the previous window's end but
		// took its id after it bounds this end to its start, which can fall
		// before this window's start: the next window would then begin
		// earlier and repeat what this one's predecessor exported. The end
		// never precedes the start (an --until before it is refused above);
		// an empty window claims nothing.
		if sum.WindowEnd.Before(sum.WindowStart) {
			sum.WindowEnd = sum.WindowStart
		}
	}
	if !opts.Until.IsZero() && opts.Until.Before(sum.WindowEnd) {
		sum.WindowEnd = opts.Until
	}
	var tool *string
	if opts.Tool != "" {
		tool = &opts.Tool
	}
	var limit *int64
	if opts.Limit > 0 {
		limit = &opts.Limit
	}

	// One snapshot for the rows and the count of rows left by the limit.
	tx, err := db.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return sum, fmt.Errorf("starting the export transaction: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))

	const where = ` FROM brain.eval_export
		WHERE created_at < $1
		  AND ($2::timestamptz IS NULL OR created_at >= $2)
		  AND ($3::text IS NULL OR tool_name = $3)`
	rows, err := tx.Query(ctx, `SELECT row_json::text`+where+`
		ORDER BY created_at DESC, id DESC LIMIT $4`, sum.WindowEnd, since, tool, limit)
	if err != nil {
		return sum, fmt.Errorf("reading brain.eval_export: %w", err)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	last := time.Now()
	for rows.Next() {
		line := rows.RawValues()[0]
		if _, err := bw.Write(line); err != nil {
			rows.Close()
			return sum, fmt.Errorf("writing export output: %w", err)
		}
		if err := bw.WriteByte('\n'); err != nil {
			rows.Close()
			return sum, fmt.Errorf("writing export output: %w", err)
		}
		sum.Rows++
		if opts.Progress != nil && time.Since(last) >= time.Second {
			last = time.Now()
			opts.Progress(sum.Rows)
		}
	}
	if err := rows.Err(); err != nil {
		return sum, fmt.Errorf("reading brain.eval_export: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return sum, fmt.Errorf("writing export output: %w", err)
	}
	if limit != nil && sum.Rows == *limit {
		var total int64
		if err := tx.QueryRow(ctx, `SELECT count(*)`+where, sum.WindowEnd, since, tool).Scan(&total); err != nil {
			return sum, fmt.Errorf("counting the window's rows: %w", err)
		}
		sum.Left = total - sum.Rows
	}
	return sum, nil
}
