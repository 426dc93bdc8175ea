package brain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/markdown"
)

// Page is one stored page.
type Page struct {
	ID          int64          `json:"id"`
	SourceID    string         `json:"source_id"`
	Slug        string         `json:"slug"`
	Title       string         `json:"title"`
	Type        string         `json:"type"`
	Body        string         `json:"body"`
	Timeline    string         `json:"timeline"`
	Frontmatter map[string]any `json:"frontmatter"`
	ContentHash string         `json:"content_hash"`
	Chunks      int            `json:"chunks"`
	CreatedAt   time.Time      `json:"created_at"`
	UpdatedAt   time.Time      `json:"updated_at"`
}

// ErrPageNotFound is returned by GetPage and DeletePage.
var ErrPageNotFound = errors.New("page not found")

// GetPage reads one page by source and slug.
func (b *Brain) GetPage(ctx context.Context, source, slug string) (*Page, error) {
	var p Page
	var fm []byte
	err := b.Pool.QueryRow(ctx, `
		SELECT id, source_id, slug, title, type, body, timeline, frontmatter, content_hash,
		       (SELECT count(*) FROM brain.chunks c WHERE c.page_id = p.id), created_at, updated_at
		FROM brain.pages p WHERE source_id = $1 AND slug = $2`, source, slug).
		Scan(&p.ID, &p.SourceID, &p.Slug, &p.Title, &p.Type, &p.Body, &p.Timeline, &fm, &p.ContentHash,
			&p.Chunks, &p.CreatedAt, &p.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("%s (source %q): %w", slug, source, ErrPageNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading page %s: %w", slug, err)
	}
	if err := json.Unmarshal(fm, &p.Frontmatter); err != nil {
		return nil, fmt.Errorf("decoding frontmatter of %s: %w", slug, err)
	}
	return &p, nil
}

// ListFilter narrows ListPages.
type ListFilter struct {
	Source string // "" for every source
	Type   string // "" for every type; as stored, or as import would store it ("Meeting Notes")
	Limit  int    // 0 for no limit
	// After, when its Slug is set, starts the list after this page in the
	// (source, slug) order: keyset paging that stays correct while pages
	// are added or deleted between calls.
	After struct{ Source, Slug string }
}

// PageSummary is a page without its body.
type PageSummary struct {
	SourceID  string    `json:"source_id"`
	Slug      string    `json:"slug"`
	Title     string    `json:"title"`
	Type      string    `json:"type"`
	UpdatedAt time.Time `json:"updated_at"`
}

// PageTypes lists the page types in use in source ("" for every source),
// the most common first, at most 20.
func (b *Brain) PageTypes(ctx context.Context, source string) ([]string, error) {
	rows, err := b.Pool.Query(ctx, `
		SELECT type FROM brain.pages WHERE ($1 = '' OR source_id = $1)
		GROUP BY type ORDER BY count(*) DESC, type LIMIT 20`, source)
	if err != nil {
		return nil, fmt.Errorf("listing page types: %w", err)
	}
	types, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("listing page types: %w", err)
	}
	return types, nil
}

// ListPages streams page summaries ordered by source and slug.
func (b *Brain) ListPages(ctx context.Context, f ListFilter, fn func(PageSummary) error) error {
	limit := any(nil)
	if f.Limit > 0 {
		limit = f.Limit
	}
	rows, err := b.Pool.Query(ctx, `
		SELECT source_id, slug, title, type, updated_at FROM brain.pages
		WHERE ($1 = '' OR source_id = $1) AND ($2 = '' OR type = $2 OR type = $6)
		  AND ($4 = '' OR (source_id, slug) > ($5, $4))
		ORDER BY source_id, slug LIMIT $3`, f.Source, f.Type, limit, f.After.Slug, f.After.Source, markdown.TypeOf(f.Type))
	if err != nil {
		return fmt.Errorf("listing pages: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s PageSummary
		if err := rows.Scan(&s.SourceID, &s.Slug, &s.Title, &s.Type, &s.UpdatedAt); err != nil {
			return fmt.Errorf("listing pages: %w", err)
		}
		if err := fn(s); err != nil {
			return err
		}
	}
	return rows.Err()
}

// DeletePage removes a page and its chunks.
func (b *Brain) DeletePage(ctx context.Context, source, slug string) error {
	tag, err := b.Pool.Exec(ctx, `DELETE FROM brain.pages WHERE source_id = $1 AND slug = $2`, source, slug)
	if err != nil {
		return fmt.Errorf("deleting page %s: %w", slug, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%s (source %q): %w", slug, source, ErrPageNotFound)
	}
	return nil
}
