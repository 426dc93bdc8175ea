package dbtest

import (
	"context"
	"os"
	"os/exec"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// Each clone starts from what Build left, Build runs once, and a write to
// one clone is not seen by another.
func TestFixtureClonesAreBuiltOnceAndIndependent(t *testing.T) {
	var builds atomic.Int32
	fx := &Fixture{Name: "probe", Build: func(ctx context.Context, url string) error {
		builds.Add(1)
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, `CREATE TABLE public.probe (n int); INSERT INTO public.probe VALUES (1)`)
		return err
	}}
	ctx := context.Background()
	count := func(u string) int {
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM public.probe`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	a, b := fx.Clone(t), fx.Clone(t)
	conn, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO public.probe VALUES (2)`); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	if got := count(a); got != 2 {
		t.Errorf("clone a holds %d rows, want 2", got)
	}
	if got := count(b); got != 1 {
		t.Errorf("clone b holds %d rows, want the fixture's 1", got)
	}
	if got := count(fx.Clone(t)); got != 1 {
		t.Errorf("a third clone holds %d rows, want the fixture's 1", got)
	}
	if n := builds.Load(); n != 1 {
		t.Errorf("Build ran %d times, want once", n)
	}
}

// A test binary run against a shared server (TEST_DATABASE_URL, as `make
// test` runs them) leaves none of its fixture templates behind: their names
// are random, so nothing else would ever drop them.
func TestFixtureTemplatesAreDroppedFromASharedServer(t *testing.T) {
	if os.Getenv("DBTEST_CHILD") == "1" {
		fx := &Fixture{Name: "leakprobe", Build: func(context.Context, string) error { return nil }}
		fx.Clone(t)
		return
	}
	ctx := context.Background()
	admin, err := testdb.Server(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFixtureTemplatesAreDroppedFromASharedServer$", "-test.count=1")
	cmd.Env = append(os.Environ(), "DBTEST_CHILD=1", "TEST_DATABASE_URL="+admin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the child test binary failed: %v\n%s", err, out)
	}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var left []string
	rows, err := conn.Query(ctx, `SELECT datname FROM pg_database WHERE datname LIKE 'pgbrain\_fixture\_leakprobe\_%'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		left = append(left, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("the child left fixture templates on the shared server: %v", left)
	}
}
