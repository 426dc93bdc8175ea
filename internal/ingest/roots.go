package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/markdown"
)

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
func sourceRoots(ctx context.Context, b *brain.Brain, source string) ([]string, bool, error) {
	var files bool
	if err := b.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM brain.pages WHERE source_id = $1 AND origin = 'file')`, source).Scan(&files); err != nil {
		return nil, false, fmt.Errorf("reading the pages of source %q: %w", source, err)
	}
	if !files {
		return nil, false, nil
	}
	rows, err := b.Pool.Query(ctx, `SELECT path FROM brain.import_folders WHERE source_id = $1 ORDER BY imported_at, path`, source)
	if err != nil {
		return nil, false, fmt.Errorf("reading the folders source %q was imported from: %w", source, err)
	}
	roots, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, false, fmt.Errorf("reading the folders source %q was imported from: %w", source, err)
	}
	return roots, true, nil
}

// checkNesting refuses an import of a folder nested inside, or holding, a
// folder the source was imported from: slugs are paths relative to the
// folder imported, so every file there would be stored a second time under
// a new slug ("notes/x" beside "x"). A recorded folder that the walk of a
// holding folder would leave out (a hidden one) does not count.
func checkNesting(ctx context.Context, b *brain.Brain, source, dir, root string) error {
	roots, _, err := sourceRoots(ctx, b, source)
	if err != nil {
		return err
	}
	for _, r := range roots {
		if r == root {
			return nil // the same folder again: an update
		}
	}
	for _, r := range roots {
		if rel, ok := within(root, r); ok {
			return fmt.Errorf("import directory %s is inside %s, which source %q was imported from: its files are pages under %q there, and importing the folder alone would store them again under new slugs. "+
				"Import %s to update them, or give this folder a source of its own (pgbrain sources add NAME, then pgbrain import --source NAME %s), or pass --nested to import it into %q anyway",
				dir, r, source, slugPrefix(rel), r, dir, source)
		}
		if rel, ok := within(r, root); ok && !hidden(rel) {
			return fmt.Errorf("import directory %s holds %s, which source %q was imported from: the pages of its files would be stored again under slugs starting %q. "+
				"Import %s again to update them, or import this folder into a source of its own (pgbrain sources add NAME, then pgbrain import --source NAME %s), or pass --nested to import it into %q anyway",
				dir, r, source, slugPrefix(rel), r, dir, source)
		}
	}
	return nil
}

// slugPrefix is how the pages of folder rel (relative to the folder
// imported) begin their slugs: "Café/Menu" -> "café/menu/".
func slugPrefix(rel string) string {
	slug, err := markdown.SlugFromPath(filepath.ToSlash(rel) + "/x.md")
	if err != nil {
		return filepath.ToSlash(rel) + "/"
	}
	return strings.TrimSuffix(slug, "x")
}

// otherRoots counts the folders other than root that source was imported
// from, while it holds imported pages: --prune would delete their pages.
func otherRoots(ctx context.Context, b *brain.Brain, source, root string) (int, error) {
	roots, _, err := sourceRoots(ctx, b, source)
	n := 0
	for _, r := range roots {
		if r != root {
			n++
		}
	}
	return n, err
}

// recordRoot remembers that source was imported from root (one statement,
// so imports running at once each keep their folder).
func recordRoot(ctx context.Context, b *brain.Brain, source, root string) error {
	if _, err := b.Pool.Exec(ctx, `
		INSERT INTO brain.import_folders (source_id, path) VALUES ($1, $2)
		ON CONFLICT (source_id, path) DO UPDATE SET imported_at = now()`, source, root); err != nil {
		return fmt.Errorf("recording the folder source %q was imported from: %w", source, err)
	}
	return nil
}

// forgetOtherRoots leaves root the only folder source was imported from:
// after a prune, no page of the others is left.
func forgetOtherRoots(ctx context.Context, b *brain.Brain, source, root string) error {
	if _, err := b.Pool.Exec(ctx, `DELETE FROM brain.import_folders WHERE source_id = $1 AND path <> $2`, source, root); err != nil {
		return fmt.Errorf("recording that source %q now mirrors one folder: %w", source, err)
	}
	return nil
}
