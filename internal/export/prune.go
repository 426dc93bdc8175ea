package export

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Querier runs one statement returning a row.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Prune deletes (or with dryRun counts) the candidates created more than
// olderThan ago, through brain.eval_prune; zero removes every candidate.
func Prune(ctx context.Context, db Querier, olderThan time.Duration, dryRun bool) (int64, error) {
	if olderThan < 0 {
		return 0, fmt.Errorf("--older-than %v: give a duration of zero or more", olderThan)
	}
	var n int64
	if err := db.QueryRow(ctx, `SELECT brain.eval_prune(make_interval(secs => $1::float8 / 1e6), $2)`,
		olderThan.Microseconds(), dryRun).Scan(&n); err != nil {
		return 0, fmt.Errorf("pruning eval candidates: %w", err)
	}
	return n, nil
}
