// Package testdb gives each Go test its own migrated pgbrain database.
//
// Databases are cloned (CREATE DATABASE ... TEMPLATE) from a template that
// is migrated once and named after a hash of every embedded SQL file, so a
// change under sql/, functions/ or triggers/ yields a fresh template. The
// server is TEST_DATABASE_URL when set (`make test` starts one ephemeral
// cluster for the whole run and sets it), otherwise a private ephemeral
// cluster started on first use and removed when the test binary exits
// through Main. A failed test keeps its database and logs how to connect.
package testdb

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	pgbrain "github.com/pgbrain/pgbrain"
	"github.com/pgbrain/pgbrain/client/migrate"
	"github.com/pgbrain/pgbrain/internal/pgcluster"
)

// Options select the brain a test gets.
type Options struct {
	Dim      int    // embedding dimension; default migrate.DefaultDim
	Embedder string // default "local"
}

// The process-wide server: tests in one binary share it. This is the one
// piece of package state, and it is only ever set once.
var server struct {
	once    sync.Once
	url     string // admin URL (database "postgres" or the given one)
	cluster *pgcluster.Cluster
	home    string
	err     error
}

// Main runs the tests and then removes the private cluster, if one was
// started. Use it from TestMain: func TestMain(m *testing.M) { testdb.Main(m) }
func Main(m *testing.M) {
	// The tests' own files (t.TempDir) go to memory too when the machine
	// has a memory file system and TMPDIR does not say otherwise: some
	// tests write thousands of files, which on ext4 cost more CPU in the
	// kernel than the rest of the test.
	if d := pgcluster.MemoryDir(); d != "" && os.Getenv("TMPDIR") == "" {
		os.Setenv("TMPDIR", d)
	}
	code := m.Run()
	if server.cluster == nil {
		// A shared server (TEST_DATABASE_URL) outlives this binary: what it
		// built for the whole binary would pile up there run after run.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		for _, err := range runAtExit(ctx) {
			fmt.Fprintf(os.Stderr, "testdb: %v\n", err)
		}
		cancel()
	}
	if server.cluster != nil && code != 0 {
		fmt.Fprintf(os.Stderr, "testdb: tests failed; the test cluster is kept at %s (failed tests' databases are logged above); remove it with: go run ./testdb/cmd/testcluster stop %s\n",
			server.cluster.Dir(), server.home)
	} else if server.cluster != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := server.cluster.Destroy(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "testdb: removing test cluster: %v\n", err)
		}
		cancel()
		// As root the cluster lives elsewhere; its home holds only a lock.
		_ = os.RemoveAll(server.home)
	}
	os.Exit(code)
}

// atExit holds what Main undoes on a shared server after the tests: the
// databases helpers such as dbtest.Fixture build once per test binary.
var atExit struct {
	mu  sync.Mutex
	fns []func(context.Context) error
}

// AtExit registers f to run after the tests when they share a server given
// by TEST_DATABASE_URL; a private cluster is removed whole instead.
func AtExit(f func(context.Context) error) {
	atExit.mu.Lock()
	defer atExit.mu.Unlock()
	atExit.fns = append(atExit.fns, f)
}

