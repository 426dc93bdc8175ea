// Package doctor gathers the health of a brain for `pgbrain doctor`: schema,
// embedder, corpus and embedding counts, the eval capture switch, recent
// capture failures (read from the table, so failures of every process
// count), spooled failures and, when classification is installed, PII
// counts per category.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgbrain/pgbrain/client/migrate"
	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/capture"
	"github.com/pgbrain/pgbrain/internal/contradictions"
	"github.com/pgbrain/pgbrain/internal/embed/refresh"
	"github.com/pgbrain/pgbrain/internal/evalconfig"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/nightly"
)

// Report is the doctor's findings. Warnings say what needs attention and how.
type Report struct {
	SchemaVersion   int    `json:"schema_version"` // of this report's format
	DatabaseSchema  int32  `json:"database_schema"`
	LatestSchema    int32  `json:"latest_schema"`
	Embedder        string `json:"embedder"`
	EmbedModel      string `json:"embed_model"`
	Dim             int    `json:"dim"`
	Pages           int64  `json:"pages"`
	Chunks          int64  `json:"chunks"`
	StaleEmbeddings int64  `json:"stale_embeddings"`
	// VectorIndex is brain.vector_index_status() (ready, suspended,
	// rebuilding, missing, invalid); VectorIndexBusy says a running command
	// holds it suspended or is rebuilding it.
	VectorIndex     string `json:"vector_index"`
	VectorIndexBusy bool   `json:"vector_index_busy"`
	// EmbedRun is an `embed --all` run started and not finished, or nil.
	EmbedRun           *refresh.Interrupted `json:"embed_all_run"`
	Capture            evalconfig.Settings  `json:"capture"`
	CaptureFailures24h map[string]int64     `json:"capture_failures_24h"`
	SpooledFailures    int                  `json:"spooled_failures"`
	SpoolPath          string               `json:"spool_path"`
	// AuditSpooled audit rows wait in AuditSpoolPath for the database
	// (written during an outage; chained by 'pgbrain audit flush').
	AuditSpooled   int    `json:"audit_spooled"`
	AuditSpoolPath string `json:"audit_spool_path,omitempty"`
	// PIICategories is nil when brain.page_pii does not exist.
	PIICategories map[string]int64 `json:"pii_categories"`
	// Contradictions is the latest suspected-contradictions run, nil when
	// the probe never ran.
	Contradictions *contradictions.Latest `json:"contradictions"`
	// Nightly is the nightly quality probe's health.
	Nightly *nightly.Health `json:"nightly_quality_probe"`
	// Unclassified pages have no PII classification, StaleClassified ones
	// one older than their last write (psql); both are hidden from agents
	// until 'pgbrain pii scan'. PendingChunks pages were written without
	// their chunks ('pgbrain embed --stale').
	Unclassified    int64 `json:"unclassified_pages"`
	StaleClassified int64 `json:"stale_classifications"`
	PendingChunks   int64 `json:"pages_pending_chunks"`
	// Roles is "ready" when the five pgbrain roles exist, else the ones
	// missing ("missing: ...").
	Roles    string   `json:"roles"`
	Warnings []string `json:"warnings"`
	// Fixed lists what `doctor --fix` did before this report was taken.
	Fixed []string `json:"fixed,omitempty"`
}

