package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/markdown"
)

// maxRoots bounds the folders a source remembers (the newest are kept).
const maxRoots = 32

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

// folderID names a folder in brain.sources without its path: folder paths
// can hold a person's name (/home/alice/notes), and every role of the brain,
// agents too, may read brain.sources.
func folderID(path string) string {
	h := sha256.Sum256([]byte(filepath.ToSlash(path)))
	return hex.EncodeToString(h[:8])
}

// ancestors lists the folders that hold path, nearest first; none for
// the file system's root.
func ancestors(path string) []string {
	var out []string
	for d, prev := filepath.Dir(path), path; d != prev; d, prev = filepath.Dir(d), d {
		out = append(out, d)
	}
	return out
}

// importedRoot is a folder an earlier import of the source read: its
// folderID and those of the folders holding it.
type importedRoot struct {
	ID      string   `json:"id"`
	Holders []string `json:"holders"`
}

// sourceRoots reads the folders earlier imports of source read
// (brain.sources.config -> 'import_roots'), oldest first, and whether the
// source holds pages an import wrote; without such pages the folders no
// longer say anything.
func sourceRoots(ctx context.Context, b *brain.Brain, source string) ([]importedRoot, bool, error) {
	var raw []byte
	var files bool
	err := b.Pool.QueryRow(ctx, `
		SELECT coalesce(s.config -> 'import_roots', '[]'),
		       EXISTS (SELECT 1 FROM brain.pages p WHERE p.source_id = s.id AND p.origin = 'file')
		FROM brain.sources s WHERE s.id = $1`, source).Scan(&raw, &files)
	if err != nil {
		return nil, false, fmt.Errorf("reading the folders source %q was imported from: %w", source, err)
	}
	var roots []importedRoot
	if err := json.Unmarshal(raw, &roots); err != nil {
		// Written by hand into brain.sources: not a list of folders.
		return nil, files, nil
	}
	return roots, files, nil
}

// checkNesting refuses an import of a folder nested inside, or holding, a
// folder the source was imported from: slugs are paths relative to the
// folder imported, so every file there would be stored a second time under
// a new slug ("notes/x" beside "x").
func checkNesting(ctx context.Context, b *brain.Brain, source, dir, root string, walked []walkFile) error {
	roots, imported, err := sourceRoots(ctx, b, source)
	if err != nil || !imported {
		return err
	}
	id := folderID(root)
	for _, r := range roots {
		if r.ID == id {
			return nil
		}
	}
	for _, holder := range ancestors(root) {
		hid := folderID(holder)
		for _, r := range roots {
			if r.ID == hid {
				rel, _ := filepath.Rel(holder, root)
				return fmt.Errorf("import directory %s is inside %s, which source %q was imported from: its files are pages under %q there, and importing the folder alone would store them again under new slugs. "+
					"Import %s to update them, or give this folder a source of its own (pgbrain sources add NAME, then pgbrain import --source NAME %s), or pass --nested to import it into %q anyway",
					dir, holder, source, slugPrefix(rel), holder, dir, source)
			}
		}
	}
	for _, r := range roots {
		if !slices.Contains(r.Holders, id) {
			continue
		}
		// Which folder: one holding a file of this walk, found by its id.
		for _, f := range walked {
			for d := path.Dir(f.rel); d != "."; d = path.Dir(d) {
				if folderID(filepath.Join(root, filepath.FromSlash(d))) == r.ID {
					return fmt.Errorf("import directory %s holds %s, which source %q was imported from: the pages of its files would be stored again under slugs starting %q. "+
						"Import %s again to update them, or import this folder into a source of its own (pgbrain sources add NAME, then pgbrain import --source NAME %s), or pass --nested to import it into %q anyway",
						dir, filepath.Join(dir, filepath.FromSlash(d)), source, slugPrefix(d), filepath.Join(dir, filepath.FromSlash(d)), dir, source)
				}
			}
		}
		return fmt.Errorf("import directory %s holds a folder that source %q was imported from: the pages of its files would be stored again under slugs starting with that folder's path. "+
			"Import that folder again to update them, or import this one into a source of its own (pgbrain sources add NAME, then pgbrain import --source NAME %s), or pass --nested to import it into %q anyway",
			dir, source, dir, source)
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
	roots, files, err := sourceRoots(ctx, b, source)
	if err != nil || !files {
		return 0, err
	}
	id, n := folderID(root), 0
	for _, r := range roots {
		if r.ID != id {
			n++
		}
	}
	return n, nil
}

// forgetOtherRoots leaves root the only folder source was imported from:
// after a prune, no page of the others is left.
func forgetOtherRoots(ctx context.Context, b *brain.Brain, source, root string) error {
	if _, err := b.Pool.Exec(ctx, `
		UPDATE brain.sources SET config = jsonb_set(config, '{import_roots}',
			coalesce((SELECT jsonb_agg(r) FROM jsonb_array_elements(config -> 'import_roots') r WHERE r ->> 'id' = $2), '[]'))
		WHERE id = $1 AND jsonb_typeof(config -> 'import_roots') = 'array'`, source, folderID(root)); err != nil {
		return fmt.Errorf("recording that source %q now mirrors one folder: %w", source, err)
	}
	return nil
}

// recordRoot remembers that source was imported from root.
func recordRoot(ctx context.Context, b *brain.Brain, source, root string) error {
	roots, _, err := sourceRoots(ctx, b, source)
	if err != nil {
		return err
	}
	id := folderID(root)
	kept := make([]importedRoot, 0, len(roots)+1)
	for _, r := range roots {
		if r.ID != id {
			kept = append(kept, r)
		}
	}
	r := importedRoot{ID: id}
	for _, a := range ancestors(root) {
		r.Holders = append(r.Holders, folderID(a))
	}
	kept = append(kept, r)
	if len(kept) > maxRoots {
		kept = kept[len(kept)-maxRoots:]
	}
	raw, err := json.Marshal(kept)
	if err != nil {
		return err
	}
	if _, err := b.Pool.Exec(ctx, `
		UPDATE brain.sources SET config = jsonb_set(config, '{import_roots}', $2::jsonb) WHERE id = $1`, source, string(raw)); err != nil {
		return fmt.Errorf("recording the folder source %q was imported from: %w", source, err)
	}
	return nil
}
