// Package classify writes each page's PII classification (brain.page_pii):
// heuristic tags computed from the page's content when it is imported or
// put, and operator overrides, which heuristic runs never overwrite. The
// rules about who wins live in SQL (brain.page_pii_record and friends).
package classify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Classifier maps text to the taxonomy names of the personal data in it;
// pgbrain uses pii.Classify.
type Classifier func(text string) []string

// Querier is what the writers need; *pgxpool.Pool, *pgx.Conn and pgx.Tx
// satisfy it.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Beginner starts a transaction; *pgxpool.Pool and *pgx.Conn satisfy it.
type Beginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// pageText is what a page's classification looks at: the title and the
// stored file, which already holds the frontmatter and the timeline. PageText
// is the same text built from a page the caller already holds.
const pageText = `p.title || E'\n' || p.body`

// PageText returns the text Classify is given for a page: the Go twin of
// pageText, so an import can classify pages before they reach the database.
func PageText(title, body string) string { return title + "\n" + body }

// RecordApplied stores the classifications an import computed in the client
// (cats[i] for the page with slug slugs[i]) for the pages the current batch
// added or changed (pg_temp.import_applied, filled by brain.import_apply).
// Unchanged pages keep their tags. Call it in the import's transaction, after
// brain.import_apply, so content and tags are committed together.
func RecordApplied(ctx context.Context, q Querier, slugs []string, cats [][]string) error {
	if len(slugs) != len(cats) {
		return fmt.Errorf("recording PII tags: %d slugs but %d category lists", len(slugs), len(cats))
	}
	csv := make([]string, len(cats))
	for i, c := range cats {
		csv[i] = strings.Join(c, ",")
	}
	var n int64
	err := q.QueryRow(ctx, `
		SELECT brain.page_pii_record(coalesce(array_agg(a.id ORDER BY a.id), '{}'),
		                             coalesce(array_agg(c.cats ORDER BY a.id), '{}'))
		FROM pg_temp.import_applied a
		JOIN unnest($1::text[], $2::text[]) AS c (slug, cats) ON c.slug = a.slug`, slugs, csv).Scan(&n)
	if err != nil {
		return fmt.Errorf("recording PII tags of imported pages: %w", err)
	}
	return nil
}

// Pages classifies the pages with the given ids and returns how many tags
// changed. Operator tags stay as they are.
func Pages(ctx context.Context, q Querier, classify Classifier, ids []int64) (int64, error) {
	n, err := record(ctx, q, classify,
		`SELECT p.id, `+pageText+` FROM brain.pages p WHERE p.id = ANY ($1) ORDER BY p.id`, ids)
	if err != nil {
		return 0, fmt.Errorf("classifying %d pages for PII: %w", len(ids), err)
	}
	return n, nil
}

// scanBatch bounds how many page bodies are held in memory by All.
const scanBatch = 200

