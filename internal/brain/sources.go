package brain

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Source is one row of brain.sources.
type Source struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Pages     int64     `json:"pages"`
	CreatedAt time.Time `json:"created_at"`
}

// AddSource creates a source; the CHECK on brain.sources.id enforces its shape.
func (b *Brain) AddSource(ctx context.Context, id, name string) error {
	if name == "" {
		name = id
	}
	// Checked here as the table's CHECKs would, so a refused row never
	// reaches the server, whose log would quote it whole.
	if !sourceIDRE.MatchString(id) {
		return fmt.Errorf("source id %q is not valid: use 1-63 lower-case letters, digits, '-' or '_', starting with a letter or digit", id)
	}
	if !utf8.ValidString(name) {
		return fmt.Errorf("the name of source %q is not valid UTF-8: give it in UTF-8", id)
	}
	if n := utf8.RuneCountInString(name); n > maxSourceName {
		return fmt.Errorf("the name of source %q is %d characters, over the limit of %d: give a shorter name", id, n, maxSourceName)
	}
	_, err := b.Pool.Exec(ctx, `INSERT INTO brain.sources (id, name) VALUES ($1, $2)`, id, name)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "23505":
			return fmt.Errorf("source %q already exists", id)
		case "23514":
			return fmt.Errorf("source id %q is not valid: use 1-63 lower-case letters, digits, '-' or '_', starting with a letter or digit", id)
		}
	}
	if err != nil {
		return fmt.Errorf("adding source %q: %w", id, err)
	}
	return nil
}

// sourceIDRE and maxSourceName are the CHECKs of brain.sources (sql/001).
var sourceIDRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

const maxSourceName = 200

// SourceExists reports whether a source with this id exists.
func (b *Brain) SourceExists(ctx context.Context, id string) (bool, error) {
	var ok bool
	if err := b.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM brain.sources WHERE id = $1)`, id).Scan(&ok); err != nil {
		return false, fmt.Errorf("looking up source %q: %w", id, err)
	}
	return ok, nil
}

// SourcesHolding lists, in order, the sources that hold a page with slug
// (at most five), for the hint when a slug is looked up in another one.
func (b *Brain) SourcesHolding(ctx context.Context, slug string) ([]string, error) {
	rows, err := b.Pool.Query(ctx, `SELECT source_id FROM brain.pages WHERE slug = $1 ORDER BY source_id LIMIT 5`, slug)
	if err != nil {
		return nil, fmt.Errorf("looking up the sources holding %q: %w", slug, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("looking up the sources holding %q: %w", slug, err)
	}
	return ids, nil
}

// Sources lists every source with its page count.
func (b *Brain) Sources(ctx context.Context) ([]Source, error) {
	rows, err := b.Pool.Query(ctx, `
		SELECT s.id, s.name, s.created_at, (SELECT count(*) FROM brain.pages p WHERE p.source_id = s.id)
		FROM brain.sources s ORDER BY s.id`)
	if err != nil {
		return nil, fmt.Errorf("listing sources: %w", err)
	}
	defer rows.Close()
	var out []Source
	for rows.Next() {
		var s Source
		if err := rows.Scan(&s.ID, &s.Name, &s.CreatedAt, &s.Pages); err != nil {
			return nil, fmt.Errorf("listing sources: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// RemoveSource deletes a source. A source that still has pages is refused
// unless withPages is set, which deletes them too. When a write into the
// source (an import) holds it, waiting, if not nil, is called once before
// RemoveSource waits for that write to end.
func (b *Brain) RemoveSource(ctx context.Context, id string, withPages bool, waiting func()) (pagesDeleted int64, err error) {
	if id == "default" {
		return 0, errors.New("the default source cannot be removed")
	}
	tx, err := b.Pool.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("removing source %q: %w", id, err)
	}
	defer tx.Rollback(ctx)
	// The lock waits for writers still adding pages to the source (they hold
	// a key-share lock on its row; brain.import_apply takes it before
	// touching any page, so the two never deadlock) and keeps new ones out
	// until the end, so the count below is what the deletes find.
	// It is tried without waiting first, in a savepoint, so the caller can
	// say why it waits.
	sp, err := tx.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("removing source %q: %w", id, err)
	}
	var exists bool
	err = sp.QueryRow(ctx, `SELECT true FROM brain.sources WHERE id = $1 FOR UPDATE NOWAIT`, id).Scan(&exists)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "55P03" { // lock_not_available
		if rerr := sp.Rollback(ctx); rerr != nil {
			return 0, fmt.Errorf("removing source %q: %w", id, rerr)
		}
		if waiting != nil {
			waiting()
		}
		err = tx.QueryRow(ctx, `SELECT true FROM brain.sources WHERE id = $1 FOR UPDATE`, id).Scan(&exists)
	} else if err == nil {
		err = sp.Commit(ctx)
	}
	if err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return 0, fmt.Errorf("source %q does not exist", id)
		}
		return 0, fmt.Errorf("locking source %q: %w", id, err)
	}
	var pages int64
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM brain.pages WHERE source_id = $1`, id).Scan(&pages); err != nil {
		return 0, fmt.Errorf("counting pages of source %q: %w", id, err)
	}
	if pages > 0 && !withPages {
		noun := "pages"
		if pages == 1 {
			noun = "page"
		}
		return 0, fmt.Errorf("source %q still has %d %s: pass --with-pages to delete them too", id, pages, noun)
	}
	if pages > 0 {
		tag, err := tx.Exec(ctx, `DELETE FROM brain.pages WHERE source_id = $1`, id)
		if err != nil {
			return 0, fmt.Errorf("deleting pages of source %q: %w", id, err)
		}
		pages = tag.RowsAffected()
	}
	if _, err := tx.Exec(ctx, `DELETE FROM brain.sources WHERE id = $1`, id); err != nil {
		return 0, fmt.Errorf("removing source %q: %w", id, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, fmt.Errorf("removing source %q: %w", id, err)
	}
	return pages, nil
}
