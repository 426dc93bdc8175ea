package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/markdown"
	"github.com/pgbrain/pgbrain/internal/shellquote"
)

// querier is what the folder records are read and written through: the
// pool, or the transaction of a prune.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// importRoot is the folder an import reads, as an absolute path with its
// symbolic links resolved, so two spellings of one folder compare equal.
func importRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolving import directory %s: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return filepath.Clean(abs), nil
}

// storedPath is how a folder path is stored in brain.import_folders (a
// text column): bytes that are not UTF-8 (a folder named in Latin-1) and
// '%' itself as %XX, so every path has one stored form and two different
// paths never share one.
func storedPath(p string) string {
	if utf8.ValidString(p) && !strings.Contains(p, "%") {
		return p
	}
	var sb strings.Builder
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRuneInString(p[i:])
		if (r == utf8.RuneError && size == 1) || r == '%' {
			fmt.Fprintf(&sb, "%%%02X", p[i])
		} else {
			sb.WriteString(p[i : i+size])
		}
		i += size
	}
	return sb.String()
}

// rawPath undoes storedPath.
func rawPath(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				sb.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}

// isDir reports whether p is a directory now.
func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// within returns path relative to dir when path lies strictly inside dir.
func within(path, dir string) (string, bool) {
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(os.PathSeparator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// hidden reports whether a relative path passes through a hidden entry,
// which the walk leaves out.
func hidden(rel string) bool {
	for _, seg := range strings.Split(filepath.ToSlash(rel), "/") {
		if strings.HasPrefix(seg, ".") {
			return true
		}
	}
	return false
}

// sourceRoots reads the folders earlier imports of source read
// (brain.import_folders), and whether the source holds pages an import
// wrote; without such pages the folders no longer say anything.
func sourceRoots(ctx context.Context, db querier, source string) ([]string, bool, error) {
	var files bool
	if err := db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM brain.pages WHERE source_id = $1 AND origin = 'file')`, source).Scan(&files); err != nil {
		return nil, false, fmt.Errorf("reading the pages of source %q: %w", source, err)
	}
	if !files {
		return nil, false, nil
	}
	rows, err := db.Query(ctx, `SELECT path FROM brain.import_folders WHERE source_id = $1 ORDER BY imported_at, path`, source)
	if err != nil {
		return nil, false, fmt.Errorf("reading the folders source %q was imported from: %w", source, err)
	}
	stored, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, false, fmt.Errorf("reading the folders source %q was imported from: %w", source, err)
	}
	// A folder no longer there (moved, renamed, deleted) says nothing about
	// this import: it can be neither nested nor pruned against.
	var roots []string
	for _, r := range stored {
		if p := rawPath(r); isDir(p) {
			roots = append(roots, p)
		}
	}
	return roots, true, nil
}

// checkNesting refuses an import of a folder nested inside, or holding, a
// folder the source was imported from: slugs are paths relative to the
// folder imported, so every file there would be stored a second time under
// a new slug ("notes/x" beside "x"). A folder that the walk of the other
// leaves out (a hidden one) does not count either way. It returns the
// source's other folders, which the walk does not enter through a symlink
// either (walker.avoided).
func checkNesting(ctx context.Context, b *brain.Brain, source, dir, root string) ([]string, error) {
	roots, _, err := sourceRoots(ctx, b.Pool, source)
	if err != nil {
		return nil, err
	}
	var others []string
	for _, r := range roots {
		if r != root {
			others = append(others, r)
		}
	}
	if len(others) < len(roots) {
		return others, nil // the same folder again: an update
	}
	for _, r := range roots {
		if rel, ok := within(root, r); ok && !hidden(rel) {
			return nil, fmt.Errorf("import directory %s is inside %s, which source %q was imported from: its files are pages under %q there, and importing the folder alone would store them again under new slugs. "+
				"Run pgbrain import %s to update them, or give this folder a source of its own (pgbrain sources add NAME, then pgbrain import --source NAME %s), or pass --nested to import it into %q anyway",
				dir, r, source, slugPrefix(rel), shellquote.Quote(r), shellquote.Quote(dir), source)
		}
		if rel, ok := within(r, root); ok && !hidden(rel) {
			return nil, fmt.Errorf("import directory %s holds %s, which source %q was imported from: the pages of its files would be stored again under slugs starting %q. "+
				"Run pgbrain import %s again to update them, or import this folder into a source of its own (pgbrain sources add NAME, then pgbrain import --source NAME %s), or pass --nested to import it into %q anyway",
				dir, r, source, slugPrefix(rel), shellquote.Quote(r), shellquote.Quote(dir), source)
		}
	}
	return others, nil
}

// slugPrefix is how the pages of folder rel (relative to the folder
// imported) begin their slugs: "Café/Menu" -> "café/menu/".
func slugPrefix(rel string) string {
	slug, err := markdown.FileSlug(filepath.ToSlash(rel) + "/x.md")
	if err != nil {
		return filepath.ToSlash(rel) + "/"
	}
	return strings.TrimSuffix(slug, "x")
}

// otherRoots lists the folders other than root that source was imported
// from (and that are still there), while it holds imported pages: --prune
// would delete their pages.
func otherRoots(ctx context.Context, db querier, source, root string) ([]string, error) {
	roots, _, err := sourceRoots(ctx, db, source)
	var others []string
	for _, r := range roots {
		if r != root {
			others = append(others, r)
		}
	}
	return others, err
}

// recordRoot remembers that source was imported from root (one statement,
// so imports running at once each keep their folder).
func recordRoot(ctx context.Context, b *brain.Brain, source, root string) error {
	// A source with no imported page left forgets where its pages came
	// from, so leftovers of it do not count against the next folder.
	if _, err := b.Pool.Exec(ctx, `
		DELETE FROM brain.import_folders f WHERE f.source_id = $1 AND f.path <> $2
		  AND NOT EXISTS (SELECT 1 FROM brain.pages p WHERE p.source_id = $1 AND p.origin = 'file')`, source, storedPath(root)); err != nil {
		return fmt.Errorf("forgetting the folders of source %q: %w", source, err)
	}
	if _, err := b.Pool.Exec(ctx, `
		INSERT INTO brain.import_folders (source_id, path) VALUES ($1, $2)
		ON CONFLICT (source_id, path) DO UPDATE SET imported_at = now()`, source, storedPath(root)); err != nil {
		return fmt.Errorf("recording the folder source %q was imported from: %w", source, err)
	}
	return nil
}

// forgetOtherRoots leaves root the only folder source was imported from:
// after a prune, no page of the others is left.
func forgetOtherRoots(ctx context.Context, db querier, source, root string) error {
	if _, err := db.Exec(ctx, `DELETE FROM brain.import_folders WHERE source_id = $1 AND path <> $2`, source, storedPath(root)); err != nil {
		return fmt.Errorf("recording that source %q now mirrors one folder: %w", source, err)
	}
	return nil
}