// All classifies every page of the brain (or, with onlyMissing, the pages
// without a current classification: never classified, e.g. written from
// psql, or stale since their slug, title or body changed) and returns how many pages were looked at and how many tags
// changed.
func All(ctx context.Context, q Querier, classify Classifier, onlyMissing bool) (seen int, changed int64, err error) {
	var after int64
	for {
		rows, err := q.Query(ctx, `
			SELECT p.id FROM brain.pages p
			WHERE p.id > $1 AND (NOT $2 OR NOT EXISTS (SELECT 1 FROM brain.page_pii t WHERE t.page_id = p.id AND NOT t.stale))
			ORDER BY p.id LIMIT $3`, after, onlyMissing, scanBatch)
		if err != nil {
			return seen, changed, fmt.Errorf("listing pages to classify: %w", err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return seen, changed, fmt.Errorf("listing pages to classify: %w", err)
		}
		if len(ids) == 0 {
			return seen, changed, nil
		}
		n, err := Pages(ctx, q, classify, ids)
		if err != nil {
			return seen, changed, err
		}
		seen += len(ids)
		changed += n
		after = ids[len(ids)-1]
	}
}

func record(ctx context.Context, q Querier, classify Classifier, query string, args ...any) (int64, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	var ids []int64
	var cats []string
	var id int64
	var text string
	_, err = pgx.ForEachRow(rows, []any{&id, &text}, func() error {
		ids = append(ids, id)
		cats = append(cats, strings.Join(classify(text), ","))
		return nil
	})
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	var n int64
	err = q.QueryRow(ctx, `SELECT brain.page_pii_record($1, $2)`, ids, cats).Scan(&n)
	return n, err
}

// Tag is a page's stored classification.
type Tag struct {
	PageID      int64    `json:"page_id"`
	SourceID    string   `json:"source_id"`
	Slug        string   `json:"slug"`
	Categories  []string `json:"categories"`
	Sensitivity string   `json:"sensitivity"` // none, low, moderate or high
	Origin      string   `json:"origin"`      // heuristic, operator, or "" when never classified
	// Stale: the page's slug, title or body changed since; agents do not
	// see it until it is classified again.
	Stale     bool      `json:"stale"`
	UpdatedAt time.Time `json:"updated_at"`
}

// ErrPageNotFound is returned for a slug the source does not hold.
var ErrPageNotFound = errors.New("page not found")

// Show returns the page's classification; a page that was never classified
// has an empty Origin and no categories.
func Show(ctx context.Context, q Querier, source, slug string) (Tag, error) {
	t := Tag{SourceID: source, Slug: slug, Categories: []string{}, Sensitivity: "none"}
	var cats []string
	var sens, origin *string
	var updated *time.Time
	var stale *bool
	err := q.QueryRow(ctx, `
		SELECT p.id, t.categories, t.sensitivity, t.origin, t.updated_at, t.stale
		FROM brain.pages p LEFT JOIN brain.page_pii t ON t.page_id = p.id
		WHERE p.source_id = $1 AND p.slug = $2`, source, slug).Scan(&t.PageID, &cats, &sens, &origin, &updated, &stale)
	if errors.Is(err, pgx.ErrNoRows) {
		return t, fmt.Errorf("%s (source %q): %w: list pages with 'pgbrain list'", slug, source, ErrPageNotFound)
	}
	if err != nil {
		return t, fmt.Errorf("reading the PII classification of %s: %w", slug, err)
	}
	if origin != nil {
		t.Categories, t.Sensitivity, t.Origin, t.UpdatedAt, t.Stale = cats, *sens, *origin, updated.UTC(), *stale
	}
	return t, nil
}

// Set records an operator's categories for a page (origin operator); later
// imports and puts keep them. categories must be taxonomy names; an empty
// list states that the page holds no personal data.
func Set(ctx context.Context, q Querier, source, slug string, categories []string) (Tag, error) {
	if categories == nil {
		categories = []string{}
	}
	var id int64
	if err := q.QueryRow(ctx, `SELECT page_id FROM brain.page_pii_override($1, $2, $3)`, source, slug, categories).Scan(&id); err != nil {
		return Tag{}, fmt.Errorf("setting the PII categories of %s (source %q): %w", slug, source, err)
	}
	return Show(ctx, q, source, slug)
}

// Clear drops the page's classification, operator or not, and classifies
// its content again, in one transaction: the page returns to heuristic tags.
func Clear(ctx context.Context, db Beginner, classify Classifier, source, slug string) (Tag, error) {
	var tag Tag
	err := pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		var id int64
		if err := tx.QueryRow(ctx, `SELECT brain.page_pii_clear($1, $2)`, source, slug).Scan(&id); err != nil {
			return fmt.Errorf("clearing the PII categories of %s (source %q): %w", slug, source, err)
		}
		if _, err := Pages(ctx, tx, classify, []int64{id}); err != nil {
			return err
		}
		var err error
		tag, err = Show(ctx, tx, source, slug)
		return err
	})
	return tag, err
}