// Run checks the brain b; cfg is the resolved capture switch (cfgErr the
// problem reading it, if any) and spool the home's failure spool.
func Run(ctx context.Context, b *brain.Brain, cfg evalconfig.Settings, cfgErr error, spool *capture.Spool, auditSpool Pending) (*Report, error) {
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
		brain.missing_embeddings()`).Scan(&r.Pages, &r.Chunks, &r.StaleEmbeddings); err != nil {
		return nil, fmt.Errorf("counting pages and chunks: %w", err)
	}
	if r.StaleEmbeddings > 0 {
		r.warn("%d chunks have no embedding (vector search skips them): run 'pgbrain embed --stale'", r.StaleEmbeddings)
	}
	if err := indexAndRuns(ctx, b, r); err != nil {
		return nil, err
	}
	for _, k := range cfg.Unknown {
		r.warn("%s holds the key %s, which pgbrain does not read, so that setting is at its default: the keys are eval.capture, eval.scrub_pii, nightly.enabled and nightly.max_usd", cfg.Path, k)
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
	if auditSpool != nil {
		r.AuditSpoolPath = auditSpool.Path()
		if r.AuditSpooled, err = auditSpool.Pending(); err != nil {
			r.warn("%v", err)
		}
		if r.AuditSpooled > 0 {
			r.warn("%d audit rows written while the database was unreachable wait in %s: 'pgbrain audit flush' (or the next serve) chains them", r.AuditSpooled, r.AuditSpoolPath)
		}
	}
	if err := piiCounts(ctx, b.Pool, r); err != nil {
		return nil, err
	}
	if err := probes(ctx, b.Pool, cfg, r); err != nil {
		return nil, err
	}
	if r.DatabaseSchema >= r.LatestSchema {
		searchSettings(ctx, b.Pool, r)
	}
	return r, nil
}

// searchSettings warns of what makes every search fail (an override
// brain.search_settings() refuses) and of brain.config keys under
// "search." that name no setting, which searches ignore (a typo such as
// search.bm25k1 changes nothing).
func searchSettings(ctx context.Context, db *pgxpool.Pool, r *Report) {
	var unknown []string
	err := db.QueryRow(ctx, `
		SELECT coalesce(array_agg(c.key ORDER BY c.key) FILTER (WHERE NOT (s.known ? substr(c.key, 8))), '{}')
		FROM (SELECT brain.search_settings() AS known) s
		LEFT JOIN brain.config c ON starts_with(c.key, 'search.')`).Scan(&unknown)
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Hint != "" {
			r.warn("every search fails until this is fixed: %s: %s", pgErr.Message, pgErr.Hint)
		} else {
			r.warn("every search fails until this is fixed: %v", err)
		}
		return
	}
	for _, k := range unknown {
		r.warn("brain.config key %s names no search setting, so searches ignore it: see docs/retrieval.md for the settings (SELECT * FROM jsonb_each(brain.search_settings()) shows them), or delete it: DELETE FROM brain.config WHERE key = '%s'", k, k)
	}
}

// probes reports the model-judged quality probes, when the schema has
// their tables (a brain not yet migrated has not).
func probes(ctx context.Context, db *pgxpool.Pool, cfg evalconfig.Settings, r *Report) error {
	var exists bool
	if err := db.QueryRow(ctx, `SELECT to_regclass('brain.eval_nightly_runs') IS NOT NULL`).Scan(&exists); err != nil {
		return fmt.Errorf("checking for the quality probe tables: %w", err)
	}
	if !exists {
		return nil
	}
	var err error
	if r.Contradictions, err = contradictions.LatestRun(ctx, db); err != nil {
		return err
	}
	if l := r.Contradictions; l != nil {
		for _, h := range l.High {
			r.warn("high-severity contradiction (query %q): %s vs %s: %s; open both: %s; or mark it not a contradiction: %s",
				h.Query, h.SlugA, h.SlugB, h.Explanation, h.Open, h.Dismiss)
		}
	}
	h, err := nightly.Check(ctx, db, cfg.Nightly.Enabled, time.Now())
	if err != nil {
		return err
	}
	r.Nightly = &h
	if h.State == nightly.Warn {
		r.warn("nightly quality probe: %s", h.Message)
	}
	return nil
}

// Pending is a spool of rows waiting for the database.
type Pending interface {
	Path() string
	Pending() (int, error)
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
	var hasStale bool
	if err := db.QueryRow(ctx, `SELECT to_regclass('brain.page_chunks_pending') IS NOT NULL AND EXISTS (
		SELECT 1 FROM pg_attribute WHERE attrelid = 'brain.page_pii'::regclass AND attname = 'stale' AND NOT attisdropped)`).Scan(&hasStale); err != nil {
		return fmt.Errorf("checking for brain.page_chunks_pending and page_pii.stale (migration 013): %w", err)
	}
	if hasStale {
		if err := db.QueryRow(ctx, `
			SELECT count(*) FILTER (WHERE t.page_id IS NULL), count(*) FILTER (WHERE t.stale),
			       (SELECT count(*) FROM brain.page_chunks_pending),
			       coalesce((SELECT 'missing: ' || string_agg(r, ', ' ORDER BY r)
			                 FROM unnest(ARRAY['pgbrain_owner', 'pgbrain_writer', 'pgbrain_reader', 'pgbrain_agent', 'pgbrain_auditor']) r
			                 WHERE to_regrole(r) IS NULL), 'ready')
			FROM brain.pages p LEFT JOIN brain.page_pii t ON t.page_id = p.id`).
			Scan(&r.Unclassified, &r.StaleClassified, &r.PendingChunks, &r.Roles); err != nil {
			return fmt.Errorf("counting unclassified pages: %w", err)
		}
		if n := r.Unclassified + r.StaleClassified; n > 0 {
			r.warn("%s no current PII classification (%d never classified, %d changed since, e.g. from psql): agents cannot see them until 'pgbrain pii scan'",
				counted(n, "page has", "pages have"), r.Unclassified, r.StaleClassified)
		}
		if r.PendingChunks > 0 {
			r.warn("%s written without their chunks (e.g. from psql), so search does not find their new text: run 'pgbrain embed --stale'", counted(r.PendingChunks, "page was", "pages were"))
		}
		if r.Roles != "ready" {
			r.warn("pgbrain roles %s: every command runs as the connecting role and serve refuses to start; see docs/security.md", strings.TrimPrefix(r.Roles, "missing: "))
		}
	}
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

// indexAndRuns reports the vector index and an unfinished `embed --all`.
func indexAndRuns(ctx context.Context, b *brain.Brain, r *Report) error {
	var err error
	if r.VectorIndex, err = ingest.IndexStatus(ctx, b); err != nil {
		return err
	}
	if r.VectorIndex != "ready" && r.VectorIndex != "exact" {
		if r.VectorIndexBusy, err = ingest.IndexBusy(ctx, b); err != nil {
			return err
		}
		if !r.VectorIndexBusy && r.VectorIndex == "rebuilding" {
			// A rebuild whose command is gone left either nothing or an
			// INVALID index behind.
			var exists bool
			if err := b.Pool.QueryRow(ctx, `SELECT to_regclass('brain.chunks_embedding_hnsw') IS NOT NULL`).Scan(&exists); err != nil {
				return fmt.Errorf("looking for the vector index: %w", err)
			}
			if exists {
				r.VectorIndex = "invalid"
			}
		}
		switch {
		case r.VectorIndexBusy:
			r.warn("the vector index is %s and a running command owns it (a bulk import or a rebuild): searches are keyword-only until it ends", r.VectorIndex)
		case r.VectorIndex == "invalid":
			r.warn("the vector index is INVALID (an interrupted CREATE INDEX CONCURRENTLY left it): searches are keyword-only; run 'pgbrain doctor --fix' to rebuild it")
		case r.VectorIndex == "missing":
			r.warn("the vector index is missing: searches are keyword-only; run 'pgbrain doctor --fix' to rebuild it")
		default:
			r.warn("the vector index was left %s by an interrupted command: searches are keyword-only; run 'pgbrain doctor --fix' to rebuild it", r.VectorIndex)
		}
	}
	if r.EmbedRun, err = refresh.Open(ctx, b); err != nil {
		return err
	}
	if r.EmbedRun != nil && !r.EmbedRun.Running {
		r.warn("'pgbrain embed --all' started at %s stopped after page %d of %d (the rest keep their old vectors): run 'pgbrain doctor --fix' or 'pgbrain embed --all' to finish it",
			r.EmbedRun.StartedAt.UTC().Format(time.RFC3339), r.EmbedRun.DonePageID, r.EmbedRun.LastPageID)
	}
	return nil
}

// Fix completes what interrupted commands left half-done: it rebuilds a
// missing or invalid vector index (unless a running import owns it),
// finishes an interrupted `embed --all`, rechunks pages written outside
// pgbrain (as `embed --stale` does) and fills stale embeddings. It
// returns what it did, one line each.
func Fix(ctx context.Context, b *brain.Brain, opts refresh.Options) ([]string, error) {
	done := []string{}
	rebuilt, err := ingest.RestoreIndex(ctx, b)
	switch {
	case errors.Is(err, ingest.ErrIndexBusy):
		done = append(done, "vector index: left alone, "+err.Error())
	case err != nil:
		return done, err
	case rebuilt:
		done = append(done, "vector index: rebuilt")
	}
	opts.All = false
	n, resumed, err := refresh.Resume(ctx, b, opts)
	switch {
	case errors.Is(err, refresh.ErrRunBusy):
		done = append(done, "embed --all: left alone, "+err.Error())
	case err != nil:
		return done, err
	case resumed:
		done = append(done, fmt.Sprintf("embed --all: finished (%d chunks recomputed)", n))
	}
	pending, err := ingest.ChunkPending(ctx, b, ingest.Options{Embedder: opts.Embedder})
	if err != nil {
		return done, err
	}
	if pending.Pages > 0 {
		done = append(done, fmt.Sprintf("pages written outside pgbrain: %d rechunked", pending.Pages))
	}
	for _, f := range pending.Failures {
		done = append(done, fmt.Sprintf("pages written outside pgbrain: %s left pending: %s", f.Path, f.Reason))
	}
	if n, err = refresh.Run(ctx, b, opts); err != nil {
		return done, err
	} else if n > 0 {
		done = append(done, fmt.Sprintf("stale embeddings: %d chunks embedded", n))
	}
	return done, nil
}

// counted is n with the words in the number it takes: "1 page has", "3
// pages have".
func counted(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
