package dbtest

import (
	"context"
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
