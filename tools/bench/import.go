package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/markdown"
)

// benchImport compares `pgbrain import` with and without embeddings against
// two floors: a plain COPY of the same page and chunk rows into tables with
// no indexes and no triggers, and the same COPY on as many connections as
// the import writes on, followed by computing every chunk's tsvector in the
// database (brain.chunk_tsv), which the schema requires of every import.
func benchImport(ctx context.Context, env *benchEnv) error {
	dir, err := os.MkdirTemp("", "pgbrain-bench-corpus-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	gen := exec.CommandContext(ctx, "go", "run", "./tools/corpusgen", "-pages", fmt.Sprint(env.pages), "-out", dir)
	gen.Stderr = os.Stderr
	if err := gen.Run(); err != nil {
		return fmt.Errorf("generating corpus: %w", err)
	}

	writers := ingest.DefaultWriters()
	floor, tsvFloor, chunks, err := copyFloors(ctx, env, dir, writers)
	if err != nil {
		return err
	}
	type row struct {
		name string
		d    time.Duration
	}
	rows := []row{
		{"plain COPY (floor)", floor},
		{fmt.Sprintf("COPY + tsvector in the database, %d connections (tsvector floor)", writers), tsvFloor},
	}
	for _, tc := range []struct {
		name    string
		noEmbed bool
		writers int
		batch   int  // pages a batch; 0 is the default
		fixed   bool // every batch of the full size (no ramp at the start and end)
	}{
		{"pgbrain import --no-embed --writers 1", true, 1, 0, false},
		{fmt.Sprintf("pgbrain import --no-embed (%d writers)", writers), true, writers, 0, false},
		// The batching before the ramp (ingest.batchPages), to show that
		// change side by side.
		{fmt.Sprintf("pgbrain import --no-embed (%d writers), fixed %d-page batches (before)", writers, ingest.DefaultBatchPages), true, writers, 0, true},
		{fmt.Sprintf("pgbrain import, local embedder (%d writers)", writers), false, writers, 0, false},
		{fmt.Sprintf("pgbrain import, local embedder (%d writers), fixed %d-page batches (before)", writers, ingest.DefaultBatchPages), false, writers, 0, true},
	} {
		u, err := env.newDatabase(ctx, "bench_import")
		if err != nil {
			return err
		}
		b, err := brain.Open(ctx, u)
		if err != nil {
			return err
		}
		start := time.Now()
		sum, err := ingest.ImportDir(ctx, b, dir, ingest.Options{NoEmbed: tc.noEmbed, Writers: tc.writers, BatchPages: tc.batch, FixedBatches: tc.fixed})
		d := time.Since(start)
		b.Close()
		if err != nil {
			return err
		}
		if sum.Added != env.pages {
			return fmt.Errorf("%s added %d pages, want %d (failures: %v)", tc.name, sum.Added, env.pages, sum.Failures)
		}
		rows = append(rows, row{tc.name, d})
	}
	fmt.Fprintf(env.out, "## import: %d pages, %d chunks\n\n", env.pages, chunks)
	fmt.Fprintln(env.out, "| path | seconds | pages/s | chunks/s | x floor | x tsvector floor |")
	fmt.Fprintln(env.out, "|---|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		s := r.d.Seconds()
		fmt.Fprintf(env.out, "| %s | %.2f | %.0f | %.0f | %.2f | %.2f |\n", r.name, s, float64(env.pages)/s, float64(chunks)/s,
			s/floor.Seconds(), s/tsvFloor.Seconds())
	}
	fmt.Fprintln(env.out)
	return nil
}

// copyFloors parses the corpus (untimed) and times COPY of the resulting
// rows into bare tables of the same shape, then, in another database, the
// same rows split over writers connections with each chunk's tsvector
// computed in the database.
func copyFloors(ctx context.Context, env *benchEnv, dir string, writers int) (plain, tsv time.Duration, chunks int, err error) {
	var pageRows, chunkRows [][]any
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".md" {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		slug, err := markdown.SlugFromPath(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		pg, err := markdown.Parse(slug, data)
		if err != nil {
			return err
		}
		pageRows = append(pageRows, []any{int64(len(pageRows) + 1), pg.Slug, pg.Title, pg.Type, pg.Body, pg.Timeline, pg.Frontmatter, pg.ContentHash})
		for _, c := range markdown.ChunkPage(pg, markdown.ChunkOptions{}) {
			chunkRows = append(chunkRows, []any{int64(len(pageRows)), c.Index, c.Source, c.Text})
		}
		return nil
	})
	if err != nil {
		return 0, 0, 0, fmt.Errorf("parsing corpus: %w", err)
	}
	u, err := env.newDatabase(ctx, "bench_floor")
	if err != nil {
		return 0, 0, 0, err
	}
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		return 0, 0, 0, err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, floorTables); err != nil {
		return 0, 0, 0, err
	}
	start := time.Now()
	if err := copyRows(ctx, conn, pageRows, chunkRows); err != nil {
		return 0, 0, 0, err
	}
	plain = time.Since(start)
	tsv, err = tsvectorFloor(ctx, env, pageRows, chunkRows, writers)
	return plain, tsv, len(chunkRows), err
}

