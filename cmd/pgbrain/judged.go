package main

import (
	"context"
	"fmt"
	"io"

	"github.com/pgbrain/pgbrain/internal/baseline"
	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/eval"
)

// noteMissingJudged says, on w, how many of the pages a qrels file judges
// relevant the brain does not hold: they can only count as misses, and a
// misspelt slug, another source or another brain would otherwise read as a
// retrieval failure.
func noteMissingJudged(ctx context.Context, w io.Writer, b *brain.Brain, q *eval.Qrels) error {
	seen := map[string]bool{}
	var sources, slugs []string
	for _, qu := range q.Queries {
		docs := qu.Relevant
		if qu.ExpectedTop1 != nil {
			docs = append(docs[:len(docs):len(docs)], *qu.ExpectedTop1)
		}
		for _, d := range docs {
			if k := d.Key(); !seen[k] {
				seen[k] = true
				sources, slugs = append(sources, d.SourceID), append(slugs, d.Slug)
			}
		}
	}
	if len(slugs) == 0 {
		return nil
	}
	var missing int
	var first *string
	if err := b.Pool.QueryRow(ctx, `
		SELECT count(*), (array_agg(u.src || ':' || u.slug ORDER BY u.ord))[1]
		FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u (src, slug, ord)
		WHERE NOT EXISTS (SELECT 1 FROM brain.pages p WHERE p.source_id = u.src AND p.slug = u.slug)`, sources, slugs).Scan(&missing, &first); err != nil {
		return fmt.Errorf("looking up the judged pages of %s: %w", q.Name, err)
	}
	if missing > 0 && first != nil {
		fmt.Fprintf(w, "pgbrain: note: %d of the %d pages %s judges relevant are not in this brain (first: %s): they can only count as misses; check the slugs and sources ('pgbrain list'), or the brain\n",
			missing, len(slugs), q.Name, *first)
	}
	return nil
}

// noteForeignBaseline says, on w, when none of the pages a captured file's
// rows retrieved is in this brain: every row then scores 0, which reads as
// a regression but means the file was captured from another brain.
func noteForeignBaseline(ctx context.Context, w io.Writer, b *brain.Brain, name string, rows []baseline.Row) error {
	seen := map[string]bool{}
	var slugs []string
	for _, r := range rows {
		for _, s := range r.RetrievedSlugs {
			if !seen[s] {
				seen[s] = true
				slugs = append(slugs, s)
			}
		}
	}
	if len(slugs) == 0 {
		return nil
	}
	var found int
	if err := b.Pool.QueryRow(ctx, `SELECT count(DISTINCT p.slug) FROM brain.pages p WHERE p.slug = ANY ($1)`, slugs).Scan(&found); err != nil {
		return fmt.Errorf("looking up the captured pages of %s: %w", name, err)
	}
	if found == 0 {
		fmt.Fprintf(w, "pgbrain: note: none of the %d pages the rows of %s retrieved is in this brain: was it captured from another brain? (every row scores 0 here)\n", len(slugs), name)
	}
	return nil
}
