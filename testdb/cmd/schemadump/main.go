// Command schemadump records a released schema version for the upgrade
// tests: it migrates an empty database of an ephemeral cluster to VERSION,
// stores a few rows in every table a brain of that version has (so upgrades
// are tested on data, not only on empty tables), and writes a plain pg_dump
// of it to testdb/schema/NNN.sql. With -release it also records the sha256
// of every migration up to VERSION in testdb/schema/released.sha256, which
// is what makes a migration released: from then on the tests refuse any
// change to it.
//
//	go run ./testdb/cmd/schemadump -release            # the newest migration
//	go run ./testdb/cmd/schemadump -version 5 -from DIR # an old tree's migrations
//
// -from takes a folder in the layout `tern migrate -m` reads (numbered
// migrations at its root), for recording versions released before this
// tool existed from the SQL of their own commit.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io/fs"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	tern "github.com/jackc/tern/v2/migrate"

	pgbrain "github.com/pgbrain/pgbrain"
	"github.com/pgbrain/pgbrain/client/migrate"
	"github.com/pgbrain/pgbrain/internal/pgcluster"
	"github.com/pgbrain/pgbrain/testdb"
)

func main() {
	version := flag.Int("version", 0, "schema version to record (default: the newest migration)")
	from := flag.String("from", "", "folder of an older tree's migrations to apply instead of this build's")
	out := flag.String("out", "testdb/schema", "folder the dump (NNN.sql) is written to")
	release := flag.Bool("release", false, "also record the checksums of migrations 1..VERSION as released")
	flag.Parse()
	if err := run(*version, *from, *out, *release); err != nil {
		fmt.Fprintf(os.Stderr, "schemadump: %v\n", err)
		os.Exit(1)
	}
}

func run(version int, from, out string, release bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	latest, err := migrate.Latest()
	if err != nil {
		return err
	}
	if version == 0 {
		version = int(latest)
	}
	home, err := os.MkdirTemp("", "pgbrain-schemadump-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	cluster, admin, err := pgcluster.StartForTests(ctx, home)
	if err != nil {
		return err
	}
	defer cluster.Destroy(context.WithoutCancel(ctx))

	u, err := neturl.Parse(admin)
	if err != nil {
		return err
	}
	u.Path = "/pgbrain_dump"
	url := u.String()
	if err := exec(ctx, admin, `CREATE DATABASE pgbrain_dump TEMPLATE template0`); err != nil {
		return err
	}
	if from != "" {
		err = migrateFrom(ctx, url, from, int32(version))
	} else {
		err = migrate.Migrate(ctx, url, migrate.Options{Target: int32(version)})
	}
	if err != nil {
		return fmt.Errorf("migrating to version %d: %w", version, err)
	}
	if err := exec(ctx, url, seed(version)); err != nil {
		return fmt.Errorf("storing sample rows: %w", err)
	}
	dump, err := testdb.PgDump(ctx, url, "--no-owner", "--inserts")
	if err != nil {
		return err
	}
	head := fmt.Sprintf("-- pgbrain schema version %d as released, with sample rows: written by\n-- testdb/cmd/schemadump for the upgrade tests (client/migrate). Never edit.\n\n", version)
	name := filepath.Join(out, fmt.Sprintf("%03d.sql", version))
	if err := os.WriteFile(name, append([]byte(head), dump...), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "schemadump: wrote %s\n", name)
	if release {
		return recordChecksums(filepath.Join(out, "released.sha256"), version)
	}
	return nil
}

func exec(ctx context.Context, url, sql string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// migrateFrom applies the migrations of an older tree with tern itself, the
// way that tree's pgbrain did.
func migrateFrom(ctx context.Context, url, dir string, version int32) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	m, err := tern.NewMigrator(ctx, conn, migrate.VersionTable)
	if err != nil {
		return err
	}
	m.Data = map[string]any{
		"dim": "256", "embedder": "local", "embed_model": "hash-tsv-v1", "vector_schema": "public",
	}
	if err := m.LoadMigrations(os.DirFS(dir)); err != nil {
		return err
	}
	return m.MigrateTo(ctx, version)
}

// seed stores a few rows of every kind a brain of the version holds, written
// as a psql user would (the triggers fill tsvectors, vectors and hashes).
func seed(version int) string {
	s := `
INSERT INTO brain.sources (id, name) VALUES ('notes', 'Notes');
INSERT INTO brain.pages (source_id, slug, title, body, timeline, content_hash) VALUES
	('default', 'people/alice-smith', 'Alice Smith', 'Alice keeps the harbour lanterns lit.', '', repeat('a', 64)),
	('default', 'projects/lantern', 'Lantern project', 'Brass lanterns, rebuilt every spring.', '2024-03-01: new wicks', repeat('b', 64)),
	('notes', 'people/alice-smith', 'Alice (notes)', 'Call Alice about the wicks.', '', repeat('c', 64));
INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text)
	SELECT id, 0, 'compiled_truth', body FROM brain.pages;
INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text)
	SELECT id, 1, 'timeline', timeline FROM brain.pages WHERE timeline <> '';
INSERT INTO brain.source_boosts VALUES ('people/', 1.5);
`
	if version >= 3 {
		s += `
INSERT INTO brain.eval_candidates (tool_name, query, retrieved_slugs, vector_enabled, latency_ms)
	VALUES ('query', 'who keeps the lanterns', '{people/alice-smith}', true, 4.2);
INSERT INTO brain.eval_capture_failures (tool_name, reason, message) VALUES ('search', 'db_down', 'connection refused');
`
	}
	if version >= 4 {
		s += `
INSERT INTO brain.audit_log (session_id, tool_name, status, cost_class) VALUES ('s-1', 'query', 'success', 'search');
INSERT INTO brain.audit_log (session_id, tool_name, status, refusal_reason, pii_categories, cost_class)
	VALUES ('s-1', 'get_page', 'refused', 'pii_blocked', '{credential}', 'read');
INSERT INTO brain.page_pii (page_id, categories) SELECT id, '{contact}' FROM brain.pages WHERE slug = 'people/alice-smith';
`
	}
	return s
}

// recordChecksums writes the sha256 of every migration up to version.
func recordChecksums(path string, version int) error {
	var lines []string
	err := fs.WalkDir(pgbrain.SQLFiles, "sql", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		var n int
		if _, err := fmt.Sscanf(filepath.Base(p), "%03d_", &n); err != nil || n > version {
			return nil
		}
		data, err := fs.ReadFile(pgbrain.SQLFiles, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		lines = append(lines, hex.EncodeToString(sum[:])+"  "+p)
		return nil
	})
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "schemadump: recorded migrations 1..%d as released in %s\n", version, path)
	return nil
}