func runAtExit(ctx context.Context) []error {
	atExit.mu.Lock()
	fns := atExit.fns
	atExit.fns = nil
	atExit.mu.Unlock()
	var errs []error
	for _, f := range fns {
		if err := f(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// Server returns the admin URL of the server the tests of this binary share:
// TEST_DATABASE_URL when set, otherwise a private ephemeral cluster started
// on first use (removed at exit when the binary runs through Main). Use it
// with CreateMigrated where no testing.TB is at hand.
func Server(ctx context.Context) (string, error) { return adminURL(ctx) }

func adminURL(ctx context.Context) (string, error) {
	server.once.Do(func() {
		if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
			server.url = u
			return
		}
		dir, err := pgcluster.TestHome("pgbrain-testdb-")
		if err != nil {
			server.err = err
			return
		}
		server.home = dir
		server.cluster, server.url, server.err = pgcluster.StartForTests(ctx, dir)
	})
	return server.url, server.err
}

// New returns the URL of a fresh migrated database for t.
func New(t testing.TB, opts ...Options) string {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Dim == 0 {
		o.Dim = migrate.DefaultDim
	}
	if o.Embedder == "" {
		o.Embedder = migrate.DefaultEmbedder
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, err := adminURL(ctx)
	if err != nil {
		t.Fatalf("testdb: no PostgreSQL server for tests (run 'make setup', or set TEST_DATABASE_URL): %v", err)
	}
	tmpl, err := ensureTemplate(ctx, admin, o)
	if err != nil {
		t.Fatalf("testdb: preparing template: %v", err)
	}
	return Clone(t, tmpl)
}

// Clone copies template, a database on the server of this test binary
// (Server), into a new database for t and returns its URL; the copy is
// dropped at cleanup unless t failed. New uses it with the migrated
// template; a test helper may pass a template of its own.
func Clone(t testing.TB, template string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, err := adminURL(ctx)
	if err != nil {
		t.Fatalf("testdb: no PostgreSQL server for tests (run 'make setup', or set TEST_DATABASE_URL): %v", err)
	}
	name := "pgbrain_test_" + randomSuffix()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("testdb: connecting to %s: %v", redact(admin), err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, template)); err != nil {
		t.Fatalf("testdb: cloning %s: %v", template, err)
	}
	dbURL, err := withDatabase(admin, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("testdb: kept database %s for inspection: psql '%s'", name, dbURL)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Logf("testdb: dropping %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("testdb: dropping %s: %v", name, err)
		}
	})
	return dbURL
}

// CreateMigrated creates database name on the server at admin, cloned from
// the migrated template, and returns its URL. Benchmarks use it; tests use New.
func CreateMigrated(ctx context.Context, admin, name string, o Options) (string, error) {
	if o.Dim == 0 {
		o.Dim = migrate.DefaultDim
	}
	if o.Embedder == "" {
		o.Embedder = migrate.DefaultEmbedder
	}
	tmpl, err := ensureTemplate(ctx, admin, o)
	if err != nil {
		return "", err
	}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		return "", err
	}
	if _, err := conn.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", pgx.Identifier{name}.Sanitize(), tmpl)); err != nil {
		return "", err
	}
	return withDatabase(admin, name)
}

// templateName hashes every embedded SQL file and the options, so any SQL
// change or new option gets its own template.
func templateName(o Options) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(pgbrain.SQLFiles, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(pgbrain.SQLFiles, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(data))
		h.Write(data)
		return nil
	})
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "dim=%d embedder=%s", o.Dim, o.Embedder)
	return "pgbrain_tmpl_" + hex.EncodeToString(h.Sum(nil))[:16], nil
}

func ensureTemplate(ctx context.Context, admin string, o Options) (string, error) {
	name, err := templateName(o)
	if err != nil {
		return "", err
	}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "", fmt.Errorf("connecting to %s: %w", redact(admin), err)
	}
	defer conn.Close(ctx)
	// Test binaries of several packages run at once; one builds the template.
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtext('pgbrain-testdb-template'))`); err != nil {
		return "", err
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtext('pgbrain-testdb-template'))`)
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	building := name + "_build"
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+building+" WITH (FORCE)"); err != nil {
		return "", err
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+building); err != nil {
		return "", err
	}
	u, err := withDatabase(admin, building)
	if err != nil {
		return "", err
	}
	if err := migrate.Migrate(ctx, u, migrate.Options{Dim: o.Dim, Embedder: o.Embedder}); err != nil {
		return "", err
	}
	if _, err := conn.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s RENAME TO %s", building, name)); err != nil {
		return "", err
	}
	if _, err := conn.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s IS_TEMPLATE true", name)); err != nil {
		return "", err
	}
	return name, nil
}

func withDatabase(raw, db string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("testdb: parsing database URL: %w", err)
	}
	u.Path = "/" + db
	return u.String(), nil
}

func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

func randomSuffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return strings.ToLower(hex.EncodeToString(b))
}