const floorTables = `
	CREATE TABLE floor_pages (id bigint, slug text, title text, type text, body text, timeline text, frontmatter jsonb, content_hash text);
	CREATE TABLE floor_chunks (page_id bigint, chunk_index int, chunk_source text, text text)`

func copyRows(ctx context.Context, conn *pgx.Conn, pageRows, chunkRows [][]any) error {
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"floor_pages"},
		[]string{"id", "slug", "title", "type", "body", "timeline", "frontmatter", "content_hash"}, pgx.CopyFromRows(pageRows)); err != nil {
		return err
	}
	_, err := conn.CopyFrom(ctx, pgx.Identifier{"floor_chunks"},
		[]string{"page_id", "chunk_index", "chunk_source", "text"}, pgx.CopyFromRows(chunkRows))
	return err
}

// tsvectorFloor times writers connections, each COPYing its share of the
// pages and chunks into staging tables and then storing every chunk with the
// tsvector the brain's trigger would compute (brain.chunk_tsv of the page
// title, chunk text and source): the work no import can skip.
func tsvectorFloor(ctx context.Context, env *benchEnv, pageRows, chunkRows [][]any, writers int) (time.Duration, error) {
	u, err := env.newDatabase(ctx, "bench_floor_tsv")
	if err != nil {
		return 0, err
	}
	setup, err := pgx.Connect(ctx, u)
	if err != nil {
		return 0, err
	}
	defer setup.Close(ctx)
	// Logged tables, like the brain's: WAL is part of what every import
	// writes. Pages go straight to their table; chunks are staged in a
	// temporary table, as the import stages them, and stored with their
	// tsvector.
	if _, err := setup.Exec(ctx, `
		CREATE TABLE floor_pages (id bigint, slug text, title text, type text, body text, timeline text, frontmatter jsonb, content_hash text);
		CREATE TABLE floor_store (page_id bigint, chunk_index int, chunk_source text, text text, tsv tsvector)`); err != nil {
		return 0, err
	}
	conns := make([]*pgx.Conn, writers)
	for i := range conns {
		if conns[i], err = pgx.Connect(ctx, u); err != nil {
			return 0, err
		}
		defer conns[i].Close(ctx)
		if _, err := conns[i].Exec(ctx, `CREATE TEMP TABLE floor_chunks (page_id bigint, chunk_index int, chunk_source text, text text)`); err != nil {
			return 0, err
		}
	}
	// Page i's rows go to connection i % writers, chunks with their page.
	pageShare := make([][][]any, writers)
	chunkShare := make([][][]any, writers)
	for _, p := range pageRows {
		w := int(p[0].(int64) % int64(writers))
		pageShare[w] = append(pageShare[w], p)
	}
	for _, c := range chunkRows {
		w := int(c[0].(int64) % int64(writers))
		chunkShare[w] = append(chunkShare[w], c)
	}
	start := time.Now()
	errs := make(chan error, writers)
	for i, conn := range conns {
		go func() {
			if err := copyRows(ctx, conn, pageShare[i], chunkShare[i]); err != nil {
				errs <- err
				return
			}
			_, err := conn.Exec(ctx, `INSERT INTO floor_store
				SELECT c.page_id, c.chunk_index, c.chunk_source, c.text, brain.chunk_tsv(p.title, c.text, c.chunk_source)
				FROM pg_temp.floor_chunks c JOIN public.floor_pages p ON p.id = c.page_id`)
			errs <- err
		}()
	}
	for range conns {
		if err := <-errs; err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}
