package testdb

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/client/migrate"
)

// releasedFS holds a dump of every released schema version (schema/NNN.sql,
// written by testdb/cmd/schemadump) and the checksums of the migrations
// that were released (schema/released.sha256).
//
//go:embed schema
var releasedFS embed.FS

// Released is one released schema version as a database held it.
type Released struct {
	Version int32
	Name    string // schema/NNN.sql
	SQL     string // a plain pg_dump, restorable with Restore
}

var releasedName = regexp.MustCompile(`^(\d{3})\.sql$`)

// ReleasedSchemas returns the dumps of every released schema version, oldest
// first.
func ReleasedSchemas() ([]Released, error) {
	entries, err := fs.ReadDir(releasedFS, "schema")
	if err != nil {
		return nil, err
	}
	var out []Released
	for _, e := range entries {
		m := releasedName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		v, _ := strconv.Atoi(m[1])
		data, err := fs.ReadFile(releasedFS, "schema/"+e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, Released{Version: int32(v), Name: "schema/" + e.Name(), SQL: string(data)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// ReleasedChecksums returns schema/released.sha256: file name (sql/NNN_x.sql)
// to the lower-case hex sha256 it had when released.
func ReleasedChecksums() (map[string]string, error) {
	data, err := fs.ReadFile(releasedFS, "schema/released.sha256")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		f := bytes.Fields(line)
		if len(f) != 2 || len(f[0]) != 64 {
			return nil, fmt.Errorf("schema/released.sha256 line %d: want \"<sha256>  sql/NNN_name.sql\"", i+1)
		}
		out[string(f[1])] = string(f[0])
	}
	return out, nil
}

// Restore runs a plain pg_dump script in the database at url, on its own
// connection (the script clears search_path for its session).
func Restore(ctx context.Context, url, script string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("connecting to restore: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.PgConn().Exec(ctx, script).ReadAll(); err != nil {
		return fmt.Errorf("restoring dump: %w", err)
	}
	return nil
}

// PgDump runs pg_dump of the server's own major version (or the one on PATH)
// against url and returns its output.
func PgDump(ctx context.Context, url string, args ...string) ([]byte, error) {
	bin, err := pgDumpFor(ctx, url)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, bin, append(args, "--dbname="+url)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %s", bin, err, bytes.TrimSpace(stderr.Bytes()))
	}
	// Newer pg_dump releases fence their output with psql-only \restrict
	// lines holding a random key; they are not SQL and differ every run.
	var kept [][]byte
	for _, line := range bytes.SplitAfter(out, []byte("\n")) {
		if !bytes.HasPrefix(line, []byte("\\restrict ")) && !bytes.HasPrefix(line, []byte("\\unrestrict ")) {
			kept = append(kept, line)
		}
	}
	return bytes.Join(kept, nil), nil
}

func pgDumpFor(ctx context.Context, url string) (string, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	var num int
	if err := conn.QueryRow(ctx, `SELECT current_setting('server_version_num')::int`).Scan(&num); err != nil {
		return "", err
	}
	if dir := os.Getenv("PGBRAIN_PG_BIN"); dir != "" {
		return filepath.Join(dir, "pg_dump"), nil
	}
	p := fmt.Sprintf("/usr/lib/postgresql/%d/bin/pg_dump", num/10000)
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	return exec.LookPath("pg_dump")
}

// EmptyDatabase returns the URL of a database with nothing of pgbrain in it
// (cloned from template0), dropped with the test unless the test failed.
//
// The cluster's pgbrain roles, their memberships and settings are shared by
// every database and created by the first migration; two first migrations
// at once (parallel tests migrating empty databases) would race on them.
// So the migrated template is made first, under its lock, and every later
// migration finds the roles in place.
func EmptyDatabase(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, err := adminURL(ctx)
	if err != nil {
		t.Fatalf("testdb: no PostgreSQL server for tests (run 'make setup', or set TEST_DATABASE_URL): %v", err)
	}
	if _, err := ensureTemplate(ctx, admin, Options{Dim: migrate.DefaultDim, Embedder: migrate.DefaultEmbedder}); err != nil {
		t.Fatalf("testdb: preparing template: %v", err)
	}
	return Clone(t, "template0")
}
