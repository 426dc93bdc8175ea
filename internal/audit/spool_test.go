package audit_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/audit"
	"github.com/pgbrain/pgbrain/testdb"
)

// outage makes the database behind dbURL refuse connections (down) or take
// them again: connections are turned away and the open ones terminated,
// which is what a client sees when the server goes away, with a real
// PostgreSQL error rather than a stub.
func outage(t *testing.T, dbURL string, down bool) {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	u.Path = "/postgres"
	ctx := context.Background()
	c, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, fmt.Sprintf(`ALTER DATABASE %s ALLOW_CONNECTIONS %v`, pgx.Identifier{name}.Sanitize(), !down)); err != nil {
		t.Fatal(err)
	}
	if down {
		if _, err := c.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, name); err != nil {
			t.Fatal(err)
		}
	}
}

func tools(t *testing.T, q audit.Querier) []string {
	t.Helper()
	rows, err := audit.List(context.Background(), q, audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, r.Tool)
	}
	return out
}

func call(i int) audit.Entry {
	return audit.Entry{SessionID: "sess", Caller: "agent", Tool: fmt.Sprintf("call_%d", i), Status: audit.StatusSuccess, CostClass: "search"}
}

// TestOutageRowsChainedInCallOrder is issue 14's finding: calls made while
// the database is down used to leave no row and a chain that still
// verified. Now their rows wait in the spool (mode 0600) and are chained,
// in call order and ahead of newer calls, once the database is back.
func TestOutageRowsChainedInCallOrder(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"async", "sync"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dbURL := testdb.New(t)
			home := t.TempDir()
			var stderr syncBuffer
			w := audit.NewWriter(pool(t, dbURL), &stderr).WithTimeout(2 * time.Second).WithSpool(audit.NewSpool(home))
			var rec interface {
				Record(context.Context, audit.Entry) (string, error)
			} = w
			flush := func() {}
			if mode == "async" {
				a := audit.NewAsync(w, audit.AsyncOptions{MaxBatch: 2})
				t.Cleanup(func() { _ = a.Close(context.Background()) })
				rec = a
				flush = func() {
					if err := a.Flush(ctx); err != nil {
						t.Fatal(err)
					}
				}
			}
			do := func(from, to int) {
				for i := from; i < to; i++ {
					if fp, _ := rec.Record(ctx, call(i)); fp != audit.Fingerprint(call(i)) {
						t.Fatalf("call %d: fingerprint %q", i, fp)
					}
				}
				flush()
			}
			do(0, 2)
			outage(t, dbURL, true)
			do(2, 7)
			sp := audit.NewSpool(home)
			if n, err := sp.Pending(); err != nil || n != 5 {
				t.Fatalf("spool holds %d rows (%v), want the 5 calls of the outage; stderr: %s", n, err, stderr.String())
			}
			fi, err := os.Stat(filepath.Join(home, audit.SpoolFile))
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("spool mode %v, want 0600", fi.Mode().Perm())
			}
			outage(t, dbURL, false)
			do(7, 9)

			check := connect(t, dbURL)
			var want []string
			for i := 0; i < 9; i++ {
				want = append(want, call(i).Tool)
			}
			if got := tools(t, check); !slices.Equal(got, want) {
				t.Errorf("chain holds %v, want every call in call order %v", got, want)
			}
			if p := verify(t, check, audit.Scope{Full: true}); len(p) != 0 {
				t.Errorf("brain.audit_verify: %v", p)
			}
			if n, _ := sp.Pending(); n != 0 {
				t.Errorf("spool still holds %d rows", n)
			}
			if !strings.Contains(stderr.String(), "chained 5 calls") {
				t.Errorf("stderr does not report the chained spool: %s", stderr.String())
			}
		})
	}
}

// TestSpoolRefusesSymlink: the spool is not written through a planted link.
func TestSpoolRefusesSymlink(t *testing.T) {
	home := t.TempDir()
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(home, audit.SpoolFile)); err != nil {
		t.Fatal(err)
	}
	err := audit.NewSpool(home).Append([]audit.Entry{call(1)})
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("Append through a link: %v, want a refusal", err)
	}
	if b, _ := os.ReadFile(target); len(b) != 0 {
		t.Errorf("the link's target received %q", b)
	}
}
