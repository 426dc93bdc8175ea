// Package doctor gathers the health of a brain for `pgbrain doctor`: schema,
// embedder, corpus and embedding counts, the eval capture switch, recent
// capture failures (read from the table, so failures of every process
// count), spooled failures and, when classification is installed, PII
// counts per category.
package doctor

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgbrain/pgbrain/client/brain"
	"github.com/pgbrain/pgbrain/client/capture"
	"github.com/pgbrain/pgbrain/client/evalconfig"
	"github.com/pgbrain/pgbrain/client/migrate"
)

// Report is the doctor's findings. Warnings say what needs attention and how.
type Report struct {
	SchemaVersion      int                 `json:"schema_version"` // of this report's format
	DatabaseSchema     int32               `json:"database_schema"`
	LatestSchema       int32               `json:"latest_schema"`
	Embedder           string              `json:"embedder"`
	EmbedModel         string              `json:"embed_model"`
	Dim                int                 `json:"dim"`
	Pages              int64               `json:"pages"`
	Chunks             int64               `json:"chunks"`
	StaleEmbeddings    int64               `json:"stale_embeddings"`
	Capture            evalconfig.Settings `json:"capture"`
	CaptureFailures24h map[string]int64    `json:"capture_failures_24h"`
	SpooledFailures    int                 `json:"spooled_failures"`
	SpoolPath          string              `json:"spool_path"`
	// PIICategories is nil when brain.page_pii does not exist.
	PIICategories map[string]int64 `json:"pii_categories"`
	Warnings      []string         `json:"warnings"`
}

// Run checks the brain b; cfg is the resolved capture switch (cfgErr the
// problem reading it, if any) and spool the home's failure spool.
func Run(ctx context.Context, b *brain.Brain, cfg evalconfig.Settings, cfgErr error, spool *capture.Spool) (*Report, error) {
	r := &Report{SchemaVersion: 1, Embedder: b.Settings.Embedder, EmbedModel: b.Settings.EmbedModel,
		Dim: b.Settings.Dim, Capture: cfg, CaptureFailures24h: map[string]int64{}, SpoolPath: spool.Path(),
		Warnings: []string{}}
	conn, err := b.Pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("connecting to the database: %w", err)
	}
	defer conn.Release()
	if r.DatabaseSchema, err = migrate.Version(ctx, conn.Conn()); err != nil {
		return nil, err
	}
	if r.LatestSchema, err = migrate.Latest(); err != nil {
		return nil, err
	}
	if r.DatabaseSchema < r.LatestSchema {
		r.warn("the database schema is at version %d of %d: run 'pgbrain migrate'", r.DatabaseSchema, r.LatestSchema)
	}
	if err := b.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM brain.pages), (SELECT count(*) FROM brain.chunks),
		(SELECT count(*) FROM brain.chunks WHERE embedding IS NULL)`).Scan(&r.Pages, &r.Chunks, &r.StaleEmbeddings); err != nil {
		return nil, fmt.Errorf("counting pages and chunks: %w", err)
	}
	if r.StaleEmbeddings > 0 {
		r.warn("%d chunks have no embedding (vector search skips them): run 'pgbrain embed --stale'", r.StaleEmbeddings)
	}
	if cfgErr != nil {
		r.warn("eval capture config: %v", cfgErr)
	}
	if err := failures(ctx, b.Pool, r); err != nil {
		return nil, err
	}
	if r.SpooledFailures, err = spool.Pending(); err != nil {
		r.warn("%v", err)
	}
	if r.SpooledFailures > 0 {
		r.warn("%d capture failures wait in %s: they are written to brain.eval_capture_failures by the next successful capture", r.SpooledFailures, r.SpoolPath)
	}
	if err := piiCounts(ctx, b.Pool, r); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Report) warn(format string, args ...any) {
	r.Warnings = append(r.Warnings, fmt.Sprintf(format, args...))
}

func failures(ctx context.Context, db *pgxpool.Pool, r *Report) error {
	for _, reason := range capture.Reasons {
		r.CaptureFailures24h[reason] = 0
	}
	var total int64
	rows, err := db.Query(ctx, `SELECT reason, count(*) FROM brain.eval_capture_failures
		WHERE occurred_at > now() - interval '24 hours' GROUP BY reason`)
	if err != nil {
		return fmt.Errorf("reading brain.eval_capture_failures: %w", err)
	}
	var reason string
	var n int64
	if _, err := pgx.ForEachRow(rows, []any{&reason, &n}, func() error {
		r.CaptureFailures24h[reason] = n
		total += n
		return nil
	}); err != nil {
		return fmt.Errorf("reading brain.eval_capture_failures: %w", err)
	}
	if total > 0 {
		var parts []string
		for _, reason := range capture.Reasons {
			if n := r.CaptureFailures24h[reason]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", reason, n))
			}
		}
		r.warn("%d eval captures failed in the last 24h (%s): see brain.eval_capture_failures", total, strings.Join(parts, ", "))
	}
	return nil
}

func piiCounts(ctx context.Context, db *pgxpool.Pool, r *Report) error {
	var exists bool
	if err := db.QueryRow(ctx, `SELECT to_regclass('brain.page_pii') IS NOT NULL`).Scan(&exists); err != nil {
		return fmt.Errorf("checking for brain.page_pii: %w", err)
	}
	if !exists {
		return nil
	}
	r.PIICategories = map[string]int64{}
	rows, err := db.Query(ctx, `SELECT c, count(DISTINCT p.page_id) FROM brain.page_pii p, unnest(p.categories) c GROUP BY c`)
	if err != nil {
		return fmt.Errorf("counting PII categories in brain.page_pii: %w", err)
	}
	var cat string
	var n int64
	if _, err := pgx.ForEachRow(rows, []any{&cat, &n}, func() error {
		r.PIICategories[cat] = n
		return nil
	}); err != nil {
		return fmt.Errorf("counting PII categories in brain.page_pii: %w", err)
	}
	return nil
}

// SortedKeys returns m's keys in order, for stable text output.
func SortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
